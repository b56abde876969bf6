"""Tests for workloadmap.topology (cluster model, level validation, domain tree) and the topology CLI."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
import yaml
from typer.testing import CliRunner

from helpers import FIXTURES_DIR
from workloadmap.cli.main import app
from workloadmap.errors import TopologyError
from workloadmap.labels import HOSTNAME as HOSTNAME_LABEL
from workloadmap.topology import Cluster, Node, NodeCapacity, domain_tree, validate_levels

F = Fraction
GPU = "nvidia.com/gpu"
SPINE = "example.com/spine"
LEAF = "example.com/leaf"
FIXTURES = FIXTURES_DIR / "topology"


def gpu_node(name, spine, leaf, gpus=8, used=0, ready=True, extra=None):
    labels = {HOSTNAME_LABEL: name}
    if spine is not None:
        labels[SPINE] = spine
    if leaf is not None:
        labels[LEAF] = leaf
    allocatable = {"cpu": F(64), GPU: F(gpus), **(extra or {})}
    return Node(name=name, labels=labels, allocatable=allocatable, ready=ready, used={GPU: F(used)} if used else {})


# ---------------------------------------------------------------------------- Node


def test_node_free_subtracts_used_and_clamps_at_zero():
    node = Node("n", allocatable={"cpu": F(4), GPU: F(8)}, used={"cpu": F(6), GPU: F(3)})
    assert node.free() == {"cpu": F(0), GPU: F(5)}


def test_unready_node_has_no_free_resources_or_gpus():
    node = gpu_node("n", "s", "l", gpus=8, ready=False)
    assert node.free() == {}
    assert node.free_gpus() == 0
    assert node.gpus() == 8  # still counted in the total


def test_node_gpus_sum_nvidia_and_amd():
    node = Node("n", allocatable={GPU: F(4), "amd.com/gpu": F(2), "example.com/fpga": F(1)}, used={"amd.com/gpu": F(1)})
    assert node.gpus() == 6
    assert node.free_gpus() == 5


# ---------------------------------------------------------------------------- NodeCapacity


def test_node_capacity_defaults_and_zero_gpus_dropped():
    assert NodeCapacity().allocatable() == {
        "cpu": F(96),
        "memory": F(1024 * 2**30),
        "pods": F(110),
        "ephemeral-storage": F(3500 * 2**30),
        GPU: F(8),
    }
    assert GPU not in NodeCapacity(gpus=0).allocatable()
    assert NodeCapacity(gpus=4, gpu_resource="amd.com/gpu").allocatable()["amd.com/gpu"] == 4


@pytest.mark.parametrize("kwargs", [{"cpu": "lots"}, {"memory": "-1Gi"}, {"gpus": -1}])
def test_node_capacity_rejects_bad_values(kwargs):
    with pytest.raises(TopologyError):
        NodeCapacity(**kwargs).allocatable()


# ---------------------------------------------------------------------------- validate_levels


def test_validate_levels_accepts_widest_first_with_hostname_last():
    assert validate_levels([SPINE, LEAF, HOSTNAME_LABEL]) == [SPINE, LEAF, HOSTNAME_LABEL]
    assert validate_levels((SPINE,)) == [SPINE]  # hostname is optional, as in KAI/Kueue


@pytest.mark.parametrize(
    ("levels", "message", "field"),
    [
        ([], "at least one", "levels"),
        ([HOSTNAME_LABEL, LEAF], "only be the last", "levels[0]"),
        ([LEAF, LEAF], "listed twice", "levels[1]"),
        ([LEAF, ""], "non-empty", "levels[1]"),
        ([LEAF, 3], "non-empty", "levels[1]"),
        ([f"l{i}" for i in range(17)], "at most 16", "levels"),
        ("a,b", "expected a list", "levels"),
    ],
)
def test_validate_levels_rejects(levels, message, field):
    with pytest.raises(TopologyError, match=message) as caught:
        validate_levels(levels, file="topo.yaml")
    assert caught.value.field == field
    assert str(caught.value).startswith("topo.yaml")


# ---------------------------------------------------------------------------- domain tree


def two_spine_cluster():
    # leaf "l1" exists under both spines: they are different domains.
    nodes = [
        gpu_node("a1", "sa", "l1", used=2),
        gpu_node("a2", "sa", "l1"),
        gpu_node("a3", "sa", "l2", ready=False),
        gpu_node("b1", "sb", "l1", used=8),
        gpu_node("x1", None, None, gpus=4),
    ]
    return Cluster("c", nodes=nodes, levels=[SPINE, LEAF, HOSTNAME_LABEL])


def test_domain_tree_keys_domains_by_path_not_by_value():
    root = domain_tree(two_spine_cluster())
    assert list(root.children) == ["sa", "sb", None]
    sa_l1 = root.find(["sa", "l1"])
    sb_l1 = root.find(["sb", "l1"])
    assert sa_l1 is not sb_l1
    assert [node.name for node in sa_l1.nodes] == ["a1", "a2"]
    assert [node.name for node in sb_l1.nodes] == ["b1"]
    assert sa_l1.id == "sa/l1"
    assert sa_l1.path == ("sa", "l1")
    assert len(root.at_level(LEAF)) == 4  # sa/l1, sa/l2, sb/l1, <none>/<none>


def test_domain_tree_counts_nodes_ready_and_gpus():
    root = domain_tree(two_spine_cluster())
    assert (root.node_count, root.ready_nodes) == (5, 4)
    assert root.gpus_total == 8 * 4 + 4
    # free: a1 6, a2 8, a3 unready 0, b1 0, x1 4
    assert root.gpus_free == 18
    sa = root.children["sa"]
    assert (sa.node_count, sa.ready_nodes, sa.gpus_total, sa.gpus_free) == (3, 2, 24, 14)
    assert root.find(["sb", "l1"]).gpus_free == 0
    assert root.find(["sa", "l1", "a1"]).gpus_free == 6


def test_domain_tree_puts_unlabelled_nodes_under_none():
    root = domain_tree(two_spine_cluster())
    missing = root.children[None]
    assert missing.level == SPINE and missing.value is None
    assert missing.children[None].id == "<none>/<none>"
    assert [node.name for node in missing.nodes] == ["x1"]


def test_domain_tree_with_other_levels_and_fractional_gpus():
    nodes = [
        Node("n1", labels={LEAF: "l"}, allocatable={GPU: F(1, 2)}),
        Node("n2", labels={LEAF: "l"}, allocatable={GPU: F(1)}),
    ]
    root = domain_tree(Cluster("c", nodes=nodes, levels=[SPINE]), levels=[LEAF])
    assert root.children["l"].gpus_total == F(3, 2)
    assert root.children["l"].children == {}  # last level: leaves hold the nodes


def test_domain_to_dict_depth_and_node_names():
    root = domain_tree(two_spine_cluster())
    data = root.to_dict(max_depth=1, node_names=True)
    assert data["nodes"] == 5 and data["readyNodes"] == 4
    assert data["gpus"] == {"total": 36, "free": 18}  # counts are numbers, as nodes are
    sa = data["children"][0]
    assert sa["value"] == "sa" and "children" not in sa
    assert sa["nodeNames"] == ["a1", "a2", "a3"]
    full = root.to_dict()
    assert full["children"][0]["children"][0]["children"][0]["id"] == "sa/l1/a1"
    json.dumps(full)  # JSON-ready


def test_cluster_helpers():
    cluster = two_spine_cluster()
    assert cluster.node("b1").labels[SPINE] == "sb"
    assert cluster.node("zz") is None
    assert cluster.level_values(LEAF) == {"l1", "l2"}
    assert cluster.domain_tree().node_count == 5


# ---------------------------------------------------------------------------- CLI


runner = CliRunner()


def invoke_topology(args: list[str], **kwargs):
    """``wmap topology ARGS`` through the root app, as the console script runs it (commands load lazily)."""
    return runner.invoke(app, ["topology", *args], **kwargs)


def test_cli_show_tree_counts_free_over_total():
    result = invoke_topology(["show", str(FIXTURES / "nodes-topograph.yaml"), "--pods", str(FIXTURES / "pods.yaml")])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()[1:]  # below the levels line
    # 6 nodes, gpu-5 NotReady and gpu-6 cordoned (Ready,SchedulingDisabled: ready, as kubectl counts it, but
    # its GPUs are not free); gpu-1 runs 4 + 2 GPUs of two non-terminated pods.
    assert "6 nodes (5 ready, 1 cordoned), GPUs 26/48 free" in lines[0]
    assert any("fabric.topograph.run/tier-0=l-1: 2 nodes, GPUs 10/16 free" in line for line in lines)
    assert not any("kubernetes.io/hostname=" in line for line in lines)


def test_cli_show_hosts_and_explicit_levels():
    result = invoke_topology(
        [
            "show",
            str(FIXTURES / "nodes-topograph.yaml"),
            "--levels",
            "fabric.topograph.run/tier-1,kubernetes.io/hostname",
            "--hosts",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "kubernetes.io/hostname=gpu-6: 1 node (1 ready, 1 cordoned), GPUs 0/8 free" in result.output


def test_cli_show_json_and_yaml():
    result = invoke_topology(["show", "preset:small-16", "-o", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["levels"][-1] == HOSTNAME_LABEL
    assert data["domains"]["nodes"] == 16 and data["domains"]["gpus"] == {"total": 128, "free": 128}
    assert [child["value"] for child in data["domains"]["children"]] == ["spine-01"]
    result = invoke_topology(["show", str(FIXTURES / "topology-tree.conf"), "--gpus-per-node", "4", "-o", "yaml"])
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(result.output)
    assert data["domains"]["gpus"]["total"] == 72  # 18 nodes x 4


def test_cli_show_topology_object():
    result = invoke_topology(
        [
            "show",
            str(FIXTURES / "nodes-topograph.yaml"),
            "--topology-object",
            str(FIXTURES / "kai-topology.yaml"),
            "-o",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["levels"] == [
        "fabric.topograph.run/tier-1",
        "fabric.topograph.run/tier-0",
        HOSTNAME_LABEL,
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "does-not-exist.yaml"], "does-not-exist.yaml: no such file"),
        (["show", str(FIXTURES / "pods.yaml")], "pass it as the pods file"),
        (["show", "preset:nope"], "unknown preset 'nope'"),
        (["show", str(FIXTURES / "nodes-topograph.yaml"), "--gpus-per-node", "4"], "only apply to Slurm"),
        (["show", str(FIXTURES / "nodes-topograph.yaml"), "--levels", "kubernetes.io/hostname,x"], "last"),
    ],
)
def test_cli_errors_print_one_line_and_exit_1(args, message):
    result = invoke_topology(args)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("error: ")
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_cli_generate_writes_a_nodelist_that_show_reads(tmp_path):
    target = tmp_path / "nodes.json"
    result = invoke_topology(
        [
            "generate",
            "--racks",
            "3",
            "--nodes-per-rack",
            "2",
            "--gpus-per-node",
            "4",
            "--racks-per-block",
            "2",
            "-o",
            "json",
            "--file",
            str(target),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(target.read_text())
    assert data["kind"] == "NodeList" and len(data["items"]) == 6
    result = invoke_topology(["show", str(target), "-o", "json"])
    tree = json.loads(result.output)["domains"]
    assert tree["gpus"]["total"] == 24
    # 3 racks, 2 per leaf: leaf-001 holds 2 racks (4 nodes), leaf-002 one rack.
    leaves = tree["children"][0]["children"]
    assert [(leaf["value"], leaf["nodes"]) for leaf in leaves] == [("leaf-001", 4), ("leaf-002", 2)]


def test_cli_generate_default_preset_yaml_and_presets_listing():
    result = invoke_topology(["generate"])
    assert result.exit_code == 0, result.output
    assert len(yaml.safe_load(result.output)["items"]) == 72
    result = invoke_topology(["generate", "--preset", "h100-2spine", "--racks", "2"])
    assert len(yaml.safe_load(result.output)["items"]) == 16  # preset shape, 2 racks of 8
    result = invoke_topology(["presets"])
    assert result.exit_code == 0
    assert any(line.startswith("nvl72-4rack ") and "(default)" in line for line in result.output.splitlines())
    listed = json.loads(invoke_topology(["presets", "-o", "json"]).output)
    assert {item["name"] for item in listed} >= {"nvl72-4rack", "h100-2spine", "small-16"}


def test_cli_show_hosts_without_a_hostname_level_lists_nodes_under_the_last_level():
    result = invoke_topology(
        [
            "show",
            str(FIXTURES / "nodes-topograph.yaml"),
            "--topology-object",
            str(FIXTURES / "kueue-topology.yaml"),
            "--hosts",
        ],
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "levels: topology.kubernetes.io/zone > accelerator.topograph.run/domain"
    at = lines.index(next(line for line in lines if "domain=<none>" in line))
    assert "node gpu-5 (NotReady), GPUs 0/8 free" in lines[at + 1]
    data = json.loads(
        invoke_topology(
            [
                "show",
                str(FIXTURES / "nodes-topograph.yaml"),
                "--topology-object",
                str(FIXTURES / "kueue-topology.yaml"),
                "--hosts",
                "-o",
                "json",
            ],
        ).output
    )
    nvl1 = data["domains"]["children"][0]["children"][0]
    assert (nvl1["value"], nvl1["nodeNames"]) == ("nvl-1", ["gpu-1", "gpu-2"])
