"""Timing and memory helpers the in-process benchmarks share (run as ``python bench/bench_X.py``, so importable)."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from typing import Any


def best_of(runs: int, func: Callable[[], Any]) -> float:
    """The shortest wall-clock time, in seconds, of ``runs`` calls of ``func``."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def peak_memory(func: Callable[[], Any]) -> int:
    """The peak of Python allocations, in bytes, while ``func`` runs once (``tracemalloc``)."""
    tracemalloc.start()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak
