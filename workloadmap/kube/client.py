"""Read-only access to a live Kubernetes API server.

:class:`ClusterClient` resolves kubectl-style resource references (``jobset/train``,
``jobsets.jobset.x-k8s.io/train``, ``JobSet.v1alpha2.jobset.x-k8s.io/train``, ``pytorchjob train``)
through API discovery and fetches objects, lists, nodes and pods as plain dicts, ready for
:func:`workloadmap.inspect` and :mod:`workloadmap.topology`.

Only ``GET`` requests are ever sent. The official ``kubernetes`` client is imported lazily, inside
this module's functions, so reading files never pays for it. The kubeconfig is loaded with
``new_client_from_config(..., persist_config=False)``: an isolated client, no output on stdout, no
writes to the user's kubeconfig. Every failure becomes a one-line :class:`ClusterError`; response
bodies and headers of failed requests are never put into messages, because they can carry
credentials.
"""

from __future__ import annotations

import builtins
import difflib
import os
from typing import Any, Iterator

from .. import labels
from ..budgets import check as check_budget
from ..budgets import check_deadline, deadline
from ..errors import ClusterApiError, ClusterError, UnknownResourceTypeError, WorkloadMapError
from .answers import (
    MAX_LIST_ITEMS,
    MAX_PAGES,
    REQUEST_SECONDS,
    discovery_list,
    list_answer,
    object_answer,
    parse_answer,
    read_answer,
    request_timeouts,
)
from .config import connect
from .failures import connection_error, one_line, status_error
from .resources import ApiResource, parse_resource_ref

__all__ = [
    "ClusterClient",
    "DEFAULT_TIMEOUT",
    "ACTIVE_POD_SELECTOR",
]

DEFAULT_TIMEOUT = 10.0
"""Seconds allowed to connect, and again to read, for every request."""

ACTIVE_POD_SELECTOR = "status.phase!=Succeeded,status.phase!=Failed"
"""Field selector of :meth:`ClusterClient.pods`: pods that hold (or will hold) node capacity."""

PAGE_SIZE = 500


class ClusterClient:
    """A read-only client of one Kubernetes API server, configured from a kubeconfig.

    Args:
        kubeconfig: the kubeconfig file; only that file is read (kubectl's ``--kubeconfig``).
            When omitted, ``$KUBECONFIG`` (a path list, merged) or ``~/.kube/config``, read at call
            time rather than at import of the ``kubernetes`` package; without any, the pod's
            service account when wmap runs in a pod (see :mod:`.config`).
        context: the kubeconfig context; its current context when omitted.
        timeout: seconds allowed to connect, and again to read, for every request.
        request_seconds: total seconds one request may take, its answer included.

    Every request is also bounded by the command's deadline (:mod:`workloadmap.budgets`), and its
    answer by size and JSON depth (:mod:`.answers`); redirects are never followed.

    The kubeconfig is trusted like kubectl trusts it: its ``exec`` credential plugins run local
    commands. Never pass a kubeconfig that came from untrusted input.

    Raises:
        ClusterError: no kubeconfig (and not in a pod), an unknown context, or a kubeconfig the
            client cannot use.
    """

    def __init__(
        self,
        kubeconfig: str | os.PathLike | None = None,
        context: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        request_seconds: float = REQUEST_SECONDS,
    ) -> None:
        connection = connect(kubeconfig, context)
        self.timeout = float(timeout)
        self.request_seconds = float(request_seconds)
        self._api = connection.api
        self._api.user_agent = "wmap"
        self.context: str = connection.context
        self.default_namespace: str = connection.default_namespace
        self.host: str = connection.host
        self.credentials_withheld: bool = connection.credentials_withheld
        """The kubeconfig user has credentials, not sent: the server is not reached over TLS (as kubectl does)."""
        self._secrets: tuple[str, ...] = connection.secrets
        self._group_versions: list[tuple[str, list[str]]] | None = None
        self._resource_lists: dict[tuple[str, str], list[ApiResource]] = {}
        self._resolved: dict[str, ApiResource] = {}
        self._failed_discovery: list[str] = []

    # -- lifecycle -------------------------------------------------------------------------------

    def close(self) -> None:
        """Release the connection pool."""
        self._api.close()

    def __enter__(self) -> "ClusterClient":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # -- HTTP ------------------------------------------------------------------------------------

    def _open(
        self, path: str, query: list[tuple[str, str]] | None = None, *, read_timeout: float | None = None
    ) -> tuple[int, Any]:
        """Send ``GET path`` and return the status and the undecoded, unread urllib3 response."""
        import urllib3
        from kubernetes.client.exceptions import ApiException
        from kubernetes.config.config_exception import ConfigException

        try:
            method, url, headers, _body, _post = self._api.param_serialize(
                "GET",
                path,
                query_params=query or None,
                header_params={"Accept": "application/json"},
                auth_settings=["BearerToken"],
            )
            check_deadline(f"GET {path}")
            timeouts = request_timeouts(self.timeout, read_timeout or self.timeout)
            response = self._api.call_api(method, url, header_params=headers, _request_timeout=timeouts)
        except urllib3.exceptions.HTTPError as error:
            raise self._failed(error, path) from None
        except ApiException as error:  # the REST layer turns TLS failures into status-0 exceptions
            raise ClusterError(
                f"cannot reach the Kubernetes API server at {self.host} (context {self.context}): "
                f"TLS failure: {one_line(error.reason, 160)}"
            ) from None
        except ConfigException as error:  # e.g. an exec credential plugin failed while refreshing
            raise ClusterError(f"cannot get credentials for context {self.context}: {one_line(error)}") from None
        except OSError as error:
            raise self._failed(error, path) from None
        raw = response.response
        encoding = str(raw.headers.get("Content-Encoding") or "identity").strip().lower()
        if encoding != "identity":
            # wmap asks for no encoding: an answer compressed anyway could decode to a thousand times
            # its size (0.5 MB of gzip, 200 MB of JSON) before any limit on what was read applies.
            raw.close()
            raw.release_conn()
            raise ClusterError(
                f"the API server answered GET {path} with a {one_line(encoding, 40)}-encoded body, which wmap did not "
                "ask for (refused)"
            )
        return response.status, raw

    def _request(self, path: str, query: list[tuple[str, str]] | None = None) -> tuple[int, Any]:
        """GET ``path``; returns the status and the decoded JSON body (None when it is not JSON)."""
        import urllib3

        status, raw = self._open(path, query)
        try:
            if 300 <= status < 400:
                raise ClusterError(
                    f"the API server at {self.host} answered GET {path} with a redirect (HTTP {status}); "
                    "wmap never follows redirects, which could carry the credentials to another host"
                )
            data = read_answer(raw, f"GET {path}", seconds=self.request_seconds)
        except (urllib3.exceptions.HTTPError, OSError) as error:
            raise self._failed(error, path) from None
        finally:
            raw.release_conn()
        return status, parse_answer(data, f"GET {path}")

    def _failed(self, error: BaseException, path: str) -> WorkloadMapError:
        """The error for a failed request: the command's deadline when it has passed, else the connection's."""
        current = deadline()
        if current is not None and current.passed():
            return current.error(f"GET {path}")
        return connection_error(error, path, host=self.host, context=self.context, timeout=self.timeout)

    def _get_json(
        self,
        path: str,
        query: list[tuple[str, str]] | None = None,
        *,
        what: str | None = None,
        namespace: str | None = None,
    ) -> dict:
        status, body = self._request(path, query)
        if 200 <= status < 300:
            if not isinstance(body, dict):
                raise ClusterError(f"the answer to GET {path} is not a JSON object")
            return body
        raise self.status_error(status, body, path, what=what, namespace=namespace)

    def status_error(
        self, status: int, body: Any, path: str, *, what: str | None = None, namespace: str | None = None
    ) -> ClusterApiError:
        """The error for an error answer: kubectl's words, credentials redacted, and why none were sent when so."""
        error = status_error(
            status, body, path, host=self.host, context=self.context, what=what, namespace=namespace,
            secrets=self._secrets,
        )  # fmt: skip
        if status in (401, 403) and self.credentials_withheld:
            error.message += (
                f"; the credentials of context {self.context} were not sent: {self.host} is not reached over TLS "
                "(kubectl sends credentials over TLS only)"
            )
        return error

    # -- discovery -------------------------------------------------------------------------------

    def forget_discovery(self) -> None:
        """Forget what discovery said, so the next lookup asks the server again (a CRD installed since)."""
        self._group_versions = None
        self._resource_lists = {}
        self._resolved = {}
        self._failed_discovery = []

    def _groups(self) -> list[tuple[str, list[str]]]:
        """(group, versions with the preferred one first), the core group first."""
        if self._group_versions is None:
            groups: list[tuple[str, list[str]]] = []
            core = self._get_json("/api")
            core_versions = [v for v in discovery_list(core, "versions", "GET /api") if isinstance(v, str)]
            groups.append(("", core_versions or ["v1"]))
            listing = self._get_json("/apis")
            for entry in discovery_list(listing, "groups", "GET /apis"):
                if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                    continue
                entry_versions = discovery_list(entry, "versions", f"GET /apis (group {entry['name']})")
                listed = [v.get("version") for v in entry_versions if isinstance(v, dict)]
                versions: list[str] = [v for v in listed if isinstance(v, str)]
                preferred_entry = entry.get("preferredVersion")
                preferred = preferred_entry.get("version") if isinstance(preferred_entry, dict) else None
                if preferred in versions:
                    versions.remove(preferred)
                    versions.insert(0, preferred)
                groups.append((entry["name"], versions))
            self._group_versions = groups
        return self._group_versions

    def _resources(self, group: str, version: str) -> list[ApiResource]:
        key = (group, version)
        if key not in self._resource_lists:
            path = f"/apis/{group}/{version}" if group else f"/api/{version}"
            status, body = self._request(path)
            resources: list[ApiResource] = []
            if status in (401, 403):
                raise self.status_error(status, body, path)
            if 200 <= status < 300 and isinstance(body, dict):
                for entry in discovery_list(body, "resources", f"GET {path}"):
                    if not isinstance(entry, dict):
                        continue
                    plural, kind = entry.get("name"), entry.get("kind")
                    if not isinstance(plural, str) or "/" in plural or not isinstance(kind, str):
                        continue  # subresources such as pods/log
                    short = discovery_list(entry, "shortNames", f"GET {path}")
                    resources.append(
                        ApiResource(
                            group=group,
                            version=version,
                            plural=plural.lower(),
                            singular=str(entry.get("singularName") or "").lower(),
                            kind=kind,
                            namespaced=bool(entry.get("namespaced")),
                            short_names=tuple(str(name).lower() for name in short if isinstance(name, str)),
                        )
                    )
            else:
                # An aggregated API that is down (kubectl warns and carries on).
                self._failed_discovery.append(f"{group or 'core'}/{version}")
            self._resource_lists[key] = resources
        return self._resource_lists[key]

    def resolve(self, type_token: str) -> ApiResource:
        """Find the resource type named like kubectl does.

        Names: ``jobset``, ``jobsets``, ``JobSet``, ``jobsets.jobset.x-k8s.io`` (plural.group) or
        ``JobSet.v1alpha2.jobset.x-k8s.io`` (kind.version.group). Without a group the core group
        wins, then the other groups in discovery order, preferred version first.

        Raises:
            ClusterError: the server has no such resource type, or is unreachable.
        """
        token = type_token.strip().lower()
        if token in self._resolved:
            return self._resolved[token]
        parts = token.split(".")
        candidates: list[tuple[str, str | None, str | None]] = []
        if len(parts) >= 3:
            candidates.append((parts[0], parts[1], ".".join(parts[2:])))
        if len(parts) >= 2:
            candidates.append((parts[0], None, ".".join(parts[1:])))
        if len(parts) == 1:
            candidates.append((token, None, None))
        groups = self._groups()
        for name, version, group in candidates:
            for known_group, versions in groups:
                if group is not None and known_group != group:
                    continue
                for known_version in versions:
                    if version is not None and known_version != version:
                        continue
                    for resource in self._resources(known_group, known_version):
                        if resource.matches(name):
                            self._resolved[token] = resource
                            return resource
        note = ""
        if self._failed_discovery:
            note = f" (discovery failed for {', '.join(self._failed_discovery[:3])})"
        known = {
            name
            for (group, version), resources in self._resource_lists.items()
            for resource in resources
            for name in (resource.plural, resource.singular, *resource.short_names)
            if name
        }
        close = difflib.get_close_matches(token, sorted(known), n=3, cutoff=0.75)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise UnknownResourceTypeError(f'the server doesn\'t have a resource type "{type_token}"{note}{hint}')

    # -- reads -----------------------------------------------------------------------------------

    def get(self, resource_ref: str, namespace: str | None = None) -> dict:
        """Fetch one object, e.g. ``get("jobset/train", "research")``.

        Args:
            resource_ref: ``TYPE/NAME`` or ``TYPE NAME``; TYPE as in :meth:`resolve`.
            namespace: the object's namespace; the context's namespace (else ``default``) when
                omitted; ignored for cluster-scoped types.

        Raises:
            ClusterApiError: not found (404, message ``jobsets.jobset.x-k8s.io "train" not found in
                namespace default``), unauthorized (401), forbidden (403) or another server error.
            ClusterError: no name given, unknown resource type, server unreachable.
        """
        type_token, name = parse_resource_ref(resource_ref)
        if name is None:
            raise ClusterError(f"resource reference {resource_ref!r} names no object; use TYPE/NAME")
        resource = self.resolve(type_token)
        namespace = (namespace or self.default_namespace) if resource.namespaced else None
        path = resource.path(namespace, name)
        obj = self._get_json(path, what=f'{resource.qualified_name} "{name}"', namespace=namespace)
        return object_answer(obj, resource.kind, resource.api_version, f"GET {path}", name)

    def list(
        self,
        kind_ref: str,
        namespace: str | None = None,
        *,
        all_namespaces: bool = False,
        label_selector: str | None = None,
        field_selector: str | None = None,
        chunk_size: int | None = None,
    ) -> builtins.list[dict]:
        """List the objects of one type, following pagination.

        ``kind``/``apiVersion`` are filled in on every item (list items lack them).

        Args:
            kind_ref: the resource type, as in :meth:`resolve`.
            namespace: the namespace to list; the context's namespace (else ``default``) when
                omitted. Ignored with ``all_namespaces`` and for cluster-scoped types.
            all_namespaces: list across every namespace.
            label_selector: passed to the server as it is.
            field_selector: passed to the server as it is.
            chunk_size: objects per page (``limit``; kubectl's ``--chunk-size``, default 500); 0 asks
                for all at once.
        """
        resource = self.resolve(kind_ref)
        items, _ = self.list_with_version(
            resource,
            self.scope(resource, namespace, all_namespaces),
            label_selector=label_selector,
            field_selector=field_selector,
            chunk_size=chunk_size,
        )
        return items

    def scope(self, resource: ApiResource, namespace: str | None, all_namespaces: bool = False) -> str | None:
        """The namespace a request about ``resource`` goes to: None for all namespaces or cluster scope."""
        if not resource.namespaced or all_namespaces:
            return None
        return namespace or self.default_namespace

    def list_with_version(
        self,
        resource: ApiResource,
        namespace: str | None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        chunk_size: int | None = None,
    ) -> tuple[builtins.list[dict], str]:
        """Every object of ``resource`` in ``namespace`` (None: all), and the list's resourceVersion.

        The resourceVersion is the one a watch starts from. Pages come from ``limit``/``continue``
        as the API server hands them out, so a long list is one consistent snapshot.
        """
        version = ""
        items: builtins.list[dict] = []
        for page_items, metadata in self._pages(resource, namespace, label_selector, field_selector, chunk_size):
            version = str(metadata.get("resourceVersion") or version)
            self._check_items(resource, len(items) + len(page_items))
            items.extend(page_items)
        return items, version

    def list_pages(
        self,
        resource: ApiResource,
        namespace: str | None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        chunk_size: int | None = None,
    ) -> Iterator[builtins.list[dict]]:
        """The objects of :meth:`list_with_version`, a page at a time.

        A caller that handles each page and lets it go holds one page, not the whole list (200,000
        objects printed by name).
        """
        count = 0
        for page_items, _ in self._pages(resource, namespace, label_selector, field_selector, chunk_size):
            count += len(page_items)
            self._check_items(resource, count)
            yield page_items

    def _pages(
        self,
        resource: ApiResource,
        namespace: str | None,
        label_selector: str | None,
        field_selector: str | None,
        chunk_size: int | None,
    ) -> Iterator[tuple[builtins.list[dict], dict]]:
        """Each page's items (checked to be ``resource``'s kind) and metadata, following ``continue`` tokens."""
        path = resource.path(namespace)
        chunk_size = PAGE_SIZE if chunk_size is None else chunk_size
        continue_token: str | None = None
        seen: set[str] = set()
        for _page in range(MAX_PAGES):
            query = [("limit", str(chunk_size))] if chunk_size > 0 else []
            if label_selector:
                query.append(("labelSelector", label_selector))
            if field_selector:
                query.append(("fieldSelector", field_selector))
            if continue_token:
                query.append(("continue", continue_token))
            page_items, metadata = list_answer(
                self._get_json(path, query), resource.kind, resource.api_version, f"GET {path}"
            )
            yield page_items, metadata
            continue_token = metadata.get("continue") or None
            if not continue_token:
                return
            if not isinstance(continue_token, str) or continue_token in seen:
                raise ClusterError(
                    f"listing {resource.qualified_name}: the API server handed out a continue token it gave before "
                    "(a list that never ends)"
                )
            seen.add(continue_token)
        raise ClusterError(f"listing {resource.qualified_name} did not finish after {MAX_PAGES} pages")

    @staticmethod
    def _check_items(resource: ApiResource, count: int) -> None:
        """Bound a list while its pages arrive: the node budget for nodes, else :data:`MAX_LIST_ITEMS`."""
        if resource.group == "" and resource.plural == "nodes":
            check_budget("nodes", count, "nodes (listed from the API server)")
        elif count > MAX_LIST_ITEMS:
            raise ClusterError(f"listing {resource.qualified_name}: more than {MAX_LIST_ITEMS:,} objects (refused)")

    def _items(
        self,
        resource: ApiResource,
        namespace: str | None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> builtins.list[dict]:
        items, _ = self.list_with_version(
            resource, namespace, label_selector=label_selector, field_selector=field_selector
        )
        return items

    def resolve_kind(self, api_version: str, kind: str) -> ApiResource | None:
        """The resource type of ``kind`` in ``api_version`` (an owner reference's), or None when not served.

        The exact version first, then the group's other served versions (an owner written with an
        older version of a CRD is still the same object).
        """
        group, _, version = api_version.rpartition("/")
        for known_group, versions in self._groups():
            if known_group != group:
                continue
            for candidate in sorted(versions, key=lambda v: v != version):
                for resource in self._resources(known_group, candidate):
                    if resource.kind == kind:
                        return resource
        return None

    def get_object(self, resource: ApiResource, name: str, namespace: str | None) -> dict | None:
        """One object by name, or None when it does not exist (404)."""
        namespace = namespace if resource.namespaced else None
        path = resource.path(namespace, name)
        try:
            obj = self._get_json(path, what=f'{resource.qualified_name} "{name}"')
        except ClusterApiError as error:
            if error.status_code == 404:
                return None
            raise
        return object_answer(obj, resource.kind, resource.api_version, f"GET {path}", name)

    @staticmethod
    def _list_object(kind: str, items: builtins.list[dict[str, Any]]) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": kind, "metadata": {}, "items": items}

    def nodes(self, *, label_selector: str | None = None) -> dict:
        """All nodes as a ``NodeList`` dict (what ``kubectl get nodes -o yaml`` prints)."""
        resource = self.resolve("nodes")
        return self._list_object("NodeList", self._items(resource, None, label_selector=label_selector))

    def node_topologies(self) -> dict | None:
        """Every ``NodeResourceTopology`` as a List dict; None when the server serves no such type."""
        resource = self.resolve_kind(labels.NRT_API_VERSION, labels.NRT_KIND)
        if resource is None:
            return None
        items = self._items(resource, None)
        for item in items:
            item.setdefault("kind", resource.kind)
            item.setdefault("apiVersion", resource.api_version)
        return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}

    def dra_objects(self) -> builtins.list[dict]:
        """The ResourceSlices, DeviceClasses and ResourceClaims (every namespace) that give nodes their DRA devices.

        Empty when the server serves no ResourceSlice type or holds no slice (a cluster without DRA
        drivers): such a cluster's nodes stay without device capacity, as a NodeList file's do.
        """
        found: builtins.list[dict] = []
        for kind in (labels.DRA_SLICE_KIND, labels.DRA_DEVICE_CLASS_KIND, labels.DRA_CLAIM_KIND):
            resource = self.resolve_kind(f"{labels.DRA_GROUP}/v1", kind)
            if resource is None:
                if kind == labels.DRA_SLICE_KIND:
                    return []
                continue
            items = self._items(resource, None)
            if kind == labels.DRA_SLICE_KIND and not items:
                return []
            for item in items:
                item.setdefault("kind", resource.kind)
                item.setdefault("apiVersion", resource.api_version)
            found += items
        return found

    def pods(self, *, field_selector: str = ACTIVE_POD_SELECTOR, label_selector: str | None = None) -> dict:
        """Pods of every namespace as a ``PodList`` dict.

        By default only pods that are not finished (``status.phase!=Succeeded,status.phase!=Failed``),
        the ones using node capacity.
        """
        resource = self.resolve("pods")
        items = self._items(resource, None, label_selector=label_selector, field_selector=field_selector)
        return self._list_object("PodList", items)
