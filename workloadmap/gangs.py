"""Gangs: the PodGroups (and SubGroups) a gang scheduler forms for a workload.

A definition's ``gang.podGroups`` is a list of rules; the first whose ``when`` holds is used.
A rule forms one PodGroup for the whole workload, one per instance of a component
(``perInstance``: JobSet ``InOrder``) or one per replica of a component (``perReplica``: an LWS
group). ``minMember`` defaults to the members' pods at gang scale, where each component counts
``minReplicas`` when positive and ``replicas`` otherwise, multiplied down the tree (the rule KAI's
pod-grouper applies). SubGroups default the same way per component; ``remainder`` gives a
subgroup what the PodGroup's ``minMember`` leaves after the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .definitions import Definition, PodGroupRule, SubGroupRule
from .errors import InputError
from .interpreter import ExpandedComponent, _to_count
from .resources import format_resources
from .tree import PodGroup, PodSet, SubGroup

__all__ = ["form_pod_groups"]


def _truthy(value: Any) -> bool:
    return not (value is None or value is False or value == "" or value == [] or value == {})


class _Scope:
    """The members of one PodGroup: a set of expanded components and how many of each pod it holds.

    ``factor`` maps a component path to how many replicas of that component's *parent chain* the
    group contains (1 for a per-replica group, the full multiplicity for a workload group).
    """

    def __init__(self, roots: list[ExpandedComponent], per_replica_of: ExpandedComponent | None = None) -> None:
        self.roots = roots
        self.per_replica_of = per_replica_of

    def nodes(self) -> Iterable[ExpandedComponent]:
        for root in self.roots:
            yield from root.walk()

    def pods(self, node: ExpandedComponent) -> int:
        """Declared pods of ``node``'s subtree inside this group."""
        return self._count(node, gang=False)

    def gang_pods(self, node: ExpandedComponent) -> int:
        """Pods of ``node``'s subtree inside this group at gang (minimum-first) scale."""
        return self._count(node, gang=True)

    def _count(self, node: ExpandedComponent, gang: bool) -> int:
        anchor = self.per_replica_of
        if anchor is None:
            parent = node.parent_gang_replicas if gang else node.parent_replicas
            own = node.gang_pods_per_parent_replica() if gang else node.pods_per_parent_replica()
            return parent * own
        if node is anchor:
            # One replica of the anchor: its subtree per one replica.
            per_parent = node.gang_pods_per_parent_replica() if gang else node.pods_per_parent_replica()
            replicas = node.gang_replicas if gang else node.replicas
            return per_parent // replicas if replicas else 0
        # A descendant of the anchor: multiply replicas from the anchor (exclusive) down to the node.
        chain = self._chain(anchor, node)
        if chain is None:
            return 0
        multiplier = 1
        for between in chain[1:-1]:
            multiplier *= between.gang_replicas if gang else between.replicas
        own = node.gang_pods_per_parent_replica() if gang else node.pods_per_parent_replica()
        return multiplier * own

    @staticmethod
    def _chain(anchor: ExpandedComponent, node: ExpandedComponent) -> list[ExpandedComponent] | None:
        stack: list[tuple[ExpandedComponent, list[ExpandedComponent]]] = [(anchor, [anchor])]
        while stack:
            current, path = stack.pop()
            if current is node:
                return path
            for child in current.children:
                stack.append((child, path + [child]))
        return None

    def pod_sets(self, nodes: Iterable[ExpandedComponent]) -> list[PodSet]:
        sets = []
        for top in nodes:
            for leaf in top.leaves():
                count = self.pods(leaf)
                if count and leaf.demand is not None:
                    sets.append(PodSet(component=leaf.path, count=count, pod_resources=format_resources(leaf.demand.requests)))
        return sets


def _rule_applies(rule: PodGroupRule, resource: Mapping, refs: Mapping[str, Any]) -> bool:
    expression = rule.compiled("when")
    if expression is None:
        return True
    return _truthy(expression.search(resource, root=resource, refs=refs))


def _evaluate_count(model, field_name: str, scope: Any, resource: Mapping, what: str, refs: Mapping[str, Any]) -> int | None:
    value = getattr(model, field_name)
    if value is None:
        return None
    if isinstance(value, int):
        return value
    if value.strip().isdigit():
        return int(value)
    expression = model.compiled(field_name)
    if expression is None:
        return None
    result = expression.search(scope, root=resource, refs=refs)
    if result is None:
        return None
    return _to_count(result, what, expression.source)


def _find(nodes: list[ExpandedComponent], component: str) -> list[ExpandedComponent]:
    return [node for root in nodes for node in root.walk() if node.definition.name == component]


def _subgroups(
    rules: list[SubGroupRule],
    scope: _Scope,
    scope_value: Any,
    resource: Mapping,
    group_min: int,
    refs: Mapping[str, Any],
) -> list[SubGroup]:
    built: list[tuple[SubGroupRule, SubGroup]] = []
    for rule in rules:
        targets = [node for node in scope.nodes() if node.definition.name == rule.component]
        if rule.each_instance:
            groups = [(node.instance or node.name, [node]) for node in targets]
        else:
            groups = [(rule.name or rule.component, targets)] if targets else []
        for name, members in groups:
            pods = sum(scope.pods(node) for node in members)
            if pods == 0:
                continue
            default = sum(scope.gang_pods(node) for node in members)
            if rule.min_member == "remainder":
                min_member = -1  # filled in below
            else:
                explicit = _evaluate_count(rule, "min_member", scope_value, resource, f"subgroup {name} minMember", refs)
                min_member = default if explicit is None else explicit
            built.append(
                (
                    rule,
                    SubGroup(
                        name=name,
                        min_member=min_member,
                        parent=rule.parent,
                        pods=pods,
                        pod_sets=scope.pod_sets(members),
                    ),
                )
            )
    for rule, subgroup in built:
        if subgroup.min_member == -1:
            others = sum(
                other.min_member
                for other_rule, other in built
                if other is not subgroup and other.parent == subgroup.parent and other.min_member >= 0
            )
            subgroup.min_member = max(0, group_min - others)
    return [subgroup for _, subgroup in built]


def _pod_group(
    name: str,
    rule: PodGroupRule,
    scope: _Scope,
    scope_value: Any,
    resource: Mapping,
    refs: Mapping[str, Any],
) -> PodGroup | None:
    members = list(scope.roots)
    pods = sum(scope.pods(node) for node in members)
    if pods == 0:
        return None
    default = sum(scope.gang_pods(node) for node in members)
    explicit = _evaluate_count(rule, "min_member", scope_value, resource, f"PodGroup {name} minMember", refs)
    min_member = default if explicit is None else explicit
    return PodGroup(
        name=name,
        min_member=min_member,
        pods=pods,
        sub_groups=_subgroups(rule.sub_groups, scope, scope_value, resource, min_member, refs),
        pod_sets=scope.pod_sets(members),
    )


def form_pod_groups(
    definition: Definition,
    resource: Mapping,
    workload_name: str,
    nodes: list[ExpandedComponent],
    refs: Mapping[str, Any] | None = None,
) -> list[PodGroup]:
    """The PodGroups of a resource (empty when the kind is not gang scheduled).

    Raises:
        InputError: a gang expression gave something that is not a count.
    """
    refs = refs or {}
    rule = next((rule for rule in definition.gang.pod_groups if _rule_applies(rule, resource, refs)), None)
    if rule is None:
        return []
    base = f"{workload_name}-{rule.name}" if rule.name else workload_name
    groups: list[PodGroup] = []
    if rule.per_instance:
        for node in _find(nodes, rule.per_instance):
            group = _pod_group(f"{base}-{node.instance or node.name}", rule, _Scope([node]), node.scope, resource, refs)
            if group:
                groups.append(group)
    elif rule.per_replica:
        index = 0
        for node in _find(nodes, rule.per_replica):
            # Every replica of the anchor is an identical group: build one, then copy it with its index.
            template = _pod_group(base, rule, _Scope([node], per_replica_of=node), node.scope, resource, refs)
            count = node.parent_replicas * node.replicas
            if template is None:
                continue
            if count > 100_000:
                raise InputError(f"{count} PodGroups (one per {rule.per_replica} replica) is beyond any real cluster")
            for _ in range(count):
                groups.append(template.model_copy(update={"name": f"{base}-{index}"}, deep=True))
                index += 1
    else:
        group = _pod_group(base, rule, _Scope(nodes), resource, resource, refs)
        if group:
            groups.append(group)
    return groups
