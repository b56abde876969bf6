"""The built-in catalog, precompiled: its definitions validated and compiled once, shipped in the package.

Validating 40-odd definitions with pydantic and compiling their 400-odd expressions costs more than
interpreting a workload, on every run. The package therefore ships ``compiled.pickle`` beside the
definition files: the validated, compiled :class:`~workloadmap.definitions.Definition` objects with a
fingerprint of what they were built from (every definition file's bytes, and the pydantic and
jmespath versions whose objects are stored). A file whose fingerprint does not match — a definition
was edited, a library upgraded — is ignored and the catalog is built from the YAML files as before,
so the shortcut can make wmap slower but never different. ``tests/test_catalog_cache.py`` fails when
the shipped file is stale; rebuild it with ``python -m workloadmap.catalog``.

Only this file, inside the installed package, is ever unpickled; user and cluster definitions are
always parsed as the untrusted YAML they are.
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path
from typing import Any

import jmespath
import pydantic

from .definitions import Definition

__all__ = ["PRECOMPILED_NAME", "fingerprint", "read_precompiled", "write_precompiled"]

PRECOMPILED_NAME = "compiled.pickle"
_FORMAT = 2  # bump when the stored objects change shape (Expression state, model fields)


def fingerprint(files: list[Path]) -> str:
    """What a precompiled catalog depends on: the definition files (names and bytes) and the libraries."""
    digest = hashlib.sha256(f"{_FORMAT} pydantic {pydantic.VERSION} jmespath {jmespath.__version__}".encode())
    for path in sorted(files, key=lambda path: path.name):
        data = path.read_bytes()
        digest.update(f"\0{path.name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def read_precompiled(directory: Path, files: list[Path]) -> list[Definition] | None:
    """The precompiled definitions of ``directory``, or None when absent, unreadable or stale."""
    try:
        with open(directory / PRECOMPILED_NAME, "rb") as handle:
            stored: dict[str, Any] = pickle.load(handle)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("fingerprint") != fingerprint(files):
        return None
    definitions: list[Definition] = []
    for name, definition in stored["definitions"]:
        definition._source = str(directory / name)  # where it is installed now, not where it was built
        definitions.append(definition)
    return definitions


def write_precompiled(directory: Path, files: list[Path], definitions: list[Definition]) -> Path:
    """Store ``definitions`` (loaded from ``files``, in that order) as the precompiled catalog of ``directory``."""
    entries = [(path.name, definition) for path, definition in zip(files, definitions, strict=True)]
    target = directory / PRECOMPILED_NAME
    with open(target, "wb") as handle:
        pickle.dump({"fingerprint": fingerprint(files), "definitions": entries}, handle, protocol=4)
    return target
