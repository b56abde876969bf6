"""``place`` with NUMA: nodes whose kubelet would reject a pod are not eligible; pods put on one node
are admitted one after another.

The verdicts follow the kubelet's rules (``pkg/kubelet/cm/topologymanager``: ``policy_single_numa_node.go``,
``policy_restricted.go``, ``scope_container.go``, ``scope_pod.go``; hints from the CPU, memory and
device managers) on the layouts of ``fixtures/numa`` (2 NUMA nodes of 32 CPUs, 256Gi and 4 GPUs).
"""

from __future__ import annotations

import dataclasses

import pytest

from helpers import FIXTURES_DIR, load_fixture
from helpers.numa import container, spec
from workloadmap import inspect, place
from workloadmap.numa import TopologyManager, TopologyManagerPolicy, TopologyManagerScope
from workloadmap.topology import Cluster, generate_cluster, get_preset, load_cluster

NUMA = FIXTURES_DIR / "numa"


def cluster(policy: str | None = None, scope: str = "container", *, pods: bool = True) -> Cluster:
    manager = TopologyManager(TopologyManagerPolicy(policy or "none"), TopologyManagerScope(scope))
    return load_cluster(
        NUMA / "nodes.yaml",
        node_topology=NUMA / "node-topology.yaml",
        pods_file=NUMA / "pods.yaml" if pods else None,
        topology_manager=manager,
    )


def generated(policy: str, scope: str = "container", nodes: int = 2) -> Cluster:
    spec_ = dataclasses.replace(get_preset("h100-numa"), name="numa", racks=1, nodes_per_rack=nodes,
                                topology_manager_policy=policy, topology_manager_scope=scope)  # fmt: skip
    return generate_cluster(spec_)


def jobset(pod_spec: dict, pods: int = 1) -> dict:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "job", "namespace": "ml"},
        "spec": {
            "replicatedJobs": [
                {
                    "name": "workers",
                    "replicas": 1,
                    "template": {"spec": {"parallelism": pods, "completions": pods, "template": {"spec": pod_spec}}},
                }
            ]
        },
    }


def test_the_worked_example_fits_on_either_node():
    report = place(inspect(load_fixture("numa/train.yaml")), cluster())
    assert report.fits and report.notes == []


@pytest.mark.parametrize("policy", ["kueue", "kai"])
def test_eight_gpus_in_one_container_fit_no_single_numa_node(policy):
    tree = inspect(jobset(spec(container("trainer", "16", "64Gi", 8))))
    report = place(tree, generated("single-numa-node"), policy=policy)
    assert not report.fits
    note = report.notes[0]
    assert "would reject its pods on 2 of 2 node(s)" in note
    assert "needs 8 nvidia.com/gpu aligned on one NUMA node; nodes have 4 nvidia.com/gpu per NUMA node" in note
    assert "split the container" in note
    if policy == "kueue":
        group = report.pod_groups[0]
        assert 'excluded: numa "container trainer needs 8 nvidia.com/gpu' in group.scheduler_reason
        # in words: the kubelet's NUMA admission left out both nodes (the quoted reason kept whole)
        assert group.reason.startswith("no workers pod finds room (the kubelet would not admit it on 2 nodes (")
        assert group.reason.endswith("(it admits this pod)), of 2)")


@pytest.mark.parametrize(
    ("policy", "pod", "fits"),
    [
        ("restricted", spec(container("trainer", gpus=8)), True),  # preferred on both NUMA nodes
        ("restricted", spec(container("trainer", "16", "64Gi", 8)), False),  # CPUs and memory prefer one
        ("best-effort", spec(container("trainer", "16", "64Gi", 8)), True),
        ("none", spec(container("trainer", "16", "64Gi", 8)), True),
        ("single-numa-node", spec(container("a", "8", "32Gi", 4), container("b", "8", "32Gi", 4)), True),
    ],
)
def test_policies_decide_which_nodes_are_eligible(policy, pod, fits):
    report = place(inspect(jobset(pod)), generated(policy))
    assert report.fits is fits, report.notes


def test_the_pod_scope_aligns_the_whole_pod():
    pod = spec(container("a", "8", "32Gi", 4), container("b", "8", "32Gi", 4))
    assert place(inspect(jobset(pod)), generated("single-numa-node", "container")).fits
    report = place(inspect(jobset(pod)), generated("single-numa-node", "pod"))
    assert not report.fits
    assert "the pod needs 8 nvidia.com/gpu aligned on one NUMA node" in report.notes[0]
    assert "split the pod" in report.notes[0]


def test_flags_set_the_policy_of_nodes_whose_objects_do_not_say():
    spec_ = dataclasses.replace(get_preset("h100-numa"), name="numa", racks=1, nodes_per_rack=2,
                                topology_manager_policy=None)  # fmt: skip
    assert generate_cluster(spec_).nodes[0].numa.manager.stated is False
    tree = inspect(jobset(spec(container("trainer", "16", "64Gi", 8))))
    assert place(tree, generate_cluster(spec_)).fits  # the kubelet's default policy: none


@pytest.mark.parametrize("policy", ["kueue", "kai"])
def test_pods_on_one_node_are_admitted_one_after_another(policy):
    # The scheduler puts all three on gpu-a (its totals hold 3 x 20 CPUs); NUMA nodes of 30 and 32
    # CPUs hold one pod of 20 exclusive CPUs each: the third is rejected.
    report = place(inspect(load_fixture("numa/three-workers.yaml")), cluster(), policy=policy)
    group = report.pod_groups[0]
    assert not group.fits and group.assignment is None
    assert "puts 3 pod(s) on gpu-a at once; its kubelet admits 2" in group.reason
    assert "needs 20 CPUs on one NUMA node; the most free on one is 12 CPUs" in group.reason


def test_three_worked_example_pods_fill_one_node_as_the_kubelet_admits_them():
    # docs/numa.md: pods 1-3 land on NUMA nodes 0, 1, 1 of gpu-a.
    only_a = cluster(pods=False)
    only_a.nodes = [node for node in only_a.nodes if node.name == "gpu-a"]
    pod = load_fixture("numa/train.yaml")["spec"]
    report = place(inspect(jobset(pod, 3)), only_a)
    assert report.fits
    assert [(n.name, n.pods) for n in report.pod_groups[0].assignment.nodes] == [("gpu-a", 3)]


def test_nodes_without_a_layout_are_not_filtered():
    tree = inspect(jobset(spec(container("trainer", "16", "64Gi", 8))))
    assert place(tree, load_cluster(NUMA / "nodes.yaml")).fits


def test_workloads_placed_in_turn_see_the_numa_nodes_taken_before():
    from workloadmap.placement import place_together

    first = inspect(jobset(spec(container("trainer", "20", "32Gi", 2)), 2))
    second = inspect(jobset(spec(container("trainer", "20", "32Gi", 2)), 1))
    only_a = cluster(pods=False)
    only_a.nodes = [node for node in only_a.nodes if node.name == "gpu-a"]
    joint = place_together([first, second], only_a)
    assert [report.fits for report in joint.reports] == [True, False]
    assert "its kubelet admits 0" in joint.reports[1].pod_groups[0].reason


def test_max_allowable_numa_nodes_is_a_kubelet_start_up_check():
    from workloadmap.topology import apply_topology_manager

    spec_ = dataclasses.replace(get_preset("h100-numa"), name="wide", racks=1, nodes_per_rack=2, numa_nodes=16,
                                gpus_per_node=16, topology_manager_policy=None)  # fmt: skip
    tree = inspect(jobset(spec(container("trainer", gpus=1))))
    nodes = generate_cluster(spec_)
    apply_topology_manager(nodes, TopologyManager(TopologyManagerPolicy.SINGLE_NUMA_NODE))
    report = place(tree, nodes)
    assert not report.fits and "the kubelet does not start" in report.notes[0]
    assert "max-allowable-numa-nodes to 16 or more" in report.notes[0]
    nodes = generate_cluster(spec_)
    apply_topology_manager(nodes, TopologyManager(TopologyManagerPolicy.SINGLE_NUMA_NODE, max_allowable_numa_nodes=16))
    assert place(tree, nodes).fits
    # A node whose object states its policy runs with it: it needs no option.
    stated = dataclasses.replace(spec_, topology_manager_policy="single-numa-node")
    assert place(tree, generate_cluster(stated)).fits
