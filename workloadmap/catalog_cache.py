"""The built-in catalog, precompiled: its definitions validated and compiled once, shipped in the package.

Validating 40-odd definitions with pydantic and compiling their 400-odd expressions costs more than
interpreting a workload, on every run. The package therefore ships ``compiled.pickle`` beside the
definition files: the validated definitions in their runtime form
(:mod:`workloadmap.runtime_definitions`: each model's field values in the plain class it extends, so
reading them imports no pydantic). Pod selectors are stored as their checked text and parsed again
on first use. Expressions are stored as their checked text, what the analysis of their syntax trees
decided, and (JMESPath) their program as the compiler generates it: source, constants and code
object, one compressed blob each (:meth:`~workloadmap.expressions.Expression.shipped_form`). A
fresh process loads a program on its expression's first evaluation instead of parsing, interpreting
and compiling the expression (parsing 400 syntax trees on every start cost more than the rest of
the file; generating and compiling the programs of a corpus run, a quarter of a second). A
fingerprint says what the file was built from: every definition file's bytes, the fields of the
runtime classes, the modules that generate and run the programs, and the jmespath version (whose
parser decided, at build time, what each expression reads). A file whose fingerprint does not match — a definition was
edited, a field added, a library upgraded — is ignored and the catalog is built from the YAML files
as before, so the shortcut can make wmap slower but never different. ``tests/test_catalog_cache.py``
fails when the shipped file is stale; rebuild it with ``python -m workloadmap.catalog``.

Only this file, inside the installed package, is ever unpickled; user and cluster definitions are
always parsed as the untrusted YAML they are.
"""

from __future__ import annotations

import io
import pickle
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jmespath

from . import runtime_definitions as runtime
from .expressions import Expression

if TYPE_CHECKING:
    from . import definitions

__all__ = ["PRECOMPILED_NAME", "fingerprint", "read_precompiled", "write_precompiled"]

PRECOMPILED_NAME = "compiled.pickle"
_GENERATOR_FILES = [
    Path(__file__).with_name("expressions") / name for name in ("compiler.py", "runtime.py", "functions.py")
]
_FORMAT = 7  # bump when the stored objects change shape in a way the runtime classes' fields do not show


def fingerprint(files: list[Path]) -> str:
    """What a precompiled catalog depends on: the definition files (names and bytes), the classes, the library.

    A checksum, not a cryptographic digest: it tells an edited file from the one the catalog was
    built from (no one forges a collision against themselves: whoever can edit the package's files
    can replace the pickle too), and ``zlib`` costs no OpenSSL load on every start.
    """
    parts = [f"{_FORMAT} jmespath {jmespath.__version__} {zlib.crc32(_shapes().encode()):08x}"]
    # The shipped programs are what these modules generate and run: a change to one makes them stale.
    for path in [*_GENERATOR_FILES, *sorted(files, key=lambda path: path.name)]:
        data = path.read_bytes()
        parts.append(f"{path.name} {len(data)} {zlib.crc32(data):08x} {zlib.adler32(data):08x}")
    return "\n".join(parts)


def read_precompiled(directory: Path, files: list[Path]) -> list[runtime.Definition] | None:
    """The precompiled definitions of ``directory`` (runtime form), or None when absent, unreadable or stale."""
    try:
        with open(directory / PRECOMPILED_NAME, "rb") as handle:
            stored: dict[str, Any] = pickle.load(handle)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("fingerprint") != fingerprint(files):
        return None
    definitions: list[runtime.Definition] = []
    for name, definition in stored["definitions"]:
        definition._source = str(directory / name)  # where it is installed now, not where it was built
        definitions.append(definition)
    return definitions


def write_precompiled(directory: Path, files: list[Path], validated: list[definitions.Definition]) -> Path:
    """Store ``validated`` (loaded from ``files``, in that order) as the precompiled catalog of ``directory``.

    Each model is stored as an instance of its runtime class, with the same attribute values.
    """
    entries = [(path.name, definition) for path, definition in zip(files, validated, strict=True)]
    buffer = io.BytesIO()
    _RuntimePickler(buffer, protocol=4).dump({"fingerprint": fingerprint(files), "definitions": entries})
    target = directory / PRECOMPILED_NAME
    target.write_bytes(buffer.getvalue())
    return target


class _RuntimePickler(pickle.Pickler):
    """Pickles each definition model as an instance of its runtime class (the one of the same name it extends)."""

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is Expression:  # with its generated program: a fresh process neither interprets nor compiles it
            return obj.shipped_form()
        form = runtime.runtime_class(type(obj))
        if form is None or form is type(obj):
            return NotImplemented
        # The fields, then the private attributes the runtime class reads (_expressions, _source, _parsed).
        state = {**obj.__dict__, **(obj.__pydantic_private__ or {})}
        if "_parsed" in state:
            state["_parsed"] = None  # a pod selector is parsed again on first use (PodsDefinition.parsed_selector)
        if "_source" in state:
            # Set again on reading (read_precompiled), where it is installed: the builder's path would make
            # the shipped file depend on the clone it was built in, and write a machine's path into it.
            state["_source"] = None
        return object.__new__, (form,), state


def _shapes() -> str:
    """The fields of every runtime class: a class that changes makes stored objects stale."""
    classes = [getattr(runtime, name) for name in runtime.__all__]
    parts = [cls for cls in classes if isinstance(cls, type) and issubclass(cls, runtime.DefinitionPart)]
    return " ".join(f"{cls.__name__}({','.join(runtime.declared_fields(cls))})" for cls in parts)
