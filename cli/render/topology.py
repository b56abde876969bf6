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


COLLAPSE_ABOVE = 100
"""Above this many domains shown, runs of alike domains at the deepest level shown print as one line."""


def _domains_shown(root: Domain, shown: int) -> int:
    """How many domain lines the tree prints, ``shown`` levels deep."""
    below = list(root.children.values()) if len(root.path) < shown else []
    return len(below) + sum(_domains_shown(child, shown) for child in below)


def render_domain_tree(cluster: Cluster, root: Domain, *, shown: int, list_nodes: bool) -> str:
    """`wmap topology show`: the cluster's domains ``shown`` levels deep, optionally with nodes.

    A large cluster (more than :data:`COLLAPSE_ABOVE` domains shown, nodes not asked for) prints each
    run of alike domains at the deepest level shown once: ``domain=nvl-001..nvl-004 (4 alike):
    16 nodes, GPUs 64/64 free`` (each of them), so 2,000 nodes read in a screen or two.
    """
    lines = [
        f"levels: {' > '.join(cluster.levels)}",
        f"cluster {cluster.name} ({cluster.source}): {_domain_summary(root)}",
    ]

    from workloadmap.topology import Domain

    from .collapse import Run, runs

    hosts_shown = 0 < shown <= len(cluster.levels) and cluster.levels[shown - 1] == HOSTNAME
    collapse = not list_nodes and not hosts_shown and _domains_shown(root, shown) > COLLAPSE_ABOVE

    def children(item: Domain | Node | Run[Domain]) -> list[Any]:
        if isinstance(item, Domain):
            below = list(item.children.values()) if len(item.path) < shown else []
            if collapse and below and len(item.path) + 1 >= shown:
                return runs(below, lambda domain: "<none>" if domain.value is None else domain.value, _domain_summary)
            return below if below or not list_nodes else list(item.nodes)
        return []

    def label(item: Domain | Node | Run[Domain]) -> str:
        if isinstance(item, Run):
            return f"{item.first.level}={item.label}: {_domain_summary(item.first)}"
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
