"""The runtime classes' heads, written from the models: each field of the format is declared once, in a model.

:mod:`workloadmap.runtime_definitions` holds a plain class per model (what the interpreter reads
without pydantic, and what the precompiled catalog stores). Its name, base, summary and fields are
the model's, so they are not written there by hand: each class head sits between two marker lines
and :func:`runtime_source` writes it from the model — the fields in the model's order, each with
the type the interpreter reads (a list of parts as a ``Sequence``, a count as ``CountValue``,
pydantic's validators and constraints dropped), the model's own private attributes after them.
What follows a head in the class (its behaviour) is the module's own.

``python -m workloadmap.catalog`` rewrites the file with the precompiled catalog;
``tests/test_runtime_definitions.py`` fails when the file is not what this gives.
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from .. import runtime_definitions as runtime
from . import base, components, gangs, model, status

__all__ = ["MODELS", "runtime_source", "runtime_path", "write_runtime_source"]

MODELS: tuple[type[BaseModel], ...] = tuple(
    value
    for module in (status, components, gangs, model)
    for name in module.__all__
    if isinstance(value := getattr(module, name), type) and issubclass(value, BaseModel)
)
"""Every model of the definition format: each has one runtime class, of the same name."""

_HEAD = re.compile(
    r"^# generated from the model definitions\.(?P<name>\w+) by `python -m workloadmap\.catalog`: edit the model\n"
    r".*?"
    r"^    # end of the generated head of (?P=name)\n",
    re.M | re.S,
)
_ALIASES = {"PodSpecField": runtime.PodSpecField}
"""Type aliases of the runtime module a model's type is written as, when it is one of them."""


def runtime_path() -> Path:
    """The runtime module's source file."""
    return Path(inspect.getfile(runtime))


def runtime_source(current: str) -> str:
    """``current`` (the runtime module's text) with every model's class head written from the model.

    Raises:
        ValueError: a model has no head in the text, or a head names no model.
    """
    by_name = {cls.__name__: cls for cls in MODELS}
    found = [match.group("name") for match in _HEAD.finditer(current)]
    missing = [name for name in by_name if name not in found]
    unknown = [name for name in found if name not in by_name]
    if missing or unknown or len(found) != len(set(found)):
        raise ValueError(
            f"runtime_definitions.py: heads missing for {missing}, naming no model {unknown}, or repeated: "
            "each model needs one head, between the marker lines, where its runtime class goes"
        )
    return _HEAD.sub(lambda match: _head(by_name[match.group("name")]), current)


def write_runtime_source() -> bool:
    """Rewrite the runtime module from the models; whether its text changed."""
    path = runtime_path()
    current = path.read_text()
    written = runtime_source(current)
    if written != current:
        path.write_text(written)
    return written != current


def _head(cls: type[BaseModel]) -> str:
    compiled = issubclass(cls, base._Compiled)
    summary = (inspect.cleandoc(cls.__doc__ or "") or f"The {cls.__name__} part of a definition.").split("\n\n")[0]
    lines = [
        f"# generated from the model definitions.{cls.__name__} by `python -m workloadmap.catalog`: edit the model",
        f"class {cls.__name__}({'CompiledPart' if compiled else 'DefinitionPart'}):",
        *_docstring(summary),
        "",
        *(f"    {name}: {annotation}" for name, annotation in _attributes(cls)),
        f"    # end of the generated head of {cls.__name__}",
    ]
    return "\n".join(lines) + "\n"


def _docstring(summary: str) -> list[str]:
    text = summary.replace('"""', '\\"\\"\\"')
    if "\n" not in text:
        return [f'    """{text}"""']
    first, *rest = text.split("\n")
    return [f'    """{first}', *(f"    {line}" if line else "" for line in rest), '    """']


def _attributes(cls: type[BaseModel]) -> Iterator[tuple[str, str]]:
    """The fields and private attributes ``cls`` declares itself, in order, as the runtime class types them.

    Only the model's own annotations count: a field its runtime class still declares but the model
    no longer does (pydantic reads annotations of every base) is dropped by the next rewrite.
    """
    names = vars(inspect.getmodule(cls))
    for name, text in vars(cls).get("__annotations__", {}).items():
        # The model's own annotation text, evaluated in its module (the project's source, at build time).
        annotation = eval(text, names) if isinstance(text, str) else text
        if name == "model_config" or get_origin(annotation) is typing.ClassVar:
            continue
        yield name, _render(annotation, names)


def _resolved(value: Any, names: dict[str, Any]) -> Any:
    """A type given as text (``list["ComponentDefinition"]``'s item) as the object it names."""
    if isinstance(value, typing.ForwardRef):
        return names[value.__forward_arg__]
    return names[value] if isinstance(value, str) else value


def _holds_part(value: Any, names: dict[str, Any]) -> bool:
    value = _resolved(value, names)
    if get_origin(value) is Literal:  # its arguments are values, not types
        return False
    is_part = isinstance(value, type) and issubclass(value, BaseModel)
    return is_part or any(_holds_part(arg, names) for arg in get_args(value))


def _render(value: Any, names: dict[str, Any]) -> str:
    """A type as the runtime module writes it (``names``: the model module's, for names given as text)."""
    value = _resolved(value, names)
    for alias, aliased in _ALIASES.items():
        if value == aliased:
            return alias
    origin, args = get_origin(value), get_args(value)
    if origin is Annotated:
        counted = any(getattr(extra, "func", None) is runtime.count_constant for extra in value.__metadata__)
        return "CountValue" if counted else _render(args[0], names)
    if origin in (Union, types.UnionType):
        return " | ".join(_render(arg, names) for arg in args)
    if origin is Literal:
        return f"Literal[{', '.join(json.dumps(arg) for arg in args)}]"
    if origin is list:
        return f"{'Sequence' if _holds_part(args[0], names) else 'list'}[{_render(args[0], names)}]"
    if origin is dict:
        key, item = (_render(arg, names) for arg in args)
        return f"{'Mapping' if _holds_part(args[1], names) else 'dict'}[{key}, {item}]"
    if value is Any:
        return "Any"
    if value is type(None):
        return "None"
    if isinstance(value, type):
        return value.__name__  # a model is written as its runtime class, of the same name
    raise ValueError(f"cannot write {value!r} as a runtime type")
