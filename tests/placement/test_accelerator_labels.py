"""The automatic NVLink-domain requirement treats every accelerator label scheme alike (issue 7).

Before the vocabulary lived in one module, placement knew three NVLink-domain keys and level
detection five, so EKS UltraServer nodes (``topology.k8s.aws/ultraserver-id``, EKS HyperPod's
NVLink domain; ``../shared/reference/topology-formats.md`` section 10) never got the requirement
that GPU-Operator cliques (``nvidia.com/gpu.clique``) got.
"""

from __future__ import annotations

import json

import pytest
import yaml

from helpers import FIXTURES_DIR
from workloadmap.labels import (
    EKS_CAPACITY_BLOCK,
    EKS_ULTRASERVER,
    GPU_CLIQUE,
    TOPOGRAPH_ACCELERATOR_DOMAIN,
    TOPOGRAPH_LEGACY_ACCELERATOR,
)
from workloadmap.topology import NVLINK_DOMAIN_LABELS, accelerator_level

LWS = str(FIXTURES_DIR / "leaderworkerset.yaml")


def _nodelist(domain_label: str) -> dict:
    """8 nodes of 8 GPUs in 2 NVLink domains of 4 nodes, told apart only by ``domain_label``."""
    items = []
    for index in range(8):
        name = f"node-{index}"
        labels = {"kubernetes.io/hostname": name, domain_label: f"domain-{index // 4}"}
        allocatable = {"cpu": "96", "memory": "1024Gi", "nvidia.com/gpu": "8", "pods": "110"}
        items.append(
            {"kind": "Node", "metadata": {"name": name, "labels": labels}, "status": {"allocatable": allocatable}}
        )
    return {"apiVersion": "v1", "kind": "NodeList", "items": items}


@pytest.mark.parametrize(
    "label",
    [GPU_CLIQUE, EKS_ULTRASERVER, EKS_CAPACITY_BLOCK, TOPOGRAPH_ACCELERATOR_DOMAIN, TOPOGRAPH_LEGACY_ACCELERATOR],
)
def test_every_nvlink_domain_key_is_the_accelerator_level(label):
    assert label in NVLINK_DOMAIN_LABELS
    assert accelerator_level([label, "kubernetes.io/hostname"]) == label


def _placement(wmap, tmp_path, label: str) -> dict:
    nodes = tmp_path / f"{label.replace('/', '_')}.yaml"
    nodes.write_text(yaml.safe_dump(_nodelist(label)))
    result = wmap("place", LWS, "-t", str(nodes), "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_ultraserver_and_clique_clusters_get_the_same_answer(wmap, tmp_path):
    # LWS: 2 groups of a CPU leader + 3 workers x 8 GPUs. One group (24 GPUs) fits a 4-node domain
    # (32 GPUs), so each group's subgroups are required inside one NVLink domain, whatever the key.
    clique = json.dumps(_placement(wmap, tmp_path, GPU_CLIQUE)).replace(GPU_CLIQUE, "<domain>")
    ultraserver = json.dumps(_placement(wmap, tmp_path, EKS_ULTRASERVER)).replace(EKS_ULTRASERVER, "<domain>")
    clique_report, ultraserver_report = json.loads(clique), json.loads(ultraserver)
    clique_report["topology"].pop("name")
    ultraserver_report["topology"].pop("name")
    assert ultraserver_report == clique_report

    workers = [
        sub for group in ultraserver_report["podGroups"] for sub in group["subGroups"] if sub["name"] == "workers"
    ]
    assert [(sub["requiredLevel"], sub["requiredSource"]) for sub in workers] == [("<domain>", "auto")] * 2


def test_capacity_block_clusters_get_the_nvlink_answer(wmap, tmp_path):
    # Topograph docs/reference/node-labels.md: on EKS P6e-GB200 without Topograph the Capacity Block ID is
    # the NVLink domain, so such a cluster gets the answer a GPU-Operator clique cluster gets.
    clique = json.dumps(_placement(wmap, tmp_path, GPU_CLIQUE)).replace(GPU_CLIQUE, "<domain>")
    block = json.dumps(_placement(wmap, tmp_path, EKS_CAPACITY_BLOCK)).replace(EKS_CAPACITY_BLOCK, "<domain>")
    clique_report, block_report = json.loads(clique), json.loads(block)
    clique_report["topology"].pop("name")
    block_report["topology"].pop("name")
    assert block_report == clique_report
