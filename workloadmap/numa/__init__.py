"""NUMA: inside the node, what the kubelet's topology manager admits and where it puts resources.

``pod`` holds what a pod asks (QoS class by the API's rule, containers, exclusive CPUs under the
static CPU manager); ``layout`` a node's NUMA zones as a ``NodeResourceTopology`` object gives them,
with the topology manager's policy and scope; ``hints`` the hint providers (CPU, memory and device
manager) and the zone state they read; ``policies`` merges hints by policy; ``admission`` the scopes, the
allocation and pods admitted one after another; ``rejections`` says why a pod is rejected and what
would make it fit. See docs/numa.md.
"""

# The submodules load on first use: the interpreter needs only ``pod`` (a pod's QoS class and NUMA
# demand), and admission, hints, merge and explain cost a cold start of ``wmap inspect`` ~10 ms.
from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

if TYPE_CHECKING:
    from .admission import (
        ADMISSION_ERROR,
        NOT_STARTED,
        TOPOLOGY_AFFINITY_ERROR,
        Admission,
        ContainerAffinity,
        admit,
        admit_pods,
        admitted_count,
    )
    from .hints import Hint, ZoneState, count_hints, iterate_masks, mask_of
    from .layout import (
        DEFAULT_MAX_ALLOWABLE_NUMA_NODES,
        NumaLayout,
        TopologyManager,
        TopologyManagerPolicy,
        TopologyManagerScope,
        Zone,
        ZoneResource,
        is_device_resource,
    )
    from .pod import ContainerDemand, ContainerKind, PodNuma, QosClass, pod_numa, qos_class
    from .policies import filter_provider_hints, merge, merge_hints
    from .rejections import Rejection, demands, explain

_LAZY = {
    **dict.fromkeys(
        (
            "ADMISSION_ERROR",
            "NOT_STARTED",
            "TOPOLOGY_AFFINITY_ERROR",
            "Admission",
            "ContainerAffinity",
            "admit",
            "admit_pods",
            "admitted_count",
        ),
        ".admission",
    ),
    **dict.fromkeys(("Rejection", "demands", "explain"), ".rejections"),
    **dict.fromkeys(("Hint", "ZoneState", "count_hints", "iterate_masks", "mask_of"), ".hints"),
    **dict.fromkeys(
        (
            "DEFAULT_MAX_ALLOWABLE_NUMA_NODES",
            "NumaLayout",
            "TopologyManager",
            "TopologyManagerPolicy",
            "TopologyManagerScope",
            "Zone",
            "ZoneResource",
            "is_device_resource",
        ),
        ".layout",
    ),
    **dict.fromkeys(("filter_provider_hints", "merge", "merge_hints"), ".policies"),
    **dict.fromkeys(("ContainerDemand", "ContainerKind", "PodNuma", "QosClass", "pod_numa", "qos_class"), ".pod"),
}


__all__ = [
    "QosClass",
    "ContainerKind",
    "ContainerDemand",
    "PodNuma",
    "pod_numa",
    "qos_class",
    "TopologyManagerPolicy",
    "TopologyManagerScope",
    "TopologyManager",
    "DEFAULT_MAX_ALLOWABLE_NUMA_NODES",
    "Zone",
    "ZoneResource",
    "NumaLayout",
    "is_device_resource",
    "Hint",
    "ZoneState",
    "count_hints",
    "iterate_masks",
    "mask_of",
    "filter_provider_hints",
    "merge_hints",
    "merge",
    "Admission",
    "ContainerAffinity",
    "admit",
    "admit_pods",
    "admitted_count",
    "TOPOLOGY_AFFINITY_ERROR",
    "ADMISSION_ERROR",
    "NOT_STARTED",
    "Rejection",
    "explain",
    "demands",
]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
