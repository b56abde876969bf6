"""Placement: which topology domains hold each gang of a workload, on one cluster or ranked across many.

``packing`` decides whether pods fit onto nodes; ``index`` reduces a cluster to node types and
domain signatures and evaluates pod shapes against every level; ``policy`` says which pods a gang
holds and which levels are required; ``placer`` runs it per PodGroup and SubGroup; ``report``
holds the results.
"""

from .packing import DEFAULT_BUDGET, UNLIMITED, node_capacity, pack_pods, pods_fit
from .placer import Placement, place, place_on, rank_clusters
from .policy import LevelOption, component_paths, group_pod_sets, subgroup_pod_sets
from .report import (
    ClusterFit,
    ClusterRanking,
    ClusterUnfit,
    GroupPlacement,
    LevelFit,
    PlacementReport,
    SliceFit,
    TopologyRef,
)

__all__ = [
    "place",
    "rank_clusters",
    "place_on",
    "Placement",
    "LevelOption",
    "PlacementReport",
    "GroupPlacement",
    "LevelFit",
    "SliceFit",
    "TopologyRef",
    "ClusterFit",
    "ClusterUnfit",
    "ClusterRanking",
    "component_paths",
    "group_pod_sets",
    "subgroup_pod_sets",
    "node_capacity",
    "pack_pods",
    "pods_fit",
    "UNLIMITED",
    "DEFAULT_BUDGET",
]
