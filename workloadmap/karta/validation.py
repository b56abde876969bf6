"""Upstream's validation rules for a Karta, and the list of its jq expressions.

The rules are those of upstream's validator (``pkg/api/runai/v1alpha1/validation.go``, summarised
in the Workload Map reference section 2.10), in its order:

1. component names are unique and non-empty;
2. every child has an ``ownerRef`` naming an existing component;
3. the root has a full kind (only ``Pod`` may omit the group), no ``ownerRef``, and a
   ``statusDefinition``;
4. a component has at most one pod spec definition (and ``metadataPath`` goes with ``podSpecPath``);
5. ``instanceIdPath`` and ``podSelector.componentInstanceSelector`` come together;
6. ownership has no cycles;
7. every gang member (and ``podGroup`` subgroup) names a defined component;
8. every jq field compiles and passes the safety rules (:func:`.jqengine.check_safety`).

The CRD's list-map keys are checked too: pod group names are unique, and so are the members of
one group.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import ExpressionError
from .jqengine import compile_many
from .model import ComponentDefinition, Karta

__all__ = ["JqField", "jq_fields", "validate_karta"]

_KINDS_WITHOUT_GROUP = frozenset({"Pod"})


@dataclass(frozen=True)
class JqField:
    """A jq expression of a Karta: where it is, its text, and what it runs on (``resource`` or ``pod``)."""

    path: str
    source: str
    target: str


def _component_fields(component: ComponentDefinition, path: str) -> Iterator[JqField]:
    if component.instance_id_path is not None:
        yield JqField(f"{path}.instanceIdPath", component.instance_id_path, "resource")
    spec = component.spec_definition
    if spec is not None:
        for name in ("pod_template_spec_path", "pod_spec_path", "metadata_path"):
            value = getattr(spec, name)
            if value is not None:
                yield JqField(f"{path}.specDefinition.{type(spec).model_fields[name].alias}", value, "resource")
        if spec.fragmented_pod_spec_definition is not None:
            for alias, value in spec.fragmented_pod_spec_definition.paths().items():
                yield JqField(f"{path}.specDefinition.fragmentedPodSpecDefinition.{alias}", value, "resource")
    scale = component.scale_definition
    if scale is not None:
        for name in ("replicas_path", "min_replicas_path", "max_replicas_path"):
            value = getattr(scale, name)
            if value is not None:
                yield JqField(f"{path}.scaleDefinition.{type(scale).model_fields[name].alias}", value, "resource")
    status = component.status_definition
    if status is not None:
        if status.phase_definition is not None:
            yield JqField(f"{path}.statusDefinition.phaseDefinition.path", status.phase_definition.path, "resource")
        if status.conditions_definition is not None:
            yield JqField(
                f"{path}.statusDefinition.conditionsDefinition.path", status.conditions_definition.path, "resource"
            )
        for key, matchers in status.status_mappings.items():
            for index, matcher in enumerate(matchers):
                if matcher.by_expression is not None:
                    yield JqField(
                        f"{path}.statusDefinition.statusMappings.{key}[{index}].byExpression.expression",
                        matcher.by_expression.expression,
                        "resource",
                    )
    if component.suspend_definition is not None:
        for group in ("suspend_actions", "resume_actions"):
            for index, action in enumerate(getattr(component.suspend_definition, group)):
                alias = "suspendActions" if group == "suspend_actions" else "resumeActions"
                yield JqField(f"{path}.suspendDefinition.{alias}[{index}].path", action.path, "resource")
    selector = component.pod_selector
    if selector is not None:
        if selector.component_type_selector is not None and selector.component_type_selector.key_path is not None:
            yield JqField(
                f"{path}.podSelector.componentTypeSelector.keyPath", selector.component_type_selector.key_path, "pod"
            )
        if selector.component_instance_selector is not None:
            yield JqField(
                f"{path}.podSelector.componentInstanceSelector.idPath",
                selector.component_instance_selector.id_path,
                "pod",
            )
        if selector.replica_selector is not None:
            yield JqField(f"{path}.podSelector.replicaSelector.keyPath", selector.replica_selector.key_path, "pod")


def jq_fields(karta: Karta) -> Iterator[JqField]:
    """Every jq expression of the Karta, in file order."""
    structure = "spec.structureDefinition"
    yield from _component_fields(karta.root, f"{structure}.rootComponent")
    for index, child in enumerate(karta.spec.structure_definition.child_components):
        yield from _component_fields(child, f"{structure}.childComponents[{index}]")
    gang = karta.spec.optimization_instructions.gang_scheduling
    if gang is not None:
        for group_index, group in enumerate(gang.pod_groups):
            for member_index, member in enumerate(group.members):
                where = f"spec.optimizationInstructions.gangScheduling.podGroups[{group_index}].members[{member_index}]"
                for index, text in enumerate(member.group_by_key_paths):
                    yield JqField(f"{where}.groupByKeyPaths[{index}]", text, "pod")
                for index, text in enumerate(member.filters):
                    yield JqField(f"{where}.filters[{index}]", text, "pod")


def _duplicates(names: list[str]) -> list[str]:
    return sorted(name for name, count in Counter(names).items() if count > 1)


def _structure_problems(karta: Karta) -> Iterator[tuple[str, str]]:
    """``(field, message)`` for rules 1 to 6."""
    structure = "spec.structureDefinition"
    components = list(karta.components())
    names = [component.name for component in components]
    if any(not name for name in names):
        yield structure, "component names must not be empty"
    for name in _duplicates(names):
        yield structure, f"component name {name!r} is used more than once"
    root = karta.root
    where = f"{structure}.rootComponent"
    if root.kind is None or not root.kind.kind or not root.kind.version:
        yield f"{where}.kind", "the root component needs a full kind (group, version, kind)"
    elif not root.kind.group and root.kind.kind not in _KINDS_WITHOUT_GROUP:
        yield f"{where}.kind.group", f"the root kind {root.kind.kind} needs a group (only Pod may omit it)"
    if root.owner_ref:
        yield f"{where}.ownerRef", "the root component cannot have an ownerRef"
    if root.status_definition is None:
        yield f"{where}.statusDefinition", "the root component needs a statusDefinition"
    known = set(names)
    parents: dict[str, str] = {}
    for index, child in enumerate(karta.spec.structure_definition.child_components):
        where = f"{structure}.childComponents[{index}]"
        if not child.owner_ref:
            yield f"{where}.ownerRef", f"child component {child.name!r} needs an ownerRef"
        elif child.owner_ref not in known:
            yield f"{where}.ownerRef", f"ownerRef {child.owner_ref!r} names no component"
        else:
            parents[child.name] = child.owner_ref
    for index, component in enumerate(components):
        where = f"{structure}.rootComponent" if index == 0 else f"{structure}.childComponents[{index - 1}]"
        yield from _component_problems(component, where)
    for name in names:
        seen, current = {name}, parents.get(name)
        while current is not None:
            if current in seen:
                yield structure, f"ownership cycle through component {name!r}"
                break
            seen.add(current)
            current = parents.get(current)


def _component_problems(component: ComponentDefinition, where: str) -> Iterator[tuple[str, str]]:
    spec = component.spec_definition
    if spec is not None:
        forms = [spec.pod_template_spec_path, spec.pod_spec_path, spec.fragmented_pod_spec_definition]
        if sum(form is not None for form in forms) > 1:
            yield f"{where}.specDefinition", f"component {component.name!r} has multiple pod spec definitions"
        if spec.metadata_path and not spec.pod_spec_path:
            yield f"{where}.specDefinition.metadataPath", "metadataPath goes with podSpecPath"
    selector = component.pod_selector
    has_instance_selector = selector is not None and selector.component_instance_selector is not None
    if bool(component.instance_id_path) != has_instance_selector:
        yield (
            f"{where}.instanceIdPath",
            f"component {component.name!r}: instanceIdPath and podSelector.componentInstanceSelector go together",
        )


def _gang_problems(karta: Karta) -> Iterator[tuple[str, str]]:
    """``(field, message)`` for rule 7 and the CRD's list-map keys."""
    gang = karta.spec.optimization_instructions.gang_scheduling
    if gang is None:
        return
    known = {component.name for component in karta.components()}
    where = "spec.optimizationInstructions.gangScheduling"
    for name in _duplicates([group.name for group in gang.pod_groups]):
        yield f"{where}.podGroups", f"pod group name {name!r} is used more than once"
    for group_index, group in enumerate(gang.pod_groups):
        members = [member.component_name for member in group.members]
        for name in _duplicates(members):
            yield f"{where}.podGroups[{group_index}].members", f"component {name!r} is a member more than once"
        for member_index, member in enumerate(group.members):
            if member.component_name not in known:
                yield (
                    f"{where}.podGroups[{group_index}].members[{member_index}].componentName",
                    f"gang member {member.component_name!r} names no component",
                )
    if gang.pod_group is not None:
        for index, sub_group in enumerate(gang.pod_group.sub_groups):
            if sub_group.component_name not in known:
                yield (
                    f"{where}.podGroup.subGroups[{index}].componentName",
                    f"subgroup component {sub_group.component_name!r} names no component",
                )


def validate_karta(karta: Karta) -> list[tuple[str, str]]:
    """Every rule the Karta breaks, as ``(field, message)`` pairs (empty when it is valid).

    Compiling the jq fields (rule 8) runs in the bounded jq process, once per expression text.
    """
    problems = list(_structure_problems(karta)) + list(_gang_problems(karta))
    fields = []
    for field in jq_fields(karta):
        if field.source.strip():
            fields.append(field)
        else:  # the interpreter would look up a program for it; upstream's Go reads "" as unset
            problems.append((field.path, "an empty jq expression; leave the field out instead"))
    try:
        compile_many(field.source for field in fields)
    except ExpressionError:
        for field in fields:  # find which field broke, and report each broken one
            try:
                compile_many([field.source])
            except ExpressionError as error:
                problems.append((field.path, error.message))
    return problems
