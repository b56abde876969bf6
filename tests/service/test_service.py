"""``wmap serve`` against the stand-in API server: the same answers as ``get``/``describe``, and a cluster that moves.

The cluster holds workloads played through their operators (:mod:`helpers.operators`: JobSet ->
Jobs -> pods, LWS -> StatefulSets -> pods, RayCluster -> pods, PyTorchJob -> pods, PodCliqueSet
-> PodCliques -> pods), nodes, Events, a pending pod, another workload's pods and a bare pod. The
JSON API must answer what ``wmap get all -A -o json`` and ``wmap describe -o json`` print on the
same cluster; then the cluster changes under the running service (pods becoming Ready, a gang
losing a pod, a workload deleted, a CRD appearing, a cut watch, a 410) and the series follow. The
``fake_cluster`` fixture fails any test whose client sent anything but GET.
"""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from typer.testing import CliRunner

from helpers import FIXTURES_DIR
from helpers.apiserver import FakeResource
from helpers.operators import LiveCluster
from helpers.serve import (
    WORKLOADS,
    get,
    get_json,
    operator_cluster,
    running_service,
    samples,
    serve_cluster,
    wait_until,
)
from workloadmap.cli.main import app
from workloadmap.service import ServiceOptions

runner = CliRunner()


def _cluster(*, pending: int = 1) -> LiveCluster:
    return operator_cluster(pending=pending)


def _serve(server, cluster: LiveCluster) -> None:
    serve_cluster(server, cluster)


def _key(tree: dict) -> tuple:
    workload = tree["workload"]
    return workload.get("namespace"), workload["kind"], workload["name"]


def test_the_api_answers_what_get_and_describe_print(fake_cluster):
    cluster = _cluster()
    _serve(fake_cluster.server, cluster)
    kubeconfig = str(fake_cluster.kubeconfig)
    printed = runner.invoke(app, ["get", "all", "-A", "-o", "json", "--kubeconfig", kubeconfig])
    assert printed.exit_code == 0, printed.stderr
    expected = json.loads(printed.stdout)
    with running_service(fake_cluster.kubeconfig) as running:
        status, listed = get_json(f"{running.url}/api/v1/workloads")
        assert status == 200
        assert listed["kind"] == "List" and len(listed["items"]) == len(expected["items"]) == 7
        assert sorted(listed["items"], key=_key) == sorted(expected["items"], key=_key)
        status, only = get_json(f"{running.url}/api/v1/workloads?namespace=ml&kind=jobsets")
        assert [item["workload"]["name"] for item in only["items"]] == ["llm-train"]
        for ref in WORKLOADS:
            described = runner.invoke(app, ["describe", ref, "-n", "ml", "-o", "json", "--kubeconfig", kubeconfig])
            assert described.exit_code == 0, described.stderr
            type_token, name = ref.split("/")
            status, served = get_json(f"{running.url}/api/v1/namespaces/ml/workloads/{type_token}/{name}")
            assert status == 200, served
            assert served == json.loads(described.stdout), ref
            assert served["events"], "the workload's Events come from the cache"
    assert fake_cluster.server.methods == {"GET"}


def test_unknown_workloads_and_types_answer_located_errors(fake_cluster):
    _serve(fake_cluster.server, _cluster())
    with running_service(fake_cluster.kubeconfig) as running:
        status, body = get_json(f"{running.url}/api/v1/namespaces/ml/workloads/jobset/nope")
        assert status == 404 and body["kind"] == "Status" and body["code"] == 404
        assert body["message"] == 'JobSet.jobset.x-k8s.io "nope" not found in namespace ml'
        status, body = get_json(f"{running.url}/api/v1/workloads?kind=widgets")
        assert status == 400 and "widgets" in body["message"]
        status, body = get_json(f"{running.url}/api/v1/nothing")
        assert status == 404


def _series(running, metric: str, **labels: str) -> dict:
    _, text, _ = get(f"{running.url}/metrics")
    return {
        key: value
        for key, value in samples(text, metric).items()
        if all((label, wanted) in key for label, wanted in labels.items())
    }


def _value(running, metric: str, **labels: str) -> float | None:
    found = _series(running, metric, **labels)
    assert len(found) <= 1, found
    return next(iter(found.values()), None)


def _pod(cluster: LiveCluster, name: str) -> dict:
    return next(pod for pod in cluster.pods() if pod["metadata"]["name"] == name)


def test_series_follow_pods_becoming_ready_a_gang_losing_a_pod_and_a_deletion(fake_cluster):
    server = fake_cluster.server
    cluster = _cluster(pending=0)
    jobset_pods = [pod for pod in cluster.pods() if pod["metadata"]["name"].startswith("llm-train-")]
    for pod in jobset_pods:  # scheduled, not ready yet
        pod["status"]["conditions"] = [{"type": "PodScheduled", "status": "True"}, {"type": "Ready", "status": "False"}]
    _serve(server, cluster)
    ids = {"namespace": "ml", "kind": "JobSet", "name": "llm-train"}
    with running_service(fake_cluster.kubeconfig) as running:
        assert _value(running, "wmap_workload_pods", **ids, state="ready") == 0
        assert _value(running, "wmap_workload_pods", **ids, state="scheduled") == 3
        assert _value(running, "wmap_gang_complete", **ids, gang="llm-train") == 1
        for pod in jobset_pods:
            ready = copy.deepcopy(pod)
            ready["status"]["conditions"][1]["status"] = "True"
            server.update(ready)
        wait_until(lambda: _value(running, "wmap_workload_pods", **ids, state="ready") == 3, what="3 ready pods")
        # A worker of the gang goes away: the gang is no longer complete; its replacement makes it whole again.
        lost = jobset_pods[-1]
        server.delete(lost)
        wait_until(lambda: _value(running, "wmap_gang_complete", **ids, gang="llm-train") == 0, what="gang incomplete")
        assert _value(running, "wmap_gang_pods", **ids, gang="llm-train", state="scheduled") == 2
        replacement = copy.deepcopy(lost)
        replacement["metadata"]["name"] += "-r"
        replacement["metadata"]["uid"] += "-r"
        server.add(replacement)
        wait_until(lambda: _value(running, "wmap_gang_complete", **ids, gang="llm-train") == 1, what="gang whole again")
        # The workload deleted: its series go.
        server.delete(next(obj for obj in cluster.objects if obj.get("kind") == "JobSet"))
        wait_until(lambda: not _series(running, "wmap_workload_info", **ids), what="the JobSet's series gone")
        assert _series(running, "wmap_workload_info", namespace="ml", kind="LeaderWorkerSet")
    assert server.methods == {"GET"}


def test_a_crd_installed_later_is_watched_after_the_next_discovery(fake_cluster):
    server = fake_cluster.server
    _serve(server, _cluster())
    mpijob = FakeResource("kubeflow.org", "v2beta1", "mpijobs", "mpijob", "MPIJob")
    options = ServiceOptions(coalesce=0.05, max_delay=0.3, resync=1.0)
    with running_service(fake_cluster.kubeconfig, options=options) as running:
        assert "mpijobs.kubeflow.org" not in {watch.resource for watch in running.service.snapshot.watches}
        server.serve_resource(mpijob)
        manifest = next(doc for doc in yaml.safe_load_all((FIXTURES_DIR / "mpijob.yaml").read_text()) if doc)
        manifest["metadata"]["namespace"] = "ml"
        server.add(manifest)
        name = manifest["metadata"]["name"]
        wait_until(lambda: _series(running, "wmap_workload_info", kind="MPIJob", name=name), what="the MPIJob's series")
        server.stop_serving(mpijob)
        wait_until(lambda: not _series(running, "wmap_workload_info", kind="MPIJob"), what="MPIJobs forgotten")
    assert server.methods == {"GET"}


@pytest.mark.parametrize("expired_as_status", [False, True], ids=["410-event", "410-status"])
def test_a_cut_watch_and_a_410_lose_no_change(fake_cluster, expired_as_status):
    server = fake_cluster.server
    server.expired_as_status = expired_as_status
    cluster = _cluster(pending=0)
    _serve(server, cluster)
    ids = {"namespace": "ml", "kind": "PyTorchJob", "name": "elastic-train"}
    with running_service(fake_cluster.kubeconfig) as running:
        before = _value(running, "wmap_workload_pods", **ids, state="current")
        assert before and before > 0
        restarts = sum(watch.restarts for watch in running.service.snapshot.watches)
        assert server.cut_watches() > 0
        victim = next(pod for pod in cluster.pods() if pod["metadata"]["name"].startswith("elastic-train-worker"))
        server.delete(victim)
        wait_until(
            lambda: _value(running, "wmap_workload_pods", **ids, state="current") == before - 1, what="a pod gone"
        )
        # Compacted history: the next watch is told 410 Gone and lists again; a deletion made meanwhile is seen.
        server.compact()
        second = next(
            pod
            for pod in cluster.pods()
            if pod["metadata"]["name"].startswith("elastic-train-worker") and pod is not victim
        )
        server.delete(second)
        server.cut_watches()
        wait_until(lambda: _value(running, "wmap_workload_pods", **ids, state="current") == before - 2, what="relisted")
        wait_until(
            lambda: sum(w.restarts for w in running.service.snapshot.watches) > restarts, what="restarts counted"
        )
        _, text, _ = get(f"{running.url}/metrics")
        assert any(value > 0 for value in samples(text, "wmap_watch_restarts_total").values())
    assert server.methods == {"GET"}


def test_owner_kinds_met_on_chains_are_watched_and_kept_cut_down(fake_cluster):
    server = fake_cluster.server
    cluster = _cluster(pending=0)
    for obj in cluster.objects:  # as a real API server returns them
        obj.setdefault("metadata", {})["managedFields"] = [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}]
    _serve(server, cluster)
    with running_service(fake_cluster.kubeconfig) as running:
        watched = {watch.resource: watch.role for watch in running.service.snapshot.watches}
        assert watched["podcliques.grove.io"] == "owners"  # no definition covers PodClique: met on the pods' chains
        assert watched["jobs.batch"] == "workloads"
        state = next(s for s in running.service.snapshot.workloads if s.kind == "PodCliqueSet")
        assert state.row.pods_ready == state.row.pods_desired > 0
        cache = running.service.cache
        kept = running.service.call(lambda: [entry.obj for entry in cache.entries.values()], 10)
        assert all("managedFields" not in obj["metadata"] for obj in kept)
        jobs = [obj for obj in kept if obj.get("kind") == "Job" and obj["metadata"]["name"] != "unrelated"]
        assert jobs and all(set(job) == {"apiVersion", "kind", "metadata"} for job in jobs), "owners keep identity only"
        pods = [obj for obj in kept if obj.get("kind") == "Pod" and obj["metadata"].get("ownerReferences")]
        assert pods and all("image" not in container for pod in pods for container in pod["spec"]["containers"])
    assert server.methods == {"GET"}


def test_readyz_waits_for_every_watch_and_healthz_for_the_worker(fake_cluster):
    _serve(fake_cluster.server, _cluster())
    with running_service(fake_cluster.kubeconfig, ready=False) as running:
        status, body, _ = get(f"{running.url}/healthz")
        assert status == 200 and body == "ok\n"
        wait_until(lambda: get(f"{running.url}/readyz")[0] == 200, what="ready")
        status, ready = get_json(f"{running.url}/readyz")
        wait_until(lambda: get_json(f"{running.url}/readyz")[1]["auditsPending"] == 0, what="the audits")
        status, ready = get_json(f"{running.url}/readyz")
        assert ready == {"ready": True, "unsynced": [], "auditsPending": 0, "errors": {}}


def test_a_karta_added_to_the_cluster_brings_its_kind_in(tmp_path, monkeypatch):
    from helpers import load_fixture
    from helpers.apiserver import DEFAULT_RESOURCES, TEST_TOKEN, FakeApiServer

    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(variable, raising=False)
    karta_resource = FakeResource("run.ai", "v1alpha1", "kartas", "karta", "Karta", namespaced=False)
    trainers = FakeResource("example.com", "v1", "trainers", "trainer", "Trainer")
    karta = yaml.safe_load((FIXTURES_DIR / "karta" / "trainer-karta.yaml").read_text())
    with FakeApiServer([*DEFAULT_RESOURCES, karta_resource, trainers], token=TEST_TOKEN) as server:
        server.add(load_fixture("karta/trainer.yaml"))
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
        with running_service(kubeconfig) as running:
            assert not running.service.snapshot.workloads, "no definition covers Trainer yet"
            server.add(karta)
            found = wait_until(lambda: running.service.snapshot.workloads, 30, "the Trainer interpreted")
            (state,) = found
            assert (state.kind, state.tree.definition, state.tree.totals.pods) == (
                "Trainer",
                "example-com-trainer-v1",
                8,
            )
            server.delete(karta)
            wait_until(lambda: not running.service.snapshot.workloads, 30, "the Trainer forgotten with its Karta")
        assert server.methods == {"GET"}


def test_stop_ends_every_watch_thread_while_its_streams_wait_for_events(fake_cluster):
    # Each watch sits in a stream read that would wait for the server's timeoutSeconds (minutes): stop()
    # shuts the streams and joins the threads, so no thread and no TLS socket outlives the service
    # (an unclosed socket found later by the garbage collector is a ResourceWarning, an error here).
    import threading

    _serve(fake_cluster.server, _cluster())
    with running_service(fake_cluster.kubeconfig) as running:
        watches = list(running.service.watches.values())
        assert watches and all(watch.thread.is_alive() for watch in watches)
    alive = [watch.name for watch in watches if watch.thread.is_alive()]
    assert alive == []
    assert not [thread.name for thread in threading.enumerate() if thread.name.startswith("watch ")]
