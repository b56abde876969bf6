"""Reading an API server's answers as untrusted input: bounded in time, size and nesting.

A server (or anything answering in its place) can drip one byte at a time, send JSON nested a
hundred thousand levels deep, or hand out ``continue`` tokens forever. Every answer is read here:

* in chunks, within a total time per request (:data:`REQUEST_SECONDS`) and the command's deadline
  (``--timeout``), so a slow drip cannot outlast either, whatever the socket timeouts allow;
* up to :data:`MAX_RESPONSE_BYTES`;
* parsed as JSON nested at most :data:`MAX_JSON_DEPTH` levels (deeper is an error, never a
  ``RecursionError``).

Paging limits (pages, repeated tokens, items) are applied by the client; ``docs/security.md``
lists every limit.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..budgets import deadline
from ..errors import ClusterError

__all__ = [
    "REQUEST_SECONDS",
    "MAX_RESPONSE_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_PAGES",
    "MAX_LIST_ITEMS",
    "request_timeouts",
    "read_answer",
    "parse_answer",
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
        ClusterError: JSON nested deeper than :data:`MAX_JSON_DEPTH` levels.
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
