"""The NUMA options and output of ``inspect``, ``place`` and ``topology show|generate``."""

from __future__ import annotations

import json

import yaml

from helpers import FIXTURES_DIR

NUMA = FIXTURES_DIR / "numa"
ON_NODES = ["-t", str(NUMA / "nodes.yaml"), "--pods", str(NUMA / "pods.yaml")]
ON_NODES += ["--node-topology", str(NUMA / "node-topology.yaml")]


def test_inspect_shows_qos_and_exclusive_cpus(wmap):
    result = wmap("inspect", str(NUMA / "train.yaml"))
    assert result.exit_code == 0, result.output
    assert "Guaranteed, exclusive CPUs: trainer" in result.stdout
    component = json.loads(wmap("inspect", str(NUMA / "train.yaml"), "-o", "json").stdout)["components"][0]
    assert (component["qosClass"], component["exclusiveCpus"]) == ("Guaranteed", {"trainer": True})


def test_inspect_json_keeps_its_fields_and_adds_the_new_ones(wmap):
    component = json.loads(wmap("inspect", str(FIXTURES_DIR / "jobset-leader-workers.yaml"), "-o", "json").stdout)[
        "components"
    ][0]
    assert {"name", "replicas", "pods", "podResources", "gpusPerPod", "gpus", "components"} <= set(component)
    assert (component["qosClass"], component["exclusiveCpus"]) == ("Burstable", {"trainer": False})


def test_topology_show_numa_table_and_json(wmap):
    args = ["topology", "show", str(NUMA / "nodes.yaml"), "--node-topology", str(NUMA / "node-topology.yaml"), "--numa"]
    result = wmap(*args)
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.stdout.splitlines()[2:]]
    assert rows[2] == ["gpu-b", "node-0", "restricted/container", "6/30", "154Gi/250Gi", "1/4"]
    data = json.loads(wmap(*args, "-o", "json").stdout)
    node = data["nodes"][0]
    assert (node["node"], node["topologyManagerPolicy"], node["stated"]) == ("gpu-a", "single-numa-node", True)
    assert node["zones"][0]["resources"]["cpu"] == {"capacity": "32", "allocatable": "30", "available": "30"}


def test_topology_show_numa_without_layouts_says_how_to_get_them(wmap):
    result = wmap("topology", "show", "preset:small-16", "--numa")
    assert result.exit_code == 0 and "--node-topology" in result.stdout


def test_place_names_the_numa_cause_and_fix(wmap):
    result = wmap("place", str(NUMA / "train-8gpu.yaml"), *ON_NODES)
    assert result.exit_code == 0, result.output
    assert "needs 8 nvidia.com/gpu aligned on one NUMA node; nodes have 4 nvidia.com/gpu per NUMA node" in result.stdout
    assert "fix: split the container" in result.stdout
    assert "fits" in wmap("place", str(NUMA / "train-split.yaml"), *ON_NODES).stdout.splitlines()[0]
    result = wmap("place", str(NUMA / "train-8gpu.yaml"), *ON_NODES, "--fail-unfit")
    assert result.exit_code == 3


def test_place_flags_for_nodes_that_do_not_say(wmap, tmp_path):
    generated = wmap("topology", "generate", "--preset", "small-16", "--racks", "1", "--numa-nodes", "2")
    assert generated.exit_code == 0, generated.output
    items = yaml.safe_load(generated.stdout)["items"]
    assert [item["kind"] for item in items].count("NodeResourceTopology") == 8
    path = tmp_path / "cluster.yaml"
    path.write_text(generated.stdout)
    workload = str(NUMA / "train-8gpu.yaml")
    assert wmap("place", workload, "-t", str(path), "--fail-unfit").exit_code == 0  # policy none
    result = wmap("place", workload, "-t", str(path), "--topology-manager-policy", "single-numa-node", "--fail-unfit")
    assert result.exit_code == 3 and "8 of 8 node(s)" in result.stdout
    scoped = ["--topology-manager-policy", "single-numa-node", "--topology-manager-scope", "pod", "--fail-unfit"]
    assert wmap("place", str(NUMA / "train-split.yaml"), "-t", str(path), *scoped).exit_code == 3
    assert wmap("place", str(NUMA / "train-split.yaml"), "-t", str(path), *scoped[:2], "--fail-unfit").exit_code == 0


def test_bad_numa_options_are_usage_errors(wmap):
    workload = str(NUMA / "train.yaml")
    for option in (
        ["--topology-manager-policy", "strict"],
        ["--topology-manager-scope", "node"],
        ["--topology-manager-policy-options", "max-allowable-numa-nodes=4"],
        ["--topology-manager-policy-options", "prefer-closest-numa-nodes=maybe"],
        ["--topology-manager-policy-options", "fast=true"],
    ):
        result = wmap("place", workload, *option)
        assert result.exit_code == 2, (option, result.output)


def test_a_bad_node_topology_file_is_a_located_error(wmap, tmp_path):
    bad = tmp_path / "nrt.yaml"
    bad.write_text("apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\nmetadata: {name: gpu-a}\n"
                   "zones: [{name: node-0, type: Node, resources: [{name: cpu, available: 2x}]}]\n")  # fmt: skip
    result = wmap("place", str(NUMA / "train.yaml"), "-t", str(NUMA / "nodes.yaml"), "--node-topology", str(bad))
    assert result.exit_code == 1
    assert "nrt.yaml" in result.stderr and "zones[0].resources[0].available" in result.stderr
    assert "Traceback" not in result.output


def test_topology_show_numa_escapes_hostile_zone_names_and_refuses_hostile_node_names(wmap, tmp_path):
    # Issue 16's output hygiene on the NUMA table too: a zone name with an escape sequence is shown.
    layouts = yaml.safe_load_all((NUMA / "node-topology.yaml").read_text())
    docs = []
    for doc in layouts:
        for item in doc.get("items", [doc]):
            for zone in item.get("zones") or []:
                zone["name"] = f"{zone['name']}\x1b[2J"
        docs.append(doc)
    (tmp_path / "zones.yaml").write_text(yaml.safe_dump_all(docs))
    zones = str(tmp_path / "zones.yaml")
    result = wmap("topology", "show", str(NUMA / "nodes.yaml"), "--node-topology", zones, "--numa")
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and "node-0\\x1b[2J" in result.stdout
    # A node name with an escape sequence is no node name (issue 26): refused, the escape shown.
    hostile = "gpu-a\x1b[2J"

    def renamed(path, out):
        docs = list(yaml.safe_load_all(path.read_text()))
        for doc in docs:
            for item in doc.get("items", [doc]):
                if item["metadata"]["name"] == "gpu-a":
                    item["metadata"]["name"] = hostile
                    labels = item["metadata"].get("labels") or {}
                    if "kubernetes.io/hostname" in labels:
                        labels["kubernetes.io/hostname"] = hostile
        out.write_text(yaml.safe_dump_all(docs))
        return str(out)

    nodes = renamed(NUMA / "nodes.yaml", tmp_path / "nodes.yaml")
    layouts = renamed(NUMA / "node-topology.yaml", tmp_path / "nrt.yaml")
    result = wmap("topology", "show", nodes, "--node-topology", layouts, "--numa")
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "'gpu-a\\x1b[2J' is not a valid node name" in result.stderr
