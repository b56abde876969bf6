"""Kueue's flavor assigner (``pkg/scheduler/flavorassigner/flavorassigner.go``), step by step.

For each PodSet (PodSets of one ``podSetGroupName`` together, their requests summed), each
requested resource is looked up in the ClusterQueue's resource groups; the group's flavors are
tried in spec order (``findFlavorForPodSets``). A flavor is refused when the PodSet's topology
request does not match it, when it carries a NoSchedule/NoExecute taint neither the pod nor the
flavor tolerates, or when the pod's nodeSelector / required node affinity fails on the label
keys the flavor itself sets (``checkFlavorForPodSets``, ``flavorSelector``). Then every covered
resource is checked against the quota (``fitsResourceQuota``): more than ``PotentialAvailable``
is no fit; within ``Available`` a fit (with a borrowing level); in between preemption is
simulated when the request is within the nominal quota, the queue may reclaim in its tree, or
``borrowWithinCohort`` allows it. ``flavorFungibility`` decides whether to stop at a flavor or
try the next (``shouldTryNextFlavor``) and which tried flavor is best (``isPreferred``).

Messages are Kueue's own strings, sorted and joined as ``Status.Message()`` and
``Assignment.Message()`` do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..scheduling import PodScheduling, SelectorTerm
from .amounts import format_amount
from .objects import (
    BORROWING_OVER_PREEMPTION,
    PREEMPTION_OVER_BORROWING,
    TRY_NEXT_FLAVOR,
    ClusterQueue,
    FlavorResource,
    Fungibility,
    QueuedPodSet,
    ResourceFlavor,
    ResourceGroup,
    Topology,
)
from .preemption import NO_CANDIDATES, PREEMPT, Preemptee, Preemptor
from .quota import Node

__all__ = ["FIT", "PREEMPT_MODE", "NO_FIT", "FlavorChoice", "PodSetAssignment", "Assignment", "assign_flavors"]

# Internal modes (``preemptionMode``), worst first; the public ones are NoFit < Preempt < Fit.
_NO_FIT, _NO_CANDIDATES, _PREEMPT, _RECLAIM, _FIT = range(5)
NO_FIT, PREEMPT_MODE, FIT = "NoFit", "Preempt", "Fit"
_PUBLIC = {_NO_FIT: NO_FIT, _NO_CANDIDATES: PREEMPT_MODE, _PREEMPT: PREEMPT_MODE, _RECLAIM: PREEMPT_MODE, _FIT: FIT}
_RANK = {NO_FIT: 0, PREEMPT_MODE: 1, FIT: 3}
NO_MATCHING_FLAVOR = "NoMatchingFlavor"
EXCEEDS_MAX_QUOTA = "ExceedsMaxQuota"
WAITING_FOR_QUOTA = "WaitingForQuota"
TOPOLOGY_PLACEMENT_FAILED = "TopologyPlacementFailed"
_SEVERITY = {TOPOLOGY_PLACEMENT_FAILED: 1, WAITING_FOR_QUOTA: 2, EXCEEDS_MAX_QUOTA: 3, NO_MATCHING_FLAVOR: 4}
_SCHEDULING_EFFECTS = ("NoSchedule", "NoExecute")
_WORST = (_NO_FIT, 1 << 62)


def _severe(a: str, b: str) -> str:
    """``mostSevereReason``."""
    return a if _SEVERITY.get(a, 0) >= _SEVERITY.get(b, 0) else b


@dataclass
class FlavorChoice:
    """The flavor of one resource: its public mode and the borrowing level it needs."""

    flavor: str
    mode: str
    borrow: int = 0


@dataclass
class PodSetAssignment:
    """One PodSet's flavors (empty: none could be given) and the reasons any is not a plain fit."""

    name: str
    count: int
    flavors: dict[str, FlavorChoice] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    requests: dict[str, int] = field(default_factory=dict)
    attempts: list[tuple[str, int, str]] = field(default_factory=list)  # (flavor, mode, noFitReason)
    mode_override: str | None = None

    @property
    def mode(self) -> str:
        """``PodSetAssignment.RepresentativeMode``: Fit without reasons, NoFit without flavors, else the worst."""
        if self.mode_override is not None:
            return self.mode_override
        if not self.reasons:
            return FIT
        if not self.flavors:
            return NO_FIT
        return min((choice.mode for choice in self.flavors.values()), key=_RANK.__getitem__)

    def message(self) -> str:
        """``Status.Message()``: the reasons, sorted, joined by ``, ``."""
        return ", ".join(sorted(self.reasons))


@dataclass
class Assignment:
    """The flavor assignment of a whole Workload.

    Attributes:
        usage: what it would use per flavor-resource (``Usage.Quota.Assigned``).
        borrowing: the largest borrowing level of its flavors.
        no_fit_reason: Kueue's QuotaReserved reason when it does not fit (``resolveNoFitReason``).
    """

    pod_sets: list[PodSetAssignment] = field(default_factory=list)
    usage: dict[FlavorResource, int] = field(default_factory=dict)
    borrowing: int = 0
    no_fit_reason: str = ""

    @property
    def mode(self) -> str:
        """``RepresentativeMode``: the worst PodSet mode (NoFit with no PodSet at all)."""
        if not self.pod_sets:
            return NO_FIT
        return min((pod_set.mode for pod_set in self.pod_sets), key=_RANK.__getitem__)

    def message(self) -> str:
        """``Assignment.Message()``: ``couldn't assign flavors to pod set X: ...`` for each PodSet not fitting."""
        parts = [
            f"couldn't assign flavors to pod set {pod_set.name}: {pod_set.message()}"
            for pod_set in self.pod_sets
            if pod_set.reasons
        ]
        return "; ".join(parts)

    def needs_preemption(self) -> set[FlavorResource]:
        """``flavorResourcesNeedPreemption``: the flavor-resources assigned in Preempt mode."""
        return {
            (choice.flavor, resource)
            for pod_set in self.pod_sets
            for resource, choice in pod_set.flavors.items()
            if choice.mode == PREEMPT_MODE
        }

    def resolve_no_fit_reason(self, cq: ClusterQueue) -> None:
        """``resolveNoFitReason``: per PodSet the least severe NoFit reason per resource group, then the worst."""
        if self.mode != NO_FIT:
            return
        overall = ""
        groups = {flavor.name: index for index, group in enumerate(cq.resource_groups) for flavor in group.flavors}
        for pod_set in self.pod_sets:
            if pod_set.mode != NO_FIT:
                continue
            if not pod_set.attempts:
                overall = _severe(overall, NO_MATCHING_FLAVOR)
                continue
            least: dict[int, str] = {}
            for position, (flavor, mode, reason) in enumerate(pod_set.attempts):
                if mode != _NO_FIT:
                    continue
                group = groups.get(flavor, -1 - position)
                if group not in least or _SEVERITY.get(reason, 0) < _SEVERITY.get(least[group], 0):
                    least[group] = reason
            mine = ""
            for reason in least.values():
                mine = _severe(mine, reason)
            overall = _severe(overall, mine)
        self.no_fit_reason = overall


def _is_preferred(a: tuple[int, int], b: tuple[int, int], fungibility: Fungibility) -> bool:
    """``isPreferred``: whether granular mode ``a`` (mode, borrowing level) beats ``b``."""
    if a[0] == _NO_FIT:
        return False
    if b[0] == _NO_FIT:
        return True
    if (a[0] == _NO_CANDIDATES) != (b[0] == _NO_CANDIDATES):
        return a[0] != _NO_CANDIDATES
    if fungibility.preference == PREEMPTION_OVER_BORROWING:
        return a[1] < b[1] if a[1] != b[1] else a[0] > b[0]
    assert fungibility.preference in (None, BORROWING_OVER_PREEMPTION)
    return a[0] > b[0] if a[0] != b[0] else a[1] < b[1]


def _try_next(mode: tuple[int, int], fungibility: Fungibility) -> bool:
    """``shouldTryNextFlavor``."""
    if mode[0] in (_NO_FIT, _NO_CANDIDATES):
        return True
    if mode[0] in (_PREEMPT, _RECLAIM) and fungibility.when_can_preempt == TRY_NEXT_FLAVOR:
        return True
    return mode[1] > 0 and fungibility.when_can_borrow == TRY_NEXT_FLAVOR


def go_taint(key: str, value: str, effect: str) -> str:
    """A taint as Kueue's message prints it (a Go struct with a nil ``TimeAdded``)."""
    return f"{{{key} {value} {effect} <nil>}}"


def _selector_matches(scheduling: PodScheduling, flavor: ResourceFlavor) -> bool:
    """``flavorSelector``: the pod's selector and required affinity cut to this flavor's label keys."""
    keys = set(flavor.node_labels)
    labels = flavor.node_labels
    if any(key in keys and labels.get(key) != value for key, value in scheduling.node_selector):
        return False
    terms = scheduling.required_terms
    if terms is None:
        return True
    cut = []
    for term in terms:
        expressions = tuple(requirement for requirement in term.expressions if requirement.key in keys)
        if not expressions:
            return True  # a term left empty matches every flavor: terms are ORed
        cut.append(SelectorTerm(expressions))
    return any(term.matches(labels, "") for term in cut)


@dataclass
class Context:
    """What one assignment reads: the queue, its quota node, the flavors, the oracle."""

    cq: ClusterQueue
    node: Node
    flavors: Mapping[str, ResourceFlavor]
    topologies: Mapping[str, Topology]
    preemptor: Preemptor
    who: Preemptee


def _tas_mismatch(context: Context, pod_set: QueuedPodSet, flavor: ResourceFlavor, group: ResourceGroup) -> str | None:
    """``checkPodSetAndFlavorMatchForTAS`` (tas_flavorassigner.go:167-205)."""
    tas_only = all(
        context.flavors.get(name) is not None and context.flavors[name].topology_name
        for name in context.cq.flavor_names()
    )
    implied = not pod_set.explicit_tas and tas_only
    if pod_set.explicit_tas or implied:
        if implied:
            return None
        if flavor.topology_name is None:
            if not any(resource in group.covered for resource, amount in pod_set.request.items() if amount):
                return None
            return f'Flavor "{flavor.name}" does not support TopologyAwareScheduling'
        topology = context.topologies.get(flavor.topology_name)
        if topology is None:
            return f'Flavor "{flavor.name}" information missing in TAS cache'
        if pod_set.tas_level is not None and pod_set.tas_level not in topology.levels:
            return f'Flavor "{flavor.name}" does not contain the requested level'
        return None
    if flavor.topology_name is not None:
        return f'Flavor "{flavor.name}" supports only TopologyAwareScheduling'
    return None


def _check_flavor(context: Context, name: str, pod_sets: Sequence[QueuedPodSet], group: ResourceGroup) -> str | None:
    """``checkFlavorForPodSets``: why the flavor does not match the PodSets, or None."""
    flavor = context.flavors.get(name)
    if flavor is None:
        return f"flavor {name} not found"
    for pod_set in pod_sets:
        mismatch = _tas_mismatch(context, pod_set, flavor, group)
        if mismatch is not None:
            return mismatch
        tolerations = (*pod_set.scheduling.tolerations, *flavor.tolerations)
        for taint in flavor.node_taints:
            if taint.effect in _SCHEDULING_EFFECTS and not any(t.tolerates(taint) for t in tolerations):
                return f"untolerated taint {go_taint(taint.key, taint.value, taint.effect)} in flavor {name}"
        if not _selector_matches(pod_set.scheduling, flavor):
            return f"flavor {name} doesn't match node affinity"
    return None


def _fits_quota(context: Context, fr: FlavorResource, assumed: int, request: int) -> tuple[int, int, str | None, str]:
    """``fitsResourceQuota``: (mode, borrowing level, reason, noFitReason)."""
    node, resource = context.node, fr[1]
    available = max(0, node.available(fr))
    potential = node.potential(fr)
    value = assumed + request
    if value > potential:
        reason = (
            f"insufficient quota for {resource} in flavor {fr[0]}, previously considered podsets requests "
            f"({format_amount(resource, assumed)}) + current podset request ({format_amount(resource, request)}) "
            f"> maximum capacity ({format_amount(resource, potential)})"
        )
        return _NO_FIT, 0, reason, EXCEEDS_MAX_QUOTA
    borrow, may_reclaim = node.borrow_height(fr, value)
    if value <= available:
        return _FIT, borrow, None, ""
    more = format_amount(resource, value - available)
    reason = f"insufficient unused quota for {resource} in flavor {fr[0]}, {more} more needed"
    nominal = context.cq.quotas().get(fr)
    preemption = context.cq.preemption
    if (nominal is not None and nominal.nominal >= value) or may_reclaim or preemption.borrow_within_cohort != "Never":
        possibility, after = context.preemptor.simulate(context.cq, context.who, fr, value)
        mode = _NO_CANDIDATES if possibility == NO_CANDIDATES else _PREEMPT if possibility == PREEMPT else _RECLAIM
        return mode, after, reason, ""
    return _NO_FIT, borrow, reason, WAITING_FOR_QUOTA


def _find_flavor(
    context: Context,
    pod_sets: Sequence[QueuedPodSet],
    requests: Mapping[str, int],
    resource: str,
    assigned: Mapping[FlavorResource, int],
) -> tuple[dict[str, FlavorChoice] | None, list[str], list[tuple[str, int, str]]]:
    """``findFlavorForPodSets``: flavors for the resource's whole group, the reasons, the attempts."""
    group = context.cq.group_of(resource)
    if group is None:
        return None, [f"resource {resource} unavailable in ClusterQueue"], []
    covered = {name: amount for name, amount in sorted(requests.items()) if name in group.covered}
    reasons: list[str] = []
    attempts: list[tuple[str, int, str]] = []
    best: dict[str, FlavorChoice] | None = None
    best_mode = _WORST
    fungibility = context.cq.fungibility
    for flavor in group.flavors:
        mismatch = _check_flavor(context, flavor.name, pod_sets, group)
        if mismatch is not None:
            reasons.append(mismatch)
            attempts.append((flavor.name, _NO_FIT, NO_MATCHING_FLAVOR))
            continue
        choices: dict[str, FlavorChoice] = {}
        mode = (_FIT, 0)
        no_fit_reason = ""
        for name, amount in covered.items():
            fr = (flavor.name, name)
            found, borrow, reason, why = _fits_quota(context, fr, assigned.get(fr, 0), amount)
            if reason is not None:
                reasons.append(reason)
                no_fit_reason = _severe(no_fit_reason, why)
            if _is_preferred(mode, (found, borrow), fungibility):
                mode = (found, borrow)
            if mode[0] != _NO_FIT:
                choices[name] = FlavorChoice(flavor.name, _PUBLIC[found], borrow)
        attempts.append((flavor.name, mode[0], no_fit_reason))
        if not _try_next(mode, fungibility):
            best, best_mode = choices, mode
            break
        if _is_preferred(mode, best_mode, fungibility):
            best, best_mode = choices, mode
    if best_mode[0] == _FIT:
        return best, [], attempts
    return best, reasons, attempts


def _group_requests(cq: ClusterQueue, pod_sets: Sequence[QueuedPodSet]) -> list[dict[str, int]]:
    """Each PodSet's total requests (per pod × count), plus ``pods`` when the queue has a pods quota."""
    totals = []
    for pod_set in pod_sets:
        total = {name: amount * pod_set.count for name, amount in pod_set.request.items()}
        if cq.group_of("pods") is not None:
            total["pods"] = pod_set.count
        totals.append(total)
    return totals


def assign_flavors(
    context: Context, pod_sets: Sequence[QueuedPodSet], *, ignore_undeclared: bool = False
) -> Assignment:
    """``assignFlavors``: the flavor of every resource of every PodSet, or why there is none.

    Args:
        context: the ClusterQueue, its quota node, the flavors and the preemption oracle.
        pod_sets: the Workload's PodSets, in order.
        ignore_undeclared: ``quotaCheckStrategy: IgnoreUndeclared`` (resources the queue does not
            list are skipped); Kueue's default is ``BlockUndeclared``.
    """
    assignment = Assignment()
    totals = _group_requests(context.cq, pod_sets)
    order: dict[str, list[int]] = {}
    for index, pod_set in enumerate(pod_sets):
        order.setdefault(pod_set.group or f"\0{index}", []).append(index)
    for members in order.values():
        requests: dict[str, int] = {}
        for index in members:
            for name, amount in totals[index].items():
                requests[name] = requests.get(name, 0) + amount
        flavors: dict[str, FlavorChoice] | None = {}
        reasons: list[str] = []
        attempts: list[tuple[str, int, str]] = []
        for resource, amount in sorted(requests.items()):
            if context.cq.group_of(resource) is None and (amount == 0 or ignore_undeclared):
                continue
            if flavors is not None and resource in flavors:
                continue
            found, why, tried = _find_flavor(
                context, [pod_sets[i] for i in members], requests, resource, assignment.usage
            )
            attempts += tried
            if not found and requests:
                flavors, reasons = None, why
                break
            assert flavors is not None
            flavors.update(found or {})
            reasons += why
        failed = False
        for index in members:
            mine = {name: choice for name, choice in (flavors or {}).items() if name in totals[index]}
            result = PodSetAssignment(pod_sets[index].name, pod_sets[index].count, mine, list(reasons), totals[index])
            result.attempts = attempts
            _append(assignment, result)
            failed = failed or (bool(totals[index]) and not mine)
        if failed:
            break
    assignment.resolve_no_fit_reason(context.cq)
    return assignment


def _append(assignment: Assignment, pod_set: PodSetAssignment) -> None:
    """``Assignment.append``: the PodSet's requests join the usage under its flavors."""
    assignment.pod_sets.append(pod_set)
    for resource, choice in pod_set.flavors.items():
        assignment.borrowing = max(assignment.borrowing, choice.borrow)
        key = (choice.flavor, resource)
        assignment.usage[key] = assignment.usage.get(key, 0) + pod_set.requests.get(resource, 0)
