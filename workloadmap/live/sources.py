"""Where describe's live objects come from: the API server (GET/LIST only) or ``kubectl get -o yaml`` dumps.

:func:`from_cluster` lists the namespace's pods, looks owners up through a per-call
:class:`~workloadmap.kube.OwnerCache`, lists the Events (``events.k8s.io/v1``, else ``v1``) and
the nodes, and Kueue's Workloads where Kueue is served. What cannot be read (Events or nodes
forbidden by RBAC) becomes a warning, not a failure. :func:`from_dumps` does the same from
objects already loaded: pods, the intermediate owners (Jobs, StatefulSets, ReplicaSets ...),
Events, Kueue Workloads, and a NodeList.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .. import labels
from ..errors import ClusterApiError, UnknownResourceTypeError
from ..kube import ClusterClient, OwnerCache, list_events
from .describe import LiveObjects
from .kueue import is_kueue_workload
from .owners import ObjectsByUid, OwnerChains

__all__ = ["from_cluster", "from_dumps"]


def from_cluster(
    client: ClusterClient,
    namespace: str | None,
    *,
    chunk_size: int | None = None,
    events: bool = True,
    nodes: bool = True,
) -> LiveObjects:
    """The pods, owners, Events and nodes of ``namespace`` (None: every namespace), read from the cluster."""
    pods_resource = client.resolve("pods")
    pods, _ = client.list_with_version(pods_resource, namespace, chunk_size=chunk_size)
    owners = OwnerCache(client, chunk_size=chunk_size, cluster_wide=namespace is None)
    owners.add(pods)
    live = LiveObjects(pods=pods, owners=owners, chains=OwnerChains(owners))
    if events:
        try:
            api, items = list_events(client, namespace, chunk_size=chunk_size)
        except ClusterApiError as error:
            live.warnings.append(f"events not read: {error}")
        else:
            live.events_api, live.events = api or None, items
            if not api:
                live.warnings.append("events not read: neither events.k8s.io/v1 nor v1 Events can be listed")
    try:
        resource = client.resolve(labels.KUEUE_WORKLOADS_RESOURCE)
        live.kueue_workloads, _ = client.list_with_version(resource, namespace, chunk_size=chunk_size)
    except UnknownResourceTypeError:
        pass  # Kueue not installed: no Kueue Workloads, no QUEUE column
    except ClusterApiError as error:
        live.warnings.append(f"Kueue Workloads not read: {error}")
    if nodes:
        try:
            live.nodes = client.nodes()["items"]
        except ClusterApiError as error:
            live.warnings.append(f"nodes not read, no placement audit: {error}")
    return live


def from_dumps(objects: Iterable[Mapping[str, Any]], nodes: Iterable[Mapping[str, Any]] | None) -> LiveObjects:
    """Live objects from dumps: ``objects`` holds pods, their owners and Events; ``nodes`` the Nodes."""
    everything = list(objects)
    pods = [obj for obj in everything if obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1"]
    events = [obj for obj in everything if obj.get("kind") == "Event"]
    apis = sorted({str(obj.get("apiVersion")) for obj in events})
    owners = ObjectsByUid(everything)
    queued = [obj for obj in everything if is_kueue_workload(obj)]
    return LiveObjects(
        pods=pods,
        owners=owners,
        events=events,
        events_api=",".join(apis) or None,
        nodes=list(nodes) if nodes is not None else None,
        chains=OwnerChains(owners),
        kueue_workloads=queued or None,
    )
