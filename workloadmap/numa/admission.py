"""Admission: would the kubelet admit a pod on a node, and what does it take from each NUMA node.

The topology manager's scopes (``pkg/kubelet/cm/topologymanager/scope_container.go`` and
``scope_pod.go``): with scope ``container`` each container, init containers first, gets its own
merged hint, the first container the policy refuses rejects the pod (``TopologyAffinityError``),
and each container's resources are allocated before the next container's hints are computed;
with scope ``pod`` the providers' pod-level hints are merged once and every container is allocated
on that one affinity. With policy ``none`` nothing is merged and resources go anywhere.

Allocation follows the managers: exclusive CPUs and devices come first from the NUMA nodes of the
affinity, fullest NUMA node first (the CPU manager's packed ``takeByTopology``), then from the
others; memory comes from the affinity's NUMA nodes in id order, the affinity widened to the
narrowest set with enough free memory when it lacks some (``extendTopologyManagerHint``), and a
NUMA set allocated together becomes a group. What an init container (not a sidecar) took is handed
back to the containers after it (``cpusToReuse``, ``devicesToReuse``). An allocation that cannot be
made rejects the pod (``UnexpectedAdmissionError``).

Pods admitted one after another each see what the earlier ones took (:func:`admit_pods`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from .hints import (
    PROVIDERS,
    Hint,
    Reusable,
    ZoneState,
    bits,
    device_requests,
    memory_hints,
    memory_requests,
)
from .layout import NumaLayout, TopologyManagerPolicy, TopologyManagerScope
from .pod import ContainerDemand, ContainerKind, PodNuma
from .policies import merge

__all__ = [
    "Admission",
    "ContainerAffinity",
    "admit",
    "admit_pods",
    "admitted_count",
    "TOPOLOGY_AFFINITY_ERROR",
    "ADMISSION_ERROR",
    "NOT_STARTED",
]

TOPOLOGY_AFFINITY_ERROR = "TopologyAffinityError"
ADMISSION_ERROR = "UnexpectedAdmissionError"
NOT_STARTED = "TopologyManagerNotStarted"

_ZERO = Fraction(0)


@dataclass(frozen=True)
class ContainerAffinity:
    """The NUMA affinity a container was admitted with (``None``: any NUMA node)."""

    container: str
    numa_nodes: tuple[int, ...] | None
    preferred: bool


@dataclass
class Admission:
    """The kubelet's verdict on one pod.

    Attributes:
        admitted: whether it admits the pod.
        affinities: per container admitted so far, the NUMA nodes it was given.
        container: the container the policy refused (``None`` for the pod scope or admitted pods).
        error: ``TopologyAffinityError``, ``UnexpectedAdmissionError`` or, when the kubelet does not
            start with its settings, ``TopologyManagerNotStarted``.
        detail: for an allocation failure, the resource that could not be allocated.
        seen: for a rejection, the NUMA nodes as the rejected container (or pod) found them.
    """

    admitted: bool
    affinities: list[ContainerAffinity] = field(default_factory=list)
    container: str | None = None
    error: str | None = None
    detail: str | None = None
    seen: ZoneState | None = None


def _take(
    free: dict[int, Fraction], reuse: dict[int, Fraction], amount: Fraction, mask: int | None, spill: bool = True
) -> dict[int, Fraction] | None:
    """Take ``amount``, both pools together; return what was taken per zone (None: not enough).

    Handed-back units first, then the fullest NUMA node of the mask first, then (with ``spill``)
    the other NUMA nodes.
    """
    inside = set(bits(mask)) if mask is not None else set(free) | set(reuse)
    taken: dict[int, Fraction] = {}
    left = amount
    order = [(pool, zone) for pool in (reuse, free) for zone in sorted(pool, key=lambda z: (pool[z], z))]
    for aligned in (True, False) if spill else (True,):
        for pool, zone in order:
            if left <= 0:
                break
            if (zone in inside) != aligned or pool.get(zone, _ZERO) <= 0:
                continue
            got = min(pool[zone], left)
            pool[zone] -= got
            left -= got
            taken[zone] = taken.get(zone, _ZERO) + got
    return taken if left <= 0 else None


def _memory_mask(
    layout: NumaLayout, state: ZoneState, requests: dict[str, Fraction], mask: int | None, reusable: Reusable
) -> int | None:
    """The memory manager's affinity: the hint's, else (or when short) the narrowest preferred one around it."""
    hints = memory_hints(layout, state, requests, reusable)
    found = {hint.mask: hint.preferred for items in hints.values() for hint in items or () if hint.mask is not None}
    options = sorted(found, key=lambda m: (not found[m], m.bit_count(), m))
    if mask is None:
        return options[0] if options else None
    if mask in found:
        return mask
    wider = [candidate for candidate in options if candidate & mask == mask]
    return wider[0] if wider else None


def _hand_back(reusable: Reusable, name: str, container: ContainerDemand, taken: dict[int, Fraction]) -> None:
    if container.kind is ContainerKind.INIT:
        pool = reusable.setdefault(name, {})
        for zone, got in taken.items():
            pool[zone] = pool.get(zone, _ZERO) + got


def _allocate_memory(
    layout: NumaLayout, state: ZoneState, pod: PodNuma, container: ContainerDemand, mask: int | None, reusable: Reusable
) -> str | None:
    requests = memory_requests(pod, container)
    if not requests or not layout.reports("memory"):
        return None
    chosen = _memory_mask(layout, state, requests, mask, reusable)
    if chosen is None:
        return next(iter(sorted(requests)))
    for name, amount in sorted(requests.items()):
        taken = _take(state.free.setdefault(name, {}), reusable.setdefault(name, {}), amount, chosen, spill=False)
        if taken is None:
            return name
        _hand_back(reusable, name, container, taken)
    zones = tuple(bits(chosen))
    for zone in zones:
        state.uses[zone] = state.uses.get(zone, 0) + 1
        state.groups[zone] = zones
    return None


def _allocate(
    layout: NumaLayout, state: ZoneState, pod: PodNuma, container: ContainerDemand, mask: int | None, reusable: Reusable
) -> str | None:
    """``allocateAlignedResources`` for one container; the resource that failed, if any."""
    amounts: dict[str, Fraction] = dict(device_requests(pod, container))
    cpus = pod.guaranteed_cpus(container)
    if cpus:
        amounts["cpu"] = Fraction(cpus)
    for name, amount in sorted(amounts.items()):
        if not layout.reports(name):
            continue
        taken = _take(state.free.setdefault(name, {}), reusable.setdefault(name, {}), amount, mask)
        if taken is None:
            return name
        _hand_back(reusable, name, container, taken)
    return _allocate_memory(layout, state, pod, container, mask, reusable)


def _affinity(container: str, hint: Hint) -> ContainerAffinity:
    return ContainerAffinity(container, tuple(bits(hint.mask)) if hint.mask is not None else None, hint.preferred)


def _hints(
    layout: NumaLayout, state: ZoneState, pod: PodNuma, container: ContainerDemand | None, reusable: Reusable
) -> Hint | None:
    """The merged hint, or None when the policy rejects."""
    providers = [provider(layout, state, pod, container, reusable) for provider in PROVIDERS]
    hint, admit = merge(layout, providers)
    return hint if admit else None


def admit(layout: NumaLayout, state: ZoneState, pod: PodNuma) -> Admission:
    """Whether the kubelet admits ``pod``; on admission ``state`` loses what the pod takes.

    On rejection ``state`` is left as it was.
    """
    if not layout.starts:
        return Admission(False, error=NOT_STARTED)
    work = state.copy()
    reusable: Reusable = {}
    result = Admission(True)
    policy, scope = layout.manager.policy, layout.manager.scope
    pod_hint: Hint | None = Hint(None, True)
    if policy is not TopologyManagerPolicy.NONE and scope is TopologyManagerScope.POD:
        pod_hint = _hints(layout, work, pod, None, reusable)
        if pod_hint is None:
            return Admission(False, error=TOPOLOGY_AFFINITY_ERROR)
    for container in pod.containers:
        hint = pod_hint
        if policy is not TopologyManagerPolicy.NONE and scope is TopologyManagerScope.CONTAINER:
            hint = _hints(layout, work, pod, container, reusable)
            if hint is None:
                return Admission(False, result.affinities, container.name, TOPOLOGY_AFFINITY_ERROR, seen=work)
        assert hint is not None
        failed = _allocate(layout, work, pod, container, hint.mask, reusable)
        if failed is not None:
            return Admission(False, result.affinities, container.name, ADMISSION_ERROR, failed, seen=work)
        result.affinities.append(_affinity(container.name, hint))
    # What init containers handed back and no later container reused is released with them.
    for name, pool in reusable.items():
        for zone, amount in pool.items():
            if amount > 0 and name in work.free:
                work.free[name][zone] = work.free[name].get(zone, _ZERO) + amount
    state.free, state.groups, state.uses = work.free, work.groups, work.uses
    return result


def admit_pods(layout: NumaLayout, pods: Sequence[PodNuma], state: ZoneState | None = None) -> list[Admission]:
    """Admit pods one after another on one node, each seeing what the earlier ones took."""
    state = ZoneState.of(layout) if state is None else state
    return [admit(layout, state, pod) for pod in pods]


def admitted_count(layout: NumaLayout, pod: PodNuma, limit: int, state: ZoneState | None = None) -> int:
    """How many pods like ``pod`` the node admits one after another (at most ``limit``)."""
    state = ZoneState.of(layout) if state is None else state.copy()
    for count in range(limit):
        if not admit(layout, state, pod).admitted:
            return count
    return limit
