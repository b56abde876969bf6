"""A validated definition as the interpreter reads it: plain classes, no pydantic.

The definition format is declared once, by the pydantic models of :mod:`workloadmap.definitions`;
each of them inherits the class of the same name here. The head of each class (name, base, summary,
fields as attribute annotations, typed as the interpreter reads them) is written from its model by
the build step (``python -m workloadmap.catalog``, :mod:`workloadmap.definitions.runtime_source`)
between two marker lines: edit the model, never a head. What follows a head is this module's own:
every behaviour a reader needs (:meth:`ComponentDefinition.walk`, :meth:`CompiledPart.compiled`,
:attr:`Definition.api_group_kind`, :attr:`Definition.source`, :attr:`PodsDefinition.parsed_selector`,
:meth:`Definition.expression_fields`). The stages after the catalog (interpreter, alter, live,
exporters) are typed against these classes, so they take either form: a model validated from a
user's file, or the built-in catalog's precompiled objects, which :mod:`workloadmap.catalog_cache`
stores as instances of these classes (the same attribute values; expressions and pod selectors as
their text, parsed again on first use) so that reading them imports no pydantic. Only the models
validate, dump, and know aliases and defaults; ``tests/test_runtime_definitions.py`` fails when a
head is not what its model gives.

Why not a module of its own for the generated part: the behaviour reads the fields, and mypy must
see both in one class, which a generated module could give only through an import back into this
one (a cycle, if only for types) or by moving the behaviour off the classes.

Also the vocabulary of the format that is not pydantic's: :class:`Phase`, :data:`PHASE_PRECEDENCE`
and what a count means (:func:`count_constant`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, Union

from .kai_releases import kai_has

if TYPE_CHECKING:
    from .expressions import Expression
    from .selectors import Selector

__all__ = [
    "Phase",
    "PHASE_PRECEDENCE",
    "CountValue",
    "count_constant",
    "PodSpecField",
    "DefinitionPart",
    "CompiledPart",
    "PodsDefinition",
    "PodFieldsDefinition",
    "RunDefinition",
    "ComponentDefinition",
    "ConditionMatch",
    "StatusMatcher",
    "ConditionFields",
    "StatusDefinition",
    "TopologyRule",
    "GangWarning",
    "SubGroupRule",
    "PodGroupRule",
    "GangDefinition",
    "ReferenceKind",
    "Reference",
    "ExportsDefinition",
    "SuspendAction",
    "SuspendDefinition",
    "SpecBase",
    "CheckDefinition",
    "Definition",
    "runtime_class",
    "declared_fields",
]


class Phase(str, Enum):
    """The normalized phases a workload can be in."""

    INITIALIZING = "Initializing"
    RUNNING = "Running"
    COMPLETED = "Completed"
    FAILED = "Failed"
    DEGRADED = "Degraded"
    SUSPENDED = "Suspended"
    SUSPENDING = "Suspending"
    RESUMING = "Resuming"
    UNDEFINED = "Undefined"


# When several phases match, the first of this list wins: terminal states first, then the
# transitions a user acts on, then health, and Initializing only when nothing else holds.
PHASE_PRECEDENCE: tuple[Phase, ...] = (
    Phase.FAILED,
    Phase.COMPLETED,
    Phase.SUSPENDED,
    Phase.SUSPENDING,
    Phase.RESUMING,
    Phase.DEGRADED,
    Phase.RUNNING,
    Phase.INITIALIZING,
)

CountValue = Union[int, str]
"""A validated count: an ``int`` is a constant, a ``str`` an expression yielding a number or numeric string."""


def _in_kai_release(since: str | None, before: str | None) -> bool:
    """Whether the KAI release modelled has the change ``since`` and lacks the change ``before`` (None: any)."""
    return (since is None or kai_has(since)) and (before is None or not kai_has(before))


def count_constant(value: Any) -> Any:
    """A count given as a whole number or a numeric string becomes an int; other text stays an expression.

    Raises:
        ValueError: a boolean or a negative number.
    """
    if isinstance(value, bool):
        raise ValueError("a count must be a whole number or an expression, not a boolean")
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, int) and value < 0:
        raise ValueError(f"a count must not be negative, got {value}")
    return value


PodSpecField = Literal["schedulerName", "nodeSelector", "tolerations", "affinity", "priorityClassName"]
"""The PodSpec fields ``podFields.specFields`` may name."""


class DefinitionPart:
    """A part of a validated definition: its fields are plain attributes (see the module docstring)."""


class CompiledPart(DefinitionPart):
    """A part whose expression fields were compiled once, when the definition was validated."""

    _expressions: dict[str, Expression]

    def compiled(self, field_name: str) -> Expression | None:
        """The compiled expression of ``field_name`` (None when the field is unset or constant)."""
        return self._expressions.get(field_name)


# generated from the model definitions.PodsDefinition by `python -m workloadmap.catalog`: edit the model
class PodsDefinition(DefinitionPart):
    """How the operator labels a component's pods, so `wmap describe` can tell them apart."""

    selector: str | None
    replica_index: list[str]
    pod_index: list[str]
    _parsed: Selector | None
    # end of the generated head of PodsDefinition

    @property
    def parsed_selector(self) -> Selector | None:
        """The selector template, parsed (None when no selector is given).

        The precompiled catalog stores the text only (checked when it was built): a selector is
        parsed again on first use, so commands that never match pods never load the parser.
        """
        if self._parsed is None and self.selector is not None:
            from .selectors import Selector

            self._parsed = Selector.parse(self.selector, templates=True)
        return self._parsed


# generated from the model definitions.PodFieldsDefinition by `python -m workloadmap.catalog`: edit the model
class PodFieldsDefinition(DefinitionPart):
    """Where a computed pod template's fields live (KServe predictor, NIM, Milvus), from the component's scope."""

    spec: str | None
    spec_fields: list[PodSpecField] | None
    labels: str | None
    annotations: str | None
    seed: str | None
    # end of the generated head of PodFieldsDefinition


# generated from the model definitions.RunDefinition by `python -m workloadmap.catalog`: edit the model
class RunDefinition(CompiledPart):
    """When a component's pods run relative to its siblings' (Argo steps and DAG tasks, Tekton runAfter)."""

    after: str | None
    sequential: bool
    max_concurrent: CountValue | None
    # end of the generated head of RunDefinition


# generated from the model definitions.ComponentDefinition by `python -m workloadmap.catalog`: edit the model
class ComponentDefinition(CompiledPart):
    """One role of a workload, and where its pods are declared."""

    name: str
    kind: str | None
    description: str | None
    instances: str | None
    instance_name: str | None
    pod_template: str | None
    pod_spec: str | None
    pod_metadata: str | None
    replicas: CountValue
    min_replicas: CountValue | None
    max_replicas: CountValue | None
    pods_per_replica: CountValue
    active: str | None
    per_node: bool
    scaled_pod_groups: bool
    resource: str | None
    components: Sequence[ComponentDefinition]
    pod_fields: PodFieldsDefinition | None
    pods: PodsDefinition | None
    run: RunDefinition | None
    like: str | None
    # end of the generated head of ComponentDefinition

    def walk(self) -> Iterator[ComponentDefinition]:
        """Yield this component and its descendants, depth first."""
        yield self
        for child in self.components:
            yield from child.walk()


# generated from the model definitions.ConditionMatch by `python -m workloadmap.catalog`: edit the model
class ConditionMatch(DefinitionPart):
    """A condition that must be present: ``type``, and optionally its ``status`` and ``reason``."""

    type: str
    status: str | None
    reason: str | list[str] | None
    # end of the generated head of ConditionMatch


# generated from the model definitions.StatusMatcher by `python -m workloadmap.catalog`: edit the model
class StatusMatcher(CompiledPart):
    """One way of recognising a phase. Every check given must hold (AND)."""

    phase: str | list[str] | None
    conditions: Sequence[ConditionMatch] | None
    expression: str | None
    equals: Any
    # end of the generated head of StatusMatcher


# generated from the model definitions.ConditionFields by `python -m workloadmap.catalog`: edit the model
class ConditionFields(DefinitionPart):
    """Field names inside each condition object."""

    type: str
    status: str
    reason: str
    # end of the generated head of ConditionFields


# generated from the model definitions.StatusDefinition by `python -m workloadmap.catalog`: edit the model
class StatusDefinition(CompiledPart):
    """How a resource's status maps to a normalized phase."""

    phase: str | None
    conditions: str | None
    condition_fields: ConditionFields
    rules: Mapping[Phase, Sequence[StatusMatcher]]
    # end of the generated head of StatusDefinition


# generated from the model definitions.TopologyRule by `python -m workloadmap.catalog`: edit the model
class TopologyRule(CompiledPart):
    """A gang's topology constraint: one expression per part, evaluated like the rule holding it."""

    topology: str | None
    required: str | None
    preferred: str | None
    domains: bool
    tiers: bool
    # end of the generated head of TopologyRule


# generated from the model definitions.GangWarning by `python -m workloadmap.catalog`: edit the model
class GangWarning(CompiledPart):
    """A shape KAI's pod-grouper refuses, or where the gang can never form: ``message`` when ``when`` holds."""

    when: str
    message: str
    kai_since: str | None
    kai_before: str | None
    # end of the generated head of GangWarning

    def in_kai_release(self) -> bool:
        """Whether this rule holds for the KAI release modelled (its ``kaiSince``/``kaiBefore`` change)."""
        return _in_kai_release(self.kai_since, self.kai_before)


# generated from the model definitions.SubGroupRule by `python -m workloadmap.catalog`: edit the model
class SubGroupRule(CompiledPart):
    """A SubGroup of a PodGroup: the pods of one component (or of each of its instances)."""

    component: str
    name: str | None
    each_instance: bool
    each_replica_of: str | None
    min_member: CountValue | None
    parent: str | None
    segment_size: CountValue | None
    segment_name: str
    segments_replace: bool
    segment_leader: str | None
    when: str | None
    topology_constraint: TopologyRule | None
    segment_topology_constraint: TopologyRule | None
    in_scaled_groups: bool
    # end of the generated head of SubGroupRule


# generated from the model definitions.PodGroupRule by `python -m workloadmap.catalog`: edit the model
class PodGroupRule(CompiledPart):
    """How the PodGroups of a workload are formed. The first rule whose ``when`` holds is used."""

    when: str | None
    kai_since: str | None
    kai_before: str | None
    per_instance: str | None
    per_replica: str | None
    name: str | None
    min_member: CountValue | None
    sub_groups: Sequence[SubGroupRule]
    min_sub_group: CountValue | None
    topology_constraint: TopologyRule | None
    scaled_topology_constraint: TopologyRule | None
    # end of the generated head of PodGroupRule

    def in_kai_release(self) -> bool:
        """Whether this rule holds for the KAI release modelled (its ``kaiSince``/``kaiBefore`` change)."""
        return _in_kai_release(self.kai_since, self.kai_before)


# generated from the model definitions.GangDefinition by `python -m workloadmap.catalog`: edit the model
class GangDefinition(CompiledPart):
    """Gang rules. ``podGroups: []`` (or no gang section) means the kind is not gang scheduled."""

    policy: str
    pod_groups: Sequence[PodGroupRule]
    per_pod: bool
    per_pod_before: str | None
    priority_class: str
    operator_gang: str | None
    warnings: Sequence[GangWarning]
    priority_class_name: str | None
    standalone_pod_groups: bool
    # end of the generated head of GangDefinition

    def per_pod_now(self) -> bool:
        """Whether KAI makes one PodGroup per pod of this kind in the release modelled (``perPod``/``perPodBefore``)."""
        return self.per_pod or (self.per_pod_before is not None and not kai_has(self.per_pod_before))


# generated from the model definitions.ReferenceKind by `python -m workloadmap.catalog`: edit the model
class ReferenceKind(DefinitionPart):
    """A kind a reference may point at."""

    api_version: str
    kind: str
    namespaced: bool
    # end of the generated head of ReferenceKind


# generated from the model definitions.Reference by `python -m workloadmap.catalog`: edit the model
class Reference(CompiledPart):
    """A related object the workload names (a TrainJob's runtime); ``ref(name)`` returns it."""

    name: str
    kinds: Sequence[ReferenceKind]
    kind_expression: str | None
    name_expression: str
    description: str
    optional: bool
    # end of the generated head of Reference


# generated from the model definitions.ExportsDefinition by `python -m workloadmap.catalog`: edit the model
class ExportsDefinition(DefinitionPart):
    """Kind-specific facts the scheduler exporters need (so no exporter checks a kind by name)."""

    kueue_pod_set_group: bool
    volcano_network_topology: str | None
    exclusive_topology: str | None
    # end of the generated head of ExportsDefinition


# generated from the model definitions.SuspendAction by `python -m workloadmap.catalog`: edit the model
class SuspendAction(CompiledPart):
    """One step: set ``value``, ``remove`` the field, or add/remove an item of a comma-separated string."""

    path: str
    value: Any
    remove: bool
    add_item: str | None
    remove_item: str | None
    when: str | None
    # end of the generated head of SuspendAction


# generated from the model definitions.SuspendDefinition by `python -m workloadmap.catalog`: edit the model
class SuspendDefinition(DefinitionPart):
    """How the operator suspends and resumes the workload (``wmap suspend|resume``)."""

    suspend_actions: Sequence[SuspendAction]
    resume_actions: Sequence[SuspendAction]
    caveat: str | None
    existing_object: str | None
    source: str
    # end of the generated head of SuspendDefinition


# generated from the model definitions.SpecBase by `python -m workloadmap.catalog`: edit the model
class SpecBase(CompiledPart):
    """An object whose ``spec`` lies beneath the resource's (a KServe LLMInferenceServiceConfig)."""

    object: str
    # end of the generated head of SpecBase


# generated from the model definitions.CheckDefinition by `python -m workloadmap.catalog`: edit the model
class CheckDefinition(CompiledPart):
    """A value the operator refuses, checked before any expression reads it."""

    field: str
    valid: str
    message: str
    # end of the generated head of CheckDefinition


ExpressionField = tuple[str, CompiledPart, str, str]
"""``(path, part, field name, expression text)``: one expression field of a definition."""


# generated from the model definitions.Definition by `python -m workloadmap.catalog`: edit the model
class Definition(DefinitionPart):
    """A workload-type definition."""

    name: str
    group: str
    kind: str
    versions: list[str]
    short_names: list[str]
    description: str
    language: Literal["jmespath", "jsonpath"]
    components: Sequence[ComponentDefinition]
    gang: GangDefinition
    status: StatusDefinition
    references: Sequence[Reference]
    exports: ExportsDefinition
    notes: list[str]
    suspend: SuspendDefinition | None
    bases: Sequence[SpecBase]
    checks: Sequence[CheckDefinition]
    _source: str | None
    # end of the generated head of Definition

    @property
    def api_group_kind(self) -> tuple[str, str]:
        """``(group, kind)``: the key the catalog indexes definitions by."""
        return (self.group, self.kind)

    @property
    def source(self) -> str | None:
        """The file the definition was loaded from, if any."""
        return self._source

    def expression_fields(self) -> Iterator[ExpressionField]:
        """``(path, part, field name, expression text)`` for every expression field, in file order."""
        for index, component in enumerate(self.components):
            yield from _component_fields(component, f"components[{index}]")
        for index, rule in enumerate(self.gang.pod_groups):
            path = f"gang.podGroups[{index}]"
            for field_name in ("when", "min_member", "min_sub_group"):
                value = getattr(rule, field_name)
                if isinstance(value, str):
                    yield path, rule, field_name, value
            yield from _topology_fields(path, rule, _POD_GROUP_TOPOLOGY)
            for sub_index, sub in enumerate(rule.sub_groups):
                for field_name in ("min_member", "segment_size", "when"):
                    value = getattr(sub, field_name)
                    if isinstance(value, str):
                        yield f"{path}.subGroups[{sub_index}]", sub, field_name, value
                yield from _topology_fields(f"{path}.subGroups[{sub_index}]", sub, _SUBGROUP_TOPOLOGY)
        for index, warning in enumerate(self.gang.warnings):
            yield f"gang.warnings[{index}]", warning, "when", warning.when
        for index, base in enumerate(self.bases):
            yield f"bases[{index}]", base, "object", base.object
        for index, check in enumerate(self.checks):
            for field_name in ("field", "valid"):
                yield f"checks[{index}]", check, field_name, getattr(check, field_name)
        if self.gang.priority_class_name is not None:
            yield "gang", self.gang, "priority_class_name", self.gang.priority_class_name
        for index, reference in enumerate(self.references):
            for field_name in ("kind_expression", "name_expression"):
                value = getattr(reference, field_name)
                if isinstance(value, str):
                    yield f"references[{index}]", reference, field_name, value
        steps = (self.suspend.suspend_actions, self.suspend.resume_actions) if self.suspend else ()
        for name, actions in zip(("suspendActions", "resumeActions"), steps, strict=False):
            for index, action in enumerate(actions):
                if action.when is not None:
                    yield f"suspend.{name}[{index}]", action, "when", action.when
        for field_name in ("phase", "conditions"):
            value = getattr(self.status, field_name)
            if isinstance(value, str):
                yield "status", self.status, field_name, value
        for phase, matchers in self.status.rules.items():
            for index, matcher in enumerate(matchers):
                if matcher.expression is not None:
                    yield f"status.rules.{phase.value}[{index}]", matcher, "expression", matcher.expression


_COMPONENT_EXPRESSIONS = (
    "instances",
    "instance_name",
    "pod_template",
    "pod_spec",
    "pod_metadata",
    "replicas",
    "min_replicas",
    "max_replicas",
    "pods_per_replica",
    "active",
    "resource",
)
# (field, key in the file): the paths name the key as written.
_POD_GROUP_TOPOLOGY = (
    ("topology_constraint", "topologyConstraint"),
    ("scaled_topology_constraint", "scaledTopologyConstraint"),
)
_SUBGROUP_TOPOLOGY = (
    ("topology_constraint", "topologyConstraint"),
    ("segment_topology_constraint", "segmentTopologyConstraint"),
)


def _component_fields(component: ComponentDefinition, path: str) -> Iterator[ExpressionField]:
    for field_name in _COMPONENT_EXPRESSIONS:
        value = getattr(component, field_name)
        if isinstance(value, str):
            yield path, component, field_name, value
    if component.run is not None:
        for field_name in ("after", "max_concurrent"):
            value = getattr(component.run, field_name)
            if isinstance(value, str):
                yield f"{path}.run", component.run, field_name, value
    for index, child in enumerate(component.components):
        yield from _component_fields(child, f"{path}.components[{index}]")


def _topology_fields(path: str, part: CompiledPart, names: tuple[tuple[str, str], ...]) -> Iterator[ExpressionField]:
    for name, key in names:
        rule = getattr(part, name)
        for field_name in ("topology", "required", "preferred") if rule is not None else ():
            if isinstance(getattr(rule, field_name), str):
                yield f"{path}.{key}", rule, field_name, getattr(rule, field_name)


def declared_fields(cls: type[DefinitionPart]) -> tuple[str, ...]:
    """The fields a runtime class declares, in order (private attributes such as ``_expressions`` aside)."""
    return tuple(name for name in vars(cls).get("__annotations__", {}) if not name.startswith("_"))


def runtime_class(cls: type) -> type[DefinitionPart] | None:
    """The class of this module that ``cls`` is (itself) or extends (a model's), or None for other classes."""
    for base in cls.__mro__:
        if base.__module__ == __name__ and issubclass(base, DefinitionPart) and base not in _ABSTRACT:
            return base
    return None


_ABSTRACT = (DefinitionPart, CompiledPart)
