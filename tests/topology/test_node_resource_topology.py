"""NUMA layouts from NodeResourceTopology objects: files, NodeLists, generated clusters, the live cluster.

The object's shape is noderesourcetopology-api's ``topology.node.k8s.io/v1alpha2`` (zones of type
``Node`` named ``node-<id>`` with ``resources`` {name, capacity, allocatable, available} and
``costs``; ``attributes`` ``topologyManagerPolicy``/``topologyManagerScope``; the v1alpha1
``topologyPolicies`` values such as ``SingleNUMANodePodLevel``), as NFD's topology-updater writes it.
"""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest
import yaml

from helpers import FIXTURES_DIR
from helpers.apiserver import DEFAULT_RESOURCES, FakeApiServer, FakeResource
from workloadmap.errors import TopologyError
from workloadmap.numa import TopologyManager, TopologyManagerPolicy, TopologyManagerScope
from workloadmap.topology import (
    example_cluster,
    generate_cluster,
    generate_nodelist,
    get_preset,
    load_cluster,
    node_topology_objects,
    read_node_topologies,
)

NUMA = FIXTURES_DIR / "numa"
OBJECTS = yaml.safe_load((NUMA / "node-topology.yaml").read_text())


def test_zones_resources_costs_and_stated_settings():
    layouts = read_node_topologies([OBJECTS], file="nrt.yaml")
    a, b = layouts["gpu-a"], layouts["gpu-b"]
    assert a.ids == (0, 1)
    cpu = a.zone(0).resource("cpu")
    assert (cpu.capacity, cpu.allocatable, cpu.available) == (32, 30, 30)  # two reserved CPUs
    assert a.zone(0).costs == ((0, 10), (1, 21)) and a.distance(1, 0) == 21
    assert (a.manager.policy, a.manager.scope, a.manager.stated) == (
        TopologyManagerPolicy.SINGLE_NUMA_NODE,
        TopologyManagerScope.CONTAINER,
        True,
    )
    assert b.manager.policy is TopologyManagerPolicy.RESTRICTED and b.manager.scope is TopologyManagerScope.CONTAINER
    assert b.amounts("nvidia.com/gpu", "available") == {0: 1, 1: 4}


def test_older_objects_state_the_policy_in_topology_policies():
    obj = copy.deepcopy(OBJECTS["items"][0])
    del obj["attributes"]
    obj["topologyPolicies"] = ["SingleNUMANodePodLevel"]
    manager = read_node_topologies([obj])["gpu-a"].manager
    assert (manager.policy, manager.scope) == (TopologyManagerPolicy.SINGLE_NUMA_NODE, TopologyManagerScope.POD)


def test_defaults_apply_where_the_object_states_nothing():
    obj = copy.deepcopy(OBJECTS["items"][0])
    del obj["attributes"]
    defaults = TopologyManager(TopologyManagerPolicy.BEST_EFFORT, TopologyManagerScope.POD)
    manager = read_node_topologies([obj], defaults=defaults)["gpu-a"].manager
    assert (manager.policy, manager.scope, manager.stated) == (
        TopologyManagerPolicy.BEST_EFFORT,
        TopologyManagerScope.POD,
        False,
    )


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda o: o["zones"][0]["resources"][0].update(available="lots"), "zones[0].resources[0].available"),
        (lambda o: o["zones"][0]["resources"][0].update(available="-1"), "zones[0].resources[0].available"),
        (lambda o: o["metadata"].pop("name"), "metadata.name"),
        (lambda o: o.update(zones="node-0"), "zones"),
        (lambda o: o["attributes"][0].update(value="strict"), "attributes"),
    ],
)
def test_bad_objects_name_the_field(change, field):
    obj = copy.deepcopy(OBJECTS["items"][0])
    change(obj)
    with pytest.raises(TopologyError) as caught:
        read_node_topologies([obj], file="nrt.yaml")
    assert f"field {field}" in str(caught.value)
    assert caught.value.location.file == "nrt.yaml"


def test_other_kinds_are_refused():
    with pytest.raises(TopologyError, match="expected NodeResourceTopology objects"):
        read_node_topologies([{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}])


def test_load_cluster_with_node_topology_and_flags():
    manager = TopologyManager(TopologyManagerPolicy.BEST_EFFORT)
    cluster = load_cluster(NUMA / "nodes.yaml", node_topology=NUMA / "node-topology.yaml", topology_manager=manager)
    # Both objects state their policy: the flag changes neither.
    assert cluster.node("gpu-a").numa.manager.policy is TopologyManagerPolicy.SINGLE_NUMA_NODE
    assert cluster.node("gpu-b").numa.manager.policy is TopologyManagerPolicy.RESTRICTED
    assert load_cluster(NUMA / "nodes.yaml").node("gpu-a").numa is None


def test_objects_for_no_node_of_the_cluster_are_an_error(tmp_path):
    other = copy.deepcopy(OBJECTS)
    for item in other["items"]:
        item["metadata"]["name"] += "-elsewhere"
    path = tmp_path / "nrt.yaml"
    path.write_text(yaml.safe_dump(other))
    with pytest.raises(TopologyError, match="names no node of the cluster"):
        load_cluster(NUMA / "nodes.yaml", node_topology=path)


def test_generated_nodes_carry_numa_zones_and_round_trip(tmp_path):
    spec = get_preset("h100-numa")
    cluster = generate_cluster(spec)
    layout = cluster.nodes[0].numa
    assert len(layout.zones) == 2
    assert layout.amounts("nvidia.com/gpu", "capacity") == {0: 4, 1: 4}  # 8 GPUs on 2 NUMA nodes
    assert layout.amounts("cpu", "capacity") == {0: 112, 1: 112}
    assert layout.amounts("memory", "capacity")[0] == Fraction(1000 * 2**30)
    assert layout.manager.policy is TopologyManagerPolicy.SINGLE_NUMA_NODE and layout.manager.stated
    # The generated List (Nodes, then their objects) reads back to the same layouts.
    path = tmp_path / "gen.yaml"
    path.write_text(yaml.safe_dump(generate_nodelist(spec)))
    read_back = load_cluster(path)
    assert [node.numa for node in read_back.nodes] == [
        node.numa.__class__(node.numa.zones, node.numa.manager, str(path)) for node in cluster.nodes
    ]
    assert len(list(node_topology_objects(cluster))) == 16
    assert example_cluster("nvl72-4rack").nodes[0].numa is None


def test_odd_counts_split_with_the_remainder_on_the_first_numa_nodes():
    cluster = generate_cluster(get_preset("h100-numa").__class__(name="odd", racks=1, nodes_per_rack=1,
                                                                 gpus_per_node=3, cpu=7, numa_nodes=2))  # fmt: skip
    layout = cluster.nodes[0].numa
    assert layout.amounts("nvidia.com/gpu", "capacity") == {0: 2, 1: 1}
    assert layout.amounts("cpu", "capacity") == {0: 4, 1: 3}


def test_the_live_cluster_gives_its_objects(tmp_path, monkeypatch):
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    nrt = FakeResource("topology.node.k8s.io", "v1alpha2", "noderesourcetopologies", "noderesourcetopology",
                       "NodeResourceTopology", namespaced=False)  # fmt: skip
    with FakeApiServer([*DEFAULT_RESOURCES, nrt]) as server:
        nodes = yaml.safe_load((NUMA / "nodes.yaml").read_text())
        server.add_all([*nodes["items"], *OBJECTS["items"]])
        monkeypatch.setenv("KUBECONFIG", str(server.write_kubeconfig(tmp_path / "kubeconfig")))
        cluster = load_cluster("cluster:")
        assert cluster.node("gpu-b").numa.amounts("cpu", "available") == {0: 6, 1: 32}
        assert {method for method, _ in server.requests} == {"GET"}
    with FakeApiServer() as server:  # no such CRD served: nodes without layouts
        server.add_all(nodes["items"])
        monkeypatch.setenv("KUBECONFIG", str(server.write_kubeconfig(tmp_path / "kubeconfig2")))
        assert load_cluster("cluster:").node("gpu-a").numa is None
