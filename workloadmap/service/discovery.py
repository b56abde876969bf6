"""Which resource types the service watches, found through API discovery (and found again periodically).

Every kind a definition of the catalog covers that the API server serves (its first listed version,
else another version of the group: :meth:`~workloadmap.kube.ClusterClient.resolve_kind`), plus
Pods, Nodes, Events (``events.k8s.io/v1``, else core ``v1``) and the cluster's Kartas, and the
owner kinds met on pods' owner chains (Grove's PodCliques, Knative's Revisions), those only in
an API group some definition names: the ClusterRole :func:`~.rbac.cluster_role` grants exactly
those groups. Discovery is asked again at every resync, so a CRD installed later is watched from
then on, and one removed stops being watched.
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import labels
from ..catalog import Catalog
from ..errors import UnknownResourceTypeError
from ..kube import ApiResource, ClusterClient
from .cache import Role
from .watchers import WatchSpec

__all__ = ["wanted_watches", "catalog_groups", "owner_resource"]


def catalog_groups(catalog: Catalog) -> set[str]:
    """The API groups some definition covers a kind of (``""``: the core group)."""
    return {definition.group for definition in catalog}


def _api_version(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


def owner_resource(client: ClusterClient, group: str, kind: str) -> ApiResource | None:
    """The served resource type of an owner kind (any served version of its group), or None."""
    return client.resolve_kind(f"{group}/" if group else "v1", kind)


def wanted_watches(
    client: ClusterClient, catalog: Catalog, owner_kinds: Iterable[tuple[str, str]] = ()
) -> dict[tuple[str, str], WatchSpec]:
    """Every resource type to watch now, by ``(group, plural)``, discovery asked afresh.

    Raises:
        ClusterError: discovery itself failed (the server is unreachable, or refuses it).
    """
    client.forget_discovery()
    specs: dict[tuple[str, str], WatchSpec] = {}

    def add(resource: ApiResource | None, role: str) -> None:
        if resource is not None:
            specs.setdefault((resource.group, resource.plural), WatchSpec(resource, role))

    add(client.resolve_kind("v1", "Pod"), Role.PODS)
    add(client.resolve_kind("v1", "Node"), Role.NODES)
    add(
        client.resolve_kind(labels.EVENTS_API_VERSION, "Event")
        or client.resolve_kind(labels.CORE_EVENTS_API_VERSION, "Event"),
        Role.EVENTS,
    )
    add(client.resolve_kind(labels.KARTA_API_VERSION, labels.KARTA_KIND), Role.KARTAS)
    for definition in catalog:
        if definition.group == "" and definition.kind == "Pod":
            continue
        add(
            client.resolve_kind(_api_version(definition.group, definition.versions[0]), definition.kind), Role.WORKLOADS
        )
    groups = catalog_groups(catalog)
    for group, kind in owner_kinds:
        if group in groups and group:
            try:
                add(owner_resource(client, group, kind), Role.OWNERS)
            except UnknownResourceTypeError:
                continue
    return specs
