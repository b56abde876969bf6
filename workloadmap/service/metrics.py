"""``/metrics``: the Prometheus text exposition, written by the official ``prometheus_client`` library.

Two custom collectors read the latest :class:`~.snapshot.Snapshot` (never the cache, so a scrape
never waits for the watch): :class:`WorkloadCollector` the per-workload series of
:data:`~.series.WORKLOAD_SERIES` (their samples computed when each workload was interpreted) and
:class:`HealthCollector` the service's own. The workload part of a scrape is kept, encoded, until
the next snapshot: scrapes between two changes of the cluster cost one copy. The process
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
from .series import HEALTH_SERIES, WORKLOAD_SERIES, Series
from .snapshot import Snapshot

__all__ = ["WorkloadCollector", "HealthCollector", "MetricsEndpoint", "CONTENT_TYPE"]

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
        self._workloads = CollectorRegistry(auto_describe=False)
        self._workloads.register(WorkloadCollector(self._taken))
        self._health = CollectorRegistry(auto_describe=False)
        self._health.register(HealthCollector(snapshot))
        if process:
            ProcessCollector(registry=self._health)
            PlatformCollector(registry=self._health)
        self._lock = threading.Lock()
        self._taken_snapshot: Snapshot | None = None
        self._kept: tuple[int, bytes] | None = None

    def _taken(self) -> Snapshot:
        assert self._taken_snapshot is not None
        return self._taken_snapshot

    def render(self) -> bytes:
        """The exposition text of the current snapshot."""
        snapshot = self.snapshot()
        with self._lock:
            if self._kept is None or self._kept[0] != snapshot.version:
                self._taken_snapshot = snapshot
                self._kept = (snapshot.version, generate_latest(self._workloads))
                self._taken_snapshot = None
            workloads = self._kept[1]
        return workloads + generate_latest(self._health)
