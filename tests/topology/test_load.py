"""Tests for workloadmap.topology_sources: NodeLists, pods, Topology objects, models, detection."""

from __future__ import annotations

import io
import json
from fractions import Fraction

import pytest
import yaml

from helpers import FIXTURES_DIR
from workloadmap.errors import TopologyError
from workloadmap.labels import HOSTNAME as HOSTNAME_LABEL
from workloadmap.topology import (
    apply_pods,
    cluster_from_model,
    detect_format,
    detect_levels,
    detect_schemes,
    load_cluster,
    nodes_from_documents,
    read_topology_object,
    topology_object_levels,
)

F = Fraction
GPU = "nvidia.com/gpu"
FIXTURES = FIXTURES_DIR / "topology"
NODES = FIXTURES / "nodes-topograph.yaml"
ZONE = "topology.kubernetes.io/zone"
TIER = "fabric.topograph.run/tier-{}".format
DOMAIN = "accelerator.topograph.run/domain"
SUB_DOMAIN = "accelerator.topograph.run/sub-domain"


def node_doc(name, labels=None, allocatable=None, conditions=None, **spec):
    status = {"allocatable": allocatable if allocatable is not None else {"cpu": "8", GPU: "8"}}
    if conditions is not None:
        status["conditions"] = conditions
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": spec,
        "status": status,
    }


def write(tmp_path, name, data):
    path = tmp_path / name
    if isinstance(data, str):
        path.write_text(data)
    elif name.endswith(".json"):
        path.write_text(json.dumps(data))
    else:
        path.write_text(
            yaml.safe_dump_all(data)
            if isinstance(data, list) and name.endswith("-multi.yaml")
            else yaml.safe_dump(data)
        )
    return path


# ---------------------------------------------------------------------------- NodeList


def test_nodelist_fixture():
    cluster = load_cluster(NODES)
    assert cluster.name == "nodes-topograph"
    assert [node.name for node in cluster.nodes] == [f"gpu-{i}" for i in range(1, 7)]
    gpu1 = cluster.node("gpu-1")
    assert gpu1.allocatable["cpu"] == F(255, 2)  # 127500m
    assert gpu1.allocatable["memory"] == 2000 * 2**30
    assert gpu1.allocatable["ephemeral-storage"] == 2**40
    assert gpu1.allocatable[GPU] == 8
    assert [node.usable for node in cluster.nodes] == [True, True, True, True, False, False]
    # gpu-5 is NotReady, gpu-6 is cordoned: told apart, both take no pods
    assert [(node.ready, node.unschedulable) for node in cluster.nodes[4:]] == [(False, False), (True, True)]
    assert cluster.levels == [ZONE, TIER(1), TIER(0), DOMAIN, HOSTNAME_LABEL]


def test_nodelist_json_list_and_multidoc_and_single_node(tmp_path):
    items = [node_doc("a", {TIER(0): "l1"}), node_doc("b", {TIER(0): "l2"})]
    raw_api = {
        "apiVersion": "v1",
        "kind": "NodeList",
        "items": [{k: v for k, v in item.items() if k != "kind"} for item in items],
    }
    for path in (
        write(tmp_path, "nodes.json", raw_api),
        write(tmp_path, "nodes-multi.yaml", items),
        write(tmp_path, "list.yaml", {"apiVersion": "v1", "kind": "List", "items": items}),
    ):
        cluster = load_cluster(path)
        assert [node.name for node in cluster.nodes] == ["a", "b"], path
        assert cluster.levels == [TIER(0), HOSTNAME_LABEL]
    single = load_cluster(write(tmp_path, "one.yaml", node_doc("solo")))
    assert [node.name for node in single.nodes] == ["solo"]
    assert single.node("solo").labels[HOSTNAME_LABEL] == "solo"  # filled in from the name
    assert single.levels == [HOSTNAME_LABEL]


def test_nodelist_extended_resources_and_capacity_fallback(tmp_path):
    doc = node_doc("a", allocatable={"cpu": "4", "amd.com/gpu": 2, "example.com/fpga": "1", "hugepages-2Mi": "1Gi"})
    cluster = load_cluster(write(tmp_path, "a.yaml", doc))
    assert cluster.node("a").allocatable == {"cpu": 4, "amd.com/gpu": 2, "example.com/fpga": 1, "hugepages-2Mi": 2**30}
    doc = {"kind": "Node", "metadata": {"name": "b"}, "status": {"capacity": {GPU: "4"}}}
    assert load_cluster(write(tmp_path, "b.yaml", doc)).node("b").allocatable == {GPU: 4}


@pytest.mark.parametrize(
    ("conditions", "spec", "ready", "usable"),
    [
        ([{"type": "Ready", "status": "True"}], {}, True, True),
        ([{"type": "Ready", "status": "False"}], {}, False, False),
        ([{"type": "Ready", "status": "Unknown"}], {}, False, False),
        ([{"type": "MemoryPressure", "status": "False"}], {}, False, False),  # conditions without Ready
        (None, {}, True, True),  # hand-written node, no conditions at all
        ([{"type": "Ready", "status": "True"}], {"unschedulable": True}, True, False),  # cordoned
        ([{"type": "Ready", "status": "True"}], {"unschedulable": False}, True, True),
    ],
)
def test_node_readiness(conditions, spec, ready, usable):
    (node,) = nodes_from_documents([node_doc("n", conditions=conditions, **spec)], file="x.yaml")
    assert node.ready is ready and node.usable is usable
    assert node.unschedulable is (spec.get("unschedulable") is True)


def test_node_taints_are_read():
    taints = [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2025-01-01T00:00:00Z"},
    ]
    (node,) = nodes_from_documents([node_doc("n", taints=taints)], file="x.yaml")
    assert [str(taint) for taint in node.taints] == [
        "nvidia.com/gpu=present:NoSchedule",
        "node.kubernetes.io/unreachable:NoExecute",
    ]


@pytest.mark.parametrize(
    ("documents", "message", "document", "field"),
    [
        ([node_doc("a", allocatable={"cpu": "2x"})], "invalid quantity '2x'", "Node/a", "status.allocatable.cpu"),
        ([node_doc("a"), node_doc("a")], "appears twice", "Node/a", "metadata.name"),
        ([{"kind": "Node", "metadata": {}}], "missing or empty name", "#1", "metadata.name"),
        ([{"kind": "Pod", "metadata": {"name": "p"}}], "expected kind Node", "#1", "kind"),
        ([{"kind": "List", "items": [{"kind": "Pod"}]}], "expected kind Node, got 'Pod'", "#1 items[0]", None),
        ([{"kind": "NodeList", "items": {}}], "expected a list", "#1", "items"),
        ([node_doc("a", labels={"x": ["y"]})], "label value must be a string", "Node/a", "metadata.labels.x"),
        ([node_doc("a", conditions={"Ready": True})], "expected a list", "Node/a", "status.conditions"),
        ([{"kind": "NodeList", "items": []}], "no Node objects", None, None),
        (["text"], "got str", "#1", None),
        (
            [node_doc("a", taints=[{"key": "k", "effect": "Sometimes"}])],
            "is not one of",
            "Node/a",
            "spec.taints[0].effect",
        ),
        ([node_doc("a", taints={"key": "k"})], "expected a list", "Node/a", "spec.taints"),
    ],
)
def test_nodelist_errors(documents, message, document, field):
    with pytest.raises(TopologyError, match=message) as caught:
        nodes_from_documents(documents, file="nodes.yaml")
    assert (caught.value.file, caught.value.document, caught.value.field) == ("nodes.yaml", document, field)
    assert str(caught.value).startswith("nodes.yaml")


def test_invalid_yaml_names_the_line(tmp_path):
    path = write(tmp_path, "bad.yaml", "kind: NodeList\nitems:\n  - metadata: {name: a\n")
    with pytest.raises(TopologyError, match=r"bad.yaml, document #1: invalid YAML at line \d+"):
        load_cluster(path)


# ---------------------------------------------------------------------------- pods


def test_pods_fixture_charges_non_terminated_pods_on_known_nodes():
    cluster = load_cluster(NODES, pods_file=FIXTURES / "pods.yaml")
    gpu1 = cluster.node("gpu-1")
    # train-0: GPUs 4 (limit), memory 64Gi (limit), cpu max(4 app, 8 init) = 8; train-1 (Pending but bound): 2 GPUs.
    assert gpu1.used == {GPU: 6, "memory": 64 * 2**30, "cpu": 8, "pods": 2}
    assert gpu1.free()[GPU] == 2
    assert gpu1.free()["pods"] == 108
    assert cluster.node("gpu-2").used == {}  # Succeeded and Failed pods release their node


def test_apply_pods_returns_count_and_reports_bad_quantities():
    cluster = load_cluster(NODES)
    pod = {
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {"nodeName": "gpu-3", "containers": [{"resources": {"requests": {"cpu": "1"}}}]},
    }
    assert apply_pods(cluster, [pod, {"kind": "PodList", "items": [pod]}], file="pods.yaml") == 2
    assert cluster.node("gpu-3").used == {"cpu": 2, "pods": 2}
    bad = {
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {"nodeName": "gpu-3", "containers": [{"resources": {"requests": {"cpu": "lots"}}}]},
    }
    with pytest.raises(TopologyError, match="invalid quantity") as caught:
        apply_pods(cluster, [bad], file="pods.yaml")
    assert caught.value.document == "Pod/ns/p"
    assert caught.value.field == "spec.containers[0].resources.requests.cpu"
    with pytest.raises(TopologyError, match="expected kind Pod"):
        apply_pods(cluster, [node_doc("x")], file="pods.yaml")


# ---------------------------------------------------------------------------- Topology objects and levels


def test_kai_and_kueue_topology_objects():
    assert read_topology_object(FIXTURES / "kai-topology.yaml") == [TIER(1), TIER(0), HOSTNAME_LABEL]
    cluster = load_cluster(NODES, topology_object=FIXTURES / "kueue-topology.yaml")
    assert cluster.levels == [ZONE, DOMAIN]  # exactly as stated, no hostname appended


def topology(levels, api_version="kai.scheduler/v1alpha1"):
    return {
        "apiVersion": api_version,
        "kind": "Topology",
        "metadata": {"name": "t"},
        "spec": {"levels": [{"nodeLabel": level} for level in levels]},
    }


@pytest.mark.parametrize(
    ("documents", "message", "field"),
    [
        ([topology([HOSTNAME_LABEL, ZONE])], "only be the last", "spec.levels[0]"),
        ([topology([ZONE, ZONE])], "listed twice", "spec.levels[1]"),
        ([topology([])], "at least one", "spec.levels"),
        ([topology([ZONE], "kueue.x-k8s.io/v1alpha1")], "unsupported apiVersion", "apiVersion"),
        (
            [{"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "spec": {"levels": ["x"]}}],
            "nodeLabel",
            "spec.levels[0]",
        ),
        ([topology([ZONE]), topology([ZONE])], "2 Topology objects", None),
        ([node_doc("a")], "no Topology object", None),
    ],
)
def test_topology_object_errors(documents, message, field):
    with pytest.raises(TopologyError, match=message) as caught:
        topology_object_levels(documents, file="topo.yaml")
    assert caught.value.file == "topo.yaml"
    assert caught.value.field == field


def test_kueue_v1beta1_accepted():
    assert topology_object_levels([topology([ZONE], "kueue.x-k8s.io/v1beta1")]) == [ZONE]


def test_explicit_levels_are_validated_and_must_exist():
    cluster = load_cluster(NODES, levels=[TIER(1), HOSTNAME_LABEL])
    assert cluster.levels == [TIER(1), HOSTNAME_LABEL]
    with pytest.raises(TopologyError, match="no node of .* has the label 'example.com/rack'") as caught:
        load_cluster(NODES, levels=[TIER(1), "example.com/rack"])
    assert caught.value.field == "levels[1]"
    with pytest.raises(TopologyError, match="only be the last"):
        load_cluster(NODES, levels=[HOSTNAME_LABEL, TIER(1)])
    with pytest.raises(ValueError, match="not both"):
        load_cluster(NODES, levels=[ZONE], topology_object=FIXTURES / "kai-topology.yaml")


# ---------------------------------------------------------------------------- level detection


def labelled(*label_sets):
    documents = [node_doc(f"n{index}", labels) for index, labels in enumerate(label_sets)]
    return nodes_from_documents(documents, file="x.yaml")


@pytest.mark.parametrize(
    ("labels", "levels", "schemes"),
    [
        # Topograph v1: widest = highest tier, then domain and sub-domain.
        (
            {TIER(0): "s1", TIER(2): "s3", TIER(1): "s2", DOMAIN: "nvl1", SUB_DOMAIN: "nvl1.rack01"},
            [TIER(2), TIER(1), TIER(0), DOMAIN, SUB_DOMAIN],
            ["topograph", "topograph-accelerator"],
        ),
        ({TIER(10): "a", TIER(9): "b", TIER(0): "c"}, [TIER(10), TIER(9), TIER(0)], ["topograph"]),
        (
            {
                "network.topology.nvidia.com/leaf": "l",
                "network.topology.nvidia.com/core": "c",
                "network.topology.nvidia.com/spine": "s",
                "network.topology.nvidia.com/accelerator": "nvl",
            },
            [
                "network.topology.nvidia.com/core",
                "network.topology.nvidia.com/spine",
                "network.topology.nvidia.com/leaf",
                "network.topology.nvidia.com/accelerator",
            ],
            ["topograph-legacy", "topograph-legacy-accelerator"],
        ),
        (
            {
                "cloud.google.com/gce-topology-subblock": "sb",
                "cloud.google.com/gce-topology-block": "b",
                "cloud.google.com/gce-topology-host": "h",
                ZONE: "us-central1-a",
            },
            [
                ZONE,
                "cloud.google.com/gce-topology-block",
                "cloud.google.com/gce-topology-subblock",
                "cloud.google.com/gce-topology-host",
            ],
            ["zone", "gke"],
        ),
        (
            {
                "topology.k8s.aws/network-node-layer-3": "nn-3",
                "topology.k8s.aws/network-node-layer-1": "nn-1",
                "topology.k8s.aws/network-node-layer-2": "nn-2",
                "topology.k8s.aws/ultraserver-id": "us-1",
            },
            [
                "topology.k8s.aws/network-node-layer-1",
                "topology.k8s.aws/network-node-layer-2",
                "topology.k8s.aws/network-node-layer-3",
                "topology.k8s.aws/ultraserver-id",
            ],
            ["eks", "eks-ultraserver"],
        ),
        # Topograph docs/reference/node-labels.md "Without Topograph": on EKS P6e-GB200 the Capacity Block
        # ID labels the NVLink domain (NVIDIA/topograph pkg/providers/aws/instance_topology.go derives
        # accelerator.topograph.run/domain from the same CapacityBlockId).
        (
            {"topology.k8s.aws/network-node-layer-1": "nn-1", "topology.k8s.aws/capacity-block-id": "cr-0a1b"},
            ["topology.k8s.aws/network-node-layer-1", "topology.k8s.aws/capacity-block-id"],
            ["eks", "eks-capacity-block"],
        ),
        (
            {"oci.oraclecloud.com/host.rack_id": "r", "oci.oraclecloud.com/host.network_block_id": "nb"},
            ["oci.oraclecloud.com/host.network_block_id", "oci.oraclecloud.com/host.rack_id"],
            ["oci"],
        ),
        (
            {"nvidia.com/gpu.clique": "0f1e.1", TIER(0): "leaf"},
            [TIER(0), "nvidia.com/gpu.clique"],
            ["topograph", "gpu-clique"],
        ),
        ({ZONE: "z"}, [ZONE], ["zone"]),
        ({"example.com/rack": "r"}, [], []),
    ],
)
def test_detect_levels_per_scheme(labels, levels, schemes):
    nodes = labelled(labels)
    assert detect_levels(nodes) == levels + [HOSTNAME_LABEL]
    assert detect_schemes(nodes) == schemes


def test_detection_uses_labels_present_on_any_node_only():
    nodes = labelled({TIER(0): "a"}, {TIER(1): "s", TIER(0): "b"}, {})
    assert detect_levels(nodes) == [TIER(1), TIER(0), HOSTNAME_LABEL]


def test_detection_prefers_topograph_over_cloud_fabric_labels():
    nodes = labelled({TIER(0): "a", "cloud.google.com/gce-topology-block": "b"})
    assert detect_levels(nodes) == [TIER(0), HOSTNAME_LABEL]
    # legacy Topograph beats GKE too
    nodes = labelled({"network.topology.nvidia.com/leaf": "a", "cloud.google.com/gce-topology-block": "b"})
    assert detect_levels(nodes) == ["network.topology.nvidia.com/leaf", HOSTNAME_LABEL]


# ---------------------------------------------------------------------------- simulation models


def test_current_model_fixture_gets_topograph_labels():
    cluster = load_cluster(FIXTURES / "model-nvl.yaml", gpus_per_node=4)
    assert len(cluster.nodes) == 12
    n105 = cluster.node("n105")
    assert n105.labels[TIER(0)] == "leaf-1-2"
    assert n105.labels[TIER(1)] == "spine-1"
    assert n105.labels[TIER(2)] == "core"
    assert n105.labels[DOMAIN] == "nvl-1"
    assert n105.labels[SUB_DOMAIN] == "rack2"
    assert n105.labels[ZONE] == "z1"
    assert n105.labels["topology.kubernetes.io/region"] == "eu-north"  # inherited from the root switch
    n201 = cluster.node("n201")
    assert n201.labels["example.com/pool"] == "spare"
    assert SUB_DOMAIN not in n201.labels
    assert n201.allocatable[GPU] == 4
    assert cluster.levels == [ZONE, TIER(2), TIER(1), TIER(0), DOMAIN, SUB_DOMAIN, HOSTNAME_LABEL]
    tree = cluster.domain_tree()
    assert tree.gpus_total == 48
    assert tree.find(["z1", "core", "spine-1"]).node_count == 8


def test_legacy_model_fixture():
    cluster = load_cluster(FIXTURES / "model-legacy.yaml")
    assert [node.name for node in cluster.nodes] == ["h1-1", "h1-2", "h2-1", "h2-2"]
    node = cluster.node("h2-1")
    assert (node.labels[TIER(0)], node.labels[TIER(1)], node.labels[DOMAIN], node.labels[ZONE]) == (
        "mid-2",
        "top",
        "nvl-b",
        "zone2",
    )
    assert node.allocatable[GPU] == 8  # the NodeCapacity default


def test_block_only_model_has_no_fabric_levels():
    cluster = cluster_from_model(
        {"blocks": [{"nodes": ["a[1-2]"], "annotations": {"accelerator.topology.test/domain": "d1"}}]}
    )
    assert cluster.levels == [DOMAIN, HOSTNAME_LABEL]


@pytest.mark.parametrize(
    ("model", "message", "field"),
    [
        (
            {
                "switches": {"a": {"switches": ["c"]}, "b": {"switches": ["c"]}},
                "blocks": [{"switch": "c", "nodes": ["n1"]}],
            },
            "more than one parent",
            "switches.b.switches",
        ),
        (
            {"blocks": [{"switch": "x", "nodes": ["n1"]}, {"switch": "y", "nodes": ["n[1-2]"]}]},
            "two blocks",
            "blocks[1].nodes",
        ),
        ({"blocks": [{"switch": "x", "nodes": []}]}, "must list nodes", "blocks[0].nodes"),
        ({"blocks": [{"nodes": ["n[1-"]}]}, "never closed", "blocks[0].nodes"),
        (
            {
                "switches": {"a": {"switches": ["b"]}, "b": {"switches": ["a"]}},
                "blocks": [{"switch": "a", "nodes": ["n"]}],
            },
            "cycle",
            None,
        ),
        ({"switches": {"a": {"name": "b"}}, "blocks": [{"nodes": ["n"]}]}, "differs from its key", "switches.a.name"),
        ({"switches": {}, "blocks": [], "extra": 1}, "unknown top-level key", "extra"),
        ({"switches": {"a": {}}}, "declares no nodes", "blocks"),
    ],
)
def test_model_errors(model, message, field):
    with pytest.raises(TopologyError, match=message) as caught:
        cluster_from_model(model, file="model.yaml")
    assert caught.value.file == "model.yaml"
    if field is not None:
        assert caught.value.field == field


# ---------------------------------------------------------------------------- format detection, load_cluster


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("nodes-topograph.yaml", "nodelist"),
        ("topology-tree.conf", "slurm-conf"),
        ("topology-block.conf", "slurm-conf"),
        ("topology.yaml", "slurm-yaml"),
        ("model-nvl.yaml", "model"),
        ("model-legacy.yaml", "model"),
    ],
)
def test_detect_format_of_fixtures(name, kind):
    assert detect_format(FIXTURES / name) == kind


def test_detect_format_preset_and_errors(tmp_path):
    assert detect_format("preset:small-16") == "preset"
    for content, message in [
        ("", "empty"),
        ("# just a comment\n", "no documents"),
        ("hello: world\n", "not a recognised topology source"),
        ("- 1\n- 2\n", "not a recognised topology source"),
        ("ClusterName=foo\n", "not a recognised topology source"),
    ]:
        with pytest.raises(TopologyError, match=message):
            detect_format(write(tmp_path, "x.txt", content))
    with pytest.raises(TopologyError, match="is a directory"):
        detect_format(tmp_path)
    with pytest.raises(TopologyError, match="Topology object"):
        detect_format(FIXTURES / "kai-topology.yaml")
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"kind: Node\nname: \xe9\n")
    with pytest.raises(TopologyError, match="UTF-8"):
        detect_format(path)


def test_load_cluster_slurm_capacity_options_and_topology_name():
    cluster = load_cluster(
        FIXTURES / "topology-block.conf", gpus_per_node=4, cpus_per_node="72", memory_per_node="512Gi", pods_per_node=64
    )
    assert cluster.nodes[0].allocatable == {
        "cpu": 72,
        "memory": 512 * 2**30,
        "pods": 64,
        "ephemeral-storage": 3500 * 2**30,
        GPU: 4,
    }
    tree = load_cluster(FIXTURES / "topology.yaml", slurm_topology="fabric")
    assert tree.levels[0] == "slurm.wmap.dev/switch-tier-1"
    with pytest.raises(TopologyError, match="invalid per-node memory"):
        load_cluster(FIXTURES / "topology-block.conf", memory_per_node="lots")
    with pytest.raises(TopologyError, match="only the topology 'default'"):
        load_cluster(FIXTURES / "topology-block.conf", slurm_topology="fabric")
    with pytest.raises(TopologyError, match="only applies to Slurm"):
        load_cluster(NODES, slurm_topology="fabric")
    with pytest.raises(TopologyError, match="does not apply to a preset|do not apply to a preset"):
        load_cluster("preset:small-16", gpus_per_node=2)


def test_load_cluster_from_stdin(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("SwitchName=s1 Nodes=n[1-3]\n"))
    cluster = load_cluster("-")
    assert [node.name for node in cluster.nodes] == ["n1", "n2", "n3"]
    assert cluster.source == "stdin"  # never a cluster called "-"


def test_load_preset():
    cluster = load_cluster("preset:h100-2spine")
    assert len(cluster.nodes) == 64
    assert cluster.levels == [TIER(2), TIER(1), TIER(0), HOSTNAME_LABEL]


def test_cluster_from_objects_in_memory():
    from workloadmap.topology import cluster_from_objects

    nodes = [node_doc("a", {TIER(0): "l1"}), {"kind": "NodeList", "items": [node_doc("b", {TIER(0): "l2"})]}]
    pods = [
        {
            "kind": "Pod",
            "metadata": {"name": "p"},
            "spec": {"nodeName": "b", "containers": [{"resources": {"limits": {GPU: "3"}}}]},
        }
    ]
    cluster = cluster_from_objects(nodes, pods, name="live", source="context prod")
    assert [node.name for node in cluster.nodes] == ["a", "b"]
    assert cluster.node("b").free_gpus() == 5
    assert cluster.levels == [TIER(0), HOSTNAME_LABEL]
    stated = cluster_from_objects(nodes, topology_objects=[topology([TIER(0)])])
    assert stated.levels == [TIER(0)]
    with pytest.raises(TopologyError, match="context prod.*has the label 'x'"):
        cluster_from_objects(nodes, levels=["x"], source="context prod")
