"""Topology-aware flavors: the PodSets placed on the flavor's nodes by wmap's Kueue placement.

Kueue places a Workload assigned a TAS flavor on the nodes of that flavor (its ``nodeLabels``),
grouped by the levels of its Topology (``FindTopologyAssignmentsForWorkload``). A
:class:`TasPlacer` does it with :func:`~workloadmap.placement.place` (``policy="kueue"``) on
that part of the cluster, after the workloads already admitted on the flavor, with the running
pods given. The flavor assigner's rule on the outcome (``flavorassigner.go:864-903``): a Fit
that does not place becomes Preempt, and one that does not place even on the empty flavor is
NoFit (``TopologyPlacementFailed``); an unknown placement (the exact search ran out of budget)
is an unknown verdict, never a fit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..placement import PlacementReport, Verdict, place
from ..topology import Cluster
from .report import AdmissionVerdict

if TYPE_CHECKING:
    from .assigner import Assignment
    from .dump import QueueState
    from .workloads import Submission

__all__ = ["TasPlacer"]

_FAILED = "TopologyPlacementFailed"


def _group_verdict(report: PlacementReport, group: str | None) -> tuple[Verdict, str | None]:
    if group is not None:
        for placed in report.pod_groups:
            if placed.name == group:
                return placed.verdict, placed.reason
    return report.verdict, report.reason


class TasPlacer:
    """Places the given workloads on the nodes of their TAS flavor, each after those admitted before it.

    Args:
        cluster: the cluster's nodes (and labels) as ``-t`` reads them.
        pods: running pods bound to those nodes (they use capacity).
    """

    def __init__(self, cluster: Cluster, pods: Sequence[Mapping[str, Any]] | None = None) -> None:
        self.cluster = cluster
        self.pods = pods
        self.placed: dict[str, list[Any]] = {}
        self._clusters: dict[str, Cluster] = {}
        self._reports: dict[tuple[int, str, bool], PlacementReport] = {}

    def _flavor_cluster(self, flavor: str, state: QueueState) -> Cluster:
        found = self._clusters.get(flavor)
        if found is None:
            spec = state.flavors[flavor]
            topology = state.topologies[spec.topology_name or ""]
            nodes = [
                node for node in self.cluster.nodes if all(node.labels.get(k) == v for k, v in spec.node_labels.items())
            ]
            found = replace(self.cluster, name=f"{self.cluster.name} (flavor {flavor})", nodes=nodes,
                            levels=list(topology.levels))  # fmt: skip
            self._clusters[flavor] = found
        return found

    def _place(self, submission: Submission, flavor: str, state: QueueState, empty: bool) -> PlacementReport:
        key = (id(submission.tree), flavor, empty)
        report = self._reports.get(key)
        if report is None:
            cluster = self._flavor_cluster(flavor, state)
            before = [] if empty else list(self.placed.get(flavor, []))
            report = place(submission.tree, cluster, policy="kueue", pods=None if empty else self.pods, before=before)
            self._reports[key] = report
        return report

    def check(
        self, submission: Submission, used: set[str], assignment: Assignment, state: QueueState
    ) -> tuple[AdmissionVerdict, str, str] | None:
        """The verdict topology placement gives, or None when it leaves the quota's verdict as it is."""
        non_tas = {
            choice.flavor
            for pod_set in assignment.pod_sets
            for choice in pod_set.flavors.values()
            if not state.flavors[choice.flavor].topology_name
        }
        if len(used) > 1 or non_tas:
            flavors = ", ".join(sorted(used | non_tas))
            message = f"PodSets on several flavors ({flavors}), some topology-aware: their placement is not modelled"
            return AdmissionVerdict.UNKNOWN, "", message
        (flavor,) = used
        if assignment.mode == "Fit":
            verdict, reason = _group_verdict(self._place(submission, flavor, state, False), submission.group)
            if verdict is Verdict.FITS:
                return None
            if verdict is Verdict.UNKNOWN:
                return AdmissionVerdict.UNKNOWN, "", f"topology placement on flavor {flavor}: {reason}"
            now = reason
        else:
            now = None
        verdict, reason = _group_verdict(self._place(submission, flavor, state, True), submission.group)
        if verdict is Verdict.UNKNOWN:
            return AdmissionVerdict.UNKNOWN, "", f"topology placement on flavor {flavor}: {reason}"
        if verdict is not Verdict.FITS:
            return (
                AdmissionVerdict.PENDING,
                _FAILED,
                f"topology placement on flavor {flavor} fails even on its empty nodes: {reason}",
            )
        if now is None:
            return None  # quota preemption decides; the flavor's nodes can hold the workload once it has room
        message = (
            f"quota fits but the free nodes of flavor {flavor} do not hold the workload now: {now}; Kueue would look "
            "for lower-priority Workloads to preempt on them (not modelled)"
        )
        return AdmissionVerdict.PENDING, "WaitingForQuota", message

    def take(self, submission: Submission, assignment: Assignment, state: QueueState) -> None:
        """An admitted workload's pods take the nodes of its TAS flavor (once per workload)."""
        for pod_set in assignment.pod_sets:
            for choice in pod_set.flavors.values():
                if state.flavors[choice.flavor].topology_name:
                    trees = self.placed.setdefault(choice.flavor, [])
                    if all(tree is not submission.tree for tree in trees):
                        trees.append(submission.tree)
                    return
