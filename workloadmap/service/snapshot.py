"""What one scrape or API request reads: an immutable snapshot of the interpreted cache.

The service's worker publishes a new :class:`Snapshot` after each batch of interpretations (by
replacing one reference); readers on other threads take the current one and never see it change,
so a scrape never blocks the watch and never sees half a batch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..catalog import Catalog
from ..topology import Cluster
from .interpret import WorkloadState

__all__ = ["Snapshot", "WatchHealth"]


@dataclass(frozen=True)
class WatchHealth:
    """One watched resource type: listed yet, its last error, how often it watched again, objects held."""

    resource: str
    role: str
    synced: bool
    error: str | None
    restarts: int


@dataclass(frozen=True)
class Snapshot:
    """The interpreted state at one moment.

    Attributes:
        version: increases with every published snapshot.
        workloads: every interpreted workload, by namespace, type and name.
        ready: every watched resource type has been listed and every workload interpreted once.
        watches: the health of each watch.
        events: watch events received, by ``(resource, event type)``.
        objects: objects held, by resource.
        errors: failed interpretations so far, by ``(group, kind)``.
        interpretations: interpretations so far.
        audits_pending: workloads whose placement audit is still to be made.
        last_sync: ``time.time()`` when the cache last caught up with every event (None: never).
        cluster: the nodes as a cluster (None without nodes).
        catalog: the definitions in use.
        started: ``time.time()`` when the service started.
    """

    version: int = 0
    workloads: tuple[WorkloadState, ...] = ()
    ready: bool = False
    watches: tuple[WatchHealth, ...] = ()
    events: Mapping[tuple[str, str], int] = field(default_factory=dict)
    objects: Mapping[str, int] = field(default_factory=dict)
    errors: Mapping[tuple[str, str], int] = field(default_factory=dict)
    interpretations: int = 0
    audits_pending: int = 0
    last_sync: float | None = None
    cluster: Cluster | None = None
    catalog: Catalog | None = None
    started: float = 0.0

    def find(self, namespace: str, group: str, kind: str, name: str) -> WorkloadState | None:
        """The workload of that identity, or None."""
        for state in self.workloads:
            if (state.namespace, state.group, state.kind, state.name) == (namespace, group, kind, name):
                return state
        return None

    def unsynced(self) -> list[str]:
        """The resource types not listed yet."""
        return [watch.resource for watch in self.watches if not watch.synced]
