"""Events of both APIs, ordered as kubectl orders them, and how a pod's state is read.

Event times follow ``eventTime`` of ``kubectl/pkg/cmd/events/events.go`` (the series' last
observed time, else ``lastTimestamp``, else ``eventTime``); ``events.k8s.io/v1`` names the same
fields ``series.lastObservedTime``, ``deprecatedLastTimestamp``, ``eventTime`` and the message
``note``. Pod reasons follow what ``kubectl get pods`` shows: the ``PodScheduled`` condition of an
unscheduled pod, a waiting or failed container, the pod's own ``status.reason``.
"""

from __future__ import annotations

import pytest

from helpers.operators import LiveCluster, fill
from workloadmap.live import PodView, describe, event_view, from_dumps


def _core(name: str, kind: str, obj: str, uid: str, **times) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name},
        "reason": name,
        "message": f"m {name}",
        "type": "Normal",
        "involvedObject": {"kind": kind, "name": obj, "uid": uid},
        **times,
    }


def _new(name: str, kind: str, obj: str, uid: str, **times) -> dict:
    return {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": name},
        "reason": name,
        "note": f"n {name}",
        "type": "Warning",
        "regarding": {"kind": kind, "name": obj, "uid": uid},
        **times,
    }


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (
            _core("a", "Pod", "p", "u", lastTimestamp="2026-05-01T10:00:00Z", eventTime="2026-05-01T11:00:00.000000Z"),
            "2026-05-01T10:00:00Z",
        ),
        (_core("b", "Pod", "p", "u", eventTime="2026-05-01T11:00:00.500000Z"), "2026-05-01T11:00:00.5Z"),
        (
            _core(
                "c",
                "Pod",
                "p",
                "u",
                lastTimestamp="2026-05-01T10:00:00Z",
                series={"count": 4, "lastObservedTime": "2026-05-01T12:00:00.000000Z"},
            ),
            "2026-05-01T12:00:00Z",
        ),
        (
            _new(
                "d",
                "Pod",
                "p",
                "u",
                deprecatedLastTimestamp="2026-05-01T09:00:00Z",
                eventTime="2026-05-01T08:00:00.000000Z",
            ),
            "2026-05-01T09:00:00Z",
        ),
        (
            _new(
                "e",
                "Pod",
                "p",
                "u",
                eventTime="2026-05-01T08:00:00.000000Z",
                series={"count": 2, "lastObservedTime": "2026-05-01T13:30:00.000000Z"},
            ),
            "2026-05-01T13:30:00Z",
        ),
        (_new("f", "Pod", "p", "u"), None),
    ],
)
def test_event_time_is_kubectls(event, expected):
    from workloadmap.live import format_time

    assert format_time(event_view(event).last_seen) == expected


def test_both_apis_read_into_one_form():
    old = event_view(_core("x", "Pod", "p", "u1", count=3))
    new = event_view(_new("y", "Job", "j", "u2", series={"count": 5}))
    assert (old.message, old.regarding, old.count, old.type) == ("m x", ("u1", "Pod", "p"), 3, "Normal")
    assert (new.message, new.regarding, new.count, new.type) == ("n y", ("u2", "Job", "j"), 5, "Warning")


def test_describe_keeps_the_events_of_the_workload_its_owners_and_pods_newest_first():
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(1)
    job = {"parallelism": 1, "template": {"spec": {"containers": [{"name": "t", "image": "x"}]}}}
    manifest = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "train"},
        "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": job}}]},
    }
    workload = cluster.workload(manifest)
    cluster.run_jobset(workload, fill(nodes))
    other = cluster.workload({**manifest, "metadata": {"name": "other"}})
    cluster.run_jobset(other, fill(nodes))
    job_obj = next(obj for obj in cluster.objects if obj["kind"] == "Job" and obj["metadata"]["name"] == "train-w-0")
    pod = next(obj for obj in cluster.pods() if obj["metadata"]["name"].startswith("train-"))
    cluster.event(workload, "Created", "created Job train-w-0")  # events.k8s.io, oldest
    cluster.event(job_obj, "SuccessfulCreate", "Created pod", core=True)  # a core v1 Event of the Job
    cluster.event(other, "Created", "another workload")  # not ours
    cluster.event(pod, "Pulled", "image pulled")  # newest
    report = describe(workload, from_dumps(cluster.objects, cluster.nodes))
    assert [(event.object, event.reason) for event in report.events] == [
        (f"Pod/{pod['metadata']['name']}", "Pulled"),
        ("Job/train-w-0", "SuccessfulCreate"),
        ("JobSet/train", "Created"),
    ]
    assert report.events_api == "events.k8s.io/v1,v1"


def _pod(status: dict, spec: dict | None = None, **metadata) -> PodView:
    return PodView.from_dict({"metadata": {"name": "p", **metadata}, "spec": spec or {}, "status": status})


@pytest.mark.parametrize(
    ("pod", "phase", "ready", "reason", "message", "health"),
    [
        (
            _pod(
                {
                    "phase": "Pending",
                    "conditions": [
                        {
                            "type": "PodScheduled",
                            "status": "False",
                            "reason": "Unschedulable",
                            "message": "0/3 nodes are available:  3 Insufficient nvidia.com/gpu.",
                        }
                    ],
                }
            ),
            "Pending",
            False,
            "Unschedulable",
            "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
            1,
        ),
        (
            _pod(
                {
                    "phase": "Running",
                    "conditions": [{"type": "Ready", "status": "False"}],
                    "containerStatuses": [
                        {
                            "restartCount": 7,
                            "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}},
                        }
                    ],
                },
                {"nodeName": "n1"},
            ),
            "Running",
            False,
            "CrashLoopBackOff",
            "back-off 5m0s",
            0,
        ),
        (
            _pod(
                {"phase": "Failed", "reason": "Evicted", "message": "The node was low on resource: memory."},
                {"nodeName": "n1"},
            ),
            "Failed",
            False,
            "Evicted",
            "The node was low on resource: memory.",
            0,
        ),
        (
            _pod({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}, {"nodeName": "n1"}),
            "Running",
            True,
            None,
            None,
            3,
        ),
        (
            _pod(
                {
                    "phase": "Succeeded",
                    "containerStatuses": [{"state": {"terminated": {"reason": "Completed", "exitCode": 0}}}],
                },
                {"nodeName": "n1"},
            ),
            "Succeeded",
            False,
            None,
            None,
            4,
        ),
    ],
)
def test_pod_state_as_kubectl_shows_it(pod, phase, ready, reason, message, health):
    assert (pod.phase, pod.ready, pod.reason, pod.message, pod.health) == (phase, ready, reason, message, health)


def test_the_gang_a_scheduler_wrote_on_the_pod():
    kai = _pod({}, annotations={"pod-group-name": "pg-train-1"}, labels={"kai.scheduler/subgroup-name": "workers"})
    assert (kai.pod_group, kai.sub_group) == ("pg-train-1", "workers")
    volcano = _pod({}, annotations={"scheduling.k8s.io/group-name": "train-uid"}, labels={"volcano.sh/task-spec": "ps"})
    assert (volcano.pod_group, volcano.sub_group) == ("train-uid", "ps")
    kueue = _pod({}, labels={"kueue.x-k8s.io/pod-group-name": "g", "kueue.x-k8s.io/podset": "main"})
    assert (kueue.pod_group, kueue.sub_group) == ("g", "main")
