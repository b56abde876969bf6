"""Reading an API server's answers as untrusted input: bounded in time, size and nesting.

A server (or anything answering in its place) can drip one byte at a time, send JSON nested a
hundred thousand levels deep, or hand out ``continue`` tokens forever. Every answer is read here:

* in chunks, within a total time per request (:data:`REQUEST_SECONDS`) and the command's deadline
  (``--timeout``), so a slow drip cannot outlast either, whatever the socket timeouts allow;
* up to :data:`MAX_RESPONSE_BYTES`;
* parsed as JSON nested at most :data:`MAX_JSON_DEPTH` levels (deeper is an error, never a
  ``RecursionError``).

Every answer is also checked for the shape and type that was asked (:func:`object_answer`,
:func:`list_answer`, :func:`discovery_list`): JSON of the wrong type (``items: 5``, ``metadata: [1]``,
``versions: 5``) or an object of another kind (a Pod, a Secret answered to ``get jobset/train``) is
a one-line error naming the request, never a crash or a wrong report.

Paging limits (pages, repeated tokens, items) are applied by the client; ``docs/security.md``
lists every limit.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..budgets import deadline
from ..errors import ClusterError, InputError
from ..loader import has_surrogate_escape, refuse_lone_surrogates
from .failures import one_line

__all__ = [
    "REQUEST_SECONDS",
    "MAX_RESPONSE_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_PAGES",
    "MAX_LIST_ITEMS",
    "request_timeouts",
    "read_answer",
    "parse_answer",
    "object_answer",
    "list_answer",
    "discovery_list",
]

REQUEST_SECONDS = 60.0
"""Total seconds one request may take, its body included (each socket read has its own timeout too)."""
# etcd caps one object at about 1.5 MiB; a page of 500 objects stays well below this.
MAX_RESPONSE_BYTES = 256 * 1024 * 1024
MAX_JSON_DEPTH = 200
"""Nesting of mappings and lists in one answer (the file loader's limit too)."""
MAX_PAGES = 10_000
"""Pages of one list."""
MAX_LIST_ITEMS = 2_000_000
"""Objects in one list, over all its pages (the node budget applies to nodes)."""

_CHUNK = 1 << 16


def request_timeouts(connect: float, read: float) -> tuple[float, float]:
    """The connect and read timeouts of one request, never past the command's deadline.

    Raises:
        DeadlineError: the deadline has already passed.
    """
    current = deadline()
    if current is None:
        return connect, read
    left = current.remaining()
    if left <= 0:
        raise current.error("reading from the API server")
    return min(connect, left), min(read, left)


def read_answer(raw: Any, what: str, *, seconds: float = REQUEST_SECONDS, limit: int = MAX_RESPONSE_BYTES) -> bytes:
    """The body of one answer, read in chunks within ``seconds`` and the command's deadline.

    Raises:
        ClusterError: the body took longer than ``seconds`` or is larger than ``limit`` bytes.
        DeadlineError: the command's deadline passed while reading.
    """
    started = time.monotonic()
    current = deadline()
    read = getattr(raw, "read1", None) or raw.read
    parts: list[bytes] = []
    size = 0
    while True:
        chunk = read(_CHUNK)
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
        if size > limit:
            raise ClusterError(f"the answer to {what} is larger than {limit // (1024 * 1024)} MiB")
        if time.monotonic() - started > seconds:
            raise ClusterError(f"the answer to {what} took longer than {seconds:g} s in all (a slow or stalled server)")
        if current is not None and current.passed():
            raise current.error(f"reading the answer to {what}")
    return b"".join(parts)


def parse_answer(data: bytes, what: str) -> Any:
    """The JSON of an answer (None when it is not JSON), refused when nested too deeply.

    Raises:
        ClusterError: JSON nested deeper than :data:`MAX_JSON_DEPTH` levels, or a string holding a
            lone surrogate (U+D800 to U+DFFF alone, which no encoder writes).
    """
    if not data:
        return None
    try:
        body = json.loads(data)
    except RecursionError:
        raise ClusterError(f"the answer to {what} is JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError):
        return None
    if _too_deep(body, MAX_JSON_DEPTH):
        raise ClusterError(f"the answer to {what} is JSON nested deeper than {MAX_JSON_DEPTH} levels")
    if has_surrogate_escape(data):
        try:
            refuse_lone_surrogates(body)
        except InputError as error:
            raise ClusterError(f"the answer to {what} is refused: {error.message}") from None
    return body


def _too_deep(value: Any, limit: int) -> bool:
    """Whether ``value`` nests mappings and lists more than ``limit`` levels (iteratively)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(current, dict):
            stack.extend((item, depth + 1) for item in current.values() if isinstance(item, (dict, list)))
        elif isinstance(current, list):
            stack.extend((item, depth + 1) for item in current if isinstance(item, (dict, list)))
    return False


def _shown(value: Any) -> str:
    return one_line(repr(value), 60)


def _mapping(value: Any, what: str, field: str) -> dict[str, Any]:
    """``value`` as a mapping: absent (None) is empty, anything else is an error naming the field."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ClusterError(f"the answer to {what} is malformed: {field} is {type(value).__name__}, not an object")
    return value


def _kind_check(obj: dict[str, Any], kind: str, api_version: str, what: str, where: str = "") -> None:
    """The object's kind and apiVersion, when it states them, are the ones asked for (then filled in)."""
    found_kind, found_version = obj.get("kind"), obj.get("apiVersion")
    if (found_kind is not None and found_kind != kind) or (found_version is not None and found_version != api_version):
        raise ClusterError(
            f"the API server answered {what} with {where}a {_shown(found_kind)} ({_shown(found_version)}), "
            f"not a {kind} ({api_version})"
        )
    obj.setdefault("kind", kind)
    obj.setdefault("apiVersion", api_version)


def object_answer(body: Any, kind: str, api_version: str, what: str, name: str | None = None) -> dict[str, Any]:
    """One object, checked to be the ``kind``/``api_version`` (and ``name``) asked for; kind and apiVersion filled in.

    Raises:
        ClusterError: not an object, another kind or version, metadata that is not an object,
            another name.
    """
    if not isinstance(body, dict):
        raise ClusterError(f"the answer to {what} is not a JSON object")
    _kind_check(body, kind, api_version, what)
    metadata = _mapping(body.get("metadata"), what, "metadata")
    if name is not None and metadata.get("name") != name:
        found = _shown(metadata.get("name"))
        raise ClusterError(f"the API server answered {what} with the object {found}, not {name!r}")
    return body


def list_answer(page: Any, kind: str, api_version: str, what: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A page of a list of ``kind``: its items (kind and apiVersion filled in) and its metadata.

    Raises:
        ClusterError: not a ``<kind>List`` of ``api_version``, ``items`` not a list of objects of
            ``kind``, ``metadata`` not an object.
    """
    if not isinstance(page, dict):
        raise ClusterError(f"the answer to {what} is not a JSON object")
    _kind_check(page, f"{kind}List", api_version, what)
    metadata = _mapping(page.get("metadata"), what, "metadata")
    items = page.get("items")
    if items is None:
        return [], metadata
    if not isinstance(items, list):
        raise ClusterError(f"the answer to {what} is malformed: items is {type(items).__name__}, not a list")
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ClusterError(f"the answer to {what} is malformed: items[{index}] is {type(item).__name__}")
        _kind_check(item, kind, api_version, what, where=f"items[{index}] ")
        _mapping(item.get("metadata"), what, f"items[{index}].metadata")
    return items, metadata


def discovery_list(body: Any, field: str, what: str) -> list[Any]:
    """A list field of a discovery answer (``versions``, ``groups``, ``resources``); absent is empty.

    Raises:
        ClusterError: the field is there but not a list.
    """
    value = body.get(field) if isinstance(body, dict) else None
    if value is None:
        return []
    if not isinstance(value, list):
        raise ClusterError(f"the answer to {what} is malformed: {field} is {type(value).__name__}, not a list")
    return value
