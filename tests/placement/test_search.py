"""The exact search for mixed pod shapes: counting bounds, the LP certificate, packings, and the verdict.

Expected answers come from counting arguments worked by hand in each test (or from brute force);
every "fits" the search gives carries a packing, checked here with plain arithmetic.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from helpers.placement import GPU, RACK, brute_force_fits, pod_set, rack_cluster, random_free, random_request, tree
from workloadmap import Budgets, Verdict, inspect
from workloadmap.budgets import applied
from workloadmap.placement import pack_pods, place, pods_fit
from workloadmap.placement.packing import merge_shapes
from workloadmap.placement.search import decide
from workloadmap.topology import SimulationSpec, generate_cluster

F = Fraction

# The case the issue reports: 1,008 nodes of 4 GPUs (144 cpu each, the simulated GB200 node);
# shapes a, b and c ask for more than half the cpu, so no two of their pods share a node.
NODE = {GPU: F(4), "cpu": F(144), "memory": F(1800 * 2**30), "pods": F(110)}
UNFIT = [({GPU: F(1), "cpu": F(73)}, 300), ({GPU: F(1), "cpu": F(74)}, 500), ({GPU: F(1), "cpu": F(75)}, 700)]
SMALL = ({GPU: F(1), "cpu": F(1)}, 200)


def _checked_packing(shapes, node_types, decision):
    """A fit's packing, verified: every configuration fits its node, node counts hold, every pod is placed."""
    used = [0] * len(node_types)
    placed = [0] * len(shapes)
    for position, config, nodes in decision.packing:
        free, count = node_types[position]
        used[position] += nodes
        for resource in {name for request, _ in shapes for name in request} | {"pods"}:
            need = sum(n * shapes[i][0].get(resource, 0) if resource != "pods" else n for i, n in enumerate(config))
            if resource in free or resource != "pods":
                assert need <= free.get(resource, 0), (config, free)
        for i, n in enumerate(config):
            placed[i] += n * nodes
    assert all(u <= count for u, (_, count) in zip(used, node_types, strict=True))
    assert all(p >= demand for p, (_, demand) in zip(placed, shapes, strict=True))


def test_shapes_that_cannot_share_a_node_need_a_node_each():
    """300 + 500 + 700 pods, pairwise unable to share a node, need 1,500 nodes: 1,008 cannot hold them."""
    shapes = merge_shapes([*UNFIT, SMALL])
    decision = decide(shapes, [(NODE, 1008)], Budgets().search_steps)
    assert decision.fits is False
    assert decision.proof is not None and decision.proof.alone
    assert (decision.proof.need, decision.proof.have) == (1500, 1008)
    assert len(decision.proof.shapes) == 3  # a, b and c; the small pods share nodes freely
    assert "pods of 3 shapes cannot share a node" in decision.proof.describe(shapes)
    assert pack_pods([*UNFIT, SMALL], [NODE] * 1008) is False


def test_the_same_shapes_fit_when_each_has_a_node():
    """300 + 300 + 300 exclusive pods on 1,008 nodes, the 200 small pods beside them: a real packing."""
    shapes = merge_shapes([(UNFIT[0][0], 300), (UNFIT[1][0], 300), (UNFIT[2][0], 300), SMALL])
    node_types = [(NODE, 1008)]
    decision = decide(shapes, node_types, Budgets().search_steps)
    assert decision.fits is True
    _checked_packing(shapes, node_types, decision)


def test_the_linear_relaxation_proves_what_no_plain_count_does():
    """Nodes of 6 cpu: a 4-cpu pod leaves room for no 3-cpu pod, so 2 x 4 + 3 x 3 needs 2 + 2 nodes.

    No count of pods or cpu shows it (17 cpu of 18; at most 2 pods a node), but weighing a 3-cpu
    pod as half a 4-cpu one does: 2 + 3/2 = 3.5 node-weights, and no node carries more than 1.
    """
    shapes = merge_shapes([({"cpu": F(4)}, 2), ({"cpu": F(3)}, 3)])
    node_types = [({"cpu": F(6)}, 3)]
    assert not brute_force_fits(shapes, [{"cpu": F(6)}] * 3)
    decision = decide(shapes, node_types, Budgets().search_steps)
    assert decision.fits is False and decision.proof is not None and decision.proof.weighted
    assert decision.proof.need > decision.proof.have == 3
    assert decide(shapes, [({"cpu": F(6)}, 4)], Budgets().search_steps).fits is True


# Hard cases found by scaling random gangs to the first size where first-fit fails (where the
# search before counting bounds spent its budget and answered unknown): now each is decided.
HARD = [
    (
        [({"cpu": 21, "memory": 206, GPU: 1}, 1944), ({"cpu": 44, "memory": 440, GPU: 2}, 1296),
         ({"cpu": 87, "memory": 99, GPU: 3}, 2268)],
        [({GPU: 4, "cpu": 192, "memory": 512, "pods": 110}, 1373),
         ({GPU: 8, "cpu": 128, "memory": 2048, "pods": 110}, 1033),
         ({GPU: 4, "cpu": 128, "memory": 2048, "pods": 110}, 833)],
    ),
    (
        [({"cpu": 68, "memory": 125, GPU: 1}, 363), ({"cpu": 94, "memory": 334, GPU: 3}, 726),
         ({"cpu": 58, "memory": 287, GPU: 1}, 968), ({"cpu": 47, "memory": 760, GPU: 4}, 847)],
        [({GPU: 8, "cpu": 128, "memory": 1024, "pods": 110}, 732),
         ({GPU: 8, "cpu": 128, "memory": 2048, "pods": 110}, 1075)],
    ),
    (
        [({"cpu": 35, "memory": 504, GPU: 3}, 212), ({"cpu": 48, "memory": 614, GPU: 4}, 424),
         ({"cpu": 44, "memory": 181, GPU: 2}, 530), ({"cpu": 95, "memory": 595, GPU: 2}, 424)],
        [({GPU: 8, "cpu": 128, "memory": 1024, "pods": 110}, 993)],
    ),
]  # fmt: skip


@pytest.mark.parametrize("shapes, node_types", HARD)
def test_realistic_mixed_gangs_on_thousands_of_nodes_are_decided(shapes, node_types):
    shapes = merge_shapes([({k: F(v) for k, v in request.items()}, count) for request, count in shapes])
    decision = decide(shapes, node_types, Budgets().search_steps)
    assert decision.fits is not None, "decided within the default budget"
    if decision.fits:
        _checked_packing(shapes, node_types, decision)
    else:
        assert decision.proof is not None  # every "no" here rests on a certificate


@pytest.mark.parametrize("seed", range(6))
def test_every_fit_carries_a_real_packing_and_agrees_with_brute_force(seed):
    rng = random.Random(7000 + seed)
    for _ in range(40):
        pods = merge_shapes([(random_request(rng), rng.randint(1, 3)) for _ in range(rng.randint(2, 3))])
        if len(pods) < 2 or sum(count for _, count in pods) > 7:
            continue
        frees = [random_free(rng) for _ in range(rng.randint(1, 4))]
        node_types = [(free, 1) for free in frees]
        decision = decide(pods, node_types, Budgets().search_steps)
        assert decision.fits is brute_force_fits(pods, frees), (pods, frees)
        if decision.fits:
            _checked_packing(pods, node_types, decision)


# Nodes of 8 GPUs and 64 cpu. Every first-fit order strands a pod, but on two nodes a + b + c / a + b fits.
UNKNOWN_SETS = [pod_set("a", 2, gpus=2, cpu=32), pod_set("b", 2, gpus=4, cpu=20), pod_set("c", 1, gpus=2, cpu=8)]
UNKNOWN_SHAPES = merge_shapes(
    [({GPU: F(2), "cpu": F(32)}, 2), ({GPU: F(4), "cpu": F(20)}, 2), ({GPU: F(2), "cpu": F(8)}, 1)]
)
TWO_NODES = [{GPU: F(8), "cpu": F(64)}] * 2


def test_an_exhausted_search_is_unknown_and_never_a_fit():
    assert brute_force_fits(UNKNOWN_SHAPES, TWO_NODES)
    assert pack_pods(UNKNOWN_SHAPES, TWO_NODES) is True
    assert pack_pods(UNKNOWN_SHAPES, TWO_NODES, budget=1) is None
    assert pods_fit(UNKNOWN_SHAPES, TWO_NODES, budget=1) is False  # fail safe: unknown is not a fit
    with applied(Budgets(search_steps=1)):  # the active budget is the default of every call
        assert pack_pods(UNKNOWN_SHAPES, TWO_NODES) is None


def _unknown_tree():
    constraint = {"topology": "t", "requiredLevel": RACK}
    sub = {"name": "mixed", "minMember": 5, "pods": 5, "podSets": UNKNOWN_SETS, "topologyConstraint": constraint}
    return tree([{"name": "g", "minMember": 5, "pods": 5, "podSets": [], "subGroups": [sub]}])


def test_a_subgroup_whose_fit_is_unknown_is_unknown_in_the_report():
    """Two racks of two such nodes: Kueue places the PodGroup on four nodes; each rack's answer is unknown."""
    cluster = rack_cluster(blocks=1, racks=2, hosts=2)
    with applied(Budgets(search_steps=1)):
        report = place(_unknown_tree(), cluster, policy="kueue")
    (group,) = report.pod_groups
    assert group.verdict is Verdict.FITS  # Kueue's own assignment placed every pod
    (sub,) = group.sub_groups
    assert sub.verdict is Verdict.UNKNOWN and not sub.fits and sub.reason.startswith("unknown")
    assert [(fit.fitting, fit.undecided) for fit in sub.levels if fit.level == RACK] == [(0, 2)]
    assert report.verdict is Verdict.UNKNOWN and not report.fits
    assert report.to_dict()["verdict"] == "Unknown" and report.to_dict()["podGroups"][0]["verdict"] == "Fits"
    report = place(_unknown_tree(), cluster, policy="kueue")  # the default budget decides it
    assert report.verdict is Verdict.FITS and report.pod_groups[0].sub_groups[0].verdict is Verdict.FITS


def test_the_issue_case_does_not_fit_and_no_domain_is_assumed_to(tmp_path):
    """On main the analysis spent its budget and counted the cluster as fitting ("fit assumed")."""
    cluster = generate_cluster(SimulationSpec(name="gb200", racks=56, nodes_per_rack=18, gpus_per_node=4))
    pods = [("a", 300, 73), ("b", 500, 74), ("c", 700, 75), ("d", 200, 1)]
    report = place(inspect(_jobset("mixed", pods, cpu=True)), cluster)
    (group,) = report.pod_groups
    assert group.verdict is Verdict.DOES_NOT_FIT and report.verdict is Verdict.DOES_NOT_FIT
    assert not group.approximate and all(fit.fitting == 0 and fit.undecided == 0 for fit in group.levels)
    assert report.to_dict()["podGroups"][0]["verdict"] == "DoesNotFit"


def _jobset(name, pods, *, cpu=False):
    """A JobSet of one gang, one replicatedJob per ``(name, pods, gpus or cpu)``; 1 GPU each with ``cpu``."""
    jobs = []
    for job, count, amount in pods:
        requests = {GPU: 1, "cpu": str(amount)} if cpu else {GPU: amount}
        jobs.append(
            {
                "name": job,
                "replicas": 1,
                "template": {
                    "spec": {
                        "parallelism": count,
                        "completions": count,
                        "template": {
                            "spec": {"containers": [{"name": "c", "image": "x", "resources": {"limits": requests}}]}
                        },
                    }
                },
            }
        )
    metadata = {"name": name, "namespace": "default"}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": metadata,
            "spec": {"replicatedJobs": jobs}}  # fmt: skip


def test_pods_that_cannot_share_a_node_are_counted_however_many_shapes_there_are():
    """Two shapes of more than half a node's cpu (16 pods, 10 nodes) beside 8 small shapes.

    The small shapes fit 30 to a node each, so one node has more ways to hold them than the
    search may list (31**8); the count of pods asking at least 33 cpu (one per 64-cpu node) needs none.
    """
    small = [({"cpu": F(1), "memory": F(index + 1)}, 2) for index in range(8)]
    shapes = merge_shapes([({"cpu": F(33)}, 8), ({"cpu": F(34)}, 8), *small])
    decision = decide(shapes, [({"cpu": F(64), "memory": F(1000), "pods": F(110)}, 10)], Budgets().search_steps)
    assert decision.fits is False and decision.proof is not None and decision.proof.alone
    assert (decision.proof.need, decision.proof.have) == (16, 10)
