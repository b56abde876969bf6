"""Catalog lint: mistakes a definition can make that schema validation does not catch.

:func:`~workloadmap.catalog.load_definition` already checks the format and compiles every
expression. The lint looks for definitions that are valid but wrong, statically and, when sample
resources are given, by evaluating the definition on them. Every finding has a ``rule`` id:

Static rules (no samples needed)
    ``no-pod-source`` (error)
        A component with no ``podTemplate``/``podSpec``/``resource`` and no children can never
        run a pod.
    ``replicas-is-size`` (error)
        A component's ``replicas`` expression is the same expression as its own, a sibling's or
        a descendant's ``podsPerReplica``: the pods-per-group count used as a group count (the
        Workload Map LWS bug, where the group component took ``size`` as its replicas).
    ``replicas-counted-twice`` (warning)
        A descendant's ``replicas``/``podsPerReplica`` reads a field that an ancestor's
        ``replicas`` also reads, in the same scope. Nested components already multiply by their
        ancestors' replicas, so the factor is most likely counted twice.
    ``jmespath-not-precedence`` (error)
        ``!a.b`` parses as ``(!a).b`` (``!`` binds tighter than ``.`` and ``[]``), which is
        always null; ``!(a.b)`` was meant.
    ``gang-no-pods`` (error)
        A ``perInstance``/``perReplica``/``subGroups`` entry names a component whose subtree has
        no pod source.
    ``gang-subgroup-out-of-scope`` (error)
        A subgroup of a per-instance/per-replica rule names a component outside that component's
        subtree: the subgroup is always empty.
    ``gang-rule-unreachable`` (warning)
        A PodGroup rule after one without ``when`` is never used.
    ``gang-remainder`` (warning)
        ``minMember: remainder`` on a PodGroup rule (it only means something on a subgroup).
    ``status-phase-unset`` (error)
        A matcher checks ``phase`` but ``status.phase`` is not set: it can never fire.
    ``status-conditions-unset`` (error)
        A matcher checks ``conditions`` but ``status.conditions`` is null.
    ``status-reason-unset`` (error)
        A matcher checks a condition ``reason`` while ``conditionFields.reason`` is empty.
    ``status-shadowed`` (warning)
        A matcher of a phase is implied by a matcher of a higher-precedence phase (duplicates
        included): whenever it matches, the other phase wins, so it can never decide the phase.
        Within one phase, a duplicate matcher is redundant.
    ``status-empty-phase`` (warning)
        A phase with an empty list of matchers.

Sample rules (with samples: resources of the definition's group and kind)
    ``never-matches`` (warning)
        An expression yields null on every sample scope it was evaluated in. Expressions are
        evaluated where the interpreter would evaluate them: inside each instance of a
        multi-instance component, and only where the component's role is present. So an
        optional role (a pod template that is null on some samples) is judged on the samples
        that have it; when no sample has the role, only its pod-source expression is reported,
        not every expression below it. Status expressions are judged on samples with a status.
        Gang ``minMember`` expressions are not judged: null is their documented "use the
        default" answer.
    ``expression-fails`` (error)
        An expression raises on a sample (a function given the wrong type ...).
    ``instances-not-a-list`` (error)
        An ``instances`` expression yields something that is neither a list nor a mapping.
    ``sample-fails`` (warning)
        ``inspect`` of a sample fails (the sample may be at fault, hence a warning; the message
        names the sample).
    ``children-exceed-size`` (error) / ``children-below-size`` (warning)
        A component without pods of its own that declares ``podsPerReplica`` (the size of one of
        its replicas, e.g. an LWS group) has children whose pods per replica are more (or fewer)
        than that.
    ``gang-min-exceeds-pods`` (warning)
        A PodGroup or subgroup formed from a sample needs more members than it has pods: the
        gang can never be scheduled (a warning: the sample's own minAvailable may be at fault).
    ``component-never-has-pods`` (warning)
        A component named by a gang rule yields no pods on any sample.
    ``status-reason-absent`` (warning)
        A matcher checks a condition ``reason`` but no condition of that type (or, when the type
        never occurs, no condition at all) in the samples carries the reason field.

Samples are read from FILE|DIR arguments (directories recursively); recorded operator flows
(``schemaVersion``/``events`` files, see the corpus ``recorded/FORMAT.md``) contribute the object
of every STATE event. Objects of other kinds are ignored, but are available as related objects
for ``references``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from .catalog import Catalog, load_definition
from .definitions import (
    PHASE_PRECEDENCE,
    ComponentDefinition,
    Definition,
    StatusMatcher,
)
from .documents import Document, load_objects
from .errors import ExpressionError, InputError, WorkloadMapError

__all__ = ["LintFinding", "lint_definition", "lint_path", "load_samples", "has_errors"]

Severity = Literal["error", "warning"]

_POD_SOURCES = ("pod_template", "pod_spec", "resource")
_COUNT_FIELDS = ("replicas", "pods_per_replica", "min_replicas", "max_replicas")


@dataclass(frozen=True)
class LintFinding:
    """One problem found in a definition.

    Attributes:
        severity: ``error`` (the definition is wrong) or ``warning`` (probably wrong, or unproven).
        file: the definition file, if known.
        definition: the definition's name.
        field: dotted path of the offending field (``components[0].replicas``), if any.
        message: what is wrong, one line.
        rule: the rule id (see the module documentation).
    """

    severity: Severity
    file: str | None
    definition: str
    field: str | None
    message: str
    rule: str

    def to_dict(self) -> dict[str, Any]:
        """Plain data for json/yaml output."""
        return asdict(self)

    def __str__(self) -> str:
        where = ", ".join(part for part in (self.file, f"definition {self.definition}", self.field and f"field {self.field}") if part)
        return f"{where}: {self.severity}: {self.message} [{self.rule}]"


def has_errors(findings: Iterable[LintFinding]) -> bool:
    """Whether any finding has error severity."""
    return any(finding.severity == "error" for finding in findings)


# -- helpers ---------------------------------------------------------------------------------


def _alias(model: Any, field_name: str) -> str:
    return type(model).model_fields[field_name].alias or field_name


def _is_expression(value: Any) -> bool:
    """A count field holding an expression (not an integer or a numeric-string constant)."""
    return isinstance(value, str) and not value.strip().isdigit()


def _normalized(text: str) -> str:
    return "".join(text.split())


def _component_paths(definition: Definition) -> Iterator[tuple[str, ComponentDefinition, list[ComponentDefinition]]]:
    """``(path, component, ancestors)`` for every component, depth first."""

    def walk(component: ComponentDefinition, path: str, ancestors: list[ComponentDefinition]):
        yield path, component, ancestors
        for index, child in enumerate(component.components):
            yield from walk(child, f"{path}.components[{index}]", ancestors + [component])

    for index, component in enumerate(definition.components):
        yield from walk(component, f"components[{index}]", [])


def _has_pod_source(component: ComponentDefinition) -> bool:
    return any(getattr(component, name) for name in _POD_SOURCES)


def _subtree_has_pods(component: ComponentDefinition) -> bool:
    return any(_has_pod_source(node) for node in component.walk())


def _truthy(value: Any) -> bool:
    return not (value is None or value is False or value == "" or value == [] or value == {})


# JMESPath AST nodes whose first child is evaluated in the current scope and the others relative
# to its result.
_LEFT_SCOPED = frozenset({"projection", "value_projection", "filter_projection", "index_expression", "flatten", "pipe"})


def _field_chain(node: Mapping) -> str | None:
    kind = node.get("type")
    if kind == "field":
        return str(node.get("value"))
    if kind == "function_expression" and node.get("value") == "root" and not node.get("children"):
        return "root()"
    if kind == "subexpression":
        parts = [_field_chain(child) for child in node.get("children", [])]
        if parts and all(parts) and "root()" not in parts[1:]:
            return ".".join(parts)  # type: ignore[arg-type]
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
    value = getattr(component, field_name)
    expression = component.compiled(field_name)
    if not _is_expression(value) or expression is None or expression.language != "jmespath":
        return set()
    found: set[str] = set()
    _field_paths(expression._compiled.parsed, found)
    if resource_scope:
        return {path[len("root()."):] if path.startswith("root().") else path for path in found}
    return found


# -- static rules ----------------------------------------------------------------------------


class _Linter:
    def __init__(self, definition: Definition) -> None:
        self.definition = definition
        self.findings: list[LintFinding] = []
        self._seen: set[tuple[str, str | None, str]] = set()
        self.paths = {id(component): path for path, component, _ in _component_paths(definition)}
        self.by_name = {component.name: component for _, component, _ in _component_paths(definition)}

    def add(self, severity: Severity, rule: str, field: str | None, message: str, *, once_per_field: bool = False) -> None:
        """Record a finding; ``once_per_field`` keeps only the first (sample-specific) one per rule and field."""
        key = (rule, field, "" if once_per_field else message)
        if key in self._seen:
            return
        self._seen.add(key)
        self.findings.append(
            LintFinding(
                severity=severity,
                file=self.definition.source,
                definition=self.definition.name,
                field=field,
                message=" ".join(message.split()),
                rule=rule,
            )
        )

    def field(self, component: ComponentDefinition, field_name: str) -> str:
        return f"{self.paths[id(component)]}.{_alias(component, field_name)}"

    # components --------------------------------------------------------------------------
    def check_components(self) -> None:
        for path, component, ancestors in _component_paths(self.definition):
            if not _has_pod_source(component) and not component.components:
                self.add(
                    "error",
                    "no-pod-source",
                    path,
                    f"component {component.name!r} has no podTemplate, podSpec or resource and no child "
                    "components: it can never run a pod",
                )
        self._check_replica_consistency()

    def _scope_chain(self, ancestors: list[ComponentDefinition], component: ComponentDefinition) -> list[ComponentDefinition]:
        """The ancestors evaluated in the same scope as ``component`` (no instances boundary between)."""
        same: list[ComponentDefinition] = []
        if component.instances:
            return same
        for ancestor in reversed(ancestors):
            same.append(ancestor)
            if ancestor.instances:
                break
        return same

    def _check_replica_consistency(self) -> None:
        entries = list(_component_paths(self.definition))
        for path, component, ancestors in entries:
            if not _is_expression(component.replicas):
                continue
            replicas = _normalized(component.replicas)  # type: ignore[arg-type]
            # Same scope as this component's replicas: its own podsPerReplica, its siblings' (when
            # neither has instances of its own), its descendants' down to the next instances boundary.
            candidates: list[tuple[str, ComponentDefinition]] = [("its own", component)]
            parent = ancestors[-1] if ancestors else None
            siblings = parent.components if parent is not None else self.definition.components
            if not component.instances:
                candidates += [("sibling", sibling) for sibling in siblings if sibling is not component and not sibling.instances]
            stack = list(component.components)
            while stack:
                node = stack.pop()
                if node.instances:
                    continue
                candidates.append(("descendant", node))
                stack.extend(node.components)
            for relation, other in candidates:
                size = other.pods_per_replica
                if isinstance(size, str) and _is_expression(size) and _normalized(size) == replicas:
                    whose = "its own" if relation == "its own" else f"{relation} {other.name!r}'s"
                    self.add(
                        "error",
                        "replicas-is-size",
                        self.field(component, "replicas"),
                        f"component {component.name!r} replicas {component.replicas!r} is {whose} podsPerReplica: "
                        "the pods of one replica used as a replica count (the LWS group bug); replicas counts "
                        "replicas per parent replica, podsPerReplica the pods in one",
                    )
        # Nested components multiply by their ancestors' replicas; reading the same field again
        # counts that factor twice.
        for path, component, ancestors in entries:
            chain = self._scope_chain(ancestors, component)
            resource_scope = not any(ancestor.instances for ancestor in ancestors)
            for ancestor in chain:
                ancestor_scope = resource_scope
                ancestor_reads = _reads(ancestor, "replicas", ancestor_scope)
                if not ancestor_reads:
                    continue
                for field_name in ("replicas", "pods_per_replica"):
                    shared = sorted(ancestor_reads & _reads(component, field_name, ancestor_scope))
                    if shared:
                        self.add(
                            "warning",
                            "replicas-counted-twice",
                            self.field(component, field_name),
                            f"component {component.name!r} {_alias(component, field_name)} reads {shared[0]}, which "
                            f"ancestor {ancestor.name!r} replicas already reads; nested components are multiplied "
                            "by their ancestors' replicas, so the factor is counted twice",
                        )

    # gang ----------------------------------------------------------------------------------
    def check_gang(self) -> None:
        rules = self.definition.gang.pod_groups
        for index, rule in enumerate(rules):
            path = f"gang.podGroups[{index}]"
            if index > 0 and any(earlier.when is None for earlier in rules[:index]):
                self.add(
                    "warning",
                    "gang-rule-unreachable",
                    path,
                    "an earlier PodGroup rule has no `when`, so this rule is never used",
                )
            if rule.min_member == "remainder":
                self.add(
                    "warning",
                    "gang-remainder",
                    f"{path}.minMember",
                    "`remainder` only means something on a subgroup; on a PodGroup rule it is an expression "
                    "reading field `remainder`",
                )
            anchor_name = rule.per_instance or rule.per_replica
            for field_name in ("per_instance", "per_replica"):
                name = getattr(rule, field_name)
                if name and not _subtree_has_pods(self.by_name[name]):
                    self.add(
                        "error",
                        "gang-no-pods",
                        f"{path}.{_alias(rule, field_name)}",
                        f"component {name!r} and its children have no pod source: the rule forms no PodGroup",
                    )
            anchor = self.by_name.get(anchor_name) if anchor_name else None
            in_scope = {node.name for node in anchor.walk()} if anchor is not None else None
            for sub_index, sub in enumerate(rule.sub_groups):
                sub_path = f"{path}.subGroups[{sub_index}].component"
                component = self.by_name[sub.component]
                if not _subtree_has_pods(component):
                    self.add(
                        "error",
                        "gang-no-pods",
                        sub_path,
                        f"component {sub.component!r} and its children have no pod source: the subgroup is always empty",
                    )
                elif in_scope is not None and sub.component not in in_scope:
                    self.add(
                        "error",
                        "gang-subgroup-out-of-scope",
                        sub_path,
                        f"component {sub.component!r} is not inside {anchor_name!r}, the component each PodGroup "
                        "of this rule is formed from: the subgroup is always empty",
                    )

    # expressions ---------------------------------------------------------------------------
    def check_expressions(self) -> None:
        for path, model, field_name, _ in self.definition._expression_fields():
            expression = model.compiled(field_name)
            if expression is None or expression.language != "jmespath":
                continue
            stack = [expression._compiled.parsed]
            while stack:
                node = stack.pop()
                if not isinstance(node, Mapping):
                    continue
                children = [child for child in node.get("children", []) if isinstance(child, Mapping)]
                if node.get("type") in _LEFT_SCOPED | {"subexpression"} and children and children[0].get("type") == "not_expression":
                    self.add(
                        "error",
                        "jmespath-not-precedence",
                        f"{path}.{_alias(model, field_name)}",
                        f"in {expression.source!r}, `!` binds tighter than `.` and `[]`: `!a.b` is `(!a).b`, "
                        "which is always null; write `!(a.b)`",
                    )
                    break
                stack.extend(children)

    # status --------------------------------------------------------------------------------
    def check_status(self) -> None:
        status = self.definition.status
        for phase, matchers in status.rules.items():
            if not matchers:
                self.add("warning", "status-empty-phase", f"status.rules.{phase.value}", "no matchers: the phase is never mapped")
            for index, matcher in enumerate(matchers):
                path = f"status.rules.{phase.value}[{index}]"
                if matcher.phase is not None and status.phase is None:
                    self.add(
                        "error",
                        "status-phase-unset",
                        f"{path}.phase",
                        "matches a raw phase but status.phase (the expression giving it) is not set: never fires",
                    )
                if matcher.conditions and status.conditions is None:
                    self.add(
                        "error",
                        "status-conditions-unset",
                        f"{path}.conditions",
                        "checks conditions but status.conditions is null: never fires",
                    )
                for check_index, check in enumerate(matcher.conditions or []):
                    if check.reason is not None and not status.condition_fields.reason:
                        self.add(
                            "error",
                            "status-reason-unset",
                            f"{path}.conditions[{check_index}].reason",
                            "checks a reason but conditionFields.reason is empty: never fires",
                        )
        self._check_shadowed()

    def _check_shadowed(self) -> None:
        rules = self.definition.status.rules
        ordered = [(phase, index, matcher) for phase in PHASE_PRECEDENCE for index, matcher in enumerate(rules.get(phase, []))]
        for position, (phase, index, matcher) in enumerate(ordered):
            for other_phase, other_index, other in ordered[:position]:
                if not _implies(matcher, other):
                    continue
                path = f"status.rules.{phase.value}[{index}]"
                other_path = f"status.rules.{other_phase.value}[{other_index}]"
                same = _matcher_key(matcher) == _matcher_key(other)
                if other_phase == phase:
                    message = f"{'same as' if same else 'implied by'} {other_path} of the same phase: redundant"
                else:
                    message = (
                        f"{'same matcher as' if same else 'implied by'} {other_path}; {other_phase.value} takes "
                        f"precedence over {phase.value}, so this matcher can never decide the phase"
                    )
                self.add("warning", "status-shadowed", path, message)
                break


def _accepted(value: str | list[str] | None) -> set[str] | None:
    if value is None:
        return None
    return {value} if isinstance(value, str) else set(value)


def _matcher_key(matcher: StatusMatcher) -> Any:
    phases = _accepted(matcher.phase)
    conditions = sorted(
        (check.type, check.status, tuple(sorted(_accepted(check.reason) or ()))) for check in matcher.conditions or []
    )
    return (tuple(sorted(phases)) if phases is not None else None, tuple(conditions), matcher.expression, repr(matcher.equals))


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
            and (reasons is None or (own.reason is not None and _accepted(own.reason) <= reasons))  # type: ignore[operator]
            for own in lower.conditions or []
        ):
            return False
    if higher.expression is not None:
        if lower.expression is None or _normalized(lower.expression) != _normalized(higher.expression):
            return False
        if repr(lower.equals) != repr(higher.equals):
            return False
    return True


# -- sample rules ----------------------------------------------------------------------------


class _Usage:
    __slots__ = ("evaluated", "matched")

    def __init__(self) -> None:
        self.evaluated = 0
        self.matched = 0


class _SampleRun:
    """Evaluates a definition's expressions over sample resources, counting null results."""

    def __init__(
        self, linter: _Linter, samples: list[tuple[Mapping, str]], related: list[Mapping], catalog: Catalog
    ) -> None:
        self.linter = linter
        self.catalog = catalog
        self.definition = linter.definition
        self.samples = samples
        self.related = related
        self.usage: dict[str, _Usage] = {}
        self.failed_fields: set[str] = set()
        self.failed_on_sample = False

    def evaluate(
        self, model: Any, field_name: str, scope: Any, resource: Mapping, refs: Mapping[str, Any], where: str, sample: str
    ) -> Any:
        expression = model.compiled(field_name)
        if expression is None:
            return None
        usage = self.usage.setdefault(where, _Usage())
        usage.evaluated += 1
        try:
            result = expression.search(scope, root=resource, refs=refs)
        except ExpressionError as error:
            self.failed_on_sample = True
            if where not in self.failed_fields:  # the first failing sample is enough
                self.failed_fields.add(where)
                self.linter.add("error", "expression-fails", where, f"{error.message} (sample {sample})")
            return None
        if result is not None:
            usage.matched += 1
        return result

    def run(self) -> None:
        from .gangs import form_pod_groups
        from .interpreter import Expander, RelatedObjects, resolve_references
        from .phases import evaluate_phase

        related = RelatedObjects(self.related)
        gang_names = {
            name
            for rule in self.definition.gang.pod_groups
            for name in [rule.per_instance, rule.per_replica, *(sub.component for sub in rule.sub_groups)]
            if name
        }
        pods_by_component: dict[str, int] = {name: 0 for name in gang_names}
        expanded_samples = 0
        status_conditions: list[Mapping] = []
        for resource, sample in self.samples:
            metadata = resource.get("metadata") if isinstance(resource.get("metadata"), Mapping) else {}
            namespace = metadata.get("namespace") if isinstance(metadata.get("namespace"), str) else None
            self.failed_on_sample = False
            refs = resolve_references(self.definition, resource, related, namespace, [])
            for index, reference in enumerate(self.definition.references):
                self.evaluate(reference, "name_expression", resource, resource, refs, f"references[{index}].nameExpression", sample)
            for index, component in enumerate(self.definition.components):
                self._walk(component, f"components[{index}]", resource, resource, refs, sample)
            for index, rule in enumerate(self.definition.gang.pod_groups):
                self.evaluate(rule, "when", resource, resource, refs, f"gang.podGroups[{index}].when", sample)
            if _truthy(resource.get("status")):
                status_conditions.extend(self._status(resource, sample))
            try:
                nodes = Expander(self.definition, resource, catalog=self.catalog, refs=refs).expand()
                name = metadata.get("name") or "sample"
                pod_groups = form_pod_groups(self.definition, resource, str(name), nodes, refs)
                evaluate_phase(self.definition.status, resource)
            except ExpressionError as error:
                # Component and status expressions already reported with their field on this sample.
                if not self.failed_on_sample:
                    self.linter.add("error", "expression-fails", None, f"{error} (sample {sample})")
                continue
            except WorkloadMapError as error:
                self.linter.add("warning", "sample-fails", None, f"sample {sample}: {error}")
                continue
            expanded_samples += 1
            self._check_gang_sizes(pod_groups, resource, refs, sample)
            for root in nodes:
                for node in root.walk():
                    if node.definition.name in pods_by_component:
                        pods_by_component[node.definition.name] += node.pods()
                    self._check_size(node, sample)
        self._report_never_matches()
        if expanded_samples:
            for name, pods in sorted(pods_by_component.items()):
                if pods == 0:
                    component = self.linter.by_name[name]
                    self.linter.add(
                        "warning",
                        "component-never-has-pods",
                        self.linter.paths[id(component)],
                        f"component {name!r}, used by a gang rule, has no pods on any of {expanded_samples} sample(s)",
                    )
        self._check_reasons(status_conditions)

    def _walk(
        self, component: ComponentDefinition, path: str, scope: Any, resource: Mapping, refs: Mapping[str, Any], sample: str
    ) -> None:
        def where(field_name: str) -> str:
            return f"{path}.{_alias(component, field_name)}"

        elements: list[Any]
        if component.instances:
            result = self.evaluate(component, "instances", scope, resource, refs, where("instances"), sample)
            if result is None:
                elements = []
            elif isinstance(result, list):
                elements = result
            elif isinstance(result, Mapping):
                elements = list(result.values())
            else:
                self.linter.add(
                    "error",
                    "instances-not-a-list",
                    where("instances"),
                    f"yields {type(result).__name__}, not a list or mapping, on sample {sample}",
                    once_per_field=True,
                )
                elements = []
            if component.instance_name:
                for element in elements:
                    self.evaluate(component, "instance_name", element, resource, refs, where("instance_name"), sample)
        else:
            elements = [scope]
        for element in elements:
            present = True
            for field_name in _POD_SOURCES:
                if getattr(component, field_name):
                    present = self.evaluate(component, field_name, element, resource, refs, where(field_name), sample) is not None
            if not present and component.resource is None:
                continue  # an optional role absent from this sample: its other expressions are not evaluated
            if component.pod_metadata:
                self.evaluate(component, "pod_metadata", element, resource, refs, where("pod_metadata"), sample)
            if component.active:
                self.evaluate(component, "active", element, resource, refs, where("active"), sample)
            for field_name in _COUNT_FIELDS:
                if _is_expression(getattr(component, field_name)):
                    self.evaluate(component, field_name, element, resource, refs, where(field_name), sample)
            for index, child in enumerate(component.components):
                self._walk(child, f"{path}.components[{index}]", element, resource, refs, sample)

    def _status(self, resource: Mapping, sample: str) -> list[Mapping]:
        status = self.definition.status
        self.evaluate(status, "phase", resource, resource, {}, "status.phase", sample)
        conditions = None
        if any(matcher.conditions for matchers in status.rules.values() for matcher in matchers):
            # Unused, the default conditions expression says nothing; judged only when a matcher reads it.
            conditions = self.evaluate(status, "conditions", resource, resource, {}, "status.conditions", sample)
        for phase, matchers in status.rules.items():
            for index, matcher in enumerate(matchers):
                if matcher.expression is not None:
                    where = f"status.rules.{phase.value}[{index}].expression"
                    self.evaluate(matcher, "expression", resource, resource, {}, where, sample)
        if isinstance(conditions, list):
            return [condition for condition in conditions if isinstance(condition, Mapping)]
        return []

    def _check_size(self, node: Any, sample: str) -> None:
        component = node.definition
        if node.has_pods or not node.children or "pods_per_replica" not in component.model_fields_set:
            return
        declared = node.pods_per_replica
        replicas = node.replicas
        if replicas == 0:
            return
        computed = sum(child.pods_per_parent_replica() for child in node.children)
        field = self.linter.field(component, "pods_per_replica")
        if computed > declared:
            self.linter.add(
                "error",
                "children-exceed-size",
                field,
                f"on sample {sample}, the children of {node.path!r} run {computed} pods per replica but it declares "
                f"podsPerReplica {declared}",
                once_per_field=True,
            )
        elif computed < declared:
            self.linter.add(
                "warning",
                "children-below-size",
                field,
                f"on sample {sample}, the children of {node.path!r} run {computed} pods per replica but it declares "
                f"podsPerReplica {declared}",
                once_per_field=True,
            )

    def _check_gang_sizes(self, pod_groups: list[Any], resource: Mapping, refs: Mapping[str, Any], sample: str) -> None:
        from .gangs import rule_applies

        rules = self.definition.gang.pod_groups
        index = next((i for i, rule in enumerate(rules) if rule_applies(rule, resource, refs)), None)
        if index is None:
            return
        for group in pod_groups:
            if group.min_member > group.pods:
                self.linter.add(
                    "warning",
                    "gang-min-exceeds-pods",
                    f"gang.podGroups[{index}].minMember",
                    f"on sample {sample}, PodGroup {group.name} needs minMember {group.min_member} but has "
                    f"{group.pods} pods: it can never be scheduled",
                    once_per_field=True,
                )
            for sub in group.sub_groups:
                if sub.min_member > sub.pods:
                    self.linter.add(
                        "warning",
                        "gang-min-exceeds-pods",
                        f"gang.podGroups[{index}].subGroups",
                        f"on sample {sample}, subgroup {sub.name} of PodGroup {group.name} needs minMember "
                        f"{sub.min_member} but has {sub.pods} pods: it can never be scheduled",
                        once_per_field=True,
                    )

    def _report_never_matches(self) -> None:
        order = {
            f"{path}.{_alias(model, name)}": index
            for index, (path, model, name, _) in enumerate(self.definition._expression_fields())
        }
        for where, usage in sorted(self.usage.items(), key=lambda item: order.get(item[0], len(order))):
            if usage.evaluated and not usage.matched:
                leaf = where.rsplit(".", 1)[-1]
                if leaf in ("podTemplate", "podSpec", "resource"):
                    detail = "the role is absent from every sample (optional role not exercised, or a wrong path)"
                elif leaf in ("minReplicas", "maxReplicas", "active", "podMetadata"):
                    detail = "the default always applies (knob not exercised, or a wrong path)"
                else:
                    detail = "a wrong path, or a field the samples never set"
                self.linter.add(
                    "warning",
                    "never-matches",
                    where,
                    f"null on all {len(self.samples)} sample(s) ({usage.evaluated} evaluation(s)): {detail}",
                )

    def _check_reasons(self, conditions: list[Mapping]) -> None:
        if not conditions:
            return
        fields = self.definition.status.condition_fields
        if not fields.reason:
            return  # reported statically
        for phase, matchers in self.definition.status.rules.items():
            for index, matcher in enumerate(matchers):
                for check_index, check in enumerate(matcher.conditions or []):
                    if check.reason is None:
                        continue
                    of_type = [c for c in conditions if str(c.get(fields.type)) == check.type]
                    pool = of_type or conditions
                    if any(fields.reason in condition for condition in pool):
                        continue
                    scope = f"{check.type} conditions" if of_type else "conditions"
                    self.linter.add(
                        "warning",
                        "status-reason-absent",
                        f"status.rules.{phase.value}[{index}].conditions[{check_index}].reason",
                        f"checks a reason but none of the samples' {scope} ({len(pool)}) carries a "
                        f"{fields.reason!r} field: may never fire",
                    )


# -- public API ------------------------------------------------------------------------------


def _matches_kind(definition: Definition, obj: Mapping) -> bool:
    api_version = obj.get("apiVersion")
    if not isinstance(api_version, str) or obj.get("kind") != definition.kind:
        return False
    group = api_version.rpartition("/")[0]
    return group == definition.group


def _sample_label(obj: Mapping, fallback: str) -> str:
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    return f"{fallback} ({obj.get('kind')}/{name})" if name else fallback


def lint_definition(
    definition: Definition,
    samples: Iterable[Mapping | Document] = (),
    *,
    catalog: Catalog | None = None,
) -> list[LintFinding]:
    """Lint one (already validated) definition.

    Args:
        definition: the definition, as :func:`~workloadmap.catalog.load_definition` returns it.
        samples: Kubernetes objects (mappings, or :class:`~workloadmap.documents.Document` to name
            their file in messages). Objects of the definition's group and kind are the samples;
            all of them can serve as related objects for ``references``.
        catalog: definitions for resources embedded in a sample (AppWrapper); ``definition``
            replaces the catalog's own for its group and kind. Default: ``definition`` alone.

    Returns:
        The findings, static rules first, in definition order.
    """
    linter = _Linter(definition)
    linter.check_components()
    linter.check_expressions()
    linter.check_gang()
    linter.check_status()
    objects: list[tuple[Mapping, str]] = []
    for position, sample in enumerate(samples, start=1):
        if isinstance(sample, Document):
            body, label = sample.body, f"{sample.file} {sample.label}"
        else:
            body, label = sample, _sample_label(sample, f"#{position}") if isinstance(sample, Mapping) else ""
        if isinstance(body, Mapping):
            objects.append((body, label))
    own = [(obj, label) for obj, label in objects if _matches_kind(definition, obj)]
    if own:
        scoped = Catalog(list(catalog) if catalog is not None else [])
        scoped.add(definition, replace=True)
        _SampleRun(linter, own, [obj for obj, _ in objects], scoped).run()
    return linter.findings


def _recorded_objects(document: Document) -> Iterator[Document]:
    """The STATE objects of a recorded operator flow, or the document itself."""
    body = document.body
    if isinstance(body, Mapping) and "schemaVersion" in body and isinstance(body.get("events"), list) and "kind" not in body:
        for position, event in enumerate(body["events"], start=1):
            if isinstance(event, Mapping) and event.get("kind") == "STATE" and isinstance(event.get("object"), Mapping):
                # `item` numbers the event, so messages name the frame (``#1 item 7``).
                yield Document(event["object"], document.file, document.index, position)
        return
    yield document


def load_samples(paths: Iterable[str | Path]) -> list[Document]:
    """Sample objects from FILE|DIR paths (directories recursively; recorded flows unpacked).

    Documents that do not parse are skipped: samples are evidence, not the subject of the lint.

    Raises:
        InputError: a path does not exist.
    """
    documents: list[Document] = []
    for path in paths:
        for item in load_objects(str(path), recursive=True):
            if isinstance(item, InputError):
                if item.message == "no such file or directory":
                    raise item
                continue
            documents.extend(_recorded_objects(item))
    return documents


def _definition_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(
            candidate
            for candidate in path.iterdir()
            if candidate.is_file() and candidate.suffix in (".yaml", ".yml") and not candidate.name.startswith(".")
        )
    return [path]


def lint_path(
    path: str | Path,
    samples_dir: str | Path | Iterable[str | Path] | None = None,
) -> list[LintFinding]:
    """Lint a definition file, or every ``*.yaml``/``*.yml`` file of a directory.

    A file that fails schema validation gives one ``schema`` error finding (the others are still
    linted). ``samples_dir``: FILE|DIR (or several) of sample objects, see :func:`load_samples`.

    Raises:
        DefinitionError: ``path`` does not exist.
        InputError: a samples path does not exist.
    """
    from .errors import DefinitionError

    path = Path(path)
    if not path.exists():
        raise DefinitionError("no such file or directory", file=str(path))
    if samples_dir is None:
        sample_paths: list[str | Path] = []
    elif isinstance(samples_dir, (str, Path)):
        sample_paths = [samples_dir]
    else:
        sample_paths = list(samples_dir)
    samples = load_samples(sample_paths)
    catalog = None
    if samples:
        try:
            catalog = Catalog.load(use_env=False)
        except WorkloadMapError:
            catalog = None  # a broken built-in only costs embedded-resource samples
    findings: list[LintFinding] = []
    for file in _definition_files(path):
        try:
            definition = load_definition(file)
        except WorkloadMapError as error:
            findings.append(
                LintFinding(
                    severity="error",
                    file=error.file or str(file),
                    definition=error.document or file.stem,
                    field=error.field,
                    message=error.message,
                    rule="schema",
                )
            )
            continue
        findings.extend(lint_definition(definition, samples, catalog=catalog))
    return findings
