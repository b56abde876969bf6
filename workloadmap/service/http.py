"""The service's HTTP server: health, metrics, the JSON API and the pages, one thread per request.

Routes (``GET`` unless noted):

=========================================================  ============================================
``/healthz``                                               200 while the worker runs
``/readyz``                                                200 once every watched type is listed and
                                                           every workload interpreted, else 503 (JSON:
                                                           what is not synced yet)
``/metrics``                                               the Prometheus exposition
``/api/v1/workloads``                                      see :mod:`.api`
``/api/v1/namespaces/NS/workloads/TYPE/NAME``              see :mod:`.api`
``/api/v1/workloads/TYPE/NAME``                            a cluster-scoped kind's workload
``POST /api/v1/inspect|demand|place``                      see :mod:`.api` (off unless enabled)
``/``                                                      the page (topology map, workloads table)
``/workloads/NS/TYPE/NAME``                                one workload's describe view
=========================================================  ============================================

Pages are drawn by the caller's ``pages`` (the command line draws them, as it draws ``place
--html``); without it those routes answer 404. Every answer carries ``Cache-Control: no-store``;
pages add a Content-Security-Policy that allows no script, no request, nothing but their own
inline style. A request body is read only up to the API's cap (413 past it, before reading it); a
request line and headers must arrive within :data:`READ_SECONDS`; at most
:data:`MAX_POSTS` POST requests run at once (429 beyond).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from ..errors import WorkloadMapError, internal_error
from .api import Api, ApiError, status_object
from .interpret import WorkloadState
from .metrics import CONTENT_TYPE, MetricsEndpoint
from .picture import live_picture
from .service import Service
from .snapshot import Snapshot

__all__ = ["Pages", "ServiceServer", "READ_SECONDS", "MAX_POSTS", "PAGE_CSP"]

READ_SECONDS = 30.0
"""Seconds a client has to send its request (line, headers and body): a slow client is cut off."""
MAX_POSTS = 2
"""POST requests interpreted at once; more get 429 (interpretation is CPU-bound)."""
PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


@dataclass(frozen=True)
class Pages:
    """How the pages are drawn: ``index(snapshot, picture)`` and ``workload(state, report)``, both HTML."""

    index: Callable[[Snapshot, Any], str]
    workload: Callable[[WorkloadState, Any], str]


class _Handler(BaseHTTPRequestHandler):
    server: ServiceServer
    protocol_version = "HTTP/1.1"
    timeout = READ_SECONDS
    server_version = "wmap-serve"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a scrape every few seconds would flood the log."""

    def do_GET(self) -> None:
        """Answer a GET."""
        self.server.context_run(self._get)

    def do_POST(self) -> None:
        """Answer a POST."""
        self.server.context_run(self._post)

    def do_HEAD(self) -> None:
        """HEAD is not served (a read-only service has nothing to gain from it)."""
        self._method_not_allowed("GET, POST")

    do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD

    # -- answers --------------------------------------------------------------------------------

    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: Any, extra: dict[str, str] | None = None) -> None:
        self._send(status, (json.dumps(data, indent=2) + "\n").encode(), "application/json", extra)

    def _html(self, text: str) -> None:
        self._send(200, text.encode("utf-8"), "text/html; charset=utf-8", {"Content-Security-Policy": PAGE_CSP})

    def _method_not_allowed(self, allowed: str) -> None:
        self.close_connection = True
        self._json(405, status_object(405, f"method {self.command} is not allowed here"), {"Allow": allowed})

    def _guarded(self, run: Callable[[], None]) -> None:
        try:
            run()
        except ApiError as error:
            self._json(error.status, error.body)
        except WorkloadMapError as error:  # the cluster or the cache failed, not the request
            self._json(503, status_object(503, str(error), error=error))
        except Exception as error:  # a bug: one line, never a traceback to the client
            located = internal_error(error)
            self._json(500, status_object(500, str(located)))

    # -- GET ------------------------------------------------------------------------------------

    def _get(self) -> None:
        split = urlsplit(self.path)
        parts = [unquote(part) for part in split.path.split("/") if part]
        query = {key: values[-1] for key, values in parse_qs(split.query).items()}
        self._guarded(lambda: self._route_get(parts, query))

    def _route_get(self, parts: list[str], query: dict[str, str]) -> None:
        server, api = self.server, self.server.api
        if parts == ["healthz"]:
            alive = server.service.alive
            self._send(200 if alive else 503, b"ok\n" if alive else b"the worker stopped\n", "text/plain")
        elif parts == ["readyz"]:
            snapshot = server.service.snapshot
            body = {"ready": snapshot.ready, "unsynced": snapshot.unsynced(), "auditsPending": snapshot.audits_pending,
                    "errors": {watch.resource: watch.error for watch in snapshot.watches if watch.error}}  # fmt: skip
            self._json(200 if snapshot.ready else 503, body)
        elif parts == ["metrics"]:
            self._send(200, server.metrics.render(), CONTENT_TYPE)
        elif parts == ["api", "v1", "workloads"]:
            self._json(200, api.workloads(query))
        elif len(parts) == 7 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "workloads":
            self._json(200, api.describe(parts[3], parts[5], parts[6]))
        elif len(parts) == 5 and parts[:3] == ["api", "v1", "workloads"]:
            self._json(200, api.describe("", parts[3], parts[4]))
        elif parts and parts[0] == "api":
            raise ApiError(404, f"no such endpoint: GET {self.path.split('?')[0]}")
        elif server.pages is None:
            raise ApiError(404, "pages are not served by this process")
        elif not parts:
            self._html(server.index_page())
        elif parts[0] == "workloads" and len(parts) in (3, 4):
            namespace, type_token, name = ("", *parts[1:]) if len(parts) == 3 else parts[1:]
            report = api.describe_report(namespace, type_token, name)
            group, kind = report.tree.workload.api_version.rpartition("/")[0], report.tree.workload.kind
            state = server.service.snapshot.find(namespace, group, kind, name)
            assert state is not None
            self._html(server.pages.workload(state, report))
        else:
            raise ApiError(404, f"no such page: {self.path.split('?')[0]}")

    # -- POST -----------------------------------------------------------------------------------

    def _post(self) -> None:
        split = urlsplit(self.path)
        parts = [unquote(part) for part in split.path.split("/") if part]
        query = {key: values[-1] for key, values in parse_qs(split.query).items()}
        if len(parts) != 3 or parts[:2] != ["api", "v1"]:
            self.close_connection = True
            self._method_not_allowed("GET")
            return
        self._guarded(lambda: self._answer_post(parts[2], query))

    def _answer_post(self, endpoint: str, query: dict[str, str]) -> None:
        api = self.server.api
        if not api.options.enable_post:
            self.close_connection = True
            raise ApiError(404, "the POST API is off; start wmap serve with --enable-api to use it")
        body = self._body(api.options.max_body)
        if not self.server.posts.acquire(blocking=False):
            raise ApiError(429, f"busy: {MAX_POSTS} requests are being interpreted; try again shortly")
        try:
            self._json(200, api.post(endpoint, body, query))
        finally:
            self.server.posts.release()

    def _body(self, limit: int) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            self.close_connection = True
            raise ApiError(411, "send the body with a Content-Length (chunked bodies are not read)")
        length_text = self.headers.get("Content-Length")
        if length_text is None:
            self.close_connection = True
            raise ApiError(411, "send the body with a Content-Length")
        try:
            length = int(length_text)
        except ValueError:
            self.close_connection = True
            raise ApiError(400, f"Content-Length {length_text[:40]!r} is not a number") from None
        if length < 0:
            self.close_connection = True
            raise ApiError(400, "Content-Length is negative")
        if length > limit:
            self.close_connection = True  # the body is never read
            raise ApiError(413, f"request body of {length:,} bytes is larger than the limit of {limit:,} bytes")
        try:
            body = self.rfile.read(length)
        except OSError:  # a client that stalls: socket timeout
            self.close_connection = True
            raise ApiError(408, f"the request body did not arrive within {self.timeout:g} s") from None
        if len(body) != length:
            self.close_connection = True
            raise ApiError(400, f"request body ended after {len(body):,} of {length:,} bytes")
        return body


class ServiceServer(ThreadingHTTPServer):
    """The HTTP server of one :class:`~.service.Service` (bind it to ``127.0.0.1`` except in a pod).

    Args:
        address: ``(host, port)``; port 0 picks a free one.
        service: the service.
        api: the JSON API.
        pages: draws the HTML pages (None: no pages).
        read_seconds: how long a client may take to send its request.
    """

    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        service: Service,
        api: Api,
        pages: Pages | None = None,
        *,
        read_seconds: float = READ_SECONDS,
    ) -> None:
        handler = type("Handler", (_Handler,), {"timeout": read_seconds})
        super().__init__(address, handler)
        self.service = service
        self.api = api
        self.pages = pages
        self.metrics = MetricsEndpoint(lambda: service.snapshot)
        self.posts = threading.BoundedSemaphore(MAX_POSTS)
        self._context = service.context
        self._picture: tuple[int, Any] | None = None
        self._picture_lock = threading.Lock()

    def context_run(self, function: Callable[[], None]) -> None:
        """Run a request in the command's context (its budgets and allowed reference kinds)."""
        self._context.copy().run(function)

    def index_page(self) -> str:
        """The page at ``/``, its picture remade once per snapshot."""
        assert self.pages is not None
        snapshot = self.service.snapshot
        with self._picture_lock:
            if self._picture is None or self._picture[0] != snapshot.version:
                picture = None
                try:
                    cluster = self.service.live_cluster(self.api.options.request_seconds) if snapshot.ready else None
                except (TimeoutError, WorkloadMapError):
                    cluster = None
                if cluster is not None:
                    picture = live_picture(cluster, snapshot.workloads)
                self._picture = (snapshot.version, picture)
            picture = self._picture[1]
        return self.pages.index(snapshot, picture)

    @property
    def url(self) -> str:
        """``http://host:port``."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away is no error worth a traceback."""
        import sys

        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)
