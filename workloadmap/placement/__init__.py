"""Placement: which topology domains hold each gang of a workload, and where Kueue or KAI puts its pods.

``packing`` decides whether pods fit onto nodes; ``index`` reduces a cluster to node types and
domain signatures and evaluates pod shapes against every level; ``policy`` says which pods a gang
holds and which levels are required; ``analysis`` runs that per PodGroup and SubGroup on the
cluster as given. ``nodes`` holds the nodes a scheduler may use as a tree of domains whose free
resources placements consume; ``kueue_tas`` (with ``kueue_balanced``) and ``kai_tas`` are the
two schedulers' choice rules, ``kueue_requests`` the PodSets and requests Kueue sees;
``schedule`` places workloads in turn by one of them; ``placer`` is the entry point; ``report``
holds the results; ``picture`` the data a picture of a placement shows.
"""

from .kueue_model import KueueRequest, SliceLayer
from .kueue_requests import kueue_pod_sets, kueue_requests
from .packing import DEFAULT_BUDGET, UNLIMITED, node_capacity, pack_pods, pods_fit
from .picture import DomainView, GangView, NodeView, PlacementMap, placement_map
from .placer import Placement, place, place_on, place_together, rank_clusters
from .policy import LevelOption, component_paths, group_pod_sets, subgroup_pod_sets
from .report import (
    Assignment,
    ClusterFit,
    ClusterRanking,
    ClusterUnfit,
    GroupPlacement,
    JointPlacement,
    LevelFit,
    NodePods,
    PlacementReport,
    SliceFit,
    TopologyRef,
    Verdict,
)
from .schedule import POLICIES

__all__ = [
    "placement_map",
    "PlacementMap",
    "DomainView",
    "GangView",
    "NodeView",
    "place",
    "place_together",
    "rank_clusters",
    "place_on",
    "Placement",
    "LevelOption",
    "PlacementReport",
    "JointPlacement",
    "GroupPlacement",
    "Verdict",
    "Assignment",
    "NodePods",
    "POLICIES",
    "KueueRequest",
    "SliceLayer",
    "kueue_requests",
    "kueue_pod_sets",
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
