"""The live client against answers of the wrong shape or kind, unasked encodings, and a server that churns (issue 26).

Each of these crashed the client, reported the wrong object, held memory without bound or looped:
well-formed JSON of the wrong type (``items: 5``, ``metadata: [1]``, discovery ``versions: 5``, watch
lines that are JSON but no objects); ``get jobset/train`` answered with a Pod (reported) or a
SecretList (``No resources found``); a gzip answer nobody asked for; a server that answers every
watch with ``410 Gone`` after one event (listed again at once, hundreds of times); events nobody
consumes (queued without bound); an idle stream past ``get -w --timeout``.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

from helpers.hostile import always_gone, answer_with, compressed, watch_stream
from workloadmap.errors import ClusterError
from workloadmap.kube import QUEUED_EVENTS, SYNCED, ClusterClient, ListWatch, watch_all

JOBSETS = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets"
JOBSET_API = "jobset.x-k8s.io/v1alpha2"


def jobset(name: str, version: str = "1", **metadata: object) -> dict:
    return {"apiVersion": JOBSET_API, "kind": "JobSet",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "resourceVersion": version,
                         **metadata},
            "spec": {"replicatedJobs": []}}  # fmt: skip


WRONG_SHAPES = [
    (JOBSETS, {"kind": "JobSetList", "apiVersion": JOBSET_API, "metadata": {}, "items": 5},
     "items is int, not a list"),
    (JOBSETS, {"kind": "JobSetList", "apiVersion": JOBSET_API, "metadata": [1], "items": []},
     "metadata is list, not an object"),
    (JOBSETS, {"kind": "JobSetList", "apiVersion": JOBSET_API, "items": [5]}, "items[0] is int"),
    (JOBSETS, {"kind": "SecretList", "apiVersion": "v1", "items": [{"metadata": {"name": "token"}}]},
     "with a 'SecretList' ('v1'), not a JobSetList (jobset.x-k8s.io/v1alpha2)"),
    (JOBSETS, {"kind": "JobSetList", "apiVersion": JOBSET_API, "items": [{"kind": "Secret", "apiVersion": "v1"}]},
     "with items[0] a 'Secret' ('v1'), not a JobSet"),
    ("/api", {"kind": "APIVersions", "versions": 5}, "versions is int, not a list"),
    ("/apis", {"kind": "APIGroupList", "groups": {"a": 1}}, "groups is dict, not a list"),
    ("/apis/jobset.x-k8s.io/v1alpha2", {"kind": "APIResourceList", "resources": "jobsets"},
     "resources is str, not a list"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "body", "expected"), WRONG_SHAPES, ids=[e for _, _, e in WRONG_SHAPES])
def test_an_answer_of_the_wrong_shape_is_one_line(fake_cluster, path, body, expected):
    fake_cluster.server.hostile = answer_with(path, body, watch=False)
    with ClusterClient(fake_cluster.kubeconfig) as client, pytest.raises(ClusterError) as caught:
        client.list("jobsets", "default")
    assert expected in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "train"}}, "with a 'Pod' ('v1'), not a JobSet"),
        ({"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "train"}}, "with a 'Secret' ('v1')"),
        (jobset("other"), "with the object 'other', not 'train'"),
        ({"kind": "JobSet", "apiVersion": JOBSET_API, "metadata": [1]}, "metadata is list"),
    ],
)
def test_get_answered_with_another_object_is_refused(fake_cluster, answer, expected):
    fake_cluster.server.hostile = answer_with(f"{JOBSETS}/train", answer)
    with ClusterClient(fake_cluster.kubeconfig) as client, pytest.raises(ClusterError, match="GET /apis/") as caught:
        client.get("jobset/train", "default")
    assert expected in str(caught.value)


def test_the_cli_never_reports_a_pod_or_no_resources_for_a_secret(fake_cluster, wmap):
    kubeconfig = str(fake_cluster.kubeconfig)
    fake_cluster.server.hostile = answer_with(f"{JOBSETS}/train", {"kind": "Pod", "apiVersion": "v1",
                                                                    "metadata": {"name": "train"}})  # fmt: skip
    result = wmap("get", "jobset/train", "-n", "default", "--kubeconfig", kubeconfig)
    assert result.exit_code == 1 and result.stdout == "" and "not a JobSet" in result.stderr
    fake_cluster.server.hostile = answer_with(JOBSETS, {"kind": "SecretList", "apiVersion": "v1", "items": []})
    result = wmap("get", "jobsets", "-n", "default", "--kubeconfig", kubeconfig)
    assert result.exit_code == 1 and "No resources found" not in result.stderr + result.stdout


@pytest.mark.parametrize("line", [b"[1]", b"5", b'"text"', b'{"type": "ADDED", "object": [1]}',
                                  b'{"type": "ADDED", "object": {"kind": "Secret", "apiVersion": "v1"}}'])  # fmt: skip
def test_watch_lines_of_the_wrong_shape_end_the_watch_in_one_line(fake_cluster, line):
    fake_cluster.server.hostile = watch_stream(JOBSETS, [line])
    with ClusterClient(fake_cluster.kubeconfig) as client:
        watch = ListWatch(client, client.resolve("jobsets"), "default", deadline=time.monotonic() + 20)
        with pytest.raises(ClusterError, match="the watch of jobsets.jobset.x-k8s.io") as caught:
            list(watch)
    assert "\n" not in str(caught.value)


def test_an_unasked_gzip_answer_is_refused_before_it_is_decoded(fake_cluster):
    """0.5 MB of gzip decoding to 200 MB of JSON peaked at 4.3 GB."""
    fake_cluster.server.hostile = compressed("/api/v1/nodes", 200 * 1024 * 1024)
    with ClusterClient(fake_cluster.kubeconfig) as client, pytest.raises(ClusterError) as caught:
        client.nodes()
    assert str(caught.value) == (
        "the API server answered GET /api/v1/nodes with a gzip-encoded body, which wmap did not ask for (refused)"
    )


def test_relists_are_paced_when_every_watch_expires_after_one_event(fake_cluster):
    """Each event used to reset the back-off: hundreds of lists in 20 s. Time alone paces them now."""
    fake_cluster.server.add(jobset("churn"))
    gone = always_gone(JOBSETS, "JobSet", JOBSET_API)
    fake_cluster.server.hostile = gone
    with ClusterClient(fake_cluster.kubeconfig) as client:
        watch = ListWatch(client, client.resolve("jobsets"), "default", deadline=time.monotonic() + 3.5)
        events = [event for event in watch]
    lists = [path for _, path in fake_cluster.server.requests if path.startswith(JOBSETS) and "watch=" not in path]
    # 0, 0.2, 0.4, 0.8, 1.6 s between relists: at most 6 lists in 3.5 s (there were hundreds).
    assert 2 <= len(lists) <= 7, len(lists)
    assert watch.relists >= len(lists) - 1 and any(event.type == SYNCED for event in events)


def test_events_nobody_consumes_wait_in_a_bounded_queue(fake_cluster):
    """With stdout not read, the watch queue grew to 584 MB after 100,000 events."""
    server = fake_cluster.server
    server.add(jobset("a"))
    stop = threading.Event()
    with ClusterClient(fake_cluster.kubeconfig) as client:
        watch = ListWatch(client, client.resolve("jobsets"), "default", deadline=time.monotonic() + 20)
        stream = watch_all([watch], stop)
        assert next(stream)[1].type == "ADDED" and next(stream)[1].type == SYNCED
        for number in range(QUEUED_EVENTS * 4):
            server.update(jobset("a") | {"spec": {"replicatedJobs": [], "n": number}})
        time.sleep(1.5)  # the consumer takes nothing meanwhile
        decoded = int(watch.version)
        first = int(next(stream)[1].object["metadata"]["resourceVersion"])
        stop.set()
        stream.close()
    assert decoded - first <= QUEUED_EVENTS + 2, (first, decoded)  # the watch waited for the printer


def test_get_watch_ends_at_its_timeout_on_an_idle_stream(fake_cluster, wmap):
    """A stream the server never ends (timeoutSeconds ignored): get -w --timeout 2s ended after 13 s."""
    fake_cluster.server.add(jobset("idle"))
    fake_cluster.server.hostile = watch_stream(JOBSETS, [], hold=60)
    started = time.monotonic()
    result = wmap("get", "jobsets", "-n", "default", "-w", "--timeout", "2s", "--kubeconfig",
                  str(fake_cluster.kubeconfig))  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert time.monotonic() - started < 6


def test_the_trees_of_watched_events_are_not_kept(fake_cluster, wmap, monkeypatch):
    """Every event's tree was kept for the whole watch (849 MB after 100,000 modifications of one JobSet)."""
    from workloadmap.cli.commands import get as get_command

    made: list = []

    class Recorded(get_command.Collected):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(get_command, "Collected", Recorded)
    server = fake_cluster.server
    server.add(jobset("a"))

    def modify() -> None:
        for number in range(150):
            server.update(jobset("a") | {"spec": {"replicatedJobs": [], "n": number}, "status": {"n": number}})

    timer = threading.Timer(1.0, modify)
    timer.start()
    result = wmap("get", "jobsets", "-n", "default", "-w", "-o", "name", "--timeout", "4s", "--kubeconfig",
                  str(fake_cluster.kubeconfig))  # fmt: skip
    timer.join()
    assert result.exit_code == 0, result.stderr
    assert made and len(made[0].trees) == 1  # the command's own: the listed object, not one per event
    assert all(len(collected.trees) <= 1 for collected in made)


def test_custom_columns_show_server_control_characters_as_escapes(fake_cluster, wmap):
    fake_cluster.server.add(jobset("x\x1b[2J\x07\x00\u202ey"))  # the stand-in stores what a hostile server sends
    result = wmap("get", "jobsets", "-n", "default", "-o", "custom-columns=NAME:.workload.name,KIND:.workload.kind",
                  "--kubeconfig", str(fake_cluster.kubeconfig))  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert not {"\x1b", "\x07", "\x00", "\u202e"} & set(result.stdout)
    assert "\\x1b[2J\\x07\\x00\\u202ey" in result.stdout


def test_a_megabyte_of_server_text_is_cut_in_human_output(fake_cluster, wmap):
    fake_cluster.server.add(jobset("n" * 200_000))
    result = wmap("get", "jobsets", "-n", "default", "--kubeconfig", str(fake_cluster.kubeconfig))
    assert result.exit_code == 0, result.stderr
    assert max(len(line) for line in result.stdout.splitlines()) < 2300
    assert "197,952 more characters" in result.stdout.replace("-", " ")
    machine = wmap("get", "jobsets", "-n", "default", "-o", "json", "--kubeconfig", str(fake_cluster.kubeconfig))
    assert json.loads(machine.stdout)["items"][0]["workload"]["name"] == "n" * 200_000  # machine output stays exact


def test_get_o_name_holds_a_page_not_the_whole_list(fake_cluster, wmap, monkeypatch):
    """200,000 small JobSets over 400 pages peaked at 1.4 GB to print their names: every tree was kept."""
    from workloadmap.cli.commands import get as get_command

    made: list = []

    class Recorded(get_command.Collected):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(get_command, "Collected", Recorded)
    fake_cluster.server.add_all(jobset(f"js-{number:04d}") for number in range(450))
    result = wmap("get", "jobsets", "-n", "default", "-o", "name", "--chunk-size", "100", "--kubeconfig",
                  str(fake_cluster.kubeconfig))  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [f"jobset.jobset.x-k8s.io/js-{number:04d}" for number in range(450)]
    assert max(len(collected.trees) for collected in made) == 100
