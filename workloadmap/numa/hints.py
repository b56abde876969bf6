"""NUMA hints as the kubelet's hint providers make them, and the zone state they read.

A hint is a NUMA affinity mask (``bitmask.BitMask``, here an ``int`` with bit *i* for NUMA node
*i*) and whether it is *preferred*. Each provider (``GetTopologyHints`` for the container scope,
``GetPodTopologyHints`` for the pod scope) returns hints per resource:

* CPU manager, static policy (``pkg/kubelet/cm/cpumanager/policy_static.go``,
  ``generateCPUTopologyHints``): only for a Guaranteed container with a whole cpu request (none
  with pod-level resources); every NUMA set whose free CPUs (plus CPUs the pod's init containers
  hand back) cover the request, preferred when no smaller set has enough CPUs *in total*;
* memory manager, static policy (``pkg/kubelet/cm/memorymanager/policy_static.go``,
  ``calculateHints``): only for Guaranteed pods, memory and hugepages, judged against each set's
  allocatable memory for preference and its free memory for feasibility; a NUMA node already
  allocated as part of a group joins no other group;
* device manager (``pkg/kubelet/cm/devicemanager/topology_hints.go``,
  ``generateDeviceTopologyHints``): for any QoS class, every device resource whose devices carry
  NUMA information; no hint at all (an empty list) when fewer devices are free than requested.

``None`` for a resource (or an empty map) means "no preference"; an empty list means "no NUMA
set can satisfy it". "Preferred" is always judged against capacity, never against what is free.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations

from .. import labels
from .layout import NumaLayout, is_device_resource
from .pod import ContainerDemand, ContainerKind, PodNuma, QosClass

__all__ = [
    "Hint",
    "ProviderHints",
    "ZoneState",
    "iterate_masks",
    "mask_of",
    "bits",
    "narrower",
    "count_hints",
    "memory_hints",
    "pod_amounts",
    "memory_requests",
    "device_requests",
    "Reusable",
    "cpu_provider",
    "memory_provider",
    "device_provider",
    "PROVIDERS",
]

_ZERO = Fraction(0)


@dataclass(frozen=True)
class Hint:
    """A topology hint: a NUMA mask (``None``: any NUMA node) and whether it is preferred."""

    mask: int | None
    preferred: bool


ProviderHints = dict[str, list[Hint] | None]
"""One provider's hints per resource name (``{}``: no preference for anything)."""


@dataclass
class ZoneState:
    """What is free on each NUMA node, as admissions proceed on one node.

    Attributes:
        free: per resource, per zone id, the amount exclusive allocations have not taken.
        groups: memory manager: the NUMA set a zone's memory was allocated with (``Cells``).
        uses: memory manager: how many allocations use a zone (``NumberOfAssignments``).
    """

    free: dict[str, dict[int, Fraction]] = field(default_factory=dict)
    groups: dict[int, tuple[int, ...]] = field(default_factory=dict)
    uses: dict[int, int] = field(default_factory=dict)

    @classmethod
    def of(cls, layout: NumaLayout) -> ZoneState:
        """The state a layout's ``available`` amounts describe."""
        names = sorted({item.name for zone in layout.zones for item in zone.resources})
        return cls(free={name: layout.amounts(name, "available") for name in names})

    def copy(self) -> ZoneState:
        """An independent copy."""
        return ZoneState({name: dict(zones) for name, zones in self.free.items()}, dict(self.groups), dict(self.uses))

    def key(self) -> tuple:
        """A hashable summary (equal states, equal answers)."""
        return (
            tuple((name, tuple(sorted(zones.items()))) for name, zones in sorted(self.free.items())),
            tuple(sorted(self.groups.items())),
            tuple(sorted(self.uses.items())),
        )


def mask_of(zone_ids: Sequence[int]) -> int:
    """The mask with the bits of ``zone_ids`` set."""
    mask = 0
    for zone in zone_ids:
        mask |= 1 << zone
    return mask


def bits(mask: int) -> list[int]:
    """The NUMA node ids of a mask, ascending."""
    return [bit for bit in range(mask.bit_length()) if mask >> bit & 1]


def narrower(first: int, second: int) -> bool:
    """``IsNarrowerThan``: fewer bits, or as many and lower-numbered ones."""
    count_first, count_second = first.bit_count(), second.bit_count()
    if count_first == count_second:
        return first < second
    return count_first < count_second


def iterate_masks(zone_ids: Sequence[int]) -> Iterator[int]:
    """``bitmask.IterateBitMasks``: every non-empty set of the ids, smallest sets first."""
    ordered = sorted(zone_ids)
    for size in range(1, len(ordered) + 1):
        for chosen in combinations(ordered, size):
            yield mask_of(chosen)


def count_hints(
    zone_ids: Sequence[int],
    capacity: dict[int, Fraction],
    free: dict[int, Fraction],
    request: Fraction,
    reusable: dict[int, Fraction] | None = None,
) -> list[Hint]:
    """``generateCPUTopologyHints`` / ``generateDeviceTopologyHints`` over amounts per zone."""
    reuse = {zone: amount for zone, amount in (reusable or {}).items() if amount > 0}
    reuse_total = sum(reuse.values(), _ZERO)
    smallest = len(zone_ids)
    found = []
    for mask in iterate_masks(zone_ids):
        zones = bits(mask)
        if sum((capacity.get(zone, _ZERO) for zone in zones), _ZERO) >= request and len(zones) < smallest:
            smallest = len(zones)
        if any(zone not in zones for zone in reuse):
            continue  # a mask must hold every unit the pod's init containers hand back
        if reuse_total + sum((free.get(zone, _ZERO) for zone in zones), _ZERO) >= request:
            found.append(mask)
    return [Hint(mask, mask.bit_count() == smallest) for mask in found]


def _memory_mask_usable(mask: int, state: ZoneState) -> bool:
    zones = bits(mask)
    if len(zones) == 1:
        return len(state.groups.get(zones[0], (zones[0],))) == 1
    for zone in zones:
        if state.uses.get(zone, 0) > 0:
            group = state.groups.get(zone, (zone,))
            if len(group) == 1 or tuple(sorted(group)) != tuple(zones):
                return False
    return True


def memory_hints(
    layout: NumaLayout, state: ZoneState, requests: dict[str, Fraction], reusable: dict[str, dict[int, Fraction]]
) -> ProviderHints:
    """The memory manager's ``calculateHints`` for memory and hugepages requests."""
    allocatable = {name: layout.amounts(name, "allocatable") for name in requests}
    smallest = len(layout.ids)
    found: list[int] = []
    for mask in iterate_masks(layout.ids):
        zones = bits(mask)
        if any(sum((allocatable[name][zone] for zone in zones), _ZERO) < amount for name, amount in requests.items()):
            continue
        smallest = min(smallest, len(zones))
        if not _memory_mask_usable(mask, state):
            continue
        if all(
            sum(
                (state.free.get(name, {}).get(zone, _ZERO) + reusable.get(name, {}).get(zone, _ZERO) for zone in zones),
                _ZERO,
            )
            >= amount
            for name, amount in requests.items()
        ):
            found.append(mask)
    if not found:
        return {}
    return {name: [Hint(mask, mask.bit_count() == smallest) for mask in found] for name in requests}


def pod_amounts(pod: PodNuma, per_container: Callable[[ContainerDemand], dict[str, Fraction]]) -> dict[str, Fraction]:
    """A pod's amounts as the managers total them (KEP-753).

    The larger of the init peak and the app containers plus sidecars, sidecars also adding to the
    init containers after them.
    """
    init_peak: dict[str, Fraction] = {}
    sidecars: dict[str, Fraction] = {}
    apps: dict[str, Fraction] = {}
    for container in pod.containers:
        amounts = per_container(container)
        for name, amount in amounts.items():
            if container.kind is ContainerKind.SIDECAR:
                sidecars[name] = sidecars.get(name, _ZERO) + amount
            elif container.kind is ContainerKind.INIT:
                init_peak[name] = max(init_peak.get(name, _ZERO), sidecars.get(name, _ZERO) + amount)
            else:
                apps[name] = apps.get(name, _ZERO) + amount
    total = {name: apps.get(name, _ZERO) + sidecars.get(name, _ZERO) for name in {*apps, *sidecars}}
    for name, amount in init_peak.items():
        total[name] = max(total.get(name, _ZERO), amount)
    return {name: amount for name, amount in total.items() if amount > 0}


def _cpus(pod: PodNuma, container: ContainerDemand | None) -> int:
    if container is not None:
        return pod.guaranteed_cpus(container)
    return int(pod_amounts(pod, lambda item: {"cpu": Fraction(pod.guaranteed_cpus(item))}).get("cpu", _ZERO))


def memory_requests(pod: PodNuma, container: ContainerDemand | None) -> dict[str, Fraction]:
    """Memory and hugepages the memory manager allocates (a Guaranteed pod without pod-level resources)."""
    if pod.qos is not QosClass.GUARANTEED or pod.pod_level_resources:
        return {}

    def own(item: ContainerDemand) -> dict[str, Fraction]:
        return {
            name: amount
            for name, amount in item.requests
            if amount > 0 and (name == "memory" or name.startswith(labels.HUGEPAGES_PREFIX))
        }

    return own(container) if container is not None else pod_amounts(pod, own)


def device_requests(pod: PodNuma, container: ContainerDemand | None) -> dict[str, Fraction]:
    """Device plugin resources (by limit) of a container, or of the pod (``PodLimits``)."""

    def own(item: ContainerDemand) -> dict[str, Fraction]:
        return {name: amount for name, amount in item.limits if amount > 0 and is_device_resource(name)}

    return own(container) if container is not None else pod_amounts(pod, own)


Reusable = dict[str, dict[int, Fraction]]


def cpu_provider(
    layout: NumaLayout, state: ZoneState, pod: PodNuma, container: ContainerDemand | None, reusable: Reusable
) -> ProviderHints:
    """The static CPU manager's hints."""
    requested = _cpus(pod, container)
    if requested == 0 or not layout.reports("cpu"):
        return {}
    capacity = layout.amounts("cpu", "capacity")
    return {
        "cpu": count_hints(layout.ids, capacity, state.free.get("cpu", {}), Fraction(requested), reusable.get("cpu"))
    }


def memory_provider(
    layout: NumaLayout, state: ZoneState, pod: PodNuma, container: ContainerDemand | None, reusable: Reusable
) -> ProviderHints:
    """The static memory manager's hints (the node reports memory per NUMA node)."""
    requests = memory_requests(pod, container)
    if not requests or not layout.reports("memory"):
        return {}
    return memory_hints(layout, state, requests, reusable)


def device_provider(
    layout: NumaLayout, state: ZoneState, pod: PodNuma, container: ContainerDemand | None, reusable: Reusable
) -> ProviderHints:
    """The device manager's hints, for every QoS class."""
    hints: ProviderHints = {}
    for name, amount in sorted(device_requests(pod, container).items()):
        if not layout.reports(name):
            hints[name] = None  # devices without NUMA information: no preference
            continue
        capacity = layout.amounts(name, "capacity")
        hints[name] = count_hints(layout.ids, capacity, state.free.get(name, {}), amount, reusable.get(name))
    return hints


PROVIDERS = (cpu_provider, memory_provider, device_provider)
"""The hint providers: CPU, memory and device manager (the merge does not depend on their order)."""
