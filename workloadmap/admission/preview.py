"""One call for a set of workloads: Kueue's verdict for those Kueue takes, KAI's for the others.

:func:`preview` is what ``wmap admit`` runs: each workload goes to KAI when asked, or, with
``scheduler="auto"``, when its pods name ``kai-scheduler``; the rest become Kueue Workloads
(:func:`~.workloads.submissions`) and are admitted together in Kueue's order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import DeadlineError, WorkloadMapError, internal_error
from ..topology import Cluster
from ..tree import WorkloadTree
from .admit import admit
from .dump import QueueState
from .kai import admit_kai
from .report import AdmissionReport
from .tas import TasPlacer
from .workloads import Submission, submissions, uses_kai

__all__ = ["preview", "SCHEDULERS"]

SCHEDULERS = ("auto", "kueue", "kai")
"""Whose admission :func:`preview` applies: ``auto`` picks KAI for pods that name ``kai-scheduler``."""


def preview(
    workloads: Sequence[tuple[WorkloadTree, Any]],
    state: QueueState,
    *,
    cluster: Cluster | None = None,
    pods: Sequence[Mapping[str, Any]] = (),
    scheduler: str = "auto",
    on_error: Callable[[WorkloadTree, WorkloadMapError], None] | None = None,
) -> AdmissionReport:
    """The admission verdict of every workload, as its scheduler would decide it now.

    Args:
        workloads: ``(tree, object)`` pairs: the inspected workload and the object it was read from
            (its labels, creation time and pod templates), in the order given.
        state: the queue objects (:func:`~.load.load_queues`, :func:`~.live.read_live_queues`).
        cluster: the nodes, for topology-aware flavors and KAI's node fit; None without them.
        pods: running pods bound to the nodes (KAI's allocation when the Queues carry no status).
        scheduler: ``auto``, ``kueue`` or ``kai``.
        on_error: called with a workload and its error (a podset annotation Kueue would reject)
            instead of raising; that workload is then left out.

    Raises:
        ValueError: an unknown ``scheduler``.
        PlacementError: a workload's request Kueue would reject, when ``on_error`` is not given.
    """
    if scheduler not in SCHEDULERS:
        raise ValueError(f"scheduler must be one of {', '.join(SCHEDULERS)}, got {scheduler!r}")
    levels = [level for topology in state.topologies.values() for level in topology.levels]
    kueue: list[Submission] = []
    kai: list[WorkloadTree] = []
    for position, (tree, body) in enumerate(workloads):
        if scheduler == "kai" or (scheduler == "auto" and uses_kai(tree, body)):
            kai.append(tree)
            continue
        try:
            kueue.extend(submissions(tree, body, levels, position))
        except DeadlineError:
            raise
        except Exception as error:  # one workload's failure must not hide the others'
            if on_error is None:
                raise
            on_error(tree, error if isinstance(error, WorkloadMapError) else internal_error(error))
    report = AdmissionReport()
    if kueue:
        if not state.has_kueue:
            report.notes.append("the queue objects hold no ClusterQueue or LocalQueue")
        found = admit(kueue, state, placer=TasPlacer(cluster) if cluster is not None else None)
        report.items += found.items
        report.notes += found.notes
    if kai:
        if not state.kai_queues:
            report.notes.append("the queue objects hold no KAI Queue")
        found = admit_kai(kai, state, cluster=cluster, pods=pods)
        report.items += found.items
        report.notes += found.notes
    return report
