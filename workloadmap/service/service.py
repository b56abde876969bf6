"""The service's worker: watch events in, interpretations out, a new snapshot after each batch.

One thread (the worker) owns the cache. It takes watch events off one queue (the watches put them
there from their own threads), applies them, and, once the cache has been quiet for
``coalesce`` seconds or ``max_delay`` passed since the first change, interprets the workloads the
batch dirtied and publishes a :class:`~.snapshot.Snapshot`. Requests that need the cache itself
(describe with Events, the live cluster for ``place``) run on the worker too (:meth:`Service.call`),
between batches. Every ``resync`` seconds discovery is asked again (a CRD installed later is
watched from then on) and every workload interpreted again.

Only GET requests are sent: lists, watches, discovery, and a GET for an object the cache kept cut
down that turned out to be a workload (:attr:`~.cache.Cache.refetch`).
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import gc
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from ..catalog import Catalog
from ..errors import ClusterError, DefinitionError, TopologyError, WorkloadMapError
from ..kube import ADDED, DELETED, MODIFIED, SYNCED, ClusterClient, ClusterObjects
from ..live import ClusterAnalysis, DescribeReport
from ..resources import DEFAULT_GPU_RESOURCES
from ..topology import Cluster, cluster_from_objects
from .cache import Cache, Role, kind_key, prepared
from .discovery import catalog_groups, owner_resource, wanted_watches
from .interpret import Interpreter, WorkloadState, with_last_audit
from .objects import object_key, object_uid
from .sharding import UNSHARDED, Shard
from .snapshot import Snapshot, WatchHealth
from .watchers import FAILED, LISTING, Watch, WatchSpec

__all__ = ["Service", "ServiceOptions"]

T = TypeVar("T")

INLINE_AUDITS = 64
"""Batches of at most this many workloads are audited as they are interpreted; larger ones (the first
sync, a resync) are interpreted first and audited in the worker's idle time."""


@dataclass(frozen=True)
class ServiceOptions:
    """How the service runs.

    Attributes:
        namespace: the namespace to watch (None: every namespace).
        gpu_resources: resource names counted as GPUs.
        resync: seconds between discoveries (and full re-interpretations).
        shard: this process's share of the namespaces.
        coalesce: seconds without events before a batch is interpreted.
        max_delay: seconds after the first change of a batch by which it is interpreted anyway.
        audit_seconds: time the worker gives placement audits at a time, when no event waits (an
            audit places the workload on the cached nodes: 0.2 s on 6,000 nodes).
        chunk_size: page size of the lists (None: the client's default, 500).
        cluster_kartas: read the cluster's Karta definitions into the catalog.
        freeze_after_sync: after the first sync, move every object to the collector's permanent
            generation (``gc.freeze``): for a process that only serves (``wmap serve``), not for a
            library caller whose other objects would be frozen too.
    """

    namespace: str | None = None
    gpu_resources: tuple[str, ...] = DEFAULT_GPU_RESOURCES
    resync: float = 300.0
    shard: Shard = UNSHARDED
    coalesce: float = 0.2
    max_delay: float = 1.0
    audit_seconds: float = 0.25
    chunk_size: int | None = None
    cluster_kartas: bool = True
    freeze_after_sync: bool = False


@dataclass
class _Counts:
    interpretations: int = 0
    errors: dict[tuple[str, str], int] = field(default_factory=dict)


class Service:
    """A read-only service over one cluster: a watched cache, interpreted workloads, snapshots.

    Args:
        client: the read-only client (GET, LIST, WATCH only).
        catalog_loader: makes the catalog of definition files (built-ins and ``--catalog``); it is
            made again, with the cluster's Kartas added, whenever those change.
        options: see :class:`ServiceOptions`.
    """

    def __init__(
        self,
        client: ClusterClient,
        catalog_loader: Callable[[], Catalog],
        options: ServiceOptions = ServiceOptions(),
    ) -> None:
        self.client = client
        self.options = options
        self.catalog_loader = catalog_loader
        catalog = catalog_loader()
        self.catalog = catalog
        self.notices: list[str] = list(catalog.notices)
        self.source = f"cluster (context {client.context})"
        self.cache = Cache(self._covered, options.shard)
        self.interpreter = Interpreter(
            self.cache, catalog, options.gpu_resources, self.source, fallback=ClusterObjects(client)
        )
        self.queue: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self.watches: dict[tuple[str, str], Watch] = {}
        self.states: dict[str, WorkloadState] = {}
        self.counts = _Counts()
        self.started = time.time()
        self._snapshot = Snapshot(started=self.started, catalog=catalog)
        self._listing: dict[tuple[str, str], set[str]] = {}
        self._initialized = False
        self._first_change: float | None = None
        self._last_event = 0.0
        self._next_resync = 0.0
        self._live_cluster: tuple[int, Cluster | None] | None = None
        self._audits: dict[str, None] = {}  # workloads interpreted whose placement audit is still to be made
        self._generation = 0
        self._stop = threading.Event()
        self.context = contextvars.copy_context()  # budgets and allowed reference kinds of the command
        self._thread: threading.Thread | None = None
        self.failure: BaseException | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> Service:
        """Start the worker (which starts the watches)."""
        self._thread = threading.Thread(target=self.context.copy().run, args=(self._run,), name="wmap serve")
        self._thread.daemon = True
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the worker and every watch, and wait (at most ``timeout``) for their threads to end."""
        deadline = time.monotonic() + timeout
        self._stop.set()
        for watch in list(self.watches.values()):
            watch.halt()
        self.queue.put(("wake",))
        if self._thread is not None:
            self._thread.join(timeout)
        # The worker may have started a watch while stopping: halt those too, then wait for all.
        for watch in list(self.watches.values()):
            watch.halt()
            watch.join(max(deadline - time.monotonic(), 0.0))

    @property
    def snapshot(self) -> Snapshot:
        """The latest published snapshot (immutable)."""
        return self._snapshot

    @property
    def alive(self) -> bool:
        """Whether the worker runs (``/healthz``)."""
        return self.failure is None and self._thread is not None and self._thread.is_alive()

    def wait_ready(self, seconds: float) -> bool:
        """Wait until the first snapshot with every watch listed is published (True), or ``seconds`` passed."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self._snapshot.ready:
                return True
            if self.failure is not None:
                raise self.failure
            time.sleep(0.02)
        return self._snapshot.ready

    def call(self, function: Callable[[], T], timeout: float) -> T:
        """Run ``function`` on the worker, between batches, and return its result.

        Raises:
            TimeoutError: the worker did not get to it within ``timeout`` seconds.
        """
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self.queue.put(("call", function, future))
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"the service did not answer within {timeout:g} s") from None

    # -- the worker ------------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                if time.monotonic() >= self._next_resync:
                    self._resync()
                self._drain()
                self._follow_up()
                self._maybe_interpret()
                self._audit()
        except BaseException as error:  # healthz reports it; the command exits with it
            self.failure = error

    def _covered(self, api_version: str, kind: str) -> bool:
        return self.catalog.lookup(api_version, kind) is not None

    def _sink(self, watch: Watch, event_type: str, obj: dict[str, Any] | None, precut: bool) -> None:
        self.queue.put(("event", watch, event_type, obj, precut))

    def _prepare(self, role: str, obj: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        return prepared(role, obj, self._covered)

    def _drain(self) -> None:
        """Apply the queued events: wait for the first (a short while), take the rest as they are."""
        wait = self.options.coalesce if self._first_change is not None or self._audits else 0.5
        try:
            item = self.queue.get(timeout=wait)
        except queue.Empty:
            return
        started = time.monotonic()
        while True:
            self._handle(item)
            if time.monotonic() - started > 0.5:
                return  # interpret what came so far; the rest waits in the queue
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                return

    def _handle(self, item: tuple[Any, ...]) -> None:
        if item[0] == "call":
            _, function, future = item
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(function())
                except BaseException as error:  # handed to the caller
                    future.set_exception(error)
            return
        if item[0] != "event":
            return
        _, watch, event_type, obj, precut = item
        assert isinstance(watch, Watch)
        key = watch.spec.key
        if self.watches.get(key) is not watch:
            return  # a watch stopped since
        role = watch.spec.role
        if event_type == LISTING:
            self._listing[key] = set()
        elif event_type == SYNCED:
            self._synced(watch)
        elif event_type == FAILED:
            pass  # its error is in the watch; it starts again by itself
        elif obj is not None and event_type in (ADDED, MODIFIED, DELETED):
            seen = self._listing.get(key)
            if seen is not None and event_type != DELETED:
                seen.add(self._identity(role, obj))
            self.cache.apply(role, key, event_type, obj, precut=precut)
            self._last_event = time.monotonic()
            if self._first_change is None:
                self._first_change = self._last_event
            if role in (Role.PODS, Role.NODES):
                self._generation += 1

    @staticmethod
    def _identity(role: str, obj: dict[str, Any]) -> str:
        return object_key(obj)[1] if role == Role.NODES else object_uid(obj)

    def _synced(self, watch: Watch) -> None:
        """A (re)list is complete: what it did not list is gone; an owner kind's waiting objects go on."""
        key, role = watch.spec.key, watch.spec.role
        seen = self._listing.pop(key, None)
        if seen is not None:
            for obj in self._stale(role, key, seen):
                self.cache.apply(role, key, DELETED, obj)
        if role == Role.OWNERS:
            kind = (watch.spec.resource.group, watch.spec.resource.kind)
            self.cache.pending_kinds.discard(kind)
            self.cache.reclassify(self.cache.waiting_on([kind]))
        self._first_change = self._first_change or time.monotonic()

    def _stale(self, role: str, key: tuple[str, str], seen: set[str]) -> list[dict[str, Any]]:
        cache = self.cache
        if role == Role.NODES:
            return [node for name, node in cache.nodes.items() if name not in seen]
        if role == Role.EVENTS:
            return [event for uid, event in cache.events.items() if uid not in seen]
        if role == Role.KARTAS:
            return [karta for uid, karta in cache.kartas.items() if uid not in seen]
        return [entry.obj for uid, entry in cache.entries.items() if entry.resource == key and uid not in seen]

    # -- after a batch of events -----------------------------------------------------------------

    def _follow_up(self) -> None:
        cache = self.cache
        if cache.wanted_kinds:
            self._watch_owner_kinds()
        if cache.refetch:
            self._refetch()
        if cache.catalog_changed:
            cache.catalog_changed = False
            self._reload_catalog()

    def _watch_owner_kinds(self) -> None:
        """Start watching the owner kinds met on chains (in the catalog's API groups); refuse the others."""
        cache = self.cache
        groups = catalog_groups(self.catalog)
        refused = []
        for group, kind in sorted(cache.wanted_kinds):
            resource = None
            if group and group in groups:
                try:
                    resource = owner_resource(self.client, group, kind)
                except WorkloadMapError:
                    resource = None
            if resource is None:
                refused.append((group, kind))
                continue
            cache.watched_kinds.add((group, kind))
            self._start(WatchSpec(resource, Role.OWNERS))
        cache.wanted_kinds.clear()
        for refused_kind in refused:
            cache.pending_kinds.discard(refused_kind)
            cache.refused_kinds.add(refused_kind)
        if refused:
            cache.reclassify(cache.waiting_on(refused))

    def _refetch(self) -> None:
        """Objects kept cut down that turned out to be workloads: read them whole again (GET)."""
        cache = self.cache
        uids, cache.refetch = sorted(cache.refetch), set()
        for uid in uids:
            entry = cache.entries.get(uid)
            watch = self.watches.get(entry.resource) if entry is not None else None
            if entry is None or watch is None:
                continue
            namespace, name = object_key(entry.obj)
            try:
                obj = self.client.get_object(watch.spec.resource, name, namespace or None)
            except ClusterError:
                continue  # the next event of it brings it whole
            if obj is None:
                cache.apply(entry.role, entry.resource, DELETED, entry.obj)
            else:
                cache.apply(entry.role, entry.resource, MODIFIED, obj)

    def _reload_catalog(self) -> None:
        """The cluster's Kartas changed: the catalog is made again, discovery asked, everything interpreted."""
        catalog = self.catalog_loader()
        if self.options.cluster_kartas:
            try:
                catalog.add_cluster_kartas(list(self.cache.kartas.values()), self.source)
            except DefinitionError as error:  # two cluster Kartas for one kind: neither is used
                catalog = self.catalog_loader()
                catalog.notices.append(f"cluster Kartas not used: {error}")
        self.notices = list(catalog.notices)
        self.catalog = catalog
        self.interpreter.catalog = catalog
        self.cache.reclassify(list(self.cache.entries))
        self._next_resync = 0.0  # new kinds may be covered: discover now

    def _resync(self) -> None:
        """Discovery again: start the new types' watches, stop the gone ones'; interpret everything again."""
        try:
            wanted = wanted_watches(self.client, self.catalog, self.cache.watched_kinds)
        except ClusterError:
            self._next_resync = time.monotonic() + 2.0  # the server is away: try again soon
            return
        for key, spec in wanted.items():
            if key not in self.watches:
                self._start(spec)
        for key in [key for key in self.watches if key not in wanted]:
            watch = self.watches.pop(key)
            watch.halt()
            self._listing.pop(key, None)
            self._drop(watch.spec)
        self.cache.dirty.update(self.cache.workloads)
        self._next_resync = time.monotonic() + self.options.resync

    def _start(self, spec: WatchSpec) -> None:
        if spec.key in self.watches:
            return
        if spec.role == Role.OWNERS:
            self.cache.watched_kinds.add((spec.resource.group, spec.resource.kind))
            self.cache.pending_kinds.add((spec.resource.group, spec.resource.kind))
        watch = Watch(
            self.client,
            spec,
            self.options.namespace,
            self._sink,
            self.options.shard,
            self.options.chunk_size,
            prepare=self._prepare,
        )
        self.watches[spec.key] = watch
        watch.start()

    def _drop(self, spec: WatchSpec) -> None:
        cache = self.cache
        if spec.role == Role.NODES:
            for node in list(cache.nodes.values()):
                cache.apply(spec.role, spec.key, DELETED, node)
        elif spec.role == Role.EVENTS:
            for event in list(cache.events.values()):
                cache.apply(spec.role, spec.key, DELETED, event)
        elif spec.role == Role.KARTAS:
            for karta in list(cache.kartas.values()):
                cache.apply(spec.role, spec.key, DELETED, karta)
        else:
            cache.drop_resource(spec.key)
            if spec.role == Role.OWNERS:
                kind = kind_key(spec.resource.api_version, spec.resource.kind)
                cache.watched_kinds.discard(kind)
                cache.pending_kinds.discard(kind)

    # -- interpretation --------------------------------------------------------------------------

    def _all_synced(self) -> bool:
        return bool(self.watches) and all(watch.synced for watch in self.watches.values())

    def _maybe_interpret(self) -> None:
        now = time.monotonic()
        if not self._initialized:
            if not self._all_synced() or self.cache.pending_kinds or self.cache.wanted_kinds or self.cache.refetch:
                return
            if self.cache.catalog_changed:
                return
            self._initialized = True
            self.cache.dirty.update(self.cache.workloads)
        elif self._first_change is None and not self.cache.dirty:
            return
        elif self._first_change is not None:
            quiet = now - self._last_event >= self.options.coalesce
            overdue = now - self._first_change >= self.options.max_delay
            if not (quiet or overdue):
                return
        first = not self._snapshot.ready
        dirty, self.cache.dirty = self.cache.dirty, set()
        self._first_change = None
        self._interpret(dirty)
        self._publish()
        if first and self.options.freeze_after_sync:
            # The cache of the first sync lives as long as the process: the cyclic collector need
            # not walk its millions of (acyclic) containers on every collection after this one.
            gc.collect()
            gc.freeze()

    def _prepare_cluster(self) -> None:
        cache, interpreter = self.cache, self.interpreter
        nodes_watch = next((watch for watch in self.watches.values() if watch.spec.role == Role.NODES), None)
        events_watch = next((watch for watch in self.watches.values() if watch.spec.role == Role.EVENTS), None)
        warnings = []
        if nodes_watch is not None and nodes_watch.error and not cache.nodes:
            warnings.append(f"nodes not read, no placement audit: {nodes_watch.error}")
        if events_watch is not None and events_watch.error and not cache.events:
            warnings.append(f"events not read: {events_watch.error}")
        interpreter.warnings = warnings
        interpreter.events_api = events_watch.spec.resource.api_version if events_watch is not None else None
        if not cache.nodes_changed:
            return
        cache.nodes_changed = False
        nodes = list(cache.nodes.values())
        readable = nodes_watch is not None and not (nodes_watch.error and not nodes)
        interpreter.nodes = nodes if readable else None
        try:
            interpreter.cluster = cluster_from_objects(nodes, name="cluster", source="nodes") if readable else None
        except TopologyError:
            interpreter.cluster = None  # describe reads the nodes itself and says why there is no audit
        interpreter.analysis = ClusterAnalysis(interpreter.cluster) if interpreter.cluster is not None else None

    def _interpret(self, uids: set[str]) -> None:
        """Interpret a batch; a small one with its audits, a large one (the first, a resync) without, audited later."""
        self._prepare_cluster()
        auditable = self.interpreter.cluster is not None or self.interpreter.nodes is not None
        inline = len(uids) <= INLINE_AUDITS
        for uid in uids:
            self._audits.pop(uid, None)
            state = self.interpreter.interpret(uid, audit=inline and auditable)
            if state is None:
                self.states.pop(uid, None)
                continue
            state = with_last_audit(state, self.states.get(uid))
            if state.error is None and auditable and not state.audited:
                self._audits[uid] = None
            self.counts.interpretations += 1
            if state.error is not None:
                key = (state.group, state.kind)
                self.counts.errors[key] = self.counts.errors.get(key, 0) + 1
            self.states[uid] = state

    def _audit(self) -> None:
        """Placement audits of interpreted workloads, while no event waits, for ``audit_seconds`` at a time."""
        if not self._audits or not self._initialized or not self.queue.empty():
            return
        self._prepare_cluster()
        started = time.monotonic()
        done = 0
        while self._audits and time.monotonic() - started < self.options.audit_seconds:
            uid = next(iter(self._audits))
            del self._audits[uid]
            state = self.interpreter.interpret(uid, audit=True)
            done += 1
            if state is None:
                self.states.pop(uid, None)
            else:
                self.states[uid] = state
            if not self.queue.empty():
                break
        if done:
            self._publish()

    def _publish(self) -> None:
        watches = tuple(
            WatchHealth(watch.name, watch.spec.role, watch.synced, watch.error, watch.restarts)
            for watch in sorted(self.watches.values(), key=lambda watch: watch.name)
        )
        caught_up = self.queue.empty() and not self.cache.dirty
        previous = self._snapshot
        self._snapshot = replace(
            previous,
            version=previous.version + 1,
            workloads=tuple(sorted(self.states.values(), key=lambda state: state.sort_key)),
            ready=self._initialized,
            watches=watches,
            events=dict(self.cache.counters.events),
            objects=dict(self.cache.counters.objects),
            errors=dict(self.counts.errors),
            interpretations=self.counts.interpretations,
            audits_pending=len(self._audits),
            last_sync=time.time() if caught_up and self._initialized else previous.last_sync,
            cluster=self.interpreter.cluster,
            catalog=self.catalog,
        )

    # -- requests that need the cache ------------------------------------------------------------

    def describe(self, state: WorkloadState, timeout: float) -> DescribeReport:
        """The describe report of a workload, from the cache, Events included (``to_dict()``: ``-o json``).

        Raises:
            KeyError: the workload is gone.
            WorkloadMapError: as describe.
            TimeoutError: the worker was busy for longer than ``timeout``.
        """

        def run() -> DescribeReport:
            self._prepare_cluster()
            return self.interpreter.describe(state.uid, events=True)

        return self.call(run, timeout)

    def live_cluster(self, timeout: float) -> Cluster | None:
        """The cached nodes with the cached pods' usage, for ``place`` (None without nodes).

        Raises:
            TopologyError: the nodes do not make a cluster.
            TimeoutError: the worker was busy for longer than ``timeout``.
        """

        def run() -> Cluster | None:
            if self._live_cluster is not None and self._live_cluster[0] == self._generation:
                return self._live_cluster[1]
            nodes = list(self.cache.nodes.values())
            cluster = None
            if nodes:  # named as `wmap place -t cluster:` names the live cluster
                name = self.client.context or "cluster"
                cluster = cluster_from_objects(nodes, self.cache.all_pods(), name=name, source="cluster:")
            self._live_cluster = (self._generation, cluster)
            return cluster

        return self.call(run, timeout)
