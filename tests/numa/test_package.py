"""The package's lazily loaded names stay the functions and classes, whatever loads first."""

from __future__ import annotations

import importlib
import pkgutil
import types

import workloadmap.numa as numa


def test_no_public_name_is_shadowed_by_a_submodule():
    # Importing a submodule sets it as an attribute of the package: a submodule named like one of
    # the package's functions would replace that function for every later `from ... import`.
    for module in pkgutil.iter_modules(numa.__path__):
        importlib.import_module(f"{numa.__name__}.{module.name}")
    shadowed = [name for name in numa.__all__ if isinstance(getattr(numa, name), types.ModuleType)]
    assert shadowed == []
