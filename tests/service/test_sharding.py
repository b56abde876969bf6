"""Sharding: M processes with ``--shard 0..M-1 --total-shards M`` export exactly what one unsharded process does.

The shard of a namespace is 64-bit FNV-1a of its name modulo M (kube-state-metrics shards the
same way, by an FNV hash; here by namespace so a workload, its owners, pods and Events share one
shard). The hash is checked against the FNV specification's test vectors
(draft-eastlake-fnv, appendix: FNV-1a 64 of "" and "a").
"""

from __future__ import annotations

import itertools

import pytest
import yaml

from helpers import FIXTURES_DIR
from helpers.operators import LiveCluster, fill
from helpers.serve import get, running_service, samples, serve_cluster
from workloadmap.errors import WorkloadMapError
from workloadmap.service import WORKLOAD_SERIES, ServiceOptions, Shard, namespace_hash, statefulset_ordinal

NAMESPACES = ["ml", "research", "team-a", "team-b", "inference", "default", "kube-batch", "ray"]


def test_the_hash_is_fnv1a_64():
    assert namespace_hash("") == 0xCBF29CE484222325
    assert namespace_hash("a") == 0xAF63DC4C8601EC8C
    assert namespace_hash("foobar") == 0x85944171F73967E8


def test_a_shard_is_a_share_and_refuses_impossible_numbers():
    shards = [Shard(index, 3) for index in range(3)]
    for namespace in NAMESPACES:
        assert sum(shard(namespace) for shard in shards) == 1
    assert Shard()("anything")
    with pytest.raises(WorkloadMapError):
        Shard(3, 3)
    assert statefulset_ordinal("wmap-serve-12") == 12
    with pytest.raises(WorkloadMapError, match="StatefulSet"):
        statefulset_ordinal("wmap-serve-7d9f8-x2k4q")


def _cluster() -> LiveCluster:
    cluster = LiveCluster()
    nodes = cluster.nvl72_racks(2)
    fixtures = itertools.cycle(
        [("jobset-leader-workers.yaml", "run_jobset"), ("leaderworkerset.yaml", "run_lws"),
         ("pytorchjob-elastic.yaml", "run_pytorchjob")]
    )  # fmt: skip
    for namespace, (fixture, method) in zip(NAMESPACES, fixtures, strict=False):
        cluster.namespace = namespace
        manifest = next(doc for doc in yaml.safe_load_all((FIXTURES_DIR / fixture).read_text()) if doc)
        manifest["metadata"] = {**manifest["metadata"], "namespace": namespace}
        workload = cluster.workload(manifest)
        getattr(cluster, method)(workload, fill(nodes, per_node=2))
        cluster.event(workload, "Created", "made")
    return cluster


def _workload_samples(url: str) -> dict:
    _, text, _ = get(f"{url}/metrics")
    found = {}
    for series in WORKLOAD_SERIES:
        for labels, value in samples(text, series.name).items():
            found[(series.name, labels)] = value
    return found


def test_the_shards_together_export_what_one_process_exports(fake_cluster):
    serve_cluster(fake_cluster.server, _cluster())
    fast = {"coalesce": 0.05, "max_delay": 0.3}
    with running_service(fake_cluster.kubeconfig, options=ServiceOptions(**fast)) as whole:
        expected = _workload_samples(whole.url)
    union: dict = {}
    workloads_per_shard = []
    for index in range(3):
        options = ServiceOptions(shard=Shard(index, 3), **fast)
        with running_service(fake_cluster.kubeconfig, options=options) as shard:
            found = _workload_samples(shard.url)
            workloads_per_shard.append({state.namespace for state in shard.service.snapshot.workloads})
            assert not set(found) & set(union), "a series in two shards"
            union.update(found)
    assert union == expected
    assert len(expected) > 100
    assert sum(len(namespaces) for namespaces in workloads_per_shard) == len(NAMESPACES)
    assert all(workloads_per_shard), "each of the 3 shards holds some of the 8 namespaces"
    assert fake_cluster.server.methods == {"GET"}
