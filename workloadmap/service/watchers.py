"""The watches that feed the cache: one :class:`~workloadmap.kube.ListWatch` per resource type, each on a thread.

A watch lists its resource type (paged), then watches from the list's resourceVersion with
bookmarks; :class:`~workloadmap.kube.ListWatch` reconnects after a cut stream and lists again
after ``410 Gone``. A watch that fails anyway (the server down for longer, a 500) is started again
here after a growing pause, and its fresh list tells the cache which objects went away meanwhile
(a ``LISTING`` marker, then the list, then ``SYNCED``). A watch refused for good (403 Forbidden:
RBAC grants no such read; 404: the type is gone) counts as listed, empty, with its error shown in
``/readyz`` and the health series, and is tried again later.

Objects of namespaces another shard handles are dropped in the watch's thread, before they reach
the cache; what the watch itself remembers of each object (for the differences after a relist) is
cut down to its identity and resourceVersion.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import ClusterApiError, WorkloadMapError
from ..kube import SYNCED, ApiResource, ClusterClient, ListWatch

__all__ = ["WatchSpec", "Watch", "LISTING", "FAILED"]

LISTING = "LISTING"
"""Marker: a (re)list begins; the objects that follow until ``SYNCED`` are all there is."""
FAILED = "FAILED"
"""Marker: the watch failed (its ``error`` says why); it is started again after a pause."""

_PAUSES = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)


@dataclass(frozen=True)
class WatchSpec:
    """A resource type to watch and what its objects are to the cache (a :class:`~.cache.Role`)."""

    resource: ApiResource
    role: str

    @property
    def key(self) -> tuple[str, str]:
        """``(group, plural)``."""
        return self.resource.group, self.resource.plural


Sink = Callable[["Watch", str, "dict[str, Any] | None", bool], None]
Prepare = Callable[[str, "dict[str, Any]"], "tuple[dict[str, Any], bool]"]


def _stub(obj: dict[str, Any]) -> dict[str, Any]:
    metadata = obj.get("metadata") or {}
    return {
        "metadata": {key: metadata[key] for key in ("uid", "namespace", "name", "resourceVersion") if key in metadata}
    }


class Watch:
    """One resource type listed and watched on a thread of its own, events handed to ``sink``.

    Args:
        client: the read-only client.
        spec: what to watch.
        namespace: the namespace of namespaced types (None: all).
        sink: called on the watch's thread with ``(watch, event type, object)``.
        in_shard: whether a namespace is this process's.
        chunk_size: page size of the lists.
        prepare: ``(role, object) -> (object, cut)``: what is handed on of each object (cut down
            on this thread, so the whole one is dropped at once); by default the object itself.

    Attributes:
        synced: the first list is complete (or the type was refused for good).
        error: the last failure, one line (None while it works).
        failures: times the watch failed and was started again.
    """

    def __init__(
        self,
        client: ClusterClient,
        spec: WatchSpec,
        namespace: str | None,
        sink: Sink,
        in_shard: Callable[[str], bool],
        chunk_size: int | None = None,
        prepare: Prepare | None = None,
    ) -> None:
        self.client = client
        self.spec = spec
        self.namespace = namespace if spec.resource.namespaced else None
        self.sink = sink
        self.in_shard = in_shard
        self.chunk_size = chunk_size
        self.prepare: Prepare = prepare or (lambda _role, obj: (obj, False))
        self.stop = threading.Event()
        self.synced = False
        self.error: str | None = None
        self.failures = 0
        self._current: ListWatch | None = None
        self._past_restarts = 0
        self.thread = threading.Thread(target=self._run, name=f"watch {spec.resource.qualified_name}", daemon=True)

    @property
    def name(self) -> str:
        """``plural.group`` (``pods``, ``jobsets.jobset.x-k8s.io``)."""
        return self.spec.resource.qualified_name

    @property
    def restarts(self) -> int:
        """Times it watched or listed again: reconnects, relists after 410, and restarts after failures."""
        current = self._current
        now = (current.reconnects + current.relists) if current is not None else 0
        return self._past_restarts + now + self.failures

    def start(self) -> Watch:
        """Start the watch's thread."""
        self.thread.start()
        return self

    def halt(self) -> None:
        """Stop the watch now: between events, and in a stream read that is waiting for one."""
        self.stop.set()
        current = self._current
        if current is not None:
            current.interrupt()

    def join(self, timeout: float) -> None:
        """Wait for the watch's thread to end (after :meth:`halt`), at most ``timeout`` seconds."""
        if self.thread.is_alive():
            self.thread.join(timeout)

    def _run(self) -> None:
        pause = 0
        while not self.stop.is_set():
            watch = ListWatch(
                self.client, self.spec.resource, self.namespace, chunk_size=self.chunk_size, stop=self.stop
            )
            self._current = watch
            try:
                self.sink(self, LISTING, None, False)
                for event in watch:
                    if event.type == SYNCED:
                        self.error, pause = None, 0
                        self.synced = True
                        self.sink(self, SYNCED, None, False)
                        continue
                    self._forward(watch, event.type, event.object)
            except ClusterApiError as error:
                self._failed(error, refused=error.status_code in (403, 404))
            except WorkloadMapError as error:
                self._failed(error, refused=False)
            except Exception as error:  # a bug must not end the watch for good
                self._failed(error, refused=False)
            finally:
                self._past_restarts += watch.reconnects + watch.relists
                self._current = None
            if not self.stop.is_set():
                self.stop.wait(_PAUSES[min(pause, len(_PAUSES) - 1)])
                pause += 1

    def _forward(self, watch: ListWatch, event_type: str, obj: dict[str, Any] | None) -> None:
        if obj is None:
            return
        metadata = obj.get("metadata") or {}
        namespace = metadata.get("namespace")
        uid = str(metadata.get("uid") or f"{namespace or ''}/{metadata.get('name', '')}")
        if not namespace or self.in_shard(str(namespace)):
            kept, precut = self.prepare(self.spec.role, obj) if event_type != "DELETED" else (obj, False)
            self.sink(self, event_type, kept, precut)
        if isinstance(watch.known.get(uid), dict):
            watch.known[uid] = _stub(obj)  # the watch only compares resourceVersions after a relist

    def _failed(self, error: BaseException, *, refused: bool) -> None:
        self.failures += 1
        self.error = str(error) or type(error).__name__
        if refused and not self.synced:
            self.synced = True  # listed as empty: nothing can be read of it
            self.sink(self, SYNCED, None, False)
        self.sink(self, FAILED, None, False)


def wait_all(watches: list[Watch], seconds: float) -> bool:
    """Wait until every watch has synced (True) or ``seconds`` passed (False)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if all(watch.synced for watch in watches):
            return True
        time.sleep(0.05)
    return all(watch.synced for watch in watches)
