"""Time gang placement of a 3-group workload on generated clusters of 16 to 100,000 nodes.

Run: /work/venv/bin/python bench/bench_placement.py [--sizes 16,1000,10000,100000]
Nodes are built directly (no topology reader): blocks of 32 racks, racks of 16 nodes split into
two 8-node NVLink cliques, 8 GPUs per node, a seeded share of nodes partly used.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workloadmap.exporters import export, volcano_hypernodes  # noqa: E402
from workloadmap.placement import place  # noqa: E402
from workloadmap.topology import Cluster, Node  # noqa: E402
from workloadmap.tree import WorkloadTree  # noqa: E402

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
CLIQUE = "nvidia.com/gpu.clique"
HOST = "kubernetes.io/hostname"


def make_cluster(size: int, seed: int = 7) -> Cluster:
    rng = random.Random(seed)
    nodes = []
    for i in range(size):
        rack, block = i // 16, i // 512
        used = {}
        if rng.random() < 0.3:
            used = {"nvidia.com/gpu": Fraction(rng.choice([1, 2, 4, 8])), "cpu": Fraction(rng.choice([4, 16, 64]))}
        nodes.append(
            Node(
                name=f"node-{i:06d}",
                labels={
                    HOST: f"node-{i:06d}",
                    BLOCK: f"block-{block}",
                    RACK: f"rack-{rack}",
                    CLIQUE: f"uuid-{rack}.{(i % 16) // 8}",
                },
                allocatable={
                    "cpu": Fraction(128),
                    "memory": Fraction(2 * 1024**4),
                    "pods": Fraction(110),
                    "nvidia.com/gpu": Fraction(8),
                },
                used=used,
            )
        )
    return Cluster(name=f"gen-{size}", nodes=nodes, levels=[BLOCK, RACK, CLIQUE, HOST])


def pod_set(component, count, gpus, cpu):
    resources = {"cpu": str(cpu), "memory": "64Gi"}
    if gpus:
        resources["nvidia.com/gpu"] = str(gpus)
    return {"component": component, "count": count, "podResources": resources}


def make_tree() -> WorkloadTree:
    groups = [
        {"name": "trainer", "minMember": 64, "pods": 64, "podSets": [pod_set("trainer", 64, 8, 96)]},
        {
            "name": "serve",
            "minMember": 16,
            "pods": 16,
            "podSets": [pod_set("serve/leader", 1, 8, 32), pod_set("serve/worker", 15, 8, 96)],
            "subGroups": [
                {
                    "name": "segment-0",
                    "minMember": 8,
                    "pods": 8,
                    "podSets": [pod_set("serve/leader", 1, 8, 32), pod_set("serve/worker", 7, 8, 96)],
                },
                {"name": "segment-1", "minMember": 8, "pods": 8, "podSets": [pod_set("serve/worker", 8, 8, 96)]},
            ],
        },
        {
            "name": "ray",
            "minMember": 33,
            "pods": 33,
            "podSets": [pod_set("ray/head", 1, 0, 16), pod_set("ray/worker", 32, 4, 24)],
            "subGroups": [
                {"name": "headgroup", "minMember": 1, "pods": 1, "podSets": [pod_set("ray/head", 1, 0, 16)]},
                {"name": "gpu", "minMember": 32, "pods": 32, "podSets": [pod_set("ray/worker", 32, 4, 24)]},
            ],
        },
    ]
    return WorkloadTree.from_dict(
        {
            "workload": {"apiVersion": "x/v1", "kind": "Bench", "name": "bench"},
            "definition": "bench",
            "phase": "Undefined",
            "phases": [],
            "totals": {"pods": 113, "gpus": 0},
            "components": [],
            "podGroups": groups,
            "gangPolicy": "bench",
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="16,1000,10000,100000")
    args = parser.parse_args()
    workload = make_tree()
    print(
        f"{'nodes':>8} {'build s':>8} {'place s':>8} {'export s':>9} {'fits':>5}  "
        "preferred levels (trainer, serve, ray)"
    )
    for size in (int(value) for value in args.sizes.split(",")):
        started = time.perf_counter()
        cluster = make_cluster(size)
        built = time.perf_counter()
        report = place(workload, cluster)
        placed = time.perf_counter()
        export("kai", workload, report)
        volcano_hypernodes(cluster)
        exported = time.perf_counter()
        levels = ", ".join(str(group.preferred_level).split("/")[-1] for group in report.pod_groups)
        print(
            f"{size:>8} {built - started:>8.3f} {placed - built:>8.3f} {exported - placed:>9.3f} "
            f"{str(report.fits):>5}  {levels}"
        )


if __name__ == "__main__":
    main()
