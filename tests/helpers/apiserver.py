"""A small stand-in for the Kubernetes API server, on 127.0.0.1 only, for wmap's cluster tests.

It serves legacy discovery (``/api``, ``/apis``, ``/api/v1``, ``/apis/<group>/<version>``),
objects and lists (with ``limit``/``continue`` paging, a minimal ``fieldSelector`` and a
``labelSelector`` of equality, inequality and existence terms) from an in-memory store,
``Status`` objects for errors, an optional bearer-token check (401), over HTTPS by default (a
self-signed certificate for 127.0.0.1 that the kubeconfig it writes trusts: credentials travel over
TLS only, as kubectl sends them; ``tls=False`` for plain HTTP), and watches: every change
made through :meth:`FakeApiServer.add`, :meth:`~FakeApiServer.update` and
:meth:`~FakeApiServer.delete` bumps a global resourceVersion and is streamed to watchers
(chunked, one JSON event per line, as the real server does); :meth:`~FakeApiServer.compact`
makes older versions answer ``410 Gone`` and :meth:`~FakeApiServer.cut_watches` breaks the open
streams off mid-connection; :meth:`~FakeApiServer.serve_resource` and
:meth:`~FakeApiServer.stop_serving` install and remove a resource type (a CRD) while it runs. It
records the method and path of every request; the ``fake_cluster`` fixture fails a test whose
client sent anything but ``GET`` (``writes_expected`` opts out, for the test that proves writes
are recorded).

Use the ``fake_cluster`` fixture (import it into the test module) or :class:`FakeApiServer`.
"""

from __future__ import annotations

import bisect
import json
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
import yaml


@dataclass(frozen=True)
class FakeResource:
    group: str
    version: str
    plural: str
    singular: str
    kind: str
    namespaced: bool = True
    short_names: tuple[str, ...] = ()

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified(self) -> str:
        return f"{self.plural}.{self.group}" if self.group else self.plural


DEFAULT_RESOURCES: tuple[FakeResource, ...] = (
    FakeResource("", "v1", "nodes", "node", "Node", namespaced=False, short_names=("no",)),
    FakeResource("", "v1", "pods", "pod", "Pod", short_names=("po",)),
    FakeResource("", "v1", "namespaces", "namespace", "Namespace", namespaced=False, short_names=("ns",)),
    FakeResource("", "v1", "configmaps", "configmap", "ConfigMap", short_names=("cm",)),
    FakeResource("apps", "v1", "deployments", "deployment", "Deployment", short_names=("deploy",)),
    FakeResource("apps", "v1", "statefulsets", "statefulset", "StatefulSet", short_names=("sts",)),
    FakeResource("batch", "v1", "jobs", "job", "Job"),
    FakeResource("jobset.x-k8s.io", "v1alpha2", "jobsets", "jobset", "JobSet"),
    FakeResource("kubeflow.org", "v1", "pytorchjobs", "pytorchjob", "PyTorchJob"),
    FakeResource(
        "leaderworkerset.x-k8s.io", "v1", "leaderworkersets", "leaderworkerset", "LeaderWorkerSet", short_names=("lws",)
    ),
    FakeResource("", "v1", "events", "event", "Event", short_names=("ev",)),
    FakeResource("events.k8s.io", "v1", "events", "event", "Event", short_names=("ev",)),
    FakeResource("apps", "v1", "replicasets", "replicaset", "ReplicaSet", short_names=("rs",)),
    FakeResource("ray.io", "v1", "rayclusters", "raycluster", "RayCluster"),
    FakeResource("ray.io", "v1", "rayjobs", "rayjob", "RayJob"),
    FakeResource("grove.io", "v1alpha1", "podcliquesets", "podcliqueset", "PodCliqueSet", short_names=("pcs",)),
    FakeResource("grove.io", "v1alpha1", "podcliques", "podclique", "PodClique", short_names=("pclq",)),
    FakeResource(
        "grove.io",
        "v1alpha1",
        "podcliquescalinggroups",
        "podcliquescalinggroup",
        "PodCliqueScalingGroup",
        short_names=("pcsg",),
    ),
    # DRA (resource.k8s.io/v1, GA): what pods' claims resolve through
    FakeResource("resource.k8s.io", "v1", "resourceclaims", "resourceclaim", "ResourceClaim"),
    FakeResource("resource.k8s.io", "v1", "resourceclaimtemplates", "resourceclaimtemplate", "ResourceClaimTemplate"),
    FakeResource("resource.k8s.io", "v1", "deviceclasses", "deviceclass", "DeviceClass", namespaced=False),
)

# Subresources appear in real discovery documents; clients must skip them.
_SUBRESOURCES = {
    ("", "v1"): ["pods/log", "pods/status", "nodes/status"],
    ("jobset.x-k8s.io", "v1alpha2"): ["jobsets/status"],
}


class _QuietServer(ThreadingHTTPServer):
    """A server that does not print a traceback when a client (or a test) drops a connection."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


def _status(code: int, reason: str, message: str, **details: Any) -> dict:
    body = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details:
        body["details"] = details
    return body


class FakeApiServer:
    """A threaded HTTP server on ``127.0.0.1:<free port>`` answering like a Kubernetes API server.

    Attributes:
        requests: ``(method, path_with_query)`` of every request received, in order.
        authorizations: the ``Authorization`` header of every request (None when absent), in order.
        token: the bearer token required (None: no authentication).
        forbidden: resource plurals whose reads answer 403.
        forbidden_lists: plurals (or ``group/plural``) whose lists answer 403 while GET works.
        broken_groups: ``group/version`` strings whose discovery answers 503 (an aggregated API
            that is down).
        delay: seconds to wait before answering object and list requests (to test timeouts).
        hostile: ``(handler, path, query) -> bool``; when set, asked first about every authorized GET,
            and a True answer means it answered the request itself (a dripping, endless or lying
            server: see ``helpers.hostile``).
    """

    def __init__(
        self, resources: Iterable[FakeResource] = DEFAULT_RESOURCES, *, token: str | None = None, tls: bool = True
    ) -> None:
        self.resources = list(resources)
        self.token = token
        self.tls = tls
        self.forbidden: set[str] = set()
        self.forbidden_lists: set[str] = set()  # plural or group/plural: LIST (and WATCH) 403, GET allowed
        self.broken_groups: set[str] = set()
        self.delay = 0.0
        self.hostile: Callable[[BaseHTTPRequestHandler, str, dict[str, str]], bool] | None = None
        self.requests: list[tuple[str, str]] = []
        self.authorizations: list[str | None] = []  # the Authorization header of each request, in order
        self.writes_expected = False
        # (group, plural) -> {(namespace or "", name): object}
        self.objects: dict[tuple[str, str], dict[tuple[str, str], dict]] = {}
        self.version = 1
        self.compacted = 0  # watches from a resourceVersion below this answer 410 Gone
        self.expired_as_status = False  # 410 as the HTTP status instead of an ERROR event
        self.events: list[tuple[int, str, tuple[str, str], dict]] = []  # (version, type, (group, plural), obj)
        self._history: dict[tuple[str, str], list[tuple[int, str, dict]]] = {}  # the same, by resource type
        self._changes: dict[tuple[str, str], int] = {}  # changes per resource type, for the list order kept
        self._listed: dict[tuple[str, str], tuple[int, list]] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._watch_sockets: list[Any] = []
        self._stopping = False
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- content -----------------------------------------------------------------------------

    def resource_for(self, api_version: str, kind: str) -> FakeResource:
        for resource in self.resources:
            if resource.api_version == api_version and resource.kind == kind:
                return resource
        raise KeyError(f"the fake server serves no {kind} ({api_version})")

    def add(self, obj: dict) -> dict:
        """Store an object (a deep copy); namespaced objects without a namespace go to ``default``."""
        return self._store(obj, "ADDED")

    def update(self, obj: dict) -> dict:
        """Replace a stored object (its resourceVersion moves on; watchers see MODIFIED)."""
        return self._store(obj, "MODIFIED")

    def delete(self, obj: dict) -> None:
        """Remove a stored object (watchers see DELETED)."""
        resource = self.resource_for(obj["apiVersion"], obj["kind"])
        metadata = obj["metadata"]
        key = (metadata.get("namespace", "") if resource.namespaced else "", metadata["name"])
        with self._changed:
            stored = self.objects.get((resource.group, resource.plural), {}).pop(key)
            self.version += 1
            stored = json.loads(json.dumps(stored))
            stored["metadata"]["resourceVersion"] = str(self.version)
            self._record(self.version, "DELETED", (resource.group, resource.plural), stored)
            self._changed.notify_all()

    def serve_resource(self, resource: FakeResource) -> None:
        """Start serving a resource type (a CRD installed now): discovery lists it from the next request on."""
        with self._lock:
            if resource not in self.resources:
                self.resources.append(resource)

    def stop_serving(self, resource: FakeResource) -> None:
        """Stop serving a resource type (its CRD deleted): its objects go, discovery no longer lists it."""
        with self._changed:
            self.resources.remove(resource)
            self.objects.pop((resource.group, resource.plural), None)
            key = (resource.group, resource.plural)
            self._changes[key] = self._changes.get(key, 0) + 1
            self._changed.notify_all()

    def add_all(self, objects: Iterable[dict]) -> None:
        """Store many objects."""
        for obj in objects:
            self.add(obj)

    def _store(self, obj: dict, kind: str) -> dict:
        obj = json.loads(json.dumps(obj))
        resource = self.resource_for(obj["apiVersion"], obj["kind"])
        metadata = obj.setdefault("metadata", {})
        if resource.namespaced:
            metadata.setdefault("namespace", "default")
        else:
            metadata.pop("namespace", None)
        key = (metadata.get("namespace", ""), metadata["name"])
        with self._changed:
            self.version += 1
            metadata["resourceVersion"] = str(self.version)
            self.objects.setdefault((resource.group, resource.plural), {})[key] = obj
            self._record(self.version, kind, (resource.group, resource.plural), obj)
            self._changed.notify_all()
        return obj

    def _record(self, version: int, kind: str, key: tuple[str, str], obj: dict) -> None:
        self._changes[key] = self._changes.get(key, 0) + 1
        self.events.append((version, kind, key, obj))
        self._history.setdefault(key, []).append((version, kind, obj))

    def compact(self) -> None:
        """Forget the change history: a watch from an older resourceVersion gets 410 Gone."""
        with self._changed:
            self.compacted = self.version  # etcd compacted at the current revision
            self.events.clear()
            self._history.clear()

    def cut_watches(self) -> int:
        """Break every open watch off without ending the chunked stream (a dropped connection)."""
        import socket

        with self._changed:
            sockets, self._watch_sockets = self._watch_sockets, []
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        return len(sockets)

    @property
    def watch_requests(self) -> list[str]:
        """Paths of the watch requests received."""
        with self._lock:
            return [path for _, path in self.requests if "watch=" in path]

    @property
    def methods(self) -> set[str]:
        """Every HTTP method seen so far."""
        with self._lock:
            return {method for method, _ in self.requests}

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"{'https' if self.tls else 'http'}://{host}:{port}"

    def start(self) -> "FakeApiServer":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def _any(self) -> None:
                fake._handle(self)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _any

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        if self.tls:
            import ssl

            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(TLS_DIR / "server.crt", TLS_DIR / "server.key")
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        self.cut_watches()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "FakeApiServer":
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    def write_kubeconfig(
        self, path: Path, *, token: str | None = None, namespace: str | None = None, context: str = "fake"
    ) -> Path:
        """A kubeconfig whose context ``context`` points at this server with a bearer token."""
        context_entry: dict[str, Any] = {"cluster": "fake-cluster", "user": "fake-user"}
        if namespace:
            context_entry["namespace"] = namespace
        cluster: dict[str, Any] = {"server": self.url}
        if self.tls:  # verified, as a real kubeconfig's certificate-authority makes it
            cluster["certificate-authority"] = str(TLS_DIR / "server.crt")
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "fake-cluster", "cluster": cluster}],
            "users": [
                {"name": "fake-user", "user": {"token": token if token is not None else (self.token or "no-token")}}
            ],
            "contexts": [{"name": context, "context": context_entry}],
            "current-context": context,
        }
        path.write_text(yaml.safe_dump(config))
        return path

    # -- HTTP --------------------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self.requests.append((handler.command, handler.path))
            self.authorizations.append(handler.headers.get("Authorization"))
        length = int(handler.headers.get("Content-Length") or 0)
        if length:
            handler.rfile.read(length)
        if handler.command != "GET":
            self._send(
                handler, 405, _status(405, "MethodNotAllowed", f"the fake server is read-only: {handler.command}")
            )
            return
        scheme, _, credential = (handler.headers.get("Authorization") or "").partition(" ")
        # The scheme is case-insensitive, as the API server's bearer authenticator reads it.
        if self.token is not None and (scheme.lower() != "bearer" or credential != self.token):
            self._send(handler, 401, _status(401, "Unauthorized", "Unauthorized"))
            return
        split = urlsplit(handler.path)
        query = {key: values[-1] for key, values in parse_qs(split.query).items()}
        if self.hostile is not None and self.hostile(handler, split.path, query):
            return
        code, body = self._route([unquote(part) for part in split.path.strip("/").split("/")], query)
        if code == _WATCH:
            self._stream(handler, body["resource"], body["namespace"], query)
            return
        self._send(handler, code, body)

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, code: int, body: dict) -> None:
        data = json.dumps(body).encode()
        handler.send_response(code)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _group_versions(self) -> dict[str, list[str]]:
        versions: dict[str, list[str]] = {}
        for resource in self.resources:
            if resource.group and resource.version not in versions.setdefault(resource.group, []):
                versions[resource.group].append(resource.version)
        return versions

    def _route(self, parts: list[str], query: dict[str, str]) -> tuple[int, dict]:
        if parts == ["api"]:
            return 200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        if parts == ["apis"]:
            groups = [
                {
                    "name": group,
                    "versions": [{"groupVersion": f"{group}/{v}", "version": v} for v in versions],
                    "preferredVersion": {"groupVersion": f"{group}/{versions[0]}", "version": versions[0]},
                }
                for group, versions in self._group_versions().items()
            ]
            return 200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
        if parts[0] == "api" and len(parts) >= 2:
            group, version, rest = "", parts[1], parts[2:]
        elif parts[0] == "apis" and len(parts) >= 3:
            group, version, rest = parts[1], parts[2], parts[3:]
        else:
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        served = [r for r in self.resources if r.group == group and r.version == version]
        if not served:
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        if not rest:
            if f"{group}/{version}" in self.broken_groups:
                return 503, _status(503, "ServiceUnavailable", "the server is currently unable to handle the request")
            entries = [
                {
                    "name": r.plural,
                    "singularName": r.singular,
                    "namespaced": r.namespaced,
                    "kind": r.kind,
                    "verbs": ["get", "list", "watch", "create", "delete", "patch", "update"],
                    **({"shortNames": list(r.short_names)} if r.short_names else {}),
                }
                for r in served
            ]
            entries += [
                {"name": name, "singularName": "", "namespaced": True, "kind": "Status", "verbs": ["get"]}
                for name in _SUBRESOURCES.get((group, version), [])
            ]
            return 200, {
                "kind": "APIResourceList",
                "apiVersion": "v1",
                "groupVersion": f"{group}/{version}" if group else version,
                "resources": entries,
            }
        namespace = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            namespace, rest = rest[1], rest[2:]
        by_plural = {r.plural: r for r in served}
        if not rest or rest[0] not in by_plural or len(rest) > 2:
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        resource = by_plural[rest[0]]
        if self.delay:
            time.sleep(self.delay)
        if resource.plural in self.forbidden:
            verb = "get" if len(rest) == 2 else "list"
            return 403, _status(
                403,
                "Forbidden",
                f'{resource.qualified} is forbidden: User "tester" cannot {verb} resource "{resource.plural}" '
                f'in API group "{resource.group}"' + (f' in the namespace "{namespace}"' if namespace else ""),
            )
        if len(rest) == 1 and {resource.plural, f"{resource.group}/{resource.plural}"} & self.forbidden_lists:
            return 403, _status(
                403,
                "Forbidden",
                f'{resource.qualified} is forbidden: User "tester" cannot list resource "{resource.plural}"',
            )
        with self._lock:
            stored = dict(self.objects.get((resource.group, resource.plural), {}))
            changes = self._changes.get((resource.group, resource.plural), 0)  # the version of ``stored``
        if len(rest) == 2:
            obj = stored.get((namespace or "" if resource.namespaced else "", rest[1]))
            if obj is None:
                return 404, _status(
                    404,
                    "NotFound",
                    f'{resource.qualified} "{rest[1]}" not found',
                    name=rest[1],
                    group=resource.group,
                    kind=resource.plural,
                )
            return 200, obj
        if query.get("watch") in ("1", "true"):
            return _WATCH, {"resource": resource, "namespace": namespace}
        items = [
            obj
            for (obj_namespace, _), obj in self._sorted(resource, stored, changes)
            if (namespace is None or obj_namespace == namespace)
            and _field_selector_matches(obj, query.get("fieldSelector", ""))
            and _label_selector_matches(obj, query.get("labelSelector", ""))
        ]
        start = int(query.get("continue") or 0)
        limit = int(query.get("limit") or 0)
        selected = items[start : start + limit] if limit else items[start:]
        # List items carry no kind/apiVersion, like the real server's.
        page = [{key: value for key, value in obj.items() if key not in ("kind", "apiVersion")} for obj in selected]
        with self._lock:
            metadata: dict[str, Any] = {"resourceVersion": str(self.version)}
        if limit and start + limit < len(items):
            metadata["continue"] = str(start + limit)
        return 200, {
            "kind": f"{resource.kind}List",
            "apiVersion": resource.api_version,
            "metadata": metadata,
            "items": page,
        }

    def _sorted(self, resource: FakeResource, stored: dict, changes: int) -> list:
        """``stored`` in list order, sorted once per change of the type (lists come page by page)."""
        key = (resource.group, resource.plural)
        with self._lock:
            cached = self._listed.get(key)
        if cached is not None and cached[0] == changes:
            return cached[1]
        ordered = sorted(stored.items())
        with self._lock:
            if self._changes.get(key, 0) == changes:
                self._listed[key] = (changes, ordered)
        return ordered

    def _stream(
        self, handler: BaseHTTPRequestHandler, resource: FakeResource, namespace: str | None, query: dict[str, str]
    ) -> None:
        """Stream the changes after ``resourceVersion`` until ``timeoutSeconds``, a cut, or the server stops."""
        since = int(query.get("resourceVersion") or 0)
        deadline = time.monotonic() + float(query.get("timeoutSeconds") or 30)
        with self._changed:
            expired = bool(since) and since < self.compacted
            cursor = since or self.version
        if expired and self.expired_as_status:
            self._send(handler, 410, _status(410, "Expired", f"too old resource version: {since} ({self.compacted})"))
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True
        with self._changed:
            self._watch_sockets.append(handler.connection)

        def chunk(event: dict) -> None:
            data = json.dumps(event).encode() + b"\n"
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()

        try:
            if expired:
                gone = _status(410, "Expired", f"too old resource version: {since} ({self.compacted})")
                chunk({"type": "ERROR", "object": gone})
            else:
                cursor = self._pump(resource, namespace, query, cursor, deadline, chunk, handler.connection)
                if query.get("allowWatchBookmarks") == "true":
                    bookmark = {
                        "kind": resource.kind,
                        "apiVersion": resource.api_version,
                        "metadata": {"resourceVersion": str(cursor)},
                    }
                    chunk({"type": "BOOKMARK", "object": bookmark})
            handler.wfile.write(b"0\r\n\r\n")
            handler.wfile.flush()
        except OSError:
            pass  # cut off (cut_watches) or the client went away
        finally:
            with self._changed:
                if handler.connection in self._watch_sockets:
                    self._watch_sockets.remove(handler.connection)

    def _pump(
        self,
        resource: FakeResource,
        namespace: str | None,
        query: dict[str, str],
        cursor: int,
        deadline: float,
        chunk: Any,
        connection: Any,
    ) -> int:
        key = (resource.group, resource.plural)
        while True:
            with self._changed:
                history = self._history.get(key, [])
                start = bisect.bisect_right(history, cursor, key=lambda event: event[0])
                pending = [(version, kind, key, obj) for version, kind, obj in history[start:]]
                if not pending:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0 or self._stopping or connection not in self._watch_sockets:
                        return max(cursor, self.version)
                    self._changed.wait(min(remaining, 0.1))
                    continue
            for version, kind, _, obj in pending:
                cursor = version
                if namespace is not None and obj["metadata"].get("namespace") != namespace:
                    continue
                if not _label_selector_matches(obj, query.get("labelSelector", "")):
                    continue
                chunk({"type": kind, "object": obj})


_WATCH = -1


def _label_selector_matches(obj: dict, selector: str) -> bool:
    """``k=v``, ``k==v``, ``k!=v``, ``k`` and ``!k`` terms, comma-separated (AND); written independently of wmap."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    for term in filter(None, (part.strip() for part in selector.split(","))):
        if term.startswith("!"):
            if term[1:] in labels:
                return False
        elif "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key) == value:
                return False
        elif "=" in term:
            key, value = term.split("=", 1)
            if labels.get(key) != value.lstrip("="):
                return False
        elif term not in labels:
            return False
    return True


def _field_selector_matches(obj: dict, selector: str) -> bool:
    """``status.phase!=X`` / ``status.phase=X`` / ``metadata.name=X`` terms, comma-separated (AND)."""
    for term in filter(None, selector.split(",")):
        negate = "!=" in term
        field, _, wanted = term.partition("!=" if negate else "=")
        value: Any = obj
        for part in field.lstrip("=").split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if (str(value) == wanted) == negate:
            return False
    return True


TEST_TOKEN = "s3cr3t-test-token-abc123"
TLS_DIR = Path(__file__).resolve().parent.parent / "data" / "tls"
"""A self-signed certificate for 127.0.0.1 (see its README): the in-cluster configuration speaks HTTPS."""


@dataclass
class FakeCluster:
    """What the ``fake_cluster`` fixture yields: the running server and a kubeconfig for it."""

    server: FakeApiServer
    kubeconfig: Path


@pytest.fixture
def fake_cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A started :class:`FakeApiServer` requiring ``TEST_TOKEN``, and a kubeconfig pointing at it.

    Proxy variables are cleared so nothing but 127.0.0.1 is ever contacted. After the test,
    every request the server received must have been a read (GET; lists and watches included).
    """
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    server = FakeApiServer(token=TEST_TOKEN).start()
    try:
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
        yield FakeCluster(server=server, kubeconfig=kubeconfig)
    finally:
        server.stop()
    if not server.writes_expected:
        writes = [f"{method} {path}" for method, path in server.requests if method != "GET"]
        assert not writes, f"the client sent requests that are not reads: {writes}"


@contextmanager
def pod_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, namespace: str) -> Iterator[FakeApiServer]:
    """A pod's environment around a TLS :class:`FakeApiServer`: no kubeconfig, KUBERNETES_SERVICE_HOST/PORT
    and a mounted service account (token, the test CA, ``namespace``) as the kubelet mounts it."""
    from workloadmap.kube import config as config_module

    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent-kubeconfig"))
    monkeypatch.setenv("HOME", str(tmp_path))
    account = tmp_path / "serviceaccount"
    account.mkdir()
    (account / "token").write_text(TEST_TOKEN)
    (account / "ca.crt").write_text((TLS_DIR / "server.crt").read_text())
    (account / "namespace").write_text(f"{namespace}\n")
    monkeypatch.setattr(config_module, "SERVICE_ACCOUNT_DIR", account)
    with FakeApiServer(token=TEST_TOKEN, tls=True) as server:
        host, port = server.url.removeprefix("https://").split(":")
        monkeypatch.setenv("KUBERNETES_SERVICE_HOST", host)
        monkeypatch.setenv("KUBERNETES_SERVICE_PORT", port)
        yield server
