"""``wmap diff`` for people: per workload and component what changes, as ``old -> new``.

A workload line starts with ``~`` (changed), ``+`` (added) or ``-`` (removed), as a plan or a
diff marks them; under it the workload-wide changes, then each component and gang that changes,
then the placement when a cluster was given. Unchanged workloads are counted in the last line,
not listed. The differences are the library's (:mod:`workloadmap.diff`); only the words are here.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..printing.numbers import amount, count, plural
from ..printing.output import tree_lines
from .placements import VERDICT_WORDS
from .workloads import typed_names

if TYPE_CHECKING:  # the diff stage loads with the command
    from workloadmap.diff import Change, DiffReport, GangDiff, PlacementDiff

__all__ = ["render_diff"]

_MARKS = {"Added": "+", "Removed": "-", "Changed": "~", "Unchanged": "="}
_WORDS = {"Added": "added", "Removed": "removed", "Changed": "changed", "Unchanged": "unchanged"}
_NAMES = {
    "totals.pods": "pods",
    "totals.gpus": "GPUs",
    "gpus": "GPUs",
    "gpusPerPod": "GPUs/pod",
    "podsPerReplica": "pods/replica",
    "minPods": "min pods",
    "maxPods": "max pods",
    "minReplicas": "minReplicas",
    "maxReplicas": "maxReplicas",
    "topologyConstraint.requiredLevel": "required level",
    "topologyConstraint.preferredLevel": "preferred level",
    "topologyConstraint.topology": "topology",
    "assignedLevel": "assigned level",
    "requiredLevel": "required level",
}


def _name(field: str) -> str:
    """A changed field as people read it: ``podResources.cpu`` as ``cpu/pod``, ``totals.resources.x`` as ``x``."""
    if field in _NAMES:
        return _NAMES[field]
    head, _, tail = field.partition(".")
    if head == "podResources":
        return f"{tail}/pod"
    if field.startswith("totals.resources."):
        return field.removeprefix("totals.resources.")
    if head == "podSets":
        return f"{tail} pods"
    if head == "topologyAnnotations":
        return tail
    return field


def _value(field: str, value: Any) -> str:
    if value is None:
        return "(none)"
    if field == "verdict":
        return str(VERDICT_WORDS.get(value, value))
    resource = field.rpartition(".")[2]
    if isinstance(value, Fraction) and (field.startswith("podResources.") or field.startswith("totals.resources.")):
        return amount(resource, value)
    if isinstance(value, (Fraction, int)) and not isinstance(value, bool):
        return count(value)
    if isinstance(value, list):
        return ",".join(str(item) for item in value) or "(none)"
    return str(value)


def _change(change: Change) -> str:
    return f"{_name(change.field)} {_value(change.field, change.old)} -> {_value(change.field, change.new)}"


def _changes(changes: Sequence[Change]) -> str:
    return ", ".join(_change(change) for change in changes)


def _held(changes: Sequence[Change], added: bool) -> str:
    """What an added (or removed) thing holds: ``3 pods, 12 GPUs``."""
    values = {_name(change.field): change.new if added else change.old for change in changes}
    parts = []
    for name, value in values.items():
        if name in ("pods", "GPUs"):
            parts.append(plural(value, "GPU" if name == "GPUs" else "pod"))
        elif name == "minMember":
            parts.append(f"minMember {value}")
    return ", ".join(parts)


def _what_changed(status: str, changes: Sequence[Change]) -> str:
    """``added (3 pods, 12 GPUs)``, ``removed (...)``, or the changes."""
    if status in ("Added", "Removed"):
        return f"{_WORDS[status]} ({_held(changes, status == 'Added')})"
    return _changes(changes)


def _gang_label(gang: GangDiff) -> str:
    what = "SubGroup" if gang.sub_group else "PodGroup"
    return f"{_MARKS[gang.status.value]} {what} {gang.name}: {_what_changed(gang.status.value, gang.changes)}"


def _verdict(value: Any) -> str:
    return "(none)" if value is None else VERDICT_WORDS[value.value]


def _placement_gang(gang: GangDiff) -> str:
    """A gang whose placement changes: its verdict (or level) old -> new, then why it does not fit now."""
    what = "SubGroup" if gang.sub_group else "PodGroup"
    verdict = next((change for change in gang.changes if change.field == "verdict"), None)
    shown = [
        change
        for change in gang.changes
        if change.field != "reason" and not (change.field == "assignedLevel" and verdict and verdict.new != "Fits")
    ]
    text = f"{_MARKS[gang.status.value]} {what} {gang.name}: {_changes(shown)}"
    reason = next((change.new for change in gang.changes if change.field == "reason"), None)
    return text + (f": {reason}" if reason else "")


def _placement_lines(placement: PlacementDiff, changed: bool) -> list[Any]:
    """The placement's line: the verdict old -> new, or as it is; under a changed workload, each gang that moves."""
    head = f"placement on {placement.cluster} ({placement.policy}): "
    if placement.old_verdict is None or placement.new_verdict is None:
        return [(head + _verdict(placement.new_verdict or placement.old_verdict), [])]
    if placement.verdict_changed:
        head += f"{_verdict(placement.old_verdict)} -> {_verdict(placement.new_verdict)}"
    else:
        head += f"{_verdict(placement.new_verdict)}, unchanged"
    gangs: list[Any] = [(_placement_gang(gang), []) for gang in placement.gangs] if changed else []
    return [(head, gangs)]


def render_diff(report: DiffReport) -> str:
    """The differences of every workload that changed, then how many were added, removed, changed, unchanged.

    A gang that no longer fits says why, in the placement's words.
    """
    shown = [item for item in report.workloads if item.status.value != "Unchanged"]
    names = typed_names([item.workload for item in shown])
    lines: list[str] = []
    for item, name in zip(shown, names, strict=True):
        status = item.status.value
        where = f" ({item.workload.namespace})" if item.workload.namespace else ""
        head = f"{_MARKS[status]} {name}{where}: {_WORDS[status]}"
        if status in ("Added", "Removed"):
            head += f" ({_held(item.changes, status == 'Added')})"
        lines.append(head)
        nodes: list[Any] = []
        if status == "Changed" and item.changes:
            nodes.append((_changes(item.changes), []))
        if status == "Changed":
            for component in item.components:
                text = _what_changed(component.status.value, component.changes)
                nodes.append((f"{_MARKS[component.status.value]} component {component.path}: {text}", []))
            nodes.extend((_gang_label(gang), []) for gang in item.gangs)
        if item.placement is not None:
            nodes.extend(_placement_lines(item.placement, status == "Changed"))
        lines.extend(tree_lines(nodes, lambda node: node[0], lambda node: node[1]))
    counts = report.counts()
    summary = ", ".join(f"{counts[status]} {_WORDS[status.value]}" for status in counts)
    lines.append(f"{plural(len(report.workloads), 'workload')}: {summary}")
    return "\n".join(lines) + "\n"
