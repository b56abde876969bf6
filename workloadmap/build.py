"""The build step: every second form the package ships, written from its one declaration.

``python -m workloadmap.build`` (``python -m workloadmap.catalog`` runs it too) writes, in order:

1. the runtime classes' heads in ``runtime_definitions.py``, from the pydantic models
   (:mod:`workloadmap.definitions.runtime_source`); when they change, the step starts again in a
   fresh process, so that what follows is built with the new classes;
2. ``__init__.pyi``, the type stub of the package, from its ``_API`` table (:func:`api_stub`);
3. ``catalog/compiled.pickle``, the precompiled built-in catalog
   (:func:`workloadmap.catalog.rebuild_precompiled`).

Each has a test that fails when the file is not what this step writes from the declarations of
the checkout (``tests/test_runtime_definitions.py``, ``tests/test_package_api.py``,
``tests/test_catalog_cache.py``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["api_stub", "api_stub_path", "main"]

_PASS = "WMAP_BUILD_PASS"


def api_stub_path() -> Path:
    """Where the package's type stub lives (beside its ``__init__.py``)."""
    return Path(__file__).with_name("__init__.pyi")


def api_stub() -> str:
    """The type stub of :mod:`workloadmap`: each public name imported from its module, as ``_API`` says."""
    import workloadmap

    lines = [
        '"""The public API of :mod:`workloadmap` for type checkers (its names are imported lazily at run time).',
        "",
        "Written by ``python -m workloadmap.catalog`` from the package's ``_API`` table: edit the table.",
        '"""',
        "",
    ]
    for module in sorted(workloadmap._API):
        names = ", ".join(sorted(workloadmap._API[module], key=_import_order))
        single = f"from {module} import {names}"
        if len(single) <= 120:
            lines.append(single)
        else:
            lines += [f"from {module} import (", *(f"    {name}," for name in names.split(", ")), ")"]
    lines += ["", "__version__: str", "_API: dict[str, tuple[str, ...]]", "", "__all__ = ["]
    lines += [f'    "{name}",' for name in workloadmap.__all__]
    lines += ["]", ""]
    return "\n".join(lines)


def _import_order(name: str) -> tuple[int, str]:
    """The order of names ruff's import sorting keeps: constants, then classes, then functions and variables."""
    if name.isupper():
        return 0, name
    return (1, name) if name[:1].isupper() else (2, name)


def main() -> None:
    """Write every generated form (see the module docstring); rerun in a fresh process when the classes change."""
    from .definitions.runtime_source import runtime_path, write_runtime_source

    if write_runtime_source():
        if os.environ.get(_PASS):
            sys.exit(f"{runtime_path()} changed again on the second pass: the generator is not stable")
        print(f"wrote {runtime_path()}")
        sys.stdout.flush()
        _restart()
    stub = api_stub()
    path = api_stub_path()
    if not path.is_file() or path.read_text() != stub:
        path.write_text(stub)
        print(f"wrote {path}")
    from .catalog import rebuild_precompiled

    print(f"wrote {rebuild_precompiled()}")


def _restart() -> None:
    # Pickle writes sets in hash order: a fixed seed makes rebuilds byte-equal.
    environment = {**os.environ, "PYTHONHASHSEED": "0", _PASS: "2"}
    os.execve(sys.executable, [sys.executable, "-m", "workloadmap.build"], environment)


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable, "-m", "workloadmap.build"], {**os.environ, "PYTHONHASHSEED": "0"})
    main()
