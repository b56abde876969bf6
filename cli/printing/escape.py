r"""Output hygiene: text from inputs and servers shown with its control characters visible.

Names, label values, reasons and server messages come from manifests, definitions and API servers
that wmap does not trust. Printed raw, a newline in a name forges a line (a fake ``Totals:``), and
an escape sequence can rewrite the terminal. Human output therefore escapes, in every string of
what it renders, the C0 and C1 control characters, DEL, the Unicode line and paragraph separators,
zero-width and bidirectional formatting characters: ``\n``, ``\x1b``, ``\u202e``. Machine output
(``-o json|yaml``) is left exact: its encoders escape what they must. One string is shown up to
:data:`MAX_SHOWN` characters: a server's megabyte-long message prints as its start and a count.

:func:`escaped` copies a result (dataclasses, lists, dicts) with its strings escaped, sharing every
part that needs no change; :func:`shown` escapes one string; :func:`needs_escaping` scans many at
once, so that a cluster of 100,000 clean nodes is not copied. Enum values are wmap's own and stay.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Iterable
from enum import Enum
from typing import Any, TypeVar

__all__ = ["shown", "escaped", "needs_escaping"]

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

T = TypeVar("T")


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


MAX_SHOWN = 2048
"""Characters of one string human output shows; a longer one (a megabyte of server message) is cut."""


def shown(text: str) -> str:
    """``text`` with control and invisible formatting characters as visible escapes, cut at :data:`MAX_SHOWN`."""
    if len(text) > MAX_SHOWN:
        text = f"{text[:MAX_SHOWN]}... ({len(text) - MAX_SHOWN:,} more characters)"
    return _UNSAFE.sub(_visible, text) if _UNSAFE.search(text) else text


def needs_escaping(texts: Iterable[str | None]) -> bool:
    """Whether any of ``texts`` holds a character :func:`shown` escapes (one scan, for large inputs)."""
    return _UNSAFE.search(" ".join(text for text in texts if text)) is not None


def escaped(value: T) -> T:
    """A copy of ``value`` whose every string is :func:`shown`; unchanged parts are shared, not copied."""
    return _escaped(value, {})  # type: ignore[no-any-return]


def _escaped(value: Any, memo: dict[int, Any]) -> Any:
    if isinstance(value, Enum) or value is None or isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        return shown(value)
    key = id(value)
    if key in memo:
        return memo[key]
    memo[key] = value  # cycles come back as themselves
    result = _container(value, memo)
    memo[key] = result
    return result


def _container(value: Any, memo: dict[int, Any]) -> Any:
    if isinstance(value, dict):
        items = [(_escaped(k, memo), _escaped(v, memo)) for k, v in value.items()]
        changed = any(k is not k0 or v is not v0 for (k, v), (k0, v0) in zip(items, value.items(), strict=True))
        return type(value)(items) if changed else value
    if isinstance(value, (list, tuple, set, frozenset)):
        members = [_escaped(item, memo) for item in value]
        if all(new is old for new, old in zip(members, value, strict=True)):
            return value
        return type(value)(members) if not isinstance(value, list) else members
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for item in dataclasses.fields(value):
            old = getattr(value, item.name, None)
            new = _escaped(old, memo)
            if new is not old:
                changes[item.name] = new
        if not changes:
            return value
        clone = copy.copy(value)
        for name, new in changes.items():
            object.__setattr__(clone, name, new)  # frozen dataclasses too; no __init__ side effects
        return clone
    return value
