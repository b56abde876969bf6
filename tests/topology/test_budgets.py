"""The node budget: counted across every hostlist of a file, NodeList items and generated clusters, before building."""

from __future__ import annotations

import json

import pytest

from workloadmap import BudgetError, Budgets
from workloadmap.budgets import applied
from workloadmap.topology import SimulationSpec, generate_cluster, generate_nodelist, load_cluster


def _conf(lines: int, per_line: int) -> str:
    text = "SwitchName=core Switches=leaf[1-%d]\n" % lines
    return text + "".join(f"SwitchName=leaf{i} Nodes=n{i}-[1-{per_line}]\n" for i in range(1, lines + 1))


def test_hostlists_are_counted_across_the_whole_file(tmp_path):
    """Each line is within the per-hostlist cap; together they are 300 x 999,999 nodes."""
    path = tmp_path / "topology.conf"
    path.write_text(_conf(300, 999_999))
    with pytest.raises(BudgetError) as caught:
        load_cluster(str(path), gpus_per_node=8)
    error = caught.value
    assert error.file == str(path) and error.field == "Nodes"
    assert "999,999 nodes (hostlist 'n1-[1-999999]')" in error.message
    assert "limit of 200,000 nodes" in error.message and "--max-nodes" in error.message


def test_the_budget_counts_the_lines_before_it(tmp_path):
    path = tmp_path / "topology.conf"
    path.write_text(_conf(3, 400))
    assert len(load_cluster(str(path), gpus_per_node=8).nodes) == 1200
    with applied(Budgets(nodes=1000)), pytest.raises(BudgetError, match="1,200 nodes .* limit of 1,000"):
        load_cluster(str(path), gpus_per_node=8)


def test_topology_yaml_hostlists_share_one_count(tmp_path):
    switches = [{"switch": "core", "children": "leaf[1-3]"}] + [
        {"switch": f"leaf{i}", "nodes": f"n{i}-[1-400]"} for i in range(1, 4)
    ]
    path = tmp_path / "topology.yaml"
    path.write_text(json.dumps([{"topology": "t", "cluster_default": True, "tree": {"switches": switches}}]))
    with applied(Budgets(nodes=1000)), pytest.raises(BudgetError, match="limit of 1,000 nodes"):
        load_cluster(str(path), gpus_per_node=8)


def test_nodelist_items_are_counted_before_nodes_are_built(tmp_path):
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(generate_nodelist(SimulationSpec(racks=2, nodes_per_rack=18))))
    assert len(load_cluster(str(path)).nodes) == 36
    with applied(Budgets(nodes=20)), pytest.raises(BudgetError) as caught:
        load_cluster(str(path))
    assert caught.value.field == "items" and "36 nodes (NodeList items)" in caught.value.message


def test_generated_clusters_are_counted_from_their_shape():
    with applied(Budgets(nodes=100)), pytest.raises(BudgetError, match=r"180 nodes \(10 racks x 18 nodes per rack\)"):
        generate_cluster(SimulationSpec(racks=10, nodes_per_rack=18))
