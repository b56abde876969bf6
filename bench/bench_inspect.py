"""Benchmark: catalog load and workload interpretation.

Run: python bench/bench_inspect.py [--corpus ../shared/corpus]

Prints wall-clock figures (best of several runs) and peak Python memory (tracemalloc) for:
catalog load, inspecting every corpus manifest, and large synthetic workloads (a JobSet with
1,000 replicatedJobs, a LeaderWorkerSet of 2,000 groups, a 5,000-document stream).
Figures go into docs/performance.md by hand; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import copy
from pathlib import Path

from timing import best_of, peak_memory

from workloadmap import Catalog, inspect
from workloadmap.documents import iter_documents
from workloadmap.interpreter import inspect_documents


def pod_template(gpus: int) -> dict:
    return {
        "spec": {
            "containers": [
                {
                    "name": "main",
                    "image": "trainer",
                    "resources": {"limits": {"nvidia.com/gpu": gpus, "cpu": "16", "memory": "128Gi"}},
                }
            ],
            "initContainers": [
                {"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m"}}},
            ],
        }
    }


def big_jobset(replicated_jobs: int) -> dict:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "big"},
        "spec": {
            "replicatedJobs": [
                {
                    "name": f"rj-{index}",
                    "replicas": 4,
                    "template": {"spec": {"parallelism": 2, "template": pod_template(8)}},
                }
                for index in range(replicated_jobs)
            ]
        },
    }


def big_lws(groups: int) -> dict:
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "serving"},
        "spec": {"replicas": groups, "leaderWorkerTemplate": {"size": 4, "workerTemplate": pod_template(8)}},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    print(f"catalog load: {best_of(args.runs, Catalog.load) * 1000:.1f} ms")
    catalog = Catalog.load()
    print(f"catalog definitions: {len(catalog)}")

    corpus = Path(args.corpus)
    if corpus.is_dir():
        files = [
            path
            for path in sorted(corpus.rglob("*.yaml"))
            if "recorded" not in path.parts and "karta" not in path.parts
        ]
        texts = [(str(path), path.read_text()) for path in files]

        def run_corpus():
            for name, text in texts:
                list(inspect_documents(iter_documents(text, name), catalog=catalog))

        elapsed = best_of(args.runs, run_corpus)
        print(f"corpus: {len(files)} files in {elapsed * 1000:.1f} ms ({elapsed / len(files) * 1000:.2f} ms/file)")

    jobset = big_jobset(1000)
    elapsed = best_of(args.runs, lambda: inspect(jobset, catalog=catalog))
    peak = peak_memory(lambda: inspect(jobset, catalog=catalog))
    print(f"JobSet, 1,000 replicatedJobs (8,000 pods): {elapsed * 1000:.1f} ms, peak {peak / 1e6:.1f} MB")

    lws = big_lws(2000)
    elapsed = best_of(args.runs, lambda: inspect(lws, catalog=catalog))
    peak = peak_memory(lambda: inspect(lws, catalog=catalog))
    print(
        "LeaderWorkerSet, 2,000 groups (8,000 pods, 2,000 PodGroups): "
        f"{elapsed * 1000:.1f} ms, peak {peak / 1e6:.1f} MB"
    )

    small = big_jobset(2)
    stream = [copy.deepcopy(small) for _ in range(5000)]
    elapsed = best_of(max(1, args.runs // 2), lambda: [inspect(obj, catalog=catalog) for obj in stream])
    print(f"5,000 small JobSets: {elapsed:.2f} s ({elapsed / 5000 * 1e6:.0f} us each)")


if __name__ == "__main__":
    main()
