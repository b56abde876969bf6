"""Kueue's topology-aware assignment of one PodSet, as ``TASFlavorSnapshot.findTopologyAssignment`` does it.

A port of ``pkg/cache/scheduler/tas_flavor_snapshot.go`` (kubernetes-sigs/kueue) onto
:class:`~workloadmap.placement.nodes.NodeTree`, with the feature gates at their defaults
(``TASProfileMixed`` and ``TASMultiLayerTopology`` on, ``TASBalancedPlacement`` off unless asked):

the request's parameters read from the PodSet (levels as depths, slice layers checked), then
the search of :mod:`.kueue_search` (counts, level, BestFit or LeastFreeCapacity, descent to the
nodes), or first Kueue's balanced placement (:mod:`.kueue_balanced`) when asked for.

What is not modelled: preferred node affinity scores (``TASRespectNodeAffinityPreferred``, off by
default), ResourceFlavor node labels and tolerations, node replacement and elastic scale-up.
"""

from __future__ import annotations

from .kueue_balanced import balanced_domains
from .kueue_model import KueuePodSet, KueueResult, SliceLayer
from .kueue_search import KueueSearch, SearchParams
from .nodes import Exclusions, NodeTree
from .packing import Amount

__all__ = ["find_assignment"]


def _size_at(tree: NodeTree, layers: tuple[SliceLayer, ...]) -> dict[int, int] | str:
    """``buildSliceSizeAtLevel``: the slice size used at each level below the outermost slice layer."""
    sizes: dict[int, int] = {}
    if len(layers) < 2:
        return sizes
    previous_size, previous_depth = layers[0].size, tree.levels.index(layers[0].level)
    for layer in layers[1:]:
        if layer.level not in tree.levels:
            return f"no requested topology level for additional slice layer: {layer.level}"
        depth = tree.levels.index(layer.level)
        if depth <= previous_depth:
            return (
                f"additional slice layer topology {layer.level} must be at a lower level than "
                f"{tree.levels[previous_depth]}"
            )
        if previous_size % layer.size:
            return f"additional slice layer size {layer.size} must evenly divide parent layer size {previous_size}"
        for level in range(previous_depth + 1, depth + 1):
            sizes[level] = layer.size
        previous_size, previous_depth = layer.size, depth
    return sizes


def _params(tree: NodeTree, workers: KueuePodSet, leader: KueuePodSet | None) -> SearchParams | str:
    request = workers.topology
    slice_only = not request.required and not request.preferred and bool(request.slices)
    unconstrained = request.unconstrained or request.implied or slice_only
    lowest = len(tree.levels) - 1
    if request.required or request.preferred:
        key = request.required or request.preferred
        if key not in tree.levels:
            return f"no requested topology level: {key}"
        requested = tree.levels.index(key)
    elif slice_only:
        requested = 0
    else:
        requested = lowest
    slice_size, slice_depth = 1, lowest
    if request.slices:
        slice_size = request.slices[0].size
        if slice_size <= 0:
            return "slice topology requested, but slice size not provided"
        if request.slices[0].level not in tree.levels:
            return f"no requested topology level for slices: {request.slices[0].level}"
        slice_depth = tree.levels.index(request.slices[0].level)
    if requested > slice_depth:
        return f"podset slice topology {tree.levels[slice_depth]} is above the podset topology {tree.levels[requested]}"
    size_at = _size_at(tree, request.slices)
    if isinstance(size_at, str):
        return size_at
    return SearchParams(
        count=workers.count,
        leader_count=1 if leader is not None else 0,
        slice_size=slice_size,
        slice_depth=slice_depth,
        requested_depth=requested,
        required=request.required is not None,
        unconstrained=unconstrained,
        least_free=unconstrained,
        size_at=size_at,
        layers=request.slices,
    )


def find_assignment(
    tree: NodeTree,
    workers: KueuePodSet,
    leader: KueuePodSet | None = None,
    *,
    topology: str = "default",
    balanced: bool = False,
) -> KueueResult:
    """Where Kueue puts one PodSet (and, for a PodSet group, its one-pod leader) on ``tree`` as it is now.

    Args:
        tree: the nodes, with the capacity left by what was placed before.
        workers: the PodSet (for a group, the larger one).
        leader: the other PodSet of a ``podset-group-name`` group (one pod).
        topology: the Topology name used in messages.
        balanced: apply Kueue's balanced placement to preferred requests (``TASBalancedPlacement``).

    Returns:
        The pods per node, or Kueue's reason when the PodSet does not fit; nothing is consumed.
    """
    params = _params(tree, workers, leader)
    if isinstance(params, str):
        return KueueResult(reason=params)
    search = KueueSearch(tree, params, topology)
    eligible, stats = tree.eligible(workers.scheduling)
    search.fill_leaves(_cleaned(workers.request), _cleaned(leader.request) if leader else None, eligible)
    search.roll_up()
    chosen: list[int] | None = None
    depth = params.requested_depth
    used_balanced = False
    if balanced and not params.required and not params.unconstrained:
        found = balanced_domains(search)
        if found is not None:
            search, depth, chosen = found
            used_balanced = True
    if chosen is None:
        level = search.fit_level(params.requested_depth)
        if isinstance(level, str):
            return KueueResult(reason=_with_exclusions(level, stats, search.resources))
        depth, chosen = level
    leaves = search.descend(depth, chosen, used_balanced)
    if leaves is None:
        return KueueResult(reason="the assignment could not be completed (Kueue's code assumptions violated)")
    result = KueueResult()
    last = len(tree.levels) - 1
    for node in sorted(leaves, key=lambda n: tree.paths[last][n]):
        leaders = search.counts.leader[last][node] if leader is not None else 0
        if leaders:
            result.leader_nodes[node] = leaders
        if search.counts.pod[last][node]:
            result.nodes[node] = search.counts.pod[last][node]
    return result


def _cleaned(request: dict[str, Amount]) -> dict[str, Amount]:
    return {name: amount for name, amount in request.items() if amount > 0 and name != "pods"}


def _with_exclusions(reason: str, stats: Exclusions, resources: dict[str, int]) -> str:
    if stats.any or resources:
        return f"{reason}. Total nodes: {stats.total}; excluded: {stats.reasons(resources)}"
    return reason
