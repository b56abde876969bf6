"""Builders shared by the placement and exporter tests (trees and clusters built directly)."""

from __future__ import annotations

from fractions import Fraction

from workloadmap.topology import Cluster, Node
from workloadmap.tree import WorkloadTree

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
CLIQUE = "nvidia.com/gpu.clique"
HOST = "kubernetes.io/hostname"
GPU = "nvidia.com/gpu"
F = Fraction


def node(name, labels=None, gpus=8, cpu=64, memory="512Gi", pods=110, ready=True, used=None):
    from workloadmap.quantities import parse_quantity

    allocatable = {"cpu": Fraction(cpu), "memory": parse_quantity(memory), "nvidia.com/gpu": Fraction(gpus)}
    if pods is not None:
        allocatable["pods"] = Fraction(pods)
    return Node(
        name=name,
        labels={HOST: name, **(labels or {})},
        allocatable=allocatable,
        ready=ready,
        used={k: Fraction(v) for k, v in (used or {}).items()},
    )


def rack_cluster(blocks=2, racks=2, hosts=4, name="test", **node_args):
    """blocks x racks x hosts nodes labelled block/rack/hostname; rack values repeat across blocks."""
    nodes = []
    for b in range(blocks):
        for r in range(racks):
            for h in range(hosts):
                nodes.append(node(f"b{b}-r{r}-h{h}", {BLOCK: f"b{b}", RACK: f"r{r}"}, **node_args))
    return Cluster(name=name, nodes=nodes, levels=[BLOCK, RACK, HOST])


def clique_cluster(name="nvl"):
    """2 racks, each with 2 NVLink cliques of 4 nodes x 4 GPUs."""
    nodes = []
    for r in range(2):
        for c in range(2):
            for h in range(4):
                nodes.append(node(f"r{r}c{c}h{h}", {RACK: f"r{r}", CLIQUE: f"uuid{r}.{c}"}, gpus=4, cpu=64))
    return Cluster(name=name, nodes=nodes, levels=[RACK, CLIQUE, HOST])


def tree(pod_groups, components=None, kind="JobSet", name="train", namespace="default"):
    """A WorkloadTree from camelCase PodGroup dicts; components default to one per podset path."""
    if components is None:
        seen = {}
        for group in pod_groups:
            sets = list(group.get("podSets", []))
            for sub in group.get("subGroups", []):
                sets.extend(sub.get("podSets", []))
            for pod_set in sets:
                seen.setdefault(pod_set["component"], pod_set.get("podResources", {}))
        components = [
            {
                "name": path,
                "role": path,
                "replicas": 1,
                "pods": 1,
                "minPods": 1,
                "hasPodTemplate": True,
                "podResources": resources,
            }
            for path, resources in seen.items()
        ]
    return WorkloadTree.from_dict(
        {
            "workload": {"apiVersion": "x/v1", "kind": kind, "name": name, "namespace": namespace},
            "definition": kind,
            "phase": "Undefined",
            "phases": [],
            "totals": {"pods": 0, "gpus": 0},
            "components": components,
            "podGroups": pod_groups,
            "gangPolicy": "test",
        }
    )


def pod_set(component, count, gpus=8, cpu=32, memory=None):
    resources = {"cpu": str(cpu)}
    if gpus:
        resources["nvidia.com/gpu"] = str(gpus)
    if memory:
        resources["memory"] = memory
    return {"component": component, "count": count, "podResources": resources}


def brute_force_fits(pods, nodes):
    """Try every assignment of individual pods to nodes (no heuristics)."""
    flat = []
    for request, count in pods:
        flat.extend([{k: v for k, v in request.items() if v > 0 and k != "pods"}] * count)
    left = [dict(free) for free in nodes]

    def fits(free, request):
        if "pods" in free and free["pods"] < 1:
            return False
        return all(free.get(name, 0) >= amount for name, amount in request.items())

    def assign(i):
        if i == len(flat):
            return True
        for free in left:
            if fits(free, flat[i]):
                for name, amount in flat[i].items():
                    free[name] = free.get(name, 0) - amount
                if "pods" in free:
                    free["pods"] -= 1
                ok = assign(i + 1)
                for name, amount in flat[i].items():
                    free[name] += amount
                if "pods" in free:
                    free["pods"] += 1
                if ok:
                    return True
        return False

    return assign(0)


def random_request(rng):
    request = {}
    for name, choices in (
        (GPU, [0, 0, 1, 2, 4, 8]),
        ("cpu", [0, F(1, 2), 1, 2, 4, 8, 16]),
        ("memory", [0, 1, 2, 4, 8]),
        ("example.com/nic", [0, 0, 0, 1]),
    ):
        value = rng.choice(choices)
        if value:
            request[name] = F(value)
    return request


def random_free(rng):
    free = {
        GPU: F(rng.choice([0, 1, 2, 4, 8, 8])),
        "cpu": F(rng.choice([1, 2, 4, 8, 16, 32])),
        "memory": F(rng.choice([2, 4, 8, 16])),
        "example.com/nic": F(rng.choice([0, 1, 2])),
    }
    if rng.random() < 0.6:
        free["pods"] = F(rng.choice([0, 1, 2, 3, 110]))
    return free
