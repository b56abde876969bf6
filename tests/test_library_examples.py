"""The library examples of the README and the docs run as written, each in a fresh interpreter.

A fresh process, because the import order is part of what a user meets: ``from workloadmap import
Changes`` imports the ``workloadmap.alter`` subpackage, which Python binds to ``workloadmap.alter`` over
the function of that name, and docs/alter.md's example then called the module.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO_ROOT

PAGES = ("README.md", "docs/alter.md")

# What the examples leave to the reader: `obj` a parsed object, the files they name, and the values a
# user has at hand (pods already bound, an earlier tree, a second workload, a namespace's dump).
PRELUDE = """
import yaml
obj = yaml.safe_load(open("jobs/jobset.yaml"))
bound_pods = []
namespace_objects, node_objects = [], []
"""
PLACEHOLDERS = """
import workloadmap as _wmap
earlier_tree = other = _wmap.inspect(yaml.safe_load(open("jobs/jobset.yaml")))
"""


def _python_blocks() -> list[tuple[str, int, str]]:
    blocks = []
    for page in PAGES:
        text = (REPO_ROOT / page).read_text()
        for number, match in enumerate(re.finditer(r"```python\n(.*?)```", text, re.DOTALL), 1):
            blocks.append((page, number, match.group(1)))
    return blocks


def _workspace(directory: Path, readme: str) -> None:
    (directory / "jobs").mkdir()
    shutil.copy(REPO_ROOT / "fixtures" / "jobset-leader-workers.yaml", directory / "jobs" / "jobset.yaml")
    shutil.copy(REPO_ROOT / "fixtures" / "topology" / "nodes-topograph.yaml", directory / "nodes.json")
    (directory / "kartas").mkdir()
    shutil.copy(REPO_ROOT / "fixtures" / "karta" / "trainer-karta.yaml", directory / "kartas")
    (directory / "my-definitions").mkdir()
    section = readme[readme.index("## The definition format") :]
    definition = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert definition, "the README lost its annotated definition"
    (directory / "my-definitions" / "lws.yaml").write_text(definition.group(1))


def test_the_pages_have_library_examples():
    assert [(page, number) for page, number, _ in _python_blocks()] == [("README.md", 1), ("docs/alter.md", 1)]


@pytest.mark.parametrize(("page", "number", "code"), _python_blocks(), ids=lambda value: str(value)[:20])
def test_a_library_example_runs_as_written(tmp_path, page, number, code):
    _workspace(tmp_path, (REPO_ROOT / "README.md").read_text())
    # The placeholders that need wmap are made after the example's own first import, so the order
    # of imports is the example's.
    lines = code.splitlines()
    first_import = next(index for index, line in enumerate(lines) if line.startswith(("import ", "from ")))
    while first_import + 1 < len(lines) and lines[first_import + 1].startswith(("import ", "from ")):
        first_import += 1
    program = "\n".join([PRELUDE, *lines[: first_import + 1], PLACEHOLDERS, *lines[first_import + 1 :]])
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, f"{page} example {number} failed:\n{done.stderr[-3000:]}"
