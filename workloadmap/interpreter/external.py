"""PodGroups a user made: a workload KAI's pod-grouper skips (``kai.scheduler/skip-podgrouper``).

KAI v0.15+ (#1552, ``pkg/podgrouper/pod_controller.go``) makes no PodGroup for a pod that carries
``kai.scheduler/skip-podgrouper: "true"``, or any of whose owners does (only the exact string
``"true"``: ``pod_controller_test.go`` TestShouldSkipPodGrouper, TestReconcileSkipsAnnotatedOwner,
TestReconcileDoesNotSkipOnFalseAnnotationValue). Its pods join the PodGroup their ``pod-group-name``
annotation names, and the SubGroup their ``kai.scheduler/subgroup-name`` label names (KAI's
docs/batch "External PodGroups"). wmap reads those PodGroups from the input or ``--related``
objects; one it is not given is a warning, and the workload then has no PodGroup of wmap's making.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..labels import KAI_POD_GROUP_NAME, KAI_PODGROUP_API_VERSION, KAI_SKIP_PODGROUPER, KAI_SUBGROUP_NAME
from ..tree import (
    GangOrigin,
    GangSource,
    PodGroup,
    PodSet,
    SubGroup,
    TopologyConstraint,
    gate_parents,
    object_conditions,
)
from ..values import mapping_at
from .expand import ExpandedComponent
from .references import RelatedObjects

__all__ = ["skips_podgrouper", "user_pod_groups"]

_TRUE = "true"


def _annotations(obj: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return mapping_at(mapping_at(obj or {}, "metadata"), "annotations")


def skips_podgrouper(resource: Mapping[str, Any], nodes: Sequence[ExpandedComponent]) -> bool:
    """Whether KAI's pod-grouper skips the workload: the annotation on it or on every pod template it has."""
    if _annotations(resource).get(KAI_SKIP_PODGROUPER) == _TRUE:
        return True
    templates = [leaf.template for root in nodes for leaf in root.leaves() if leaf.demand is not None]
    return bool(templates) and all(_annotations(template).get(KAI_SKIP_PODGROUPER) == _TRUE for template in templates)


def _constraint(data: Any) -> TopologyConstraint:
    data = data if isinstance(data, Mapping) else {}

    def text(key: str) -> str | None:
        value = data.get(key)
        return str(value) if isinstance(value, (str, int)) and value != "" else None

    return TopologyConstraint(text("topology"), text("requiredTopologyLevel"), text("preferredTopologyLevel"))


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _pod_sets(members: Sequence[ExpandedComponent]) -> list[PodSet]:
    return [
        PodSet(
            component=leaf.path,
            count=leaf.parent_replicas * leaf.replicas * leaf.pods_per_replica,
            pod_resources=dict(leaf.demand.requests),
        )
        for leaf in members
        if leaf.demand is not None
    ]


def _pod_group(name: str, obj: Mapping[str, Any], members: Sequence[ExpandedComponent]) -> PodGroup:
    spec = mapping_at(obj, "spec")
    pod_sets = _pod_sets(members)
    pods = sum(pod_set.count for pod_set in pod_sets)
    sub_groups = []
    for item in spec.get("subGroups") or []:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            continue
        own = [
            leaf
            for leaf in members
            if mapping_at(mapping_at(leaf.template or {}, "metadata"), "labels").get(KAI_SUBGROUP_NAME) == item["name"]
        ]
        sub_sets = _pod_sets(own)
        parent = item.get("parent")
        sub_groups.append(
            SubGroup(
                name=item["name"],
                min_member=_count(item.get("minMember")) or 0,
                parent=parent if isinstance(parent, str) else None,
                pods=sum(pod_set.count for pod_set in sub_sets),
                pod_sets=sub_sets,
                topology_constraint=_constraint(item.get("topologyConstraint")),
                min_sub_group=_count(item.get("minSubGroup")),
            )
        )
    gate_parents(sub_groups, add=False)
    gate = _count(spec.get("minSubGroup"))
    min_member = _count(spec.get("minMember"))
    if min_member is None:
        # No minMember: minSubGroup of the top-level SubGroups, else KAI's default of 1.
        top = sorted(sub.min_member for sub in sub_groups if sub.parent is None)
        min_member = sum(top[:gate]) if gate is not None else 1
    queue = spec.get("queue")
    return PodGroup(
        name=name,
        min_member=min_member,
        pods=pods,
        sub_groups=sub_groups,
        pod_sets=pod_sets,
        topology_constraint=_constraint(spec.get("topologyConstraint")),
        queue=queue if isinstance(queue, str) and queue else None,
        min_sub_group=gate,
        source=GangSource(
            GangOrigin.SCHEDULER_OBJECT,
            api_version=str(obj.get("apiVersion")),
            kind="PodGroup",
            name=name,
            conditions=object_conditions(obj),
        ),
    )


def user_pod_groups(
    nodes: Sequence[ExpandedComponent],
    related: RelatedObjects,
    namespace: str | None,
    warnings: list[str],
) -> list[PodGroup]:
    """The PodGroups the workload's pod templates name (``pod-group-name``), read from ``related``."""
    named: dict[str, list[ExpandedComponent]] = {}
    for root in nodes:
        for leaf in root.leaves():
            if leaf.demand is None:
                continue
            name = _annotations(leaf.template).get(KAI_POD_GROUP_NAME)
            if isinstance(name, str) and name:
                named.setdefault(name, []).append(leaf)
    if not named:
        warnings.append(
            f"{KAI_SKIP_PODGROUPER}: KAI's pod-grouper makes no PodGroup for these pods and no pod template names "
            f"one ({KAI_POD_GROUP_NAME}): KAI does not schedule them"
        )
        return []
    groups = []
    for name, members in named.items():
        obj = related.find(f"PodGroup.{KAI_PODGROUP_API_VERSION.split('/')[0]}", name, namespace, True)
        if obj is None or obj.get("apiVersion") != KAI_PODGROUP_API_VERSION:
            warnings.append(
                f"{KAI_SKIP_PODGROUPER}: the pods join the PodGroup {name} their {KAI_POD_GROUP_NAME} annotation "
                "names, which is not in the input; pass it with --related FILE|DIR"
            )
            continue
        groups.append(_pod_group(name, obj, members))
    return groups
