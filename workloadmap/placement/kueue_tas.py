"""Kueue's topology-aware assignment of one PodSet, as ``TASFlavorSnapshot.findTopologyAssignment`` does it.

A port of ``pkg/cache/scheduler/tas_flavor_snapshot.go`` (kubernetes-sigs/kueue) onto
:class:`~workloadmap.placement.nodes.NodeTree`, with the feature gates at their defaults
(``TASProfileMixed`` and ``TASMultiLayerTopology`` on, ``TASBalancedPlacement`` off unless asked):

1. per node, how many pods (and, for a PodSet group, whether the leader) fit; sums up the tree,
   with slices counted at the slice level (``fillInCounts``);
2. the level: the requested one; a *preferred* request that no single domain holds moves one
   level up at a time and, at the top, spreads over several domains (``findLevelWithFitDomains``);
3. the domain: **BestFit**, the domain with the fewest slices that still holds the request,
   ties broken by pod count (fewest first) and then by the label-value path; an unconstrained
   (or implied) request uses **LeastFreeCapacity** (``TASProfileMixed``);
4. down the tree level by level, the same choice among the children (``updateCountsToMinimum``).

What is not modelled: preferred node affinity scores (``TASRespectNodeAffinityPreferred``, off by
default), ResourceFlavor node labels and tolerations, node replacement and elastic scale-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .kueue_model import KueuePodSet, KueueResult, SliceLayer
from .nodes import Exclusions, NodeTree
from .packing import Amount, capacity_of

__all__ = ["find_assignment"]


@dataclass
class _Params:
    count: int
    leader_count: int
    slice_size: int
    slice_depth: int
    requested_depth: int
    required: bool
    unconstrained: bool
    least_free: bool
    size_at: dict[int, int]
    layers: tuple[SliceLayer, ...]


class _State:
    """``domainState`` per level and domain: pods, slices, leaders, and both counts with a leader."""

    def __init__(self, tree: NodeTree) -> None:
        sizes = [len(paths) for paths in tree.paths]
        self.pod = [[0] * size for size in sizes]
        self.slice = [[0] * size for size in sizes]
        self.leader = [[0] * size for size in sizes]
        self.pod_wl = [[0] * size for size in sizes]
        self.slice_wl = [[0] * size for size in sizes]


class _Search:
    """One ``findTopologyAssignment`` run on a tree."""

    def __init__(self, tree: NodeTree, params: _Params, topology: str, state: Any = None) -> None:
        self.tree = tree
        self.p = params
        self.s: Any = _State(tree) if state is None else state
        self.topology = topology
        self.resources: dict[str, int] = {}

    # -- phase 1: fillInCounts ------------------------------------------------------------------

    def fill_leaves(self, request: dict[str, Amount], leader: dict[str, Amount] | None, eligible: list[bool]) -> None:
        tree, s = self.tree, self.s
        last = len(tree.levels) - 1
        per_type = tree.type_capacity(request)
        with_leader: dict[int, tuple[int, int]] = {}
        limiting: dict[int, str] = {}
        for node, ok in enumerate(eligible):
            if not ok:
                continue
            type_id = tree.node_type[node]
            pods = per_type[type_id]
            s.pod[last][node] = pods
            if pods == 0:
                if type_id not in limiting:
                    limiting[type_id] = _limiting(tree.types[type_id], request)
                name = limiting[type_id]
                self.resources[name] = self.resources.get(name, 0) + 1
            if leader is None:
                s.pod_wl[last][node] = pods
                continue
            if type_id not in with_leader:
                with_leader[type_id] = _leader_counts(tree.types[type_id], request, leader, pods)
            s.leader[last][node], s.pod_wl[last][node] = with_leader[type_id]
        if last == self.p.slice_depth:
            size = self.p.slice_size
            s.slice[last] = [pods // size for pods in s.pod[last]]
            s.slice_wl[last] = [pods // size for pods in s.pod_wl[last]]

    def roll_up(self, depth_from: int | None = None) -> None:
        """``fillInCountsHelper`` for every level above the leaves, bottom up."""
        tree, p = self.tree, self.p
        leader_required = p.leader_count > 0
        start = len(tree.levels) - 2 if depth_from is None else depth_from
        if not leader_required and not p.size_at:
            self._roll_sums(start)
            return
        for depth in range(start, -1, -1):
            inner = p.size_at.get(depth + 1)
            for domain, kids in enumerate(tree.children[depth]):
                self._roll_domain(depth, domain, kids, inner, leader_required)

    def _roll_sums(self, start: int) -> None:
        """The roll-up without a leader or inner slice layers: plain sums (with-leader counts equal the others)."""
        tree, s, p = self.tree, self.s, self.p
        for depth in range(start, -1, -1):
            size = len(tree.paths[depth])
            pods, slices = [0] * size, [0] * size
            below_pods, below_slices = s.pod[depth + 1], s.slice[depth + 1]
            for child, parent in enumerate(tree.parents[depth + 1]):
                pods[parent] += below_pods[child]
                slices[parent] += below_slices[child]
            if depth == p.slice_depth:
                slices = [count // p.slice_size for count in pods]
            s.pod[depth], s.slice[depth] = pods, slices
            s.pod_wl[depth], s.slice_wl[depth] = list(pods), list(slices)

    def _roll_domain(self, depth: int, domain: int, kids: list[int], inner: int | None, leader_required: bool) -> None:
        s, p = self.s, self.p
        below = depth + 1
        pods = slices = leaders = 0
        contributor = False
        pod_diff = slice_diff = 1 << 62
        for child in kids:
            child_pods, child_pods_wl = s.pod[below][child], s.pod_wl[below][child]
            if inner:
                child_pods, child_pods_wl = child_pods // inner * inner, child_pods_wl // inner * inner
            pods += child_pods
            slices += s.slice[below][child]
            if not leader_required or s.leader[below][child] > 0:
                contributor = True
                pod_diff = min(pod_diff, child_pods - child_pods_wl)
                slice_diff = min(slice_diff, s.slice[below][child] - s.slice_wl[below][child])
            leaders = max(leaders, s.leader[below][child])
        s.pod[depth][domain] = pods
        slices_wl = 0
        if contributor:
            s.pod_wl[depth][domain] = pods - pod_diff
            slices_wl = slices - slice_diff
        else:
            s.pod_wl[depth][domain] = 0
        s.leader[depth][domain] = leaders
        if depth == p.slice_depth:
            slices = pods // p.slice_size
            slices_wl = s.pod_wl[depth][domain] // p.slice_size
        s.slice[depth][domain] = slices
        s.slice_wl[depth][domain] = slices_wl

    # -- ordering and best fit ------------------------------------------------------------------

    def sorted_with_leader(self, depth: int, domains: list[int]) -> list[int]:
        s, paths = self.s, self.tree.paths[depth]
        sign = 1 if self.p.least_free else -1
        return sorted(
            domains,
            key=lambda d: (-s.leader[depth][d], sign * s.slice_wl[depth][d], s.pod_wl[depth][d], paths[d]),
        )

    def sorted_plain(self, depth: int, domains: list[int]) -> list[int]:
        s, paths = self.s, self.tree.paths[depth]
        sign = 1 if self.p.least_free else -1
        return sorted(domains, key=lambda d: (sign * s.slice[depth][d], s.pod[depth][d], paths[d]))

    def best_fit(self, depth: int, domains: list[int], needed: int, leaders: int, counts: list[int]) -> int:
        """``findBestFitDomainBy``: the first domain with the smallest count >= ``needed``, else the first."""
        best, best_count = domains[0], 1 << 62
        for domain in domains:
            if self.s.leader[depth][domain] < leaders:
                continue
            have = counts[domain]
            if needed <= have < best_count:
                best, best_count = domain, have
        return best

    def best_pods(self, depth: int, domains: list[int], needed: int, leaders: int) -> int:
        counts = self.s.pod_wl[depth] if leaders > 0 else self.s.pod[depth]
        return self.best_fit(depth, domains, needed, leaders, counts)

    def best_slices(self, depth: int, domains: list[int], needed: int, leaders: int) -> int:
        counts = self.s.slice_wl[depth] if leaders > 0 else self.s.slice[depth]
        return self.best_fit(depth, domains, needed, leaders, counts)

    # -- phase 2a: findLevelWithFitDomains ------------------------------------------------------

    def fit_level(self, depth: int) -> tuple[int, list[int]] | str:
        """The level and the domains there that take the request, or Kueue's reason."""
        s, p = self.s, self.p
        domains = list(range(len(self.tree.paths[depth])))
        if not domains:
            return f"no topology domains at level: {self.tree.levels[depth]}"
        ordered = self.sorted_with_leader(depth, domains)
        top = ordered[0]
        wanted = p.count // p.slice_size
        if not p.least_free and s.slice_wl[depth][top] >= wanted and s.leader[depth][top] >= p.leader_count:
            top = self.best_slices(depth, ordered, wanted, p.leader_count)
        if p.least_free:
            for domain in ordered:
                capacity = s.slice[depth][domain]
                if p.leader_count > 0:
                    if s.leader[depth][domain] < p.leader_count:
                        continue
                    capacity = s.slice_wl[depth][domain]
                if capacity >= wanted:
                    return depth, [domain]
            if p.required:
                return self.not_fit(s.pod[depth][ordered[-1]], wanted, depth)
        if s.slice_wl[depth][top] < wanted or s.leader[depth][top] < p.leader_count:
            if p.required:
                return self.not_fit(s.slice[depth][top], wanted, depth)
            if depth > 0 and not p.unconstrained:
                return self.fit_level(depth - 1)
            return self.spread(depth, ordered, wanted)
        return depth, [top]

    def spread(self, depth: int, ordered: list[int], wanted: int) -> tuple[int, list[int]] | str:
        """Several domains of the top level (or of an unconstrained level): leaders first, then workers."""
        s, p = self.s, self.p
        results: list[int] = []
        slices_left, leaders_left = wanted, p.leader_count
        ordered = self.prioritize_leader(depth, ordered, p.count, p.leader_count, p.slice_size, True)
        index = 0
        while leaders_left > 0 and index < len(ordered) and s.leader[depth][ordered[index]] > 0:
            domain = ordered[index]
            if not p.least_free and s.slice_wl[depth][domain] >= slices_left:
                domain = self.best_slices(depth, ordered[index:], slices_left, leaders_left)
            results.append(domain)
            leaders_left -= s.leader[depth][domain]
            slices_left -= s.slice_wl[depth][domain]
            index += 1
        if leaders_left > 0:
            return self.not_fit(p.leader_count - leaders_left, wanted, depth)
        rest = self.sorted_plain(depth, ordered[index:])
        index = 0
        while slices_left > 0 and index < len(rest):
            domain = rest[index]
            if not p.least_free and s.slice[depth][domain] >= slices_left:
                domain = self.best_slices(depth, rest[index:], slices_left, 0)
            results.append(domain)
            slices_left -= s.slice[depth][domain]
            index += 1
        if slices_left > 0:
            return self.not_fit(wanted - slices_left, wanted, depth)
        return depth, results

    def not_fit(self, fitting: int, wanted: int, depth: int) -> str:
        """Kueue's ``notFitMessage`` or ``multiLayerNotFitMessage`` (exclusions are appended by the caller)."""
        if len(self.p.layers) > 1:
            return self.not_fit_layers(depth)
        unit = "pod" if self.p.slice_size == 1 else "slice"
        if fitting <= 0:
            return f"topology {_q(self.topology)} doesn't allow to fit any of {wanted} {unit}(s)"
        return f"topology {_q(self.topology)} allows to fit only {fitting} out of {wanted} {unit}(s)"

    def not_fit_layers(self, depth: int) -> str:
        """Per slice layer, how many slices the best domain of the searched level holds."""
        s, tree = self.s, self.tree
        text = f"topology {_q(self.topology)} doesn't allow to fit"
        domains = range(len(tree.paths[depth]))
        if not domains:
            return text
        best = min(domains, key=lambda d: (-s.slice[depth][d], tree.paths[depth][d]))
        for layer in self.p.layers:
            if layer.level not in tree.levels:
                continue
            target = tree.levels.index(layer.level)
            below = [best]
            for level in range(depth, target):
                below = [child for domain in below for child in tree.children[level][domain]]
            fitting = sum(s.pod[target][domain] // layer.size for domain in below)
            text += f"; {fitting}/{self.p.count // layer.size} slice(s) fit on level {layer.level}"
        return text

    # -- phase 2b: updateCountsToMinimumGeneric -------------------------------------------------

    def prioritize_leader(
        self, depth: int, domains: list[int], count: int, leaders: int, size: int, slices: bool
    ) -> list[int]:
        """``prioritizeLeaderDomain``: move the first leader domain whose penalty fits the slack to the front."""
        s = self.s
        if leaders == 0 or len(domains) < 2:
            return domains
        needed = count // size if slices else count
        counts = s.slice[depth] if slices else s.pod[depth]
        counts_wl = s.slice_wl[depth] if slices else s.pod_wl[depth]
        available = sum(counts[d] for d in domains)
        for position, domain in enumerate(domains):
            if s.leader[depth][domain] < leaders:
                continue
            if available - (counts[domain] - counts_wl[domain]) < needed:
                continue
            if position == 0:
                return domains
            return [domain, *domains[:position], *domains[position + 1 :]]
        return domains

    def to_minimum(
        self, depth: int, domains: list[int], count: int, leaders: int, size: int, slices: bool
    ) -> list[int] | None:
        """Take just enough of ``domains`` (in order, best fit for the last one) for ``count`` pods."""
        s, p = self.s, self.p
        domains = self.prioritize_leader(depth, domains, count, leaders, size, slices)
        primary = s.slice[depth] if slices else s.pod[depth]
        primary_wl = s.slice_wl[depth] if slices else s.pod_wl[depth]
        unit = size if slices else 1
        remaining = count // size if slices else count
        result: list[int] = []
        for position, domain in enumerate(domains):
            if leaders > 0:
                if not p.least_free and primary_wl[domain] >= remaining and s.leader[depth][domain] >= leaders:
                    pick = self.best_slices if slices else self.best_pods
                    domain = pick(depth, domains[position:], remaining, leaders)
                result.append(domain)
                if primary_wl[domain] >= remaining and s.leader[depth][domain] >= leaders:
                    primary[domain] = remaining
                    s.leader[depth][domain] = leaders
                    s.pod[depth][domain] = remaining * unit
                    return result
                took = min(primary_wl[domain], remaining)
                s.leader[depth][domain] = min(s.leader[depth][domain], leaders)
                primary_wl[domain] = primary[domain] = took
                s.pod[depth][domain] = took * unit
                leaders -= s.leader[depth][domain]
                remaining -= took
                continue
            if not p.least_free and primary[domain] >= remaining:
                pick = self.best_slices if slices else self.best_pods
                domain = pick(depth, domains[position:], remaining, 0)
            s.leader[depth][domain] = 0
            result.append(domain)
            if primary[domain] >= remaining:
                primary[domain] = remaining
                s.pod[depth][domain] = remaining * unit
                return result
            s.pod[depth][domain] = primary[domain] * unit
            remaining -= primary[domain]
        return None

    def descend(self, depth: int, chosen: list[int], balanced: bool) -> list[int] | None:
        """From the chosen domains down to the nodes, level by level."""
        p, s, tree = self.p, self.s, self.tree
        last = len(tree.levels) - 1
        current = self.to_minimum(depth, chosen, p.count, p.leader_count, p.slice_size, True)
        while current is not None and depth < min(last, p.slice_depth) and not balanced:
            lower = [child for domain in current for child in tree.children[depth][domain]]
            current = self.to_minimum(
                depth + 1, self.sorted_plain(depth + 1, lower), p.count, p.leader_count, p.slice_size, True
            )
            depth += 1
        while current is not None and depth < last:
            size = p.slice_size if depth < p.slice_depth else p.size_at.get(depth + 1, 1)
            found: list[int] = []
            for domain in current:
                lower = self.sorted_plain(depth + 1, tree.children[depth][domain])
                if size > 1:
                    for child in lower:
                        s.slice[depth + 1][child] = s.pod[depth + 1][child] // size
                        s.slice_wl[depth + 1][child] = s.pod_wl[depth + 1][child] // size
                picked = self.to_minimum(
                    depth + 1, lower, s.pod[depth][domain], s.leader[depth][domain], size, size > 1
                )
                if picked is None:
                    return None
                found.extend(picked)
            current = found
            depth += 1
        return current


def _q(text: str) -> str:
    """Go's ``%q`` for the names Kueue quotes in its messages."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _limiting(free: dict[str, Amount], request: dict[str, Amount]) -> str:
    """The resource that keeps a pod off a node, ``pods`` included; the first by name on a tie (Kueue)."""
    wanted = {**request, "pods": 1} if "pods" in free else request
    short = [name for name, amount in wanted.items() if free.get(name, 0) < amount]
    return min(short) if short else "pods"


def _leader_counts(
    free: dict[str, Amount], request: dict[str, Amount], leader: dict[str, Amount], pods: int
) -> tuple[int, int]:
    """(leaders, worker pods with the leader) on a node of this free vector (``fillLeafCounts``)."""
    if capacity_of(free, leader) < 1:
        return 0, pods
    left = dict(free)
    for name, amount in leader.items():
        left[name] = left.get(name, 0) - amount
    if "pods" in left:
        left["pods"] -= 1
    return 1, capacity_of(left, request)


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


def _params(tree: NodeTree, workers: KueuePodSet, leader: KueuePodSet | None) -> _Params | str:
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
    return _Params(
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
    search = _Search(tree, params, topology)
    eligible, stats = tree.eligible(workers.scheduling)
    search.fill_leaves(_cleaned(workers.request), _cleaned(leader.request) if leader else None, eligible)
    search.roll_up()
    chosen: list[int] | None = None
    depth = params.requested_depth
    used_balanced = False
    if balanced and not params.required and not params.unconstrained:
        from .kueue_balanced import balanced_domains  # an alpha feature, loaded when asked for

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
        leaders = search.s.leader[last][node] if leader is not None else 0
        if leaders:
            result.leader_nodes[node] = leaders
        if search.s.pod[last][node]:
            result.nodes[node] = search.s.pod[last][node]
    return result


def _cleaned(request: dict[str, Amount]) -> dict[str, Amount]:
    return {name: amount for name, amount in request.items() if amount > 0 and name != "pods"}


def _with_exclusions(reason: str, stats: Exclusions, resources: dict[str, int]) -> str:
    if stats.any or resources:
        return f"{reason}. Total nodes: {stats.total}; excluded: {stats.reasons(resources)}"
    return reason
