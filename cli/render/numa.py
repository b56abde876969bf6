"""Human rendering of what the kubelet's NUMA model says: QoS and exclusive CPUs, NUMA zones per node."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from workloadmap.quantities import format_quantity, is_binary_resource
from workloadmap.tree import Component

from ..printing.output import table

if TYPE_CHECKING:  # the topology stage and the NUMA model load with the commands that use them
    from workloadmap.numa import NumaLayout
    from workloadmap.topology import Cluster, Node

__all__ = ["qos_text", "render_numa_zones"]


def qos_text(component: Component) -> str:
    """The QoS class where it matters: Guaranteed pods (who gets exclusive CPUs), GPU pods whose CPUs are shared."""
    if component.qos_class is None:
        return ""
    exclusive = [name for name, pinned in component.exclusive_cpus.items() if pinned]
    if exclusive:
        return f"{component.qos_class.value}, exclusive CPUs: {', '.join(exclusive)}"
    if component.qos_class.value == "Guaranteed" or component.gpus_per_pod:
        return f"{component.qos_class.value}, shared CPUs"
    return ""


def _amount(name: str, amount: Fraction) -> str:
    return format_quantity(amount, binary=is_binary_resource(name))


def _zone_rows(node: Node, layout: NumaLayout, resources: Sequence[str]) -> list[list[str]]:
    from workloadmap.numa import ZoneState

    state = ZoneState.of(layout)
    manager = layout.manager
    settings = f"{manager.policy.value}/{manager.scope.value}" + ("" if manager.stated else " (assumed)")
    rows = []
    for zone in layout.zones:
        cells = [node.name, settings, zone.name]
        for name in resources:
            item = zone.resource(name)
            free = state.free.get(name, {}).get(zone.id)
            cells.append(
                "-" if item is None or free is None else f"{_amount(name, free)}/{_amount(name, item.allocatable)}"
            )
        rows.append(cells)
    return rows


def render_numa_zones(cluster: Cluster) -> str:
    """One row per NUMA zone of every node with a layout: free/allocatable per resource."""
    nodes = [node for node in cluster.nodes if node.numa is not None]
    if not nodes:
        return (
            f"{cluster.name}: no node has a NUMA layout (give --node-topology FILE with NodeResourceTopology"
            " objects, or generate nodes with --numa-nodes)"
        )
    names = sorted({item.name for node in nodes if node.numa for zone in node.numa.zones for item in zone.resources})
    order = [name for name in ("cpu", "memory") if name in names] + [
        name for name in names if name not in ("cpu", "memory")
    ]
    rows = [row for node in nodes if node.numa for row in _zone_rows(node, node.numa, order)]
    header = ["NODE", "TOPOLOGY MANAGER", "ZONE", *[f"{name.upper()} FREE/ALLOC" for name in order]]
    without = len(cluster.nodes) - len(nodes)
    lines = [
        f"NUMA zones of {cluster.name} ({len(nodes)} node(s) with a layout"
        + (f", {without} without" if without else "")
        + ")"
    ]
    return "\n".join([*lines, table(header, rows)])
