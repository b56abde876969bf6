"""The Workloads waiting for admission, and the checks Kueue makes before it looks at quota.

An :class:`Entry` is a Workload to admit: one of the workloads given (a
:class:`~.workloads.Submission`) or a pending Workload of the dump, which queues too. Entries are
taken by priority, then queue-order time (``metadata.creationTimestamp``), as Kueue's queues
order them (``pkg/cache/queue/cluster_queue.go`` ``baseCompareFunc``); a workload not yet
created queues after every existing one, in the order given.

:func:`precheck` is what stops a Workload before the flavor assigner: its LocalQueue missing or
stopped, its ClusterQueue missing, stopped or inactive, its namespace not selected (the
workload controller's ``getQueueBlocker`` and the scheduler's ``nominate``, in their words).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime

from .. import labels
from .dump import QueueState
from .objects import ClusterQueue, QueuedPodSet, QueuedWorkload
from .quota import QuotaTree
from .report import AdmissionVerdict
from .workloads import Submission

__all__ = ["Entry", "Blocker", "entries", "precheck", "timestamp"]

MISCONFIGURED, SUSPENDED = "Misconfigured", "Suspended"


def timestamp(text: str | None) -> float:
    """An RFC 3339 time as seconds since the epoch; ``inf`` (later than everything) when absent or unreadable."""
    if not text:
        return math.inf
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return math.inf


@dataclass
class Entry:
    """A Workload to admit.

    Attributes:
        priority: None when it cannot be known (``priority_problem`` says why).
        submission: the given workload it stands for; None for a pending Workload of the dump.
    """

    key: str
    name: str
    namespace: str
    queue_name: str | None
    priority: int | None
    queued_at: float
    position: int
    pod_sets: tuple[QueuedPodSet, ...]
    uid: str = ""
    submission: Submission | None = None
    priority_problem: str | None = None
    queue_problem: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def order(self) -> tuple[float, float, int]:
        """Higher priority first, then earlier queue-order time, then the order given."""
        return (-(self.priority if self.priority is not None else 0), self.queued_at, self.position)


def _priority(submission: Submission, state: QueueState) -> tuple[int | None, str | None]:
    """``jobframework.ExtractPriority``: WorkloadPriorityClass label, default class, pod PriorityClass, 0."""
    named = submission.labels.get(labels.KUEUE_PRIORITY_CLASS)
    if not named and labels.KUEUE_DEFAULT_PRIORITY_CLASS in state.workload_priority_classes:
        named = labels.KUEUE_DEFAULT_PRIORITY_CLASS  # WorkloadPriorityClassDefaulting
    if named:
        found = state.workload_priority_classes.get(named)
        if found is None:
            return None, f'WorkloadPriorityClass "{named}" is not among the queue objects: its priority is unknown'
        return found.value, None
    if submission.priority_class_name:
        found = state.priority_classes.get(submission.priority_class_name)
        if found is None:
            return None, (
                f'PriorityClass "{submission.priority_class_name}" is not among the queue objects (add priorityclasses '
                "to the dump): its priority is unknown"
            )
        return found.value, None
    defaults = [value for value in state.priority_classes.values() if value.global_default]
    return (min(value.value for value in defaults), None) if defaults else (0, None)


def _queue_name(submission: Submission, state: QueueState) -> tuple[str | None, str | None]:
    """The label, else the namespace's ``default`` LocalQueue (``ApplyDefaultLocalQueue``)."""
    named = submission.labels.get(labels.KUEUE_QUEUE_NAME)
    if named:
        return named, None
    if f"{submission.namespace}/{labels.KUEUE_DEFAULT_LOCAL_QUEUE}" in state.local_queues:
        return labels.KUEUE_DEFAULT_LOCAL_QUEUE, None
    return None, (
        f"no {labels.KUEUE_QUEUE_NAME} label and no LocalQueue {labels.KUEUE_DEFAULT_LOCAL_QUEUE} in namespace "
        f"{submission.namespace}: Kueue leaves the workload alone unless its manageJobsWithoutQueueName is set"
    )


def entries(submitted: list[Submission], pending: list[QueuedWorkload], state: QueueState) -> list[Entry]:
    """Every Workload to admit, in the order Kueue takes them."""
    found = []
    for workload in pending:
        found.append(
            Entry(
                key=workload.key,
                name=workload.name,
                namespace=workload.namespace,
                queue_name=workload.queue_name,
                priority=workload.priority,
                queued_at=timestamp(workload.created),
                position=-1,
                pod_sets=workload.pod_sets,
                uid=workload.uid,
            )  # fmt: skip
        )
    for submission in submitted:
        priority, problem = _priority(submission, state)
        queue, queue_problem = _queue_name(submission, state)
        found.append(
            Entry(
                key=submission.key,
                name=submission.group or submission.tree.workload.name,
                namespace=submission.namespace,
                queue_name=queue,
                priority=priority,
                queued_at=timestamp(submission.created),
                position=submission.position,
                pod_sets=submission.pod_sets,
                submission=submission,
                priority_problem=problem,
                queue_problem=queue_problem,
            )  # fmt: skip
        )
    return sorted(found, key=lambda entry: entry.order)


@dataclass(frozen=True)
class Blocker:
    """Why a Workload does not reach the flavor assigner: its verdict, Kueue's reason and message."""

    verdict: AdmissionVerdict
    reason: str
    messages: tuple[str, ...]


def _inactive(cq: ClusterQueue, state: QueueState, tree: QuotaTree) -> list[str]:
    """What makes a ClusterQueue inactive, as its Active condition says (``inactiveReason``)."""
    messages = []
    if cq.stop_policy != "None":
        messages.append("is stopped")
    missing = [name for name in dict.fromkeys(cq.flavor_names()) if name not in state.flavors]
    if missing:
        messages.append(f"references missing ResourceFlavor(s): {','.join(missing)}")
    for name in dict.fromkeys(cq.flavor_names()):
        flavor = state.flavors.get(name)
        if flavor is not None and flavor.topology_name and flavor.topology_name not in state.topologies:
            messages.append(f'there is no Topology "{flavor.topology_name}" for TAS flavor "{name}"')
    if cq.name in tree.cyclic:
        messages.append("its cohort tree has a cycle")
    return messages


def precheck(
    entry: Entry, state: QueueState, tree: QuotaTree
) -> tuple[str | None, ClusterQueue | None, Blocker | None]:
    """The entry's ClusterQueue, or what stops it first: ``(cluster queue name, queue, blocker)``."""
    if entry.queue_name is None:
        return None, None, Blocker(AdmissionVerdict.UNKNOWN, "", (entry.queue_problem or "no LocalQueue",))
    local = state.local_queues.get(f"{entry.namespace}/{entry.queue_name}")
    if local is None:
        message = f"LocalQueue {entry.queue_name} doesn't exist"
        return None, None, Blocker(AdmissionVerdict.INADMISSIBLE, MISCONFIGURED, (message,))
    if local.stop_policy != "None":
        return (
            None,
            None,
            Blocker(AdmissionVerdict.INADMISSIBLE, SUSPENDED, (f"LocalQueue {entry.queue_name} is stopped",)),
        )
    cq = state.cluster_queues.get(local.cluster_queue)
    if cq is None:
        message = f"ClusterQueue {local.cluster_queue} doesn't exist"
        return local.cluster_queue, None, Blocker(AdmissionVerdict.INADMISSIBLE, MISCONFIGURED, (message,))
    if cq.stop_policy != "None":
        message = f"ClusterQueue {cq.name} is stopped"
        return cq.name, cq, Blocker(AdmissionVerdict.INADMISSIBLE, SUSPENDED, (message,))
    inactive = _inactive(cq, state, tree)
    if inactive:
        detail = f"Can't admit new workloads: {', '.join(inactive)}."
        blocker = Blocker(AdmissionVerdict.INADMISSIBLE, SUSPENDED, (f"ClusterQueue {cq.name} is inactive", detail))
        return cq.name, cq, blocker
    selector = cq.namespace_selector
    if selector is None or selector.match_labels or selector.expressions:
        namespace = state.namespaces.get(entry.namespace)
        if selector is not None and namespace is None:
            message = (
                f"namespace {entry.namespace} is not among the queue objects (add namespaces to the dump): whether "
                f"ClusterQueue {cq.name}'s namespaceSelector selects it is unknown"
            )
            return cq.name, cq, Blocker(AdmissionVerdict.UNKNOWN, "", (message,))
        if selector is None or namespace is None or not selector.matches(namespace.labels):
            message = "workload namespace doesn't match ClusterQueue selector"
            return cq.name, cq, Blocker(AdmissionVerdict.INADMISSIBLE, MISCONFIGURED, (message,))
    if entry.priority is None:
        return cq.name, cq, Blocker(AdmissionVerdict.UNKNOWN, "", (entry.priority_problem or "priority unknown",))
    return cq.name, cq, None
