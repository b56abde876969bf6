"""Assignments checked by brute force on random small clusters.

Whatever rule picks the domain and the nodes, an assignment must be a real placement: every pod
on a node that passes the pod's node filters, no node holding more than its free resources allow
(all placed pods together, including those of workloads placed before), every pod of a group
inside one domain of its required level, and each slice-level domain holding whole slices. And
for pods of one shape, Kueue's and KAI's verdicts are exact: a group with a required level fits
exactly when some domain of that level can hold all its pods (Kueue counts pods per node and
sums them, ``fillInCounts``; KAI's ``checkJobDomainFit`` does the same for one kind of pod and
its per-pod allocation then always succeeds), and with slices exactly when some domain holds
``count / size`` slices, counted per slice-level domain (``fillInCountsHelper``). The reference
answers come from trying every assignment of individual pods (``brute_force_fits``).
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from helpers.placement import BLOCK, GPU, HOST, RACK, brute_force_fits, random_request
from workloadmap.placement.kai_tas import KaiGroup, KaiTasks, allocate_group
from workloadmap.placement.kueue_model import KueuePodSet, KueueRequest, SliceLayer
from workloadmap.placement.kueue_tas import find_assignment
from workloadmap.placement.nodes import NodeTree
from workloadmap.scheduling import Taint, pod_scheduling
from workloadmap.topology import Cluster, Node

F = Fraction
LEVELS = [BLOCK, RACK, HOST]
TAINT = Taint("nvidia.com/gpu", "present", "NoSchedule")


def random_cluster(rng):
    nodes = []
    for index in range(rng.randint(2, 7)):
        free = {
            GPU: F(rng.choice([0, 1, 2, 4, 8])),
            "cpu": F(rng.choice([1, 2, 4, 8, 16])),
            "memory": F(rng.choice([2, 4, 8, 16])),
            "example.com/nic": F(rng.choice([0, 1, 2])),
            "pods": F(rng.choice([1, 2, 3, 110])),
        }
        labels = {BLOCK: rng.choice("ab"), RACK: rng.choice(["r1", "r2"]), HOST: f"n{index}"}
        taints = (TAINT,) if rng.random() < 0.3 else ()
        nodes.append(Node(f"n{index}", labels, free, ready=rng.random() < 0.95, taints=taints))
    return Cluster("rand", nodes, LEVELS)


def clean(request):
    return {name: amount for name, amount in request.items() if amount > 0}


def usable(cluster, scheduling):
    """The nodes a pod with these filters may use, by the reference rules (ready, tolerated, labelled)."""
    return [
        node
        for node in cluster.nodes
        if node.ready and scheduling.untolerated(node.taints) is None and all(key in node.labels for key in LEVELS)
    ]


def domains(nodes, depth):
    found = {}
    for node in nodes:
        found.setdefault(tuple(node.labels[key] for key in LEVELS[: depth + 1]), []).append(node)
    return found


def most_pods(request, nodes):
    """The most pods of ``request`` the nodes hold, by brute force."""
    count = 0
    while count < 30 and brute_force_fits([(request, count + 1)], [node.free() for node in nodes]):
        count += 1
    return count


def check_valid(tree, nodes_by_index, request, scheduling, depth, used):
    """The assignment places pods on allowed nodes within capacity and inside one domain at ``depth``."""
    eligible, _ = tree.eligible(scheduling)
    for node_index, count in nodes_by_index.items():
        assert eligible[node_index]
        used.setdefault(node_index, []).append((request, count))
        node = tree.nodes[node_index]
        assert brute_force_fits(used[node_index], [node.free()]), (node.name, used[node_index])
    if depth is not None and nodes_by_index:
        assert len({tree.node_domain[depth][index] for index in nodes_by_index}) == 1


def scheduling_for(rng):
    return pod_scheduling(
        {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]} if rng.random() < 0.5 else {}
    )


@pytest.mark.parametrize("seed", range(12))
def test_kueue_required_level_is_exact_for_one_shape(seed):
    rng = random.Random(500 + seed)
    for _ in range(8):
        cluster = random_cluster(rng)
        request, count, depth = clean(random_request(rng)), rng.randint(1, 5), rng.randrange(3)
        scheduling = scheduling_for(rng)
        tree = NodeTree(cluster)
        pod_set = KueuePodSet("w", count, request, scheduling, KueueRequest(required=LEVELS[depth]))
        result = find_assignment(tree, pod_set)
        expected = any(
            brute_force_fits([(request, count)], [node.free() for node in members])
            for members in domains(usable(cluster, scheduling), depth).values()
        )
        assert (result.reason is None) is expected, (result.reason, request, count, depth)
        if result.reason is None:
            assert sum(result.nodes.values()) == count
            check_valid(tree, result.nodes, request, scheduling, depth, {})


@pytest.mark.parametrize("seed", range(12))
def test_kueue_slices_fit_exactly_when_enough_slice_domains_hold_whole_slices(seed):
    rng = random.Random(700 + seed)
    for _ in range(8):
        cluster = random_cluster(rng)
        request = clean(random_request(rng))
        size = rng.choice([1, 2])
        count = size * rng.randint(1, 3)
        scheduling = scheduling_for(rng)
        tree = NodeTree(cluster)
        topology = KueueRequest(required=BLOCK, slices=(SliceLayer(RACK, size),))
        result = find_assignment(tree, KueuePodSet("w", count, request, scheduling, topology))
        nodes = usable(cluster, scheduling)
        expected = any(
            sum(most_pods(request, members) // size for key, members in domains(nodes, 1).items() if key[0] == block[0])
            >= count // size
            for block in domains(nodes, 0)
        )
        assert (result.reason is None) is expected, (result.reason, request, count, size)
        if result.reason is None:
            assert sum(result.nodes.values()) == count
            check_valid(tree, result.nodes, request, scheduling, 0, {})
            per_rack = {}
            for index, pods in result.nodes.items():
                per_rack[tree.node_domain[1][index]] = per_rack.get(tree.node_domain[1][index], 0) + pods
            assert all(pods % size == 0 for pods in per_rack.values())


@pytest.mark.parametrize("seed", range(12))
def test_kai_required_level_is_exact_for_one_shape(seed):
    rng = random.Random(900 + seed)
    for _ in range(8):
        cluster = random_cluster(rng)
        request, count, depth = clean(random_request(rng)), rng.randint(1, 5), rng.randrange(3)
        scheduling = scheduling_for(rng)
        tree = NodeTree(cluster)
        group = KaiGroup("g", required=LEVELS[depth], tasks=[KaiTasks(request, count, scheduling)])
        result = allocate_group(tree, group, gpu_resources=(GPU,))
        # KAI counts capacity on every node of a domain, tolerated or not, and tries the next
        # domain when one of its pods finds no node: the verdict is still "some domain holds them"
        expected = any(
            brute_force_fits([(request, count)], [node.free() for node in members])
            for members in domains(usable(cluster, scheduling), depth).values()
        )
        assert (not isinstance(result, str)) is expected, (result, request, count, depth)
        if not isinstance(result, str):
            assert sum(result["g"].nodes.values()) == count
            check_valid(tree, result["g"].nodes, request, scheduling, depth, {})


@pytest.mark.parametrize("seed", range(12))
def test_groups_placed_in_turn_never_overcommit_a_node(seed):
    rng = random.Random(1100 + seed)
    for _ in range(6):
        cluster = random_cluster(rng)
        tree = NodeTree(cluster)
        used = {}
        for position in range(3):
            request, count = clean(random_request(rng)), rng.randint(1, 3)
            scheduling = scheduling_for(rng)
            level = rng.choice([None, BLOCK, RACK])
            depth = None if level is None else LEVELS.index(level)
            if rng.random() < 0.5:
                topology = KueueRequest(required=level) if level else KueueRequest(implied=True)
                result = find_assignment(tree, KueuePodSet(f"w{position}", count, request, scheduling, topology))
                nodes = result.nodes if result.reason is None else {}
                for index, pods in nodes.items():
                    tree.consume(index, request, pods)
            else:
                group = KaiGroup(f"g{position}", required=level, tasks=[KaiTasks(request, count, scheduling)])
                placed = allocate_group(tree, group, gpu_resources=(GPU,))
                nodes = {} if isinstance(placed, str) else placed[group.name].nodes
            if nodes:
                assert sum(nodes.values()) == count
            check_valid(tree, nodes, request, scheduling, depth, used)


@pytest.mark.parametrize("seed", range(8))
def test_kai_mixed_shapes_are_real_placements(seed):
    """Two kinds of pod in one gang: KAI compares summed requests, so a "no" may be a heuristic one,
    but a "yes" is a real placement in one domain."""
    rng = random.Random(1300 + seed)
    for _ in range(8):
        cluster = random_cluster(rng)
        tree = NodeTree(cluster)
        shapes = [(clean(random_request(rng)), rng.randint(1, 3)) for _ in range(2)]
        depth = rng.randrange(3)
        tasks = [KaiTasks(request, count) for request, count in shapes]
        result = allocate_group(tree, KaiGroup("g", required=LEVELS[depth], tasks=tasks), gpu_resources=(GPU,))
        if isinstance(result, str):
            continue
        placed = result["g"].nodes
        assert sum(placed.values()) == sum(count for _, count in shapes)
        assert len({tree.node_domain[depth][index] for index in placed}) == 1
        members = [tree.nodes[index].free() for index in placed]
        assert brute_force_fits(shapes, members)
