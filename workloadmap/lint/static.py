"""Static lint rules: mistakes a definition can make that schema validation does not catch.

Each rule is one function registered in the rule table (:mod:`.rules`); it reads the definition
through a :class:`DefinitionView` and yields :class:`~workloadmap.lint.rules.Issue` objects.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .. import runtime_definitions as runtime
from ..definitions import PHASE_PRECEDENCE, ComponentDefinition, Definition, StatusMatcher
from .rules import Issue, rule

__all__ = ["DefinitionView", "POD_SOURCES", "COUNT_FIELDS", "alias", "is_expression"]

POD_SOURCES = ("pod_template", "pod_spec", "resource")
COUNT_FIELDS = ("replicas", "pods_per_replica", "min_replicas", "max_replicas")


def alias(model: Any, field_name: str) -> str:
    """The name a field has in definition files (``podsPerReplica`` for ``pods_per_replica``)."""
    return type(model).model_fields[field_name].alias or field_name


def is_expression(value: Any) -> bool:
    """A count field holding an expression (validation turns numeric constants into ints)."""
    return isinstance(value, str)


def _normalized(text: str) -> str:
    return "".join(text.split())


class DefinitionView:
    """A definition with its components indexed by path and name, as the rules read it."""

    def __init__(self, definition: Definition) -> None:
        self.definition = definition
        self.entries = list(self._walk())
        self.paths = {id(component): path for path, component, _ in self.entries}
        self.by_name = {component.name: component for _, component, _ in self.entries}

    def _walk(self) -> Iterator[tuple[str, ComponentDefinition, list[ComponentDefinition]]]:
        """``(path, component, ancestors)`` for every component, depth first."""

        def walk(
            component: ComponentDefinition, path: str, ancestors: list[ComponentDefinition]
        ) -> Iterator[tuple[str, ComponentDefinition, list[ComponentDefinition]]]:
            yield path, component, ancestors
            for index, child in enumerate(component.components):
                yield from walk(child, f"{path}.components[{index}]", [*ancestors, component])

        for index, component in enumerate(self.definition.components):
            yield from walk(component, f"components[{index}]", [])

    def field(self, component: ComponentDefinition, field_name: str) -> str:
        """The path of one field of a component (``components[0].replicas``)."""
        return f"{self.paths[id(component)]}.{alias(component, field_name)}"


def has_pod_source(component: runtime.ComponentDefinition) -> bool:
    """Whether the component declares where its pods are (template, spec or embedded resource, or a ``like``'s)."""
    return component.like is not None or any(getattr(component, name) for name in POD_SOURCES)


def subtree_has_pods(component: runtime.ComponentDefinition) -> bool:
    """Whether the component or a descendant declares pods."""
    return any(has_pod_source(node) for node in component.walk())


# -- components ------------------------------------------------------------------------------


@rule(
    "no-pod-source",
    "error",
    "A component with no podTemplate/podSpec/resource and no children can never run a pod.",
)
def no_pod_source(view: DefinitionView) -> Iterator[Issue]:
    for path, component, _ in view.entries:
        if not has_pod_source(component) and not component.components:
            yield Issue(
                path,
                f"component {component.name!r} has no podTemplate, podSpec or resource and no child "
                "components: it can never run a pod",
            )


def _same_scope_sizes(
    view: DefinitionView, component: ComponentDefinition, ancestors: list[ComponentDefinition]
) -> list[tuple[str, ComponentDefinition]]:
    """Components whose podsPerReplica is evaluated in the scope of ``component``'s replicas.

    That is its own, its siblings' (when neither has instances), its descendants' down to an
    instances boundary.
    """
    candidates: list[tuple[str, ComponentDefinition]] = [("its own", component)]
    siblings = ancestors[-1].components if ancestors else view.definition.components
    if not component.instances:
        candidates += [("sibling", other) for other in siblings if other is not component and not other.instances]
    stack = list(component.components)
    while stack:
        node = stack.pop()
        if node.instances:
            continue
        candidates.append(("descendant", node))
        stack.extend(node.components)
    return candidates


@rule(
    "replicas-is-size",
    "error",
    "A component's replicas is the same expression as its own, a sibling's or a descendant's podsPerReplica: "
    "the pods of one group used as a group count (the Workload Map LWS bug).",
)
def replicas_is_size(view: DefinitionView) -> Iterator[Issue]:
    for _, component, ancestors in view.entries:
        if not is_expression(component.replicas):
            continue
        replicas = _normalized(str(component.replicas))
        for relation, other in _same_scope_sizes(view, component, ancestors):
            size = other.pods_per_replica
            if is_expression(size) and _normalized(str(size)) == replicas:
                whose = "its own" if relation == "its own" else f"{relation} {other.name!r}'s"
                yield Issue(
                    view.field(component, "replicas"),
                    f"component {component.name!r} replicas {component.replicas!r} is {whose} podsPerReplica: "
                    "the pods of one replica used as a replica count (the LWS group bug); replicas counts "
                    "replicas per parent replica, podsPerReplica the pods in one",
                )


# JMESPath AST nodes whose first child is evaluated in the current scope and the others relative
# to its result.
_LEFT_SCOPED = frozenset({"projection", "value_projection", "filter_projection", "index_expression", "flatten", "pipe"})


def _field_chain(node: Mapping[str, Any]) -> str | None:
    kind = node.get("type")
    if kind == "field":
        return str(node.get("value"))
    if kind == "function_expression" and node.get("value") == "root" and not node.get("children"):
        return "root()"
    if kind == "subexpression":
        parts = [_field_chain(child) for child in node.get("children", [])]
        if parts and all(parts) and "root()" not in parts[1:]:
            return ".".join(part for part in parts if part)
    return None


def _field_paths(node: Any, found: set[str]) -> None:
    """Field paths an expression reads from its scope (``root()``-prefixed when it reads the resource)."""
    if not isinstance(node, Mapping):
        return
    chain = _field_chain(node)
    if chain is not None:
        if chain != "root()":
            found.add(chain)
        return
    kind = node.get("type")
    children = [child for child in node.get("children", []) if isinstance(child, Mapping)]
    if kind == "subexpression":
        prefix: list[str] = []
        for child in children:
            part = _field_chain(child)
            if part is None or (part == "root()" and prefix):
                break
            prefix.append(part)
        if prefix and prefix != ["root()"]:
            found.add(".".join(prefix))
        elif children:
            _field_paths(children[0], found)
        return
    if kind in _LEFT_SCOPED:
        if children:
            _field_paths(children[0], found)
        return
    if kind == "expref":
        return
    for child in children:
        _field_paths(child, found)


def _reads(component: ComponentDefinition, field_name: str, resource_scope: bool) -> set[str]:
    """Field paths a count expression reads; in the resource's own scope ``root().x`` is ``x``."""
    expression = component.compiled(field_name)
    if not is_expression(getattr(component, field_name)) or expression is None or expression.language != "jmespath":
        return set()
    found: set[str] = set()
    _field_paths(expression.parsed, found)
    if resource_scope:
        return {path[len("root().") :] if path.startswith("root().") else path for path in found}
    return found


def _scope_chain(ancestors: list[ComponentDefinition], component: ComponentDefinition) -> list[ComponentDefinition]:
    """The ancestors evaluated in the same scope as ``component`` (no instances boundary between)."""
    same: list[ComponentDefinition] = []
    if component.instances:
        return same
    for ancestor in reversed(ancestors):
        same.append(ancestor)
        if ancestor.instances:
            break
    return same


@rule(
    "replicas-counted-twice",
    "warning",
    "A descendant's replicas/podsPerReplica reads a field an ancestor's replicas also reads, in the same "
    "scope: nested components already multiply by their ancestors' replicas.",
)
def replicas_counted_twice(view: DefinitionView) -> Iterator[Issue]:
    for _, component, ancestors in view.entries:
        resource_scope = not any(ancestor.instances for ancestor in ancestors)
        for ancestor in _scope_chain(ancestors, component):
            ancestor_reads = _reads(ancestor, "replicas", resource_scope)
            if not ancestor_reads:
                continue
            for field_name in ("replicas", "pods_per_replica"):
                shared = sorted(ancestor_reads & _reads(component, field_name, resource_scope))
                if shared:
                    yield Issue(
                        view.field(component, field_name),
                        f"component {component.name!r} {alias(component, field_name)} reads {shared[0]}, which "
                        f"ancestor {ancestor.name!r} replicas already reads; nested components are multiplied "
                        "by their ancestors' replicas, so the factor is counted twice",
                    )


@rule(
    "jmespath-not-precedence",
    "error",
    "`!a.b` parses as `(!a).b` (`!` binds tighter than `.` and `[]`), which is always null; `!(a.b)` was meant.",
)
def jmespath_not_precedence(view: DefinitionView) -> Iterator[Issue]:
    for path, model, field_name, _ in view.definition.expression_fields():
        expression = model.compiled(field_name)
        if expression is None or expression.language != "jmespath":
            continue
        stack = [expression.parsed]
        while stack:
            node = stack.pop()
            if not isinstance(node, Mapping):
                continue
            children = [child for child in node.get("children", []) if isinstance(child, Mapping)]
            if (
                node.get("type") in _LEFT_SCOPED | {"subexpression"}
                and children
                and children[0].get("type") == "not_expression"
            ):
                yield Issue(
                    f"{path}.{alias(model, field_name)}",
                    f"in {expression.source!r}, `!` binds tighter than `.` and `[]`: `!a.b` is `(!a).b`, "
                    "which is always null; write `!(a.b)`",
                )
                break
            stack.extend(children)


# -- gang ------------------------------------------------------------------------------------


@rule(
    "gang-rule-unreachable",
    "warning",
    "A PodGroup rule after one without `when` (for every KAI release: no kaiSince/kaiBefore) is never used.",
)
def gang_rule_unreachable(view: DefinitionView) -> Iterator[Issue]:
    rules = view.definition.gang.pod_groups
    for index in range(1, len(rules)):
        if any(
            earlier.when is None and earlier.kai_since is None and earlier.kai_before is None
            for earlier in rules[:index]
        ):
            yield Issue(
                f"gang.podGroups[{index}]", "an earlier PodGroup rule has no `when`, so this rule is never used"
            )


@rule("gang-remainder", "warning", "`minMember: remainder` on a PodGroup rule: it only means something on a subgroup.")
def gang_remainder(view: DefinitionView) -> Iterator[Issue]:
    for index, group_rule in enumerate(view.definition.gang.pod_groups):
        if group_rule.min_member == "remainder":
            yield Issue(
                f"gang.podGroups[{index}].minMember",
                "`remainder` only means something on a subgroup; on a PodGroup rule it is an expression "
                "reading field `remainder`",
            )


@rule(
    "gang-no-pods",
    "error",
    "A perInstance/perReplica/subGroups entry names a component whose subtree has no pod source.",
)
def gang_no_pods(view: DefinitionView) -> Iterator[Issue]:
    for index, group_rule in enumerate(view.definition.gang.pod_groups):
        path = f"gang.podGroups[{index}]"
        for field_name in ("per_instance", "per_replica"):
            name = getattr(group_rule, field_name)
            if name and not subtree_has_pods(view.by_name[name]):
                yield Issue(
                    f"{path}.{alias(group_rule, field_name)}",
                    f"component {name!r} and its children have no pod source: the rule forms no PodGroup",
                )
        for sub_index, sub in enumerate(group_rule.sub_groups):
            if not subtree_has_pods(view.by_name[sub.component]):
                yield Issue(
                    f"{path}.subGroups[{sub_index}].component",
                    f"component {sub.component!r} and its children have no pod source: the subgroup is always empty",
                )


@rule(
    "gang-subgroup-out-of-scope",
    "error",
    "A subgroup of a per-instance/per-replica rule names a component outside that component's subtree.",
)
def gang_subgroup_out_of_scope(view: DefinitionView) -> Iterator[Issue]:
    for index, group_rule in enumerate(view.definition.gang.pod_groups):
        anchor_name = group_rule.per_instance or group_rule.per_replica
        if not anchor_name:
            continue
        in_scope = {node.name for node in view.by_name[anchor_name].walk()}
        for sub_index, sub in enumerate(group_rule.sub_groups):
            if subtree_has_pods(view.by_name[sub.component]) and sub.component not in in_scope:
                yield Issue(
                    f"gang.podGroups[{index}].subGroups[{sub_index}].component",
                    f"component {sub.component!r} is not inside {anchor_name!r}, the component each PodGroup "
                    "of this rule is formed from: the subgroup is always empty",
                )


# -- status ----------------------------------------------------------------------------------


def _matchers(view: DefinitionView) -> Iterator[tuple[str, StatusMatcher]]:
    for phase, matchers in view.definition.status.rules.items():
        for index, matcher in enumerate(matchers):
            yield f"status.rules.{phase.value}[{index}]", matcher


@rule("status-empty-phase", "warning", "A phase with an empty list of matchers.")
def status_empty_phase(view: DefinitionView) -> Iterator[Issue]:
    for phase, matchers in view.definition.status.rules.items():
        if not matchers:
            yield Issue(f"status.rules.{phase.value}", "no matchers: the phase is never mapped")


@rule("status-phase-unset", "error", "A matcher checks `phase` but `status.phase` is not set: it can never fire.")
def status_phase_unset(view: DefinitionView) -> Iterator[Issue]:
    for path, matcher in _matchers(view):
        if matcher.phase is not None and view.definition.status.phase is None:
            yield Issue(
                f"{path}.phase",
                "matches a raw phase but status.phase (the expression giving it) is not set: never fires",
            )


@rule("status-conditions-unset", "error", "A matcher checks `conditions` but `status.conditions` is null.")
def status_conditions_unset(view: DefinitionView) -> Iterator[Issue]:
    for path, matcher in _matchers(view):
        if matcher.conditions and view.definition.status.conditions is None:
            yield Issue(f"{path}.conditions", "checks conditions but status.conditions is null: never fires")


@rule("status-reason-unset", "error", "A matcher checks a condition `reason` while `conditionFields.reason` is empty.")
def status_reason_unset(view: DefinitionView) -> Iterator[Issue]:
    if view.definition.status.condition_fields.reason:
        return
    for path, matcher in _matchers(view):
        for check_index, check in enumerate(matcher.conditions or []):
            if check.reason is not None:
                yield Issue(
                    f"{path}.conditions[{check_index}].reason",
                    "checks a reason but conditionFields.reason is empty: never fires",
                )


def _accepted(value: str | list[str] | None) -> set[str] | None:
    if value is None:
        return None
    return {value} if isinstance(value, str) else set(value)


def _matcher_key(matcher: StatusMatcher) -> Any:
    phases = _accepted(matcher.phase)
    # A status may be absent (None): it sorts before every given status rather than beside it.
    conditions = sorted(
        (check.type, (check.status is not None, check.status or ""), tuple(sorted(_accepted(check.reason) or ())))
        for check in matcher.conditions or []
    )
    return (
        tuple(sorted(phases)) if phases is not None else None,
        tuple(conditions),
        matcher.expression,
        repr(matcher.equals),
    )


def _implies(lower: StatusMatcher, higher: StatusMatcher) -> bool:
    """Whether every resource ``lower`` matches is matched by ``higher`` too (a syntactic check)."""
    higher_phases, lower_phases = _accepted(higher.phase), _accepted(lower.phase)
    if higher_phases is not None and (lower_phases is None or not lower_phases <= higher_phases):
        return False
    for check in higher.conditions or []:
        reasons = _accepted(check.reason)
        if not any(
            own.type == check.type
            and (check.status is None or own.status == check.status)
            and (reasons is None or (own.reason is not None and (_accepted(own.reason) or set()) <= reasons))
            for own in lower.conditions or []
        ):
            return False
    if higher.expression is not None:
        if lower.expression is None or _normalized(lower.expression) != _normalized(higher.expression):
            return False
        if repr(lower.equals) != repr(higher.equals):
            return False
    return True


@rule(
    "status-shadowed",
    "warning",
    "A matcher of a phase is implied by a matcher of a higher-precedence phase (or duplicates one of its own "
    "phase): it can never decide the phase.",
)
def status_shadowed(view: DefinitionView) -> Iterator[Issue]:
    rules = view.definition.status.rules
    ordered = [
        (phase, index, matcher) for phase in PHASE_PRECEDENCE for index, matcher in enumerate(rules.get(phase, []))
    ]
    for position, (phase, index, matcher) in enumerate(ordered):
        for other_phase, other_index, other in ordered[:position]:
            if not _implies(matcher, other):
                continue
            other_path = f"status.rules.{other_phase.value}[{other_index}]"
            same = _matcher_key(matcher) == _matcher_key(other)
            if other_phase == phase:
                message = f"{'same as' if same else 'implied by'} {other_path} of the same phase: redundant"
            else:
                message = (
                    f"{'same matcher as' if same else 'implied by'} {other_path}; {other_phase.value} takes "
                    f"precedence over {phase.value}, so this matcher can never decide the phase"
                )
            yield Issue(f"status.rules.{phase.value}[{index}]", message)
            break
