"""Kueue's admission of Workloads in turn: pre-checks, flavors, preemption, quota taken.

:func:`admit` starts from the quota the dump's admitted Workloads hold (``status.admission``,
for those with an active quota reservation: ``HasActiveQuotaReservation``), then takes every
Workload waiting, the given ones and the dump's pending ones, in the order Kueue's queues hold
them, and decides each as one scheduling cycle's ``processEntry`` would on what the earlier
ones left (``pkg/scheduler/scheduler.go``):

* a pre-check failure (:func:`~.entries.precheck`) is final;
* under ``StrictFIFO`` a Workload that cannot be admitted blocks the ones behind it in its
  ClusterQueue (``BestEffortFIFO`` does not);
* NoFit: pending with the assigner's message (inadmissible when no flavor matches at all);
* Preempt: the targets of classical preemption; with targets the Workload's quota is set aside
  and it waits for the preemptions ("Pending the preemption of N workload(s)"); without, it waits
  for quota and, unless ``reclaimWithinCohort: Any``, reserves what it can of its nominal quota
  (``reserveCapacityForUnreclaimablePreempt``);
* Fit: quota reserved (and admitted, or waiting for its admission checks), topology placement
  through wmap's Kueue placement for TAS flavors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .assigner import FIT, NO_FIT, PREEMPT_MODE, TOPOLOGY_PLACEMENT_FAILED, Assignment, Context, assign_flavors
from .dump import QueueState
from .entries import Entry, entries, precheck, timestamp
from .objects import ANY, STRICT_FIFO, ClusterQueue, FlavorResource, QueuedWorkload
from .preemption import Admitted, Preemptee, Preemptor, Target
from .quota import QuotaTree
from .report import AdmissionReport, AdmissionVerdict, Candidate, PodSetAdmission, WorkloadAdmission, WorkloadKey
from .tas import TasPlacer
from .workloads import Submission

__all__ = ["admit", "Decision"]

WAITING_FOR_QUOTA = "WaitingForQuota"
WAITING_FOR_PREEMPTED = "WaitingForPreemptedWorkloads"


@dataclass
class Decision:
    """What the scheduler does with one entry."""

    verdict: AdmissionVerdict
    local_queue: str | None = None
    cluster_queue: str | None = None
    reason: str = ""
    messages: list[str] = field(default_factory=list)
    assignment: Assignment | None = None
    targets: list[Target] = field(default_factory=list)
    blocks: bool = False


class _Admission:
    """One preview: the quota tree with its usage, the admitted Workloads per ClusterQueue."""

    def __init__(self, state: QueueState, placer: TasPlacer | None) -> None:
        self.state = state
        self.tree = QuotaTree(state.cluster_queues, state.cohorts)
        self.admitted = Admitted()
        self.times: dict[str, tuple[float, float]] = {}
        self.blocked: dict[str, str] = {}
        self.placer = placer
        self.notes: list[str] = []
        self.preemptor = Preemptor(self.tree, self.admitted, self.times)

    def hold(self, workload: QueuedWorkload, queued_at: float | None = None) -> None:
        """An admitted Workload: its usage joins its ClusterQueue (one admitted now: reserved at ``inf``, now)."""
        created = timestamp(workload.created) if queued_at is None else queued_at
        self.times[workload.key] = (created, timestamp(workload.reserved_at))
        self.admitted.add(workload, self.times[workload.key][1])
        self.tree.add(workload.cluster_queue or "", workload.usage)
        self.preemptor.changed()

    def status_remainder(self) -> None:
        """Reservations a ClusterQueue's status reports beyond its Workloads in the dump (a partial dump)."""
        for name, cq in self.state.cluster_queues.items():
            if not cq.status_reserved:
                continue
            held: dict[FlavorResource, int] = {}
            for workload in self.admitted.by_queue.get(name, []):
                for fr, value in workload.usage.items():
                    held[fr] = held.get(fr, 0) + value
            extra = {fr: value - held.get(fr, 0) for fr, value in cq.status_reserved.items() if value > held.get(fr, 0)}
            if extra:
                self.tree.add(name, extra)
                self.preemptor.changed()
                self.notes.append(
                    f"ClusterQueue {name}: its status reserves more than its Workloads in the dump hold; the rest is "
                    "counted as used (and cannot be preempted)"
                )

    # -- one entry ------------------------------------------------------------------------------

    def decide(self, entry: Entry) -> Decision:
        cq_name, cq, blocker = precheck(entry, self.state, self.tree)
        local = entry.queue_name
        if blocker is not None:
            return Decision(blocker.verdict, local, cq_name, blocker.reason, list(blocker.messages))
        assert cq is not None and entry.priority is not None
        if cq.queueing_strategy == STRICT_FIFO and cq.name in self.blocked:
            message = (
                f"behind {self.blocked[cq.name]} in StrictFIFO ClusterQueue {cq.name}: Kueue does not try this "
                "Workload until that one is admitted"
            )
            return Decision(AdmissionVerdict.PENDING, local, cq.name, "", [message], blocks=True)
        who = Preemptee(entry.priority, entry.queued_at)
        context = Context(cq, self.tree.queues[cq.name], self.state.flavors, self.state.topologies, self.preemptor, who)
        assignment = assign_flavors(context, entry.pod_sets)
        tas = self._topology(entry, cq, assignment)
        if tas is not None:
            return Decision(tas[0], local, cq.name, tas[1], tas[2], assignment, blocks=True)
        mode = assignment.mode
        if mode == NO_FIT:
            verdict = AdmissionVerdict.INADMISSIBLE if assignment.no_fit_reason == "NoMatchingFlavor" else None
            return Decision(
                verdict or AdmissionVerdict.PENDING, local, cq.name, assignment.no_fit_reason or "NoFit",
                [assignment.message()], assignment, blocks=True,
            )  # fmt: skip
        if mode == PREEMPT_MODE:
            return self._preempt(entry, cq, assignment, who)
        return self._reserve(entry, cq, assignment)

    def _topology(self, entry: Entry, cq: ClusterQueue, assignment: Assignment) -> tuple | None:
        """TAS flavors: placement (``FindTopologyAssignmentsForWorkload``); None when it does not change the verdict."""
        used = {
            choice.flavor
            for pod_set in assignment.pod_sets
            for choice in pod_set.flavors.values()
            if (spec := self.state.flavors.get(choice.flavor)) is not None and spec.topology_name
        }
        if not used or assignment.mode not in (FIT, PREEMPT_MODE):
            return None
        if entry.submission is None:
            return None  # a pending Workload of the dump: its quota only (its pods are Kueue's to place)
        if self.placer is None:
            name = sorted(used)[0]
            message = (
                f"flavor {name} is topology-aware (Topology {self.state.flavors[name].topology_name}): give the "
                "cluster's nodes (-t) to place the workload on it"
            )
            return AdmissionVerdict.UNKNOWN, "", [message]
        found = self.placer.check(entry.submission, used, assignment, self.state)
        if found is None:
            return None
        verdict, reason, message = found
        if reason == TOPOLOGY_PLACEMENT_FAILED:
            return verdict, reason, [assignment.message(), message] if assignment.message() else [message]
        return verdict, reason, [message]

    def _preempt(self, entry: Entry, cq: ClusterQueue, assignment: Assignment, who: Preemptee) -> Decision:
        targets = self.preemptor.targets(cq, who, assignment.needs_preemption(), assignment.usage)
        message = assignment.message()
        if not targets:
            if cq.preemption.reclaim_within_cohort != ANY:
                self.tree.add(cq.name, _to_reserve(self.tree, cq, assignment))
                self.preemptor.changed()
            return Decision(
                AdmissionVerdict.PENDING,
                entry.queue_name,
                cq.name,
                WAITING_FOR_QUOTA,
                [message],
                assignment,
                blocks=True,
            )
        for target in targets:
            self.tree.remove(target.workload.cluster_queue or "", target.workload.usage)
        node = self.tree.queues[cq.name]
        fits = all(value <= max(0, node.available(fr)) for fr, value in assignment.usage.items())
        for target in targets:
            self.tree.add(target.workload.cluster_queue or "", target.workload.usage)
        if not fits:
            messages = ["Workload no longer fits after processing another workload"]
            return Decision(
                AdmissionVerdict.PENDING, entry.queue_name, cq.name, WAITING_FOR_QUOTA, messages, assignment
            )
        self.tree.add(cq.name, assignment.usage)
        self.preemptor.changed()
        messages = [f"{message}. Pending the preemption of {len(targets)} workload(s)"]
        return Decision(
            AdmissionVerdict.PENDING, entry.queue_name, cq.name, WAITING_FOR_PREEMPTED, messages, assignment, targets,
            blocks=True,
        )  # fmt: skip

    def _reserve(self, entry: Entry, cq: ClusterQueue, assignment: Assignment) -> Decision:
        node = self.tree.queues[cq.name]
        if not all(value <= max(0, node.available(fr)) for fr, value in assignment.usage.items()):
            messages = ["Workload no longer fits after processing another workload"]
            return Decision(
                AdmissionVerdict.PENDING, entry.queue_name, cq.name, WAITING_FOR_QUOTA, messages, assignment
            )
        flavors = tuple({res: c.flavor for res, c in pod_set.flavors.items()} for pod_set in assignment.pod_sets)
        workload = QueuedWorkload(
            namespace=entry.namespace, name=entry.name, uid=entry.uid, priority=entry.priority or 0,
            cluster_queue=cq.name, usage=dict(assignment.usage), flavors=flavors,
        )  # fmt: skip
        self.hold(workload, entry.queued_at)
        if self.placer is not None and entry.submission is not None:
            self.placer.take(entry.submission, assignment, self.state)
        messages = [f"Quota reserved in ClusterQueue {cq.name}"]
        used = {choice.flavor for pod_set in assignment.pod_sets for choice in pod_set.flavors.values()}
        checks = [name for name, on in cq.admission_checks if not on or used & set(on)]
        if checks:
            messages.append(
                f"would wait for admission check(s) {', '.join(checks)} before it is admitted (their outcome is not "
                "modelled)"
            )
        else:
            messages.append("The workload is admitted")
        return Decision(AdmissionVerdict.ADMITTED, entry.queue_name, cq.name, "", messages, assignment)


def _to_reserve(tree: QuotaTree, cq: ClusterQueue, assignment: Assignment) -> dict[FlavorResource, int]:
    """``quotaResourcesToReserve`` for a Preempt assignment without targets."""
    node = tree.queues[cq.name]
    quotas = cq.quotas()
    reserved = {}
    for fr, value in assignment.usage.items():
        quota = quotas.get(fr)
        nominal = quota.nominal if quota else 0
        used = node.usage.get(fr, 0)
        if assignment.borrowing > 0:
            if quota is None or quota.borrowing_limit is None:
                reserved[fr] = value
            else:
                reserved[fr] = max(0, min(value, nominal + quota.borrowing_limit - used))
        else:
            reserved[fr] = max(0, min(value, nominal - used))
    return reserved


def _item(entry: Entry, decision: Decision) -> WorkloadAdmission:
    submission = entry.submission
    assert submission is not None
    ref = submission.tree.workload
    pod_sets = []
    if decision.assignment is not None:
        for pod_set in decision.assignment.pod_sets:
            flavors = {resource: choice.flavor for resource, choice in sorted(pod_set.flavors.items())}
            borrowing = any(choice.borrow > 0 for choice in pod_set.flavors.values())
            pod_sets.append(PodSetAdmission(pod_set.name, pod_set.count, flavors, borrowing, pod_set.mode))
    else:
        pod_sets = [PodSetAdmission(pod_set.name, pod_set.count) for pod_set in entry.pod_sets]
    candidates = [
        Candidate(t.workload.namespace, t.workload.name, t.workload.cluster_queue or "", t.workload.priority, t.reason)
        for t in decision.targets
    ]
    return WorkloadAdmission(
        workload=WorkloadKey(ref.kind, submission.namespace, ref.name),
        local_queue=decision.local_queue,
        cluster_queue=decision.cluster_queue,
        verdict=decision.verdict,
        pod_sets=pod_sets,
        reasons=[message for message in decision.messages if message],
        group=submission.group,
        priority=entry.priority,
        reason=decision.reason,
        preemption_candidates=candidates,
    )


def _owned(workload: QueuedWorkload, submitted: Sequence[Submission]) -> bool:
    """A Workload of the dump that stands for one of the given workloads (already submitted)."""
    if workload.owner is None:
        return False
    kind, name = workload.owner
    return any(
        (s.tree.workload.kind, s.tree.workload.name, s.namespace) == (kind, name, workload.namespace) for s in submitted
    )


def admit(submitted: Sequence[Submission], state: QueueState, *, placer: TasPlacer | None = None) -> AdmissionReport:
    """Admit the given workloads' Workloads in Kueue's order, after the dump's admitted ones.

    Args:
        submitted: the Workloads of the given workloads (:func:`~.workloads.submissions`).
        state: the queue objects.
        placer: places TAS PodSets on the cluster's nodes; without one a TAS flavor's verdict is unknown.

    Returns:
        One item per given Workload, in the order Kueue takes them, and the notes.
    """
    run = _Admission(state, placer)
    pending = []
    dropped = 0
    for workload in state.workloads:
        if _owned(workload, submitted):
            dropped += 1
        elif workload.admitted:
            if workload.cluster_queue in state.cluster_queues:
                run.hold(workload)
        elif workload.pod_sets:
            pending.append(workload)
    if dropped:
        run.notes.append(
            f"{dropped} Workload(s) of the dump stand for the workloads given: left out, not counted twice"
        )
    run.status_remainder()
    report = AdmissionReport()
    taken = 0
    for entry in entries(list(submitted), pending, state):
        decision = run.decide(entry)
        if decision.blocks and decision.verdict is not AdmissionVerdict.ADMITTED and decision.cluster_queue:
            run.blocked.setdefault(decision.cluster_queue, entry.key)
        if entry.submission is None:
            taken += decision.verdict is AdmissionVerdict.ADMITTED
            continue
        report.items.append(_item(entry, decision))
    if pending:
        run.notes.append(
            f"{len(pending)} pending Workload(s) of the dump queued in their turn ({taken} of them admitted)"
        )
    report.notes = run.notes
    return report
