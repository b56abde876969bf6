"""The settle step: each gang's placement built once, from the analysis, the rule's decision and NUMA admission.

A :class:`~.report.GroupPlacement` takes the standalone analysis' fields (levels, requirements,
candidates) and its verdict from, in this order:

* the kubelet's NUMA admission (:func:`~.numa_fit.admission_reason`): a group the rule placed on a
  node whose kubelet rejects some of its pods does not fit;
* the rule's :class:`~.rules.Decision`: placed (with its assignment) or not (with its reason, and,
  when the gang fits the cluster as given but not after the groups placed before it, that said);
* without a decision, the analysis' own verdict (a SubGroup Kueue does not place; it may be unknown);

and a SubGroup of a PodGroup that is not placed is not placed either. The report's verdict is
``DoesNotFit`` when a PodGroup does not fit, else ``Unknown`` when some gang's fit is unknown.

Each reason is worded for people here, once (:class:`~.reasons.Wording`: what a pod needs against
what the nodes have, else the scheduler's message in words), the scheduler's own text kept beside
it; a placed gang carries its rule's note.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from ..scheduling import PodScheduling
from ..tree import WorkloadRef, WorkloadTree
from .analysis import GangFit, WorkloadAnalysis
from .nodes import Exclusions
from .numa_fit import NumaRejection, admission_reason
from .reasons import UNPLACED_PARENT, Wording
from .report import Assignment, GroupPlacement, PlacementReport, Verdict
from .rules import Decision, Decisions

__all__ = ["settle", "numa_notes"]

_CROWDED = "; it fits the cluster as given, before the groups placed ahead of it"


def settle(
    analysis: WorkloadAnalysis,
    decisions: Decisions,
    *,
    policy: str,
    notes: Sequence[str] = (),
    admission_notes: Sequence[str] = (),
    placed_before: Sequence[WorkloadRef] = (),
    rejected: Mapping[str, NumaRejection] | None = None,
    wording: Wording | None = None,
    gpus_taken: Mapping[str, Fraction] | None = None,
) -> PlacementReport:
    """The workload's report: every PodGroup and SubGroup placement, the verdict and its reason.

    Args:
        analysis: the gangs on the cluster as given.
        decisions: the rule's decisions and notes.
        policy: the name of the rule's policy.
        notes: what the cluster's nodes tell before the rule's notes (nodes left out).
        admission_notes: what the kubelets' NUMA admission tells, after the rule's notes.
        placed_before: the workloads placed first on the cluster.
        rejected: per node, the first pod its kubelet rejected among those placed for this workload.
        wording: words the reasons for people (without it they are the scheduler's).
        gpus_taken: per node, the GPUs the rule's assignments took.
    """
    settled = _Settle(rejected or {}, wording)
    groups = [settled.pod_group(fit, decisions.groups.get(fit.name)) for fit in analysis.pod_groups]
    unfit = [group for group in groups if group.verdict is Verdict.DOES_NOT_FIT]
    unknown = [group.name for group in _every(groups) if group.verdict is Verdict.UNKNOWN]
    # A SubGroup Kueue does not place cannot make the workload unfit, but an unknown one is not a fit.
    verdict = Verdict.DOES_NOT_FIT if unfit else Verdict.UNKNOWN if unknown else Verdict.FITS
    reason = None
    if unfit:
        # How many fit and the first reason: a ranking across clusters keeps it as the cluster's reason.
        first, fitting = unfit[0], len(groups) - len(unfit)
        reason = f"{fitting} of {len(groups)} groups fit; {first.name} does not: {first.reason or 'no room'}"
    elif unknown:
        reason = f"the exact search spent its budget on {', '.join(unknown)}: their fit is unknown"
    return PlacementReport(
        workload=analysis.workload,
        topology=analysis.topology,
        reason=reason,
        pod_groups=groups,
        slices=list(analysis.slices),
        policy=policy,
        notes=[*notes, *decisions.notes, *admission_notes],
        placed_before=list(placed_before),
        verdict=verdict,
        gpus_taken=dict(gpus_taken or {}),
    )


def _every(groups: Sequence[GroupPlacement]) -> list[GroupPlacement]:
    return [member for group in groups for member in (group, *group.sub_groups)]


class _Settle:
    """The placements of one workload's gangs, with what every one of them is settled against."""

    def __init__(self, rejected: Mapping[str, NumaRejection], wording: Wording | None) -> None:
        self.rejected = rejected
        self.wording = wording

    def pod_group(self, fit: GangFit, decision: Decision | None) -> GroupPlacement:
        """A PodGroup's placement, its SubGroups' after it (they follow their PodGroup when it is not placed)."""
        verdict, reason, crowded, assignment = self.outcome(fit, decision)
        parent = None if verdict is Verdict.FITS else fit.name
        subs = [
            self.sub_group(fit, sub, decision.sub_groups.get(sub.name) if decision else None, parent)
            for sub in fit.sub_groups
        ]
        note = decision.note if decision is not None and verdict is Verdict.FITS else None
        return self.placement(fit, fit.name, verdict, reason, crowded, assignment, subs, note)

    def sub_group(
        self, group: GangFit, fit: GangFit, decision: Decision | None, unplaced_parent: str | None
    ) -> GroupPlacement:
        verdict, reason, crowded, assignment = self.outcome(fit, decision)
        if unplaced_parent is not None:
            verdict, assignment = Verdict.DOES_NOT_FIT, None
            reason = reason or UNPLACED_PARENT.format(unplaced_parent)
        return self.placement(fit, f"{group.name}/{fit.name}", verdict, reason, crowded, assignment, [], None)

    def outcome(self, fit: GangFit, decision: Decision | None) -> tuple[Verdict, str | None, bool, Assignment | None]:
        """(verdict, the scheduler's reason, crowded, assignment) of one gang.

        NUMA admission over the rule's decision over the analysis; crowded: the gang fits the
        cluster as given, but not after the groups placed before it.
        """
        if decision is None:
            return fit.verdict, fit.reason, False, None
        crowded = decision.crowded and fit.fits and fit.gang
        numa = admission_reason(decision.assignment, self.rejected) if decision.placed else None
        if numa is not None:
            return Verdict.DOES_NOT_FIT, numa, crowded, None
        if decision.placed:
            return Verdict.FITS, None, False, decision.assignment
        return Verdict.DOES_NOT_FIT, decision.reason, crowded, decision.assignment

    def placement(
        self,
        fit: GangFit,
        key: str,
        verdict: Verdict,
        reason: str | None,
        crowded: bool,
        assignment: Assignment | None,
        subs: list[GroupPlacement],
        note: str | None,
    ) -> GroupPlacement:
        """The gang's placement, its reason worded once (the scheduler's kept when the words differ)."""
        worded = self.wording.reason(key, reason, fit.required_level) if self.wording is not None else reason
        own = reason if worded != reason else None
        if crowded and worded:
            worded += _CROWDED
            own = own + _CROWDED if own else None
        return _placement(fit, verdict, worded, assignment, subs, own, note)


def _placement(
    fit: GangFit,
    verdict: Verdict,
    reason: str | None,
    assignment: Assignment | None,
    subs: list[GroupPlacement],
    scheduler_reason: str | None,
    note: str | None,
) -> GroupPlacement:
    return GroupPlacement(
        name=fit.name,
        min_member=fit.min_member,
        pods=fit.pods,
        gang=fit.gang,
        parent=fit.parent,
        preferred_level=fit.preferred_level,
        required_level=fit.required_level,
        required_source=fit.required_source,
        candidates=list(fit.candidates),
        levels=list(fit.levels),
        reason=reason,
        approximate=fit.approximate,
        sub_groups=subs,
        assignment=assignment,
        preferred_source=fit.preferred_source,
        verdict=verdict,
        scheduler_reason=scheduler_reason,
        note=note,
    )


def numa_notes(tree: WorkloadTree, eligible: Callable[[PodScheduling], tuple[list[bool], Exclusions]]) -> list[str]:
    """One note per pod template and reason for the nodes whose kubelet would reject its pods."""
    notes: list[str] = []
    for component in tree.walk():
        if not component.has_pod_template:
            continue
        _, stats = eligible(component.scheduling)
        for reason, count in stats.numa.items():
            notes.append(
                f"{component.name}: the kubelet's topology manager would reject its pods on {count} of"
                f" {stats.total} node(s), which are left out: {reason}"
            )
    return notes
