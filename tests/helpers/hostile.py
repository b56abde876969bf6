"""Hostile behaviours for the fake API server (``FakeApiServer.hostile``): each answers some requests itself.

Each factory returns a ``(handler, path, query) -> bool`` function; it answers the requests it
picks (by path) and returns True, and leaves the others to the fake server (False).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

Hostile = Callable[[BaseHTTPRequestHandler, str, dict[str, str]], bool]


def _headers(
    handler: BaseHTTPRequestHandler, code: int, length: int | None, extra: dict[str, str] | None = None
) -> None:
    handler.send_response(code)
    handler.send_header("Content-Type", "application/json")
    if length is not None:
        handler.send_header("Content-Length", str(length))
    for key, value in (extra or {}).items():
        handler.send_header(key, value)
    handler.end_headers()


def drip(path: str, body: dict[str, Any], *, every: float) -> Hostile:
    """Answer ``path`` with ``body``, one byte every ``every`` seconds (each socket read gets a byte in time)."""

    def answer(handler: BaseHTTPRequestHandler, asked: str, query: dict[str, str]) -> bool:
        if asked != path:
            return False
        data = json.dumps(body).encode()
        _headers(handler, 200, len(data))
        try:
            for position in range(len(data)):
                handler.wfile.write(data[position : position + 1])
                handler.wfile.flush()
                time.sleep(every)
        except OSError:  # the client gave up: what the test wants
            pass
        return True

    return answer


def endless_list(path: str, kind: str, *, repeat_token: bool) -> Hostile:
    """A list at ``path`` whose every page carries a ``continue`` token: a new one each time, or the same."""
    pages = [0]

    def answer(handler: BaseHTTPRequestHandler, asked: str, query: dict[str, str]) -> bool:
        if asked != path:
            return False
        pages[0] += 1
        token = "again" if repeat_token else f"page-{pages[0]}"
        data = json.dumps({"kind": kind, "apiVersion": "v1", "metadata": {"continue": token}, "items": []}).encode()
        _headers(handler, 200, len(data))
        handler.wfile.write(data)
        return True

    answer.pages = pages  # type: ignore[attr-defined]
    return answer


def deep_json(path: str, depth: int) -> Hostile:
    """Answer ``path`` with an object holding a list nested ``depth`` levels deep."""

    def answer(handler: BaseHTTPRequestHandler, asked: str, query: dict[str, str]) -> bool:
        if asked != path:
            return False
        data = '{"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": ' + "[" * depth + "]" * depth + "}"
        encoded = data.encode()
        _headers(handler, 200, len(encoded))
        handler.wfile.write(encoded)
        return True

    return answer


def redirect(path: str, location: str) -> Hostile:
    """Answer ``path`` with 302 to ``location`` (another host), as a hijacked endpoint would."""

    def answer(handler: BaseHTTPRequestHandler, asked: str, query: dict[str, str]) -> bool:
        if asked != path:
            return False
        _headers(handler, 302, 0, {"Location": location})
        return True

    return answer


_REASONS = {403: "Forbidden", 404: "NotFound", 410: "Expired", 500: "InternalError", 503: "ServiceUnavailable"}


def status_message(path: str, message: str, *, code: int = 500) -> Hostile:
    """Answer ``path`` with a ``Status`` of ``code`` (500) whose message is ``message`` (escapes, credentials ...)."""

    def answer(handler: BaseHTTPRequestHandler, asked: str, query: dict[str, str]) -> bool:
        if asked != path:
            return False
        body = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": _REASONS.get(code, "Unknown"),
                "message": message, "code": code}  # fmt: skip
        data = json.dumps(body).encode()
        _headers(handler, code, len(data))
        handler.wfile.write(data)
        return True

    return answer
