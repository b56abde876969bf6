"""``wmap topology show`` of a large cluster at 80 columns: a summary in a screen or two, not a line per rack.

The cluster is generated as a user would (``wmap topology generate``): 2,000 nodes, 16 a rack,
4 racks a leaf switch, 8 leaves a spine. The expected counts follow from those numbers: 125
racks under 32 leaves (the last leaf holds one rack) under 4 spines.
"""

from __future__ import annotations

import re

WIDTH = 80
SHAPE = ("--racks", "125", "--nodes-per-rack", "16", "--racks-per-block", "4", "--blocks-per-spine", "8")


def test_2000_nodes_print_each_leaf_with_its_alike_racks_in_one_line(wmap, monkeypatch, tmp_path):
    topology = tmp_path / "nodes.json"
    assert wmap("topology", "generate", *SHAPE, "-o", "json", "--file", str(topology)).exit_code == 0
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    result = wmap("topology", "show", str(topology))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(len(line) <= WIDTH for line in lines), [line for line in lines if len(line) > WIDTH]
    assert len(lines) <= 120, f"{len(lines)} lines for 2,000 nodes"
    text = " ".join(" ".join(line.strip("│├└─ ") for line in lines).split())
    assert text.count("fabric.topograph.run/tier-0=leaf-") == 32
    runs = re.findall(r"domain=(nvl-\d+)\.\.(nvl-\d+) \((\d+) alike\): 16 nodes, GPUs 64/64 free", text)
    alone = re.findall(r"domain=nvl-\d+: 16 nodes", text)
    assert len(runs) == 31 and all(count == "4" for _, _, count in runs) and len(alone) == 1
    assert runs[0][:2] == ("nvl-001", "nvl-004") and runs[-1][:2] == ("nvl-121", "nvl-124")


def test_hosts_asked_for_are_all_listed(wmap, monkeypatch, tmp_path):
    topology = tmp_path / "nodes.json"
    assert wmap("topology", "generate", *SHAPE, "-o", "json", "--file", str(topology)).exit_code == 0
    result = wmap("topology", "show", str(topology), "--hosts")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("kubernetes.io/hostname=node-") == 2_000
    assert "alike" not in result.stdout, "racks listed with their nodes are never folded into a run"
