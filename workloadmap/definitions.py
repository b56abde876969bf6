"""The definition format: one YAML file per workload type, validated by these pydantic models.

A definition says which resources it matches (``group``, ``kind``, ``versions``), the tree of
components (roles) and where each one's pods are declared, how many replicas and pods each has,
which gangs (PodGroups and SubGroups) a gang scheduler builds, and how the resource's status maps
to a normalized phase. ``wmap catalog schema`` prints the JSON Schema generated from these models.

Every expression field holds a JMESPath expression (or JSONPath when ``language: jsonpath``); an
integer is accepted wherever a count is expected and means that constant. Expressions of a
component evaluate against the resource, or against the current instance element inside a
multi-instance component (``root()`` then reaches the resource).
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, model_validator

from .errors import DefinitionError, ExpressionError
from .expressions import Expression, compile_expression
from .selectors import PodsDefinition

__all__ = [
    "Phase",
    "PHASE_PRECEDENCE",
    "ConditionMatch",
    "StatusMatcher",
    "StatusDefinition",
    "ComponentDefinition",
    "PodsDefinition",
    "SubGroupRule",
    "PodGroupRule",
    "GangDefinition",
    "Reference",
    "ReferenceKind",
    "ExportsDefinition",
    "Definition",
    "definition_json_schema",
]


def _count_constant(value: Any) -> Any:
    """A count given as a whole number or a numeric string becomes an int; other text stays an expression."""
    if isinstance(value, bool):
        raise ValueError("a count must be a whole number or an expression, not a boolean")
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, int) and value < 0:
        raise ValueError(f"a count must not be negative, got {value}")
    return value


Count = Annotated[Union[int, str], BeforeValidator(_count_constant)]
"""A whole-number constant (``3`` or ``"3"``) or an expression yielding a number or numeric string.

After validation a count field holds an ``int`` (a constant) or a ``str`` (an expression)."""


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


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class _Compiled(_Strict):
    """A model whose expression fields are compiled once by :meth:`Definition.compile`."""

    _expressions: dict[str, Expression] = PrivateAttr(default_factory=dict)

    def compiled(self, field_name: str) -> Expression | None:
        """The compiled expression of ``field_name`` (None when the field is unset or constant)."""
        return self._expressions.get(field_name)


class ConditionMatch(_Strict):
    """A condition that must be present: ``type``, and optionally its ``status`` and ``reason``."""

    type: str
    status: str | None = None
    reason: str | list[str] | None = Field(default=None, description="A reason or a list of accepted reasons.")


class StatusMatcher(_Compiled):
    """One way of recognising a phase. Every check given must hold (AND)."""

    phase: str | list[str] | None = Field(default=None, description="Raw phase value(s) that match.")
    conditions: list[ConditionMatch] | None = None
    expression: str | None = Field(default=None, description="An expression evaluated on the resource.")
    equals: Any = Field(default=None, description="Expected result of `expression`; truthiness when omitted.")

    @model_validator(mode="after")
    def _not_empty(self) -> "StatusMatcher":
        if self.phase is None and not self.conditions and self.expression is None:
            raise ValueError("a status matcher needs at least one of phase, conditions, expression")
        return self


class ConditionFields(_Strict):
    """Field names inside each condition object."""

    type: str = "type"
    status: str = "status"
    reason: str = "reason"


class StatusDefinition(_Compiled):
    """How a resource's status maps to a normalized phase.

    ``rules`` maps a phase to a list of matchers (any one matching is enough). The resulting
    ``phase`` is the first matched phase in :data:`PHASE_PRECEDENCE`; ``phases`` lists every
    match. A resource without ``status`` is ``Undefined``.
    """

    phase: str | None = Field(default=None, description="Expression for the raw phase value.")
    conditions: str | None = Field(default="status.conditions", description="Expression for the conditions list.")
    condition_fields: ConditionFields = Field(default_factory=ConditionFields, alias="conditionFields")
    rules: dict[Phase, list[StatusMatcher]] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _no_undefined_rule(self) -> "StatusDefinition":
        if Phase.UNDEFINED in self.rules:
            raise ValueError("Undefined is what no rule matches; it cannot have rules")
        return self


class ComponentDefinition(_Compiled):
    """One role of a workload, and where its pods are declared."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    kind: str | None = Field(default=None, description="What the operator creates for it (Job, Pod, StatefulSet ...).")
    description: str | None = None
    instances: str | None = Field(
        default=None,
        description="Expression yielding a list or map: one instance of the component per element "
        "(JobSet replicatedJob, Ray worker group, Dynamo service).",
    )
    instance_name: str | None = Field(
        default=None,
        alias="instanceName",
        description="Expression on an instance element giving its name (default: `name`, the map key, or the index).",
    )
    pod_template: str | None = Field(
        default=None, alias="podTemplate", description="Expression yielding a PodTemplateSpec."
    )
    pod_spec: str | None = Field(default=None, alias="podSpec", description="Expression yielding a bare PodSpec.")
    pod_metadata: str | None = Field(default=None, alias="podMetadata", description="With podSpec: the pods' metadata.")
    replicas: Count = Field(default=1, description="Replicas per replica of the parent component.")
    min_replicas: Count | None = Field(default=None, alias="minReplicas")
    max_replicas: Count | None = Field(default=None, alias="maxReplicas")
    pods_per_replica: Count = Field(
        default=1,
        alias="podsPerReplica",
        description="Pods in one replica (JobSet parallelism, Ray numOfHosts, LWS size).",
    )
    active: str | None = Field(
        default=None, description="Expression; when false the component runs no pods (suspended group)."
    )
    per_node: bool = Field(default=False, alias="perNode", description="One pod per eligible node (DaemonSet).")
    scaled_pod_groups: bool = Field(
        default=False,
        alias="scaledPodGroups",
        description="Replicas beyond minReplicas each form a PodGroup of their own (Grove's scaled PodGangs); "
        "the enclosing PodGroup holds minReplicas replicas.",
    )
    resource: str | None = Field(
        default=None,
        description="Expression yielding embedded Kubernetes object(s) that are interpreted with their own "
        "definitions.",
    )
    components: list["ComponentDefinition"] = Field(default_factory=list)
    pods: PodsDefinition | None = Field(
        default=None, description="How the operator labels this component's pods (for `wmap describe`)."
    )

    @model_validator(mode="after")
    def _one_pod_source(self) -> "ComponentDefinition":
        sources = [name for name in ("pod_template", "pod_spec", "resource") if getattr(self, name)]
        if len(sources) > 1:
            raise ValueError(f"component {self.name!r} has several pod sources: {', '.join(sources)}")
        if self.pod_metadata and not self.pod_spec:
            raise ValueError(f"component {self.name!r}: podMetadata goes with podSpec")
        if self.instance_name and not self.instances:
            raise ValueError(f"component {self.name!r}: instanceName goes with instances")
        if self.pods is not None and self.pods.selector is not None and not (self.pod_template or self.pod_spec):
            raise ValueError(f"component {self.name!r}: pods.selector goes with a pod template or pod spec")
        return self

    def walk(self) -> Iterator[ComponentDefinition]:
        """Yield this component and its descendants, depth first."""
        yield self
        for child in self.components:
            yield from child.walk()


class SubGroupRule(_Compiled):
    """A SubGroup of a PodGroup: the pods of one component (or of each of its instances)."""

    component: str = Field(description="The component whose pods form the subgroup.")
    name: str | None = Field(
        default=None,
        description="Subgroup name (default: the component or instance name). May use {group} (the PodGroup), "
        "{base} (the PodGroup a scaled PodGroup belongs to), {instance}, {component}, {replicaOf} and {replica} "
        "(with eachReplicaOf); `|lower` lower-cases a value, e.g. {instance|lower}.",
    )
    each_instance: bool = Field(default=False, alias="eachInstance", description="One subgroup per instance.")
    each_replica_of: str | None = Field(
        default=None,
        alias="eachReplicaOf",
        description="One subgroup per replica of this ancestor component (e.g. each Grove scaling-group replica).",
    )
    min_member: Count | None = Field(
        default=None,
        alias="minMember",
        description="Expression or constant; `remainder` means the PodGroup's minMember minus the other subgroups'. "
        "Default: the component's pods at minimum scale within the group.",
    )
    parent: str | None = None
    segment_size: Count | None = Field(
        default=None,
        alias="segmentSize",
        description="Split the subgroup into segments of this many pods (KAI segment-size; the last segment "
        "holds the rest). Null or below 1 means no segments.",
    )
    segment_name: str = Field(
        default="{name}-{index}",
        alias="segmentName",
        description="Name template of a segment: {name} (the subgroup), {index}.",
    )
    segments_replace: bool = Field(
        default=False,
        alias="segmentsReplace",
        description="The segments take the subgroup's place (children of its parent) instead of hanging under it.",
    )
    segment_leader: str | None = Field(
        default=None,
        alias="segmentLeader",
        description="A component whose pods join segment 0 ahead of this one's (the LWS leader); segment 0 then "
        "gets two children, the leader's pods (named after that component) and the rest (this subgroup's name). "
        "When this component's pods divide evenly into segments, the leader is added on top of segment 0.",
    )


class PodGroupRule(_Compiled):
    """How the PodGroups of a workload are formed. The first rule whose ``when`` holds is used."""

    when: str | None = Field(default=None, description="Expression on the resource; the rule applies when truthy.")
    per_instance: str | None = Field(
        default=None, alias="perInstance", description="One PodGroup per instance of this (multi-instance) component."
    )
    per_replica: str | None = Field(
        default=None, alias="perReplica", description="One PodGroup per replica of this component (LWS group)."
    )
    name: str | None = Field(
        default=None, description="Name suffix; the group is named <workload>[-<suffix>][-<index>]."
    )
    min_member: Count | None = Field(
        default=None,
        alias="minMember",
        description="Expression or constant; null result falls back to the members' pods at minimum scale.",
    )
    sub_groups: list[SubGroupRule] = Field(default_factory=list, alias="subGroups")

    @model_validator(mode="after")
    def _one_scope(self) -> "PodGroupRule":
        if self.per_instance and self.per_replica:
            raise ValueError("a PodGroup rule takes perInstance or perReplica, not both")
        return self


class ReferenceKind(_Strict):
    """A kind a reference may point at."""

    api_version: str = Field(alias="apiVersion")
    kind: str
    namespaced: bool = True


class Reference(_Compiled):
    """A related object the workload names (a TrainJob's runtime); ``ref(name)`` returns it.

    wmap fetches nothing by itself: the object is found among the other documents of the input or
    the files given with ``--related``. When it is absent, ``ref(name)`` is null and the tree
    carries a warning.
    """

    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]*$")
    kinds: list[ReferenceKind] = Field(min_length=1)
    kind_expression: str | None = Field(
        default=None, alias="kindExpression", description="Expression giving the kind (default: the first of kinds)."
    )
    name_expression: str = Field(alias="nameExpression", description="Expression giving the object's name.")
    description: str = ""


class GangDefinition(_Strict):
    """Gang rules. ``podGroups: []`` (or no gang section) means the kind is not gang scheduled."""

    policy: str = Field(default="", description="Whose semantics these rules follow (e.g. the KAI pod-grouper plugin).")
    pod_groups: list[PodGroupRule] = Field(default_factory=list, alias="podGroups")


class ExportsDefinition(_Strict):
    """Kind-specific facts the scheduler exporters need (so no exporter checks a kind by name)."""

    kueue_pod_set_group: bool = Field(
        default=False,
        alias="kueuePodSetGroup",
        description="The pod templates of one PodGroup form one Kueue PodSet group (`podset-group-name`), "
        "so Kueue places them in one domain together (LWS leader and workers).",
    )
    volcano_network_topology: str | None = Field(
        default=None,
        alias="volcanoNetworkTopology",
        pattern=r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$",
        description="Dotted path where the workload itself takes a Volcano `networkTopology` block "
        "(a Volcano Job's `spec.networkTopology`); the Volcano export then edits the workload instead of "
        "emitting PodGroups.",
    )


class Definition(_Strict):
    """A workload-type definition."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$", description="Catalog name of the definition.")
    group: str = Field(description="API group; empty for the core group.")
    kind: str
    versions: list[str] = Field(min_length=1, description="API versions this definition knows.")
    description: str = ""
    language: Literal["jmespath", "jsonpath"] = "jmespath"
    components: list[ComponentDefinition] = Field(min_length=1)
    gang: GangDefinition = Field(default_factory=GangDefinition)
    status: StatusDefinition = Field(default_factory=StatusDefinition)
    references: list[Reference] = Field(default_factory=list)
    exports: ExportsDefinition = Field(default_factory=ExportsDefinition)
    notes: list[str] = Field(default_factory=list, description="Semantics worth knowing, shown by `catalog show`.")

    _source: str | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _consistent(self) -> "Definition":
        names = [component.name for root in self.components for component in root.walk()]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"component names must be unique: {', '.join(duplicates)}")
        known = set(names)
        by_name = {component.name: component for root in self.components for component in root.walk()}
        for index, rule in enumerate(self.gang.pod_groups):
            for scope in (rule.per_instance, rule.per_replica):
                if scope and scope not in known:
                    raise ValueError(f"gang.podGroups[{index}] names unknown component {scope!r}")
            if rule.per_instance and not by_name[rule.per_instance].instances:
                raise ValueError(
                    f"gang.podGroups[{index}].perInstance: component {rule.per_instance!r} has no instances"
                )
            subgroup_names = set()
            for sub_index, sub in enumerate(rule.sub_groups):
                for named in (sub.component, sub.each_replica_of, sub.segment_leader):
                    if named and named not in known:
                        raise ValueError(
                            f"gang.podGroups[{index}].subGroups[{sub_index}] names unknown component {named!r}"
                        )
                if sub.each_replica_of and sub.component not in {c.name for c in by_name[sub.each_replica_of].walk()}:
                    raise ValueError(
                        f"gang.podGroups[{index}].subGroups[{sub_index}]: {sub.component!r} is not inside "
                        f"eachReplicaOf component {sub.each_replica_of!r}"
                    )
                subgroup_names.add(sub.name or sub.component)
            for sub_index, sub in enumerate(rule.sub_groups):
                if sub.parent and sub.parent not in subgroup_names:
                    raise ValueError(
                        f"gang.podGroups[{index}].subGroups[{sub_index}].parent names unknown subgroup {sub.parent!r}"
                    )
        return self

    @model_validator(mode="after")
    def _pod_selectors_name_ancestors(self) -> "Definition":
        def visit(component: ComponentDefinition, ancestors: tuple[str, ...], path: str) -> None:
            names = (*ancestors, component.name)
            selector = component.pods.parsed_selector if component.pods else None
            for placeholder in sorted(selector.placeholders() if selector else ()):
                _, colon, named = placeholder.partition(":")
                if colon and named not in names:
                    raise ValueError(f"{path}.pods.selector: {{{placeholder}}} names no enclosing component")
            for index, child in enumerate(component.components):
                visit(child, names, f"{path}.components[{index}]")

        for index, component in enumerate(self.components):
            visit(component, (), f"components[{index}]")
        return self

    @property
    def api_group_kind(self) -> tuple[str, str]:
        """``(group, kind)``: the key the catalog indexes definitions by."""
        return (self.group, self.kind)

    @property
    def source(self) -> str | None:
        """The file the definition was loaded from, if any."""
        return self._source

    def compile(self, source: str | None = None) -> "Definition":
        """Compile every expression once; a broken one raises with the file and field named.

        Raises:
            DefinitionError: an expression does not compile.
        """
        self._source = source
        for path, model, field_name, text in self.expression_fields():
            if field_name == "min_member" and text == "remainder" and isinstance(model, SubGroupRule):
                continue
            try:
                model._expressions[field_name] = compile_expression(text, self.language)
            except ExpressionError as error:
                alias = type(model).model_fields[field_name].alias or field_name
                raise DefinitionError(error.message, file=source, document=self.name, field=f"{path}.{alias}") from None
        return self

    def expression_fields(self) -> Iterator[tuple[str, _Compiled, str, str]]:
        """``(path, model, field name, expression text)`` for every expression field, in file order."""

        def component_fields(component: ComponentDefinition, path: str) -> Iterator[tuple[str, _Compiled, str, str]]:
            for field_name in (
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
            ):
                value = getattr(component, field_name)
                if isinstance(value, str):
                    yield path, component, field_name, value
            for index, child in enumerate(component.components):
                yield from component_fields(child, f"{path}.components[{index}]")

        for index, component in enumerate(self.components):
            yield from component_fields(component, f"components[{index}]")
        for index, rule in enumerate(self.gang.pod_groups):
            path = f"gang.podGroups[{index}]"
            for field_name in ("when", "min_member"):
                value = getattr(rule, field_name)
                if isinstance(value, str):
                    yield path, rule, field_name, value
            for sub_index, sub in enumerate(rule.sub_groups):
                for field_name in ("min_member", "segment_size"):
                    value = getattr(sub, field_name)
                    if isinstance(value, str):
                        yield f"{path}.subGroups[{sub_index}]", sub, field_name, value
        for index, reference in enumerate(self.references):
            for field_name in ("kind_expression", "name_expression"):
                value = getattr(reference, field_name)
                if isinstance(value, str):
                    yield f"references[{index}]", reference, field_name, value
        for field_name in ("phase", "conditions"):
            value = getattr(self.status, field_name)
            if isinstance(value, str):
                yield "status", self.status, field_name, value
        for phase, matchers in self.status.rules.items():
            for index, matcher in enumerate(matchers):
                if matcher.expression is not None:
                    yield f"status.rules.{phase.value}[{index}]", matcher, "expression", matcher.expression


def definition_json_schema() -> dict[str, Any]:
    """The JSON Schema of a definition file, generated from the models."""
    schema = Definition.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "wmap workload definition"
    return schema
