"""Demand: a compact summary of each gang's pods and resources, for a multi-cluster placer (Nova)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ..labels import DEMAND_API_VERSION
from ..placement import GroupPlacement, PlacementReport, component_paths, group_pod_sets
from ..quantities import format_resources
from ..resources import add_resources, count_gpus
from ..tree import PodSet, WorkloadTree
from ..values import as_number
from .common import ExportRequest, dns_name
from .registry import exporter

__all__ = ["demand", "export_demand"]


def _entry(
    name: str, min_member: int, pod_sets: Sequence[PodSet], group: GroupPlacement | None, gang: bool, tree: WorkloadTree
) -> tuple[dict[str, Any], dict[str, Fraction]]:
    total: dict[str, Fraction] = {}
    shapes = []
    for pod_set in pod_sets:
        add_resources(total, pod_set.pod_resources, pod_set.count)
        shapes.append(
            {
                "component": pod_set.component,
                "count": pod_set.count,
                "resources": format_resources(pod_set.pod_resources),
            }
        )
    entry = {
        "name": name,
        "gang": gang,
        "pods": sum(pod_set.count for pod_set in pod_sets),
        "minMember": min_member,
        "podShapes": shapes,
        "gpus": as_number(count_gpus(total, tree.gpu_resources)),
        "resources": format_resources(total),
        "requiredLevel": group.required_level if group else None,
        "preferredLevel": group.preferred_level if group else None,
        "fits": group.fits if group else None,
        "verdict": group.verdict.value if group else None,
    }
    return entry, total


def demand(tree: WorkloadTree, report: PlacementReport | None = None) -> list[dict[str, Any]]:
    """Compact resource demand per gang for a multi-cluster placer (one summary document).

    Each gang lists its pods, per-pod shapes, total GPUs and resources, and (with a report) the
    required level and the tightest level that holds it (``preferredLevel``; null = the whole
    cluster). Pods without a gang appear as one entry per component with ``gang: false``. GPUs
    are counted from the resource names the tree was inspected with.
    """
    placed = {group.name: group for group in report.pod_groups} if report else {}
    entries: list[tuple[dict[str, Any], dict[str, Fraction]]] = []
    if tree.pod_groups:
        for group in tree.pod_groups:
            entries.append(
                _entry(group.name, group.min_member, group_pod_sets(group), placed.get(group.name), True, tree)
            )
    else:
        for path, component in component_paths(tree).items():
            pods = component.concurrent_pods
            if component.has_pod_template and pods > 0:
                pod_set = PodSet(component=path, count=pods, pod_resources=component.pod_resources)
                entries.append(_entry(path, 1, [pod_set], placed.get(path), False, tree))
    total: dict[str, Fraction] = {}
    for _, resources in entries:
        add_resources(total, resources)
    gangs = [entry for entry, _ in entries]
    document: dict[str, Any] = {
        "apiVersion": DEMAND_API_VERSION,
        "kind": "WorkloadDemand",
        "metadata": (
            {"generateName": tree.workload.name}
            if tree.workload.generate_name
            else {"name": dns_name(tree.workload.name, limit=253)}
        ),
        "workload": tree.workload.to_dict(),
        "gangs": gangs,
        "totals": {
            "pods": sum(entry["pods"] for entry in gangs),
            "gpus": as_number(count_gpus(total, tree.gpu_resources)),
            "resources": format_resources(total),
        },
    }
    if tree.workload.namespace:
        document["metadata"]["namespace"] = tree.workload.namespace
    if report is not None:
        document["topology"] = report.topology.to_dict()
        document["fits"] = report.fits
        document["verdict"] = report.verdict.value
    return [document]


@exporter("demand")
def export_demand(request: ExportRequest) -> list[dict[str, Any]]:
    """One ``WorkloadDemand`` document."""
    return demand(request.tree, request.report)
