"""Small NUMA layouts and pod specs for the NUMA tests."""

from __future__ import annotations

from fractions import Fraction

from workloadmap.numa import (
    NumaLayout,
    TopologyManager,
    TopologyManagerPolicy,
    TopologyManagerScope,
    Zone,
    ZoneResource,
)
from workloadmap.quantities import parse_quantity

GPU = "nvidia.com/gpu"


def zones(
    count: int = 2, *, cpus: int = 32, gpus: int = 4, memory: str | None = "256Gi", free: dict | None = None
) -> tuple[Zone, ...]:
    """``count`` NUMA nodes alike; ``free`` overrides ``available`` as {zone: {resource: amount}}.

    ``memory=None``: the zones report no memory (the memory manager's policy is None, as by default).
    """
    found = []
    for zone in range(count):
        amounts = {"cpu": Fraction(cpus)}
        if memory is not None:
            amounts["memory"] = parse_quantity(memory)
        if gpus:
            amounts[GPU] = Fraction(gpus)
        resources = []
        for name, amount in sorted(amounts.items()):
            available = (free or {}).get(zone, {}).get(name)
            available = amount if available is None else parse_quantity(available)
            resources.append(ZoneResource(name, amount, amount, available))
        costs = tuple((other, 10 if other == zone else 21) for other in range(count))
        found.append(Zone(zone, f"node-{zone}", tuple(resources), costs))
    return tuple(found)


def layout(
    policy: str = "single-numa-node", scope: str = "container", count: int = 2, *, max_numa: int = 8, **kwargs
) -> NumaLayout:
    """A node with ``count`` NUMA nodes and the given topology manager settings."""
    manager = TopologyManager(
        TopologyManagerPolicy(policy), TopologyManagerScope(scope), max_allowable_numa_nodes=max_numa, stated=True
    )
    return NumaLayout(zones(count, **kwargs), manager)


def container(
    name: str,
    cpu: str | None = None,
    memory: str | None = None,
    gpus: int = 0,
    *,
    requests: dict | None = None,
    **extra,
) -> dict:
    """A container whose limits are ``cpu``, ``memory`` and ``gpus`` (requests default to them)."""
    limits: dict = {}
    if cpu is not None:
        limits["cpu"] = cpu
    if memory is not None:
        limits["memory"] = memory
    if gpus:
        limits[GPU] = gpus
    resources: dict = {"limits": limits}
    if requests:
        resources["requests"] = requests
    return {"name": name, "resources": resources, **extra}


def spec(*containers: dict, init: tuple[dict, ...] = ()) -> dict:
    """A pod spec."""
    return {"initContainers": list(init), "containers": list(containers)}
