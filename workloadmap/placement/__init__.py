"""Placement: which topology domains hold each gang of a workload, and where Kueue or KAI puts its pods.

``packing`` holds the primitives (requests, free vectors, capacities); ``search`` the exact search
for mixed shapes (with ``relaxation``), ``fitting`` whether pods fit nodes (heuristics, then the
search); ``index`` reduces a cluster to node types and domain signatures and evaluates pod shapes
against every level; ``policy`` says which pods a gang holds and which levels are required;
``analysis`` runs that per PodGroup and SubGroup on the cluster as given. ``nodes`` holds the
nodes a scheduler may use as a tree of domains whose free resources placements consume (with
``numa_fit``, the kubelet's NUMA admission as its last filter). ``rules`` is the protocol of a
scheduler's choice rule; ``kueue_rule`` (on ``kueue_requests``, ``kueue_tas``, ``kueue_search``,
``kueue_balanced``) and ``kai_rule`` (on ``kai_tas``) implement it, and ``schedulers`` is their
table (``POLICIES``). ``settle`` builds each report once from the analysis and a rule's decisions;
``schedule`` places workloads in turn; ``placer`` is the entry point; ``report`` holds the
results; ``picture`` the data a picture of a placement shows.
"""

from .analysis import GangFit, WorkloadAnalysis
from .devices import checks_devices, with_devices
from .fitting import DEFAULT_BUDGET, pack_pods, pods_fit
from .kueue_model import KueueRequest, SliceLayer
from .kueue_requests import kueue_pod_sets, kueue_requests
from .packing import UNLIMITED, node_capacity
from .picture import MAX_NODES_DRAWN, DomainView, GangView, NodeView, PlacementMap, placement_map
from .placer import (
    FailedWorkload,
    ManyPlacements,
    PlacedWorkload,
    Placement,
    place,
    place_many,
    place_on,
    place_together,
    rank_clusters,
)
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
from .rules import Decision, Decisions, RuleOptions, SchedulerRule
from .schedulers import DEFAULT_POLICY, POLICIES, SchedulerPolicy

__all__ = [
    "with_devices",
    "checks_devices",
    "placement_map",
    "MAX_NODES_DRAWN",
    "PlacementMap",
    "DomainView",
    "GangView",
    "NodeView",
    "place",
    "place_together",
    "rank_clusters",
    "place_on",
    "place_many",
    "Placement",
    "PlacedWorkload",
    "FailedWorkload",
    "ManyPlacements",
    "LevelOption",
    "PlacementReport",
    "JointPlacement",
    "GroupPlacement",
    "Verdict",
    "Assignment",
    "NodePods",
    "POLICIES",
    "DEFAULT_POLICY",
    "SchedulerPolicy",
    "SchedulerRule",
    "Decision",
    "Decisions",
    "RuleOptions",
    "GangFit",
    "WorkloadAnalysis",
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
