"""The data a picture of a placement shows (``placement_map``): domains, nodes, gangs, chosen and candidate domains."""

from __future__ import annotations

import json

import pytest

from helpers import FIXTURES_DIR, load_fixture
from workloadmap import inspect, load_cluster, place
from workloadmap.placement import placement_map
from workloadmap.topology import example_cluster

LEVELS = ["cloud.provider.com/topology-block", "cloud.provider.com/topology-rack", "kubernetes.io/hostname"]


def _racks():
    return load_cluster(
        str(FIXTURES_DIR / "placement" / "gpu-racks-tainted.yaml"),
        levels=LEVELS,
        pods_file=str(FIXTURES_DIR / "placement" / "pods-bound.yaml"),
    )


def test_the_topology_alone_draws_every_domain_and_node():
    cluster = example_cluster("nvl72-4rack")
    picture = placement_map(cluster)
    spine = picture.root.children[0]
    assert [leaf.value for leaf in spine.children] == ["leaf-001", "leaf-002"]
    racks = [rack for leaf in spine.children for rack in leaf.children]
    assert [rack.id for rack in racks] == [f"spine-01/leaf-00{1 + i // 2}/nvl-00{i + 1}" for i in range(4)]
    assert all(len(rack.node_views) == 18 and not rack.children for rack in racks)  # hosts are tiles, not boxes
    assert (picture.root.nodes, picture.root.gpus, picture.nodes_drawn, picture.gangs) == (72, 288, True, [])


def test_gangs_carry_their_chosen_domain_candidates_and_node_pods():
    cluster = example_cluster("nvl72-4rack")
    report = place(inspect(load_fixture("jobset-leader-workers.yaml")), cluster)
    picture = placement_map(cluster, [report])
    (gang,) = picture.gangs
    group = report.pod_groups[0]
    assert gang.fits and gang.key == "JobSet/llm-train llm-train" and gang.level == group.assignment.level
    assert gang.chosen == "spine-01/leaf-001/nvl-001"  # the assignment's domain, as a domain id
    assert [candidate.rpartition("/")[2] for candidate in gang.candidates] == group.candidates
    racks = picture.root.children[0].children[0].children
    placed = {node.name: node.pods for rack in racks for node in rack.node_views}
    assert {name: pods for name, pods in placed.items() if pods} == {
        node.name: {gang.key: node.pods} for node in group.assignment.nodes
    }


def test_unfit_gangs_keep_their_reason_and_used_gpus_show():
    cluster = _racks()
    report = place(inspect(load_fixture("placement/job-rack-required.yaml")), cluster)
    picture = placement_map(cluster, [report])
    (gang,) = picture.gangs
    assert not gang.fits and gang.chosen is None and gang.reason == report.pod_groups[0].reason
    busy = {node.name: node for block in picture.root.children for rack in block.children for node in rack.node_views}
    # pods-bound.yaml keeps gpu-b0-r0-0 and -1 busy (Running) and -2 (Pending, bound): 0 of 8 GPUs free
    assert [busy[f"gpu-b0-r0-{index}"].gpus_free for index in range(4)] == [0, 0, 0, 8]
    assert picture.workloads == [{"workload": "Job/finetune", "fits": False, "reason": report.reason}]
    assert any("cordoned" in note for note in picture.notes)


def test_big_clusters_are_drawn_as_domains_only():
    cluster = example_cluster("nvl72-16rack")  # 288 nodes
    picture = placement_map(cluster, max_nodes=100)
    assert not picture.nodes_drawn
    deepest = [domain for domain in _walk(picture.root) if not domain.children]
    assert deepest and all(not domain.node_views for domain in deepest)
    assert len(deepest) <= 100


def _walk(domain):
    yield domain
    for child in domain.children:
        yield from _walk(child)


def test_reports_must_be_about_the_cluster():
    report = place(inspect(load_fixture("jobset-leader-workers.yaml")), example_cluster("small-16"))
    with pytest.raises(ValueError):
        placement_map(example_cluster("nvl72-4rack"), [report])


def test_the_picture_is_plain_json():
    cluster = example_cluster("small-16")
    report = place(inspect(load_fixture("jobset-leader-workers.yaml")), cluster)
    data = json.loads(json.dumps(placement_map(cluster, [report]).to_dict()))
    assert data["root"]["gpus"] == 128 and data["gangs"][0]["key"] == "JobSet/llm-train llm-train"
    assert set(data["root"]["children"][0]) >= {"id", "level", "value", "nodes", "readyNodes", "cordonedNodes"}


def test_the_gpus_the_placement_takes_are_counted_per_node_and_domain():
    """Issue 33: a domain said ``72/72 GPUs free`` after the gang took 12; the data now says what it took.

    The JobSet's leader and two workers ask 4 GPUs each (fixtures/jobset-leader-workers.yaml)."""
    cluster = example_cluster("nvl72-4rack")
    report = place(inspect(load_fixture("jobset-leader-workers.yaml")), cluster)
    assert report.gpus_taken == {node.name: 4 for node in report.pod_groups[0].assignment.nodes}
    assert "gpusTaken" not in report.to_dict()  # not part of the report's JSON contract
    picture = placement_map(cluster, [report])
    assert (picture.root.gpus_free, picture.root.gpus_placed) == (288, 12)
    rack = picture.root.children[0].children[0].children[0]
    assert rack.id == "spine-01/leaf-001/nvl-001" and rack.gpus_placed == 12
    assert sorted(node.gpus_placed for node in rack.node_views if node.pods) == [4, 4, 4]


def test_a_domain_holding_exactly_its_parents_nodes_is_no_box_of_its_own():
    """nvl72-16rack labels each rack twice (accelerator.topograph.run/domain and nvidia.com/gpu.clique):
    the clique holds the rack's 18 nodes, so the rack's box holds the tiles and names the clique as the same."""
    cluster = example_cluster("nvl72-16rack")
    picture = placement_map(cluster)
    rack = picture.root.children[0].children[0].children[0].children[0]
    assert rack.level == "accelerator.topograph.run/domain" and not rack.children and len(rack.node_views) == 18
    (clique,) = rack.same
    assert clique.startswith(rack.id + "/") and clique.endswith(".1")  # <ClusterUUID>.<CliqueID>
    assert picture.root.same == []  # the cluster keeps its one core below it
