"""ListWatch against the stand-in API server: list, watch from the resourceVersion, survive cuts and 410s.

The behaviour is client-go's reflector (``tools/cache/reflector.go``): watch from the list's
resourceVersion, keep the version of every event and bookmark, watch again when a stream ends,
and list again when the server answers ``410 Gone`` ("too old resource version"), either as the
HTTP status or as an ``ERROR`` event in the stream.
"""

from __future__ import annotations

import threading
import time
from urllib.parse import parse_qs, urlsplit

import pytest

from workloadmap.kube import ADDED, DELETED, MODIFIED, SYNCED, ClusterClient, ListWatch, watch_all


def _jobset(name: str, phase_reason: str = "Running") -> dict:
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": "ml", "uid": f"uid-{name}"},
        "spec": {"replicatedJobs": []},
        "status": {"conditions": [{"type": phase_reason, "status": "True"}]},
    }


def _later(delay: float, action) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(delay), action()), daemon=True)
    thread.start()
    return thread


def _events(fake_cluster, *, seconds: float, actions=()) -> tuple[list, ListWatch]:
    """The watch's events until ``seconds``; each action runs its delay after the first list is synced.

    Counting the delays from the sync, not from the start, keeps the changes after the list however
    long a busy machine takes to make it.
    """
    events: list = []
    with ClusterClient(fake_cluster.kubeconfig) as client:
        watch = ListWatch(client, client.resolve("jobsets"), "ml", deadline=time.monotonic() + seconds)
        for event in watch:
            events.append((event.type, (event.object or {}).get("metadata", {}).get("name")))
            if event.type == SYNCED and events.count((SYNCED, None)) == 1:
                for delay, action in actions:
                    _later(delay, action)
    return events, watch


def _watch_queries(fake_cluster) -> list[dict[str, list[str]]]:
    return [parse_qs(urlsplit(path).query) for path in fake_cluster.server.watch_requests]


def test_lists_then_streams_changes_from_the_list_version(fake_cluster):
    server = fake_cluster.server
    server.add(_jobset("a"))
    server.add(_jobset("other-namespace") | {"metadata": {"name": "x", "namespace": "elsewhere", "uid": "u-x"}})
    events, watch = _events(
        fake_cluster,
        seconds=2.5,
        actions=[
            (0.3, lambda: server.add(_jobset("b"))),
            (0.5, lambda: server.update(_jobset("a", "Failed"))),
            (0.7, lambda: server.delete(_jobset("b"))),
        ],
    )
    assert events == [(ADDED, "a"), (SYNCED, None), (ADDED, "b"), (MODIFIED, "a"), (DELETED, "b")]
    first = _watch_queries(fake_cluster)[0]
    assert first["resourceVersion"] == ["3"]  # the list's version: two objects added after version 1
    assert first["allowWatchBookmarks"] == ["true"] and first["watch"] == ["1"]
    assert watch.relists == 0


def test_a_cut_stream_is_watched_again_from_the_last_version(fake_cluster):
    server = fake_cluster.server
    server.add(_jobset("a"))
    events, watch = _events(
        fake_cluster,
        seconds=3.0,
        actions=[
            (0.3, lambda: server.add(_jobset("b"))),
            (0.6, server.cut_watches),
            (1.0, lambda: server.add(_jobset("c"))),
        ],
    )
    assert events == [(ADDED, "a"), (SYNCED, None), (ADDED, "b"), (ADDED, "c")]
    assert watch.reconnects >= 1
    versions = [query.get("resourceVersion") for query in _watch_queries(fake_cluster)]
    assert versions[1] == ["3"]  # after b (version 3) was seen, not the list's version 2


@pytest.mark.parametrize("as_status", [False, True], ids=["error-event", "http-410"])
def test_410_gone_lists_again_and_reports_what_changed(fake_cluster, as_status):
    server = fake_cluster.server
    server.expired_as_status = as_status
    server.add(_jobset("keep"))
    server.add(_jobset("change"))
    server.add(_jobset("drop"))

    def meanwhile():
        """Changes the watch does not see, then a compaction and a cut: the next watch is too old."""
        server.update(_jobset("change", "Failed"))
        server.delete(_jobset("drop"))
        server.add(_jobset("new"))
        server.compact()
        server.cut_watches()

    events, watch = _events(fake_cluster, seconds=3.0, actions=[(0.2, meanwhile)])
    # The watch may have seen some changes before the cut; after the relist every change is known.
    assert sorted(events[:3]) == [(ADDED, "change"), (ADDED, "drop"), (ADDED, "keep")]
    assert events[3] == (SYNCED, None)
    later = events[4:]
    assert (MODIFIED, "change") in later and (DELETED, "drop") in later and (ADDED, "new") in later
    assert (ADDED, "keep") not in later and (MODIFIED, "keep") not in later
    assert watch.relists == 1
    assert set(watch.known) == {"uid-keep", "uid-change", "uid-new"}


def test_several_watches_at_once_end_at_the_deadline(fake_cluster):
    server = fake_cluster.server
    server.add(_jobset("a"))
    server.add({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml", "uid": "u-p"}})
    stop = threading.Event()
    started = time.monotonic()
    with ClusterClient(fake_cluster.kubeconfig) as client:
        deadline = time.monotonic() + 1.0
        watches = [ListWatch(client, client.resolve(kind), "ml", deadline=deadline) for kind in ("jobsets", "pods")]
        _later(0.3, lambda: server.add(_jobset("b")))
        seen = [(index, event.type) for index, event in watch_all(watches, stop)]
    assert time.monotonic() - started < 5
    assert sorted(seen) == [(0, ADDED), (0, ADDED), (0, SYNCED), (1, ADDED), (1, SYNCED)]
    assert stop.is_set()
    assert fake_cluster.server.methods == {"GET"}
