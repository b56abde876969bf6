"""Read-only access to a live Kubernetes API server (GET, LIST and WATCH requests only).

``client`` resolves kubectl-style resource references through discovery and reads objects, paged
lists, nodes and pods; ``config`` finds the connection (a kubeconfig, or the pod's service account
in a pod); ``watch`` lists then watches a resource type, reconnecting and relisting as an informer
does; ``owners`` looks owner references up with a per-call cache and lists Events; ``objects``
finds the objects a workload references; ``kartas`` lists the cluster's Karta definitions. This
stage depends on nothing above ``errors`` (and the vocabulary): the topology, the live stage and
the command line call into it, never the other way round. The ``kubernetes`` client package is
imported only when a client is created.
"""

from .client import ACTIVE_POD_SELECTOR, DEFAULT_TIMEOUT, PAGE_SIZE, ClusterClient
from .config import SERVICE_ACCOUNT_DIR, in_cluster_available
from .kartas import cluster_kartas
from .objects import ClusterObjects
from .owners import OwnerCache, list_events
from .resources import ApiResource, parse_resource_ref
from .watch import ADDED, DELETED, MODIFIED, QUEUED_EVENTS, SYNCED, ListWatch, WatchEvent, watch_all

__all__ = [
    "ClusterClient",
    "ClusterObjects",
    "ApiResource",
    "parse_resource_ref",
    "DEFAULT_TIMEOUT",
    "PAGE_SIZE",
    "ACTIVE_POD_SELECTOR",
    "cluster_kartas",
    "SERVICE_ACCOUNT_DIR",
    "in_cluster_available",
    "OwnerCache",
    "list_events",
    "ListWatch",
    "watch_all",
    "WatchEvent",
    "ADDED",
    "MODIFIED",
    "DELETED",
    "SYNCED",
    "QUEUED_EVENTS",
]
