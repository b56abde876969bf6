"""``alter``: one workload object with changes applied to every pod template of every component.

The input object is never modified: the changes go into a fresh copy, which the result carries
with the fields it changed, the warnings (a replaced schedulerName, node selector or label value)
and a merge patch for ``kubectl patch --type merge``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..catalog import Catalog
from ..errors import AlterError, InputError, format_path
from ..interpreter import EvaluationContext, ObjectIndex, RelatedObjects, default_catalog, resolve_references
from ..runtime_definitions import Definition
from ..tree import WorkloadRef
from ..values import OMIT, JsonForm, mapping_at
from .changes import Changes
from .locate import PodSlot, locate_pods
from .patch import merge_patch
from .paths import Path, fresh_copy, get_at, set_at
from .pods import Writer, took_effect
from .suspend import apply_suspend

__all__ = ["Alteration", "AlteredComponent", "alter", "pod_places", "select_components"]


@dataclass(kw_only=True)
class AlteredComponent(JsonForm):
    """A component whose pods got the changes, and the fields written for it.

    Components that share a pod template (an LWS leader without a template of its own) list the
    same fields.
    """

    component: str
    role: str
    fields: list[str]


@dataclass(kw_only=True)
class Alteration(JsonForm):
    """The result of :func:`alter`: the new object and what changed.

    Attributes:
        object: the altered object (a new one; the input is untouched).
        components: the pod-bearing components that got the pod changes.
        changed: every field set, as paths (``spec.replicatedJobs[0].template.spec.template.spec.schedulerName``).
        removed: fields removed (a resume that deletes a stop annotation).
        warnings: existing values replaced, and caveats of the kind's suspend field.
    """

    workload: WorkloadRef
    definition: str
    object: dict[str, Any] = field(metadata=OMIT)
    components: list[AlteredComponent] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    original: Mapping[str, Any] = field(default_factory=dict, metadata=OMIT, repr=False)

    def patch(self) -> dict[str, Any]:
        """A JSON merge patch (RFC 7386) from the original to the altered object (``kubectl patch --type merge``)."""
        return merge_patch(self.original, self.object)


_PodWrite = Callable[[Writer, PodSlot, Path, Changes, str], None]


def _workload_ref(pair: tuple[str, str] | None) -> dict[str, str]:
    workload, pod_group = pair or ("", "")
    return {"name": workload, "podGroup": pod_group}


def _write_affinity(writer: Writer, slot: PodSlot, place: Path, changes: Changes, where: str) -> None:
    """Node requirements into every required node-selector term, then the required podAffinity terms."""
    if changes.node_affinity:
        writer.require_nodes(place, slot.effective("affinity"), changes.node_affinity, where)
    if changes.pod_affinity:
        writer.require_pods(place, slot.effective("affinity"), changes.pod_affinity)


# One writer per pod field: how a change is merged into what is there.
_POD_WRITERS: dict[str, _PodWrite] = {
    "labels": lambda w, s, p, c, at: w.merge_map(p, s.effective("labels"), c.pod_labels, "pod label", at),
    "annotations": lambda w, s, p, c, at: w.merge_map(
        p, s.effective("annotations"), c.pod_annotations, "pod annotation", at
    ),
    "schedulerName": lambda w, s, p, c, at: w.set_scalar(
        p, s.effective("schedulerName"), c.scheduler_name or "", "schedulerName", at
    ),
    "nodeSelector": lambda w, s, p, c, at: w.merge_map(
        p, s.effective("nodeSelector"), c.node_selector, "nodeSelector", at
    ),
    "tolerations": lambda w, s, p, c, at: w.add_tolerations(p, s.effective("tolerations"), c.tolerations),
    "affinity": lambda w, s, p, c, at: _write_affinity(w, s, p, c, at),
    "priorityClassName": lambda w, s, p, c, at: w.set_scalar(
        p, s.effective("priorityClassName"), c.priority_class or "", "priorityClassName", at
    ),
    "schedulingGroup": lambda w, s, p, c, at: w.merge_map(
        p, s.effective("schedulingGroup"), {"podGroupName": c.scheduling_group or ""}, "schedulingGroup", at
    ),
    "workloadRef": lambda w, s, p, c, at: w.merge_map(
        p, s.effective("workloadRef"), _workload_ref(c.workload_ref), "workloadRef", at
    ),
}


def _workload(obj: Mapping[str, Any]) -> WorkloadRef:
    metadata = mapping_at(obj, "metadata")
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        raise InputError("a Kubernetes object needs apiVersion and kind")
    name = metadata.get("name") or metadata.get("generateName") or ""
    generated = not metadata.get("name") and bool(metadata.get("generateName"))
    return WorkloadRef(api_version, kind, str(name), metadata.get("namespace"), generate_name=generated)


def select_components(slots: Sequence[PodSlot], names: str | Sequence[str] | None) -> list[PodSlot]:
    """The slots the names target: a component path, a path ending in ``/name``, a role or an instance.

    Raises:
        InputError: no pod-bearing component has one of the names (the message lists them).
    """
    if names is None:
        return list(slots)
    chosen: list[PodSlot] = []
    for name in [names] if isinstance(names, str) else names:
        found = [
            slot
            for slot in slots
            if name in (slot.component, slot.role, slot.instance) or slot.component.endswith(f"/{name}")
        ]
        if not found:
            known = ", ".join(dict.fromkeys(slot.component for slot in slots)) or "none"
            raise InputError(f"no pod-bearing component named {name!r} (components: {known})")
        chosen.extend(slot for slot in found if all(slot is not other for other in chosen))
    return chosen


def _check_places(slots: Sequence[PodSlot], targeted: Sequence[PodSlot], fields: Sequence[str], kind: str) -> None:
    """Every targeted field has a place, and no place is shared with a component left out."""
    owners: dict[tuple[str, Path], list[PodSlot]] = {}
    for slot in slots:
        for name in fields:
            place = slot.places.get(name)
            if place is not None:
                owners.setdefault((name, place), []).append(slot)
    chosen = {id(slot) for slot in targeted}
    for slot in targeted:
        for name in fields:
            place = slot.place(name, kind)
            others = [other.component for other in owners[(name, place)] if id(other) not in chosen]
            if others:
                raise AlterError(
                    f"{kind} component {slot.component} shares its pods' {name} ({format_path(place)}) with "
                    f"{', '.join(others)}; the change would reach them too: target them as well (or drop --component)"
                )


def _definition(obj: Mapping[str, Any], workload: WorkloadRef, catalog: Catalog, warnings: list[str]) -> Definition:
    lookup = catalog.lookup(workload.api_version, workload.kind)
    if lookup is None:
        raise catalog.no_definition(workload.api_version, workload.kind)
    if lookup.warning:
        warnings.append(lookup.warning)
    if not isinstance(lookup.definition, Definition):
        # A Karta says where pods are read from, not how to write them back (docs/karta.md).
        raise AlterError(
            f"{workload.kind} is defined by Karta {lookup.definition.name!r}, which says where pods are read from "
            "but not how to write them; alter needs a wmap definition of the kind (drop the Karta from --catalog)"
        )
    return lookup.definition


def pod_places(
    resource: Mapping[str, Any], *, catalog: Catalog | None = None, related: RelatedObjects | None = None
) -> tuple[Definition, list[PodSlot]]:
    """The workload's definition and, per pod-bearing component, where its pod fields live.

    Raises:
        NoDefinitionError: no definition covers the kind.
        InputError: a field has the wrong type.
    """
    catalog = catalog if catalog is not None else default_catalog()
    obj = fresh_copy(resource)
    workload = _workload(obj)
    definition = _definition(obj, workload, catalog, [])
    refs = resolve_references(definition, obj, related or ObjectIndex(), workload.namespace, [])
    return definition, locate_pods(EvaluationContext(definition, obj, refs), catalog=catalog)


def alter(
    resource: Mapping[str, Any],
    changes: Changes,
    *,
    component: str | Sequence[str] | None = None,
    catalog: Catalog | None = None,
    related: RelatedObjects | None = None,
    existing: bool = False,
) -> Alteration:
    """Apply ``changes`` to a workload: every pod template of every component (or of ``component``).

    Pod fields are written where the catalog reads them: in the pod template when it is part of the
    object, else in the fragment fields the definition's ``podFields`` names. Everything else stays
    as it was, in the same order; the input object is never modified.

    Args:
        resource: the workload object (a parsed manifest or an object read from a cluster).
        changes: what to change.
        component: only this component (its path, role or instance name), or these components;
            object-level changes (labels, annotations, queue, suspension) still apply to the object.
        catalog: definitions to use; the built-in catalog when omitted.
        related: where to find objects the workload references (a TrainJob's runtime).
        existing: the object is already in the cluster and the change goes out as a patch: a
            suspension that holds only a new object (Kueue's admission gate) is refused.

    Raises:
        TypeError: ``resource`` is not a mapping or ``changes`` not a :class:`Changes`.
        NoDefinitionError: no definition covers the kind.
        InputError: a field has the wrong type, or no component has the name given.
        AlterError: a change has no safe place: the kind keeps no such pod field, cannot be
            suspended, or a targeted template is shared with a component left out.
    """
    if not isinstance(resource, Mapping):
        raise TypeError(f"resource must be a mapping (a Kubernetes object), got {type(resource).__name__}")
    if not isinstance(changes, Changes):
        raise TypeError(f"changes must be a Changes, got {type(changes).__name__}")
    catalog = catalog if catalog is not None else default_catalog()
    obj: dict[str, Any] = fresh_copy(resource)
    workload = _workload(obj)
    try:
        changes = changes.for_workload(workload.name)
    except ValueError as error:
        raise AlterError(str(error), field=["metadata", "name"]) from None
    warnings: list[str] = []
    definition = _definition(obj, workload, catalog, warnings)
    changed: list[Path] = []

    def set_value(path: Path, value: Any) -> None:
        set_at(obj, path, value)
        changed.append(path)

    writer = Writer(obj, set_value, warnings)
    altered = _alter_pods(obj, definition, changes, component, catalog, related, workload, writer)
    if changes.object_labels:
        writer.merge_map(("metadata", "labels"), None, changes.object_labels, "label", "the object")
    if changes.annotations:
        writer.merge_map(("metadata", "annotations"), None, changes.annotations, "annotation", "the object")
    removed: list[tuple[str, ...]] = []
    if changes.suspend is not None:
        removed = apply_suspend(
            definition, obj, resource, changes.suspend, write=set_value, warnings=warnings, existing=existing
        )
    return Alteration(
        workload=workload,
        definition=definition.name,
        object=obj,
        components=altered,
        changed=list(dict.fromkeys(format_path(path) for path in changed)),
        removed=[format_path(path) for path in removed],
        warnings=warnings,
        original=resource,
    )


def _alter_pods(
    obj: dict[str, Any],
    definition: Definition,
    changes: Changes,
    component: str | Sequence[str] | None,
    catalog: Catalog,
    related: RelatedObjects | None,
    workload: WorkloadRef,
    writer: Writer,
) -> list[AlteredComponent]:
    fields = changes.pod_fields
    if not fields and component is None:
        return []
    refs = resolve_references(definition, obj, related or ObjectIndex(), workload.namespace, writer.warnings)
    context = EvaluationContext(definition, obj, refs)  # obj is altered in place: the context reads it after too
    slots = locate_pods(context, catalog=catalog)
    targeted = select_components(slots, component)
    _check_places(slots, targeted, fields, workload.kind)
    done: set[tuple[str, Path]] = set()
    altered = []
    for slot in targeted:
        written = []
        if fields and slot.seed is not None and get_at(obj, slot.seed) is None:
            writer.seed(slot.seed, slot.view)
        for name in fields:
            place = slot.place(name, workload.kind)
            written.append(format_path(place))
            if (name, place) not in done:
                done.add((name, place))
                _POD_WRITERS[name](writer, slot, place, changes, f"component {slot.component}")
        altered.append(AlteredComponent(component=slot.component, role=slot.role, fields=written))
    if fields and not targeted:
        writer.warnings.append(f"{workload.kind} has no pod-bearing component: no pod field was changed")
    _verify(context, catalog, [slot.component for slot in targeted], changes, workload.kind)
    return altered


def _verify(
    context: EvaluationContext,
    catalog: Catalog,
    components: Sequence[str],
    changes: Changes,
    kind: str,
) -> None:
    """Read the altered object back through the catalog: every targeted pod must carry the change.

    A write the operator would not honour (a Spark ``batchScheduler`` that overrides the driver's
    ``schedulerName``) is refused here instead of being printed as if it worked.
    """
    after = {slot.component: slot for slot in locate_pods(context, catalog=catalog)}
    for component in components:
        slot = after.get(component)
        for name in changes.pod_fields:
            value = slot.effective(name) if slot is not None else None
            if slot is None or not took_effect(name, value, changes):
                raise AlterError(
                    f"{kind} component {component}: the pods' {name} would not change (the definition reads it as "
                    f"{value!r} after the edit): the operator takes it from another field"
                )
