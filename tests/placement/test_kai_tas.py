"""KAI Scheduler's topology-aware allocation, checked against KAI's own allocate-action tests.

The cases are in ``tests/data/kai_topology_cases.yaml``, translated from
``getTopologyTestsMetadata`` in kai-scheduler/KAI-Scheduler
``pkg/scheduler/actions/allocate/allocateTopology_test.go`` and
``pkg/scheduler/actions/integration_tests/allocate/allocate_topology_test.go`` (the file header
says how). The unit tests of KAI's topology plugin fix the orderings behind them; a few are
checked here directly (``pkg/scheduler/plugins/topology/*_test.go``).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import yaml

from helpers import REPO_ROOT
from workloadmap.placement.kai_tas import KaiGroup, KaiTasks, allocate_group
from workloadmap.placement.nodes import NodeTree
from workloadmap.quantities import parse_quantity
from workloadmap.topology import Cluster, Node

GPU = "nvidia.com/gpu"
CASES = yaml.safe_load((REPO_ROOT / "tests" / "data" / "kai_topology_cases.yaml").read_text())["cases"]


def build_tree(case):
    nodes = []
    for name, raw in case["nodes"].items():
        allocatable = {"cpu": Fraction(raw.get("cpu", 20)), "memory": parse_quantity("20G"), GPU: Fraction(raw["gpus"])}
        used = {GPU: Fraction(case.get("used", {}).get(name, 0))}
        nodes.append(Node(name=name, labels=dict(raw["labels"]), allocatable=allocatable, used=used))
    return NodeTree(Cluster("cluster-topology", nodes, list(case["levels"])))


def kai_group(raw, request, name="root"):
    tasks = [KaiTasks(dict(request), raw["tasks"])] if raw.get("tasks") else []
    children = [kai_group(child, request, child["name"]) for child in raw.get("subGroups", [])]
    return KaiGroup(raw.get("name", name), raw.get("required"), raw.get("preferred"), tasks, children)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_allocate_topology(case):
    tree = build_tree(case)
    job = case["job"]
    request = {GPU: Fraction(job["gpus"])}
    if "cpu" in job:
        request["cpu"] = Fraction(job["cpu"])
    result = allocate_group(tree, kai_group(job, request), gpu_resources=(GPU,), topology="cluster-topology")
    if case["want"] == "pending":
        assert isinstance(result, str)
        assert case.get("reason", "") in result
        assert tree.mark() == 0  # nothing was taken
        return
    assert not isinstance(result, str), result
    got: dict[str, int] = {}
    for placed in result.values():
        for node, count in placed.nodes.items():
            got[tree.nodes[node].name] = got.get(tree.nodes[node].name, 0) + count
    assert got == case["want"]


def test_node_scores_rank_preferred_domains_as_kai_does():
    """``TestCalculateNodeScores`` "4 racks - verify scoring distribution": floor((i+1)/n*10) by sorted position."""
    from workloadmap.placement.kai_tas import _Allocation

    nodes = [Node(f"node{i}", {"zone": "zone1", "rack": f"rack{i}"}, {GPU: Fraction(1)}) for i in range(1, 5)]
    tree = NodeTree(Cluster("t", nodes, ["zone", "rack"]))
    allocation = _Allocation(tree, (GPU,), "t")
    order = [(1, tree.node_domain[1][i]) for i in (3, 2, 1, 0)]  # rack4, rack3, rack2, rack1 as sorted
    scores = allocation.scores(order)
    assert {tree.nodes[node].name: score for node, score in scores.items()} == {
        "node4": 2,
        "node3": 5,
        "node2": 7,
        "node1": 10,
    }


def test_relevant_levels_as_kai_computes_them():
    """``TestTopologyPlugin_calculateRelevantDomainLevels``: preferred up to required, else up to the root."""
    from workloadmap.placement.kai_tas import _Allocation

    levels = ["datacenter", "zone", "rack"]
    nodes = [Node("n", {"datacenter": "d", "zone": "z", "rack": "r"}, {GPU: Fraction(1)})]
    allocation = _Allocation(NodeTree(Cluster("t", nodes, levels)), (GPU,), "t")

    def names(depths):
        return sorted("root" if depth == -1 else levels[depth] for depth in depths)

    # "both required and preferred placement specified": rack, zone
    assert names(allocation.relevant(KaiGroup("g", required="zone", preferred="rack"))) == ["rack", "zone"]
    # "only required placement specified": zone
    assert names(allocation.relevant(KaiGroup("g", required="zone"))) == ["zone"]
    # "only preferred placement specified": rack, zone, datacenter, root
    assert names(allocation.relevant(KaiGroup("g", preferred="rack"))) == ["datacenter", "rack", "root", "zone"]
