"""Time NUMA-aware gang placement on generated clusters (the kubelet's topology manager as a node filter).

Run: python bench/bench_numa.py [--sizes 1000,10000] [--joint 20] [--numa|--no-numa]
Nodes are built directly: blocks of 32 racks of 16 HGX-style nodes (8 GPUs, 128 CPUs, 2Ti) with
two NUMA nodes of 4 GPUs, 64 CPUs and 1Ti, policy single-numa-node; a seeded 30% of the nodes has
a pod on one NUMA node (node totals and the NUMA node's ``available`` reduced alike).

The workload is a JobSet read through the catalog (so its pod templates carry their NUMA demand):
a gang of 64 Guaranteed trainers (16 CPUs, 128Gi, 4 GPUs: one NUMA node each) and 32 Guaranteed
data loaders (8 CPUs, 32Gi), required in one block. Columns: placing it with each policy, with
NUMA layouts and with the same nodes stripped of them; then ``--joint`` copies placed together,
each on what the ones before it left (NUMA nodes included).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workloadmap import inspect  # noqa: E402
from workloadmap.numa import TopologyManager, TopologyManagerPolicy, ZoneResource  # noqa: E402
from workloadmap.placement import place, place_together  # noqa: E402
from workloadmap.topology import Cluster, Node, simulated_layout  # noqa: E402

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
HOST = "kubernetes.io/hostname"
GPU = "nvidia.com/gpu"
TIB = Fraction(1024**4)


def _used_layout(layout, zone_id: int, gpus: int, cpus: int):
    zones = []
    for zone in layout.zones:
        if zone.id != zone_id:
            zones.append(zone)
            continue
        taken = {GPU: gpus, "cpu": cpus, "memory": Fraction(cpus) * 8 * 1024**3}
        resources = tuple(
            dataclasses.replace(item, available=item.available - taken.get(item.name, 0)) for item in zone.resources
        )
        zones.append(dataclasses.replace(zone, resources=resources))
    return dataclasses.replace(layout, zones=tuple(zones))


def make_cluster(size: int, numa: bool, seed: int = 7) -> Cluster:
    rng = random.Random(seed)
    allocatable = {"cpu": Fraction(128), "memory": 2 * TIB, "pods": Fraction(110), GPU: Fraction(8)}
    manager = TopologyManager(TopologyManagerPolicy.SINGLE_NUMA_NODE, stated=True)
    base = simulated_layout(allocatable, 2, manager)
    assert all(isinstance(item, ZoneResource) for zone in base.zones for item in zone.resources)
    nodes = []
    interned = {}  # as the NodeResourceTopology reader does: nodes alike share one layout
    for i in range(size):
        layout, used = base, {}
        if rng.random() < 0.3:
            zone, gpus, cpus = rng.choice([0, 1]), rng.choice([1, 2, 4]), rng.choice([8, 16, 48])
            layout = _used_layout(base, zone, gpus, cpus)
            layout = interned.setdefault(layout, layout)
            used = {GPU: Fraction(gpus), "cpu": Fraction(cpus), "memory": Fraction(cpus) * 8 * 1024**3}
        name = f"node-{i:06d}"
        labels = {HOST: name, BLOCK: f"block-{i // 512}", RACK: f"rack-{i // 16}"}
        nodes.append(Node(name, labels, dict(allocatable), used=used, numa=layout if numa else None))
    return Cluster(name=f"numa-{size}", nodes=nodes, levels=[BLOCK, RACK, HOST])


def _job(name: str, pods: int, limits: dict) -> dict:
    container = {"name": "main", "image": "x", "resources": {"limits": limits}}
    template = {"spec": {"containers": [container]}}
    return {"name": name, "replicas": 1,
            "template": {"spec": {"parallelism": pods, "completions": pods, "template": template}}}  # fmt: skip


def make_workload(index: int = 0) -> dict:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {
            "name": f"train-{index:03d}",
            "namespace": "ml",
            "annotations": {"kueue.x-k8s.io/podset-required-topology": BLOCK},
        },
        "spec": {
            "replicatedJobs": [
                _job("trainer", 64, {"cpu": "16", "memory": "128Gi", GPU: "4"}),
                _job("loader", 32, {"cpu": "8", "memory": "32Gi"}),
            ]
        },
    }


def _timed(action):
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def single(sizes: list[int]) -> None:
    tree = inspect(make_workload())
    print("| nodes | build, NUMA | place kueue, NUMA | place kai, NUMA | place kueue, no NUMA | place kai, no NUMA |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for size in sizes:
        build, with_numa = _timed(lambda: make_cluster(size, True))
        plain = make_cluster(size, False)
        cells = [f"{build:.3f}"]
        for cluster in (with_numa, plain):
            for policy in ("kueue", "kai"):
                elapsed, report = _timed(lambda: place(tree, cluster, policy=policy))
                assert report.fits, report.pod_groups[0].reason
                cells.append(f"{elapsed:.3f}")
        print(f"| {size:,} | " + " | ".join(cells) + " |")


def joint(sizes: list[int], count: int) -> None:
    trees = [inspect(make_workload(index)) for index in range(count)]
    print(f"\n| nodes | policy | {count} workloads together, NUMA | no NUMA | fit, NUMA | fit, no NUMA |")
    print("| ---: | --- | ---: | ---: | ---: | ---: |")
    for size in sizes:
        for policy in ("kueue", "kai"):
            cells = []
            fits = []
            for numa in (True, False):
                cluster = make_cluster(size, numa)
                elapsed, result = _timed(lambda: place_together(trees, cluster, policy=policy))
                cells.append(f"{elapsed:.2f}")
                fits.append(f"{sum(report.fits for report in result.reports)} of {count}")
            print(f"| {size:,} | {policy} | {cells[0]} | {cells[1]} | {fits[0]} | {fits[1]} |")


def whole(size: int, numa: bool) -> None:
    """One process: build and place with Kueue's rule (for timing the whole process from outside)."""
    report = place(inspect(make_workload()), make_cluster(size, numa))
    assert report.fits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--joint", type=int, default=20)
    parser.add_argument("--numa", dest="numa", action="store_true", default=None, help="one placement, with NUMA")
    parser.add_argument("--no-numa", dest="numa", action="store_false", help="one placement, without NUMA")
    args = parser.parse_args()
    sizes = [int(part) for part in args.sizes.split(",")]
    if args.numa is not None:
        whole(sizes[-1], args.numa)
        return
    single(sizes)
    if args.joint:
        joint(sizes, args.joint)


if __name__ == "__main__":
    main()
