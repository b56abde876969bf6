"""Kueue's balanced placement (feature gate ``TASBalancedPlacement``, alpha since v0.15, off by default).

A port of ``pkg/cache/scheduler/tas_balanced_placement.go`` (kubernetes-sigs/kueue). For a
*preferred* request it looks one level above the requested one, and in each domain there asks
how evenly the slices could be spread over the fewest domains of the requested level: the
*threshold* is the largest minimum number of slices every chosen domain gets. The domain set
with the highest threshold wins (ties: fewer domains); domains below the threshold are pruned,
a dynamic program picks the fewest, tightest domains that still hold the request, and each gets
the threshold plus a share of the rest. When no set reaches a threshold above zero, or the
spread cannot be completed, Kueue falls back to BestFit.

Candidate domain sets are worked on as copies (Kueue's ``cloneDomains``): here a copy is an
overlay that records writes and reads through to the state it was made from.
"""

from __future__ import annotations

import math
from typing import Any

from .kueue_search import KueueSearch

__all__ = ["balanced_domains"]


class _LevelOverlay:
    __slots__ = ("base", "own")

    def __init__(self, base: Any) -> None:
        self.base = base
        self.own: dict[int, int] = {}

    def __getitem__(self, index: int) -> int:
        own = self.own
        return own[index] if index in own else self.base[index]

    def __setitem__(self, index: int, value: int) -> None:
        self.own[index] = value


class _Overlay:
    """A copy of a search state that shares what it does not change."""

    def __init__(self, base: Any) -> None:
        self.pod = [_LevelOverlay(level) for level in base.pod]
        self.slice = [_LevelOverlay(level) for level in base.slice]
        self.leader = [_LevelOverlay(level) for level in base.leader]
        self.pod_wl = [_LevelOverlay(level) for level in base.pod_wl]
        self.slice_wl = [_LevelOverlay(level) for level in base.slice_wl]


def _fork(search: KueueSearch) -> KueueSearch:
    copy = KueueSearch(search.tree, search.params, search.topology, _Overlay(search.counts))
    copy.resources = search.resources
    return copy


def _greedy(
    search: KueueSearch, depth: int, domains: list[int], slices: int, leaders: int
) -> tuple[bool, int, int, int]:
    """``evaluateGreedyAssignment``: (fits, domains used, last domain with leader, last domain), -1 for none."""
    s = search.counts
    used = 0
    last_leader = last = -1
    slices_left, leaders_left = slices, leaders
    index = 0
    if leaders > 0:
        ordered = search.sorted_with_leader(depth, domains)
        while leaders_left > 0 and index < len(ordered) and s.leader[depth][ordered[index]] > 0:
            used += 1
            last_leader = ordered[index]
            leaders_left -= s.leader[depth][last_leader]
            slices_left -= s.slice_wl[depth][last_leader]
            index += 1
        rest = search.sorted_plain(depth, ordered[index:])
    else:
        rest = search.sorted_plain(depth, domains)
    if leaders_left > 0:
        return False, 0, -1, -1
    index = 0
    while slices_left > 0 and index < len(rest) and s.slice[depth][rest[index]] > 0:
        used += 1
        last = rest[index]
        slices_left -= s.slice[depth][last]
        index += 1
    if slices_left > 0:
        return False, 0, -1, -1
    return True, used, last_leader, last


def _threshold(search: KueueSearch, depth: int, slices: int, used: int, last_leader: int, last: int) -> int:
    s = search.counts
    value = slices // used
    if last_leader >= 0:
        value = min(value, s.slice_wl[depth][last_leader])
    if last >= 0:
        value = min(value, s.slice[depth][last])
    return value


def _subtree(search: KueueSearch, depth: int, domain: int) -> list[tuple[int, int]]:
    """Every (depth, domain) of the subtree under (and including) ``domain``."""
    found = [(depth, domain)]
    frontier = [domain]
    children = search.tree.children
    for level in range(depth, len(search.tree.levels) - 1):
        frontier = [child for parent in frontier for child in children[level][parent]]
        found.extend((level + 1, child) for child in frontier)
    return found


def _clear(search: KueueSearch, depth: int, domain: int, *, leader_only: bool) -> None:
    s = search.counts
    for level, member in _subtree(search, depth, domain):
        s.pod_wl[level][member] = 0
        s.slice_wl[level][member] = 0
        s.leader[level][member] = 0
        if not leader_only:
            s.pod[level][member] = 0
            s.slice[level][member] = 0


def _recount(search: KueueSearch, depth: int, domain: int, leader_required: bool) -> None:
    """``fillInCountsHelper`` on one subtree, without the inner slice-layer rounding (as Kueue's pruning)."""
    tree, s, p = search.tree, search.counts, search.params
    last = len(tree.levels) - 1
    members = _subtree(search, depth, domain)
    for level, member in reversed(members):
        if level == last:
            if level == p.slice_depth:
                s.slice[level][member] = s.pod[level][member] // p.slice_size
                s.slice_wl[level][member] = s.pod_wl[level][member] // p.slice_size
            continue
        search.roll_domain(level, member, tree.children[level][member], None, leader_required)


def _prune_one(search: KueueSearch, depth: int, domain: int, threshold: int, leader_required: bool) -> None:
    s = search.counts
    if s.slice[depth][domain] < threshold:
        _clear(search, depth, domain, leader_only=False)
    elif leader_required and s.leader[depth][domain] > 0 and s.slice_wl[depth][domain] < threshold:
        _clear(search, depth, domain, leader_only=True)


def _prune(search: KueueSearch, depth: int, domains: list[int], threshold: int) -> None:
    """``pruneDomainsBelowThreshold``."""
    leader_required = search.params.leader_count > 0
    last = len(search.tree.levels) - 1
    if depth < last:
        for domain in domains:
            for child in search.tree.children[depth][domain]:
                _prune_one(search, depth + 1, child, threshold, leader_required)
    for domain in domains:
        _recount(search, depth, domain, leader_required)
        _prune_one(search, depth, domain, threshold, leader_required)


def _lower(search: KueueSearch, depth: int, domains: list[int]) -> tuple[int, list[int]]:
    if depth < search.params.slice_depth:
        return depth + 1, [child for domain in domains for child in search.tree.children[depth][domain]]
    return depth, domains


def _candidates(search: KueueSearch) -> list[list[int]]:
    tree, depth = search.tree, search.params.requested_depth
    if depth == 0:
        return [list(range(len(tree.paths[0])))]
    parents = sorted(range(len(tree.paths[depth - 1])), key=lambda d: tree.paths[depth - 1][d])
    return [list(tree.children[depth - 1][parent]) for parent in parents]


def _best_set(search: KueueSearch) -> tuple[KueueSearch, list[int], int] | None:
    """``findBestDomainsForBalancedPlacement``: the sibling domains and threshold to balance over."""
    p = search.params
    depth = p.requested_depth
    slices = p.count // p.slice_size
    best: tuple[KueueSearch, list[int], int] | None = None
    best_count = 0
    for siblings in _candidates(search):
        trial = _fork(search)
        lower_depth, lower = _lower(trial, depth, siblings)
        fits, used, last_leader, last = _greedy(trial, lower_depth, lower, slices, p.leader_count)
        if not fits:
            continue
        threshold = _threshold(trial, lower_depth, slices, used, last_leader, last)
        reserved = threshold
        if p.leader_count > 0 and last >= 0:
            reserved = min(threshold, trial.counts.slice_wl[lower_depth][last])
        if threshold < (best[2] if best else 0):
            continue
        _prune(trial, depth, siblings, threshold)
        fits, count, _, _ = _greedy(trial, depth, siblings, slices, p.leader_count)
        if not fits and reserved < threshold:
            if reserved <= 0 or reserved < (best[2] if best else 0):
                continue
            threshold = reserved
            trial = _fork(search)
            _prune(trial, depth, siblings, threshold)
            fits, count, _, _ = _greedy(trial, depth, siblings, slices, p.leader_count)
        if not fits:
            continue
        if best is None or threshold > best[2] or (threshold == best[2] and count < best_count):
            best, best_count = (trial, siblings, threshold), count
    return best


def _entropy(search: KueueSearch, depth: int, domain: int) -> float:
    counts = [search.counts.pod[depth + 1][child] for child in search.tree.children[depth][domain]]
    total = sum(counts)
    if total == 0:
        return 0.0
    return float(-sum(count / total * math.log2(count / total) for count in counts if count > 0))


def _optimal_set(
    search: KueueSearch, depth: int, domains: list[int], slices: int, by_entropy: bool
) -> list[int] | None:
    """``selectOptimalDomainSetToFit``: the fewest domains (as greedy needs), leaving the least spare capacity."""
    s, p = search.counts, search.params
    fits, optimal, _, _ = _greedy(search, depth, domains, slices, p.leader_count)
    if not fits:
        return None
    paths = search.tree.paths[depth]
    if by_entropy and depth < len(search.tree.levels) - 1:
        ordered = sorted(
            domains,
            key=lambda d: (-s.leader[depth][d], -s.slice_wl[depth][d], -_entropy(search, depth, d), paths[d]),
        )
    else:
        ordered = sorted(domains, key=lambda d: paths[d])
    table: list[dict[int, dict[int, list[int]]]] = [{} for _ in range(optimal + 1)]
    table[0][p.leader_count] = {slices * p.slice_size: []}
    for domain in ordered:
        for used in range(optimal, 0, -1):
            for leaders in sorted(table[used - 1]):
                for pods in sorted(table[used - 1][leaders]):
                    if leaders <= 0 and pods <= 0:
                        continue
                    chosen = [*table[used - 1][leaders][pods], domain]
                    if leaders > 0 and s.leader[depth][domain] > 0:
                        after = table[used].setdefault(leaders - s.leader[depth][domain], {})
                        after.setdefault(pods - s.pod_wl[depth][domain], chosen)
                    if s.slice[depth][domain] > 0:
                        table[used].setdefault(leaders, {}).setdefault(pods - s.pod[depth][domain], chosen)
    placements = table[optimal].get(0, {})
    left = [pods for pods in placements if pods <= 0]
    return placements[max(left)] if left else None


def _spread(search: KueueSearch, depth: int, domains: list[int], slices: int, threshold: int) -> list[int] | None:
    """``placeSlicesOnDomainsBalanced``: the threshold on every chosen domain, the rest in order."""
    s, p = search.counts, search.params
    chosen = _optimal_set(search, depth, domains, slices, False)
    if chosen is None or slices < len(chosen) * threshold:
        return None
    chosen = search.sorted_with_leader(depth, chosen)
    extra, leaders = slices - len(chosen) * threshold, p.leader_count
    for domain in chosen:
        if leaders > 0:
            take = min(s.slice_wl[depth][domain] - threshold, extra)
            s.leader[depth][domain] = 1
            leaders -= 1
        elif extra > 0:
            take = min(s.slice[depth][domain] - threshold, extra)
            s.leader[depth][domain] = 0
        else:
            s.leader[depth][domain] = 0
            take = 0
        s.pod[depth][domain] = (threshold + take) * p.slice_size
        s.slice[depth][domain] = s.slice_wl[depth][domain] = threshold + take
        s.pod_wl[depth][domain] = s.pod[depth][domain] - s.leader[depth][domain]
        extra -= take
    if extra > 0 or leaders > 0:
        return None
    return chosen


def balanced_domains(search: KueueSearch) -> tuple[KueueSearch, int, list[int]] | None:
    """The search state, level and domains balanced placement starts from; None: fall back to BestFit."""
    found = _best_set(search)
    if found is None or found[2] <= 0:
        return None
    trial, domains, threshold = found
    p = trial.params
    slices = p.count // p.slice_size
    depth = p.requested_depth
    if depth < p.slice_depth:
        chosen = _optimal_set(trial, depth, domains, slices, True)
        if chosen is None:
            return None
        domains = [child for domain in chosen for child in trial.tree.children[depth][domain]]
        depth += 1
    spread = _spread(trial, depth, domains, slices, threshold)
    if spread is None:
        return None
    return trial, depth, spread
