"""Human views of a cluster's topology: `wmap topology show` and `wmap topology presets`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from workloadmap.labels import HOSTNAME

from ..printing.numbers import count, plural
from ..printing.output import table, tree_lines

if TYPE_CHECKING:  # the topology stage loads with the commands that use it
    from workloadmap.topology import Cluster, Domain, Node, SimulationSpec

__all__ = ["render_domain_tree", "shown_depth", "render_presets", "node_state"]


def node_state(node: Node) -> str:
    """A node's STATUS as `kubectl get nodes` prints it: ``Ready``, ``NotReady``, ``Ready,SchedulingDisabled``."""
    state = "Ready" if node.ready else "NotReady"
    return state + (",SchedulingDisabled" if node.unschedulable else "")


def _domain_summary(domain: Domain) -> str:
    """``18 nodes, GPUs 72/72 free``; how many are ready and cordoned when some are not ready or cordoned."""
    states = ""
    if domain.ready_nodes != domain.node_count or domain.cordoned_nodes:
        states = f" ({domain.ready_nodes} ready" + (
            f", {domain.cordoned_nodes} cordoned" if domain.cordoned_nodes else ""
        )
        states += ")"
    return (
        f"{plural(domain.node_count, 'node')}{states}, GPUs {count(domain.gpus_free)}/{count(domain.gpus_total)} free"
    )


def render_domain_tree(cluster: Cluster, root: Domain, *, shown: int, list_nodes: bool) -> str:
    """`wmap topology show`: the cluster's domains ``shown`` levels deep, optionally with nodes."""
    lines = [
        f"levels: {' > '.join(cluster.levels)}",
        f"cluster {cluster.name} ({cluster.source}): {_domain_summary(root)}",
    ]

    from workloadmap.topology import Domain

    def children(item: Domain | Node) -> list[Any]:
        if isinstance(item, Domain):
            below = list(item.children.values()) if len(item.path) < shown else []
            return below if below or not list_nodes else list(item.nodes)
        return []

    def label(item: Domain | Node) -> str:
        if isinstance(item, Domain):
            value = "<none>" if item.value is None else item.value
            return f"{item.level}={value}: {_domain_summary(item)}"
        return f"node {item.name} ({node_state(item)}), GPUs {count(item.free_gpus())}/{count(item.gpus())} free"

    lines += tree_lines(children(root), label, children)
    return "\n".join(lines) + "\n"


def shown_depth(cluster: Cluster, *, hosts: bool, depth: int | None) -> tuple[int, bool]:
    """How many levels `topology show` draws, and whether it lists nodes under the deepest domains."""
    host_level = bool(cluster.levels) and cluster.levels[-1] == HOSTNAME
    shown = len(cluster.levels) - (1 if host_level and not hosts else 0)
    if depth is not None:
        shown = min(shown, depth)
    # Without a hostname level, --hosts lists the nodes under the deepest domains shown.
    return shown, hosts and not (host_level and shown == len(cluster.levels))


def render_presets(presets: Sequence[SimulationSpec], default: str, *, wide: bool = False) -> str:
    """`wmap topology presets` as a table (descriptions keep their spaces; ``wide``: never shortened)."""
    rows = [
        (
            spec.name,
            spec.node_count,
            spec.node_count * spec.gpus_per_node,
            ("(default) " if spec.name == default else "") + spec.description,
        )
        for spec in presets
    ]
    return table(["NAME", "NODES", "GPUS", "DESCRIPTION"], rows, free_text_last=True, fit=not wide)
