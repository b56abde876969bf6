"""A node's NUMA layout and its kubelet's topology manager settings.

A :class:`NumaLayout` is what a ``NodeResourceTopology`` object says of one node
(``topology.node.k8s.io/v1alpha2``): its zones of type ``Node`` (one per NUMA node, named
``node-<id>`` by NFD's topology-updater), each with per-resource ``capacity`` (everything the
zone has, reserved CPUs included), ``allocatable`` and ``available`` (what exclusive allocations
have not taken), the ``costs`` (distances) to the other zones, and the node's topology manager
policy and scope. The kubelet flags set the policy (``none``, ``best-effort``, ``restricted``,
``single-numa-node``; default ``none``) and scope (``container`` or ``pod``; default
``container``); the policy options ``prefer-closest-numa-nodes`` and ``max-allowable-numa-nodes``
(default 8, ``pkg/kubelet/cm/topologymanager/policy_options.go``) refine them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction

from .. import labels

__all__ = [
    "TopologyManagerPolicy",
    "TopologyManagerScope",
    "DEFAULT_MAX_ALLOWABLE_NUMA_NODES",
    "TopologyManager",
    "ZoneResource",
    "Zone",
    "NumaLayout",
    "is_device_resource",
]

DEFAULT_MAX_ALLOWABLE_NUMA_NODES = 8
"""``defaultMaxAllowableNUMANodes``: above this many NUMA nodes the kubelet refuses to start with a
policy other than ``none`` unless the ``max-allowable-numa-nodes`` option raises it."""

_ZERO = Fraction(0)
_NOT_DEVICES = ("cpu", "memory", "pods", "ephemeral-storage")


class TopologyManagerPolicy(str, Enum):
    """``--topology-manager-policy``."""

    NONE = "none"
    BEST_EFFORT = "best-effort"
    RESTRICTED = "restricted"
    SINGLE_NUMA_NODE = "single-numa-node"


class TopologyManagerScope(str, Enum):
    """``--topology-manager-scope``."""

    CONTAINER = "container"
    POD = "pod"


def is_device_resource(name: str) -> bool:
    """Whether the device manager (a device plugin) serves ``name``: not cpu, memory, hugepages."""
    return name not in _NOT_DEVICES and not name.startswith(labels.HUGEPAGES_PREFIX)


@dataclass(frozen=True)
class TopologyManager:
    """A node's topology manager configuration.

    Attributes:
        policy: the policy.
        scope: the scope.
        prefer_closest_numa_nodes: the ``prefer-closest-numa-nodes`` option (ties between equally
            wide NUMA sets go to the one with the smallest average distance).
        max_allowable_numa_nodes: the ``max-allowable-numa-nodes`` option.
        stated: whether the node's object states the policy (else it is assumed).
    """

    policy: TopologyManagerPolicy = TopologyManagerPolicy.NONE
    scope: TopologyManagerScope = TopologyManagerScope.CONTAINER
    prefer_closest_numa_nodes: bool = False
    max_allowable_numa_nodes: int = DEFAULT_MAX_ALLOWABLE_NUMA_NODES
    stated: bool = False

    def __post_init__(self) -> None:
        if self.max_allowable_numa_nodes < DEFAULT_MAX_ALLOWABLE_NUMA_NODES:
            # NewPolicyOptions: "the minimum value of max-allowable-numa-nodes should not be less than 8"
            raise ValueError(f"max-allowable-numa-nodes must be at least {DEFAULT_MAX_ALLOWABLE_NUMA_NODES}")


@dataclass(frozen=True)
class ZoneResource:
    """One resource of a zone."""

    name: str
    capacity: Fraction
    allocatable: Fraction
    available: Fraction


@dataclass(frozen=True)
class Zone:
    """One NUMA node.

    Attributes:
        id: the NUMA node id (the number in ``node-<id>``).
        name: the zone name.
        resources: per-resource amounts, sorted by name.
        costs: (zone id, distance) pairs, the ACPI SLIT distances (10 to itself).
    """

    id: int
    name: str
    resources: tuple[ZoneResource, ...] = ()
    costs: tuple[tuple[int, int], ...] = ()

    def resource(self, name: str) -> ZoneResource | None:
        """The zone's amounts of one resource, if it reports it."""
        for item in self.resources:
            if item.name == name:
                return item
        return None


@dataclass(frozen=True)
class NumaLayout:
    """A node's NUMA zones and its topology manager settings.

    Attributes:
        zones: the NUMA nodes, by id.
        manager: the topology manager configuration.
        source: where the layout came from (a file, ``cluster``, ``simulation``).
    """

    zones: tuple[Zone, ...]
    manager: TopologyManager = field(default_factory=TopologyManager)
    source: str | None = None

    def __hash__(self) -> int:
        # Layouts key caches once per node and pod template: hash the nested amounts once.
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:
            cached = hash((self.zones, self.manager, self.source))
            object.__setattr__(self, "_hash", cached)
        return cached

    @property
    def ids(self) -> tuple[int, ...]:
        """The NUMA node ids, ascending."""
        return tuple(zone.id for zone in self.zones)

    def zone(self, zone_id: int) -> Zone:
        """The zone with that id."""
        for zone in self.zones:
            if zone.id == zone_id:
                return zone
        raise KeyError(zone_id)

    def reports(self, name: str) -> bool:
        """Whether any zone reports the resource (its manager then knows its NUMA placement)."""
        return any(zone.resource(name) is not None for zone in self.zones)

    def amounts(self, name: str, which: str) -> dict[int, Fraction]:
        """Per zone id, ``capacity``, ``allocatable`` or ``available`` of one resource.

        A missing ``capacity`` falls back to ``allocatable`` and that to ``available``.
        """
        found: dict[int, Fraction] = {}
        for zone in self.zones:
            item = zone.resource(name)
            if item is None:
                found[zone.id] = _ZERO
            elif which == "available":
                found[zone.id] = item.available
            elif which == "allocatable":
                found[zone.id] = item.allocatable
            else:
                found[zone.id] = item.capacity
        return found

    def distance(self, first: int, second: int) -> int:
        """The distance between two zones (0 when the object gives no costs)."""
        for other, value in self.zone(first).costs:
            if other == second:
                return value
        return 0

    @property
    def starts(self) -> bool:
        """Whether the kubelet starts with this policy on this many NUMA nodes (``NewManager``)."""
        if self.manager.policy is TopologyManagerPolicy.NONE:
            return True
        return len(self.zones) <= self.manager.max_allowable_numa_nodes
