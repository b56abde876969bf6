"""Sample rules: a definition evaluated on sample resources, and the rules that judge the evidence.

:class:`SampleRun` walks every sample as the interpreter would (inside each instance of a
multi-instance component, and only where a component's role is present), counting how often each
expression gives null, noting failures, and keeping the expanded components, PodGroups and status
conditions. The sample rules registered here then read that evidence.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..catalog import Catalog
from ..definitions import ComponentDefinition
from ..errors import ExpressionError, WorkloadMapError
from ..interpreter import (
    EvaluationContext,
    ExpandedComponent,
    Expander,
    ObjectIndex,
    evaluate_phase,
    form_pod_groups,
    resolve_references,
    rule_applies,
)
from ..tree import PodGroup
from ..values import mapping_at, truthy
from .rules import Issue, rule
from .static import COUNT_FIELDS, POD_SOURCES, DefinitionView, alias, is_expression

__all__ = ["Sample", "SampleRun"]


@dataclass(frozen=True)
class Sample:
    """A resource of the definition's kind, and how messages name it."""

    body: Mapping[str, Any]
    label: str


@dataclass
class _Usage:
    evaluated: int = 0
    matched: int = 0


@dataclass
class _Expanded:
    """One sample the interpreter could expand: its components, PodGroups and the gang rule index."""

    sample: str
    nodes: list[ExpandedComponent]
    pod_groups: list[PodGroup]
    rule_index: int | None
    resource: Mapping[str, Any] | None = None


@dataclass
class SampleRun:
    """Evidence from evaluating a definition on its samples (see the module docstring).

    Attributes:
        view: the definition.
        samples: resources of the definition's kind.
        related: every object of the sample files, for ``references``.
        catalog: definitions for embedded resources, with the linted one in place.
    """

    view: DefinitionView
    samples: list[Sample]
    related: list[Mapping[str, Any]]
    catalog: Catalog
    usage: dict[str, _Usage] = field(default_factory=dict)
    failures: list[Issue] = field(default_factory=list)
    not_lists: list[Issue] = field(default_factory=list)
    sample_failures: list[Issue] = field(default_factory=list)
    expanded: list[_Expanded] = field(default_factory=list)
    conditions: list[Mapping[str, Any]] = field(default_factory=list)
    _failed_fields: set[str] = field(default_factory=set)
    _failed_on_sample: bool = False

    def evaluate(
        self, model: Any, field_name: str, scope: Any, context: EvaluationContext, where: str, sample: str
    ) -> Any:
        """Evaluate one expression as the interpreter would, counting nulls and noting failures."""
        expression = model.compiled(field_name)
        if expression is None:
            return None
        usage = self.usage.setdefault(where, _Usage())
        usage.evaluated += 1
        try:
            result = expression.search(scope, root=context.resource, refs=context.refs)
        except ExpressionError as error:
            self._failed_on_sample = True
            if where not in self._failed_fields:  # the first failing sample is enough
                self._failed_fields.add(where)
                self.failures.append(Issue(where, f"{error.message} (sample {sample})"))
            return None
        if result is not None:
            usage.matched += 1
        return result

    def run(self) -> SampleRun:
        """Evaluate every sample; returns ``self`` with the evidence filled in."""
        related = ObjectIndex(self.related)
        definition = self.view.definition
        for sample in self.samples:
            resource = sample.body
            metadata = mapping_at(resource, "metadata")
            namespace = metadata.get("namespace") if isinstance(metadata.get("namespace"), str) else None
            self._failed_on_sample = False
            context = EvaluationContext(
                definition, resource, resolve_references(definition, resource, related, namespace, [])
            )
            self._walk_expressions(context, sample.label)
            self._expand(sample, str(metadata.get("name") or "sample"), context)
        return self

    def _walk_expressions(self, context: EvaluationContext, sample: str) -> None:
        definition, resource = self.view.definition, context.resource  # the model: lint reads its aliases
        for index, reference in enumerate(definition.references):
            self.evaluate(
                reference, "name_expression", resource, context, f"references[{index}].nameExpression", sample
            )
        for index, component in enumerate(definition.components):
            self._walk(component, f"components[{index}]", resource, context, sample)
        for index, group_rule in enumerate(definition.gang.pod_groups):
            self.evaluate(group_rule, "when", resource, context, f"gang.podGroups[{index}].when", sample)
        if truthy(resource.get("status")):
            self.conditions.extend(self._status(resource, sample))

    def _expand(self, sample: Sample, name: str, context: EvaluationContext) -> None:
        definition, resource = context.definition, context.resource
        try:
            nodes = Expander(context, catalog=self.catalog).expand()
            pod_groups = form_pod_groups(context, name, nodes)
            evaluate_phase(definition.status, resource)
            rules = definition.gang.pod_groups
            rule_index = next((i for i, candidate in enumerate(rules) if rule_applies(candidate, context)), None)
        except ExpressionError as error:
            # Component and status expressions already reported with their field on this sample.
            if not self._failed_on_sample:
                self.failures.append(Issue(None, f"{error} (sample {sample.label})"))
            return
        except WorkloadMapError as error:
            self.sample_failures.append(Issue(None, f"sample {sample.label}: {error}"))
            return
        self.expanded.append(_Expanded(sample.label, nodes, pod_groups, rule_index, resource))

    def _elements(
        self, component: ComponentDefinition, path: str, scope: Any, context: EvaluationContext, sample: str
    ) -> list[Any]:
        if not component.instances:
            return [scope]
        where = f"{path}.instances"
        result = self.evaluate(component, "instances", scope, context, where, sample)
        if result is None:
            elements: list[Any] = []
        elif isinstance(result, list):
            elements = result
        elif isinstance(result, Mapping):
            elements = list(result.values())
        else:
            if where not in {issue.field for issue in self.not_lists}:
                self.not_lists.append(
                    Issue(where, f"yields {type(result).__name__}, not a list or mapping, on sample {sample}")
                )
            elements = []
        if component.instance_name:
            for element in elements:
                self.evaluate(component, "instance_name", element, context, f"{path}.instanceName", sample)
        return elements

    def _walk(
        self, component: ComponentDefinition, path: str, scope: Any, context: EvaluationContext, sample: str
    ) -> None:
        def where(field_name: str) -> str:
            return f"{path}.{alias(component, field_name)}"

        for element in self._elements(component, path, scope, context, sample):
            present = True
            for field_name in POD_SOURCES:
                if getattr(component, field_name):
                    found = self.evaluate(component, field_name, element, context, where(field_name), sample)
                    present = found is not None
            if not present and component.resource is None and not component.components:
                continue  # an optional role absent from this sample: its other expressions are not evaluated
            if component.pod_metadata:
                self.evaluate(component, "pod_metadata", element, context, where("pod_metadata"), sample)
            if component.active:
                self.evaluate(component, "active", element, context, where("active"), sample)
            for field_name in COUNT_FIELDS:
                if is_expression(getattr(component, field_name)):
                    self.evaluate(component, field_name, element, context, where(field_name), sample)
            for index, child in enumerate(component.components):
                self._walk(child, f"{path}.components[{index}]", element, context, sample)

    def _status(self, resource: Mapping[str, Any], sample: str) -> list[Mapping[str, Any]]:
        status = self.view.definition.status
        bare = EvaluationContext(self.view.definition, resource, {})  # status rules read no references, as phases
        self.evaluate(status, "phase", resource, bare, "status.phase", sample)
        conditions = None
        if any(matcher.conditions for matchers in status.rules.values() for matcher in matchers):
            # Unused, the default conditions expression says nothing; judged only when a matcher reads it.
            conditions = self.evaluate(status, "conditions", resource, bare, "status.conditions", sample)
        for phase, matchers in status.rules.items():
            for index, matcher in enumerate(matchers):
                if matcher.expression is not None:
                    where = f"status.rules.{phase.value}[{index}].expression"
                    self.evaluate(matcher, "expression", resource, bare, where, sample)
        if isinstance(conditions, list):
            return [condition for condition in conditions if isinstance(condition, Mapping)]
        return []


@rule(
    "expression-fails", "error", "An expression raises on a sample (a function given the wrong type ...).", samples=True
)
def expression_fails(run: SampleRun) -> list[Issue]:
    return run.failures


@rule(
    "instances-not-a-list",
    "error",
    "An `instances` expression yields something that is neither a list nor a mapping.",
    samples=True,
)
def instances_not_a_list(run: SampleRun) -> list[Issue]:
    return run.not_lists


@rule("sample-fails", "warning", "`inspect` of a sample fails (the sample may be at fault).", samples=True)
def sample_fails(run: SampleRun) -> list[Issue]:
    return run.sample_failures


_DETAIL_BY_LEAF = {
    "podTemplate": "the role is absent from every sample (optional role not exercised, or a wrong path)",
    "podSpec": "the role is absent from every sample (optional role not exercised, or a wrong path)",
    "resource": "the role is absent from every sample (optional role not exercised, or a wrong path)",
    "minReplicas": "the default always applies (knob not exercised, or a wrong path)",
    "maxReplicas": "the default always applies (knob not exercised, or a wrong path)",
    "active": "the default always applies (knob not exercised, or a wrong path)",
    "podMetadata": "the default always applies (knob not exercised, or a wrong path)",
}


@rule(
    "never-matches",
    "warning",
    "An expression yields null on every sample scope it was evaluated in (gang minMember is not judged: "
    "null is its documented default).",
    samples=True,
)
def never_matches(run: SampleRun) -> Iterator[Issue]:
    definition = run.view.definition
    order = {
        f"{path}.{alias(model, name)}": index
        for index, (path, model, name, _) in enumerate(definition.expression_fields())
    }
    for where, usage in sorted(run.usage.items(), key=lambda item: order.get(item[0], len(order))):
        if usage.evaluated and not usage.matched:
            detail = _DETAIL_BY_LEAF.get(where.rsplit(".", 1)[-1], "a wrong path, or a field the samples never set")
            yield Issue(where, f"null on all {len(run.samples)} sample(s) ({usage.evaluated} evaluation(s)): {detail}")


def _size_mismatches(run: SampleRun, *, exceed: bool) -> Iterator[Issue]:
    reported: set[str] = set()
    for expanded in run.expanded:
        for root in expanded.nodes:
            for node in root.walk():
                component = node.definition
                # An embedded resource's component belongs to its own kind's definition, linted with its own file.
                if id(component) not in run.view.paths or not isinstance(component, ComponentDefinition):
                    continue
                if node.has_pods or not node.children or "pods_per_replica" not in component.model_fields_set:
                    continue
                if node.replicas == 0:
                    continue
                declared = node.pods_per_replica
                computed = sum(child.pods_per_parent_replica() for child in node.children)
                where = run.view.field(component, "pods_per_replica")
                if where in reported or (computed > declared) != exceed or computed == declared:
                    continue
                reported.add(where)
                yield Issue(
                    where,
                    f"on sample {expanded.sample}, the children of {node.path!r} run {computed} pods per replica but "
                    f"it declares podsPerReplica {declared}",
                )


@rule(
    "children-exceed-size",
    "error",
    "A component without pods of its own that declares podsPerReplica has children running more pods per replica.",
    samples=True,
)
def children_exceed_size(run: SampleRun) -> Iterator[Issue]:
    return _size_mismatches(run, exceed=True)


@rule(
    "children-below-size",
    "warning",
    "A component without pods of its own that declares podsPerReplica has children running fewer pods per replica.",
    samples=True,
)
def children_below_size(run: SampleRun) -> Iterator[Issue]:
    return _size_mismatches(run, exceed=False)


@rule(
    "gang-min-exceeds-pods",
    "warning",
    "A PodGroup or subgroup formed from a sample needs more members than it has pods: the gang can never be scheduled.",
    samples=True,
)
def gang_min_exceeds_pods(run: SampleRun) -> Iterator[Issue]:
    reported: set[str] = set()
    for expanded in run.expanded:
        if expanded.rule_index is None:
            continue
        path = f"gang.podGroups[{expanded.rule_index}]"
        for group in expanded.pod_groups:
            if group.min_member > group.pods and f"{path}.minMember" not in reported:
                reported.add(f"{path}.minMember")
                yield Issue(
                    f"{path}.minMember",
                    f"on sample {expanded.sample}, PodGroup {group.name} needs minMember {group.min_member} but has "
                    f"{group.pods} pods: it can never be scheduled",
                )
            for sub in group.sub_groups:
                if sub.min_member > sub.pods and f"{path}.subGroups" not in reported:
                    reported.add(f"{path}.subGroups")
                    yield Issue(
                        f"{path}.subGroups",
                        f"on sample {expanded.sample}, subgroup {sub.name} of PodGroup {group.name} needs minMember "
                        f"{sub.min_member} but has {sub.pods} pods: it can never be scheduled",
                    )


@rule(
    "component-never-has-pods",
    "warning",
    "A component named by a gang rule yields no pods on any sample.",
    samples=True,
)
def component_never_has_pods(run: SampleRun) -> Iterator[Issue]:
    if not run.expanded:
        return
    definition = run.view.definition
    gang_names = {
        name
        for group_rule in definition.gang.pod_groups
        for name in [group_rule.per_instance, group_rule.per_replica, *(sub.component for sub in group_rule.sub_groups)]
        if name
    }
    pods = {name: 0 for name in gang_names}
    for expanded in run.expanded:
        for root in expanded.nodes:
            for node in root.walk():
                if node.definition.name in pods:
                    pods[node.definition.name] += node.pods()
    for name, count in sorted(pods.items()):
        if count == 0:
            yield Issue(
                run.view.paths[id(run.view.by_name[name])],
                f"component {name!r}, used by a gang rule, has no pods on any of {len(run.expanded)} sample(s)",
            )


@rule(
    "status-reason-absent",
    "warning",
    "A matcher checks a condition reason but no condition of that type (or none at all) in the samples carries "
    "the reason field.",
    samples=True,
)
def status_reason_absent(run: SampleRun) -> Iterator[Issue]:
    fields = run.view.definition.status.condition_fields
    if not run.conditions or not fields.reason:
        return
    for phase, matchers in run.view.definition.status.rules.items():
        for index, matcher in enumerate(matchers):
            for check_index, check in enumerate(matcher.conditions or []):
                if check.reason is None:
                    continue
                of_type = [c for c in run.conditions if str(c.get(fields.type)) == check.type]
                pool = of_type or run.conditions
                if any(fields.reason in condition for condition in pool):
                    continue
                scope = f"{check.type} conditions" if of_type else "conditions"
                yield Issue(
                    f"status.rules.{phase.value}[{index}].conditions[{check_index}].reason",
                    f"checks a reason but none of the samples' {scope} ({len(pool)}) carries a "
                    f"{fields.reason!r} field: may never fire",
                )
