"""Owner lookups with a per-call cache, and the events of a namespace.

:class:`OwnerCache` answers "which object is this owner reference?" for pod attribution. The
first miss for a kind in a namespace lists that kind there once (one paged LIST instead of one
GET per owner); when listing is forbidden it falls back to GET by name. Objects already read
(the pods of the namespace) can be added so they are never fetched again.

:func:`list_events` lists Events from ``events.k8s.io/v1`` and falls back to the core ``v1``
Events where that API is not served or not readable, as ``kubectl events`` does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ClusterApiError
from ..labels import CORE_EVENTS_API_VERSION, EVENTS_API_VERSION
from .client import ClusterClient
from .resources import ApiResource

__all__ = ["OwnerCache", "list_events"]


class OwnerCache:
    """Owner objects by UID, fetched at most once per kind and namespace.

    Args:
        client: the :class:`~workloadmap.kube.client.ClusterClient`.
        chunk_size: page size of the lists.
        cluster_wide: list each owner kind once across all namespaces (for pods of every
            namespace, as ``get -A`` reads them) instead of once per namespace.

    Attributes:
        lists: ``(apiVersion, kind, namespace)`` of every LIST sent (for tests and figures).
    """

    def __init__(self, client: ClusterClient, *, chunk_size: int | None = None, cluster_wide: bool = False) -> None:
        self.client = client
        self.chunk_size = chunk_size
        self.cluster_wide = cluster_wide
        self.by_uid: dict[str, dict[str, Any]] = {}
        self._listed: set[tuple[str, str, str | None]] = set()
        self._get_only: set[tuple[str, str]] = set()
        self.lists: list[tuple[str, str, str | None]] = []

    def add(self, objects: Iterable[Mapping[str, Any]]) -> None:
        """Remember objects already read (their UIDs answer lookups without a request)."""
        for obj in objects:
            uid = (obj.get("metadata") or {}).get("uid")
            if uid:
                self.by_uid[str(uid)] = dict(obj)

    def owner(self, namespace: str | None, reference: Mapping[str, Any]) -> dict[str, Any] | None:
        """The object an owner reference names, or None when it is gone or of a kind the server does not serve."""
        uid = str(reference.get("uid") or "")
        if uid in self.by_uid:
            return self.by_uid[uid]
        api_version, kind, name = reference.get("apiVersion"), reference.get("kind"), reference.get("name")
        if not isinstance(api_version, str) or not isinstance(kind, str) or not isinstance(name, str):
            return None
        resource = self.client.resolve_kind(api_version, kind)
        if resource is None:
            return None
        scope = namespace if resource.namespaced else None
        listed_scope = None if self.cluster_wide else scope
        kind_key = (resource.api_version, resource.kind)
        if kind_key not in self._get_only and (*kind_key, listed_scope) not in self._listed:
            self._listed.add((*kind_key, listed_scope))
            self._list(resource, listed_scope)
        if kind_key not in self._get_only:
            return self.by_uid.get(uid)
        obj = self.client.get_object(resource, name, scope)
        if obj is None or str((obj.get("metadata") or {}).get("uid") or "") != uid:
            return None  # gone, or replaced by a new object of the same name
        self.by_uid[uid] = obj
        return obj

    def _list(self, resource: ApiResource, namespace: str | None) -> None:
        self.lists.append((resource.api_version, resource.kind, namespace))
        try:
            items, _ = self.client.list_with_version(resource, namespace, chunk_size=self.chunk_size)
        except ClusterApiError as error:
            if error.status_code == 403:  # may GET but not LIST: ask for each owner by name
                self._get_only.add((resource.api_version, resource.kind))
                return
            raise
        self.add(items)


def list_events(
    client: ClusterClient, namespace: str | None, *, chunk_size: int | None = None
) -> tuple[str, list[dict]]:
    """The Events of ``namespace`` (None: all) and the API version they came from.

    ``events.k8s.io/v1`` when served and readable, else core ``v1`` (an old server, or RBAC that
    grants only the core Events). Returns ``("", [])`` when neither can be read.
    """
    for api_version in (EVENTS_API_VERSION, CORE_EVENTS_API_VERSION):
        resource = client.resolve_kind(api_version, "Event")
        if resource is None:
            continue
        try:
            items, _ = client.list_with_version(
                resource, client.scope(resource, namespace, namespace is None), chunk_size=chunk_size
            )
        except ClusterApiError as error:
            if error.status_code in (403, 404):
                continue
            raise
        return resource.api_version, items
    return "", []
