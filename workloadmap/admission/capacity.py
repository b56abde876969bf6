"""How many more copies of a workload fit now: per domain of its gangs' level, in all, and by quota.

Copies are placed one after another with wmap's placement (:func:`~workloadmap.placement.place_together`,
the scheduler's own rule, each gang whole with its topology requirement), until one does not
fit: that count is how many the scheduler would take if they were submitted now. The exact
packing decides each copy; when a copy's fit is unknown within the search budget the count
stops there and is marked a lower bound (unknown is never a fit), as it is when the count
reaches the limit. Per domain, the same count on that domain's nodes alone: the fragmentation a
count of free GPUs hides. With queues, copies are admitted one after another as
:func:`~.admit.admit` (or :func:`~.kai.admit_kai`) decides until one is not admitted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..placement import Verdict, component_paths, place, place_together
from ..topology import Cluster
from ..tree import WorkloadTree
from .admit import admit
from .dump import QueueState
from .kai import admit_kai
from .report import AdmissionVerdict, CapacityReport, DomainCapacity, WorkloadAdmission, WorkloadKey
from .tas import TasPlacer
from .workloads import submissions

__all__ = ["capacity", "copy_bound", "kueue_quota", "kai_quota"]

DEFAULT_LIMIT = 1000
"""Most copies counted (per domain and in all) unless the caller says otherwise."""


def copy_bound(tree: WorkloadTree, cluster: Cluster) -> int | None:
    """An upper bound on the copies: the free amount of each requested resource over one copy's need.

    None when a copy requests nothing the nodes count (then only the limit stops the count).
    """
    need: dict[str, Fraction] = {}
    for component in component_paths(tree).values():
        if component.has_pod_template:
            for name, amount in component.pod_resources.items():
                if amount > 0:
                    need[name] = need.get(name, Fraction(0)) + Fraction(amount) * component.pods
            need["pods"] = need.get("pods", Fraction(0)) + component.pods
    free: dict[str, Fraction] = {}
    for node in cluster.nodes:
        if node.usable:
            for name, amount in node.free().items():
                free[name] = free.get(name, Fraction(0)) + amount
    bounds = [int(free.get(name, 0) // amount) for name, amount in need.items() if amount > 0 and name in free]
    missing = [name for name, amount in need.items() if amount > 0 and name not in free and name != "pods"]
    if missing:
        return 0
    return min(bounds) if bounds else None


def _count(tree: WorkloadTree, cluster: Cluster, limit: int, policy: str) -> tuple[int, bool]:
    """Copies placed in turn until one does not fit: (count, whether it is a lower bound)."""
    bound = copy_bound(tree, cluster)
    attempts = limit if bound is None else min(limit, bound + 1)
    if attempts <= 0:
        return 0, False
    joint = place_together([tree] * attempts, cluster, policy=policy)
    for index, report in enumerate(joint.reports):
        if report.verdict is Verdict.UNKNOWN:
            return index, True
        if not report.fits:
            return index, False
    return attempts, attempts >= limit


def _level(tree: WorkloadTree, cluster: Cluster, policy: str) -> str | None:
    """The widest level a gang of the workload requires."""
    report = place(tree, cluster, policy=policy)
    required = [group.required_level for group in report.pod_groups if group.required_level in cluster.levels]
    return min(required, key=cluster.levels.index) if required else None


def _domains(cluster: Cluster, level: str) -> dict[str, Cluster]:
    depth = cluster.levels.index(level)
    keys = cluster.levels[: depth + 1]
    grouped: dict[str, list[Any]] = {}
    for node in cluster.nodes:
        if all(key in node.labels for key in keys):
            grouped.setdefault("/".join(node.labels[key] for key in keys), []).append(node)
    return {
        name: replace(cluster, name=f"{cluster.name} {name}", nodes=nodes) for name, nodes in sorted(grouped.items())
    }


def capacity(
    tree: WorkloadTree,
    cluster: Cluster,
    *,
    policy: str = "kueue",
    limit: int = DEFAULT_LIMIT,
    quota: Callable[[int], list[WorkloadAdmission]] | None = None,
) -> CapacityReport:
    """How many more copies of ``tree`` fit on ``cluster`` now (its nodes' ``used`` already counts the running pods).

    Args:
        tree: the workload.
        cluster: the nodes; never modified.
        policy: whose placement rule: ``kueue`` or ``kai``.
        limit: the most copies counted.
        quota: given ``n``, the verdicts of ``n`` copies admitted one after another by the queues
            (see :func:`~.admit.admit`); None without queues.
    """
    level = _level(tree, cluster, policy)
    copies, lower = _count(tree, cluster, limit, policy)
    report = CapacityReport(
        workload=WorkloadKey(tree.workload.kind, tree.workload.namespace or "default", tree.workload.name),
        topology=cluster.name, policy=policy, level=level, copies=copies, lower_bound=lower, limit=limit,
    )  # fmt: skip
    if level is not None:
        for name, part in _domains(cluster, level).items():
            count, bound = _count(tree, part, limit, policy)
            report.domains.append(DomainCapacity(name, count, bound))
        if sum(domain.copies for domain in report.domains) != copies:
            report.notes.append(
                "the copies counted domain by domain differ from those placed on the whole cluster: a copy of several "
                "gangs may span domains, and the scheduler's own order of domains may leave room unused"
            )
    if quota is not None:
        _quota(report, quota, limit)
    return report


def _quota(report: CapacityReport, quota: Callable[[int], list[WorkloadAdmission]], limit: int) -> None:
    attempts = min(limit, report.copies + 1)
    count = 0
    for item in quota(attempts):
        if item.verdict is not AdmissionVerdict.ADMITTED:
            report.quota_lower_bound = item.verdict is AdmissionVerdict.UNKNOWN
            report.quota_reason = "; ".join(item.reasons) or item.verdict.value
            break
        count += 1
    else:
        report.quota_lower_bound = True
        report.quota_reason = f"all {count} copies counted are admitted: the quota allows at least this many"
    report.quota_copies = count
    report.admitted = min(count, report.copies)


def _copies(tree: WorkloadTree, count: int) -> list[WorkloadTree]:
    return [
        replace(tree, workload=replace(tree.workload, name=f"{tree.workload.name}-{index + 1}"))
        for index in range(count)
    ]


def _per_copy(items: list[WorkloadAdmission], trees: list[WorkloadTree]) -> list[WorkloadAdmission]:
    """One item per copy, in order: its first item not admitted, else its first item."""
    by_name: dict[str, list[WorkloadAdmission]] = {}
    for item in items:
        by_name.setdefault(item.workload.name, []).append(item)
    found = []
    for tree in trees:
        mine = by_name.get(tree.workload.name, [])
        worst = next(
            (item for item in mine if item.verdict is not AdmissionVerdict.ADMITTED), mine[0] if mine else None
        )
        if worst is not None:
            found.append(worst)
    return found


def kueue_quota(tree: WorkloadTree, body: Any, state: QueueState) -> Callable[[int], list[WorkloadAdmission]]:
    """Copies admitted one after another by Kueue's quota (TAS placement left to the node count)."""
    levels = [level for topology in state.topologies.values() for level in topology.levels]

    def run(count: int) -> list[WorkloadAdmission]:
        trees = _copies(tree, count)
        submitted = [sub for index, copy in enumerate(trees) for sub in submissions(copy, body, levels, index)]
        return _per_copy(admit(submitted, state, placer=_NodesCounted()).items, trees)

    return run


def kai_quota(tree: WorkloadTree, state: QueueState, pods: Any = ()) -> Callable[[int], list[WorkloadAdmission]]:
    """Copies admitted one after another by KAI's queue quota."""

    def run(count: int) -> list[WorkloadAdmission]:
        trees = _copies(tree, count)
        return _per_copy(admit_kai(trees, state, pods=pods).items, trees)

    return run


class _NodesCounted(TasPlacer):
    """A placer that leaves topology to the node count: the quota alone decides."""

    def __init__(self) -> None:  # no cluster: nothing is placed
        self.placed = {}

    def check(self, *args: Any, **kwargs: Any) -> None:
        return None

    def take(self, *args: Any, **kwargs: Any) -> None:
        return None
