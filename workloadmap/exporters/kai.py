"""KAI Scheduler: a ``Topology`` plus PodGroups with SubGroups, or topology annotations on the workload.

KAI reads ``kai.scheduler/topology*`` annotations from the workload's top-level metadata and
applies them to every PodGroup its pod-grouper builds; PodGroup objects carry per-SubGroup
constraints too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..labels import (
    KAI_PODGROUP_API_VERSION,
    KAI_TOPOLOGY,
    KAI_TOPOLOGY_API_VERSION,
    KAI_TOPOLOGY_PREFERRED,
    KAI_TOPOLOGY_REQUIRED,
)
from ..placement import GroupPlacement, PlacementReport
from ..tree import WorkloadTree
from .common import (
    ExportRequest,
    applyable_copy,
    dns_name,
    object_metadata,
    report_levels,
    topology_object,
    workload_levels,
)
from .registry import exporter

__all__ = ["kai_topology", "kai_podgroups", "kai_annotated_workload", "export_kai", "export_kai_annotations"]


def kai_topology(levels: Sequence[str], name: str) -> dict[str, Any]:
    """A KAI ``Topology`` (``kai.scheduler/v1alpha1``, cluster-scoped) with these levels.

    Raises:
        TopologyError: no levels, more than 16, repeats, or hostname not last.
    """
    return topology_object(KAI_TOPOLOGY_API_VERSION, levels, name)


def _constraint(group: GroupPlacement, topology: str, *, always: bool) -> dict[str, str] | None:
    constraint = {"topology": topology}
    if group.required_level:
        constraint["requiredTopologyLevel"] = group.required_level
    if group.preferred_level:
        constraint["preferredTopologyLevel"] = group.preferred_level
    return constraint if always or len(constraint) > 1 else None


def _subgroups(group: GroupPlacement, topology: str) -> list[dict[str, Any]]:
    entries = []
    for sub in group.sub_groups:
        entry: dict[str, Any] = {"name": sub.name}
        if sub.min_member >= 1:
            entry["minMember"] = sub.min_member
        if sub.parent:
            entry["parent"] = sub.parent
        constraint = _constraint(sub, topology, always=False)
        if constraint:
            entry["topologyConstraint"] = constraint
        entries.append(entry)
    return entries


def kai_podgroups(
    tree: WorkloadTree, report: PlacementReport, *, topology: str, queue: str | None = None
) -> list[dict[str, Any]]:
    """KAI ``PodGroup`` objects (``scheduling.run.ai/v2alpha2``), one per gang of the report.

    ``spec.minMember`` is the gang's minMember (at least 1), ``spec.topologyConstraint`` carries the
    required and preferred levels, ``spec.subGroups`` the SubGroups with their own constraints.
    Pods join by the annotation ``pod-group-name`` and the label ``kai.scheduler/subgroup-name``,
    which whoever creates the pods must set. Pods without a gang get no PodGroup (KAI makes one
    per pod itself).
    """
    objects = []
    for group in report.pod_groups:
        if not group.gang:
            continue
        spec: dict[str, Any] = {"minMember": max(group.min_member, 1)}
        if queue:
            spec["queue"] = queue
        spec["topologyConstraint"] = _constraint(group, topology, always=True)
        subgroups = _subgroups(group, topology)
        if subgroups:
            spec["subGroups"] = subgroups
        objects.append(
            {
                "apiVersion": KAI_PODGROUP_API_VERSION,
                "kind": "PodGroup",
                "metadata": object_metadata(tree, dns_name(group.name, limit=253)),
                "spec": spec,
            }
        )
    return objects


def kai_annotated_workload(obj: Mapping[str, Any], report: PlacementReport, *, topology: str) -> dict[str, Any]:
    """A copy of the workload object with KAI topology annotations on its top-level metadata.

    KAI's pod-grouper reads ``kai.scheduler/topology``, ``…-required-placement`` and
    ``…-preferred-placement`` from the top owner only, and applies them to every PodGroup it
    builds; SubGroup constraints cannot be expressed this way (use :func:`kai_podgroups`).
    """
    result = applyable_copy(obj)
    metadata = result.setdefault("metadata", {})
    annotations = metadata.get("annotations") or {}
    metadata["annotations"] = annotations
    required, preferred = workload_levels(report)
    annotations[KAI_TOPOLOGY] = topology
    for key, value in ((KAI_TOPOLOGY_REQUIRED, required), (KAI_TOPOLOGY_PREFERRED, preferred)):
        if value:
            annotations[key] = value
        else:
            annotations.pop(key, None)
    return result


@exporter("kai")
def export_kai(request: ExportRequest) -> list[dict[str, Any]]:
    """The KAI ``Topology`` followed by one PodGroup per gang."""
    name = request.topology_name
    return [
        kai_topology(report_levels(request.report), name),
        *kai_podgroups(request.tree, request.report, topology=name, queue=request.queue),
    ]


@exporter("kai-annotations")
def export_kai_annotations(request: ExportRequest) -> list[dict[str, Any]]:
    """The KAI ``Topology`` followed by the workload annotated with its topology constraints.

    Raises:
        ValueError: the request carries no workload object.
    """
    if request.obj is None:
        raise ValueError("annotating for KAI needs the workload object")
    name = request.topology_name
    return [
        kai_topology(report_levels(request.report), name),
        kai_annotated_workload(request.obj, request.report, topology=name),
    ]
