"""Kueue's topology-aware assignment, checked against Kueue's own test table.

The cases are ``TestFindTopologyAssignments`` of kubernetes-sigs/kueue
(``pkg/cache/scheduler/tas_cache_test.go``), translated into ``tests/data/kueue_tas_cases.yaml``
(each case is named after its subtest; the file header says which subtests were left out and
why). Each PodSet is placed as ``FindTopologyAssignmentsForFlavor`` places a workload's PodSets:
in order, a ``podset-group-name`` pair together (the PodSet with more pods as the workers), each
one on the capacity the ones before it left, stopping at the first that does not fit.
"""

from __future__ import annotations

import pytest
import yaml

from helpers import REPO_ROOT
from workloadmap.placement.kueue_model import KueuePodSet, KueueRequest, SliceLayer
from workloadmap.placement.kueue_tas import find_assignment
from workloadmap.placement.nodes import NodeTree
from workloadmap.quantities import parse_quantity
from workloadmap.scheduling import Taint, pod_scheduling
from workloadmap.topology import Cluster, Node, apply_pods

DATA = yaml.safe_load((REPO_ROOT / "tests" / "data" / "kueue_tas_cases.yaml").read_text())
CASES = DATA["cases"]


def _nodes(case):
    if "generate" in case:
        spec = case["generate"]
        keys = case["levels"]
        return [
            {"name": f"{rack[2]}-{rack[3]}-{rack[1]}-n{i}", "labels": dict(zip(keys, rack, strict=True)), **spec}
            for rack in spec["racks"]
            for i in range(spec["nodesPerRack"])
        ]
    return DATA["nodeSets"][case["nodeSet"]] if "nodeSet" in case else case["nodes"]


def build_cluster(case):
    """The case's nodes (those matching the flavor's node labels) and the pods bound to them."""
    nodes = []
    for raw in _nodes(case):
        if any(raw["labels"].get(key) != value for key, value in (case.get("nodeLabels") or {}).items()):
            continue
        nodes.append(
            Node(
                name=raw["name"],
                labels=dict(raw["labels"]),
                allocatable={name: parse_quantity(value) for name, value in raw["allocatable"].items()},
                ready=raw.get("ready", True),
                unschedulable=raw.get("unschedulable", False),
                taints=tuple(Taint(t["key"], t.get("value", ""), t["effect"]) for t in raw.get("taints", [])),
            )
        )
    cluster = Cluster("default", nodes, list(case["levels"]))
    pods = []
    for index, raw in enumerate(case.get("pods", [])):
        spec = {"containers": [{"name": "c", "resources": {"requests": raw["requests"]}}]}
        if "nodeName" in raw:
            spec["nodeName"] = raw["nodeName"]
        status = {"phase": raw.get("phase", "Running")}
        pods.append(
            {"kind": "Pod", "metadata": {"name": f"p{index}", "namespace": "ns"}, "spec": spec, "status": status}
        )
    apply_pods(cluster, pods)
    return cluster


def pod_set(raw):
    """A PodSet of the table as wmap's KueuePodSet (an empty request is Kueue's implied one)."""
    layers = ()
    if "layers" in raw:
        layers = tuple(SliceLayer(layer["level"], layer["size"]) for layer in raw["layers"])
    elif "sliceLevel" in raw:
        layers = (SliceLayer(raw["sliceLevel"], raw.get("sliceSize", 0)),)
    given = {"required", "preferred", "unconstrained", "sliceLevel", "layers"} & set(raw)
    request = KueueRequest(
        required=raw.get("required"),
        preferred=raw.get("preferred"),
        unconstrained=raw.get("unconstrained", False),
        slices=layers,
        group=raw.get("group"),
        implied=not given,
    )
    spec = {key: raw[key] for key in ("nodeSelector", "tolerations") if key in raw}
    requests = {name: parse_quantity(value) for name, value in raw["requests"].items()}
    return KueuePodSet(raw["name"], raw["count"], requests, pod_scheduling(spec), request)


def place_pod_sets(case, tree):
    """``FindTopologyAssignmentsForFlavor``: pairs by group name, in order, consuming as it goes."""
    order, grouped = [], {}
    for index, raw in enumerate(case["podSets"]):
        key = raw.get("group") or index
        if key not in grouped:
            order.append(key)
        grouped.setdefault(key, []).append(raw)
    results = {}
    for key in order:
        members = grouped[key]
        workers, leader = members[0], members[1] if len(members) > 1 else None
        if leader is not None and leader["count"] > workers["count"]:
            workers, leader = leader, workers
        found = find_assignment(
            tree, pod_set(workers), pod_set(leader) if leader else None, balanced=case.get("balanced", False)
        )
        if found.reason is not None:
            for raw in members:
                results[raw["name"]] = found.reason
            return results
        for raw, nodes in ((workers, found.nodes), (leader, found.leader_nodes)):
            if raw is not None:
                results[raw["name"]] = nodes
                for node, count in nodes.items():
                    tree.consume(node, pod_set(raw).request, count)
    return results


def domains_of(tree, case, nodes, levels):
    """Pods per domain at the wanted assignment's levels (the lowest ones of the topology)."""
    counts = {}
    start = len(case["levels"]) - len(levels)
    for node, count in nodes.items():
        path = tree.paths[-1][node][: len(case["levels"])]
        key = tuple(path[start:])
        counts[key] = counts.get(key, 0) + count
    return counts


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_find_topology_assignments(case):
    tree = NodeTree(build_cluster(case))
    results = place_pod_sets(case, tree)
    for raw in case["podSets"]:
        got = results.get(raw["name"])
        if "wantReason" in raw:
            assert got == raw["wantReason"], raw["name"]
            continue
        want = raw["want"]
        assert isinstance(got, dict), (raw["name"], got)
        expected = {}
        for count, values in want["domains"]:
            expected[tuple(values)] = expected.get(tuple(values), 0) + count
        assert domains_of(tree, case, got, want["levels"]) == expected, raw["name"]


def test_the_table_covers_what_the_issue_names():
    names = " | ".join(case["name"] for case in CASES)
    for topic in ("required", "preferred", "unconstrained", "slices", "multi-layer", "balanced", "taint", "selector"):
        assert topic in names, topic
    assert len(CASES) >= 100
