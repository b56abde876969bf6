"""Read-only access to a live Kubernetes API server (GET requests only).

``client`` resolves kubectl-style resource references through discovery and reads objects, lists,
nodes and pods; ``objects`` finds the objects a workload references; ``kartas`` lists the
cluster's Karta definitions. This stage depends on
nothing above it: the topology and the command line call into it, never the other way round.
The ``kubernetes`` client package is imported only when a client is created.
"""

from .client import ACTIVE_POD_SELECTOR, DEFAULT_TIMEOUT, ClusterClient
from .kartas import cluster_kartas
from .objects import ClusterObjects
from .resources import ApiResource, parse_resource_ref

__all__ = [
    "ClusterClient",
    "ClusterObjects",
    "ApiResource",
    "parse_resource_ref",
    "DEFAULT_TIMEOUT",
    "ACTIVE_POD_SELECTOR",
    "cluster_kartas",
]
