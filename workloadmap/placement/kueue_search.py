"""Kueue's topology-aware search over a node tree: the counts per domain and the phases that read them.

The state and phases of ``TASFlavorSnapshot.findTopologyAssignment``
(``pkg/cache/scheduler/tas_flavor_snapshot.go``, kubernetes-sigs/kueue) on
:class:`~workloadmap.placement.nodes.NodeTree`:

1. per node, how many pods (and, for a PodSet group, whether the leader) fit; sums up the tree,
   with slices counted at the slice level (``fillInCounts``);
2. the level: the requested one; a *preferred* request that no single domain holds moves one
   level up at a time and, at the top, spreads over several domains (``findLevelWithFitDomains``);
3. the domain: **BestFit**, the domain with the fewest slices that still holds the request,
   ties broken by pod count (fewest first) and then by the label-value path; an unconstrained
   (or implied) request uses **LeastFreeCapacity** (``TASProfileMixed``);
4. down the tree level by level, the same choice among the children (``updateCountsToMinimum``).

:func:`~.kueue_tas.find_assignment` runs it for one PodSet; :mod:`.kueue_balanced` (balanced
placement) works on copies of its counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .kueue_model import SliceLayer
from .nodes import NodeTree
from .packing import Amount, capacity_of

__all__ = ["SearchParams", "DomainCounts", "KueueSearch"]


@dataclass
class SearchParams:
    """What one search is for: the PodSet's counts, slice layers and requested level, as depths of the tree."""

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


class DomainCounts:
    """``domainState`` per level and domain: pods, slices, leaders, and both counts with a leader."""

    def __init__(self, tree: NodeTree) -> None:
        sizes = [len(paths) for paths in tree.paths]
        self.pod = [[0] * size for size in sizes]
        self.slice = [[0] * size for size in sizes]
        self.leader = [[0] * size for size in sizes]
        self.pod_wl = [[0] * size for size in sizes]
        self.slice_wl = [[0] * size for size in sizes]


class KueueSearch:
    """One ``findTopologyAssignment`` run on a tree: its counts per domain, and the phases that read them.

    ``counts`` may be another search's copy (:mod:`.kueue_balanced` works on overlays of it).
    """

    def __init__(self, tree: NodeTree, params: SearchParams, topology: str, counts: Any = None) -> None:
        self.tree = tree
        self.params = params
        self.counts: Any = DomainCounts(tree) if counts is None else counts
        self.topology = topology
        self.resources: dict[str, int] = {}

    # -- phase 1: fillInCounts ------------------------------------------------------------------

    def fill_leaves(self, request: dict[str, Amount], leader: dict[str, Amount] | None, eligible: list[bool]) -> None:
        """``fillLeafCounts``: per eligible node, the pods (and leaders) of the request it holds; slices at the leaf."""
        tree, s = self.tree, self.counts
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
        if last == self.params.slice_depth:
            size = self.params.slice_size
            s.slice[last] = [pods // size for pods in s.pod[last]]
            s.slice_wl[last] = [pods // size for pods in s.pod_wl[last]]

    def roll_up(self, depth_from: int | None = None) -> None:
        """``fillInCountsHelper`` for every level above the leaves, bottom up."""
        tree, p = self.tree, self.params
        leader_required = p.leader_count > 0
        start = len(tree.levels) - 2 if depth_from is None else depth_from
        if not leader_required and not p.size_at:
            self._roll_sums(start)
            return
        for depth in range(start, -1, -1):
            inner = p.size_at.get(depth + 1)
            for domain, kids in enumerate(tree.children[depth]):
                self.roll_domain(depth, domain, kids, inner, leader_required)

    def _roll_sums(self, start: int) -> None:
        """The roll-up without a leader or inner slice layers: plain sums (with-leader counts equal the others)."""
        tree, s, p = self.tree, self.counts, self.params
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

    def roll_domain(self, depth: int, domain: int, kids: list[int], inner: int | None, leader_required: bool) -> None:
        """``fillInCountsHelper`` for one domain from its children (``inner``: an inner slice layer's size)."""
        s, p = self.counts, self.params
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
        """Domains in Kueue's order when a leader must fit: leaders first, then by slices and pods with it."""
        s, paths = self.counts, self.tree.paths[depth]
        sign = 1 if self.params.least_free else -1
        return sorted(
            domains,
            key=lambda d: (-s.leader[depth][d], sign * s.slice_wl[depth][d], s.pod_wl[depth][d], paths[d]),
        )

    def sorted_plain(self, depth: int, domains: list[int]) -> list[int]:
        """Domains in Kueue's order: most slices first (least for LeastFreeCapacity), then pods, then path."""
        s, paths = self.counts, self.tree.paths[depth]
        sign = 1 if self.params.least_free else -1
        return sorted(domains, key=lambda d: (sign * s.slice[depth][d], s.pod[depth][d], paths[d]))

    def best_fit(self, depth: int, domains: list[int], needed: int, leaders: int, counts: list[int]) -> int:
        """``findBestFitDomainBy``: the first domain with the smallest count >= ``needed``, else the first."""
        best, best_count = domains[0], 1 << 62
        for domain in domains:
            if self.counts.leader[depth][domain] < leaders:
                continue
            have = counts[domain]
            if needed <= have < best_count:
                best, best_count = domain, have
        return best

    def best_pods(self, depth: int, domains: list[int], needed: int, leaders: int) -> int:
        """:meth:`best_fit` by pod counts (with the leader's when one is needed)."""
        counts = self.counts.pod_wl[depth] if leaders > 0 else self.counts.pod[depth]
        return self.best_fit(depth, domains, needed, leaders, counts)

    def best_slices(self, depth: int, domains: list[int], needed: int, leaders: int) -> int:
        """:meth:`best_fit` by slice counts (with the leader's when one is needed)."""
        counts = self.counts.slice_wl[depth] if leaders > 0 else self.counts.slice[depth]
        return self.best_fit(depth, domains, needed, leaders, counts)

    # -- phase 2a: findLevelWithFitDomains ------------------------------------------------------

    def fit_level(self, depth: int) -> tuple[int, list[int]] | str:
        """The level and the domains there that take the request, or Kueue's reason."""
        s, p = self.counts, self.params
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
        s, p = self.counts, self.params
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
        if len(self.params.layers) > 1:
            return self.not_fit_layers(depth)
        unit = "pod" if self.params.slice_size == 1 else "slice"
        if fitting <= 0:
            return f"topology {_q(self.topology)} doesn't allow to fit any of {wanted} {unit}(s)"
        return f"topology {_q(self.topology)} allows to fit only {fitting} out of {wanted} {unit}(s)"

    def not_fit_layers(self, depth: int) -> str:
        """Per slice layer, how many slices the best domain of the searched level holds."""
        s, tree = self.counts, self.tree
        text = f"topology {_q(self.topology)} doesn't allow to fit"
        domains = range(len(tree.paths[depth]))
        if not domains:
            return text
        best = min(domains, key=lambda d: (-s.slice[depth][d], tree.paths[depth][d]))
        for layer in self.params.layers:
            if layer.level not in tree.levels:
                continue
            target = tree.levels.index(layer.level)
            below = [best]
            for level in range(depth, target):
                below = [child for domain in below for child in tree.children[level][domain]]
            fitting = sum(s.pod[target][domain] // layer.size for domain in below)
            text += f"; {fitting}/{self.params.count // layer.size} slice(s) fit on level {layer.level}"
        return text

    # -- phase 2b: updateCountsToMinimumGeneric -------------------------------------------------

    def prioritize_leader(
        self, depth: int, domains: list[int], count: int, leaders: int, size: int, slices: bool
    ) -> list[int]:
        """``prioritizeLeaderDomain``: move the first leader domain whose penalty fits the slack to the front."""
        s = self.counts
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
        s, p = self.counts, self.params
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
        p, s, tree = self.params, self.counts, self.tree
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
