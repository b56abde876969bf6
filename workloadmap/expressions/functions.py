"""wmap's JMESPath functions, beyond the standard set.

Replica counts need arithmetic and instance scopes need the whole resource:

``root()``
    The whole resource, from inside a multi-instance component's scope.
``ref(name)``
    A related object the definition declares under ``references`` (e.g. a TrainJob's runtime),
    or null when it is not in the input.
``add(a, b)``, ``sub(a, b)``, ``mul(a, b)``, ``product(array)``
    Integer arithmetic (``sub`` never goes below what the numbers say; clamp with ``max``).
``ceil_div(a, b)``
    Ceiling division, for segment counts.
``items(object)``
    ``[{"key": k, "value": v}, ...]`` in document order.
``int(value)``
    A number or numeric string as an integer (``"3"`` -> 3); null when it is not one.
``jvm_mib(size)``
    A JVM/Spark memory size (``"512m"``, ``"2g"``, ``"2gb"``; a bare number is MiB) in MiB, rounded up;
    null for what Spark refuses (``"512Mi"``, ``"1.5g"``), as its ``JavaUtils.byteStringAs`` reads sizes.
``pick(array, key, values)``, ``omit(array, key, values)``
    The elements whose ``key`` is (or is not) one of ``values``: a join between two lists, e.g. the
    Grove cliques a scaling group names. A dotted ``key`` (``metadata.name``) reads a nested field;
    a key holding a dot itself is read as written when the element has it.
``object(key, value)``
    ``{key: value}`` with a computed key (e.g. a GPU resource name read from the spec).
``image_tag(image)``
    The tag of an image reference (``registry:5000/ns/name:tag`` -> ``tag``); null without one.
``semver(version)``
    ``[major, minor, patch]`` of a version, read as tolerantly as Go's blang/semver
    ``ParseTolerant`` (a ``v`` prefix, missing parts as 0); null when it is not one.

``lower(text)``
    ``text`` in lower case, as Go's ``strings.ToLower`` writes it (the Dynamo operator names a component's
    scaling adapter ``<graph>-<lowercased component>``); null for null.

``patch_pod_template(template, patch)``
    ``template`` with ``patch`` applied as Kubernetes' strategic merge patch of a ``PodTemplateSpec``
    (:mod:`.patches`): what an operator that patches a user's pod template (a RoleBasedGroup's
    ``leaderTemplatePatch``) creates; ``template`` itself when there is no patch.

``words(text)``
    The runs of letters, digits, ``-`` and ``_`` in ``text``, in order: the
    task names an Argo ``depends`` expression (``A && (B.Succeeded || !C)``) mentions, with its
    keywords (``Succeeded``) among them; null for null.

``join`` and ``to_string`` are jmespath's, except that ``join`` takes numbers and booleans as the
text they were written as (a YAML ``tag: 1.8``), as the operators' typed decoding reads them.

Each is bounded as every evaluation is: numbers by :data:`MAX_NUMBER`, made values by
:data:`MAX_VALUE_SIZE` (see :mod:`.expressions`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import jmespath.exceptions
import jmespath.functions

from ..errors import ExpressionLimitError
from .patches import patch_pod_template

__all__ = ["WmapFunctions", "MAX_NUMBER", "MAX_VALUE_SIZE"]

MAX_VALUE_SIZE = 1_000_000
"""Items of a list or object, or characters of a string, that one evaluation step may produce."""
MAX_NUMBER = 2**63
"""Largest magnitude of a number arithmetic may produce (counts are far below)."""

# JVM / Spark memory sizes as Spark's JavaUtils.byteStringAs reads them (lower-cased): a whole number and an
# optional binary suffix; a bare number is MiB for the memory settings. "512Mi" and "1.5g" are refused.
_JVM_SIZE = re.compile(r"(?P<number>[0-9]+)(?P<unit>[a-z]+)?")
_WORD = re.compile(r"[A-Za-z0-9_-]+")  # a fixed pattern: no definition supplies one
_JVM_UNIT_MIB = {"b": 1 / 2**20, "k": 1 / 1024, "m": 1, "g": 1024, "t": 1024**2, "p": 1024**3}
_JVM_UNIT_MIB.update({f"{unit}b": amount for unit, amount in _JVM_UNIT_MIB.items() if unit != "b"})


def _bounded_number(value: float) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > MAX_NUMBER:
        raise ExpressionLimitError(f"a number beyond {MAX_NUMBER} (2**63): arithmetic out of any real range")
    return value


def _check_size(value: Any) -> None:
    """Refuse a value whose printed form would hold more than :data:`MAX_VALUE_SIZE` items or characters."""
    budget = MAX_VALUE_SIZE
    stack = [value]
    while stack:
        current = stack.pop()
        budget -= len(current) if isinstance(current, (str, list, dict)) else 1
        if budget < 0:
            raise ExpressionLimitError(f"a value larger than {MAX_VALUE_SIZE} items or characters")
        if isinstance(current, list):
            stack.extend(current)
        elif isinstance(current, dict):
            stack.extend(current.values())


def _key_of(element: dict[str, Any], key: str) -> Any:
    """``element[key]``; a dotted key that is not one of the element's reads the nested field."""
    if key in element or "." not in key:
        return element.get(key)
    value: Any = element
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


class WmapFunctions(jmespath.functions.Functions):
    """JMESPath's functions and wmap's, for one evaluation: ``root()`` gives ``root``, ``ref(name)`` reads ``refs``."""

    def __init__(self, root: Any, refs: Mapping[str, Any] | None = None) -> None:
        self._root = root
        self._refs = refs or {}

    @jmespath.functions.signature()
    def _func_root(self) -> Any:
        return self._root

    @jmespath.functions.signature({"types": ["string"]}, {"types": ["array"]})
    def _func_join(self, separator: str, items: list[Any]) -> str:
        # A YAML scalar such as an unquoted `tag: 1.8` is a number here but a string to the operator
        # (Go's typed decoding): join takes it as the text it was written as.
        parts = []
        for item in items:
            if isinstance(item, str):
                parts.append(item)
            elif isinstance(item, bool):
                parts.append(str(item).lower())
            elif isinstance(item, (int, float)):
                parts.append(str(int(item)) if isinstance(item, float) and item.is_integer() else str(item))
            else:
                raise jmespath.exceptions.JMESPathTypeError("join", item, type(item).__name__, ["string", "number"])
        return separator.join(parts)

    @jmespath.functions.signature({"types": ["string"]})
    def _func_ref(self, name: str) -> Any:
        return self._refs.get(name)

    @jmespath.functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_add(self, left: float, right: float) -> float:
        return _bounded_number(left + right)

    @jmespath.functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_sub(self, left: float, right: float) -> float:
        return _bounded_number(left - right)

    @jmespath.functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_mul(self, left: float, right: float) -> float:
        return _bounded_number(_bounded_number(left) * _bounded_number(right))

    @jmespath.functions.signature({"types": ["array-number"]})
    def _func_product(self, numbers: list[float]) -> float:
        result: float = 1
        for number in numbers:  # stop at the first product out of range, before it grows further
            result = _bounded_number(result * _bounded_number(number))
        return result

    @jmespath.functions.signature({"types": []})
    def _func_to_string(self, value: Any) -> str:
        if isinstance(value, str):
            return value
        _check_size(value)  # shared sub-lists count each time: json.dumps would write them all
        return json.dumps(value, separators=(",", ":"), default=str)

    @jmespath.functions.signature({"types": ["number"]}, {"types": ["number"]})
    def _func_ceil_div(self, left: float, right: float) -> float | None:
        if right == 0:
            return None
        return -(-left // right)

    @jmespath.functions.signature({"types": ["object"]})
    def _func_items(self, mapping: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"key": key, "value": value} for key, value in mapping.items()]

    @jmespath.functions.signature({"types": ["string", "number", "null"]})
    def _func_jvm_mib(self, size: str | float | None) -> int | None:
        if size is None or isinstance(size, bool):
            return None
        match = _JVM_SIZE.fullmatch(str(size).strip().lower())
        if not match or (match["unit"] or "m") not in _JVM_UNIT_MIB:
            return None
        return int(math.ceil(int(match["number"]) * _JVM_UNIT_MIB[match["unit"] or "m"]))

    @jmespath.functions.signature({"types": ["array", "null"]}, {"types": ["string"]}, {"types": ["array", "null"]})
    def _func_pick(self, elements: list[Any] | None, key: str, values: list[Any] | None) -> list[Any]:
        wanted = set(_hashable(value) for value in values or [])
        return [e for e in elements or [] if isinstance(e, dict) and _hashable(_key_of(e, key)) in wanted]

    @jmespath.functions.signature({"types": ["array", "null"]}, {"types": ["string"]}, {"types": ["array", "null"]})
    def _func_omit(self, elements: list[Any] | None, key: str, values: list[Any] | None) -> list[Any]:
        unwanted = set(_hashable(value) for value in values or [])
        return [e for e in elements or [] if not (isinstance(e, dict) and _hashable(_key_of(e, key)) in unwanted)]

    @jmespath.functions.signature({"types": ["string"]}, {"types": []})
    def _func_object(self, key: str, value: Any) -> dict[str, Any]:
        return {key: value}

    @jmespath.functions.signature({"types": ["string", "null"]})
    def _func_image_tag(self, image: str | None) -> str | None:
        # registry:5000/ns/name:tag -> tag; no tag (or a digest only) -> null
        if not image:
            return None
        reference = image.split("@", 1)[0]
        name, _, tag = reference.rpartition(":")
        return tag if name and "/" not in tag else None

    @jmespath.functions.signature({"types": ["string", "number", "null"]})
    def _func_semver(self, version: str | float | None) -> list[int] | None:
        # Tolerant like blang/semver ParseTolerant: v-prefix, missing parts as 0; anything else null.
        if version is None or isinstance(version, bool):
            return None
        text = str(version).strip().lstrip("vV").split("-", 1)[0].split("+", 1)[0]
        parts = text.split(".")
        if not 1 <= len(parts) <= 3 or not all(part.isdigit() for part in parts):
            return None
        return [int(part) for part in parts] + [0] * (3 - len(parts))

    @jmespath.functions.signature({"types": ["object", "null"]}, {"types": ["object", "null"]})
    def _func_patch_pod_template(self, template: dict[str, Any] | None, patch: dict[str, Any] | None) -> Any:
        patched = patch_pod_template(template, patch)
        _check_size(patched)
        return patched

    @jmespath.functions.signature({"types": ["string", "null"]})
    def _func_lower(self, text: str | None) -> str | None:
        return None if text is None else text.lower()

    @jmespath.functions.signature({"types": ["string", "null"]})
    def _func_words(self, text: str | None) -> list[str] | None:
        if text is None:
            return None
        return _WORD.findall(text)

    @jmespath.functions.signature({"types": []})
    def _func_int(self, value: Any) -> int | None:
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, (int, float)):
            return int(value)
        if isinstance(value, str) and not value.strip().isascii():
            return None  # "²" and other Unicode digits are not numbers to Kubernetes
        if isinstance(value, str) and len(value) > 40:
            return None
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                try:
                    return int(float(value))
                except (ValueError, OverflowError):  # "1e999" is inf, which no int holds
                    return None
        return None
