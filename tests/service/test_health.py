"""``wmap serve`` in a pod, its own health series, and what a change costs it.

* In a pod (``KUBERNETES_SERVICE_HOST``/``PORT`` and a mounted service account, no kubeconfig),
  the service reads the cluster with the service account's token over TLS, as client-go's
  ``rest.InClusterConfig`` does, and only ever sends GET requests, never to Secrets or ConfigMaps.
* Its health series count what the test did to the cluster: watch events per resource and type,
  objects held, interpretation errors per kind, interpretations, the age of the last sync.
* A change re-interprets the workload it touches and no other, and a burst of changes to one
  workload is interpreted in a batch or two, not once per event (the issue: "coalescing bursts,
  never the whole cluster per event").
"""

from __future__ import annotations

import copy
import time
from pathlib import Path

import pytest

from helpers.apiserver import FakeApiServer, pod_environment
from helpers.serve import get, operator_cluster, running_service, samples, serve_cluster, wait_until
from workloadmap.service import ServiceOptions


def _metric(running, metric: str, /, **labels: str) -> float | None:
    _, text, _ = get(f"{running.url}/metrics")
    found = [value for key, value in samples(text, metric).items() if all(item in key for item in labels.items())]
    assert len(found) <= 1, found
    return found[0] if found else None


def _no_secret_reads(server: FakeApiServer) -> None:
    methods = {method for method, _ in server.requests}
    assert methods == {"GET"}, methods
    touched = [path for _, path in server.requests if "/secrets" in path or "/configmaps" in path]
    assert not touched, touched


@pytest.fixture
def in_a_pod(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A pod's environment (helpers.apiserver.pod_environment): no kubeconfig, the service account."""
    with pod_environment(tmp_path, monkeypatch, "wmap-system") as server:
        yield server


def test_in_a_pod_it_reads_with_the_service_account(in_a_pod):
    cluster = operator_cluster()
    serve_cluster(in_a_pod, cluster)
    options = ServiceOptions(coalesce=0.05, max_delay=0.3)  # every namespace, as the Deployment runs it (-A)
    with running_service(None, options=options) as running:
        # The stand-in answers 401 without the service account's token: what it served was read with it.
        assert running.service.client.context == "in-cluster"
        assert _metric(running, "wmap_workloads") == 7  # the five workloads, the unrelated Job, the bare pod
        gpus = _metric(running, "wmap_workload_resource_requests", namespace="ml", name="llm-train",
                       resource="nvidia_com_gpu")  # fmt: skip
        assert gpus is not None and gpus > 0
    _no_secret_reads(in_a_pod)


def test_health_series_count_what_happened(fake_cluster):
    server = fake_cluster.server
    cluster = operator_cluster(pending=0)
    serve_cluster(server, cluster)
    pods = [pod for pod in cluster.pods() if pod["metadata"]["name"].startswith("llm-train-")]
    with running_service(fake_cluster.kubeconfig, options=ServiceOptions(namespace="ml", coalesce=0.05,
                                                                         max_delay=0.3)) as running:  # fmt: skip
        assert _metric(running, "wmap_ready") == 1
        assert _metric(running, "wmap_cache_objects", resource="pods") == len(cluster.pods())
        assert _metric(running, "wmap_watch_events_total", resource="pods", type="ADDED") == len(cluster.pods())
        assert _metric(running, "wmap_interpretation_errors_total") is None  # no family member yet
        assert 0 <= (_metric(running, "wmap_sync_age_seconds") or -1) < 60
        synced_at = _metric(running, "wmap_last_sync_timestamp_seconds")
        assert synced_at is not None and abs(synced_at - time.time()) < 120
        interpreted = _metric(running, "wmap_interpretations_total") or 0
        assert interpreted >= 7

        # Three pods change (their readiness), one goes away.
        for pod in pods[:3]:
            changed = copy.deepcopy(pod)
            for condition in changed["status"]["conditions"]:
                if condition["type"] == "Ready":
                    condition["status"] = "False"
            server.update(changed)
        server.delete(pods[0])
        wait_until(lambda: _metric(running, "wmap_watch_events_total", resource="pods", type="DELETED") == 1,
                   what="the deletion counted")  # fmt: skip
        assert _metric(running, "wmap_watch_events_total", resource="pods", type="MODIFIED") == 3
        assert _metric(running, "wmap_cache_objects", resource="pods") == len(cluster.pods()) - 1

        # A JobSet no interpretation can read: counted per kind, the others still served.
        broken = {
            "apiVersion": "jobset.x-k8s.io/v1alpha2",
            "kind": "JobSet",
            "metadata": {"name": "broken", "namespace": "ml", "uid": "uid-broken"},
            "spec": {"replicatedJobs": [{"name": "workers", "replicas": "lots", "template": {"spec": {
                "parallelism": 2, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}}]},
        }  # fmt: skip
        server.add(broken)
        wait_until(lambda: _metric(running, "wmap_interpretation_errors_total", kind="JobSet.jobset.x-k8s.io") == 1,
                   what="the interpretation error counted")  # fmt: skip
        assert (_metric(running, "wmap_interpretations_total") or 0) > interpreted
        assert _metric(running, "wmap_workload_info", name="llm-train") == 1
    _no_secret_reads(server)


def test_a_change_reinterprets_its_workload_only_and_a_burst_is_coalesced(fake_cluster):
    server = fake_cluster.server
    cluster = operator_cluster(pending=0)
    serve_cluster(server, cluster)
    pod = next(pod for pod in cluster.pods() if pod["metadata"]["name"].startswith("llm-train-"))
    # A quiet window wide enough that a burst made in a loop lands in one or two batches.
    options = ServiceOptions(namespace="ml", coalesce=0.5, max_delay=3.0)
    with running_service(fake_cluster.kubeconfig, options=options) as running:
        interpreter = running.service.interpreter
        jobset_uid = next(obj["metadata"]["uid"] for obj in cluster.objects if obj["kind"] == "JobSet")
        interpreted: list[str] = []
        original = interpreter.interpret

        def recording(uid: str, **keywords):
            interpreted.append(uid)
            return original(uid, **keywords)

        interpreter.interpret = recording  # type: ignore[method-assign]
        ready = _metric(running, "wmap_workload_pods", name="llm-train", state="ready")
        assert ready == 3
        changes = 21  # an odd number of flips: the pod ends not ready
        current = copy.deepcopy(pod)
        for _ in range(changes):
            for condition in current["status"]["conditions"]:
                if condition["type"] == "Ready":
                    condition["status"] = "False" if condition["status"] == "True" else "True"
            current = copy.deepcopy(server.update(current))
        wait_until(lambda: _metric(running, "wmap_workload_pods", name="llm-train", state="ready") == 2,
                   what="the pod's last state")  # fmt: skip
        time.sleep(options.coalesce * 2)  # a batch still to come would show here
        assert set(interpreted) == {jobset_uid}, "only the workload the changes touch"
        assert 1 <= len(interpreted) <= 3, f"{changes} changes interpreted {len(interpreted)} times"


def test_the_kept_workload_lines_are_what_prometheus_client_writes(fake_cluster):
    """``WorkloadText`` (each workload encoded once per interpretation) against ``generate_latest`` over all."""
    from prometheus_client import CollectorRegistry, generate_latest

    from workloadmap.service import WorkloadCollector
    from workloadmap.service.metrics import WorkloadText

    server = fake_cluster.server
    cluster = operator_cluster(pending=1)
    serve_cluster(server, cluster)
    text = WorkloadText()

    def both(snapshot) -> tuple[bytes, bytes]:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(WorkloadCollector(lambda: snapshot))
        return text.render(snapshot.workloads), generate_latest(registry)

    with running_service(fake_cluster.kubeconfig, options=ServiceOptions(namespace="ml", coalesce=0.05,
                                                                         max_delay=0.3)) as running:  # fmt: skip
        kept, written = both(running.service.snapshot)
        assert kept == written and b"wmap_pod_workload_info{" in kept
        version = running.service.snapshot.version
        pod = next(pod for pod in cluster.pods() if pod["metadata"]["name"].startswith("llm-train-"))
        server.delete(pod)  # one workload changes, the others' lines are kept
        lws = next(obj for obj in cluster.objects if obj["kind"] == "LeaderWorkerSet")
        server.delete(lws)  # one goes
        wait_until(lambda: not any(state.name == "vllm-multihost" for state in running.service.snapshot.workloads),
                   what="the LWS gone")  # fmt: skip
        snapshot = running.service.snapshot
        assert snapshot.version > version
        kept, written = both(snapshot)
        assert kept == written and b'name="vllm-multihost"' not in kept


def test_a_workload_keeps_its_last_audit_until_the_next_is_made(fake_cluster, monkeypatch):
    """A batch interpreted without audits (a resync, the first sync) leaves the placement series in place."""
    from dataclasses import replace

    from workloadmap.service import service as service_module

    server = fake_cluster.server
    cluster = operator_cluster(pending=0)
    serve_cluster(server, cluster)
    pod = next(pod for pod in cluster.pods() if pod["metadata"]["name"].startswith("llm-train-"))
    with running_service(fake_cluster.kubeconfig, options=ServiceOptions(namespace="ml", coalesce=0.05,
                                                                         max_delay=0.3)) as running:  # fmt: skip
        before = {key: value for key, value in samples(get(f"{running.url}/metrics")[1],
                                                       "wmap_gang_placement_satisfied").items()
                  if ("name", "llm-train") in key}  # fmt: skip
        assert before, "llm-train's gangs audited"
        # From now on every batch is audited later, and later never comes: the audit stays pending.
        monkeypatch.setattr(service_module, "INLINE_AUDITS", 0)
        running.service.options = replace(running.service.options, audit_seconds=0.0)
        changed = copy.deepcopy(pod)
        for condition in changed["status"]["conditions"]:
            if condition["type"] == "Ready":
                condition["status"] = "False"
        server.update(changed)
        wait_until(lambda: _metric(running, "wmap_workload_pods", name="llm-train", state="ready") == 2,
                   what="the change interpreted")  # fmt: skip
        assert _metric(running, "wmap_audits_pending") == 1
        after = {key: value for key, value in samples(get(f"{running.url}/metrics")[1],
                                                      "wmap_gang_placement_satisfied").items()
                 if ("name", "llm-train") in key}  # fmt: skip
        assert after == before
