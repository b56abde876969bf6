"""Gangs from Kubernetes' own Workload API: the native PodGroups a workload's pod templates join.

A pod joins a native gang by naming it in its spec (kubernetes/api ``core/v1/types.go``):

* ``spec.schedulingGroup.podGroupName`` (1.36 and later): a runtime ``PodGroup`` of
  ``scheduling.k8s.io`` (v1alpha2, v1beta1, v1alpha3) whose ``spec.schedulingPolicy`` is ``gang:
  {minCount}`` or ``basic: {}``, with ``spec.schedulingConstraints.topology[0].key`` for the
  topology-aware placement (KEP-5732) and, from 1.37, ``spec.parentCompositePodGroupName`` naming a
  ``CompositePodGroup`` (v1alpha3) whose ``gang.minGroupCount`` children must schedule together;
* ``spec.workloadRef {name, podGroup, podGroupReplicaKey}`` (1.35, v1alpha1): a group of the
  ``Workload``'s ``spec.podGroups`` (``policy`` = ``gang`` or ``basic``); pods of one replica key
  form a gang of their own ("the pod group policy is applied separately to each replica").

When any pod template of the workload joins one, kube-scheduler gangs by the native objects, not by
the kind's own grouping: the tree's PodGroups are then the native ones (a ``basic`` group is a
group of minimum 1, kube-scheduler's ``PlacementFeasible`` minimum; a CompositePodGroup is a
PodGroup whose SubGroups are its PodGroups), and warnings say where the native gang and the
definition's disagree. The objects come from the input's documents, ``--related`` files or the
cluster, as any reference does; one that is missing keeps the definition's gangs and says that
kube-scheduler holds the pods until it appears (``GangScheduling`` PreEnqueue).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..labels import KAI_IGNORE_WORKLOAD_API, NATIVE_COMPOSITE_KIND, NATIVE_POD_GROUP_KIND, NATIVE_WORKLOAD_KIND
from ..labels import SCHEDULING_GROUP as GROUP
from ..tree import GangOrigin, GangSource, PodGroup, PodSet, SubGroup, TopologyConstraint, object_conditions
from .expand import ExpandedComponent
from .gangs import component_pods
from .references import RelatedObjects

__all__ = [
    "NativeGangs",
    "NativeJoin",
    "native_gangs",
    "joined_pod_group",
    "read_pod_group",
    "read_policy",
    "topology_key",
    "disagreements",
    "NATIVE_POLICY",
    "pod_group_templates",
]

NATIVE_POLICY = (
    "Kubernetes Workload API: the scheduling.k8s.io PodGroups the pod templates join (kube-scheduler's"
    " GangScheduling: gang minCount, basic = no minimum)"
)
"""The tree's ``gangPolicy`` when its gangs are the native ones."""


@dataclass
class NativeGangs:
    """The native PodGroups of a workload, and what the reading found worth saying."""

    pod_groups: list[PodGroup] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class NativeJoin:
    """One native group some components' pods join, as the pods name it."""

    name: str
    members: list[ExpandedComponent] = field(default_factory=list)
    min_count: int | None = None
    basic: bool = False
    key: str | None = None
    parent: str | None = None
    source: GangSource | None = None


def _spec(leaf: ExpandedComponent) -> Mapping[str, Any]:
    template = leaf.template if isinstance(leaf.template, Mapping) else {}
    spec = template.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _joined(leaf: ExpandedComponent) -> tuple[str, str, str | None] | None:
    """(kind, object name, v1alpha1 pod group and replica key) that the leaf's pods name, if any."""
    spec = _spec(leaf)
    group = _mapping(spec.get("schedulingGroup")).get("podGroupName")
    if isinstance(group, str) and group:
        return NATIVE_POD_GROUP_KIND, group, None
    reference = _mapping(spec.get("workloadRef"))
    name, pod_group = reference.get("name"), reference.get("podGroup")
    if isinstance(name, str) and name and isinstance(pod_group, str) and pod_group:
        key = reference.get("podGroupReplicaKey")
        return NATIVE_WORKLOAD_KIND, name, f"{pod_group}/{key}" if isinstance(key, str) and key else pod_group
    return None


def _object_source(obj: Mapping[str, Any] | None, kind: str, name: str) -> GangSource:
    """The gang's object: ``created`` False when it was not found (a CompositePodGroup not in the input)."""
    api_version = _mapping(obj).get("apiVersion")
    return GangSource(
        GangOrigin.WORKLOAD_API,
        api_version=api_version if isinstance(api_version, str) else None,
        kind=kind,
        name=name,
        created=obj is not None,
        conditions=object_conditions(obj),
    )


def _native(obj: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The object when it is of ``scheduling.k8s.io`` (KAI's and Volcano's PodGroups are other groups)."""
    if obj is None:
        return None
    api_version = obj.get("apiVersion")
    return obj if isinstance(api_version, str) and api_version.split("/")[0] == GROUP else None


def read_policy(join: NativeJoin, policy: Mapping[str, Any]) -> None:
    """A ``schedulingPolicy`` (``policy`` in v1alpha1) into the join: gang minCount, or basic."""
    gang = policy.get("gang")
    if isinstance(gang, Mapping):
        count = gang.get("minCount")
        join.min_count = count if isinstance(count, int) and not isinstance(count, bool) else None
    elif policy.get("basic") is not None:
        join.basic = True


def topology_key(constraints: Any) -> str | None:
    """The key of a ``schedulingConstraints``' one topology constraint, if set."""
    topology = _mapping(constraints).get("topology")
    if isinstance(topology, list) and topology and isinstance(topology[0], Mapping):
        key = topology[0].get("key")
        return key if isinstance(key, str) and key else None
    return None


def read_pod_group(join: NativeJoin, obj: Mapping[str, Any]) -> None:
    """A runtime PodGroup's policy, topology key and parent CompositePodGroup into the join."""
    spec = _mapping(obj.get("spec"))
    read_policy(join, _mapping(spec.get("schedulingPolicy")))
    join.key = topology_key(spec.get("schedulingConstraints"))
    parent = spec.get("parentCompositePodGroupName")
    join.parent = parent if isinstance(parent, str) and parent else None


def _read_workload_group(join: NativeJoin, obj: Mapping[str, Any], pod_group: str) -> bool:
    """v1alpha1: the Workload's ``spec.podGroups`` entry of that name; False when there is none."""
    for entry in _mapping(obj.get("spec")).get("podGroups") or []:
        if isinstance(entry, Mapping) and entry.get("name") == pod_group:
            read_policy(join, _mapping(entry.get("policy")))
            return True
    return False


def pod_group_templates(
    leaf: ExpandedComponent, related: RelatedObjects, namespace: str | None
) -> tuple[str, frozenset[tuple[str, str]]] | None:
    """The PodGroup the leaf's pods join and the (claim name, template) pairs its ``spec.resourceClaims`` declare.

    KEP-5729 (``PodGroupSpec.resourceClaims``, scheduling.k8s.io v1beta1 and v1alpha3): a pod claim
    equal to one of them resolves to the one claim generated for the PodGroup. None when the pods
    join no PodGroup object (``spec.schedulingGroup.podGroupName``), it is not found, or it declares
    no template claim.
    """
    joined = _joined(leaf)
    if joined is None or joined[0] != NATIVE_POD_GROUP_KIND:
        return None
    obj = _native(related.find(NATIVE_POD_GROUP_KIND, joined[1], namespace, True))
    if obj is None:
        return None
    declared = set()
    claims = _mapping(obj.get("spec")).get("resourceClaims")
    for claim in claims if isinstance(claims, list) else []:
        name, template = _mapping(claim).get("name"), _mapping(claim).get("resourceClaimTemplateName")
        if isinstance(name, str) and name and isinstance(template, str) and template:
            declared.add((name, template))
    return (joined[1], frozenset(declared)) if declared else None


def native_gangs(
    roots: Sequence[ExpandedComponent],
    related: RelatedObjects,
    namespace: str | None,
    resource: Mapping[str, Any],
    own: Sequence[PodGroup],
    own_policy: str,
) -> NativeGangs | None:
    """The native PodGroups the workload's pods join; None when no pod template joins one.

    ``own`` are the PodGroups the kind's definition forms (``own_policy`` says whose), compared
    with the native ones in the warnings.
    """
    leaves = [leaf for root in roots for leaf in root.leaves() if leaf.demand is not None]
    found: dict[str, NativeJoin] = {}
    missing: list[str] = []
    alone: list[str] = []
    for leaf in leaves:
        joined = _joined(leaf)
        if joined is None:
            alone.append(leaf.path)
            continue
        kind, name, pod_group = joined
        label = name if pod_group is None else f"{name}-{pod_group.replace('/', '-')}"
        join = found.get(label)
        if join is None:
            join = found[label] = NativeJoin(label)
            obj = _native(related.find(f"{kind}.{GROUP}", name, namespace, True))
            if obj is None or (pod_group is not None and not _read_workload_group(join, obj, pod_group.split("/")[0])):
                missing.append(f"{kind} {name}" + (f" (pod group {pod_group.split('/')[0]})" if pod_group else ""))
                del found[label]
                continue
            join.source = _object_source(obj, kind, name)
            if pod_group is None:
                read_pod_group(join, obj)
        join.members.append(leaf)
    if not found and not missing:
        return None
    result = NativeGangs()
    if missing:
        result.warnings.append(
            f"the pods join {', '.join(missing)}, not in the input, --related or the cluster: kube-scheduler keeps them"
            " pending until it exists (GangScheduling PreEnqueue); the gangs shown are the definition's"
        )
        return result
    groups = [joined_pod_group(join, result.warnings) for join in found.values()]
    result.pod_groups = _nest(groups, found, related, namespace, result.warnings)
    if alone:
        result.warnings.append(
            f"{', '.join(alone)} join no native PodGroup: kube-scheduler schedules those pods one by one, outside the"
            " gangs shown"
        )
    result.warnings.extend(disagreements(result.pod_groups, own, own_policy, resource))
    return result


def joined_pod_group(join: NativeJoin, warnings: list[str]) -> PodGroup:
    """The tree's PodGroup of one native group: its members' pods, its policy's minimum (basic: 1)."""
    pods = 0
    pod_sets: list[PodSet] = []
    for member in join.members:
        count, sets = component_pods(member)
        pods += count
        pod_sets.extend(sets)
    min_member = 1 if join.basic or join.min_count is None else join.min_count
    if not join.basic and join.min_count is None:
        warnings.append(
            f"PodGroup {join.name}: no whole gang.minCount and no basic policy: the API server rejects it"
            " (minimum 1 used)"
        )
    elif join.min_count is not None and join.min_count > pods:
        warnings.append(
            f"PodGroup {join.name}: gang minCount {join.min_count} exceeds the {pods} pods this workload creates for"
            " it: the gang forms only if other pods join it (GangScheduling waits for minCount pods)"
        )
    return PodGroup(
        name=join.name,
        min_member=min_member,
        pods=pods,
        pod_sets=pod_sets,
        topology_constraint=TopologyConstraint(required_level=join.key),
        source=join.source,
    )


def _nest(
    groups: list[PodGroup],
    found: Mapping[str, NativeJoin],
    related: RelatedObjects,
    namespace: str | None,
    warnings: list[str],
) -> list[PodGroup]:
    """PodGroups under a CompositePodGroup become SubGroups of one PodGroup named after it (KEP-6012)."""
    by_parent: dict[str, list[PodGroup]] = {}
    result: list[PodGroup] = []
    for group in groups:
        parent = found[group.name].parent
        if parent is None:
            result.append(group)
        else:
            by_parent.setdefault(parent, []).append(group)
    for parent, children in by_parent.items():
        obj = _native(related.find(f"{NATIVE_COMPOSITE_KIND}.{GROUP}", parent, namespace, True))
        spec = _mapping(_mapping(obj).get("spec"))
        gang = _mapping(_mapping(spec.get("schedulingPolicy")).get("gang"))
        wanted = gang.get("minGroupCount")
        needed = wanted if isinstance(wanted, int) and not isinstance(wanted, bool) and wanted > 0 else 1
        if obj is None:
            warnings.append(
                f"CompositePodGroup {parent} is not in the input, --related or the cluster: minGroupCount 1"
            )
        # The fewest pods that satisfy minGroupCount: the smallest children's minimums.
        smallest = sorted(child.min_member for child in children)[:needed]
        if needed > len(children):
            warnings.append(
                f"CompositePodGroup {parent}: minGroupCount {needed} exceeds the {len(children)} PodGroups of this"
                " workload under it"
            )
        result.append(
            PodGroup(
                name=parent,
                min_member=sum(smallest),
                pods=sum(child.pods for child in children),
                sub_groups=[
                    SubGroup(
                        name=child.name,
                        min_member=child.min_member,
                        pods=child.pods,
                        pod_sets=child.pod_sets,
                        topology_constraint=child.topology_constraint,
                    )
                    for child in children
                ],
                topology_constraint=TopologyConstraint(required_level=topology_key(spec.get("schedulingConstraints"))),
                source=_object_source(obj, NATIVE_COMPOSITE_KIND, parent),
            )
        )
    return result


def disagreements(
    native: Sequence[PodGroup], own: Sequence[PodGroup], own_policy: str, resource: Mapping[str, Any]
) -> list[str]:
    """Where the kind's own grouping (KAI's pod-grouper, the operator) differs from the native gangs."""
    if not own:
        return []
    theirs = sorted((group.min_member, group.pods) for group in own)
    ours = sorted((group.min_member, group.pods) for group in native)
    if theirs == ours:
        return []
    annotations = _mapping(_mapping(resource.get("metadata")).get("annotations"))
    kai = (
        f"; KAI's Workload API design (not in KAI's code yet) follows the native groups unless"
        f' {KAI_IGNORE_WORKLOAD_API} is "true"'
        if annotations.get(KAI_IGNORE_WORKLOAD_API) != "true"
        else f'; {KAI_IGNORE_WORKLOAD_API} is "true": KAI keeps its own grouping while kube-scheduler gangs natively'
    )
    described = ", ".join(f"{group.name} (minMember {group.min_member} of {group.pods})" for group in own)
    return [f"the kind's own grouping ({own_policy}) makes {described}, not the native gangs{kai}"]
