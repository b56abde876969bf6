"""The topology manager's hint merging, case for case from the kubelet's own tests.

Each case is one of ``pkg/kubelet/cm/topologymanager/policy_test.go``
(``commonPolicyMergeTestCases``, ``bestEffortPolicy.mergeTestCases``), fed to :func:`merge` as the
mock hint providers give them; the expected hints are the ones those tests assert. The verdicts
per policy follow ``policy_best_effort.go`` (always admit), ``policy_restricted.go`` (admit a
preferred hint) and ``policy_single_numa_node.go`` (keep preferred single-NUMA hints, admit a
preferred result; ``policy_single_numa_node_test.go`` ``TestPolicySingleNumaNodeCanAdmitPodResult``).
"""

from __future__ import annotations

import pytest

from workloadmap.numa import Hint, NumaLayout, TopologyManager, TopologyManagerPolicy, Zone, mask_of, merge


def layout(policy: str, nodes: int = 2, *, closest: bool = False, costs: dict | None = None) -> NumaLayout:
    zones = tuple(Zone(i, f"node-{i}", (), tuple((costs or {}).get(i, ()))) for i in range(nodes))
    return NumaLayout(zones, TopologyManager(TopologyManagerPolicy(policy), prefer_closest_numa_nodes=closest))


def h(*zones: int, preferred: bool = True) -> Hint:
    return Hint(mask_of(zones) if zones else None, preferred)


ANY = None
# (test name in policy_test.go, providers, expected mask (zone ids or ANY = every NUMA node), preferred)
COMMON = [
    ("Two providers, 1 hint each, same mask, both preferred 1/2", [{"r1": [h(0)]}, {"r2": [h(0)]}], (0,), True),
    ("Two providers, 1 hint each, same mask, both preferred 2/2", [{"r1": [h(1)]}, {"r2": [h(1)]}], (1,), True),
    ("Two providers, 1 no hints, 1 single hint preferred 1/2", [{}, {"r": [h(0)]}], (0,), True),
    ("Two providers, 1 with 2 hints, 1 with single hint matching 2/2",
     [{"r1": [h(0), h(1)]}, {"r2": [h(1)]}], (1,), True),
    ("Two providers, both with 2 hints, matching narrower preferred hint from both",
     [{"r1": [h(0), h(1)]}, {"r2": [h(0), h(0, 1, preferred=False)]}], (0,), True),
    ("Ensure less narrow preferred hints are chosen over narrower non-preferred hints",
     [{"r1": [h(1), h(0, 1, preferred=False)]}, {"r2": [h(0), h(1), h(0, 1, preferred=False)]}], (1,), True),
    ("Multiple resources, same provider",
     [{"r1": [h(1), h(0, 1, preferred=False)], "r2": [h(0), h(1), h(0, 1, preferred=False)]}], (1,), True),
]  # fmt: skip
BEST_EFFORT = [
    ("TopologyHint not set", [], ANY, True),
    ("HintProvider returns empty non-nil map[string][]TopologyHint", [{}], ANY, True),
    ("HintProvider returns -nil map[string][]TopologyHint from provider", [{"r": None}], ANY, True),
    ("HintProvider returns empty non-nil map[string][]TopologyHint from provider", [{"r": []}], ANY, False),
    ("Single TopologyHint with Preferred as true and NUMANodeAffinity as nil", [{"r": [h()]}], ANY, True),
    ("Single TopologyHint with Preferred as false and NUMANodeAffinity as nil",
     [{"r": [h(preferred=False)]}], ANY, False),
    ("Two providers, 1 hint each, no common mask", [{"r1": [h(0)]}, {"r2": [h(1)]}], ANY, False),
    ("Two providers, 1 hint each, same mask, 1 preferred, 1 not 1/2",
     [{"r1": [h(0)]}, {"r2": [h(0, preferred=False)]}], (0,), False),
    ("Two providers, 1 hint each, 1 wider mask, both preferred 1/2", [{"r1": [h(0)]}, {"r2": [h(0, 1)]}], (0,), False),
    ("Two providers, 1 with 2 hints, 1 with single non-preferred hint matching",
     [{"r1": [h(0), h(1)]}, {"r2": [h(0, 1, preferred=False)]}], (0,), False),
    ("Two providers, 1 hint each, 1 wider mask, both preferred 2/2", [{"r1": [h(1)]}, {"r2": [h(0, 1)]}], (1,), False),
]  # fmt: skip
# "bestNonPreferredAffinityCount (n)" run on 4 NUMA nodes.
NON_PREFERRED = [
    ("bestNonPreferredAffinityCount (1)",
     [{"r1": [h(0, 1, 2, 3, preferred=False), h(0, 1, preferred=False)]}, {"r2": [h(0, 1, preferred=False)]}],
     (0, 1)),
    ("bestNonPreferredAffinityCount (2)",
     [{"r1": [h(0, 1, 2, 3, preferred=False), h(0, 1, preferred=False)]}, {"r2": [h(0, 3, preferred=False)]}],
     (0, 3)),
    ("bestNonPreferredAffinityCount (3)",
     [{"r1": [h(0, 1, 2, 3, preferred=False), h(0, 1, preferred=False)]}, {"r2": [h(1, 2, preferred=False)]}],
     (1, 2)),
]  # fmt: skip


def _ids(value) -> str:
    return value if isinstance(value, str) else ""


def _expected(expected, nodes: int) -> int:
    return mask_of(range(nodes)) if expected is ANY else mask_of(expected)


@pytest.mark.parametrize(("name", "providers", "expected", "preferred"), COMMON + BEST_EFFORT, ids=_ids)  # fmt: skip
def test_best_effort_merges_as_the_kubelet_tests_say(name, providers, expected, preferred):
    best, admit = merge(layout("best-effort"), providers)
    assert (best.mask, best.preferred, admit) == (_expected(expected, 2), preferred, True), name


@pytest.mark.parametrize(("name", "providers", "expected", "preferred"), COMMON + BEST_EFFORT, ids=_ids)  # fmt: skip
def test_restricted_merges_alike_and_admits_only_a_preferred_hint(name, providers, expected, preferred):
    best, admit = merge(layout("restricted"), providers)
    assert (best.mask, best.preferred, admit) == (_expected(expected, 2), preferred, preferred), name


@pytest.mark.parametrize(
    ("name", "providers", "expected"), NON_PREFERRED, ids=lambda v: v if isinstance(v, str) else ""
)
def test_the_best_non_preferred_hint_is_as_wide_as_the_widest_narrowest_hint(name, providers, expected):
    best, admit = merge(layout("best-effort", 4), providers)
    assert (best.mask, best.preferred, admit) == (mask_of(expected), False, True), name


@pytest.mark.parametrize(
    ("providers", "admitted", "mask"),
    [
        ([{"r1": [h(0)]}, {"r2": [h(0)]}], True, mask_of([0])),  # one NUMA node preferred by both
        ([{"r1": [h(0)]}, {"r2": [h(0, 1)]}], False, mask_of([0, 1])),  # a 2-NUMA hint is dropped: no hint for r2
        ([{"r1": [h(1), h(0, 1, preferred=False)]}, {}], True, mask_of([1])),
        ([{"r": None}], True, None),  # don't care: the any-NUMA result becomes nil, preferred
        ([{"r1": [h(0)]}, {"r2": [h(1)]}], False, mask_of([0, 1])),
    ],
)
def test_single_numa_node_keeps_only_preferred_single_numa_hints(providers, admitted, mask):
    best, admit = merge(layout("single-numa-node"), providers)
    assert admit is admitted
    assert best.mask == mask if admitted else best.preferred is False


def test_restricted_admits_a_preferred_alignment_across_two_numa_nodes():
    # Devices that need both NUMA nodes by capacity are *preferred* on both: restricted admits them,
    # single-numa-node does not (policy_restricted.go vs policy_single_numa_node.go).
    providers = [{"nvidia.com/gpu": [h(0, 1)]}]
    assert merge(layout("restricted"), providers) == (h(0, 1), True)
    assert merge(layout("single-numa-node"), providers)[1] is False


def test_policy_none_admits_without_merging():
    assert merge(layout("none"), [{"r": []}]) == (Hint(None, True), True)


def test_prefer_closest_numa_nodes_picks_the_nearest_pair_among_equally_wide_ones():
    # numa_info.go Closest: equal widths compare the average distance; here 1-2 are close, 0-1 far.
    costs = {
        0: ((0, 10), (1, 32), (2, 32)),
        1: ((0, 32), (1, 10), (2, 12)),
        2: ((0, 32), (1, 12), (2, 10)),
    }
    providers = [{"r": [h(0, 1), h(1, 2)]}]
    assert merge(layout("best-effort", 3, costs=costs), providers)[0].mask == mask_of([0, 1])  # narrowest: lowest bits
    assert merge(layout("best-effort", 3, closest=True, costs=costs), providers)[0].mask == mask_of([1, 2])
