"""Small value helpers every stage shares: truthiness, field readers, exact numbers, and JSON dumps of results.

Results (workload trees, placement reports) are dataclasses holding typed values: exact
:class:`~fractions.Fraction` amounts, enums, typed references. :func:`to_json` turns them into
the plain JSON-ready data of ``-o json``: field names in camelCase, enums as their values,
resource maps as quantity strings and counts as numbers.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from fractions import Fraction
from typing import Any

from .errors import InputError, WorkloadMapError
from .quantities import format_resources

__all__ = [
    "truthy",
    "mapping_at",
    "mapping_field",
    "list_field",
    "as_number",
    "camel_case",
    "to_json",
    "JsonForm",
    "QUANTITIES",
    "OMIT",
    "OPTIONAL",
    "name_problem",
]

QUANTITIES = {"json": "quantities"}
"""Field metadata: a ``dict[str, Fraction]`` written as quantity strings (``{"memory": "16Gi"}``)."""
OMIT = {"json": "omit"}
"""Field metadata: a field kept out of the JSON form (internal detail)."""
OPTIONAL = {"json": "optional"}
"""Field metadata: a field written only when set (not None, not False): ``minSubGroup`` where KAI sets it."""


def truthy(value: Any) -> bool:
    """JMESPath truthiness: null, false, and empty strings, lists and objects are false; 0 is true."""
    return not (value is None or value is False or value == "" or value == [] or value == {})


def mapping_at(obj: Any, key: str) -> Mapping[str, Any]:
    """``obj[key]`` when both are mappings, else an empty mapping (for optional sections)."""
    # dict first: parsed documents are dicts, and the Mapping check costs several times more
    value = obj.get(key) if obj.__class__ is dict or isinstance(obj, Mapping) else None
    if value is None:
        return {}
    return value if value.__class__ is dict or isinstance(value, Mapping) else {}


def mapping_field(
    value: Any,
    field: str,
    *,
    error: type[WorkloadMapError] = InputError,
    file: str | None = None,
    document: str | None = None,
) -> Mapping[str, Any]:
    """An input's field that must be a mapping when present: {} when absent (None).

    Raises:
        WorkloadMapError: ``error`` (an InputError unless told), located at ``field`` (and ``file``,
            ``document`` when given), when the value is something else.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise error(f"expected a mapping, got {type(value).__name__}", file=file, document=document, field=field)
    return value


def list_field(
    value: Any,
    field: str,
    *,
    error: type[WorkloadMapError] = InputError,
    file: str | None = None,
    document: str | None = None,
) -> list[Any]:
    """An input's field that must be a list when present: [] when absent (None).

    Raises:
        WorkloadMapError: ``error`` (an InputError unless told), located at ``field`` (and ``file``,
            ``document`` when given), when the value is something else.
    """
    if value is None:
        return []
    if not isinstance(value, list):
        raise error(f"expected a list, got {type(value).__name__}", file=file, document=document, field=field)
    return value


def as_number(amount: Fraction | int) -> int | float:
    """An exact amount as a JSON number: an int when whole, else the nearest float."""
    if isinstance(amount, int):
        return amount
    return amount.numerator if amount.denominator == 1 else float(amount)


def camel_case(name: str) -> str:
    """``min_member`` as ``minMember``."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def to_json(value: Any) -> Any:
    """Plain JSON-ready data from a result dataclass (recursively).

    Dataclass fields become camelCase keys, in declaration order; fields marked :data:`OMIT` are
    left out and fields marked :data:`QUANTITIES` become quantity strings. Enums give their value,
    Fractions a number (see :func:`as_number`).

    What to do with a value is decided once per type (:func:`_converter`); a dataclass's fields are
    read by a function written for its type, not found again by reflection on every value.
    """
    cls = value.__class__
    if cls in _PLAIN:
        return value
    convert = _CONVERTERS.get(cls)
    if convert is None:
        convert = _CONVERTERS[cls] = _converter(cls)
    return convert(value)


_PLAIN = frozenset({str, int, float, bool, type(None)})
"""Types whose values are their own JSON form (the bulk of a result: names and counts)."""

_CONVERTERS: dict[type, Callable[[Any], Any]] = {}
"""Each type's converter, made on its first value."""


def _identity(value: Any) -> Any:
    return value


def _enum_value(value: Enum) -> Any:
    return value.value


def _mapping(value: Mapping[Any, Any]) -> dict[Any, Any]:
    return {key: to_json(item) for key, item in value.items()}


def _sequence(value: Sequence[Any]) -> list[Any]:
    return [to_json(item) for item in value]


def _converter(cls: type) -> Callable[[Any], Any]:
    """How values of ``cls`` become JSON data, in the order :func:`to_json` has always tested them."""
    if dataclasses.is_dataclass(cls) and not issubclass(cls, type):
        return _dataclass_converter(cls)
    if issubclass(cls, Enum):
        return _enum_value
    if issubclass(cls, Fraction):
        return as_number
    if issubclass(cls, Mapping):
        return _mapping
    if issubclass(cls, (list, tuple)):
        return _sequence
    return _identity


def _dataclass_converter(cls: type) -> Callable[[Any], Any]:
    """A function that builds the JSON form of one dataclass type: its fields read by name, in order.

    The source is written from the class's field names (identifiers) and their camelCase keys (through
    ``repr``); nothing of an input reaches it.
    """
    fields = dataclasses.fields(cls)
    if any(field.metadata.get("json") == "optional" or "unless" in field.metadata for field in fields):
        return _conditional_converter(cls)
    entries = []
    for field in fields:
        how = field.metadata.get("json")
        if how == "omit":
            continue
        if not field.name.isidentifier():  # pragma: no cover - dataclass fields always are
            raise TypeError(f"field name {field.name!r} of {cls.__name__}")
        reader = "format_resources" if how == "quantities" else "to_json"
        entries.append(f"{camel_case(field.name)!r}: {reader}(value.{field.name})")
    source = f"def convert(value):\n    return {{{', '.join(entries)}}}\n"
    namespace: dict[str, Any] = {"format_resources": format_resources, "to_json": to_json}
    exec(compile(source, f"<to_json of {cls.__qualname__}>", "exec"), namespace)  # the source is our own fields' names
    convert: Callable[[Any], Any] = namespace["convert"]
    return convert


def _conditional_converter(cls: type) -> Callable[[Any], Any]:
    """The JSON form of a dataclass whose fields are written only when set, or only when another is not.

    :data:`OPTIONAL` fields are left out when None or False; a field naming another under ``unless``
    is left out when that one is set (``minMember`` beside ``minSubGroup``).
    """
    plan = [
        (field.name, camel_case(field.name), field.metadata.get("json"), field.metadata.get("unless"))
        for field in dataclasses.fields(cls)
        if field.metadata.get("json") != "omit"
    ]

    def convert(value: Any) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name, key, how, unless in plan:
            item = getattr(value, name)
            if how == "optional" and (item is None or item is False):
                continue
            if unless is not None and getattr(value, unless) is not None:
                continue
            data[key] = format_resources(item) if how == "quantities" else to_json(item)
        return data

    return convert


class JsonForm:
    """Mixin of the result dataclasses: ``to_dict()`` gives their JSON form (see :func:`to_json`)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (camelCase keys, quantity strings)."""
        data: dict[str, Any] = to_json(self)
        return data


_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = re.compile(rf"{_DNS_LABEL}(\.{_DNS_LABEL})*")
_LABEL = re.compile(_DNS_LABEL)


def name_problem(value: str, *, label: bool = False) -> str | None:
    """Why ``value`` is not a valid Kubernetes name, or None when it is.

    Object names are DNS-1123 subdomains (lowercase letters, digits, ``-`` and ``.``, at most 253
    characters, starting and ending alphanumeric); with ``label`` (namespaces), DNS-1123 labels (no
    ``.``, at most 63), as ``k8s.io/apimachinery`` validates them.
    """
    limit = 63 if label else 253
    if len(value) > limit:
        return f"longer than {limit} characters"
    pattern = _LABEL if label else _SUBDOMAIN
    if pattern.fullmatch(value) is None:
        what = "a DNS-1123 label" if label else "a DNS-1123 subdomain"
        allowed = "lowercase letters, digits and '-'" + ("" if label else " or '.'")
        return f"not {what} ({allowed}, alphanumeric at both ends)"
    return None
