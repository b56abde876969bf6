"""The definition itself: what it matches, its references, exports, suspension and bases, and its JSON Schema."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr, model_validator

from .. import runtime_definitions as runtime
from ..budgets import reference_kinds
from ..errors import DefinitionError, ExpressionError
from ..expressions import compile_expression
from .base import FieldPathText, _Compiled, _Strict
from .components import ComponentDefinition
from .gangs import GangDefinition, SubGroupRule
from .status import StatusDefinition

__all__ = [
    "ReferenceKind",
    "Reference",
    "ExportsDefinition",
    "SuspendAction",
    "SuspendDefinition",
    "SpecBase",
    "CheckDefinition",
    "Definition",
    "definition_json_schema",
]


class ReferenceKind(_Strict, runtime.ReferenceKind):
    """A kind a reference may point at."""

    api_version: str = Field(alias="apiVersion")
    kind: str
    namespaced: bool = True


class Reference(_Compiled, runtime.Reference):
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
    name_expression: str = Field(
        alias="nameExpression",
        description="Expression giving the object's name; a list of names makes ref() the list of those found "
        "(in order, each missing one warned about).",
    )
    description: str = ""
    optional: bool = Field(
        default=False,
        description="The object's absence is an answer, not a gap (KAI's legacy PodGroup of a JobSet): no warning.",
    )


class ExportsDefinition(_Strict, runtime.ExportsDefinition):
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
    exclusive_topology: FieldPathText | None = Field(
        default=None,
        alias="exclusiveTopology",
        description="Where a node-label key puts each replica in a domain of its own (LWS exclusive-topology).",
    )


class SuspendAction(_Compiled, runtime.SuspendAction):
    """One step: set ``value``, ``remove`` the field, or add/remove an item of a comma-separated string."""

    path: FieldPathText = Field(description="The field, from the resource.")
    value: Any = None
    remove: bool = False
    add_item: str | None = Field(default=None, alias="addItem")
    remove_item: str | None = Field(default=None, alias="removeItem")
    when: str | None = Field(default=None, description="Expression on the resource; the step applies when truthy.")

    @model_validator(mode="after")
    def _one_operation(self) -> "SuspendAction":
        given = ("value" in self.model_fields_set, self.remove, self.add_item is not None, self.remove_item is not None)
        if sum(given) != 1:
            raise ValueError("a suspend action takes exactly one of value, remove, addItem, removeItem")
        return self


class SuspendDefinition(_Strict, runtime.SuspendDefinition):
    """How the operator suspends and resumes the workload (``wmap suspend|resume``)."""

    suspend_actions: list[SuspendAction] = Field(min_length=1, alias="suspendActions")
    resume_actions: list[SuspendAction] = Field(min_length=1, alias="resumeActions")
    caveat: str | None = Field(default=None, description="What a user must know, printed with every suspend/resume.")
    existing_object: str | None = Field(
        default=None,
        alias="existingObject",
        description="When the suspend steps hold only a new object (Kueue's admission gate): what suspends an "
        "existing one instead (`{name}`: the object's name). `wmap suspend --patch` refuses with it; null: the steps "
        "work on an existing object.",
    )
    source: str = Field(default="", description="Where the operator defines the field (API type, controller).")


class SpecBase(_Compiled, runtime.SpecBase):
    """An object whose ``spec`` lies beneath the resource's (a KServe LLMInferenceServiceConfig)."""

    object: str = Field(description="Expression (refs allowed) for the object; null: nothing merged.")


class CheckDefinition(_Compiled, runtime.CheckDefinition):
    """A value the operator refuses, checked before any expression reads it.

    When ``field`` holds a value on which ``valid`` is false, the resource is an error naming the field and
    ``message`` (the accepted forms).
    """

    field: FieldPathText = Field(description="The field, from the resource (absent: nothing to check).")
    valid: str = Field(description="Expression on the field's value: truthy when the operator accepts it.")
    message: str = Field(description="What the operator accepts, for the error (e.g. 'a JVM size: 512m, 2g').")


class Definition(_Strict, runtime.Definition):
    """A workload-type definition."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$", description="Catalog name of the definition.")
    group: str = Field(description="API group; empty for the core group.")
    kind: str
    versions: list[str] = Field(min_length=1, description="API versions this definition knows.")
    short_names: list[str] = Field(
        default_factory=list,
        alias="shortNames",
        description="The resource's short names, as its CRD's names.shortNames states them (`lws`); "
        "`catalog show` accepts them as `kubectl get` does.",
    )
    description: str = ""
    language: Literal["jmespath", "jsonpath"] = "jmespath"
    components: list[ComponentDefinition] = Field(min_length=1)
    gang: GangDefinition = Field(default_factory=GangDefinition)
    status: StatusDefinition = Field(default_factory=StatusDefinition)
    references: list[Reference] = Field(default_factory=list)
    exports: ExportsDefinition = Field(default_factory=ExportsDefinition)
    notes: list[str] = Field(default_factory=list, description="Semantics worth knowing, shown by `catalog show`.")
    suspend: SuspendDefinition | None = Field(default=None, description="None: the kind cannot be suspended.")
    bases: list[SpecBase] = Field(
        default_factory=list, description="Specs merged beneath the resource's, in order (the resource's wins)."
    )
    checks: list[CheckDefinition] = Field(
        default_factory=list, description="Values the operator refuses, each a located error with its accepted forms."
    )

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
                if scope is not None and scope not in known:  # "" is a name too, and no component's
                    raise ValueError(f"gang.podGroups[{index}] names unknown component {scope!r}")
            if rule.per_instance and not by_name[rule.per_instance].instances:
                raise ValueError(
                    f"gang.podGroups[{index}].perInstance: component {rule.per_instance!r} has no instances"
                )
            subgroup_names = set()
            for sub_index, sub in enumerate(rule.sub_groups):
                for named in (sub.component, sub.each_replica_of, sub.segment_leader):
                    if named is not None and named not in known:
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
                if sub.parent and "{" not in sub.parent and sub.parent not in subgroup_names:
                    raise ValueError(
                        f"gang.podGroups[{index}].subGroups[{sub_index}].parent names unknown subgroup {sub.parent!r}"
                    )
        return self

    @model_validator(mode="after")
    def _likes_name_components(self) -> "Definition":
        by_name = {component.name: component for root in self.components for component in root.walk()}

        def visit(component: ComponentDefinition, path: str) -> None:
            if component.like is not None:
                target = by_name.get(component.like)
                if target is None or target is component:
                    raise ValueError(f"{path}.like: {component.like!r} names no other component")
                if target.like is not None:
                    raise ValueError(f"{path}.like: {component.like!r} is itself a like component; name its target")
            for index, child in enumerate(component.components):
                visit(child, f"{path}.components[{index}]")

        for index, component in enumerate(self.components):
            visit(component, f"components[{index}]")
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

    def compile(self, source: str | None = None) -> "Definition":
        """Compile every expression once; a broken one raises with the file and field named.

        Raises:
            DefinitionError: an expression does not compile, or a reference names a kind outside
                :func:`~workloadmap.budgets.reference_kinds` (a Secret, a ConfigMap ...).
        """
        self._source = source
        allowed = reference_kinds()
        for index, reference in enumerate(self.references):
            for position, kind in enumerate(reference.kinds):
                group = kind.api_version.rpartition("/")[0]
                if (group, kind.kind) not in allowed:
                    names = ", ".join(sorted(f"{k}.{g}" if g else k for g, k in allowed))
                    raise DefinitionError(
                        f"a definition may reference only runtime templates ({names}); {kind.kind} "
                        f"({group or 'core'}) needs --allow-reference-kind {kind.kind}{'.' + group if group else ''}",
                        file=source,
                        document=self.name,
                        field=f"references[{index}].kinds[{position}]",
                    )
        for path, model, field_name, text in self.expression_fields():
            if field_name == "min_member" and text == "remainder" and isinstance(model, SubGroupRule):
                continue
            try:
                model._expressions[field_name] = compile_expression(text, self.language)
            except ExpressionError as error:
                alias = _alias(model, field_name)
                raise DefinitionError(error.message, file=source, document=self.name, field=f"{path}.{alias}") from None
        return self


def _alias(part: runtime.CompiledPart, field_name: str) -> str:
    """The key of ``field_name`` as a file writes it (every part of a definition being compiled is a model)."""
    assert isinstance(part, BaseModel)
    return type(part).model_fields[field_name].alias or field_name


def definition_json_schema() -> dict[str, Any]:
    """The JSON Schema of a definition file, generated from the models."""
    schema = Definition.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "wmap workload definition"
    return schema
