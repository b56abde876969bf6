"""The cache on its own: which objects are workloads, whose pods are whose, what a change dirties.

Events are applied in the orders a set of independent watches can deliver them (a pod before its
Job, a Job before its JobSet), and the answers must not depend on the order. The rule for what is
a workload is ``wmap get all``'s (:func:`workloadmap.live.top_level`): an object of a covered kind
that no covered kind owns.
"""

from __future__ import annotations

import itertools

import pytest

from helpers.operators import LiveCluster, fill
from workloadmap.catalog import Catalog
from workloadmap.service import Cache, Role, Shard
from workloadmap.service import cache as cache_module
from workloadmap.service.cache import prepared

CATALOG = Catalog.load(use_env=False)
JOBSETS = ("jobset.x-k8s.io", "jobsets")
JOBS = ("batch", "jobs")
PODS = ("", "pods")


def _covered(api_version: str, kind: str) -> bool:
    return CATALOG.lookup(api_version, kind) is not None


def _jobset_scene():
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(1)
    pod = {"spec": {"containers": [{"name": "t", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}
    job = {"parallelism": 2, "completions": 2, "template": pod}
    spec = {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": job}}]}
    jobset = cluster.workload(
        {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "t"}, "spec": spec}
    )
    cluster.run_jobset(jobset, fill(nodes))
    (job_obj,) = [obj for obj in cluster.objects if obj["kind"] == "Job"]
    return cluster, jobset, job_obj, cluster.pods()


def _role(obj: dict) -> tuple[str, tuple[str, str]]:
    return {"JobSet": (Role.WORKLOADS, JOBSETS), "Job": (Role.WORKLOADS, JOBS), "Pod": (Role.PODS, PODS)}[obj["kind"]]


@pytest.mark.parametrize("order", list(itertools.permutations(["JobSet", "Job", "Pod"])), ids="-".join)
def test_the_pods_go_to_the_jobset_whatever_the_order(order):
    cluster, jobset, job, pods = _jobset_scene()
    cache = Cache(_covered)
    for kind in order:
        for obj in [o for o in cluster.objects if o["kind"] == kind]:
            role, resource = _role(obj)
            cache.apply(role, resource, "ADDED", obj)
    uid = jobset["metadata"]["uid"]
    assert list(cache.workloads) == [uid], "the Job and the pods are the JobSet's, not workloads"
    assert sorted(pod["metadata"]["name"] for pod in cache.pods_of(uid)) == sorted(p["metadata"]["name"] for p in pods)
    kept_job = cache.entries[job["metadata"]["uid"]].obj
    assert set(kept_job) == {"apiVersion", "kind", "metadata"} and "labels" not in kept_job["metadata"]
    assert uid in cache.dirty


def test_a_pod_change_dirties_its_workload_only_when_a_read_field_changed():
    cluster, jobset, job, pods = _jobset_scene()
    cache = Cache(_covered)
    for obj in cluster.objects:
        cache.apply(*_role(obj), "ADDED", obj)
    cache.dirty.clear()
    heartbeat = {**pods[0], "status": {**pods[0]["status"], "podIP": "10.0.0.9"}}
    cache.apply(Role.PODS, PODS, "MODIFIED", heartbeat)
    assert not cache.dirty, "podIP is not read"
    unready = {**pods[0], "status": {**pods[0]["status"], "conditions": [{"type": "Ready", "status": "False"}]}}
    cache.apply(Role.PODS, PODS, "MODIFIED", unready)
    assert cache.dirty == {jobset["metadata"]["uid"]}
    cache.dirty.clear()
    cache.apply(Role.PODS, PODS, "DELETED", pods[1])
    assert cache.dirty == {jobset["metadata"]["uid"]} and len(cache.pods_of(jobset["metadata"]["uid"])) == 1


def test_a_bare_pod_and_an_ownerless_job_are_workloads():
    cluster = LiveCluster(namespace="ml")
    job = cluster.workload({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "solo"}, "spec": {}})
    pod = cluster.pod("debug", None, {}, None, fill(["n"]))
    cache = Cache(_covered)
    cache.apply(Role.WORKLOADS, JOBS, "ADDED", job)
    cache.apply(Role.PODS, PODS, "ADDED", pod)
    assert set(cache.workloads) == {job["metadata"]["uid"], pod["metadata"]["uid"]}
    assert [p["metadata"]["name"] for p in cache.pods_of(pod["metadata"]["uid"])] == ["debug"]
    assert "spec" in cache.workload(job["metadata"]["uid"]), "a workload is kept whole"


def test_an_owner_kind_met_on_a_chain_is_asked_for_then_refused_or_watched():
    cluster = LiveCluster(namespace="ml")
    pcs = cluster.workload({"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "p"},
                            "spec": {}})  # fmt: skip
    clique = cluster.owned("grove.io/v1alpha1", "PodClique", "p-0-a", pcs)
    pod = cluster.pod("p-0-a-x", clique, {}, None, fill(["n"]))
    cache = Cache(_covered)
    cache.apply(Role.PODS, PODS, "ADDED", pod)
    assert cache.wanted_kinds == {("grove.io", "PodClique")}
    assert not cache.workloads, "a pod waiting for its owner's kind is nobody's workload yet"
    cache.apply(Role.WORKLOADS, ("grove.io", "podcliquesets"), "ADDED", pcs)
    cache.apply(Role.OWNERS, ("grove.io", "podcliques"), "ADDED", clique)
    assert list(cache.workloads) == [pcs["metadata"]["uid"]]
    assert [p["metadata"]["name"] for p in cache.pods_of(pcs["metadata"]["uid"])] == ["p-0-a-x"]


def test_a_refused_owner_kind_ends_the_chain():
    cluster = LiveCluster(namespace="ml")
    owner = {"apiVersion": "example.com/v1", "kind": "Widget",
             "metadata": {"name": "w", "namespace": "ml", "uid": "uid-w"}}  # fmt: skip
    pod = cluster.pod("w-1", owner, {}, None, fill(["n"]))
    cache = Cache(_covered)
    kept, precut = prepared(Role.PODS, pod, _covered)  # as the watch's thread hands it on
    assert precut and "image" not in str(kept)
    cache.apply(Role.PODS, PODS, "ADDED", kept, precut=precut)
    assert cache.wanted_kinds == {("example.com", "Widget")}
    cache.wanted_kinds.clear()
    cache.pending_kinds.discard(("example.com", "Widget"))
    cache.refused_kinds.add(("example.com", "Widget"))
    cache.reclassify(cache.waiting_on([("example.com", "Widget")]))
    assert list(cache.workloads) == [pod["metadata"]["uid"]], "as wmap get all: a pod no covered kind owns"
    assert cache.refetch == {pod["metadata"]["uid"]}, "it came cut down: its whole object is read again"


def test_an_owner_kept_cut_down_that_turns_out_a_workload_is_fetched_again():
    cluster, jobset, job, _ = _jobset_scene()
    covered = {"JobSet", "Job", "Pod"}
    cache = Cache(lambda api_version, kind: kind in covered)
    for obj in cluster.objects:
        cache.apply(*_role(obj), "ADDED", obj)
    covered.discard("JobSet")  # a catalog without JobSet: the Job is the workload now
    cache.reclassify([job["metadata"]["uid"]])
    assert job["metadata"]["uid"] in cache.workloads
    assert cache.refetch == {job["metadata"]["uid"]}, "its spec was not kept: it is read again"


def test_nodes_heartbeats_change_nothing_labels_dirty_the_workloads_on_them():
    cluster, jobset, job, pods = _jobset_scene()
    cache = Cache(_covered)
    for node in cluster.nodes:
        cache.apply(Role.NODES, ("", "nodes"), "ADDED", node)
    for obj in cluster.objects:
        cache.apply(*_role(obj), "ADDED", obj)
    cache.dirty.clear()
    cache.nodes_changed = False
    node = next(n for n in cluster.nodes if n["metadata"]["name"] == pods[0]["spec"]["nodeName"])
    cache.apply(Role.NODES, ("", "nodes"), "MODIFIED", {**node, "status": {**node["status"], "heartbeat": "now"}})
    assert not cache.nodes_changed and not cache.dirty
    relabelled = {**node, "metadata": {**node["metadata"], "labels": {**node["metadata"]["labels"], "rack": "r9"}}}
    cache.apply(Role.NODES, ("", "nodes"), "MODIFIED", relabelled)
    assert cache.nodes_changed and cache.dirty == {jobset["metadata"]["uid"]}


def test_events_are_bounded(monkeypatch):
    monkeypatch.setattr(cache_module, "MAX_EVENTS_CACHED", 10)
    cache = Cache(_covered)
    for index in range(25):
        event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"e{index}", "namespace": "ml",
                 "uid": f"e{index}"}, "reason": "R", "message": "m"}  # fmt: skip
        cache.apply(Role.EVENTS, ("", "events"), "ADDED", event)
    assert [event["metadata"]["name"] for event in cache.events.values()] == [f"e{index}" for index in range(15, 25)]
    assert cache.counters.objects["events"] == 10


def test_objects_of_another_shards_namespaces_are_not_kept():
    cluster, jobset, _, _ = _jobset_scene()
    shard = Shard(1, 2) if Shard(0, 2)("ml") else Shard(0, 2)
    cache = Cache(_covered, shard)
    for obj in cluster.objects:
        cache.apply(*_role(obj), "ADDED", obj)
    assert not cache.entries and not cache.workloads
