"""Writing pod fields: merge what the user asked for into what is there, and say what was replaced.

Maps (labels, annotations, nodeSelector) keep their entries and order, with new keys appended; a
different existing value is replaced with a warning. Tolerations are appended unless an existing
one already tolerates the taint. Node requirements are added to every required node-selector term
(a term is an OR, its expressions an AND); required podAffinity terms are appended unless present.
A field that is absent starts from the value in effect (a Milvus component falls back to
``spec.components.<field>``), so no entry in effect is lost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import AlterError, format_path
from .changes import Changes, NodeRequirement, PodAffinityTerm, Toleration
from .paths import Path, fresh_copy, get_at

__all__ = ["Writer", "took_effect"]


class Writer:
    """Writes into one object, recording every changed field and every warning."""

    def __init__(self, obj: dict[str, Any], set_value: Callable[[Path, Any], None], warnings: list[str]) -> None:
        self.obj = obj
        self._set = set_value
        self.warnings = warnings

    def seed(self, place: Path, view: Mapping[str, Any]) -> None:
        """Write the pod template in effect at ``place`` (where the operator would otherwise build it)."""
        self._set(place, {key: fresh_copy(value) for key, value in view.items() if value not in (None, {})})

    def _start(self, place: Path, effective: Any, kind: type) -> tuple[Any, bool]:
        """The container at ``place`` (or a copy of the value in effect) and whether it is already there."""
        current = get_at(self.obj, place)
        if isinstance(current, kind):
            return current, True
        if current is not None:
            raise AlterError(f"expected a {kind.__name__.replace('dict', 'mapping')} here", field=list(place))
        return (fresh_copy(effective) if isinstance(effective, kind) else kind()), False

    def merge_map(self, place: Path, effective: Any, wanted: Mapping[str, str], what: str, where: str) -> None:
        """Add ``wanted`` to the map at ``place``; a different value is replaced with a warning."""
        target, _ = self._start(place, effective if isinstance(effective, Mapping) else None, dict)
        changed = False
        for key, value in wanted.items():
            old = target.get(key)
            if old == value:
                continue
            if old is not None:
                self.warnings.append(f"{where}: {what} {key}={old} replaced by {value} ({format_path(place)})")
            target[key] = value
            changed = True
        if changed:
            self._set(place, target)

    def set_scalar(self, place: Path, effective: Any, value: str, what: str, where: str) -> None:
        """Set a single value; a different one in effect is replaced with a warning."""
        current = get_at(self.obj, place)
        old = current if current is not None else effective
        if old == value:
            return
        if old is not None:
            self.warnings.append(f"{where}: {what} {old} replaced by {value} ({format_path(place)})")
        self._set(place, value)

    def add_tolerations(self, place: Path, effective: Any, wanted: Sequence[Toleration]) -> None:
        """Append tolerations an existing entry does not already cover."""
        target, _ = self._start(place, effective, list)
        added = False
        for toleration in wanted:
            if not any(isinstance(entry, Mapping) and _covers(entry, toleration) for entry in target):
                target.append(toleration.to_pod())
                added = True
        if added:
            self._set(place, target)

    def require_pods(self, place: Path, effective: Any, wanted: Sequence[PodAffinityTerm]) -> None:
        """Add the required podAffinity terms the affinity at ``place`` lacks (existing terms are kept)."""
        affinity, _ = self._start(place, effective, dict)
        pod_affinity = _child(affinity, "podAffinity", place)
        terms = pod_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        if terms is None:
            terms = pod_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = []
        if not isinstance(terms, list):
            raise AlterError(
                "podAffinity.requiredDuringSchedulingIgnoredDuringExecution is not a list", field=list(place)
            )
        added = False
        for term in wanted:
            if term.to_pod() not in terms:
                terms.append(term.to_pod())
                added = True
        if added:
            self._set(place, affinity)

    def require_nodes(self, place: Path, effective: Any, wanted: Sequence[NodeRequirement], where: str) -> None:
        """Add ``key In [values]`` to every required node-selector term of the affinity at ``place``."""
        affinity, _ = self._start(place, effective, dict)
        node_affinity = _child(affinity, "nodeAffinity", place)
        required = _child(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution", place)
        terms = required.get("nodeSelectorTerms")
        if not isinstance(terms, list) or not terms:
            terms = required["nodeSelectorTerms"] = [{}]
        changed = False
        for term in terms:
            if not isinstance(term, dict):
                raise AlterError("a nodeSelectorTerms entry is not a mapping", field=list(place))
            expressions = term.get("matchExpressions")
            if not isinstance(expressions, list):
                expressions = term["matchExpressions"] = []
            for requirement in wanted:
                changed |= _require(expressions, requirement, where, place, self.warnings)
        if changed:
            self._set(place, affinity)


def _child(mapping: dict[str, Any], key: str, place: Path) -> dict[str, Any]:
    value = mapping.get(key)
    if value is None:
        value = mapping[key] = {}
    if not isinstance(value, dict):
        raise AlterError(f"{key} is not a mapping", field=list(place))
    return value


def _require(
    expressions: list[Any], requirement: NodeRequirement, where: str, place: Path, warnings: list[str]
) -> bool:
    wanted = requirement.to_pod()
    same_key = [entry for entry in expressions if isinstance(entry, Mapping) and entry.get("key") == requirement.key]
    if same_key == [wanted]:
        return False
    for entry in same_key:
        if entry != wanted:
            shown = f"{entry.get('operator')} {entry.get('values') or ''}".strip()
            warnings.append(
                f"{where}: node requirement {requirement.key} {shown} replaced by In {list(requirement.values)} "
                f"({format_path(place)})"
            )
        expressions.remove(entry)
    expressions.append(wanted)
    return True


def _covers(entry: Mapping[str, Any], toleration: Toleration) -> bool:
    """Whether an existing toleration already tolerates every taint ``toleration`` does (core/v1 rules)."""
    operator = entry.get("operator") or "Equal"
    key = entry.get("key") or ""
    if key and key != toleration.key:
        return False
    if not key and operator != "Exists":
        return False
    if operator == "Equal" and toleration.value is None:
        return False  # a value-less (Exists) toleration covers more than one value
    if operator == "Equal" and (entry.get("value") or "") != toleration.value:
        return False
    effect = entry.get("effect") or ""
    return not effect or effect == toleration.effect


def _contains(value: Any, wanted: Mapping[str, str]) -> bool:
    return isinstance(value, Mapping) and all(value.get(key) == item for key, item in wanted.items())


def _required_everywhere(affinity: Any, wanted: Sequence[NodeRequirement]) -> bool:
    terms = get_at(affinity, ("nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"))
    if not isinstance(terms, list) or not terms:
        return False
    expected = [requirement.to_pod() for requirement in wanted]
    return all(
        isinstance(term, Mapping) and all(entry in (term.get("matchExpressions") or []) for entry in expected)
        for term in terms
    )


def _pod_terms(affinity: Any, wanted: Sequence[PodAffinityTerm]) -> bool:
    terms = get_at(affinity, ("podAffinity", "requiredDuringSchedulingIgnoredDuringExecution"))
    return all(isinstance(terms, list) and term.to_pod() in terms for term in wanted)


_EFFECTS: dict[str, Callable[[Any, Changes], bool]] = {
    "labels": lambda value, changes: _contains(value, changes.pod_labels),
    "annotations": lambda value, changes: _contains(value, changes.pod_annotations),
    "schedulerName": lambda value, changes: value == changes.scheduler_name,
    "nodeSelector": lambda value, changes: _contains(value, changes.node_selector),
    "tolerations": lambda value, changes: (
        isinstance(value, list)
        and all(
            any(isinstance(entry, Mapping) and _covers(entry, wanted) for entry in value)
            for wanted in changes.tolerations
        )
    ),
    "affinity": lambda value, changes: (
        (not changes.node_affinity or _required_everywhere(value, changes.node_affinity))
        and _pod_terms(value, changes.pod_affinity)
    ),
    "priorityClassName": lambda value, changes: value == changes.priority_class,
    "schedulingGroup": lambda value, changes: (
        isinstance(value, Mapping) and value.get("podGroupName") == changes.scheduling_group
    ),
    "workloadRef": lambda value, changes: (
        isinstance(value, Mapping)
        and changes.workload_ref is not None
        and (value.get("name"), value.get("podGroup")) == changes.workload_ref
    ),
}


def took_effect(name: str, value: Any, changes: Changes) -> bool:
    """Whether the pod field ``name``, as the catalog now reads it, carries what ``changes`` asked for."""
    return _EFFECTS[name](value, changes)
