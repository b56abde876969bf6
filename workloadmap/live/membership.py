"""Gang membership: which of wmap's PodGroups and SubGroups each attributed pod is in.

The gang rule the interpreter used (the first whose ``when`` holds) is applied to each pod's
place in the tree, the same way :mod:`workloadmap.interpreter.gangs` forms the groups:

* the PodGroup: the whole workload, the pod's instance of the ``perInstance`` component, or its
  replica of the ``perReplica`` component (numbered across the workload in tree order); a replica
  of a ``scaledPodGroups`` component beyond its ``minReplicas`` is a scaled PodGroup of its own
  (``<group>-<instance>-<replica>``);
* the SubGroups: every subgroup rule whose component is on the pod's lineage, named as the
  interpreter names them (``eachInstance``, ``eachReplicaOf`` with the pod's replica of that
  component, name templates), then their ``parent`` chain;
* segments (KAI ``segment-size``): the subgroup's pods in order, the ``segmentLeader``'s pods
  first, then by pod index (an LWS ``worker-index``), cut as the tree's segments are. This is
  KAI's assignment (``getSegmentIndex`` of the LWS grouper) when every pod exists.

Replica indexes come from the labels named by the definition's ``pods.replicaIndex``; a pod
whose index is unknown where it matters stays out of that PodGroup or SubGroup.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..interpreter import EvaluationContext, ExpandedComponent, evaluate_count, rule_applies
from ..runtime_definitions import PodGroupRule, SubGroupRule
from ..tree import PodGroup, SubGroup
from .attribution import AttributedPod, Attribution
from .objects import natural_key

__all__ = ["assign_gangs"]

_PLACEHOLDER = re.compile(r"\{(\w+)(\|lower)?\}")


def _render(template: str, values: Mapping[str, str]) -> str:
    def substitute(match: re.Match[str]) -> str:
        value = values.get(match.group(1), match.group(0))
        return value.lower() if match.group(2) else value

    return _PLACEHOLDER.sub(substitute, template)


def _label(node: ExpandedComponent) -> str:
    return node.instance or node.name


def _flat_index(pod: AttributedPod, nodes: Sequence[ExpandedComponent], own: Sequence[int]) -> int | None:
    """The mixed-radix index of the pod's replicas of ``nodes`` (outermost first, radices ``own``)."""
    index = 0
    for node, radix in zip(nodes, own, strict=True):
        replica = pod.replica_of(node) if radix > 1 else 0
        if replica is None:
            return None
        index = index * radix + replica
    return index


class _Gangs:
    """The interpreter's gang rule applied to single pods."""

    def __init__(
        self,
        context: EvaluationContext,
        workload: str,
        nodes: list[ExpandedComponent],
        groups: list[PodGroup],
    ) -> None:
        self.context = context
        self.rule: PodGroupRule | None = next(
            (rule for rule in context.definition.gang.pod_groups if rule_applies(rule, context)), None
        )
        self.base = f"{workload}-{self.rule.name}" if self.rule and self.rule.name else workload
        self.groups = {group.name: group for group in groups}
        self.offsets: dict[int, int] = {}
        if self.rule is not None and self.rule.per_replica:
            offset = 0
            for root in nodes:
                for node in root.walk():
                    if node.definition.name == self.rule.per_replica:
                        self.offsets[id(node)] = offset
                        offset += node.parent_replicas * node.replicas

    def scope(self, pod: AttributedPod) -> tuple[str, int, Any] | None:
        """``(PodGroup name, where its scope starts on the lineage, its scope value)``."""
        assert self.rule is not None and pod.claim is not None
        lineage = pod.claim.lineage
        anchor_name = self.rule.per_instance or self.rule.per_replica
        if anchor_name is None:
            return self.base, 0, self.context.resource
        position = next((i for i, node in enumerate(lineage) if node.definition.name == anchor_name), None)
        if position is None:
            return None
        anchor = lineage[position]
        if self.rule.per_instance:
            return f"{self.base}-{_label(anchor)}", position, anchor.scope
        copy = _flat_index(pod, lineage[:position], [node.replicas for node in lineage[:position]])
        replica = pod.replica_of(anchor)
        if copy is None or replica is None:
            return None
        return f"{self.base}-{self.offsets[id(anchor)] + copy * anchor.replicas + replica}", position + 1, anchor.scope

    def scaled(self, pod: AttributedPod, main: str, start: int) -> tuple[str, int] | None:
        """The scaled PodGroup of a pod in a replica beyond minReplicas, and where its scope starts."""
        assert pod.claim is not None
        lineage = pod.claim.lineage
        for position in range(start, len(lineage)):
            node = lineage[position]
            if not node.definition.scaled_pod_groups or node.replicas <= node.gang_replicas:
                continue
            replica = pod.replica_of(node)
            if replica is None or replica < node.gang_replicas:
                return None
            between = lineage[start:position]
            own = [n.gang_replicas if n.definition.scaled_pod_groups else n.replicas for n in between]
            copies = 1
            for radix in own:
                copies *= radix
            index = replica - node.gang_replicas  # Grove numbers scaled PodGangs from 0, as the interpreter does
            suffix = f"{_label(node)}-{index}"
            if copies > 1:
                copy = _flat_index(pod, between, own)
                if copy is None:
                    return None
                suffix = f"{_label(node)}-{copy}-{index}"
            return f"{main}-{suffix}", position
        return None

    def subgroup(self, rule: SubGroupRule, pod: AttributedPod, group: str, base: str) -> str | None:
        """The name of the subgroup ``rule`` forms for the pod, or None when the pod is not in it."""
        assert pod.claim is not None
        lineage = pod.claim.lineage
        target = next((node for node in lineage if node.definition.name == rule.component), None)
        if target is None:
            return None
        values = {"group": group, "base": base, "component": rule.component}
        if rule.each_replica_of:
            owner = next((node for node in lineage if node.definition.name == rule.each_replica_of), None)
            replica = pod.replica_of(owner) if owner is not None else None
            if owner is None or replica is None:
                return None
            values.update(replicaOf=_label(owner), replica=str(replica), instance=_label(target))
            return _render(rule.name, values) if rule.name else f"{values['replicaOf']}-{replica}-{values['instance']}"
        values["instance"] = _label(target) if rule.each_instance else (rule.name or rule.component)
        return _render(rule.name, values) if rule.name else values["instance"]


def _parents(group: PodGroup, name: str) -> list[str]:
    by_name = {sub.name: sub for sub in group.sub_groups}
    chain, seen = [name], {name}
    parent = by_name[name].parent if name in by_name else None
    while parent and parent not in seen and parent in by_name:
        chain.append(parent)
        seen.add(parent)
        parent = by_name[parent].parent
    return chain


def assign_gangs(
    attribution: Attribution,
    context: EvaluationContext,
    workload: str,
    nodes: list[ExpandedComponent],
    groups: list[PodGroup],
) -> None:
    """Set ``gang`` and ``sub_groups`` on every attributed pod (see the module docstring)."""
    gangs = _Gangs(context, workload, nodes, groups)
    if gangs.rule is None or not groups:
        return
    segmented: dict[tuple[str, str, int], tuple[SubGroupRule, int, list[AttributedPod]]] = {}
    for pod in attribution.attributed():
        scope = gangs.scope(pod)
        if scope is None:
            continue
        main, start, scope_value = scope
        group, base = main, main
        scaled = gangs.scaled(pod, main, start)
        if scaled is not None:
            group = scaled[0]
        if group not in gangs.groups:
            continue
        pod.gang = group
        for index, rule in enumerate(gangs.rule.sub_groups):
            name = gangs.subgroup(rule, pod, group, base)
            if name is None:
                continue
            size = None
            if rule.segment_size is not None:
                size = evaluate_count(rule, "segment_size", scope_value, context, what="segmentSize")
            if size:
                segmented.setdefault((group, name, index), (rule, size, []))[2].append(pod)
            elif name in {sub.name for sub in gangs.groups[group].sub_groups}:
                _join(pod, _parents(gangs.groups[group], name))
    for (group, name, _), (rule, _size, members) in segmented.items():
        _segments(gangs.groups[group], name, rule, members, attribution)


def _join(pod: AttributedPod, chain: list[str]) -> None:
    """Add a SubGroup chain (innermost first): a leaf under a SubGroup the pod is already in goes ahead of it."""
    known = pod.sub_groups
    if known and chain[-len(known) :] == known:
        pod.sub_groups[:0] = chain[: -len(known)]
    else:
        pod.sub_groups.extend(name for name in chain if name not in known)


def _segment_list(group: PodGroup, name: str, rule: SubGroupRule) -> list[SubGroup]:
    by_name = {sub.name: sub for sub in group.sub_groups}
    found = []
    for index in range(len(group.sub_groups)):
        segment = by_name.get(_render(rule.segment_name, {"name": name, "index": str(index)}))
        if segment is None:
            break
        found.append(segment)
    return found


def _segments(
    group: PodGroup, name: str, rule: SubGroupRule, members: list[AttributedPod], attribution: Attribution
) -> None:
    """Cut a segmented subgroup's pods into the tree's segments (leader's pods first, then by pod index)."""
    segments = _segment_list(group, name, rule)
    if not segments:
        return
    leaders = [
        pod
        for pod in attribution.attributed()
        if rule.segment_leader
        and pod.gang == group.name
        and pod.claim is not None
        and any(node.definition.name == rule.segment_leader for node in pod.claim.lineage)
    ]
    leader_ids = {id(pod) for pod in leaders}
    ordered = sorted(leaders, key=_order) + sorted((pod for pod in members if id(pod) not in leader_ids), key=_order)
    bounds, total = [], 0
    for segment in segments:
        total += segment.pods
        bounds.append(total)
    for position, pod in enumerate(ordered):
        index = next((i for i, bound in enumerate(bounds) if position < bound), None)
        if index is None:
            continue
        segment = segments[index]
        inner = (rule.segment_leader if id(pod) in leader_ids else None) or name
        children = {sub.name: sub for sub in group.sub_groups if sub.parent == segment.name}
        innermost = inner if index == 0 and inner in children else segment.name
        pod.sub_groups.extend(_parents(group, innermost))


def _order(pod: AttributedPod) -> tuple[Any, ...]:
    index = pod.pod_index if pod.pod_index is not None else 1 << 30
    return (index, natural_key(pod.pod.name))
