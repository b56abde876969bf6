"""Benchmark: `wmap alter` and suspend over the corpus and on large workloads.

Run: python bench/bench_alter.py [--corpus ../shared/corpus]

Prints wall-clock figures (best of several runs) and peak Python memory (tracemalloc) for:
altering every corpus workload (scheduler, queue, toleration, pod label), suspending every
suspendable one, and a JobSet with 1,000 replicatedJobs. An alteration copies the object, expands
it twice (to find the templates, then to read the change back) and writes each field once.
Figures go into docs/performance.md by hand; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from timing import best_of, peak_memory

from workloadmap import Catalog, Changes, Toleration, alter
from workloadmap.documents import Document, load_objects
from workloadmap.errors import WorkloadMapError

CHANGES = Changes(
    scheduler_name="kai-scheduler",
    queue="team-a",
    tolerations=(Toleration.parse("nvidia.com/gpu:NoSchedule"),),
    pod_labels={"team": "a"},
)


def corpus_workloads(corpus: Path, catalog: Catalog) -> list[dict]:
    bodies = []
    for path in sorted(corpus.rglob("*.y*ml")):
        if path.parts[len(corpus.parts)] in ("recorded", "karta"):
            continue
        for document in load_objects(str(path)):
            if isinstance(document, Document) and catalog.lookup(
                document.body.get("apiVersion", ""), document.body.get("kind", "")
            ):
                bodies.append(document.body)
    return bodies


def big_jobset(replicated_jobs: int) -> dict:
    template = {"spec": {"containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 8}}}]}}
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "big"},
        "spec": {
            "replicatedJobs": [
                {"name": f"job-{i}", "replicas": 2, "template": {"spec": {"parallelism": 4, "template": template}}}
                for i in range(replicated_jobs)
            ]
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"))
    args = parser.parse_args()
    catalog = Catalog.load(use_env=False)
    bodies = corpus_workloads(Path(args.corpus), catalog)

    def alter_all() -> int:
        done = 0
        for body in bodies:
            try:
                alter(body, CHANGES, catalog=catalog)
                done += 1
            except WorkloadMapError:
                pass
        return done

    def suspend_all() -> None:
        for body in bodies:
            try:
                alter(body, Changes(suspend=True), catalog=catalog)
            except WorkloadMapError:
                pass

    altered = alter_all()
    seconds = best_of(5, alter_all)
    each = seconds / len(bodies) * 1000
    print(f"corpus: {len(bodies)} workloads ({altered} alterable), alter {seconds:.3f} s, {each:.2f} ms each")
    seconds = best_of(5, suspend_all)
    print(f"corpus: suspend {seconds:.3f} s, {seconds / len(bodies) * 1000:.2f} ms each")
    big = big_jobset(1000)
    seconds = best_of(3, lambda: alter(big, CHANGES, catalog=catalog))
    peak = peak_memory(lambda: alter(big, CHANGES, catalog=catalog))
    print(f"JobSet of 1,000 replicatedJobs: alter {seconds:.3f} s, peak {peak / 2**20:.1f} MB")


if __name__ == "__main__":
    main()
