"""Tests for workloadmap.topology.stream: JSON NodeLists and PodLists read item by item.

The expected cluster is always the one the whole-document readers build from ``json.load`` (or
from the same nodes written as YAML), so the stream reader is checked against the reference path,
never against itself. Nodes are shaped as ``kubectl get nodes -o json`` prints them
(``helpers.kubectl``).
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from helpers.kubectl import kubectl_node, kubectl_pod, write_list
from workloadmap.budgets import Budgets, applied
from workloadmap.errors import BudgetError, TopologyError
from workloadmap.loader import Limits
from workloadmap.resources import pod_demand
from workloadmap.topology import apply_pods, cluster_from_objects, load_cluster, nodes_from_documents
from workloadmap.topology import stream as stream_module
from workloadmap.topology.stream import NODE_FIELDS, prune_item, read_topology_input

NODES = 60


def _nodes(count: int = NODES) -> list[dict]:
    nodes = [kubectl_node(index, ready=index != 7) for index in range(count)]
    if count > 11:
        nodes[3]["spec"]["unschedulable"] = True
        nodes[5]["metadata"]["labels"]["gpu-note"] = "café ✓"  # multi-byte UTF-8, cut across chunks below
        del nodes[9]["status"]["allocatable"]  # capacity is read instead
        del nodes[11]["kind"]  # raw API lists omit kind on items
    return nodes


def _pods(nodes: list[dict]) -> list[dict]:
    names = [node["metadata"]["name"] for node in nodes]
    pods = [kubectl_pod(index, names[index % len(names)], gpus=1 + index % 8) for index in range(len(names) * 2)]
    pods.append(kubectl_pod(9000, names[0], phase="Succeeded"))  # does not use capacity
    pods.append(kubectl_pod(9001, None, phase="Pending"))  # not bound
    pods.append(kubectl_pod(9002, "elsewhere"))  # a node the cluster does not have
    return pods


def _write(path: Path, items: list[dict], kind: str) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        write_list(handle, iter(items), kind=kind)
    return path


@pytest.fixture(autouse=True)
def streamed(monkeypatch):
    """Stream every JSON file, however small (only large ones are, by default)."""
    monkeypatch.setattr(stream_module, "STREAM_ABOVE", 0)


@pytest.fixture(params=[1 << 20, 97], ids=["1MiB-chunks", "97-byte-chunks"])
def chunk(request, monkeypatch):
    """Read in the default chunks, and in tiny ones that cut tokens, numbers and characters apart."""
    monkeypatch.setattr(stream_module, "CHUNK_BYTES", request.param)
    return request.param


def test_stream_gives_the_cluster_of_the_whole_document_readers(tmp_path, chunk):
    nodes = _nodes()
    pods = _pods(nodes)
    nodes_file = _write(tmp_path / "nodes.json", nodes, "List")
    pods_file = _write(tmp_path / "pods.json", pods, "List")

    streamed = load_cluster(nodes_file, pods_file=pods_file)

    whole = json.loads(nodes_file.read_text())
    expected = cluster_from_objects([whole], name="nodes", source=str(nodes_file))
    apply_pods(expected, [json.loads(pods_file.read_text())], file=str(pods_file))
    assert streamed.nodes == expected.nodes
    assert streamed.levels == expected.levels
    assert streamed.notes == expected.notes
    assert [node.ready for node in streamed.nodes].count(False) == 1
    assert streamed.nodes[3].unschedulable and streamed.nodes[5].labels["gpu-note"] == "café ✓"
    assert sum(1 for node in streamed.nodes if node.used) == NODES  # every node got its pods

    # The same nodes written as YAML take the whole-file reader.
    yaml_file = tmp_path / "nodes.yaml"
    yaml_file.write_text(yaml.safe_dump(whole))
    assert load_cluster(yaml_file, pods_file=pods_file).nodes == streamed.nodes


def test_items_keep_only_what_the_readers_use():
    node = kubectl_node(1)
    kept = prune_item(node)
    assert set(kept) == set(NODE_FIELDS)
    assert set(kept["metadata"]) == {"name", "labels"}
    assert kept["status"]["conditions"][3] == {"type": "Ready", "status": "True"}
    assert "images" not in kept["status"] and "managedFields" not in kept["metadata"]
    assert len(json.dumps(kept)) * 3 < len(json.dumps(node))
    assert nodes_from_documents([kept]) == nodes_from_documents([node])
    pod = kubectl_pod(1, "n")
    assert set(prune_item(pod)["spec"]["containers"][0]) == {"resources"}
    assert prune_item({"kind": "NodeResourceTopology", "zones": [1]}) == {"kind": "NodeResourceTopology", "zones": [1]}
    # A field of the wrong type is kept as it is, for the reader to name.
    assert prune_item({"kind": "Node", "status": "broken", "spec": [1]}) == {
        "kind": "Node",
        "status": "broken",
        "spec": [1],
    }


def test_small_files_are_parsed_whole_with_the_same_cluster(tmp_path, monkeypatch):
    nodes = _nodes(NODES)
    path = _write(tmp_path / "nodes.json", nodes, "NodeList")
    monkeypatch.setattr(stream_module, "STREAM_ABOVE", path.stat().st_size + 1)
    assert read_topology_input(str(path)).text == path.read_text()
    whole = load_cluster(path)
    monkeypatch.setattr(stream_module, "STREAM_ABOVE", path.stat().st_size)
    assert read_topology_input(str(path)).document is not None
    assert load_cluster(path).nodes == whole.nodes


def test_a_wrong_field_is_reported_as_by_the_whole_document_reader(tmp_path, chunk):
    nodes = _nodes(5)
    nodes[2]["status"]["allocatable"]["cpu"] = "lots"
    path = _write(tmp_path / "nodes.json", nodes, "NodeList")
    with pytest.raises(TopologyError) as streamed:
        load_cluster(path)
    with pytest.raises(TopologyError) as whole:
        nodes_from_documents([json.loads(path.read_text())], file=str(path))
    assert str(streamed.value) == str(whole.value)
    assert "Node/gpu-node-000002" in str(streamed.value) and "status.allocatable.cpu" in str(streamed.value)


def _node_text(count: int = 4) -> str:
    buffer = io.StringIO()
    write_list(buffer, iter(_nodes(count)), kind="NodeList")
    return buffer.getvalue()


def _cut_in_item(text: str, item: int) -> str:
    start = text.index('"name": "gpu-node-%06d"' % item)
    return text[:start]


BAD_INPUTS = [
    ("truncated", lambda: _cut_in_item(_node_text(), 2), ["#1 items[2]", "invalid JSON at line"]),
    ("cut-after-items", lambda: _node_text().rsplit('"kind"', 1)[0], ["#1", "invalid JSON at line"]),
    ("items-not-a-list", lambda: '{"kind": "NodeList", "items": {"a": 1}}', ["#1", "items", "expected a list"]),
    ("item-not-an-object", lambda: '{"kind": "NodeList", "items": [1]}', ["#1 items[0]", "expected a Node object"]),
    (
        "depth-bomb",
        lambda: '{"kind": "NodeList", "items": [{"metadata": ' + "[" * 100_000 + "]" * 100_000 + "}]}",
        ["#1 items[0]", "nested too deeply"],
    ),
    ("nan", lambda: '{"kind": "NodeList", "items": [{"x": NaN}]}', ["#1 items[0]", "NaN is not a JSON number"]),
    ("huge-integer", lambda: '{"kind": "List", "items": [{"x": ' + "9" * 5000 + "}]}", ["items[0]", "4300 digits"]),
    ("extra-data", lambda: _node_text(1) + "{}", ["invalid JSON", "Extra data"]),
    ("missing-comma", lambda: '{"kind": "List", "items": [{"a": 1} {"b": 2}]}', ["items[0]", "',' delimiter"]),
    ("no-items", lambda: '{"kind": "NodeList", "items": []}', ["no Node objects found"]),
    ("bad-key", lambda: '{"kind": "NodeList", ]}', ["#1", "invalid JSON at line 1 column 22"]),
]


@pytest.mark.parametrize(("text", "expected"), [case[1:] for case in BAD_INPUTS], ids=[case[0] for case in BAD_INPUTS])
def test_bad_json_gives_one_located_line(tmp_path, chunk, text, expected):
    path = tmp_path / "nodes.json"
    path.write_text(text())
    with pytest.raises(TopologyError) as caught:
        load_cluster(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(path))
    for part in expected:
        assert part in message


def test_line_and_column_agree_with_json(tmp_path, chunk):
    text = _node_text(3)
    broken = text.replace('"cpu": "192"', '"cpu": "192" "x"', 2)  # the second node's capacity
    path = tmp_path / "nodes.json"
    path.write_text(broken)
    with pytest.raises(json.JSONDecodeError) as reference:
        json.loads(broken)
    with pytest.raises(TopologyError) as caught:
        read_topology_input(str(path))
    assert f"line {reference.value.lineno} column {reference.value.colno}" in str(caught.value)


def test_huge_values_are_refused_without_holding_them(tmp_path, monkeypatch):
    monkeypatch.setattr(stream_module, "CHUNK_BYTES", 4096)
    monkeypatch.setattr(stream_module, "MAX_VALUE_BYTES", 64 * 1024)
    path = tmp_path / "nodes.json"
    path.write_text('{"kind": "NodeList", "items": [{"metadata": {"name": "' + "a" * 200_000 + '"}}]}')
    with pytest.raises(TopologyError, match=r"items\[0\].*not valid JSON within its first 0 MiB"):
        load_cluster(path)
    path.write_text('{"kind": "NodeList", "items": [{"metadata": {"name": "' + "a" * 200_000)  # never closed
    with pytest.raises(TopologyError, match=r"items\[0\].*not valid JSON within its first"):
        load_cluster(path)


def test_limits_on_size_items_and_encoding(tmp_path, chunk):
    path = tmp_path / "nodes.json"
    path.write_text(_node_text(4))
    with pytest.raises(TopologyError, match="input larger than 40,000 bytes .refused; raise it with --max-input-bytes"):
        read_topology_input(str(path), limits=Limits(max_bytes=40_000))
    with pytest.raises(TopologyError, match=r"field items: a list of more than 3 items"):
        read_topology_input(str(path), limits=Limits(max_list_items=3))
    data = _node_text(2).encode()
    path.write_bytes(data[:3000] + b"\xff" + data[3000:])
    with pytest.raises(TopologyError, match=r"not UTF-8 text \(byte 3000\)"):
        load_cluster(path)


def test_other_files_keep_the_whole_file_readers(tmp_path, monkeypatch):
    flow = tmp_path / "flow.yaml"  # flow-style YAML starts with a brace too
    flow.write_text("{kind: NodeList, items: [{kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: 8}}}]}")
    assert [node.name for node in load_cluster(flow).nodes] == ["n1"]
    conf = tmp_path / "topology.conf"
    conf.write_text("SwitchName=s1 Nodes=n[1-2]\n")
    assert read_topology_input(str(conf)).text == conf.read_text()
    text = _node_text(3)
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert [node.name for node in load_cluster("-").nodes] == [f"gpu-node-{index:06d}" for index in range(3)]


def test_a_list_with_node_topologies_keeps_them(tmp_path):
    nodes = _nodes(2)
    topology = {
        "apiVersion": "topology.node.k8s.io/v1alpha2",
        "kind": "NodeResourceTopology",
        "metadata": {"name": nodes[0]["metadata"]["name"]},
        "topologyPolicies": ["SingleNUMANodeContainerLevel"],
        "zones": [
            {"name": "node-0", "type": "Node", "resources": [{"name": "cpu", "capacity": "96", "allocatable": "96"}]},
            {"name": "node-1", "type": "Node", "resources": [{"name": "cpu", "capacity": "96", "allocatable": "96"}]},
        ],
    }
    path = _write(tmp_path / "nodes.json", [*nodes, topology], "List")
    streamed = load_cluster(path)
    yaml_file = tmp_path / "nodes.yaml"
    yaml_file.write_text(yaml.safe_dump(json.loads(path.read_text())))
    whole = load_cluster(yaml_file)
    assert [replace(node, numa=None) for node in streamed.nodes] == [replace(node, numa=None) for node in whole.nodes]
    numa, expected = streamed.nodes[0].numa, whole.nodes[0].numa
    assert numa is not None and expected is not None
    assert (numa.zones, numa.manager) == (expected.zones, expected.manager)


def test_pods_file_is_streamed_too(tmp_path, chunk):
    nodes = _nodes(4)
    cluster = cluster_from_objects(nodes, name="c")
    pods = _pods(nodes)
    path = _write(tmp_path / "pods.json", pods, "PodList")
    expected = cluster_from_objects(nodes, name="c")
    apply_pods(expected, pods, file=str(path))
    streamed = load_cluster(_write(tmp_path / "nodes.json", nodes, "List"), pods_file=path)
    assert [node.used for node in streamed.nodes] == [node.used for node in expected.nodes]
    assert cluster.nodes[0].used == {}


def test_running_pods_charge_each_pods_own_effective_request(tmp_path):
    """Pods sharing a template share one demand computation; each node still gets every pod's own request."""
    nodes = _nodes(3)
    names = [node["metadata"]["name"] for node in nodes]
    pods = [kubectl_pod(index, names[index % 3], gpus=1 + index % 2) for index in range(12)]
    pods[4]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = 48  # a number, not "48": same amount
    pods[5]["spec"]["overhead"] = {"cpu": "1"}
    expected: dict[str, dict[str, Fraction]] = {name: {} for name in names}
    for pod in pods:
        used = expected[pod["spec"]["nodeName"]]
        for resource, amount in {**pod_demand(pod["spec"]).requests, "pods": Fraction(1)}.items():
            used[resource] = used.get(resource, Fraction(0)) + amount
    cluster = load_cluster(
        _write(tmp_path / "nodes.json", nodes, "List"), pods_file=_write(tmp_path / "pods.json", pods, "List")
    )
    assert {node.name: node.used for node in cluster.nodes} == expected
    broken = [*pods, kubectl_pod(99, names[0])]
    broken[-1]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "-1"
    with pytest.raises(TopologyError, match=r"Pod/research/train-000099.*must be greater than or equal to 0"):
        load_cluster(
            _write(tmp_path / "nodes.json", nodes, "List"), pods_file=_write(tmp_path / "bad.json", broken, "List")
        )


def test_the_command_line_gives_one_line_and_exit_1(wmap, tmp_path):
    text = _node_text(3)
    path = tmp_path / "nodes.json"
    path.write_text(_cut_in_item(text, 1))
    result = wmap("topology", "show", str(path))
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.output
    assert str(path) in lines[0] and "#1 items[1]" in lines[0] and "invalid JSON at line" in lines[0]
    piped = wmap("topology", "show", "-", "-o", "json", stdin=text)  # kubectl get nodes -o json | wmap ...
    assert piped.exit_code == 0, piped.output
    root = json.loads(piped.stdout)["domains"]
    assert (root["nodes"], root["gpus"]) == (3, {"total": 24, "free": 24})


def test_the_node_budget_stops_the_reading(tmp_path):
    path = tmp_path / "nodes.json"
    path.write_text(_node_text(5))
    with applied(Budgets(nodes=3)), pytest.raises(BudgetError) as caught:
        load_cluster(path)
    message = str(caught.value)
    assert message.startswith(f"{path}, document #1, field items: 4 nodes (List items) is over the limit of 3 nodes")
    assert "--max-nodes" in message
    with applied(Budgets(nodes=5)):
        assert len(load_cluster(path).nodes) == 5


def test_text_standard_input_longer_than_a_chunk_is_read_whole(monkeypatch):
    monkeypatch.setattr(stream_module, "CHUNK_BYTES", 64)
    conf = "# ünïcödé comment\n" * 10 + "SwitchName=s1 Nodes=n[1-3]\n"  # more bytes than characters
    monkeypatch.setattr("sys.stdin", io.StringIO(conf))
    assert read_topology_input("-").text == conf
