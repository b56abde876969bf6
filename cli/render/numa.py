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

__all__ = ["qos_text", "render_numa_zones", "render_numa_title"]


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
    settings = f"{manager.policy.value}/{manager.scope.value}" + ("" if manager.stated else "*")
    rows = []
    for zone in layout.zones:
        cells = [node.name, zone.name, settings]
        for name in resources:
            item = zone.resource(name)
            free = state.free.get(name, {}).get(zone.id)
            cells.append(
                "-" if item is None or free is None else f"{_amount(name, free)}/{_amount(name, item.allocatable)}"
            )
        rows.append(cells)
    return rows


def render_numa_zones(cluster: Cluster) -> str:
    """One row per NUMA zone of every node with a layout: free/allocatable per resource (node and zone never cut)."""
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
    tails = [name.rpartition("/")[2] for name in order]
    titles = [tail if tails.count(tail) == 1 else name for name, tail in zip(order, tails, strict=True)]
    header = ["NODE", "ZONE", "POLICY/SCOPE", *[title.upper() for title in titles]]
    assumed = any(node.numa is not None and not node.numa.manager.stated for node in nodes)
    title = render_numa_title(cluster) + ("; * assumed, the node does not state it" if assumed else "")
    return title + "\n" + table(header, rows, key=(0, 1))


def render_numa_title(cluster: Cluster) -> str:
    """The line above the NUMA zones: how many nodes have a layout."""
    nodes = sum(node.numa is not None for node in cluster.nodes)
    without = len(cluster.nodes) - nodes
    counted = f"{nodes} node(s) with a layout" + (f", {without} without" if without else "")
    return f"NUMA zones of {cluster.name} ({counted}): free/allocatable, the topology manager's policy/scope"
