"""Owner lookups with a per-call cache, Events with the v1 fallback, and the in-cluster configuration."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from helpers.apiserver import DEFAULT_RESOURCES, TEST_TOKEN, FakeApiServer, pod_environment
from workloadmap.errors import ClusterError
from workloadmap.kube import ClusterClient, OwnerCache, list_events


def _job(name: str, uid: str) -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "ml", "uid": uid}}


def _ref(obj: dict) -> dict:
    return {
        "apiVersion": obj["apiVersion"],
        "kind": obj["kind"],
        "name": obj["metadata"]["name"],
        "uid": obj["metadata"]["uid"],
        "controller": True,
    }


def _lists(server, plural: str) -> list[str]:
    return [path for _, path in server.requests if urlsplit(path).path.endswith(f"/{plural}")]


def test_each_owner_kind_is_listed_once_per_namespace(fake_cluster):
    server = fake_cluster.server
    jobs = [server.add(_job(f"j{index}", f"uid-j{index}")) for index in range(5)]
    with ClusterClient(fake_cluster.kubeconfig) as client:
        cache = OwnerCache(client, chunk_size=2)
        found = [cache.owner("ml", _ref(job)) for job in jobs]
        again = cache.owner("ml", _ref(jobs[0]))
    assert [obj["metadata"]["name"] for obj in found] == ["j0", "j1", "j2", "j3", "j4"]
    assert again is found[0]
    assert cache.lists == [("batch/v1", "Job", "ml")]
    assert len(_lists(server, "jobs")) == 3  # one LIST, paged by 2: 2 + 2 + 1


def test_for_every_namespace_each_owner_kind_is_listed_once(fake_cluster):
    server = fake_cluster.server
    jobs = [
        server.add(
            _job(f"j{index}", f"uid-j{index}")
            | {"metadata": {"name": f"j{index}", "namespace": f"ns{index}", "uid": f"uid-j{index}"}}
        )
        for index in range(3)
    ]
    with ClusterClient(fake_cluster.kubeconfig) as client:
        cache = OwnerCache(client, cluster_wide=True)
        found = [cache.owner(job["metadata"]["namespace"], _ref(job)) for job in jobs]
    assert [obj["metadata"]["namespace"] for obj in found] == ["ns0", "ns1", "ns2"]
    assert cache.lists == [("batch/v1", "Job", None)]


def test_gone_replaced_and_unserved_owners_are_none(fake_cluster):
    server = fake_cluster.server
    server.add(_job("j", "uid-new"))
    with ClusterClient(fake_cluster.kubeconfig) as client:
        cache = OwnerCache(client)
        assert cache.owner("ml", _ref(_job("gone", "uid-gone"))) is None
        assert cache.owner("ml", _ref(_job("j", "uid-old"))) is None  # same name, another object
        unserved = {"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "u"}
        assert cache.owner("ml", unserved) is None


def test_an_owner_kind_that_cannot_be_listed_is_read_by_name(fake_cluster):
    server = fake_cluster.server
    job = server.add(_job("j", "uid-j"))
    server.forbidden_lists = {"jobs"}
    with ClusterClient(fake_cluster.kubeconfig) as client:
        cache = OwnerCache(client)
        assert cache.owner("ml", _ref(job))["metadata"]["uid"] == "uid-j"
    assert any(urlsplit(path).path == "/apis/batch/v1/namespaces/ml/jobs/j" for _, path in server.requests)


def _event(api: str, name: str) -> dict:
    return {"apiVersion": api, "kind": "Event", "metadata": {"name": name, "namespace": "ml"}, "reason": "R"}


def test_events_come_from_events_k8s_io_when_served(fake_cluster):
    fake_cluster.server.add(_event("events.k8s.io/v1", "new"))
    with ClusterClient(fake_cluster.kubeconfig) as client:
        api, items = list_events(client, "ml")
    assert (api, [item["metadata"]["name"] for item in items]) == ("events.k8s.io/v1", ["new"])


@pytest.mark.parametrize("how", ["not served", "forbidden"])
def test_events_fall_back_to_core_v1(tmp_path, how):
    resources = [
        resource for resource in DEFAULT_RESOURCES if not (how == "not served" and resource.group == "events.k8s.io")
    ]
    with FakeApiServer(resources, token=TEST_TOKEN) as server:
        if how == "forbidden":
            server.add(_event("events.k8s.io/v1", "new"))
            server.forbidden_lists = {"events.k8s.io/events"}
        server.add(_event("v1", "old"))
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
        with ClusterClient(kubeconfig) as client:
            api, items = list_events(client, "ml")
    assert (api, [item["metadata"]["name"] for item in items]) == ("v1", ["old"])
    assert {method for method, _ in server.requests} == {"GET"}


# -- in-cluster configuration (client-go rest.InClusterConfig) ------------------------------------


@pytest.fixture
def service_account(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A pod's environment: KUBERNETES_SERVICE_HOST/PORT and a mounted service account, no kubeconfig."""
    with pod_environment(tmp_path, monkeypatch, "ml-team") as server:
        yield server


def test_in_a_pod_the_service_account_is_used(service_account):
    service_account.add(_job("j", "uid-j") | {"metadata": {"name": "j", "namespace": "ml-team", "uid": "uid-j"}})
    with ClusterClient() as client:
        assert (client.context, client.default_namespace) == ("in-cluster", "ml-team")
        assert client.host.startswith("https://127.0.0.1:")
        assert [job["metadata"]["name"] for job in client.list("jobs")] == ["j"]  # the pod's namespace
    assert {method for method, _ in service_account.requests} == {"GET"}


def test_a_context_needs_a_kubeconfig_even_in_a_pod(service_account):
    with pytest.raises(ClusterError, match="--context other needs a kubeconfig"):
        ClusterClient(context="other")


def test_outside_a_pod_without_kubeconfig_the_error_says_both(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with pytest.raises(ClusterError, match="no kubeconfig found .* and not running in a pod"):
        ClusterClient()
