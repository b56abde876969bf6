"""The package's public API, declared once (``workloadmap._API``): ``__all__``, the lazy imports and the stub.

``__all__`` and the lazy ``__getattr__`` are derived from the table at import; the type stub
``__init__.pyi`` that mypy reads is written from it by the build step, and must be what it writes.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys

import pytest

import workloadmap
from workloadmap.build import api_stub, api_stub_path


def test_the_stub_is_what_the_table_gives():
    assert api_stub_path().read_text() == api_stub(), "__init__.pyi is stale: run `python -m workloadmap.catalog`"


def test_the_stub_imports_every_public_name_from_its_module_and_nothing_else():
    tree = ast.parse(api_stub_path().read_text())
    imported = {
        alias.name: f"{'.' * node.level}{node.module}"
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert imported == {name: module for module, names in workloadmap._API.items() for name in names}
    declared = next(node for node in tree.body if isinstance(node, ast.Assign))
    assert ast.literal_eval(declared.value) == workloadmap.__all__


SUBPACKAGE_NAMES = {"alter"}
"""Public names that are also a subpackage's name: importing the subpackage binds it to the name."""


@pytest.mark.parametrize(("module", "names"), list(workloadmap._API.items()), ids=lambda value: str(value)[:40])
def test_each_name_is_the_one_its_module_defines(module, names):
    source = importlib.import_module(module, "workloadmap")
    for name in set(names) - SUBPACKAGE_NAMES:
        assert getattr(workloadmap, name) is getattr(source, name)


def test_a_name_shared_with_a_subpackage_is_called_as_the_function_in_either_import_order(tmp_path):
    # Importing `workloadmap.alter` (which `from workloadmap import Changes` does) binds the subpackage to
    # `workloadmap.alter` over the lazy function; the subpackage is callable as the function, so
    # `workloadmap.alter(obj, changes)` works whichever came first (docs/alter.md's example imports Changes first).
    call = (
        "obj = {'apiVersion': 'batch/v1', 'kind': 'Job', 'metadata': {'name': 'j'}, 'spec': {'template': {'spec':"
        " {'containers': [{'name': 'c', 'image': 'i'}]}}}}; "
        "print(workloadmap.alter(obj, Changes(scheduler_name='kai-scheduler')).object['spec']['template']['spec']"
        "['schedulerName'])"
    )
    for program in (
        "import workloadmap; from workloadmap import Changes; " + call,
        "import workloadmap; workloadmap.alter; from workloadmap.alter import Changes; " + call,
    ):
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=tmp_path, check=True)
        assert done.stdout.strip() == "kai-scheduler"


def test_all_is_the_table_in_order_and_unknown_names_fail():
    assert workloadmap.__all__ == ["__version__", *(name for names in workloadmap._API.values() for name in names)]
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        workloadmap.nothing  # noqa: B018
    assert set(workloadmap.__all__) <= set(dir(workloadmap))


def test_importing_the_package_imports_no_stage(tmp_path):
    # The names load on first use: `import workloadmap` alone loads none of the stages, only the
    # mechanism that loads them (workloadmap.lazy, which imports nothing of wmap).
    code = "import sys, workloadmap; print(' '.join(sorted(m for m in sys.modules if m.startswith('workloadmap.'))))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert done.stdout.split() == ["workloadmap.lazy"]


def test_a_lazy_name_is_imported_once_and_an_unknown_one_is_python_s_error():
    import workloadmap.live as live

    assert "audit_placement" in dir(live)
    first = live.audit_placement
    assert live.__dict__["audit_placement"] is first  # kept: the second use is a plain attribute
    with pytest.raises(AttributeError, match="module 'workloadmap.live' has no attribute 'nothing'"):
        live.nothing  # noqa: B018
