"""Time gang placement, assignment and joint placement on generated clusters of 16 to 100,000 nodes.

Run: /work/venv/bin/python bench/bench_placement.py [--sizes 16,1000,10000,100000] [--joint 40]
Nodes are built directly (no topology reader): blocks of 32 racks, racks of 16 nodes split into
two 8-node NVLink cliques, 8 GPUs per node, a seeded share of nodes partly used.

First table: one 3-group workload (113 pods, mixed shapes) placed with each policy (the time
includes building the node tree and the standalone analysis). Second table: ``--joint`` copies
of a 64-pod gang (8 GPUs each, required in one block) placed together, each on what the ones
before it left, with each policy (``kube-scheduler``: the native PodGroup placement).
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
from workloadmap.placement import place, place_together  # noqa: E402
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


WORKLOAD_OBJECT = {"apiVersion": "x/v1", "kind": "Bench", "metadata": {"name": "bench"}}
"""The object the bench tree was read from: KAI's export annotates it (its pods are owned)."""


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


def joint_trees(count: int) -> list[WorkloadTree]:
    trees = []
    for index in range(count):
        trees.append(
            WorkloadTree.from_dict(
                {
                    "workload": {"apiVersion": "x/v1", "kind": "Bench", "name": f"train-{index:03d}"},
                    "definition": "bench",
                    "phase": "Undefined",
                    "phases": [],
                    "totals": {"pods": 64, "gpus": 512},
                    "components": [],
                    "podGroups": [
                        {
                            "name": f"train-{index:03d}",
                            "minMember": 64,
                            "pods": 64,
                            "podSets": [pod_set("w", 64, 8, 96)],
                        }
                    ],
                    "gangPolicy": "bench",
                }
            )
        )
    return trees


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="16,1000,10000,100000")
    parser.add_argument("--joint", type=int, default=40, help="workloads placed together (second table)")
    args = parser.parse_args()
    workload = make_tree()
    sizes = [int(value) for value in args.sizes.split(",")]
    print(
        f"{'nodes':>8} {'build s':>8} {'kueue s':>8} {'kai s':>8} {'kube s':>8} {'export s':>9} {'fits':>5}  "
        "preferred levels (trainer, serve, ray)"
    )
    for size in sizes:
        started = time.perf_counter()
        cluster = make_cluster(size)
        built = time.perf_counter()
        report = place(workload, cluster)
        kueue_done = time.perf_counter()
        kai = place(workload, cluster, policy="kai")
        kai_done = time.perf_counter()
        kube = place(workload, cluster, policy="kube-scheduler")
        kube_done = time.perf_counter()
        export("kai", workload, report, obj=WORKLOAD_OBJECT)  # KAI annotates the owning object
        volcano_hypernodes(cluster)
        exported = time.perf_counter()
        levels = ", ".join(str(group.preferred_level).split("/")[-1] for group in report.pod_groups)
        fits = report.fits and kai.fits and kube.fits
        print(
            f"{size:>8} {built - started:>8.3f} {kueue_done - built:>8.3f} {kai_done - kueue_done:>8.3f} "
            f"{kube_done - kai_done:>8.3f} {exported - kube_done:>9.3f} {str(fits):>5}  "
            f"{levels}"
        )
    trees = joint_trees(args.joint)
    print(f"\n{args.joint} gangs of 64 pods (8 GPUs each, required in one block) placed together")
    print(f"{'nodes':>8} {'policy':>14} {'seconds':>8} {'per gang':>9} {'fitting':>8}")
    for size in sizes:
        cluster = make_cluster(size)
        for policy in ("kueue", "kai", "kube-scheduler"):
            started = time.perf_counter()
            joint = place_together(trees, cluster, policy=policy, required=BLOCK)
            seconds = time.perf_counter() - started
            print(
                f"{size:>8} {policy:>14} {seconds:>8.3f} {seconds / len(trees):>9.4f} {joint.fitting:>4}/{joint.groups}"
            )


if __name__ == "__main__":
    main()
