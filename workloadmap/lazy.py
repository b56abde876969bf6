"""Names of a package imported when first used (PEP 562), for the packages whose parts are costly to import.

`wmap inspect` needs the interpreter, not placement, alter, live or Karta; `describe -f` needs live's report,
not its placement audit. A package declares its table of lazy names once and takes its module ``__getattr__``
and ``__dir__`` from :func:`lazy_attributes`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(package: str, modules: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose names ``modules`` maps to their (relative) module.

    A name is imported from its module on first use and kept in the package, so the second use is a plain
    attribute; a name not in the table is an ``AttributeError`` as Python words it.
    """

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        from importlib import import_module

        value = getattr(import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *modules})

    return __getattr__, __dir__
