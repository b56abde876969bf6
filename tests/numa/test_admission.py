"""Admission: the kubelet's verdict and what each NUMA node gives, pod by pod.

Expected verdicts come from the kubelet's rules, not from wmap's output:

* CPU hints: ``pkg/kubelet/cm/cpumanager/policy_static.go`` ``generateCPUTopologyHints`` (a set is
  preferred when no smaller set has enough CPUs in total); only Guaranteed, whole-cpu containers
  (``policy_static_test.go`` "GuaranteedPodWithNonIntegerCPU"-style cases get no hint);
* device hints for any QoS: ``pkg/kubelet/cm/devicemanager/topology_hints.go``;
* memory hints for Guaranteed pods, with the NUMA group rule: ``pkg/kubelet/cm/memorymanager/policy_static.go``
  ``calculateHints``;
* policies: ``policy_single_numa_node.go``, ``policy_restricted.go``, ``policy_best_effort.go``,
  ``policy_none.go``; scopes: ``scope_container.go`` (container by container, init containers first)
  and ``scope_pod.go`` (one hint for the pod);
* ``max-allowable-numa-nodes``: ``topology_manager.go`` ``NewManager`` refuses to start ("unsupported on
  machines with more than 8 NUMA Nodes", ``topology_manager_test.go``); it is no per-pod limit.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from helpers.numa import GPU, container, layout, spec
from workloadmap.numa import (
    NOT_STARTED,
    TOPOLOGY_AFFINITY_ERROR,
    ZoneState,
    admit,
    admit_pods,
    admitted_count,
    pod_numa,
)
from workloadmap.numa.rejections import explain

TRAIN = spec(container("train", "16", "64Gi", 2))  # the worked example of docs/numa.md


def _admit(node, pod_spec):
    state = ZoneState.of(node)
    pod = pod_numa(pod_spec)
    before = state.copy()
    result = admit(node, state, pod)
    return result, state, explain(node, before, pod, result) if not result.admitted else None


@pytest.mark.parametrize("policy", ["best-effort", "restricted", "single-numa-node"])
def test_the_worked_example_lands_on_one_numa_node(policy):
    result, state, _ = _admit(layout(policy), TRAIN)
    assert result.admitted
    assert [(a.container, a.numa_nodes, a.preferred) for a in result.affinities] == [("train", (0,), True)]
    assert state.free["cpu"] == {0: 16, 1: 32}
    assert state.free[GPU] == {0: 2, 1: 4}
    assert state.free["memory"][0] == Fraction(192 * 2**30)


def test_policy_none_admits_and_aligns_nothing():
    result, state, _ = _admit(layout("none"), spec(container("train", "16", "64Gi", 8)))
    assert result.admitted and result.affinities[0].numa_nodes is None
    assert state.free[GPU] == {0: 0, 1: 0}


@pytest.mark.parametrize(
    ("pod", "cpus_taken"),
    [
        (spec(container("train", "16", "64Gi", 2, requests={"cpu": "8", "memory": "64Gi"})), 0),  # Burstable
        (spec(container("train", "15500m", "64Gi", 2)), 0),  # fractional: shared pool
        (TRAIN, 16),
    ],
)
def test_only_guaranteed_whole_cpus_are_taken_from_a_numa_node(pod, cpus_taken):
    result, state, _ = _admit(layout("single-numa-node"), pod)
    assert result.admitted
    assert 64 - sum(state.free["cpu"].values()) == cpus_taken


def test_burstable_gpus_still_get_aligned():
    # The device manager hints for every QoS class: 4 GPUs of a Burstable pod land on one NUMA node.
    pod = spec(container("train", "16", "64Gi", 4, requests={"cpu": "8", "memory": "64Gi"}))
    result, state, _ = _admit(layout("single-numa-node"), pod)
    assert result.admitted and result.affinities[0].numa_nodes == (0,)
    assert state.free[GPU] == {0: 0, 1: 4}


def test_single_numa_node_rejects_gpus_split_across_numa_nodes_and_says_why():
    result, _, why = _admit(layout("single-numa-node"), spec(container("train", "16", "64Gi", 8)))
    assert (result.admitted, result.error, result.container) == (False, TOPOLOGY_AFFINITY_ERROR, "train")
    assert "needs 8 nvidia.com/gpu aligned on one NUMA node; nodes have 4 nvidia.com/gpu per NUMA node" in why.cause
    assert "split the container" in why.fix


@pytest.mark.parametrize(
    ("pod", "memory", "admitted", "cause"),
    [
        # GPUs alone: preferred on both NUMA nodes (they need both by capacity): restricted admits.
        (spec(container("train", gpus=8)), "256Gi", True, None),
        # Whole exclusive CPUs prefer one NUMA node while the GPUs need two: no preferred merge.
        (spec(container("train", "16", "64Gi", 8)), None, False, "8 nvidia.com/gpu but 16 CPUs fit on 1"),
        # CPUs that need both NUMA nodes as well: both prefer {0,1}: admitted.
        (spec(container("train", "40", "64Gi", 8)), None, True, None),
        # Shared CPUs give no hint: admitted ...
        (spec(container("train", "15500m", "64Gi", 8)), None, True, None),
        # ... unless the static memory manager aligns the Guaranteed pod's 64Gi to one NUMA node.
        (spec(container("train", "15500m", "64Gi", 8)), "256Gi", False, "8 nvidia.com/gpu but 64Gi memory fit on 1"),
    ],
)
def test_restricted_rejects_only_when_no_preferred_alignment_exists(pod, memory, admitted, cause):
    result, _, why = _admit(layout("restricted", memory=memory), pod)
    assert result.admitted is admitted
    if not admitted:
        assert f"needs 2 NUMA nodes for {cause}" in why.cause
        assert "restricted admits only an alignment every resource prefers" in why.cause


def test_best_effort_admits_what_restricted_rejects():
    result, _, _ = _admit(layout("best-effort"), spec(container("train", "16", "64Gi", 8)))
    assert result.admitted and result.affinities[0].preferred is False


def test_container_scope_aligns_each_container_pod_scope_the_whole_pod():
    pod = spec(container("a", gpus=4), container("b", gpus=4))
    result, _, _ = _admit(layout("single-numa-node", "container"), pod)
    assert [a.numa_nodes for a in result.affinities] == [(0,), (1,)]
    result, _, why = _admit(layout("single-numa-node", "pod"), pod)
    assert not result.admitted and result.container is None
    assert "the pod needs 8 nvidia.com/gpu aligned on one NUMA node" in why.cause
    assert "split the pod" in why.fix


def test_pods_admitted_one_after_another_see_what_earlier_ones_took():
    node = layout("single-numa-node")
    pod = pod_numa(spec(container("w", gpus=3)))
    results = admit_pods(node, [pod, pod, pod])
    assert [r.admitted for r in results] == [True, True, False]
    assert [r.affinities[0].numa_nodes for r in results[:2]] == [(0,), (1,)]
    # 20 exclusive CPUs per pod: resources for 3 on the node (64 CPUs), the NUMA nodes hold 1 each.
    assert admitted_count(node, pod_numa(spec(container("w", "20", "8Gi", 1))), 10) == 2


def test_an_init_container_hands_its_cpus_to_the_app_container():
    pod = spec(container("train", "16", "8Gi"), init=(container("fetch", "16", "8Gi"),))
    result, state, _ = _admit(layout("single-numa-node"), pod)
    assert result.admitted
    assert sum(state.free["cpu"].values()) == 64 - 16  # the app container reuses the init container's CPUs
    assert [a.numa_nodes for a in result.affinities] == [(0,), (0,)]


def test_a_sidecar_keeps_its_cpus():
    pod = spec(container("train", "16", "8Gi"), init=(container("proxy", "2", "1Gi", restartPolicy="Always"),))
    result, state, _ = _admit(layout("single-numa-node"), pod)
    assert result.admitted and sum(state.free["cpu"].values()) == 64 - 18


def test_memory_allocated_across_numa_nodes_groups_them():
    # calculateHints: a NUMA node already allocated as part of a group cannot serve a single-NUMA hint.
    node = layout("best-effort")
    state = ZoneState.of(node)
    big = pod_numa(spec(container("big", "4", "300Gi")))
    assert admit(node, state, big).admitted
    assert state.groups == {0: (0, 1), 1: (0, 1)}
    small = pod_numa(spec(container("small", "4", "10Gi")))
    restricted = layout("restricted")
    assert admit(restricted, state.copy(), small).admitted is False  # only the non-preferred {0,1} is left
    result = admit(node, state, small)
    assert result.admitted and result.affinities[0].preferred is False


def test_more_numa_nodes_than_allowed_stop_the_kubelet_not_the_pod():
    pod = spec(container("train", gpus=1))
    result, _, why = _admit(layout("single-numa-node", count=16), pod)
    assert (result.admitted, result.error) == (False, NOT_STARTED)
    assert "max-allowable-numa-nodes" in why.fix
    result, _, _ = _admit(layout("single-numa-node", count=16, max_numa=16), pod)
    assert result.admitted
    # No per-pod limit on how many NUMA nodes a pod spans: 60 GPUs over 15 of 16 NUMA nodes.
    result, _, _ = _admit(layout("best-effort", count=16, max_numa=16), spec(container("train", gpus=60)))
    assert result.admitted
    assert len(result.affinities[0].numa_nodes) == 15
    assert layout("none", count=16).starts  # policy none starts on any machine


def test_preferred_is_judged_against_capacity_not_what_is_free():
    # generateDeviceTopologyHints: minAffinitySize counts every device in a mask, free or not. With 3 of 4
    # GPUs free on each NUMA node, 4 GPUs fit only on {0,1}, which is not preferred (one NUMA node *has* 4).
    pod = spec(container("train", gpus=4))
    free = {0: {GPU: "3"}, 1: {GPU: "3"}}
    result, _, why = _admit(layout("restricted", free=free), pod)
    assert not result.admitted
    result, _, _ = _admit(layout("best-effort", free=free), pod)
    assert result.admitted and result.affinities[0] == result.affinities[0].__class__("train", (0, 1), False)


def test_hugepages_are_aligned_by_the_memory_manager():
    from dataclasses import replace

    from workloadmap.numa import ZoneResource

    node = layout("single-numa-node")
    page = ZoneResource("hugepages-1Gi", Fraction(4 * 2**30), Fraction(4 * 2**30), Fraction(4 * 2**30))
    node = replace(node, zones=tuple(replace(zone, resources=(*zone.resources, page)) for zone in node.zones))

    def pages(amount: str) -> dict:
        return spec({"name": "a", "resources": {"limits": {"cpu": "4", "memory": "8Gi", "hugepages-1Gi": amount}}})

    small, big = pages("2Gi"), pages("6Gi")
    assert _admit(node, small)[0].admitted
    result, _, why = _admit(node, big)
    assert not result.admitted and "needs 6Gi hugepages-1Gi aligned on one NUMA node" in why.cause
