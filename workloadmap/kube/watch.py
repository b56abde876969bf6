"""Watching a resource type: one LIST, then WATCH requests from its resourceVersion, as an informer does.

:class:`ListWatch` yields the listed objects, a ``SYNCED`` marker, then every change. It keeps the
resourceVersion of the last event (bookmarks included) and, when a stream ends or is cut,
watches again from there. When the server answers ``410 Gone`` (the version was compacted
away), it lists again and yields the differences from what it had seen: added, modified and
deleted objects, so a consumer never misses a change. Only GET requests are sent.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import ClusterApiError, ClusterError
from .answers import object_answer, parse_answer
from .client import ClusterClient
from .failures import one_line, redact
from .resources import ApiResource

__all__ = ["WatchEvent", "ListWatch", "watch_all", "ADDED", "MODIFIED", "DELETED", "SYNCED", "QUEUED_EVENTS"]

ADDED, MODIFIED, DELETED, SYNCED = "ADDED", "MODIFIED", "DELETED", "SYNCED"
_BOOKMARK, _ERROR = "BOOKMARK", "ERROR"
_DEFAULT_WATCH_SECONDS = 300
_MAX_LINE_BYTES = 16 * 1024 * 1024
_MAX_FAILURES = 5
QUEUED_EVENTS = 64
"""Events :func:`watch_all` holds for a consumer that has not taken them (then the watches wait)."""


@dataclass(frozen=True)
class WatchEvent:
    """A change: ``ADDED``, ``MODIFIED``, ``DELETED``, or ``SYNCED`` (the first list is complete; no object)."""

    type: str
    object: dict[str, Any] | None = None


class _Pacing:
    """Delays between relists (or reconnects): none, then 0.2 s doubling to 30 s; none again after a quiet minute.

    Only time resets it, never an event, so a server that answers every watch with 410 Gone after
    one event cannot make the client list again at once, hundreds of times.
    """

    FIRST, LONGEST, QUIET = 0.2, 30.0, 60.0

    def __init__(self) -> None:
        self.delay = 0.0
        self.last = -math.inf

    def next(self) -> float:
        """The delay to wait now (and the next one doubles)."""
        now = time.monotonic()
        if now - self.last > self.QUIET:
            self.delay = 0.0
        delay, self.delay = self.delay, min(max(self.delay * 2, self.FIRST), self.LONGEST)
        self.last = now + delay
        return delay


class _Expired(Exception):
    """The server no longer has the resourceVersion (410 Gone): list again."""


class _Cut(Exception):
    """The stream broke off (connection reset, incomplete chunk): watch again."""


def _uid(obj: dict[str, Any]) -> str:
    metadata = obj.get("metadata") or {}
    return str(metadata.get("uid") or f"{metadata.get('namespace', '')}/{metadata.get('name', '')}")


def _version(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion") or "")


class ListWatch:
    """List one resource type, then watch it until ``deadline`` or ``stop``.

    Args:
        client: the :class:`~workloadmap.kube.client.ClusterClient`.
        resource: the resource type.
        namespace: the namespace, or None for all namespaces (and cluster-scoped types).
        label_selector, field_selector: passed to the server as they are.
        chunk_size: page size of the lists.
        deadline: ``time.monotonic()`` value at which to stop (None: never).
        stop: set it to stop between events.

    Attributes:
        relists: how many times a 410 made it list again.
        reconnects: how many times it watched again after a stream ended or broke.
    """

    def __init__(
        self,
        client: ClusterClient,
        resource: ApiResource,
        namespace: str | None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
        chunk_size: int | None = None,
        deadline: float | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self.client = client
        self.resource = resource
        self.namespace = namespace
        self.label_selector = label_selector
        self.field_selector = field_selector
        self.chunk_size = chunk_size
        self.deadline = deadline
        self.stop = stop or threading.Event()
        self.version = ""
        self.known: dict[str, dict[str, Any]] = {}
        self.relists = 0
        self.reconnects = 0
        self._response: Any = None  # the open WATCH stream, which interrupt() shuts

    def interrupt(self) -> None:
        """Stop from another thread, at once: set ``stop`` and shut the open stream's socket.

        A stream read blocks until the server sends an event or its timeout; stopping between events
        alone would leave the thread (and its TLS socket) alive that long after the caller moved on.
        """
        self.stop.set()
        response = self._response
        shutdown = getattr(response, "shutdown", None)  # urllib3 2.3+
        if shutdown is not None:
            try:
                shutdown()
            except (OSError, ValueError):
                pass  # already closed, or its socket already handed back

    def _remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def _done(self) -> bool:
        remaining = self._remaining()
        return self.stop.is_set() or (remaining is not None and remaining <= 0)

    def _list(self) -> list[dict[str, Any]]:
        items, self.version = self.client.list_with_version(
            self.resource,
            self.namespace,
            label_selector=self.label_selector,
            field_selector=self.field_selector,
            chunk_size=self.chunk_size,
        )
        return items

    def __iter__(self) -> Iterator[WatchEvent]:
        for obj in self._list():
            self.known[_uid(obj)] = obj
            yield WatchEvent(ADDED, obj)
        yield WatchEvent(SYNCED)
        failures = expired = 0
        # Relists and reconnects are paced by time, not by events: a server that answers every watch
        # with 410 Gone (or cuts every stream) after one event is listed again at a slowing pace.
        relists, reconnects = _Pacing(), _Pacing()
        while not self._done():
            try:
                for event in self._watch_once():
                    failures = expired = 0
                    yield event
                    if self._done():
                        return
                self.reconnects += 1
                self._pause(reconnects)
            except _Expired:
                self.relists += 1
                expired += 1
                if expired >= _MAX_FAILURES:
                    raise ClusterError(
                        f"the watch of {self.resource.qualified_name} expired {expired} times in a row after listing"
                    ) from None
                self._pause(relists)
                if self._done():
                    return
                yield from self._relist()
            except (_Cut, ClusterError) as error:
                if isinstance(error, ClusterApiError):
                    raise
                self.reconnects += 1
                failures += 1
                if failures >= _MAX_FAILURES:
                    if isinstance(error, ClusterError):
                        raise
                    raise ClusterError(
                        f"the watch of {self.resource.qualified_name} broke off {failures} times in a row"
                    ) from None
                self._pause(reconnects)

    def _pause(self, pacing: _Pacing) -> None:
        """Wait the pacing's next delay, or until the deadline or ``stop``."""
        delay = pacing.next()
        remaining = self._remaining()
        if remaining is not None:
            delay = min(delay, max(remaining, 0.0))
        if delay > 0:
            self.stop.wait(delay)

    def _relist(self) -> Iterator[WatchEvent]:
        """List again after 410 Gone and yield what changed since the objects last seen."""
        fresh = {_uid(obj): obj for obj in self._list()}
        for uid, obj in fresh.items():
            seen = self.known.get(uid)
            if seen is None:
                yield WatchEvent(ADDED, obj)
            elif _version(seen) != _version(obj):
                yield WatchEvent(MODIFIED, obj)
        for uid, obj in self.known.items():
            if uid not in fresh:
                yield WatchEvent(DELETED, obj)
        self.known = fresh

    def _query(self, seconds: int) -> list[tuple[str, str]]:
        query = [
            ("watch", "1"),
            ("allowWatchBookmarks", "true"),
            ("timeoutSeconds", str(seconds)),
        ]
        if self.version:
            query.append(("resourceVersion", self.version))
        if self.label_selector:
            query.append(("labelSelector", self.label_selector))
        if self.field_selector:
            query.append(("fieldSelector", self.field_selector))
        return query

    def _watch_once(self) -> Iterator[WatchEvent]:
        """One WATCH request; yields its events until the server ends the stream."""
        remaining = self._remaining()
        seconds = _DEFAULT_WATCH_SECONDS if remaining is None else max(1, math.ceil(remaining))
        # With a deadline a stream read waits no longer than it (a server may ignore timeoutSeconds).
        read_timeout = seconds + self.client.timeout if remaining is None else max(remaining, 0.05) + 0.25
        path = self.resource.path(self.namespace)
        status, raw = self.client._open(path, self._query(seconds), read_timeout=read_timeout)
        self._response = raw
        try:
            if status == 410:
                raise _Expired()
            if not 200 <= status < 300:
                body = raw.read(64 * 1024)
                try:
                    decoded = json.loads(body) if body else None
                except ValueError:
                    decoded = None
                raise self.client.status_error(status, decoded, path, namespace=self.namespace)
            for line in self._lines(raw):
                event = self._decode(line)
                if event is not None:
                    yield event
                if self._done():
                    return
        finally:
            self._response = None
            raw.close()  # a watch connection is never reused: it may have been cut mid-stream
            raw.release_conn()

    def _lines(self, raw: Any) -> Iterator[bytes]:
        import urllib3

        buffer = b""
        try:
            for chunk in raw.stream(64 * 1024, decode_content=True):
                buffer += chunk
                if len(buffer) > _MAX_LINE_BYTES:
                    raise ClusterError(f"a watch event of {self.resource.qualified_name} is larger than 16 MiB")
                *lines, buffer = buffer.split(b"\n")
                yield from (line for line in lines if line.strip())
        except (urllib3.exceptions.HTTPError, OSError):
            raise _Cut() from None
        if buffer.strip():
            raise _Cut()  # a partial event: the connection ended mid-object

    def _decode(self, line: bytes) -> WatchEvent | None:
        what = f"the watch of {self.resource.qualified_name}"
        event = parse_answer(line, what)
        if event is None:
            raise _Cut()  # not JSON: a line cut short
        if not isinstance(event, dict) or not isinstance(event.get("object"), dict):
            raise ClusterError(f"{what} sent an event that is not a JSON object with an object: {one_line(line, 80)}")
        kind, obj = event.get("type"), event["object"]
        if kind == _ERROR:
            if obj.get("code") == 410:
                raise _Expired()
            message = one_line(redact(obj.get("message") or "", self.client._secrets))
            raise ClusterError(f"the watch of {self.resource.qualified_name} failed: {message or obj.get('reason')}")
        version = _version(obj)
        if version:
            self.version = version
        if kind == _BOOKMARK or kind not in (ADDED, MODIFIED, DELETED):
            return None
        object_answer(obj, self.resource.kind, self.resource.api_version, f"{what} ({kind})")
        if kind == DELETED:
            self.known.pop(_uid(obj), None)
        else:
            self.known[_uid(obj)] = obj
        return WatchEvent(kind, obj)


def watch_all(watches: list[ListWatch], stop: threading.Event) -> Iterator[tuple[int, WatchEvent]]:
    """Run several :class:`ListWatch` at once (one thread each) and yield ``(index, event)`` as they come.

    Ends when every watch has ended (their deadline passed, or ``stop`` was set); an error in a
    watch stops the others and is raised here.
    """
    import queue

    # Bounded: a watch whose events are not consumed (stdout not read) waits for the printer and
    # stops reading its stream, instead of queueing every event in memory.
    events: queue.Queue[tuple[int, WatchEvent | None, BaseException | None]] = queue.Queue(maxsize=QUEUED_EVENTS)

    def put(item: tuple[int, WatchEvent | None, BaseException | None]) -> bool:
        while not stop.is_set():
            try:
                events.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def run(index: int, watch: ListWatch) -> None:
        try:
            for event in watch:
                if not put((index, event, None)):
                    return
        except BaseException as error:  # handed to the consumer, which raises it
            put((index, None, error))
            return
        put((index, None, None))

    for watch in watches:
        watch.stop = stop
    threads = [threading.Thread(target=run, args=(i, w), daemon=True) for i, w in enumerate(watches)]
    for thread in threads:
        thread.start()
    running = len(threads)
    try:
        while running:
            index, event, error = events.get()
            if error is not None:
                raise error
            if event is None:
                running -= 1
                continue
            yield index, event
    finally:
        stop.set()
