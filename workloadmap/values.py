"""Small value helpers every stage shares: truthiness, field readers, exact numbers, and JSON dumps of results.

Results (workload trees, placement reports) are dataclasses holding typed values: exact
:class:`~fractions.Fraction` amounts, enums, typed references. :func:`to_json` turns them into
the plain JSON-ready data of ``-o json``: field names in camelCase, enums as their values,
resource maps as quantity strings and counts as numbers.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
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


_CAMEL: dict[str, str] = {}


def to_json(value: Any) -> Any:
    """Plain JSON-ready data from a result dataclass (recursively).

    Dataclass fields become camelCase keys, in declaration order; fields marked :data:`OMIT` are
    left out, fields marked :data:`OPTIONAL` are left out when None or False, a field whose
    metadata names another field under ``unless`` is left out when that one is set, and fields
    marked :data:`QUANTITIES` become quantity strings. Enums give their value,
    Fractions a number (see :func:`as_number`).
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data: dict[str, Any] = {}
        for field in dataclasses.fields(value):
            how = field.metadata.get("json")
            if how == "omit":
                continue
            key = _CAMEL.get(field.name)
            if key is None:
                key = _CAMEL[field.name] = camel_case(field.name)
            item = getattr(value, field.name)
            if how == "optional" and (item is None or item is False):
                continue
            unless = field.metadata.get("unless")
            if unless is not None and getattr(value, unless) is not None:
                continue
            if how == "quantities":
                data[key] = format_resources(item)
            else:
                data[key] = to_json(item)
        return data
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Fraction):
        return as_number(value)
    if isinstance(value, Mapping):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    return value


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
