"""DRA devices in placement: ResourceSlices as node capacity, pods' device claims as requests.

A cluster given ResourceSlices (:func:`~workloadmap.topology.with_devices`, re-exported here)
holds, on each node, the free devices of each DeviceClass under the class's KEP-5004 quota name
(``<class>.deviceclass.resource.k8s.io/devices``); a workload's pods then request the devices of
their own claims under the same names (:func:`device_demand`), and every rule checks them as any
other resource. Without slices, a gang whose pods ask for DRA devices is never reported as
fitting: its fit is unknown (not checked).

Named claims shared by several pods are allocated once, on the node of the first pod, and pin the
others there (KAI's "2 pods requesting node-bound device, can't schedule on same node"): their
devices are not requested per pod, and a note says they are not checked.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from ..dra.classes import DeviceKind, classify
from ..dra.slices import device_resource
from ..labels import DRA_DEVICES_RESOURCE_SUFFIX
from ..topology import Cluster, with_devices
from ..tree import Component, PodSet, SharedClaim, WorkloadTree
from .policy import component_paths, find_path, group_pod_sets

__all__ = [
    "with_devices",
    "DeviceDemand",
    "device_demand",
    "checks_devices",
    "holds_compute_domain",
    "pod_sets_hold_compute_domain",
]


def holds_compute_domain(component: Component, gpu_resources: tuple[str, ...]) -> bool:
    """Whether the component's pods hold a ComputeDomain channel (NVIDIA's IMEX channel class).

    The IMEX domain forms per NVLink clique (``nvidia.com/gpu.clique``; dra-driver-nvidia-gpu issues
    #377 and #804): pods of one ComputeDomain in different cliques cannot talk over NVLink, so
    placement requires the gang to stay in one accelerator domain.
    """
    return any(classify(name, {}, gpu_resources) is DeviceKind.CHANNEL for name in component.devices_per_pod)


def pod_sets_hold_compute_domain(
    paths: Mapping[str, Component], pod_sets: Iterable[PodSet], gpu_resources: tuple[str, ...]
) -> bool:
    """Whether some pod of ``pod_sets`` (a gang's) holds a ComputeDomain channel: its IMEX domain needs one clique."""
    for pod_set in pod_sets:
        key = find_path(paths, pod_set.component)
        if key is not None and holds_compute_domain(paths[key], gpu_resources):
            return True
    return False


def checks_devices(cluster: Cluster) -> bool:
    """Whether the cluster's nodes carry DRA device capacity (it was given ResourceSlices)."""
    return any(name.endswith(DRA_DEVICES_RESOURCE_SUFFIX) for node in cluster.nodes for name in node.allocatable)


@dataclass
class DeviceDemand:
    """The tree placement works on, and the gangs whose DRA devices it cannot check (gang -> why)."""

    tree: WorkloadTree
    unchecked: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _claim_label(claim: SharedClaim) -> str:
    if claim.pod_group is not None:
        return f"PodGroup/{claim.pod_group}'s claim {claim.name} (ResourceClaimTemplate/{claim.template})"
    return f"shared ResourceClaim/{claim.name}"


def _with_requests(component: Component) -> None:
    extra = {device_resource(name): Fraction(count) for name, count in component.devices_per_pod.items()}
    component.pod_resources = {**component.pod_resources, **extra}


def device_demand(tree: WorkloadTree, cluster: Cluster) -> DeviceDemand:
    """What placement checks of the workload's DRA devices on ``cluster``.

    With device capacity on the cluster, a copy of the tree whose pods request their own claims'
    devices; without, the tree as it is and every gang with such pods unchecked.
    """
    paths = component_paths(tree)
    asking = {path for path, component in paths.items() if component.devices_per_pod}
    notes = [
        f"{_claim_label(claim)}: allocated once for its {claim.pods} pods, which run where it is "
        "allocated; its devices are not checked per node"
        for claim in tree.shared_claims
        if claim.devices
    ]
    if not asking:
        return DeviceDemand(tree, {}, notes)
    if not checks_devices(cluster):
        why = "its pods' DRA devices are not checked: the cluster has no ResourceSlices (--resource-slices FILE)"
        if tree.pod_groups:
            unchecked = {
                group.name: why
                for group in tree.pod_groups
                if any(pod_set.component in asking for pod_set in group_pod_sets(group))
            }
        else:
            unchecked = dict.fromkeys(sorted(asking), why)
        return DeviceDemand(tree, unchecked, notes)
    placed = copy.deepcopy(tree)  # the workload as placement sees it; the tree itself is never changed
    placed_paths = component_paths(placed)
    for path in asking:
        _with_requests(placed_paths[path])
    for group in placed.pod_groups:
        for pod_set in [*group.pod_sets, *(member for sub in group.sub_groups for member in sub.pod_sets)]:
            component = placed_paths.get(pod_set.component)
            if component is not None and component.devices_per_pod:
                extra = {device_resource(name): Fraction(count) for name, count in component.devices_per_pod.items()}
                pod_set.pod_resources = {**pod_set.pod_resources, **extra}
    return DeviceDemand(placed, {}, notes)
