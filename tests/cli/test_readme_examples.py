"""Every ``$ wmap ...`` example of the README, run at 80 columns: it works, fits, and prints what the README shows."""

from __future__ import annotations

import re
import shlex

import pytest
from typer.testing import CliRunner

from helpers import REPO_ROOT
from workloadmap.cli.main import app

WIDTH = 80
MACHINE = re.compile(r"(^|\s)(-o\s*(json|yaml)|--emit)\b|catalog (export|schema)")


def _examples() -> list[tuple[str, list[str]]]:
    """(command, the lines the README prints under it), for every ``$ wmap`` line in a code block."""
    found = []
    inside = False
    current: tuple[str, list[str]] | None = None
    for line in (REPO_ROOT / "README.md").read_text().splitlines():
        if line.startswith("```"):
            inside = not inside
            current = None
            continue
        if not inside:
            continue
        if line.startswith("$ "):
            current = (line[2:], [])
            if line.startswith("$ wmap "):
                found.append(current)
        elif current is not None and line:
            current[1].append(line)
    return found


EXAMPLES = _examples()


def test_the_readme_has_examples_of_the_commands_people_read_first():
    commands = " ".join(command for command, _ in EXAMPLES)
    for wanted in ("wmap inspect", "wmap place", "wmap topology show", "wmap catalog list", "--html"):
        assert wanted in commands


@pytest.mark.parametrize(("command", "shown"), EXAMPLES, ids=[command[:60] for command, _ in EXAMPLES])
def test_readme_example_fits_80_columns_and_prints_what_the_readme_shows(command, shown, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    monkeypatch.delenv("WMAP_CATALOG", raising=False)
    words = shlex.split(command.split(" | ")[0].split("  #")[0])[1:]
    if "--html" in words:
        words[words.index("--html") + 1] = str(tmp_path / "picture.html")
    result = CliRunner().invoke(app, words, env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.stderr
    printed = result.stdout.splitlines()
    if not MACHINE.search(command):
        too_wide = [line for line in printed if len(line) > WIDTH]
        assert not too_wide, f"{len(too_wide)} lines wider than {WIDTH} columns, e.g. {too_wide[0]!r}"
    # Lines with "..." stand for output left out; event ages depend on today's date; notes and
    # warnings the README shows go to stderr.
    expected = [line for line in shown if "..." not in line and not re.match(r"^  \d+[smhdy] ", line)]
    assert [line for line in expected if line not in printed + result.stderr.splitlines()] == []
