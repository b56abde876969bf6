"""``workload``: the workload's gangs as Kubernetes' own Workload API objects, and the workload joined to them.

For each PodGroup of the tree, kube-scheduler's native objects (kubernetes/api ``scheduling/*/types.go``):

* a ``Workload`` whose ``spec.controllerRef`` names the workload, with one pod group template per
  distinct gang shape (``schedulingPolicy`` ``gang: {minCount}`` for a gang, ``basic: {}`` for a
  group of minimum 1; at most 8, ``WorkloadMaxPodGroupTemplates``) and its
  ``schedulingConstraints.topology[].key`` (v1alpha2 and later);
* one runtime ``PodGroup`` per gang (v1alpha2 and later), naming its template
  (``spec.podGroupTemplateRef.workload`` in v1alpha2, ``spec.workloadRef`` from 1.37) and copying
  its policy and constraints, as the Job controller's ``podGroupSpecFromTemplate`` does;
* the workload with every pod template of a gang joined to its PodGroup
  (``spec.schedulingGroup.podGroupName``), written through :func:`~workloadmap.alter.alter`.

v1alpha1 (1.35) has no PodGroup objects: its Workload lists ``spec.podGroups`` and the pod templates
join with ``spec.workloadRef {name, podGroup}``; it has no topology constraints either.

The topology key is the gang's required level, else the level of the domain the placement chose
(not the hostname: a gang is not pinned to one node for a preference). SubGroups have no flat
native counterpart (a CompositePodGroup nests PodGroups, not parts of one gang): they are left out
and a note says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..alter import Changes, alter
from ..errors import PlacementError
from ..labels import (
    HOSTNAME,
    NATIVE_DEFAULT_VERSION,
    NATIVE_POD_GROUP_KIND,
    NATIVE_VERSIONS,
    NATIVE_WORKLOAD_KIND,
    SCHEDULING_GROUP,
)
from ..placement import GroupPlacement, group_pod_sets
from ..tree import PodGroup, WorkloadTree
from .common import ExportRequest, applyable_copy, dns_name, object_metadata
from .registry import exporter

__all__ = ["export_workload", "native_objects", "MAX_TEMPLATES"]

MAX_TEMPLATES = 8
"""``WorkloadMaxPodGroupTemplates``: pod group templates one Workload holds."""

_Shape = tuple[int, str | None]


def _key(group: GroupPlacement) -> str | None:
    """The gang's topology key: its required level, else the chosen domain's level (never the hostname)."""
    if group.required_level:
        return group.required_level
    assignment = group.assignment
    if assignment is not None and assignment.level and assignment.level != HOSTNAME and assignment.domain:
        return assignment.level
    return None


def _policy(min_member: int) -> dict[str, Any]:
    return {"gang": {"minCount": min_member}} if min_member > 1 else {"basic": {}}


def _constraints(key: str | None) -> dict[str, Any] | None:
    return {"topology": [{"key": key}]} if key else None


def native_objects(tree: WorkloadTree, placements: Mapping[str, GroupPlacement], version: str) -> list[dict[str, Any]]:
    """The Workload (and its PodGroups) describing the tree's gangs natively in ``version``.

    Raises:
        ValueError: ``version`` is not a version of the Workload API.
        PlacementError: the workload has no gang, or more gang shapes than a Workload holds templates.
    """
    if version not in NATIVE_VERSIONS:
        raise ValueError(f"--api-version {version!r} is not one of {', '.join(NATIVE_VERSIONS)} ({SCHEDULING_GROUP})")
    if not tree.pod_groups:
        raise PlacementError(f"{tree.workload} has no gang: its pods are placed one by one, no Workload describes them")
    api_version = f"{SCHEDULING_GROUP}/{version}"
    workload_name = dns_name(tree.workload.name, limit=253)
    shapes: dict[_Shape, str] = {}
    for group in tree.pod_groups:
        shape = (group.min_member, _key(placements[group.name]) if group.name in placements else None)
        if shape not in shapes:
            shapes[shape] = dns_name(f"{tree.workload.name}-pgt-{len(shapes)}")
    if len(shapes) > MAX_TEMPLATES:
        raise PlacementError(
            f"{tree.workload}: {len(shapes)} distinct gangs, a Workload holds at most {MAX_TEMPLATES} pod group"
            " templates"
        )
    group_version, _, _ = tree.workload.api_version.rpartition("/")
    spec: dict[str, Any] = {
        "controllerRef": {"apiGroup": group_version, "kind": tree.workload.kind, "name": tree.workload.name}
    }
    if not group_version:
        del spec["controllerRef"]["apiGroup"]
    if version == "v1alpha1":
        spec["podGroups"] = [
            {"name": dns_name(group.name), "policy": _policy(group.min_member)} for group in tree.pod_groups
        ]
        return [_object(api_version, NATIVE_WORKLOAD_KIND, tree, workload_name, spec)]
    templates = []
    for (min_member, key), name in shapes.items():
        template: dict[str, Any] = {"name": name, "schedulingPolicy": _policy(min_member)}
        if key:
            template["schedulingConstraints"] = _constraints(key)
        templates.append(template)
    spec["podGroupTemplates"] = templates
    objects = [_object(api_version, NATIVE_WORKLOAD_KIND, tree, workload_name, spec)]
    for group in tree.pod_groups:
        shape = (group.min_member, _key(placements[group.name]) if group.name in placements else None)
        objects.append(_pod_group(api_version, version, tree, group, workload_name, shapes[shape], shape))
    return objects


def _object(api_version: str, kind: str, tree: WorkloadTree, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": object_metadata(tree, name), "spec": spec}


def _pod_group(
    api_version: str, version: str, tree: WorkloadTree, group: PodGroup, workload: str, template: str, shape: _Shape
) -> dict[str, Any]:
    if version == "v1alpha2":
        spec: dict[str, Any] = {
            "podGroupTemplateRef": {"workload": {"workloadName": workload, "podGroupTemplateName": template}}
        }
    else:  # 1.37: PodGroupSpec.workloadRef
        spec = {"workloadRef": {"workloadName": workload, "templateName": template}}
    spec["schedulingPolicy"] = _policy(shape[0])
    if shape[1]:
        spec["schedulingConstraints"] = _constraints(shape[1])
    return _object(api_version, NATIVE_POD_GROUP_KIND, tree, pod_group_name(group), spec)


def pod_group_name(group: PodGroup) -> str:
    """The native PodGroup's name for a gang of the tree (a DNS subdomain)."""
    return dns_name(group.name, limit=253)


def _joined(request: ExportRequest, version: str) -> dict[str, Any]:
    """The workload with each gang's pod templates naming its PodGroup (through ``alter``).

    Raises:
        PlacementError: one pod template feeds several gangs (it can name only one PodGroup).
    """
    assert request.obj is not None
    owners: dict[str, list[str]] = {}
    for group in request.tree.pod_groups:
        for pod_set in group_pod_sets(group):
            owners.setdefault(pod_set.component, [])
            if group.name not in owners[pod_set.component]:
                owners[pod_set.component].append(group.name)
    shared = {component: names for component, names in owners.items() if len(names) > 1}
    if shared:
        component, names = next(iter(shared.items()))
        raise PlacementError(
            f"{request.tree.workload}: the pod template of {component} feeds gangs {', '.join(names)}; a template names"
            " one PodGroup (spec.schedulingGroup), so the operator must name them per replica"
        )
    obj: Mapping[str, Any] = request.obj
    groups = {group.name: group for group in request.tree.pod_groups}
    workload = dns_name(request.tree.workload.name, limit=253)
    for component, (name,) in owners.items():
        if version == "v1alpha1":  # the Workload's pod group, by spec.workloadRef
            changes = Changes(workload_ref=(workload, dns_name(name)))
        else:
            changes = Changes(scheduling_group=pod_group_name(groups[name]))
        obj = alter(obj, changes, component=component, catalog=request.catalog).object
    return applyable_copy(obj)


@exporter("workload")
def export_workload(request: ExportRequest) -> list[dict[str, Any]]:
    """The native Workload and PodGroups of the workload's gangs, then the workload joined to them (see the module).

    Raises:
        ValueError: an unknown ``--api-version``.
        PlacementError: no gang, too many gang shapes, or a pod template shared by several gangs.
    """
    tree = request.tree
    version = request.api_version or NATIVE_DEFAULT_VERSION
    if tree.workload.api_version.split("/")[0] == SCHEDULING_GROUP:
        return []  # the Workload API's own objects travel with the workload: nothing to describe
    placements = {group.name: group for group in request.report.pod_groups}
    objects = native_objects(tree, placements, version)
    if any(group.sub_groups for group in tree.pod_groups):
        request.notes.append(
            f"{tree.workload}: SubGroups have no native counterpart inside one PodGroup; only the PodGroups are written"
        )
    if version == "v1alpha1" and any(_key(group) for group in placements.values()):
        request.notes.append(
            f"{tree.workload}: v1alpha1 has no topology constraints; the gangs' levels are not written"
        )
    if request.obj is None:
        request.notes.append(f"{tree.workload}: without the workload object its pod templates are not joined")
        return objects
    return [*objects, _joined(request, version)]
