"""Tests for workloadmap.slurm: hostlists, topology.conf, topology.yaml and the synthetic labels."""

from __future__ import annotations

import pytest
import yaml

from helpers import FIXTURES_DIR
from workloadmap.errors import TopologyError
from workloadmap.labels import HOSTNAME as HOSTNAME_LABEL
from workloadmap.labels import SLURM_BLOCK as BLOCK_LABEL
from workloadmap.topology import (
    NodeCapacity,
    cluster_from_slurm,
    expand_hostlist,
    parse_topology_conf,
    parse_topology_yaml,
)
from workloadmap.topology.slurm import looks_like_topology_conf

FIXTURES = FIXTURES_DIR / "topology"
TIER = "slurm.wmap.dev/switch-tier-{}".format
GROUP = "slurm.wmap.dev/block-group-{}".format


# ---------------------------------------------------------------------------- hostlists


@pytest.mark.parametrize(
    ("expression", "names"),
    [
        ("node1", ["node1"]),
        ("node[1-4]", ["node1", "node2", "node3", "node4"]),
        ("node[1-2,7,10-11]", ["node1", "node2", "node7", "node10", "node11"]),
        ("gpu[001-003]", ["gpu001", "gpu002", "gpu003"]),
        ("n[8-10]", ["n8", "n9", "n10"]),  # padding follows the lower bound's width
        ("n[08-10]", ["n08", "n09", "n10"]),
        ("srv11[01-03]", ["srv1101", "srv1102", "srv1103"]),
        ("[1101-1102]", ["1101", "1102"]),
        ("a[1-2],b3,c[5]", ["a1", "a2", "b3", "c5"]),
        ("r[1-2]n[1-2]", ["r1n1", "r1n2", "r2n1", "r2n2"]),
        ("rack[1-2]-gpu", ["rack1-gpu", "rack2-gpu"]),
        ("  node[1-2]\n", ["node1", "node2"]),
    ],
)
def test_expand_hostlist(expression, names):
    assert expand_hostlist(expression) == names


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("", "empty"),
        ("node[1-4", "never closed"),
        ("node1-4]", "without"),
        ("node[[1-2]]", "nested"),
        ("node[4-1]", "backwards"),
        ("node[a-c]", "bad range"),
        ("node[1-]", "bad range"),
        ("node[]", "bad range"),
        ("a,,b", "empty name"),
        ("node 1", "spaces"),
        ("n[0-999999]x[0-9]", "more than"),
        ("n[0-99999999]", "too large"),
    ],
)
def test_expand_hostlist_rejects(expression, message):
    with pytest.raises(TopologyError, match=message):
        expand_hostlist(expression)


# ---------------------------------------------------------------------------- topology.conf, tree


def test_tree_conf_fixture_tiers_counted_from_root():
    text = (FIXTURES / "topology-tree.conf").read_text()
    assert looks_like_topology_conf(text)
    topology = parse_topology_conf(text, file="topology-tree.conf")
    assert topology.plugin == "tree"
    assert [switch.name for switch in topology.switches] == ["core", "spine1", "spine2", "leaf1", "leaf2", "leaf3"]
    cluster = cluster_from_slurm(topology, NodeCapacity(gpus=4), name="t", file="topology-tree.conf")
    assert cluster.levels == [TIER(2), TIER(1), TIER(0), HOSTNAME_LABEL]
    nodes = {node.name: node for node in cluster.nodes}
    assert len(nodes) == 18
    assert nodes["gpu009"].labels == {TIER(2): "core", TIER(1): "spine1", TIER(0): "leaf1", HOSTNAME_LABEL: "gpu009"}
    assert nodes["gpu012"].labels[TIER(0)] == "leaf3"
    assert nodes["gpu012"].labels[TIER(1)] == "spine2"
    # gpu017 hangs on spine2 directly: it has no tier-0 switch, but shares tier 1 with leaf3's nodes.
    assert nodes["gpu017"].labels == {TIER(2): "core", TIER(1): "spine2", HOSTNAME_LABEL: "gpu017"}
    assert nodes["gpu001"].allocatable["nvidia.com/gpu"] == 4
    assert cluster.domain_tree().find(["core", "spine2"]).node_count == 8


def test_tree_conf_reference_example():
    topology = parse_topology_conf(
        "SwitchName=S1 Switches=S[2-3]\nSwitchName=S2 Nodes=Node[201-202,205]\nSwitchName=S3 Nodes=Node[304-306]\n"
    )
    cluster = cluster_from_slurm(topology)
    assert cluster.levels == [TIER(1), TIER(0), HOSTNAME_LABEL]
    assert [node.name for node in cluster.nodes] == ["Node201", "Node202", "Node205", "Node304", "Node305", "Node306"]
    assert cluster.node("Node205").labels[TIER(0)] == "S2"
    assert cluster.node("Node205").labels[TIER(1)] == "S1"


def test_tree_with_two_roots_keeps_them_apart():
    cluster = cluster_from_slurm(parse_topology_conf("SwitchName=a Nodes=n[1-2]\nSwitchName=b Nodes=n[3-4]\n"))
    assert cluster.levels == [TIER(0), HOSTNAME_LABEL]
    assert set(cluster.domain_tree().children) == {"a", "b"}


@pytest.mark.parametrize(
    ("text", "message", "document", "field"),
    [
        ("SwitchName=s1 Nodes=n[1-2\n", "never closed", "line 1", "Nodes"),
        ("SwitchName=s1 Nodes=n1 Speed=3\n", "unknown key", "line 1", "speed"),
        ("Nodes=n1\n", "must start with", "line 1", "nodes"),
        ("SwitchName=s1 Nodes=n1\nBlockName=b1 Nodes=n2\n", "mixes tree", "line 2", "blockname"),
        ("SwitchName=s1 Nodes=n1\nSwitchName=s1 Nodes=n2\n", "defined twice", "line 2", "switchname"),
        ("SwitchName=s1 Nodes\n", "Key=Value", "line 1", None),
        (
            "SwitchName=s1 Switches=s2\nSwitchName=s2 Nodes=n1\nSwitchName=s3 Switches=s2\n",
            "two parents",
            "line 3",
            "Switches",
        ),
        ("SwitchName=s1 Switches=s9 Nodes=n1\n", "never defined", "line 1", "Switches"),
        ("SwitchName=s1 Nodes=n1\nSwitchName=s2 Nodes=n1\n", "two switches", "line 2", "Nodes"),
        ("SwitchName=s1 Switches=s2\nSwitchName=s2 Switches=s1 Nodes=n1\n", "cycle", "line 1", None),
        ("SwitchName=s1 Switches=s2\nSwitchName=s2\n", "no switch lists any nodes", None, None),
        ("# only a comment\n", "no SwitchName", None, None),
    ],
)
def test_conf_errors_name_file_line_and_key(text, message, document, field):
    with pytest.raises(TopologyError, match=message) as caught:
        cluster_from_slurm(parse_topology_conf(text, file="topology.conf"), file="topology.conf")
    error = caught.value
    assert error.file == "topology.conf"
    assert error.document == document
    assert error.field == field
    assert "\n" not in str(error)


# ---------------------------------------------------------------------------- topology.conf, block


def test_block_conf_fixture_groups_contiguous_blocks():
    topology = parse_topology_conf((FIXTURES / "topology-block.conf").read_text())
    assert topology.plugin == "block"
    assert topology.block_sizes == [4, 8, 16]
    assert [block.name for block in topology.blocks] == ["block001", "block002", "block003", "block004"]
    assert topology.blocks[3].nodes == []  # placeholder kept for adjacency
    cluster = cluster_from_slurm(topology)
    assert cluster.levels == [GROUP(16), GROUP(8), BLOCK_LABEL, HOSTNAME_LABEL]
    assert len(cluster.nodes) == 12
    # BlockSizes 4,8,16: pairs of base blocks form the 8-level, all four the 16-level.
    assert cluster.node("node12").labels[GROUP(8)] == cluster.node("node24").labels[GROUP(8)] == "block001..block002"
    assert cluster.node("node31").labels[GROUP(8)] == "block003..block004"
    assert {node.labels[GROUP(16)] for node in cluster.nodes} == {"block001..block004"}
    assert cluster.node("node33").labels[BLOCK_LABEL] == "block003"


def test_block_conf_without_sizes_has_only_the_block_level():
    cluster = cluster_from_slurm(parse_topology_conf("BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\n"))
    assert cluster.levels == [BLOCK_LABEL, HOSTNAME_LABEL]


@pytest.mark.parametrize(
    ("sizes", "message"),
    [
        ("4,12", "power-of-two multiple"),
        ("8,4", "power-of-two multiple"),
        ("4,x", "not an integer"),
        ("0", "not an integer"),
        ("4,8\nBlockSizes=16", "given twice"),
        (",".join(str(2**i) for i in range(21)), "at most 20"),
    ],
)
def test_block_sizes_validation(sizes, message):
    with pytest.raises(TopologyError, match=message):
        parse_topology_conf(f"BlockName=b1 Nodes=n1\nBlockSizes={sizes}\n")


def test_block_node_in_two_blocks():
    with pytest.raises(TopologyError, match="two blocks"):
        cluster_from_slurm(parse_topology_conf("BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n2\n"))


# ---------------------------------------------------------------------------- topology.yaml


def test_topology_yaml_default_is_the_cluster_default_block_topology():
    data = yaml.safe_load((FIXTURES / "topology.yaml").read_text())
    topology = parse_topology_yaml(data)
    assert (topology.name, topology.plugin, topology.block_sizes) == ("nvlink", "block", [2, 4])
    cluster = cluster_from_slurm(topology)
    assert cluster.levels == [GROUP(4), BLOCK_LABEL, HOSTNAME_LABEL]
    assert cluster.node("Node304").labels[BLOCK_LABEL] == "block2"
    assert cluster.node("Node304").labels[GROUP(4)] == "block1..block2"
    assert cluster.node("Node306").labels[GROUP(4)] == "block3..block3"  # the last group is partial


def test_topology_yaml_named_tree_topology():
    data = yaml.safe_load((FIXTURES / "topology.yaml").read_text())
    cluster = cluster_from_slurm(parse_topology_yaml(data, topology="fabric"))
    assert cluster.levels == [TIER(1), TIER(0), HOSTNAME_LABEL]
    assert cluster.node("Node205").labels[TIER(0)] == "S2"
    with pytest.raises(TopologyError, match="no topology named 'nope'.*fabric, nvlink"):
        parse_topology_yaml(data, topology="nope")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"topology": "x"}, "non-empty list"),
        ([{"name": "x"}], "'topology' name"),
        ([{"topology": "x", "tree": {"switches": []}, "flat": True}], "exactly one"),
        ([{"topology": "x", "tree": {"switches": [{"switch": "s", "nodes": "n[1-"}]}}], "never closed"),
        ([{"topology": "x", "tree": {"switches": [{"switch": "s", "node": "n1"}]}}], "unknown key"),
        ([{"topology": "x", "block": {"blocks": [{"nodes": "n1"}]}}], "'block' name"),
        ([{"topology": "x", "block": {"block_sizes": [3, 5], "blocks": []}}], "power-of-two"),
    ],
)
def test_topology_yaml_errors(data, message):
    with pytest.raises(TopologyError, match=message):
        parse_topology_yaml(data, file="topology.yaml")


def test_flat_topology_has_no_nodes():
    with pytest.raises(TopologyError, match="flat"):
        cluster_from_slurm(parse_topology_yaml([{"topology": "all", "flat": True}]))


def test_skeleton_only_yaml_without_nodes_is_an_error():
    data = [{"topology": "t", "tree": {"switches": [{"switch": "S1", "children": "S2"}, {"switch": "S2"}]}}]
    with pytest.raises(TopologyError, match="no switch lists any nodes"):
        cluster_from_slurm(parse_topology_yaml(data))
