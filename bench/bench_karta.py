"""Benchmark: jq (Karta) against JMESPath (wmap definitions) on the same corpus manifests.

Run: python bench/bench_karta.py [--corpus ../shared/corpus]

For every corpus manifest, the same workload is interpreted twice: with the built-in wmap
definition (JMESPath, evaluated in process) and with that definition exported as a Karta (jq,
evaluated in the bounded child process, one round trip per resource plus one for the gang pods).
Prints the per-manifest cost of each, the raw cost of one expression evaluation in each engine,
the start of the jq child process, and the load (compile) of the exported catalog. Figures go into
docs/performance.md by hand; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from timing import best_of

from workloadmap import Catalog
from workloadmap.documents import load_objects
from workloadmap.expressions import compile_expression
from workloadmap.interpreter import inspect
from workloadmap.karta import JqEngine, compile_jq, default_engine, parse_karta
from workloadmap.karta.export import export_karta


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "shared" / "corpus"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    start = time.perf_counter()
    engine = JqEngine()
    compile_jq(".").stream(None, engine=engine)
    engine.close()
    print(f"jq child process start and first answer: {(time.perf_counter() - start) * 1000:.1f} ms")

    own = Catalog.load(use_env=False)
    exported = [karta for definition in own for karta in export_karta(definition)]
    default_engine()
    load = best_of(1, lambda: Catalog([parse_karta(item.karta, "bench") for item in exported]))
    print(f"load the exported catalog ({len(exported)} Kartas, jq compiled in the child): {load * 1000:.0f} ms")
    kartas = Catalog([parse_karta(item.karta, "bench") for item in exported])

    data = {"spec": {"replicatedJobs": [{"replicas": 2, "template": {"spec": {"parallelism": 4}}}] * 8}}
    jmes = compile_expression("sum(spec.replicatedJobs[*].mul(replicas, template.spec.parallelism))")
    jq = compile_jq("[.spec.replicatedJobs[] | .replicas * .template.spec.parallelism] | add")
    assert jmes.search(data) == jq.stream(data)[0]
    one_jmes = best_of(args.runs, lambda: [jmes.search(data) for _ in range(1000)]) / 1000
    one_jq = best_of(args.runs, lambda: [jq.stream(data) for _ in range(200)]) / 200
    print(f"one expression: JMESPath {one_jmes * 1e6:.1f} us in process; jq {one_jq * 1e6:.0f} us per round trip")

    rows = []
    for path in sorted(Path(args.corpus).glob("*/*.yaml")):
        if path.parent.name in ("karta", "recorded"):
            continue
        for document in load_objects(str(path)):
            if isinstance(document, Exception) or not isinstance(document.body, dict):
                continue
            body = document.body
            lookup = own.lookup(str(body.get("apiVersion", "")), str(body.get("kind", "")))
            if lookup is None or lookup.definition.references:
                continue
            try:
                inspect(body, catalog=own)
                inspect(body, catalog=kartas)
            except Exception:  # noqa: BLE001 - manifests that fail alike are not timed
                continue
            wmap_time = best_of(args.runs, lambda: inspect(body, catalog=own))
            karta_time = best_of(args.runs, lambda: inspect(body, catalog=kartas))
            rows.append((f"{path.parent.name}/{path.name}", wmap_time, karta_time))
    print(f"\n{len(rows)} workloads; per manifest, best of {args.runs}:")
    print(f"{'manifest':58} {'JMESPath':>10} {'jq':>10} {'ratio':>7}")
    for name, wmap_time, karta_time in rows:
        print(f"{name[:58]:58} {wmap_time * 1000:8.2f}ms {karta_time * 1000:8.2f}ms {karta_time / wmap_time:6.1f}x")
    wmap_times = [row[1] for row in rows]
    karta_times = [row[2] for row in rows]
    medians = statistics.median(wmap_times) * 1000, statistics.median(karta_times) * 1000
    print(f"\nmedian: JMESPath {medians[0]:.2f} ms, jq {medians[1]:.2f} ms; ", end="")
    print(f"total: JMESPath {sum(wmap_times) * 1000:.0f} ms, jq {sum(karta_times) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
