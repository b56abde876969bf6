"""``/metrics``: the Prometheus text exposition, written by the official ``prometheus_client`` library.

Two custom collectors read the latest :class:`~.snapshot.Snapshot` (never the cache, so a scrape
never waits for the watch): :class:`WorkloadCollector` the per-workload series of
:data:`~.series.WORKLOAD_SERIES` (their samples computed when each workload was interpreted) and
:class:`HealthCollector` the service's own. The workload part of a scrape is kept, encoded, until
the next snapshot: scrapes between two changes of the cluster cost one copy. And each workload's
lines are encoded once per interpretation (:class:`WorkloadText`: the library writes one workload
at a time, the lines are kept per family and joined under each family's header), so a scrape
after a change encodes only the workloads it changed: 195,000 samples cost 4.7 s of CPU to
encode, and a scrape under churn joins the kept lines instead. The process
collector (``process_resident_memory_bytes`` ...) comes with the health part. ``prometheus_client``
is imported here, on the serve path only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, PlatformCollector, ProcessCollector, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from .. import __version__
from .interpret import WorkloadState
from .series import HEALTH_SERIES, WORKLOAD_SERIES, Series
from .snapshot import Snapshot

__all__ = ["WorkloadCollector", "HealthCollector", "MetricsEndpoint", "WorkloadText", "CONTENT_TYPE"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _family(series: Series) -> Any:
    if series.type == "counter":
        return CounterMetricFamily(series.name, series.help, labels=series.labels)
    return GaugeMetricFamily(series.name, series.help, labels=series.labels)


class WorkloadCollector(Collector):
    """The per-workload series of a snapshot."""

    def __init__(self, snapshot: Callable[[], Snapshot]) -> None:
        self.snapshot = snapshot

    def describe(self) -> list[Metric]:
        """Nothing at registration (the registry would otherwise collect once to learn the names)."""
        return []

    def collect(self) -> Iterator[Metric]:
        """One family per series, every workload's samples in it."""
        families = {series.name: _family(series) for series in WORKLOAD_SERIES}
        for state in self.snapshot().workloads:
            for series, labels, value in state.samples:
                families[series.name].add_metric(labels, value)
        yield from families.values()


class _Families(Collector):
    """Given families, as a collector ``generate_latest`` writes."""

    def __init__(self, families: list[Metric]) -> None:
        self.families = families

    def collect(self) -> Iterator[Metric]:
        """The families."""
        return iter(self.families)


def _by_family(text: bytes) -> dict[str, bytes]:
    """An exposition text's sample lines by family (the ``# HELP`` line names the family that follows)."""
    lines: dict[str, list[bytes]] = {}
    current: list[bytes] = []
    for line in text.splitlines(keepends=True):
        if line.startswith(b"# HELP "):
            current = lines.setdefault(line.split(b" ", 3)[2].decode(), [])
        elif not line.startswith(b"#"):
            current.append(line)
    return {name: b"".join(found) for name, found in lines.items()}


class WorkloadText:
    """The workload part of ``/metrics``, each workload's lines written by ``prometheus_client`` once.

    ``generate_latest`` over :class:`WorkloadCollector` writes, family after family, every
    workload's samples in snapshot order. This writes the same bytes (a test compares them) from
    each workload's own exposition, kept until the workload's samples change (a resync interprets
    every workload again, mostly to the same samples), under each family's header as the library
    writes it.
    Not thread-safe: :class:`MetricsEndpoint` calls it under its lock.
    """

    def __init__(self) -> None:
        self._headers = {
            series.name: generate_latest(_Families([_family(series)])) for series in WORKLOAD_SERIES
        }  # fmt: skip
        self._kept: dict[str, tuple[WorkloadState, dict[str, bytes]]] = {}

    @staticmethod
    def _lines(state: WorkloadState) -> dict[str, bytes]:
        families: dict[str, Any] = {}
        for series, labels, value in state.samples:
            family = families.get(series.name)
            if family is None:
                family = families[series.name] = _family(series)
            family.add_metric(labels, value)
        return _by_family(generate_latest(_Families(list(families.values())))) if families else {}

    def render(self, workloads: tuple[WorkloadState, ...]) -> bytes:
        """The exposition of ``workloads``' series, equal to ``generate_latest`` over them."""
        kept: dict[str, tuple[WorkloadState, dict[str, bytes]]] = {}
        for state in workloads:
            found = self._kept.get(state.uid)
            same = found is not None and (found[0] is state or found[0].samples == state.samples)
            kept[state.uid] = (state, found[1]) if found is not None and same else (state, self._lines(state))
        self._kept = kept
        parts: list[bytes] = []
        for series in WORKLOAD_SERIES:
            parts.append(self._headers[series.name])
            parts.extend(lines[series.name] for _, lines in kept.values() if series.name in lines)
        return b"".join(parts)


class HealthCollector(Collector):
    """The service's own series: watches, cache, interpretations, readiness and sync age."""

    def __init__(self, snapshot: Callable[[], Snapshot], clock: Callable[[], float] = time.time) -> None:
        self.snapshot = snapshot
        self.clock = clock

    def describe(self) -> list[Metric]:
        """Nothing at registration."""
        return []

    def collect(self) -> Iterator[Metric]:
        """The health families of the current snapshot."""
        snapshot = self.snapshot()
        families = {name: _family(series) for name, series in HEALTH_SERIES.items()}
        families["wmap_build_info"].add_metric([__version__], 1)
        families["wmap_ready"].add_metric([], 1 if snapshot.ready else 0)
        for (resource, event_type), count in sorted(snapshot.events.items()):
            families["wmap_watch_events_total"].add_metric([resource, event_type], count)
        for watch in snapshot.watches:
            families["wmap_watch_restarts_total"].add_metric([watch.resource], watch.restarts)
        for resource, count in sorted(snapshot.objects.items()):
            families["wmap_cache_objects"].add_metric([resource], count)
        for (group, kind), count in sorted(snapshot.errors.items()):
            families["wmap_interpretation_errors_total"].add_metric([f"{kind}.{group}" if group else kind], count)
        families["wmap_interpretations_total"].add_metric([], snapshot.interpretations)
        families["wmap_workloads"].add_metric([], len(snapshot.workloads))
        families["wmap_audits_pending"].add_metric([], snapshot.audits_pending)
        if snapshot.last_sync is not None:
            families["wmap_last_sync_timestamp_seconds"].add_metric([], snapshot.last_sync)
            families["wmap_sync_age_seconds"].add_metric([], max(0.0, self.clock() - snapshot.last_sync))
        yield from families.values()


class MetricsEndpoint:
    """What ``GET /metrics`` answers: the workload part (kept per snapshot), then the health part."""

    def __init__(self, snapshot: Callable[[], Snapshot], *, process: bool = True) -> None:
        self.snapshot = snapshot
        self._workloads = WorkloadText()
        self._health = CollectorRegistry(auto_describe=False)
        self._health.register(HealthCollector(snapshot))
        if process:
            ProcessCollector(registry=self._health)
            PlatformCollector(registry=self._health)
        self._lock = threading.Lock()
        self._kept: tuple[int, bytes] | None = None

    def render(self) -> bytes:
        """The exposition text of the current snapshot."""
        snapshot = self.snapshot()
        with self._lock:
            if self._kept is None or self._kept[0] != snapshot.version:
                self._kept = (snapshot.version, self._workloads.render(snapshot.workloads))
            workloads = self._kept[1]
        return workloads + generate_latest(self._health)
