"""The layout docs/architecture.md describes, checked: the public API, one-way imports, sizes."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import workloadmap
from helpers import REPO_ROOT

PACKAGE = REPO_ROOT / "workloadmap"
CLI = REPO_ROOT / "cli"

# Each stage may import only stages of a lower rank (its own modules aside): imports flow one way.
RANK = {
    "errors": 0,
    "labels": 0,
    "quantities": 1,
    "loader": 1,
    "budgets": 1,
    "selectors": 1,
    "values": 2,
    "documents": 2,
    "expressions": 2,
    "kube": 2,
    "numa": 2.5,  # the kubelet's NUMA admission; scheduling carries a pod's NUMA demand as a node filter
    "resources": 3,
    "scheduling": 3,
    "runtime_definitions": 3.5,  # definitions as the interpreter reads them; the pydantic models extend them
    "definitions": 4,
    "karta": 4.5,  # reads Kartas and writes wmap definitions as Kartas; the catalog loads them
    "catalog_cache": 4.6,  # the precompiled built-in definitions, below the catalog that reads them
    "catalog": 5,
    "catalog_docs": 6,
    "tree": 6,
    "interpreter": 7,
    "topology": 7,
    "lint": 8,
    "alter": 8,
    "placement": 9,
    "exporters": 10,
    "live": 10,
    "service": 10.5,  # wmap serve: watches, cache, interpretation, metrics, API (above live and exporters)
    "__init__": 11,
}

PUBLIC = [
    "inspect", "inspect_file", "inspect_documents", "InspectResult", "WorkloadTree", "Catalog", "load_definition",
    "Definition", "Phase", "load_cluster", "Cluster", "place", "rank_clusters", "place_on", "PlacementReport",
    "export", "export_targets", "lint_path", "lint_definition", "WorkloadMapError", "InputError", "DefinitionError",
    "NoDefinitionError", "TopologyError", "PlacementError", "ClusterError", "RelatedObjects", "ObjectIndex",
    "alter", "Changes", "Toleration", "NodeRequirement", "Alteration", "AlterError",
    "describe", "DescribeReport", "LiveObjects",
]  # fmt: skip

SUBPACKAGES = [
    "expressions",
    "definitions",
    "interpreter",
    "topology",
    "placement",
    "exporters",
    "lint",
    "kube",
    "alter",
    "karta",
    "live",
    "numa",
    "service",
]


def test_the_package_names_its_whole_public_api():
    assert set(PUBLIC) <= set(workloadmap.__all__)
    for name in workloadmap.__all__:
        assert getattr(workloadmap, name) is not None, name
    assert len(workloadmap.__all__) == len(set(workloadmap.__all__))


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_stage_re_exports_its_public_names(name):
    module = importlib.import_module(f"workloadmap.{name}")
    assert module.__doc__, f"workloadmap.{name} says what the stage does"
    for exported in module.__all__:
        assert hasattr(module, exported), f"workloadmap.{name}.__all__ names {exported}, which it lacks"


def _stage(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return relative.parts[0].removesuffix(".py")


def _imported_stages(path: Path) -> set[str]:
    """Stages of workloadmap a module imports (relative and absolute, at any depth)."""
    tree = ast.parse(path.read_text())
    depth = len(path.relative_to(PACKAGE).parts) - 1
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                if node.level > depth:  # reaches the package root
                    if node.module:
                        found.add(node.module.split(".")[0])
                    else:
                        found.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith("workloadmap."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("workloadmap."):
                    found.add(alias.name.split(".")[1])
    return found


def test_imports_flow_one_way():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        stage = _stage(path)
        for imported in _imported_stages(path) - {stage}:
            if imported in RANK and RANK[imported] >= RANK[stage]:
                wrong.append(f"{path.relative_to(REPO_ROOT)} ({stage}) imports {imported}")
    assert not wrong, "imports must go to lower stages:\n" + "\n".join(wrong)


def test_every_stage_is_ranked():
    stages = {_stage(path) for path in PACKAGE.rglob("*.py")}
    assert stages - {"builtin"} <= set(RANK)


def _python_files():
    return [path for root in (PACKAGE, CLI) for path in sorted(root.rglob("*.py"))]


@pytest.mark.parametrize("path", _python_files(), ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_modules_and_functions_stay_small(path):
    source = path.read_text()
    assert source.count("\n") <= 550, "split the module: each should do one job"
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
                body = body[1:] or body
            length = (node.end_lineno or node.lineno) - body[0].lineno + 1
            assert length <= 60, f"{node.name} (line {node.lineno}) has {length} lines; split it"


def test_every_subpackage_is_installed():
    """A non-editable install (CI's) ships only the packages pyproject lists: a new stage must be listed."""
    import tomllib

    listed = set(tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(path.parent.relative_to(REPO_ROOT).parts)
        for path in (REPO_ROOT / "workloadmap").rglob("__init__.py")
        if "__pycache__" not in path.parts
    }
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
