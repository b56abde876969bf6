"""The topology manager's policies: merging the providers' hints into one, and admit or reject.

Following ``pkg/kubelet/cm/topologymanager/policy.go`` and the policy files beside it:

* ``filterProvidersHints``: a provider without hints, or a resource with ``None``, counts as one
  preferred any-NUMA hint; a resource with an empty list as one non-preferred any-NUMA hint;
* every permutation (one hint per resource) is merged by AND-ing its masks; the merge is preferred
  only when every hint is preferred *and* every mask is the same (``mergePermutation``);
* ``HintMerger.compare`` keeps the best merged hint: a preferred one beats a non-preferred one;
  among preferred ones the narrowest wins (the closest, by average NUMA distance, with
  ``prefer-closest-numa-nodes`` on every policy but ``single-numa-node``); among non-preferred
  ones the hint whose width is nearest to, and not above, the widest "narrowest hint" of any
  provider; an empty merged mask never wins; with none, the any-NUMA mask, not preferred.

Policies: ``none`` merges nothing and admits; ``best-effort`` admits whatever the best hint is;
``restricted`` admits only a preferred best hint (which may span several NUMA nodes: a request
that needs two NUMA nodes by capacity is preferred on two); ``single-numa-node`` first keeps only
preferred single-NUMA hints (and preferred any-NUMA ones), then admits only a preferred result.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

from .hints import Hint, ProviderHints, bits, narrower
from .layout import NumaLayout, TopologyManagerPolicy

__all__ = ["filter_provider_hints", "merge_hints", "merge", "PolicyResult"]

PolicyResult = tuple[Hint, bool]
"""The best hint and whether the policy admits it."""


def filter_provider_hints(providers: Sequence[ProviderHints]) -> list[list[Hint]]:
    """``filterProvidersHints``: one list of hints per resource of every provider."""
    found: list[list[Hint]] = []
    for hints in providers:
        if not hints:
            found.append([Hint(None, True)])
            continue
        for resource_hints in hints.values():
            if resource_hints is None:
                found.append([Hint(None, True)])
            elif not resource_hints:
                found.append([Hint(None, False)])
            else:
                found.append(list(resource_hints))
    return found


def _merge_permutation(default: int, permutation: Sequence[Hint]) -> Hint:
    preferred = True
    merged = default
    first: int | None = None
    for hint in permutation:
        if hint.mask is not None:
            merged &= hint.mask
            if first is None:
                first = hint.mask
            elif hint.mask != first:
                preferred = False
        if not hint.preferred:
            preferred = False
    return Hint(merged, preferred)


def _average_distance(layout: NumaLayout, mask: int) -> float:
    zones = bits(mask)
    if not zones:
        return 0.0
    total = sum(layout.distance(first, second) for first in zones for second in zones)
    return total / (len(zones) * len(zones))


class _Merger:
    """``HintMerger``."""

    def __init__(self, layout: NumaLayout, hints: list[list[Hint]], closest: bool) -> None:
        self.layout = layout
        self.hints = hints
        self.closest = closest
        counts = [min((h.mask.bit_count() for h in items if h.mask is not None), default=0) for items in hints]
        self.best_non_preferred = max(counts, default=0)

    def better_mask(self, current: Hint, candidate: Hint) -> Hint:
        assert current.mask is not None and candidate.mask is not None
        if candidate.mask == current.mask:
            return current
        first, second = current.mask, candidate.mask
        if self.closest and first.bit_count() == second.bit_count():  # numaInfo.Closest
            one, other = _average_distance(self.layout, first), _average_distance(self.layout, second)
            best = (first if first < second else second) if one == other else (first if one < other else second)
        else:  # numaInfo.Narrowest
            best = first if narrower(first, second) else second
        return current if best == current.mask else candidate

    def compare(self, current: Hint | None, candidate: Hint) -> Hint | None:
        assert candidate.mask is not None
        if candidate.mask == 0:
            return current
        if current is None:
            return candidate
        if current.preferred != candidate.preferred:
            return current if current.preferred else candidate
        if current.preferred:
            return self.better_mask(current, candidate)
        assert current.mask is not None
        have, new, target = current.mask.bit_count(), candidate.mask.bit_count(), self.best_non_preferred
        if have > target:
            return self.better_mask(current, candidate)
        if have == target:
            return current if new != target else self.better_mask(current, candidate)
        if new > target:
            return current
        if new == target or new > have:
            return candidate
        if new < have:
            return current
        return self.better_mask(current, candidate)

    def merge(self, default: int) -> Hint:
        best: Hint | None = None
        for permutation in product(*self.hints):
            best = self.compare(best, _merge_permutation(default, permutation))
        return best if best is not None else Hint(default, False)


def merge_hints(layout: NumaLayout, hints: list[list[Hint]], policy: TopologyManagerPolicy) -> Hint:
    """The best hint of the filtered hints (``HintMerger.Merge``)."""
    closest = layout.manager.prefer_closest_numa_nodes and policy is not TopologyManagerPolicy.SINGLE_NUMA_NODE
    default = 0
    for zone in layout.ids:
        default |= 1 << zone
    return _Merger(layout, hints, closest).merge(default)


def merge(layout: NumaLayout, providers: Sequence[ProviderHints]) -> PolicyResult:
    """The node's policy applied to the providers' hints: the best hint and whether it admits."""
    policy = layout.manager.policy
    if policy is TopologyManagerPolicy.NONE:
        return Hint(None, True), True
    filtered = filter_provider_hints(providers)
    if policy is TopologyManagerPolicy.SINGLE_NUMA_NODE:
        filtered = [
            [hint for hint in items if hint.preferred and (hint.mask is None or hint.mask.bit_count() == 1)]
            for items in filtered
        ]
    best = merge_hints(layout, filtered, policy)
    if policy is TopologyManagerPolicy.BEST_EFFORT:
        return best, True
    if policy is TopologyManagerPolicy.SINGLE_NUMA_NODE and best.mask == sum(1 << zone for zone in layout.ids):
        best = Hint(None, best.preferred)
    return best, best.preferred
