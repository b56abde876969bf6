"""The layout docs/architecture.md describes, checked: the public API, one-way imports, no import cycle, sizes."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import workloadmap
from helpers import REPO_ROOT, sizes

PACKAGE = REPO_ROOT / "workloadmap"
CLI = REPO_ROOT / "cli"

# Each stage may import only stages of a lower rank (its own modules aside): imports flow one way.
RANK = {
    "errors": 0,
    "labels": 0,
    "lazy": 0,  # names of a package imported when first used (PEP 562)
    "yaml_typing": 0.5,  # how kubectl's YAML reader types a plain scalar: the loader's keys, the writers' quoting
    "quantities": 1,
    "loader": 1,
    "budgets": 1,
    "kai_releases": 1,  # the KAI releases modelled (--kai-version) and the pod-grouper changes between them
    "selectors": 1,
    "values": 2,
    "documents": 2,
    "expressions": 2,
    "kube": 2,
    "numa": 2.5,  # the kubelet's NUMA admission; scheduling carries a pod's NUMA demand as a node filter
    "resources": 3,
    "scheduling": 3,
    "dra": 3.2,  # DRA claims counted and selectors evaluated; the interpreter counts pods' devices with it
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
    "admission": 9.5,  # Kueue and KAI admission: quota over placement's PodSets and TAS placement
    "exporters": 10,
    "live": 10,
    "diff": 10,  # two versions of workloads compared, their placements too
    "service": 10.5,  # wmap serve: watches, cache, interpretation, metrics, API (above live and exporters)
    "__init__": 11,
    "build": 12,  # the build step: writes the generated forms (runtime class heads, the package stub, the pickle)
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
    "dra",
    "admission",
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
    # A module over sizes.PROMPT_LINES is listed at the end of the run (tests/conftest.py): a prompt
    # to look whether it still does one job, never a reason to cut it. Only a far larger one fails.
    source = path.read_text()
    assert source.count("\n") <= sizes.MAX_LINES, f"{sizes.MAX_LINES} lines: this module surely does several jobs"
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
                body = body[1:] or body
            length = (node.end_lineno or node.lineno) - body[0].lineno + 1
            assert length <= 60, f"{node.name} (line {node.lineno}) has {length} lines; split it"


# -- the import graph --------------------------------------------------------------------------

ROOTS = {"workloadmap": PACKAGE, "workloadmap.cli": CLI}
"""Where each package's modules are (cli/ is installed as workloadmap.cli)."""

ALLOWED_CYCLES: set[frozenset[str]] = set()
"""Import cycles tolerated while being removed: none now, and none may join."""


def modules(roots: dict[str, Path]) -> dict[str, tuple[Path, bool]]:
    """Every module under ``roots`` by its dotted name, with its file and whether it is a package."""
    found = {}
    for prefix, base in roots.items():
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            package = parts[-1] == "__init__"
            found[".".join([prefix, *(parts[:-1] if package else parts)])] = (path, package)
    return found


def imported_modules(name: str, known: dict[str, tuple[Path, bool]]) -> set[str]:
    """The modules of ``known`` that ``name`` imports: every import statement at any depth.

    Function-level (lazy) imports and ``if TYPE_CHECKING:`` blocks count, relative and absolute;
    ``from pkg import x`` is an edge to the module ``pkg.x`` when there is one, else to ``pkg``.
    """
    path, package = known[name]
    here = name.split(".") if package else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else []))
            if not node.level:
                base = node.module or ""
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in known:
                    found.add(target)
                elif base in known:
                    found.add(base)
    return found - {name}


def import_graph(roots: dict[str, Path]) -> dict[str, set[str]]:
    """Module name -> the modules it imports (within ``roots``)."""
    known = modules(roots)
    return {name: imported_modules(name, known) for name in known}


def cycles(graph: dict[str, set[str]]) -> list[tuple[frozenset[str], list[str]]]:
    """Each group of modules that import each other (Tarjan's components), with one cycle through it (``a, b, a``)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for after in sorted(graph[node]):
            if after not in index:
                visit(after)
                low[node] = min(low[node], low[after])
            elif after in stack:
                low[node] = min(low[node], index[after])
        if low[node] == index[node]:
            component = {stack.pop()}
            while node not in component:
                component.add(stack.pop())
            if len(component) > 1:
                found.append((frozenset(component), _cycle_through(graph, sorted(component)[0], component)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _cycle_through(graph: dict[str, set[str]], start: str, component: set[str]) -> list[str]:
    """The shortest path from ``start`` back to itself inside ``component``."""
    paths = {start: [start]}
    pending = [start]
    while pending:
        node = pending.pop(0)
        for after in sorted(graph[node] & component):
            if after == start:
                return [*paths[node], start]
            if after not in paths:
                paths[after] = [*paths[node], after]
                pending.append(after)
    raise AssertionError(f"{start} is in a component without a cycle")


def test_no_import_cycle_of_any_kind():
    found = [(group, cycle) for group, cycle in cycles(import_graph(ROOTS)) if group not in ALLOWED_CYCLES]
    assert not found, "import cycles (lazy and TYPE_CHECKING imports count):\n" + "\n".join(
        " -> ".join(cycle)
        + (f" (and {len(group) - len(cycle) + 1} more modules)" if len(group) > len(cycle) - 1 else "")
        for group, cycle in found
    )


def test_the_cycle_check_sees_every_kind_of_import(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "lazy.py": "def f():\n    from .typed import T\n",
        "typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import lazy\n",
        "named.py": "from . import plain\n",
        "plain.py": "import pkg.sub.deep\n",
        "sub/__init__.py": "",
        "sub/deep.py": "from ..named import something\n",
        "alone.py": "from . import missing_name\nimport os\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    graph = import_graph({"pkg": package})
    assert graph["pkg.alone"] == {"pkg"}  # a name that is not a module: the package itself
    assert sorted(cycle for _, cycle in cycles(graph)) == [
        ["pkg.lazy", "pkg.typed", "pkg.lazy"],
        ["pkg.named", "pkg.plain", "pkg.sub.deep", "pkg.named"],
    ]


# -- the command line's layers -----------------------------------------------------------------

CLI_LAYERS = {"printing": 0, "render": 1, "commands": 2}
"""cli/: printing (writers, formats, views) < render (human views) < commands < the app (entry, main, help ...)."""
APP_LAYER = 3


def _cli_layer(name: str) -> int | None:
    """The layer of a module of the command line (None: a module of the library)."""
    if not name.startswith("workloadmap.cli"):
        return None
    parts = name.split(".")[2:]
    return CLI_LAYERS.get(parts[0], APP_LAYER) if parts else APP_LAYER


def test_the_command_line_imports_downward_only():
    wrong = []
    for name, imported in sorted(import_graph(ROOTS).items()):
        layer = _cli_layer(name)
        for target in sorted(imported):
            below = _cli_layer(target)
            if layer is None and below is not None:
                wrong.append(f"{name} (the library) imports {target} (the command line)")
            elif layer is not None and below is not None and below > layer and name != "workloadmap.cli":
                wrong.append(f"{name} imports {target}, a layer above it")
    assert not wrong, "app > commands > render > printing, and the library below them all:\n" + "\n".join(wrong)


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
