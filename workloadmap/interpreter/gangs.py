"""Gangs: the PodGroups (and SubGroups) a gang scheduler forms for a workload.

A definition's ``gang.podGroups`` is a list of rules; the first whose ``when`` holds is used.
A rule forms one PodGroup for the whole workload, one per instance of a component
(``perInstance``: JobSet ``InOrder``) or one per replica of a component (``perReplica``: an LWS
group, a Grove PodCliqueSet replica). ``minMember`` defaults to the members' pods at gang scale,
where each component counts ``minReplicas`` when positive and ``replicas`` otherwise, multiplied
down the tree (the rule KAI's pod-grouper applies). SubGroups default the same way per component;
``remainder`` gives a subgroup what the PodGroup's ``minMember`` leaves after the others.

A component marked ``scaledPodGroups`` (a Grove scaling group) puts only its ``minReplicas``
replicas in the enclosing PodGroup; each replica beyond them is a PodGroup of its own, named
``<enclosing group>-<component instance>-<i>`` with ``i`` counted from 0 over the replicas beyond
the minimum (Grove's ``CreatePodGangNameFromPCSGFQN``, ``operator/api/common/namegen.go``).

Every PodGroup and SubGroup carries a topology constraint (:mod:`.constraints`). A subgroup rule
may hold a ``when`` and a templated ``parent``; a child whose parent was not formed stands at the
top level (Grove's per-replica scaling-group parents exist only where the group has a constraint).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from ..budgets import check as check_budget
from ..runtime_definitions import PodGroupRule, SubGroupRule
from ..tree import (
    GangOrigin,
    GangSource,
    PodGroup,
    PodSet,
    SubGroup,
    TopologyConstraint,
    fewest_pods,
    gate_parents,
)
from ..values import truthy
from .constraints import annotation_constraint, evaluate_constraint
from .context import EvaluationContext
from .expand import ExpandedComponent, evaluate_count

__all__ = ["component_pods", "form_pod_groups", "rule_applies"]


class _Counts(NamedTuple):
    """What a PodGroup holds of one component, counted in one walk of its subtree."""

    own_pods: int
    """The component's own pods in the group (0 for a component without pods)."""
    pods: int
    """Declared pods of the component's subtree in the group."""
    gang_pods: int
    """The same at gang (minimum-first) scale."""
    copies: int
    """How many replicas of the component's parent the group spans."""
    replicas: int
    """How many replicas of the component the group holds (per copy)."""


_new_counts = tuple.__new__
"""Makes a ``_Counts`` without its Python-level ``__new__`` (one per component and PodGroup scope)."""

_OUTSIDE = _Counts(0, 0, 0, 0, 0)
"""A component outside a PodGroup's scope: no pods, no copies, no replicas in it."""


class _Scope:
    """The members of one PodGroup and how many pods of each component it holds.

    ``roots`` are the components the group is made of; an ``anchored`` group holds exactly one
    replica of its single root (index ``replica``). ``multipliers`` gives, per root, how many
    replicas of the root's parent the group spans.
    """

    __slots__ = ("roots", "anchored", "replica", "base", "_counts", "_nodes")

    def __init__(
        self,
        roots: list[ExpandedComponent],
        *,
        anchored: bool = False,
        replica: int = 0,
        base: str = "",
        multipliers: Mapping[ExpandedComponent, int] | None = None,
    ) -> None:
        self.roots = roots
        self.anchored = anchored
        self.replica = replica
        self.base = base
        self._counts: dict[ExpandedComponent, _Counts] = {}  # nodes hash by identity
        self._nodes: list[ExpandedComponent] | None = None
        for root in roots:
            multiplier = multipliers.get(root, 1) if multipliers else 1
            self._visit(root, multiplier, multiplier, anchored=anchored)

    def _visit(
        self, node: ExpandedComponent, multiplier: int, gang_multiplier: int, *, anchored: bool
    ) -> tuple[int, int]:
        """Pods of ``node``'s subtree in the group, declared and at gang scale (both counted in one walk)."""
        if anchored:
            own = gang_own = 1
        else:
            gang_own = node.gang_replicas
            own = gang_own if node.definition.scaled_pod_groups else node.replicas
        if node.demand is not None:
            total = multiplier * own * node.pods_per_replica
            gang_total = gang_multiplier * gang_own * node.pods_per_replica
        else:
            total = gang_total = 0
        own_pods = total
        for child in node.children:
            declared, at_gang_scale = self._visit(child, multiplier * own, gang_multiplier * gang_own, anchored=False)
            total += declared
            gang_total += at_gang_scale
        self._counts[node] = _new_counts(_Counts, (own_pods, total, gang_total, multiplier, own))
        return total, gang_total

    def nodes(self) -> Iterator[ExpandedComponent]:
        """Every component of the group's subtrees."""
        if self._nodes is None:  # asked once per subgroup rule: walked once
            self._nodes = [node for root in self.roots for node in root.walk()]
        return iter(self._nodes)

    def pods(self, node: ExpandedComponent) -> int:
        """Declared pods of ``node``'s subtree inside this group."""
        return self._counts.get(node, _OUTSIDE).pods

    def gang_pods(self, node: ExpandedComponent) -> int:
        """Pods of ``node``'s subtree inside this group at gang (minimum-first) scale."""
        return self._counts.get(node, _OUTSIDE).gang_pods

    def copies(self, node: ExpandedComponent) -> int:
        """How many replicas of ``node``'s parent this group spans."""
        return self._counts.get(node, _OUTSIDE).copies

    def replica_count(self, node: ExpandedComponent) -> int:
        """How many replicas of ``node`` belong to this group (without listing them)."""
        if self.anchored and node is self.roots[0]:
            return 1
        return self._counts.get(node, _OUTSIDE).replicas

    def replicas_in_group(self, node: ExpandedComponent) -> list[int]:
        """Replica indexes of ``node`` that belong to this group."""
        if self.anchored and node is self.roots[0]:
            return [self.replica]
        return list(range(self._counts.get(node, _OUTSIDE).replicas))

    def pod_sets(self, nodes: Iterable[ExpandedComponent]) -> list[PodSet]:
        """The group's pods of these components' subtrees, one pod set per pod-bearing component."""
        sets = []
        for top in nodes:
            for leaf in top.leaves():
                count = self._counts.get(leaf, _OUTSIDE).own_pods
                if count and leaf.demand is not None:
                    sets.append(PodSet(component=leaf.path, count=count, pod_resources=dict(leaf.demand.requests)))
        return sets


def rule_applies(rule: PodGroupRule, context: EvaluationContext) -> bool:
    """Whether a PodGroup rule holds: for the KAI release modelled, and its ``when`` for the context's resource.

    A rule without ``when`` holds for every resource; without ``kaiSince``/``kaiBefore`` for every release.
    """
    if not rule.in_kai_release():
        return False
    expression = rule.compiled("when")
    if expression is None:
        return True
    resource = context.resource
    return truthy(expression.search(resource, root=resource, refs=context.refs))


_PLACEHOLDER = re.compile(r"\{(\w+)(\|lower)?\}")


def _render_name(template: str, values: dict[str, str]) -> str:
    """``{name}`` placeholders filled from ``values`` (``{name|lower}`` in lower case); unknown ones stay."""
    parts = _template_parts(template)
    if len(parts) == 1:  # no placeholder
        return template
    rendered = []
    for index, part in enumerate(parts):
        if index % 3 == 0:
            rendered.append(part)
        elif index % 3 == 1:
            value = values.get(part)
            lower = parts[index + 1]
            if value is None:
                rendered.append(f"{{{part}{lower}}}")
            else:
                rendered.append(value.lower() if lower else value)
    return "".join(rendered)


@lru_cache(maxsize=512)
def _template_parts(template: str) -> tuple[str, ...]:
    # re.split with two groups: literal, name, "|lower" or "", literal, ... (the regex runs once per template)
    return tuple(part or "" for part in _PLACEHOLDER.split(template))


_Plan = tuple[dict[str, str], list[ExpandedComponent], _Scope]
"""A subgroup to build: its name values, its member components, and the scope that counts them."""


def _subgroup_plans(rule: SubGroupRule, scope: _Scope) -> list[_Plan]:
    """The subgroups one rule asks for: one, one per instance, or one per replica of an ancestor."""
    targets = [node for node in scope.nodes() if node.definition.name == rule.component]
    if rule.each_replica_of:
        plans: list[_Plan] = []
        owners = [node for node in scope.nodes() if node.definition.name == rule.each_replica_of]
        for owner in owners:
            inner = [node for node in owner.walk() if node in targets]
            check_budget(
                "sub_groups",
                scope.replica_count(owner) * len(inner),
                f"SubGroups (one per replica of {owner.instance or owner.name} for each of {len(inner)} components)",
            )
            for replica in scope.replicas_in_group(owner):
                per_replica = _Scope([owner], anchored=True, replica=replica)
                for node in inner:
                    values = {
                        "replicaOf": owner.instance or owner.name,
                        "replica": str(replica),
                        "instance": node.instance or node.name,
                    }
                    plans.append((values, [node], per_replica))
        return plans
    if rule.each_instance:
        return [({"instance": node.instance or node.name}, [node], scope) for node in targets]
    if targets:
        return [({"instance": rule.name or rule.component}, targets, scope)]
    return []


def _subgroup_name(rule: SubGroupRule, values: dict[str, str]) -> str:
    if rule.name:
        return _render_name(rule.name, values)
    if rule.each_replica_of:
        return f"{values['replicaOf']}-{values['replica']}-{values['instance']}"
    return values["instance"]


@dataclass
class _GroupContext:
    """What subgroup rules evaluate against: the PodGroup's name and scope value, and the workload's context.

    ``scaled`` marks the PodGroup of a scaled replica (rules with ``inScaledGroups: false`` skip it).
    """

    name: str
    scope_value: Any
    context: EvaluationContext
    min_member: int
    scaled: bool = False

    def count(self, rule: SubGroupRule, field_name: str, what: str, *, scope: Any = None) -> int | None:
        """A count of the rule on ``scope`` (a member's element), else on the PodGroup's scope value."""
        value = self.scope_value if scope is None else scope
        return evaluate_count(rule, field_name, value, self.context, what=what)


def _fill_remainders(built: list[SubGroup], remainders: list[SubGroup], group_min: int) -> None:
    """A ``remainder`` subgroup gets the PodGroup's minMember minus its siblings'."""
    remainder_ids = {id(subgroup) for subgroup in remainders}
    for subgroup in remainders:
        others = sum(
            other.min_member for other in built if id(other) not in remainder_ids and other.parent == subgroup.parent
        )
        subgroup.min_member = max(0, group_min - others)


def _member_scope(members: list[ExpandedComponent], group: _GroupContext) -> Any:
    return members[0].scope if members else group.scope_value


def _drop_missing_parents(built: list[SubGroup]) -> None:
    """A subgroup whose (templated) parent was not formed stands at the top level."""
    names = {subgroup.name for subgroup in built}
    for subgroup in built:
        if subgroup.parent is not None and subgroup.parent not in names:
            subgroup.parent = None


def _subgroups(rules: Sequence[SubGroupRule], scope: _Scope, group: _GroupContext) -> list[SubGroup]:
    built: list[SubGroup] = []
    remainders: list[SubGroup] = []
    segmented: dict[int, tuple[SubGroupRule, _Scope, Any]] = {}
    resource, refs = group.context.resource, group.context.refs
    for rule in rules:
        if group.scaled and not rule.in_scaled_groups:
            continue
        when = rule.compiled("when") if rule.when else None
        for values, members, counting in _subgroup_plans(rule, scope):
            member_scope = _member_scope(members, group)
            if when is not None and not truthy(when.search(member_scope, root=resource, refs=refs)):
                continue
            base = scope.base or group.name
            values = {"group": group.name, "base": base, "component": rule.component, **values}
            name = _subgroup_name(rule, values)
            pods = sum(counting.pods(node) for node in members)
            if pods == 0:
                continue
            subgroup = SubGroup(
                name=name,
                min_member=0,
                parent=_render_name(rule.parent, values) if rule.parent else None,
                pods=pods,
                pod_sets=counting.pod_sets(members),
                topology_constraint=evaluate_constraint(
                    rule.topology_constraint, member_scope, group.context, need_level=True
                ),
            )
            if rule.min_member == "remainder":
                remainders.append(subgroup)
            else:
                explicit = group.count(rule, "min_member", f"subgroup {name} minMember", scope=member_scope)
                default = sum(counting.gang_pods(node) for node in members)
                subgroup.min_member = default if explicit is None else explicit
            built.append(subgroup)
            if rule.segment_size is not None:
                segmented[id(subgroup)] = (rule, counting, member_scope)
    _drop_missing_parents(built)
    _fill_remainders(built, remainders, group.min_member)
    if not segmented:
        gate_parents(built)
        return built
    result: list[SubGroup] = []
    for subgroup in built:
        if id(subgroup) not in segmented:
            result.append(subgroup)
            continue
        rule, counting, member_scope = segmented[id(subgroup)]
        size = group.count(rule, "segment_size", f"subgroup {subgroup.name} segmentSize", scope=member_scope)
        if not size:
            result.append(subgroup)
            continue
        if not rule.segments_replace:
            result.append(subgroup)
        _check_segments(subgroup, rule, size, counting)
        constraint = evaluate_constraint(rule.segment_topology_constraint, member_scope, group.context, need_level=True)
        result.extend(_segments(subgroup, rule, size, counting, constraint))
    gate_parents(result)
    return result


def _check_segments(subgroup: SubGroup, rule: SubGroupRule, size: int, counting: _Scope) -> None:
    """Refuse, before building them, more segments than the SubGroup budget."""
    leader_pods = 0
    if rule.segment_leader:
        leader_pods = sum(counting.pods(n) for n in counting.nodes() if n.definition.name == rule.segment_leader)
    segments = -(-(subgroup.pods + leader_pods) // size)
    expression = rule.compiled("segment_size")
    check_budget(
        "sub_groups",
        segments,
        f"KAI segments ({subgroup.pods + leader_pods:,} pods of subgroup {subgroup.name} in segments of {size})",
        field=expression.source if expression is not None else "segmentSize",
    )


def _segments(
    subgroup: SubGroup, rule: SubGroupRule, size: int, counting: _Scope, constraint: TopologyConstraint
) -> list[SubGroup]:
    """KAI segments: the subgroup's pods cut into runs of ``size`` (the last one shorter).

    With a ``segmentLeader`` (an LWS leader), the leader's pods join segment 0: on top of it when
    the other pods divide evenly, else as its first pods; segment 0 then gets two children.
    """
    parent = subgroup.parent if rule.segments_replace else subgroup.name
    own_pods = subgroup.pods
    leader_pods = 0
    leader_sets: list[PodSet] = []
    if rule.segment_leader:
        leaders = [node for node in counting.nodes() if node.definition.name == rule.segment_leader]
        leader_pods = sum(counting.pods(node) for node in leaders)
        leader_sets = counting.pod_sets(leaders)
    if leader_pods and own_pods % size == 0:
        counts = [size] * (own_pods // size)
        counts[0] += leader_pods
    else:
        total = own_pods + leader_pods
        counts = [size] * (total // size) + ([total % size] if total % size else [])
    shapes = subgroup.pod_sets
    # An elastic subgroup (minMember below its pods) needs only its first segments: KAI v0.17 gives
    # the rest minMember 0 (pytorch_grouper.go mandatorySegments, #1971).
    mandatory = -(-(subgroup.min_member + leader_pods) // size) if subgroup.min_member < own_pods else len(counts)
    segments: list[SubGroup] = []
    for index, count in enumerate(counts):
        name = _render_name(rule.segment_name, {"name": subgroup.name, "index": str(index)})
        own_in_segment = count - leader_pods if index == 0 else count
        pod_sets = [
            PodSet(component=s.component, count=own_in_segment, pod_resources=s.pod_resources) for s in shapes[:1]
        ]
        if index == 0 and leader_pods:
            segments.append(
                SubGroup(name=name, min_member=count, parent=parent, pods=count, pod_sets=leader_sets + pod_sets)
            )
            segments.append(
                SubGroup(
                    name=rule.segment_leader or "leader",
                    min_member=leader_pods,
                    parent=name,
                    pods=leader_pods,
                    pod_sets=leader_sets,
                )
            )
            if own_in_segment:
                segments.append(
                    SubGroup(
                        name=subgroup.name,
                        min_member=own_in_segment,
                        parent=name,
                        pods=own_in_segment,
                        pod_sets=pod_sets,
                    )
                )
            continue
        need = count if index < mandatory else 0
        segments.append(SubGroup(name=name, min_member=need, parent=parent, pods=count, pod_sets=pod_sets))
    for segment in segments:
        if segment.parent == parent:  # the segments themselves, not the leader/rest split of segment 0
            segment.topology_constraint = constraint.copy()
    return segments


def _pod_group(
    name: str,
    rule: PodGroupRule,
    scope: _Scope,
    scope_value: Any,
    context: EvaluationContext,
    *,
    scaled: TopologyConstraint | None = None,
    annotated: TopologyConstraint | None = None,
    moment: Mapping[int, int] | None = None,
) -> PodGroup | None:
    """One PodGroup; ``scaled`` (the constraint it takes) marks the PodGroup of a scaled replica.

    ``annotated`` is the workload's annotation constraint, worked out once for all its PodGroups.
    ``moment`` (a workload whose pods run in order, grouped whole): the pods at its peak moment,
    which the group holds at once instead of every pod of the run.
    """
    pods = sum(scope.pods(node) for node in scope.roots)
    if pods == 0:
        return None
    default = sum(scope.gang_pods(node) for node in scope.roots)
    if moment is None:
        pod_sets = scope.pod_sets(scope.roots)
    else:
        pod_sets = [
            PodSet(component=leaf.path, count=moment[id(leaf)], pod_resources=dict(leaf.demand.requests))
            for root in scope.roots
            for leaf in root.leaves()
            if leaf.demand is not None and moment.get(id(leaf))
        ]
        pods = default = sum(pod_set.count for pod_set in pod_sets)
    explicit = (
        evaluate_count(rule, "min_member", scope_value, context, what=f"PodGroup {name} minMember")
        if scaled is None
        else None
    )
    min_member = default if explicit is None else explicit
    if scaled is not None:
        constraint = scaled.copy()
    elif rule.topology_constraint is not None:
        constraint = evaluate_constraint(rule.topology_constraint, scope_value, context)
    else:
        constraint = annotation_constraint(context.resource) if annotated is None else annotated.copy()
    group = _GroupContext(name, scope_value, context, min_member, scaled=scaled is not None)
    sub_groups = _subgroups(rule.sub_groups, scope, group)
    # KAI's spec.minSubGroup (a JobSet since v0.16): the gang is its top-level SubGroups, minMember unset.
    gate = evaluate_count(rule, "min_sub_group", scope_value, context, what=f"PodGroup {name} minSubGroup")
    if gate is not None:
        min_member = fewest_pods(sub_groups, gate, None)
    return PodGroup(
        name=name,
        min_member=min_member,
        pods=pods,
        sub_groups=sub_groups,
        pod_sets=pod_sets,
        topology_constraint=constraint,
        min_sub_group=gate,
        source=GangSource(GangOrigin.CATALOG, definition=context.definition.name),
    )


def _scaled_groups(main: PodGroup, scope: _Scope, rule: PodGroupRule, context: EvaluationContext) -> list[PodGroup]:
    """The PodGroups of replicas beyond minReplicas of ``scaledPodGroups`` components in a group."""
    groups = []
    for node in scope.nodes():
        if not node.definition.scaled_pod_groups or node.replicas <= node.gang_replicas:
            continue
        copies = scope.copies(node)
        extra = node.replicas - node.gang_replicas
        what = f"scaled gangs ({copies:,} x {extra:,} replicas of {node.instance or node.name} beyond its minimum)"
        check_budget("scaled_gangs", copies * extra, what)
        constraint = evaluate_constraint(rule.scaled_topology_constraint, node.scope, context)
        if not constraint:
            constraint = main.topology_constraint
        for copy in range(copies):
            for replica in range(node.gang_replicas, node.replicas):
                # Grove numbers scaled PodGangs from 0 over the replicas beyond minAvailable.
                index = replica - node.gang_replicas
                name = node.instance or node.name
                suffix = f"{name}-{index}" if copies == 1 else f"{name}-{copy}-{index}"
                replica_scope = _Scope([node], anchored=True, replica=replica, base=main.name)
                group = _pod_group(f"{main.name}-{suffix}", rule, replica_scope, node.scope, context, scaled=constraint)
                if group:
                    groups.append(group)
    return groups


def component_pods(node: ExpandedComponent) -> tuple[int, list[PodSet]]:
    """Every pod of a component's subtree in the workload, and its pod sets (for a gang formed elsewhere)."""
    scope = _Scope([node], multipliers={node: node.parent_replicas})
    return scope.pods(node), scope.pod_sets([node])


def form_pod_groups(
    context: EvaluationContext,
    workload_name: str,
    nodes: list[ExpandedComponent],
    moment: Mapping[int, int] | None = None,
) -> list[PodGroup]:
    """The PodGroups of the context's resource, expanded into ``nodes`` (empty when the kind is not gang scheduled).

    ``moment``: for a workload whose pods run in order, its pods at the peak moment (per component,
    by ``id``); a PodGroup of the whole workload holds those.

    Raises:
        InputError: a gang expression gave something that is not a count, or the workload would
            form more PodGroups than any cluster holds.
    """
    resource = context.resource
    if context.definition.gang.per_pod_now():  # a PodGroup per pod, as an older KAI release made (perPodBefore)
        return []
    for rule in context.definition.gang.pod_groups:
        if rule_applies(rule, context):
            break
    else:
        return []
    base = f"{workload_name}-{rule.name}" if rule.name else workload_name
    plans: list[tuple[str, _Scope, Any]] = []
    if rule.per_instance:
        for node in (n for root in nodes for n in root.walk() if n.definition.name == rule.per_instance):
            plans.append(
                (
                    f"{base}-{node.instance or node.name}",
                    _Scope([node], multipliers={node: node.parent_replicas}),
                    node.scope,
                )
            )
    elif rule.per_replica:
        index = 0
        for node in (n for root in nodes for n in root.walk() if n.definition.name == rule.per_replica):
            count = node.parent_replicas * node.replicas
            check_budget("pod_groups", index + count, f"PodGroups (one per {rule.per_replica} replica)")
            for replica in range(count):
                # The replica index within its parent names per-replica subgroups ({replica}).
                plans.append(
                    (
                        f"{base}-{index}",
                        _Scope([node], anchored=True, replica=replica % max(node.replicas, 1)),
                        node.scope,
                    )
                )
                index += 1
    else:
        plans.append((base, _Scope(list(nodes)), resource))
    groups: list[PodGroup] = []
    annotated = annotation_constraint(resource) if rule.topology_constraint is None else None
    whole = not (rule.per_instance or rule.per_replica)
    sub_groups = 0  # a running total: summing every group's again after each would make this quadratic
    for name, scope, scope_value in plans:
        group = _pod_group(
            name, rule, scope, scope_value, context, annotated=annotated, moment=moment if whole else None
        )
        if group is None:
            continue
        formed = len(groups)
        groups.append(group)
        groups.extend(_scaled_groups(group, scope, rule, context))
        sub_groups += sum(len(g.sub_groups) for g in groups[formed:])
        check_budget("pod_groups", len(groups), "PodGroups")
        check_budget("sub_groups", sub_groups, "SubGroups")
    return groups
