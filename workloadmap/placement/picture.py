"""What a picture of a placement shows: a cluster's nested domains, its nodes, and where each gang went.

:func:`placement_map` turns a :class:`~workloadmap.topology.Cluster` and the placement reports
made on it into plain data: the domain tree (level, value, node counts, free and total GPUs), the
nodes of the deepest domains with the pods each gang put on them, and every PodGroup with its
verdict, its chosen domain, its candidate domains and, when it does not fit, the reason. The
command line draws it (``wmap place --html``, ``wmap topology show --html``); the library knows
nothing of HTML or terminals. ``to_dict()`` gives the same data as JSON.

Domains are named by their ``id`` (the path of label values, ``spine-01/leaf-001/nvl-001``), so a
rack value that repeats under two spines stays two domains. A gang's candidates and chosen domain
are label values (or paths) at its preferred level; they are resolved to every domain of that
level they name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ..labels import HOSTNAME
from ..resources import DEFAULT_GPU_RESOURCES
from ..topology import Cluster, Domain
from ..values import JsonForm
from .report import GroupPlacement, PlacementReport

__all__ = ["NodeView", "DomainView", "GangView", "PlacementMap", "placement_map", "MAX_NODES_DRAWN"]

MAX_NODES_DRAWN = 2000
"""Above this many nodes a picture shows domains only (each with its counts), not one tile per node."""


@dataclass(kw_only=True)
class NodeView(JsonForm):
    """One node as drawn: its GPUs before the placement and the pods each gang put on it.

    Attributes:
        gpus_free: GPUs free before the placements (not requested by running pods).
        gpus_placed: GPUs the placed pods take; ``gpus_free - gpus_placed`` are free after.
        pods: pods placed on the node, by gang key (see :attr:`GangView.key`).
    """

    name: str
    gpus: Fraction
    gpus_free: Fraction
    ready: bool
    cordoned: bool
    pods: dict[str, int] = field(default_factory=dict)
    gpus_placed: Fraction = Fraction(0)


@dataclass(kw_only=True)
class DomainView(JsonForm):
    """One topology domain with its counts; the deepest domains drawn hold their nodes.

    Attributes:
        gpus_free: GPUs free before the placements.
        gpus_placed: GPUs the placed pods take in the domain; ``gpus_free - gpus_placed`` are free after.
        same: ids of the domains below this one that hold exactly its nodes (one child, itself
            with one child ...), not drawn as boxes of their own: a gang chosen there is drawn here.
    """

    id: str
    level: str | None
    value: str | None
    nodes: int
    ready_nodes: int
    cordoned_nodes: int
    gpus: Fraction
    gpus_free: Fraction
    children: list[DomainView] = field(default_factory=list)
    node_views: list[NodeView] = field(default_factory=list)
    gpus_placed: Fraction = Fraction(0)
    same: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class GangView(JsonForm):
    """One PodGroup of a placed workload.

    Attributes:
        key: ``Kind/name group`` (unique in the picture: colours and node pods refer to it).
        chosen: the id of the domain the scheduler assigned it to (None: unfit, or the whole cluster).
        candidates: ids of the domains at its preferred level that hold it.
        level: its preferred level (the level of ``chosen`` and ``candidates``).
    """

    key: str
    workload: str
    name: str
    cluster: str
    pods: int
    min_member: int
    fits: bool
    reason: str | None = None
    level: str | None = None
    required_level: str | None = None
    chosen: str | None = None
    candidates: list[str] = field(default_factory=list)
    nodes: int = 0


@dataclass(kw_only=True)
class PlacementMap(JsonForm):
    """A cluster, drawn as nested domains, with the gangs placed on it.

    Attributes:
        nodes_drawn: whether the deepest domains hold one view per node (clusters up to
            :data:`MAX_NODES_DRAWN` nodes).
        workloads: each workload placed here with its verdict (``Kind/name``, fits, reason).
    """

    cluster: str
    source: str | None
    levels: list[str]
    root: DomainView
    nodes_drawn: bool
    gangs: list[GangView] = field(default_factory=list)
    workloads: list[dict[str, object]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _levels_drawn(cluster: Cluster) -> list[str]:
    """The levels drawn as boxes: the hostname level is the nodes themselves."""
    return [level for level in cluster.levels if level != HOSTNAME]


def _domain_view(
    domain: Domain,
    depth: int,
    drawn: int,
    node_pods: dict[str, dict[str, int]],
    tiles: bool,
    taken: dict[str, Fraction],
) -> DomainView:
    same: list[str] = []
    inner = domain
    # A domain with one child holding all its nodes (an NVLink clique filling its rack) is one box.
    while domain.level is not None and depth < drawn and len(inner.children) == 1:
        (child,) = inner.children.values()
        if child.level == HOSTNAME or child.node_count != inner.node_count:
            break
        same.append(child.id)
        inner, depth = child, depth + 1
    view = DomainView(
        id=domain.id,
        level=domain.level,
        value=domain.value,
        nodes=domain.node_count,
        ready_nodes=domain.ready_nodes,
        cordoned_nodes=domain.cordoned_nodes,
        gpus=domain.gpus_total,
        gpus_free=domain.gpus_free,
        # Only the nodes a placement took are added up: Fractions summed over 20,000 nodes take seconds.
        gpus_placed=sum((taken[node.name] for node in domain.nodes if node.name in taken), Fraction(0)),
        same=same,
    )
    if depth < drawn and inner.children:
        view.children = [
            _domain_view(child, depth + 1, drawn, node_pods, tiles, taken) for child in inner.children.values()
        ]
    elif tiles:
        view.node_views = [
            NodeView(
                name=node.name,
                gpus=node.gpus(),
                gpus_free=node.free_gpus(),
                ready=node.ready,
                cordoned=node.unschedulable,
                pods=dict(node_pods.get(node.name, {})),
                gpus_placed=taken.get(node.name, Fraction(0)),
            )
            for node in domain.nodes
        ]
    return view


def _depth_within(root: Domain, limit: int) -> int:
    """The most levels drawn with at most ``limit`` domains at the deepest of them (at least one level)."""
    depth, level = 0, [root]
    while True:
        below = [child for domain in level for child in domain.children.values() if child.level != HOSTNAME]
        if not below or len(below) > limit:
            return max(depth, 1)
        depth, level = depth + 1, below


def _resolve(names: Sequence[str], level: str | None, root: Domain) -> list[str]:
    """Domain ids at ``level`` that the names (label values, or paths of them) denote."""
    if level is None:
        return []
    found: list[str] = []
    domains = root.at_level(level)
    for name in names:
        matches = [domain.id for domain in domains if domain.id == name or domain.value == name]
        found.extend(match for match in matches if match not in found)
    return found


def _gang(report: PlacementReport, group: GroupPlacement, root: Domain) -> GangView:
    assignment = group.assignment if group.fits else None
    level = assignment.level if assignment is not None and assignment.level else group.preferred_level
    chosen = _resolve([assignment.domain], level, root) if assignment is not None and assignment.domain else []
    return GangView(
        key=f"{report.workload} {group.name}",
        workload=str(report.workload),
        name=group.name,
        cluster=report.topology.name,
        pods=group.pods,
        min_member=group.min_member,
        fits=group.fits,
        reason=None if group.fits else (group.reason or report.reason),
        level=level,
        required_level=group.required_level,
        chosen=chosen[0] if chosen else None,
        candidates=_resolve(group.candidates, group.preferred_level, root),
        nodes=len(assignment.nodes) if assignment is not None else 0,
    )


def placement_map(
    cluster: Cluster,
    reports: Sequence[PlacementReport] = (),
    *,
    gpu_resources: Sequence[str] = DEFAULT_GPU_RESOURCES,
    max_nodes: int = MAX_NODES_DRAWN,
) -> PlacementMap:
    """The picture data of ``cluster`` with the gangs of ``reports`` (placements made on it).

    Args:
        cluster: the cluster as given (before the placements).
        reports: placement reports on this cluster, in the order the workloads were placed.
        gpu_resources: the resource names counted as GPUs.
        max_nodes: draw one view per node up to this many nodes; above, domains only.

    Raises:
        ValueError: a report is about another cluster.
    """
    for report in reports:
        if report.topology.name != cluster.name:
            raise ValueError(f"report on {report.topology.name!r} given with cluster {cluster.name!r}")
    root = cluster.domain_tree(gpu_resources)
    gangs = [_gang(report, group, root) for report in reports for group in report.pod_groups]
    node_pods: dict[str, dict[str, int]] = {}
    for report in reports:
        for group in report.pod_groups:
            if group.fits and group.assignment is not None:
                for node in group.assignment.nodes:
                    pods = node_pods.setdefault(node.name, {})
                    key = f"{report.workload} {group.name}"
                    pods[key] = pods.get(key, 0) + node.pods
    taken: dict[str, Fraction] = {}
    for report in reports:
        for name, gpus in report.gpus_taken.items():
            taken[name] = taken.get(name, Fraction(0)) + gpus
    tiles = len(cluster.nodes) <= max_nodes
    drawn = len(_levels_drawn(cluster)) if tiles else _depth_within(root, max_nodes)
    return PlacementMap(
        cluster=cluster.name,
        source=cluster.source,
        levels=list(cluster.levels),
        root=_domain_view(root, 0, drawn, node_pods, tiles, taken),
        nodes_drawn=tiles,
        gangs=gangs,
        workloads=[
            {"workload": str(report.workload), "fits": report.fits, "reason": report.reason} for report in reports
        ],
        notes=list(cluster.notes) + [note for report in reports for note in report.notes],
    )
