"""Suspend and resume: the steps a definition's ``suspend`` section names, applied to the object.

Each operator has its own switch: ``spec.suspend`` (Job, JobSet, RayJob, RayCluster, TrainJob ...),
``spec.runPolicy.suspend`` (Kubeflow v1 jobs, MPIJob), an annotation (KServe's stop, the Kubeflow
Notebook's stop), or, for kinds without one that Kueue manages, Kueue's admission gate. The
definition says which; a kind without a ``suspend`` section cannot be suspended.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any

from .. import labels
from ..errors import AlterError, ExpressionError
from ..expressions import field_path
from ..runtime_definitions import Definition, SuspendAction
from ..values import mapping_at, truthy
from .paths import delete_at, get_at

__all__ = ["apply_suspend", "NOW"]

NOW = "{now}"
"""A suspend value written as the current UTC time (the Kubeflow Notebook stop annotation holds one)."""

Write = Callable[[tuple[str, ...], Any], None]


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _items(value: Any) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()] if isinstance(value, str) else []


def _applies(action: SuspendAction, original: Mapping[str, Any]) -> bool:
    expression = action.compiled("when")
    if expression is None:
        return True
    try:
        return truthy(expression.search(original))
    except ExpressionError as error:
        raise error.located(field=expression.source) from None


def _step(action: SuspendAction, obj: dict[str, Any], write: Write, removed: list[tuple[str, ...]]) -> None:
    path = field_path(action.path)
    current = get_at(obj, path)
    if action.remove:
        if delete_at(obj, path):
            removed.append(path)
    elif action.add_item is not None:
        items = _items(current)
        if action.add_item not in items:
            write(path, ",".join([*items, action.add_item]))
    elif action.remove_item is not None:
        items = [item for item in _items(current) if item != action.remove_item]
        if action.remove_item in _items(current):
            if items:
                write(path, ",".join(items))
            elif delete_at(obj, path):
                removed.append(path)
    else:
        value = _now() if action.value == NOW else action.value
        if current != value and not (action.value == NOW and current is not None):
            write(path, value)


def apply_suspend(
    definition: Definition,
    obj: dict[str, Any],
    original: Mapping[str, Any],
    suspend: bool,
    *,
    write: Write,
    warnings: list[str],
    existing: bool = False,
) -> list[tuple[str, ...]]:
    """Apply the definition's suspend (or resume) steps to ``obj``; the removed fields are returned.

    Steps with a ``when`` run only when it holds on ``original``. ``write(path, value)`` sets a field.
    ``existing``: the object is already in the cluster (the change goes out as a patch).

    Raises:
        AlterError: the kind cannot be suspended, or no step applies to this object, or (with
            ``existing``) its steps hold only a new object (the definition's ``existingObject``).
    """
    section = definition.suspend
    verb = "suspended" if suspend else "resumed"
    if section is None:
        raise AlterError(
            f"{definition.kind} cannot be {verb}: its operator offers no suspend field "
            f"(definition {definition.name} has no suspend section)"
        )
    actions = [
        action
        for action in (section.suspend_actions if suspend else section.resume_actions)
        if _applies(action, original)
    ]
    if not actions:
        raise AlterError(f"{definition.kind} cannot be {verb}: no step of definition {definition.name} fits it")
    if suspend and existing and section.existing_object:
        raise AlterError(
            f"an existing {definition.kind} cannot be suspended by a patch (its suspend steps hold only a new "
            f"object); {section.existing_object.replace('{name}', str(mapping_at(original, 'metadata').get('name')))}"
        )
    removed: list[tuple[str, ...]] = []
    for action in actions:
        _step(action, obj, write, removed)
    if section.caveat:
        warnings.append(section.caveat)
    if not suspend and labels.KUEUE_QUEUE_NAME in mapping_at(mapping_at(original, "metadata"), "labels"):
        warnings.append(
            f"it carries {labels.KUEUE_QUEUE_NAME}: Kueue decides when it runs (it unsuspends on admission and "
            "suspends on preemption)"
        )
    return removed
