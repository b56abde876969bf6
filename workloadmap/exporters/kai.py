"""KAI Scheduler: a ``Topology``, and the topology constraints in the form KAI honours for the workload.

KAI's pod-grouper builds the PodGroup of every pod that has an owner itself, and overwrites any
PodGroup made beforehand (``pkg/podgrouper/pod_controller.go``); it leaves alone only an ownerless
pod that names its PodGroup (``isOrphanPodWithPodGroup``). So:

- for a bare pod, ``--emit kai`` gives the ``Topology`` and the pod's ``PodGroup``;
- for an owned workload it gives the ``Topology`` and the workload with KAI's topology annotations
  on its top-level metadata (what every plugin reads), plus a note: SubGroup constraints then come
  from the workload's own fields and template annotations, which the copy keeps.

Constraints the workload already states (its annotations, Grove's fields, a Ray template's
annotations) are carried, not replaced: a gang's required and preferred levels come from its own
``topologyConstraint`` first, and the topology name it already names is kept unless the caller
chose one (``--topology-name``).
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
from ..tree import PodGroup, WorkloadTree
from .common import (
    ExportRequest,
    annotations_of,
    applyable_copy,
    default_topology_name,
    dns_name,
    object_metadata,
    report_levels,
    topology_object,
    workload_levels,
)
from .registry import exporter

__all__ = [
    "kai_topology",
    "kai_podgroups",
    "kai_annotated_workload",
    "kai_topology_name",
    "export_kai",
    "export_kai_annotations",
]

_OWNED_NOTE = (
    "{workload}: KAI's pod-grouper builds the PodGroups of pods that have an owner itself and overwrites "
    "standalone ones, so no PodGroup is emitted; apply the annotated workload (kai.scheduler/topology and "
    "…-placement on its metadata, read by every pod-grouper plugin). SubGroup constraints come from the "
    "workload's own fields and pod-template annotations, kept as written."
)
_BARE_NOTE = (
    "{workload}: a bare pod keeps the PodGroup it names; give the pod the annotation pod-group-name: {names} "
    "before creating it."
)


def kai_topology(levels: Sequence[str], name: str) -> dict[str, Any]:
    """A KAI ``Topology`` (``kai.scheduler/v1alpha1``, cluster-scoped) with these levels.

    Raises:
        TopologyError: no levels, more than 16, repeats, or hostname not last.
    """
    return topology_object(KAI_TOPOLOGY_API_VERSION, levels, name)


def kai_topology_name(tree: WorkloadTree, report: PlacementReport, chosen: str | None = None) -> str:
    """The topology the constraints name: the caller's choice, else the one the workload names, else the cluster's."""
    if chosen:
        return chosen
    named = tree.topology_annotations.get(KAI_TOPOLOGY)
    if not named:
        named = next((g.topology_constraint.topology for g in tree.pod_groups if g.topology_constraint.topology), None)
    return named or default_topology_name(report)


def _constraint(group: GroupPlacement, topology: str, *, always: bool) -> dict[str, str] | None:
    constraint = {"topology": topology}
    if group.required_level:
        constraint["requiredTopologyLevel"] = group.required_level
    if group.preferred_level:
        constraint["preferredTopologyLevel"] = group.preferred_level
    return constraint if always or len(constraint) > 1 else None


def _subgroups(group: GroupPlacement, topology: str, tree_group: PodGroup | None) -> list[dict[str, Any]]:
    """The SubGroups: a parent gated by ``minSubGroup``, a leaf by ``minMember`` (0 included), never both.

    KAI v0.17's PodGroup webhook (``podgroup_webhook.go``) refuses a SubGroup with both, a leaf
    without ``minMember`` and a parent with ``minMember``; the CRD takes a leaf's ``minMember: 0``.
    """
    gates = {sub.name: sub.min_sub_group for sub in tree_group.sub_groups} if tree_group is not None else {}
    children: dict[str, int] = {}
    for sub in group.sub_groups:
        if sub.parent is not None and sub.parent != sub.name:
            children[sub.parent] = children.get(sub.parent, 0) + 1
    entries = []
    for sub in group.sub_groups:
        entry: dict[str, Any] = {"name": sub.name}
        # A parent read from a tree without gates needs every child, as KAI before v0.15 required them.
        gate = gates.get(sub.name) or children.get(sub.name)
        if gate is not None:
            entry["minSubGroup"] = gate
        else:
            entry["minMember"] = max(sub.min_member, 0)
        if sub.parent:
            entry["parent"] = sub.parent
        constraint = _constraint(sub, topology, always=False)
        if constraint:
            entry["topologyConstraint"] = constraint
        entries.append(entry)
    return entries


def _kai_metadata(spec: dict[str, Any], group: PodGroup | None, queue: str | None) -> None:
    """Queue (the caller's, else the tree's), priority class and preemptibility as KAI would set them."""
    chosen = queue or (group.queue if group else None)
    if chosen:
        spec["queue"] = chosen
    if group is not None and group.priority_class:
        spec["priorityClassName"] = group.priority_class
    if group is not None and group.preemptibility:
        spec["preemptibility"] = group.preemptibility.value


def kai_podgroups(
    tree: WorkloadTree, report: PlacementReport, *, topology: str, queue: str | None = None
) -> list[dict[str, Any]]:
    """KAI ``PodGroup`` objects (``scheduling.run.ai/v2alpha2``), one per gang of the report.

    ``spec.minMember`` is the gang's minMember (at least 1), or ``spec.minSubGroup`` where KAI gates
    the PodGroup by its SubGroups, ``spec.topologyConstraint`` carries the
    required and preferred levels, ``spec.subGroups`` the SubGroups with their own constraints;
    queue, priority class and preemptibility are the tree's (the caller's queue wins). Such a
    PodGroup takes effect only for an ownerless pod that names it (annotation ``pod-group-name``);
    :func:`export_kai` emits them only then.
    """
    by_name = {group.name: group for group in tree.pod_groups}
    objects = []
    for group in report.pod_groups:
        if not group.gang:
            continue
        tree_group = by_name.get(group.name)
        gate = tree_group.min_sub_group if tree_group is not None else None
        # spec.minMember and spec.minSubGroup are mutually exclusive and at least 1 (v0.17 CRD and webhook).
        spec: dict[str, Any] = (
            {"minSubGroup": max(gate, 1)} if gate is not None else {"minMember": max(group.min_member, 1)}
        )
        _kai_metadata(spec, tree_group, queue)
        spec["topologyConstraint"] = _constraint(group, topology, always=True)
        subgroups = _subgroups(group, topology, tree_group)
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
    ``…-preferred-placement`` from the top owner and applies them to every PodGroup it builds.
    A level the workload already names is kept (placement took it as the gang's constraint); a
    topology name it already names is kept unless ``topology`` differs by the caller's choice.
    SubGroup constraints cannot be expressed here; the workload's own template annotations and
    fields, which the copy keeps, express them.
    """
    result = applyable_copy(obj)
    annotations = annotations_of(result)
    required, preferred = workload_levels(report)
    annotations[KAI_TOPOLOGY] = topology
    for key, value in ((KAI_TOPOLOGY_REQUIRED, required), (KAI_TOPOLOGY_PREFERRED, preferred)):
        if value:
            annotations[key] = value  # a level the workload wrote stays unless placement has one for every gang
    return result


@exporter("kai")
def export_kai(request: ExportRequest) -> list[dict[str, Any]]:
    """The KAI ``Topology``, then the bare pod's PodGroup or the annotated workload (see the module).

    Raises:
        ValueError: an owned workload without its object (the annotations go on it).
    """
    tree, report = request.tree, request.report
    name = kai_topology_name(tree, report, request.topology)
    topology = kai_topology(report_levels(report), name)
    if tree.export_hints.kai_pod_groups:
        podgroups = kai_podgroups(tree, report, topology=name, queue=request.queue)
        if podgroups:
            names = ", ".join(podgroup["metadata"]["name"] for podgroup in podgroups)
            request.notes.append(_BARE_NOTE.format(workload=tree.workload, names=names))
        return [topology, *podgroups]
    if request.obj is None:
        raise ValueError(
            f"{tree.workload}: KAI builds the PodGroups of owned pods itself; exporting for KAI needs the "
            "workload object to annotate"
        )
    request.notes.append(_OWNED_NOTE.format(workload=tree.workload))
    return [topology, kai_annotated_workload(request.obj, report, topology=name)]


@exporter("kai-annotations")
def export_kai_annotations(request: ExportRequest) -> list[dict[str, Any]]:
    """The KAI ``Topology`` followed by the workload annotated with its topology constraints.

    Raises:
        ValueError: the request carries no workload object.
    """
    if request.obj is None:
        raise ValueError("annotating for KAI needs the workload object")
    name = kai_topology_name(request.tree, request.report, request.topology)
    return [
        kai_topology(report_levels(request.report), name),
        kai_annotated_workload(request.obj, request.report, topology=name),
    ]
