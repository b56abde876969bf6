"""What changes between two versions of workloads: pods, GPUs, resources, gangs, phase, topology, placement.

:func:`diff_workloads` pairs the workload trees of an old and a new version (by kind, group,
namespace and name, as ``kubectl diff`` pairs objects) and returns, per workload, typed
differences: the definition and phase, the totals (pods, GPUs, every resource), each component
(replicas and their bounds, pods, GPUs and every resource per pod, QoS, topology annotations),
each gang (minMember, pods, PodSets, topology constraint, queue, priority, preemptibility) and,
given a cluster, whether the placement verdict changes (each version placed alone on the cluster
as given, gang by gang). It is the review of a Helm bump: which workloads and components change,
and what that does to their gangs and to where they fit.

Differences are values, never text: the command line words them (``wmap diff``), ``to_dict()``
gives the JSON form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import Any

from .placement import GroupPlacement, PlacementReport, Verdict, component_paths, place
from .topology import Cluster
from .tree import Component, PodGroup, SubGroup, TopologyConstraint, WorkloadRef, WorkloadTree
from .values import OMIT, JsonForm

__all__ = [
    "Status",
    "Change",
    "ComponentDiff",
    "GangDiff",
    "PlacementDiff",
    "WorkloadDiff",
    "DiffReport",
    "diff_workloads",
    "diff_trees",
    "workload_key",
]


class Status(str, Enum):
    """How a workload, component or gang differs between the two versions."""

    ADDED = "Added"
    REMOVED = "Removed"
    CHANGED = "Changed"
    UNCHANGED = "Unchanged"


@dataclass(kw_only=True)
class Change(JsonForm):
    """One field that differs: its name as the JSON form of the tree writes it, the old and the new value.

    Attributes:
        field: ``pods``, ``gpus``, ``resources.cpu``, ``replicas``, ``minMember``,
            ``topology.requiredLevel``, ``phase`` ... (None for a value that is absent).
        old: the value in the old version (None: absent).
        new: the value in the new version (None: absent).
    """

    field: str
    old: Any = None
    new: Any = None


@dataclass(kw_only=True)
class ComponentDiff(JsonForm):
    """A component (by its path, ``group/worker``) that was added, removed or changed."""

    path: str
    status: Status
    changes: list[Change] = field(default_factory=list)


@dataclass(kw_only=True)
class GangDiff(JsonForm):
    """A PodGroup or SubGroup (``group/sub``) that was added, removed or changed.

    Attributes:
        sub_group: whether it is a SubGroup.
    """

    name: str
    status: Status
    sub_group: bool = False
    changes: list[Change] = field(default_factory=list)


@dataclass(kw_only=True)
class PlacementDiff(JsonForm):
    """Each version placed alone on one cluster: the verdicts, and the gangs whose verdict or level changes.

    Attributes:
        old_verdict, new_verdict: the workload's verdicts (None: the version has no such workload).
        old_reason, new_reason: the reports' reasons.
        gangs: per PodGroup and SubGroup whose verdict, assigned domain level or required level
            changes (with its reason, when that changes too).
        old_report, new_report: the two placements (not part of the JSON form: ``wmap place -o json`` prints them).
    """

    cluster: str
    policy: str
    old_verdict: Verdict | None = None
    new_verdict: Verdict | None = None
    old_reason: str | None = None
    new_reason: str | None = None
    gangs: list[GangDiff] = field(default_factory=list)
    old_report: PlacementReport | None = field(default=None, metadata=OMIT, repr=False)
    new_report: PlacementReport | None = field(default=None, metadata=OMIT, repr=False)

    @property
    def verdict_changed(self) -> bool:
        """Whether the workload's verdict changes."""
        return self.old_verdict is not self.new_verdict


@dataclass(kw_only=True)
class WorkloadDiff(JsonForm):
    """One workload of either version and how it differs.

    Attributes:
        workload: the new version's reference (the old one's when it was removed).
        changes: workload-wide: definition, phase and phases matched, totals, gang policy, grouping.
        placement: with a cluster, the two placements compared.
    """

    workload: WorkloadRef
    status: Status
    changes: list[Change] = field(default_factory=list)
    components: list[ComponentDiff] = field(default_factory=list)
    gangs: list[GangDiff] = field(default_factory=list)
    placement: PlacementDiff | None = None


@dataclass(kw_only=True)
class DiffReport(JsonForm):
    """Every workload of both versions, in the new version's order (removed ones after)."""

    workloads: list[WorkloadDiff] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Whether anything differs (what ``wmap diff --exit-code`` exits 1 on)."""
        return any(item.status is not Status.UNCHANGED for item in self.workloads)

    def counts(self) -> dict[Status, int]:
        """How many workloads are added, removed, changed and unchanged."""
        found = dict.fromkeys(Status, 0)
        for item in self.workloads:
            found[item.status] += 1
        return found


def workload_key(workload: WorkloadRef) -> tuple[str, str, str | None, str]:
    """What pairs two versions of a workload: API group, kind, namespace and name (``kubectl diff``'s identity)."""
    return (workload.api_version.rpartition("/")[0], workload.kind, workload.namespace, workload.display_name)


# -- comparing values -------------------------------------------------------------------------------


def _compare(changes: list[Change], name: str, old: Any, new: Any) -> None:
    if old != new:
        changes.append(Change(field=name, old=old, new=new))


def _compare_resources(
    changes: list[Change], prefix: str, old: Mapping[str, Any], new: Mapping[str, Any], gpus: Sequence[str]
) -> None:
    for name in sorted(set(old) | set(new)):
        if name == "pods" or name in gpus:
            continue  # the pod slot of a request (the pod counts say it), and GPUs (compared as gpus)
        before, after = old.get(name), new.get(name)
        _compare(changes, f"{prefix}.{name}", Fraction(before) if before is not None else None,
                 Fraction(after) if after is not None else None)  # fmt: skip


def _compare_topology(changes: list[Change], prefix: str, old: TopologyConstraint, new: TopologyConstraint) -> None:
    for name, before, after in (
        ("requiredLevel", old.required_level, new.required_level),
        ("preferredLevel", old.preferred_level, new.preferred_level),
        ("topology", old.topology, new.topology),
    ):
        _compare(changes, f"{prefix}.{name}", before, after)


def _paired(
    old: Iterable[Any], new: Iterable[Any], key: Callable[[Any], Any]
) -> Iterator[tuple[Any, Any | None, Any | None]]:
    """``(key, old item, new item)`` for every key of either, the new order first, then the removed ones."""
    before = {key(item): item for item in old}
    after = {key(item): item for item in new}
    for name, item in after.items():
        yield name, before.get(name), item
    for name, item in before.items():
        if name not in after:
            yield name, item, None


def _presence(values: Mapping[str, Any], added: bool) -> list[Change]:
    """What an added (or removed) workload, component or gang holds, as changes from (or to) nothing."""
    return [
        Change(field=name, old=None if added else value, new=value if added else None) for name, value in values.items()
    ]


def _status(old: Any, new: Any, changes: Sequence[Any]) -> Status:
    if old is None:
        return Status.ADDED
    if new is None:
        return Status.REMOVED
    return Status.CHANGED if changes else Status.UNCHANGED


# -- components -------------------------------------------------------------------------------------


def _component_changes(old: Component | None, new: Component | None, gpus: Sequence[str]) -> list[Change]:
    changes: list[Change] = []
    if old is None or new is None:
        present = new if new is not None else old
        assert present is not None
        return _presence({"pods": present.pods, "gpus": present.gpus}, new is not None)
    for name in ("replicas", "min_replicas", "max_replicas", "pods_per_replica", "pods", "min_pods", "max_pods"):
        _compare(changes, _camel(name), getattr(old, name), getattr(new, name))
    _compare(changes, "gpusPerPod", old.gpus_per_pod, new.gpus_per_pod)
    _compare(changes, "gpus", old.gpus, new.gpus)
    _compare_resources(changes, "podResources", old.pod_resources, new.pod_resources, gpus)
    _compare(changes, "perNode", old.per_node, new.per_node)
    _compare(changes, "qosClass", _value(old.qos_class), _value(new.qos_class))
    claims = (
        "resourceClaims",
        [c.get("name") for c in old.resource_claims],
        [c.get("name") for c in new.resource_claims],
    )
    _compare(changes, *claims)
    for key in sorted(set(old.topology_annotations) | set(new.topology_annotations)):
        before, after = old.topology_annotations.get(key), new.topology_annotations.get(key)
        _compare(changes, f"topologyAnnotations.{key}", before, after)
    return changes


def _gpu_names(old: WorkloadTree | None, new: WorkloadTree | None) -> tuple[str, ...]:
    """The resource names the trees count as GPUs (compared as ``gpus``, not as resources)."""
    return tuple(dict.fromkeys((*(old.gpu_resources if old else ()), *(new.gpu_resources if new else ()))))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _value(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def _components(old: WorkloadTree | None, new: WorkloadTree | None) -> list[ComponentDiff]:
    gpus = _gpu_names(old, new)
    before = component_paths(old) if old is not None else {}
    after = component_paths(new) if new is not None else {}
    found = []
    for path, was, now in _paired(before.items(), after.items(), lambda item: item[0]):
        one, two = (was[1] if was else None), (now[1] if now else None)
        changes = _component_changes(one, two, gpus)
        status = _status(one, two, changes)
        if status is not Status.UNCHANGED:
            found.append(ComponentDiff(path=path, status=status, changes=changes))
    return found


# -- gangs ------------------------------------------------------------------------------------------


def _pod_sets(group: PodGroup | SubGroup) -> dict[str, int]:
    return {pod_set.component: pod_set.count for pod_set in group.pod_sets}


def _gang_changes(old: PodGroup | SubGroup | None, new: PodGroup | SubGroup | None) -> list[Change]:
    if old is None or new is None:
        present = new if new is not None else old
        assert present is not None
        return _presence({"minMember": present.min_member, "pods": present.pods}, new is not None)
    changes: list[Change] = []
    _compare(changes, "minMember", old.min_member, new.min_member)
    _compare(changes, "pods", old.pods, new.pods)
    before, after = _pod_sets(old), _pod_sets(new)
    for component in sorted(set(before) | set(after)):
        _compare(changes, f"podSets.{component}", before.get(component), after.get(component))
    _compare_topology(changes, "topologyConstraint", old.topology_constraint, new.topology_constraint)
    if isinstance(old, PodGroup) and isinstance(new, PodGroup):
        _compare(changes, "queue", old.queue, new.queue)
        _compare(changes, "priorityClass", old.priority_class, new.priority_class)
        _compare(changes, "preemptibility", _value(old.preemptibility), _value(new.preemptibility))
    if isinstance(old, SubGroup) and isinstance(new, SubGroup):
        _compare(changes, "parent", old.parent, new.parent)
    return changes


def _gangs(old: WorkloadTree | None, new: WorkloadTree | None) -> list[GangDiff]:
    found = []
    groups = [(old.pod_groups if old else []), (new.pod_groups if new else [])]
    for name, was, now in _paired(groups[0], groups[1], lambda group: group.name):
        changes = _gang_changes(was, now)
        status = _status(was, now, changes)
        if status is not Status.UNCHANGED:
            found.append(GangDiff(name=name, status=status, changes=changes))
        subs = [(was.sub_groups if was else []), (now.sub_groups if now else [])]
        for sub, sub_was, sub_now in _paired(subs[0], subs[1], lambda group: group.name):
            changes = _gang_changes(sub_was, sub_now)
            status = _status(sub_was, sub_now, changes)
            if status is not Status.UNCHANGED:
                found.append(GangDiff(name=f"{name}/{sub}", status=status, sub_group=True, changes=changes))
    return found


# -- workloads --------------------------------------------------------------------------------------


def _workload_changes(old: WorkloadTree | None, new: WorkloadTree | None) -> list[Change]:
    if old is None or new is None:
        present = new if new is not None else old
        assert present is not None
        return _presence({"totals.pods": present.totals.pods, "totals.gpus": present.totals.gpus}, new is not None)
    changes: list[Change] = []
    _compare(changes, "definition", old.definition, new.definition)
    _compare(changes, "workload.apiVersion", old.workload.api_version, new.workload.api_version)
    _compare(changes, "phase", old.phase.value, new.phase.value)
    _compare(changes, "phases", [phase.value for phase in old.phases], [phase.value for phase in new.phases])
    _compare(changes, "totals.pods", old.totals.pods, new.totals.pods)
    _compare(changes, "totals.gpus", old.totals.gpus, new.totals.gpus)
    _compare_resources(changes, "totals.resources", old.totals.resources, new.totals.resources, _gpu_names(old, new))
    _compare(changes, "gangPolicy", old.gang_policy, new.gang_policy)
    _compare(changes, "grouping", old.grouping.value, new.grouping.value)
    _compare(changes, "podGroupCount", old.pod_group_count, new.pod_group_count)
    for key in sorted(set(old.topology_annotations) | set(new.topology_annotations)):
        before, after = old.topology_annotations.get(key), new.topology_annotations.get(key)
        _compare(changes, f"topologyAnnotations.{key}", before, after)
    return changes


def diff_trees(
    old: WorkloadTree | None, new: WorkloadTree | None, placement: PlacementDiff | None = None
) -> WorkloadDiff:
    """How one workload differs between its two versions (either None: added or removed).

    ``placement``: the two placements compared (:func:`diff_workloads` makes it); a changed
    verdict makes the workload changed.
    """
    present = new if new is not None else old
    if present is None:
        raise ValueError("diff_trees needs at least one of the two versions")
    changes = _workload_changes(old, new)
    components = _components(old, new)
    gangs = _gangs(old, new)
    moved = placement is not None and (placement.verdict_changed or bool(placement.gangs))
    status = _status(old, new, [*changes, *components, *gangs, *([placement] if moved else [])])
    return WorkloadDiff(
        workload=present.workload,
        status=status,
        changes=changes,
        components=components,
        gangs=gangs,
        placement=placement,
    )


# -- placements -------------------------------------------------------------------------------------


def _assigned_level(group: GroupPlacement) -> str | None:
    return group.assignment.level if group.assignment is not None and group.fits else None


def _placement(old: PlacementReport | None, new: PlacementReport | None, cluster: Cluster) -> PlacementDiff:
    present = new if new is not None else old
    gangs = []
    for name, was, now in _paired(_groups(old), _groups(new), lambda item: item[0]):
        one, two = (was[1] if was else None), (now[1] if now else None)
        changes: list[Change] = []
        _compare(changes, "verdict", _value(one.verdict) if one else None, _value(two.verdict) if two else None)
        _compare(changes, "assignedLevel", _assigned_level(one) if one else None, _assigned_level(two) if two else None)
        _compare(changes, "requiredLevel", one.required_level if one else None, two.required_level if two else None)
        if changes:
            _compare(changes, "reason", one.reason if one else None, two.reason if two else None)
            gangs.append(GangDiff(name=name, status=_status(one, two, changes), sub_group="/" in name, changes=changes))
    return PlacementDiff(
        cluster=cluster.name,
        policy=present.policy if present is not None else "kueue",
        old_verdict=old.verdict if old is not None else None,
        new_verdict=new.verdict if new is not None else None,
        old_reason=old.reason if old is not None else None,
        new_reason=new.reason if new is not None else None,
        gangs=gangs,
        old_report=old,
        new_report=new,
    )


def _groups(report: PlacementReport | None) -> list[tuple[str, GroupPlacement]]:
    """Every PodGroup and SubGroup placement of ``report`` by name, SubGroups as ``group/sub``."""
    if report is None:
        return []
    found = []
    for group in report.pod_groups:
        found.append((group.name, group))
        found.extend((f"{group.name}/{sub.name}", sub) for sub in group.sub_groups)
    return found


def diff_workloads(
    old: Sequence[WorkloadTree],
    new: Sequence[WorkloadTree],
    *,
    cluster: Cluster | None = None,
    **place_options: Any,
) -> DiffReport:
    """Every workload of ``old`` and ``new`` paired and compared; with ``cluster``, their placements too.

    Args:
        old: the trees of the old version (files, a directory, the cluster's live objects).
        new: the trees of the new version.
        cluster: place each version of each workload alone on it, as given, and compare the verdicts.
        place_options: passed to :func:`~workloadmap.placement.place` (``policy``, ``required``,
            ``preferred``, ``auto``, ``balanced``, ``pods``).

    Raises:
        PlacementError: a requested level the cluster lacks, or a request the scheduler rejects.
    """
    workloads = []
    for _, was, now in _paired(old, new, lambda tree: workload_key(tree.workload)):
        placement = None
        if cluster is not None:
            before = place(was, cluster, **place_options) if was is not None else None
            after = place(now, cluster, **place_options) if now is not None else None
            placement = _placement(before, after, cluster)
        workloads.append(diff_trees(was, now, placement))
    return DiffReport(workloads=workloads)
