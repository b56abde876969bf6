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


def answer_with(path: str, body: Any, *, code: int = 200, watch: bool | None = None) -> Hostile:
    """Answer ``path`` with ``body`` as JSON (anything: ``items: 5``, a Pod for a JobSet ...).

    ``watch`` picks watch requests only (True), plain requests only (False), or both (None).
    """
    answered = [0]

    def answer(handler: BaseHTTPRequestHandler, asked: str, query: dict[str, str]) -> bool:
        if asked != path or (watch is not None and (query.get("watch") in ("1", "true")) != watch):
            return False
        answered[0] += 1
        data = json.dumps(body).encode()
        _headers(handler, code, len(data))
        handler.wfile.write(data)
        return True

    answer.answered = answered  # type: ignore[attr-defined]
    return answer


def compressed(path: str, decoded_bytes: int) -> Hostile:
    """Answer ``path`` gzip-encoded, unasked: a few hundred KB that decode to ``decoded_bytes`` of JSON."""
    import gzip

    head = b'{"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": [], "pad": "'
    filler = head + b"x" * decoded_bytes + b'"}'
    data = gzip.compress(filler, compresslevel=9)

    def answer(handler: BaseHTTPRequestHandler, asked: str, query: dict[str, str]) -> bool:
        if asked != path:
            return False
        _headers(handler, 200, len(data), {"Content-Encoding": "gzip"})
        handler.wfile.write(data)
        return True

    return answer


def watch_stream(path: str, lines: list[bytes], *, hold: float = 0.0) -> Hostile:
    """Answer watches of ``path`` with raw ``lines`` (chunked), then stay silent ``hold`` seconds, ignoring
    ``timeoutSeconds`` (an idle stream the server never ends). Other requests go to the fake server.
    """
    watches = [0]

    def answer(handler: BaseHTTPRequestHandler, asked: str, query: dict[str, str]) -> bool:
        if asked != path or query.get("watch") not in ("1", "true"):
            return False
        watches[0] += 1
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        handler.close_connection = True
        try:
            for line in lines:
                data = line + b"\n"
                handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                handler.wfile.flush()
            end = time.monotonic() + hold
            while time.monotonic() < end:
                time.sleep(0.05)
            handler.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client gave up
            pass
        return True

    answer.watches = watches  # type: ignore[attr-defined]
    return answer


def always_gone(path: str, kind: str, api_version: str) -> Hostile:
    """Answer every watch of ``path`` with one MODIFIED event, then ``410 Gone``: the relist loop's trigger."""
    watches = [0]

    def answer(handler: BaseHTTPRequestHandler, asked: str, query: dict[str, str]) -> bool:
        if asked != path or query.get("watch") not in ("1", "true"):
            return False
        watches[0] += 1
        version = str(1000 + watches[0])
        event = {"type": "MODIFIED", "object": {"kind": kind, "apiVersion": api_version,
                 "metadata": {"name": "churn", "namespace": "default", "resourceVersion": version}}}  # fmt: skip
        gone = {"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "code": 410, "reason": "Expired",
                "message": "too old resource version"}}  # fmt: skip
        return watch_stream(path, [json.dumps(event).encode(), json.dumps(gone).encode()])(handler, asked, query)

    answer.watches = watches  # type: ignore[attr-defined]
    return answer


JUNK: list[Any] = [5, -1, "x", "", [1], [{"a": 1}], {"a": 1}, None, True, 1e308, "\x1b[2J\x07", "A" * 5000]
"""Values of the wrong type (and hostile text) for a field the client reads."""
CONFUSED_FIELDS = ("items", "metadata", "versions", "groups", "resources", "kind", "apiVersion", "continue",
                   "resourceVersion", "name", "namespace", "spec", "status", "object", "type")  # fmt: skip


def _confuse(rng: Any, body: Any) -> str:
    """Replace one field the client reads (at the top, in ``metadata`` or in the first item) with junk."""
    places = [body] if isinstance(body, dict) else []
    for key in ("metadata", "object"):
        if isinstance(body, dict) and isinstance(body.get(key), dict):
            places.append(body[key])
    items = body.get("items") if isinstance(body, dict) else None
    if isinstance(items, list) and items and isinstance(items[0], dict):
        places += [items[0], items[0].get("metadata") if isinstance(items[0].get("metadata"), dict) else items[0]]
    choices = [(place, key) for place in places for key in place if key in CONFUSED_FIELDS]
    if not choices:
        return "none"
    place, key = rng.choice(choices)
    value = rng.choice([*JUNK, "Secret", "v1", "Pod"])
    place[key] = value
    return f"{key} -> {str(value)[:20]!r}"


def confused_answers(server: Any, rng: Any, *, rate: float = 0.5) -> Hostile:
    """The fake server's own answers, each (with probability ``rate``) with one field of the wrong type.

    Watch events get the same treatment, one line in ``rate``. ``answer.changes`` lists what was done.
    """
    changes: list[str] = []

    def answer(handler: BaseHTTPRequestHandler, asked: str, query: dict[str, str]) -> bool:
        from urllib.parse import unquote

        if rng.random() >= rate:
            return False
        parts = [unquote(part) for part in asked.strip("/").split("/")]
        code, body = server._route(parts, query)
        if code < 0:  # a watch: one confused event, then the stream ends
            obj = {"kind": "JobSet", "apiVersion": "jobset.x-k8s.io/v1alpha2",
                   "metadata": {"name": "w", "namespace": "default", "resourceVersion": "99999"}}  # fmt: skip
            event: dict[str, Any] = {"type": "MODIFIED", "object": obj}
            changes.append(f"watch {_confuse(rng, event)}")
            return watch_stream(asked, [json.dumps(event).encode()])(handler, asked, query)
        changes.append(f"{asked} {_confuse(rng, body)}")
        data = json.dumps(body).encode()
        _headers(handler, code, len(data))
        handler.wfile.write(data)
        return True

    answer.changes = changes  # type: ignore[attr-defined]
    return answer
