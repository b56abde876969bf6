"""The documentation's examples are real: the README's annotated definition loads and means what it says."""

from __future__ import annotations

import re

import pytest

from helpers import REPO_ROOT, load_fixture
from workloadmap import Catalog, inspect
from workloadmap.catalog import parse_definition

REPO = REPO_ROOT


def _readme_definition() -> str:
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("## The definition format") :]
    match = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert match, "the README lost its annotated definition"
    return match.group(1)


def test_readme_definition_is_valid_and_interprets_an_lws():
    definition = parse_definition(_readme_definition(), "README.md")
    assert (definition.group, definition.kind) == ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")
    tree = inspect(load_fixture("leaderworkerset.yaml"), catalog=Catalog([definition]))
    builtin = inspect(load_fixture("leaderworkerset.yaml"))
    # The README's copy counts the same pods and gangs as the shipped definition.
    assert (tree.totals.pods, tree.totals.gpus) == (builtin.totals.pods, builtin.totals.gpus)
    assert [(g.min_member, [(s.name, s.min_member) for s in g.sub_groups]) for g in tree.pod_groups] == [
        (g.min_member, [(s.name, s.min_member) for s in g.sub_groups]) for g in builtin.pod_groups
    ]


@pytest.mark.parametrize(
    "page",
    [
        "README.md",
        "docs/definitions.md",
        "docs/topology.md",
        "docs/performance.md",
        "docs/architecture.md",
        "docs/lint.md",
        "docs/alter.md",
        "docs/serve.md",
    ],
)
def test_documented_links_exist(page):
    text = (REPO / page).read_text()
    for target in re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)\)", text):
        base = REPO if page == "README.md" else (REPO / page).parent
        assert (base / target).exists(), f"{page} links to missing {target}"


def test_architecture_page_names_every_module():
    """docs/architecture.md is the map: every module of the package appears on it."""
    page = (REPO / "docs" / "architecture.md").read_text()
    missing = []
    for path in sorted((REPO / "workloadmap").rglob("*.py")):
        if path.name == "__init__.py":
            continue
        if f"`{path.stem}`" not in page and f"{path.name}" not in page:
            missing.append(str(path.relative_to(REPO)))
    assert not missing, f"docs/architecture.md does not mention {missing}"


def test_architecture_page_has_a_line_for_every_module_of_the_command_line():
    """The command line's table names each module of cli/ by its path (``commands/place.py``)."""
    page = (REPO / "docs" / "architecture.md").read_text()
    section = page[page.index("## The command line") :]
    section = section[: section.index("\n## ", 1)]
    missing = [
        str(path.relative_to(REPO / "cli"))
        for path in sorted((REPO / "cli").rglob("*.py"))
        if path.name != "__init__.py" and f"`{path.relative_to(REPO / 'cli')}`" not in section
    ]
    assert not missing, f"docs/architecture.md's command-line table lacks {missing}"


def test_readme_describe_example_is_what_the_command_prints(wmap, monkeypatch):
    """The README's describe example runs from a clone, and its lines (all but event ages) are real."""
    monkeypatch.setenv("COLUMNS", "80")  # the README shows it at 80 columns
    readme = (REPO / "README.md").read_text()
    start = readme.index("$ wmap describe -f ")
    block = readme[start : readme.index("```", start)].splitlines()
    command = block[0].removeprefix("$ wmap ").split()
    result = wmap(*command)
    assert result.exit_code == 0, result.stderr
    printed = result.stdout.splitlines()
    shown = [line for line in block[1:] if "..." not in line and not re.match(r"^  \d+[smhdy] ", line)]
    assert [line for line in shown if line not in printed] == []
    words = " ".join(result.stdout.split())  # wrapped at 80 columns
    assert "NOT SATISFIED" in words and "split across NVLink domains" in words
