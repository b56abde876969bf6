"""Benchmark: `wmap describe` and `wmap get` on large namespaces.

Run: python bench/bench_live.py

Workloads are built as the operators build them (tests/helpers/operators.py) in a namespace that
also holds many other workloads' pods:

* offline describe of a JobSet of 2,048 pods (128 Jobs x 16) among 5,000 other pods, with the
  placement audit on 576 nodes (32 NVL72 racks);
* offline describe of an LWS of 256 groups x 8 (2,048 pods, 256 PodGroups, 512 SubGroups);
* the ready counts of `wmap get` for 200 JobSets of 16 pods (3,200 pods, one owner walk shared);
* describe against the loopback stand-in API server (HTTP, pages of 500): requests sent and time.

Prints wall-clock figures (best of several runs) and peak Python memory (tracemalloc). Figures go
into docs/performance.md by hand; nothing here asserts a time.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from timing import best_of, peak_memory  # noqa: E402

from helpers.apiserver import TEST_TOKEN, FakeApiServer  # noqa: E402
from helpers.operators import LiveCluster, fill  # noqa: E402
from workloadmap.kube import ClusterClient  # noqa: E402
from workloadmap.live import LiveObjects, OwnerChains, describe, from_cluster, from_dumps  # noqa: E402

GPU_POD = {"spec": {"containers": [{"name": "t", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 4}}}]}}


def jobset(name: str, jobs: int, parallelism: int) -> dict:
    job = {"parallelism": parallelism, "completions": parallelism, "template": GPU_POD}
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name},
        "spec": {"replicatedJobs": [{"name": "workers", "replicas": jobs, "template": {"spec": job}}]},
    }


def noise(cluster: LiveCluster, pods: int, nodes: list[str]) -> None:
    """Other workloads' pods: Jobs of 10 pods each."""
    for index in range(pods // 10):
        job = cluster.workload({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": f"other-{index}"}})
        for pod in range(10):
            cluster.pod(
                f"other-{index}-{pod}", job, {"batch.kubernetes.io/job-name": f"other-{index}"}, None, fill(nodes)
            )


def big_jobset_scene() -> tuple[LiveCluster, dict]:
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(32)
    workload = cluster.workload(jobset("train", 128, 16))
    cluster.run_jobset(workload, fill(nodes, per_node=4))
    noise(cluster, 5000, nodes)
    return cluster, workload


def big_lws_scene() -> tuple[LiveCluster, dict]:
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(32)
    manifest = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "serve"},
        "spec": {"replicas": 256, "leaderWorkerTemplate": {"size": 8, "workerTemplate": GPU_POD}},
    }
    workload = cluster.workload(manifest)
    cluster.run_lws(workload, fill(nodes, per_node=4))
    return cluster, workload


def describe_offline(label: str, scene) -> None:
    cluster, workload = scene()
    pods = len(cluster.pods())
    seconds = best_of(3, lambda: describe(workload, from_dumps(cluster.objects, cluster.nodes)))
    peak = peak_memory(lambda: describe(workload, from_dumps(cluster.objects, cluster.nodes)))
    report = describe(workload, from_dumps(cluster.objects, cluster.nodes))
    gangs = len(report.placement.pod_groups) if report.placement else 0
    print(f"{label}: {pods} pods in the namespace, {gangs} gangs audited: {seconds:.2f} s, peak {peak / 1e6:.0f} MB")


def get_ready_counts() -> None:
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(8)
    workloads = [cluster.workload(jobset(f"js-{index}", 1, 16)) for index in range(200)]
    for workload in workloads:
        cluster.run_jobset(workload, fill(nodes, per_node=8))

    def run() -> None:
        live = from_dumps(cluster.objects, None)
        shared = LiveObjects(pods=live.pods, owners=live.owners, chains=OwnerChains(live.owners))
        for workload in workloads:
            describe(workload, shared)

    seconds = best_of(3, run)
    print(
        f"get: ready counts of 200 JobSets ({len(cluster.pods())} pods): {seconds:.2f} s, "
        f"{seconds / 200 * 1000:.1f} ms each"
    )


def describe_over_http() -> None:
    cluster, workload = big_jobset_scene()
    with tempfile.TemporaryDirectory() as tmp, FakeApiServer(token=TEST_TOKEN) as server:
        server.add_all(cluster.objects)
        server.add_all(cluster.nodes)
        kubeconfig = server.write_kubeconfig(Path(tmp) / "kubeconfig")
        start = time.perf_counter()
        with ClusterClient(kubeconfig) as client:
            obj = client.get("jobset/train", "ml")
            report = describe(obj, from_cluster(client, "ml", chunk_size=500))
        seconds = time.perf_counter() - start
        lists = sorted({path.split("?")[0] for _, path in server.requests if "limit=" in path})
        print(
            f"describe over HTTP: {sum(len(c.pods) for c in report.components)} pods attributed, "
            f"{len(server.requests)} requests ({len(lists)} lists: {', '.join(p.rsplit('/', 1)[1] for p in lists)}), "
            f"{seconds:.2f} s"
        )


def main() -> None:
    describe_offline("describe JobSet 2,048 pods", big_jobset_scene)
    describe_offline("describe LWS 256 x 8", big_lws_scene)
    get_ready_counts()
    describe_over_http()


if __name__ == "__main__":
    main()
