"""Benchmark: JMESPath evaluation alone, as interpretation uses it.

Run: python bench/bench_expressions.py [ROUNDS]

Inspects every corpus manifest (../shared/corpus) a few times so every expression is compiled,
records each ``Expression.search`` call of one more pass (the expression, data, root and refs),
then replays those calls ROUNDS times (default 100) with the collector off and prints the best
round per document. Run it on two commits one after the other to compare them; figures go into
docs/performance.md by hand.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_pairs import corpus_texts

from workloadmap import Catalog, expressions
from workloadmap.documents import iter_documents
from workloadmap.interpreter import inspect


def main(rounds: int) -> None:
    catalog = Catalog.load(use_env=False)
    bodies = []
    for text in corpus_texts():
        for document in iter_documents(text, "corpus"):
            try:
                inspect(document.body, catalog=catalog)
            except Exception:  # documents wmap refuses are left out
                continue
            bodies.append(document.body)
    for _ in range(3):  # past any warm-up: every expression compiled
        for body in bodies:
            inspect(body, catalog=catalog)
    calls = []
    search = expressions.Expression.search

    def recording(self, data, *, root=None, refs=None):
        calls.append((self, data, root, refs))
        return search(self, data, root=root, refs=refs)

    expressions.Expression.search = recording
    for body in bodies:
        inspect(body, catalog=catalog)
    expressions.Expression.search = search
    gc.disable()
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for expression, data, root, refs in calls:
            try:
                expression.search(data, root=root, refs=refs)
            except Exception:  # one that fails on a document fails every round
                continue
        best = min(best, time.perf_counter() - start)
    per_document = best / len(bodies) * 1e6
    print(f"JMESPath evaluation: {per_document:.1f} us per document ({len(calls)} calls, {len(bodies)} documents)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
