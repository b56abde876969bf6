"""Child Pythons in the tests and benchmarks import the installed package, not the clone's sources.

`python -c CODE` puts the working directory first on ``sys.path``. Run from the clone's root (pytest's
working directory), the clone's ``workloadmap/`` shadows the installed package, and it has no ``cli``
(pyproject maps the top-level ``cli/`` in at install). Under an editable install the shadow goes unseen;
under the plain install CI makes, ``from workloadmap.cli...`` fails. A stop's CI failed on nine such
tests: each ``[sys.executable, ..., "-c", ...]`` child names a working directory, or runs isolated (-I).
"""

from __future__ import annotations

import ast

from helpers import REPO_ROOT

CALLS = {"run", "Popen", "check_output", "check_call", "call"}


def _is_sys_executable(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "executable" and getattr(node.value, "id", "") == "sys"


def _unplaced_children(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        func = node.func if isinstance(node, ast.Call) else None
        if not isinstance(func, ast.Attribute) or func.attr not in CALLS:
            continue
        if getattr(func.value, "id", "") != "subprocess":
            continue
        if not node.args or not isinstance(node.args[0], ast.List) or not node.args[0].elts:
            continue
        elements = node.args[0].elts
        flags = [element.value for element in elements if isinstance(element, ast.Constant)]
        if not _is_sys_executable(elements[0]) or "-c" not in flags:
            continue
        if any(keyword.arg == "cwd" for keyword in node.keywords) or "-I" in flags or "-P" in flags:
            continue
        lines.append(node.lineno)
    return lines


def test_the_finder_sees_a_child_without_a_working_directory():
    source = "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'import workloadmap.cli'])\n"
    assert _unplaced_children(ast.parse(source)) == [2]
    placed = "import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'pass'], cwd='/tmp')\n"
    assert _unplaced_children(ast.parse(placed)) == []


def test_every_child_python_runs_outside_the_clone_or_isolated():
    found = {}
    for path in sorted([*(REPO_ROOT / "tests").rglob("*.py"), *(REPO_ROOT / "bench").rglob("*.py")]):
        lines = _unplaced_children(ast.parse(path.read_text(), filename=str(path)))
        if lines:
            found[str(path.relative_to(REPO_ROOT))] = lines
    assert found == {}, "give these children cwd= (outside the clone) or -I: " + repr(found)
