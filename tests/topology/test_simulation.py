"""Tests for workloadmap.simulation: the generator, its labels, presets, and a 100,000-node run."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from workloadmap.errors import TopologyError
from workloadmap.labels import HOSTNAME as HOSTNAME_LABEL
from workloadmap.topology import (
    DEFAULT_PRESET,
    PRESETS,
    SimulationSpec,
    detect_levels,
    example_cluster,
    generate_cluster,
    generate_nodelist,
    get_preset,
    iter_node_objects,
    load_cluster,
    nodes_from_documents,
)

TIER = "fabric.topograph.run/tier-{}".format
DOMAIN = "accelerator.topograph.run/domain"
CLIQUE = "nvidia.com/gpu.clique"
GPU = "nvidia.com/gpu"


def test_default_spec_is_four_nvl72_racks():
    spec = SimulationSpec()
    nodelist = generate_nodelist(spec)
    assert nodelist["kind"] == "NodeList"
    items = nodelist["items"]
    assert len(items) == 4 * 18
    assert {item["status"]["allocatable"][GPU] for item in items} == {"4"}
    assert all(
        item["status"]["conditions"][0] == {"type": "Ready", "status": "True", "reason": "KubeletReady"}
        for item in items
    )
    # one NVLink domain per rack of 18 nodes
    domains = [item["metadata"]["labels"][DOMAIN] for item in items]
    assert [domains.count(domain) for domain in sorted(set(domains))] == [18, 18, 18, 18]


def test_switch_grouping_follows_the_spec():
    spec = SimulationSpec(racks=10, nodes_per_rack=2, racks_per_block=3, blocks_per_spine=2)
    nodes = [item["metadata"]["labels"] for item in iter_node_objects(spec)]
    assert len(nodes) == 20
    # 10 racks / 3 per leaf = 4 leaves (3,3,3,1 racks); 4 leaves / 2 per spine = 2 spines, joined by a core.
    leaves = [labels[TIER(0)] for labels in nodes]
    assert [leaves.count(leaf) for leaf in sorted(set(leaves))] == [6, 6, 6, 2]
    spines = [labels[TIER(1)] for labels in nodes]
    assert [spines.count(spine) for spine in sorted(set(spines))] == [12, 8]
    assert {labels[TIER(2)] for labels in nodes} == {"core"}
    # each leaf sits under exactly one spine
    assert len({(labels[TIER(0)], labels[TIER(1)]) for labels in nodes}) == 4
    assert spec.levels() == [TIER(2), TIER(1), TIER(0), DOMAIN, HOSTNAME_LABEL]


def test_single_spine_has_no_core_and_no_core_option():
    assert TIER(2) not in SimulationSpec(racks=2).levels()
    spec = SimulationSpec(racks=8, racks_per_block=1, blocks_per_spine=2, core=False)
    assert spec.spine_count == 4
    assert TIER(2) not in next(iter_node_objects(spec))["metadata"]["labels"]


def test_clique_labels_are_deterministic_per_rack():
    spec = SimulationSpec(racks=3, nodes_per_rack=2, accelerator_labels="clique")
    first = [item["metadata"]["labels"] for item in iter_node_objects(spec)]
    again = [item["metadata"]["labels"] for item in iter_node_objects(spec)]
    assert first == again
    assert DOMAIN not in first[0]
    cliques = [labels[CLIQUE] for labels in first]
    assert len(set(cliques)) == 3 and cliques[0] == cliques[1] != cliques[2]
    assert all(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.1", c) for c in cliques)
    both = SimulationSpec(racks=1, accelerator_labels="both").levels()
    assert both[-3:] == [DOMAIN, CLIQUE, HOSTNAME_LABEL]


def test_no_nvlink_and_zone():
    spec = SimulationSpec(racks=2, nodes_per_rack=4, nvlink_domain=False, zone="eu-1a")
    labels = next(iter_node_objects(spec))["metadata"]["labels"]
    assert DOMAIN not in labels and CLIQUE not in labels
    assert labels["topology.kubernetes.io/zone"] == "eu-1a"
    assert spec.levels()[0] == "topology.kubernetes.io/zone"


def test_node_names_are_unique_and_hostname_matches():
    items = generate_nodelist(SimulationSpec(racks=120, nodes_per_rack=3))["items"]
    names = [item["metadata"]["name"] for item in items]
    assert len(set(names)) == len(names) == 360
    assert all(item["metadata"]["labels"][HOSTNAME_LABEL] == item["metadata"]["name"] for item in items)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_generated_levels_match_detection_and_nodelist_round_trip(name):
    spec = get_preset(name)
    cluster = generate_cluster(spec)
    assert detect_levels(cluster.nodes) == cluster.levels == spec.levels()
    read_back = nodes_from_documents([json.loads(json.dumps(generate_nodelist(spec)))], file="gen.json")
    assert [(node.name, node.labels, node.allocatable, node.ready) for node in read_back] == [
        (node.name, node.labels, node.allocatable, node.ready) for node in cluster.nodes
    ]


def test_presets():
    assert DEFAULT_PRESET == "nvl72-4rack"
    assert {"nvl72-4rack", "h100-2spine", "small-16"} <= set(PRESETS)
    default = example_cluster()
    assert (len(default.nodes), default.domain_tree().gpus_total) == (72, 288)
    small = example_cluster("small-16")
    assert (len(small.nodes), small.domain_tree().gpus_total) == (16, 128)
    h100 = example_cluster("h100-2spine")
    assert (len(h100.nodes), h100.domain_tree().gpus_total) == (64, 512)
    assert len(h100.domain_tree().children["core"].children) == 2  # two spines
    assert default.source == "preset:nvl72-4rack"
    with pytest.raises(TopologyError, match="unknown preset 'x'.*nvl72-4rack"):
        get_preset("x")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"racks": 0}, "racks"),
        ({"nodes_per_rack": -1}, "nodes_per_rack"),
        ({"gpus_per_node": -2}, "gpus_per_node"),
        ({"racks_per_block": 0}, "racks_per_block"),
        ({"racks": 10**6}, "racks"),
        ({"accelerator_labels": "nvl"}, "accelerator_labels"),
        ({"racks": True}, "racks"),
    ],
)
def test_spec_validation(changes, field):
    with pytest.raises(TopologyError) as caught:
        generate_nodelist(dataclasses.replace(SimulationSpec(), **changes))
    assert caught.value.field == field


def test_hundred_thousand_nodes_generate_and_load(tmp_path):
    spec = SimulationSpec(name="big", racks=5556, racks_per_block=4, blocks_per_spine=8)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(generate_nodelist(spec)))
    cluster = load_cluster(path)
    assert len(cluster.nodes) == 100_008
    tree = cluster.domain_tree()
    assert tree.gpus_total == 4 * 100_008
    assert len(tree.children["core"].children) == spec.spine_count == 174
