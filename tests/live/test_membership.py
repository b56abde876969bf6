"""Gang membership of live pods: which of wmap's PodGroups and SubGroups each pod is in.

Expected values come from the schedulers' own code and tests:

* LWS segments: KAI's ``pkg/podgrouper/podgrouper/plugins/leaderworkerset/lws_grouper.go``
  ``getSegmentIndex`` (leader in segment 0; worker w in segment (w-1)/size when the workers divide
  evenly, else w/size) and its tests ``TestBuildSubGroups_Segmentation_Divisible_*``,
  ``..._NotDivisible_LeaderPod``, ``..._LeaderExcluded_*``: with LeaderWorker, segment 0 has a
  ``leader`` and a ``workers`` child; with LeaderExcluded the leader is a subgroup of its own;
* an LWS group is the PodGroup ``<name>-group-<group index>`` (the lws grouper appends
  ``-group-<index>`` from ``leaderworkerset.sigs.k8s.io/group-index``);
* Grove: a scaling-group replica below ``minAvailable`` is in its PodCliqueSet replica's base
  PodGang; replica r >= minAvailable is a scaled PodGang (ai-dynamo/grove
  ``operator/api/common/namegen.go`` ``GeneratePodGangNameForPodCliqueOwnedByPCSG``). Grove names
  it ``<pcsg>-<r - minAvailable>``; wmap's interpreter names it ``<pcsg>-<r>`` (see
  ``workloadmap.interpreter.gangs``), so the mapping below shifts by minAvailable.
* JobSet ``startupPolicyOrder: InOrder``: one PodGroup per replicatedJob (KAI jobset plugin).
"""

from __future__ import annotations

import pytest

from helpers.operators import LiveCluster, fill
from workloadmap.live import describe, from_dumps


def _lws(size: int, segment: int | None, policy: str | None = None, replicas: int = 1) -> dict:
    template = {
        "spec": {"containers": [{"name": "vllm", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 4}}}]}
    }
    spec: dict = {"replicas": replicas, "leaderWorkerTemplate": {"size": size, "workerTemplate": template}}
    if segment is not None:
        spec["leaderWorkerTemplate"]["subGroupPolicy"] = {"subGroupSize": segment}
        if policy:
            spec["leaderWorkerTemplate"]["subGroupPolicy"]["subGroupPolicyType"] = policy
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "lws-seg"},
        "spec": spec,
    }


def _pods(report) -> dict[str, tuple[str | None, str | None]]:
    found = {}
    for component in report.components:
        for status in component.walk():
            for pod in status.pods:
                found[pod.name] = (pod.gang, pod.gang_sub_group)
    return found


def _describe(manifest: dict, method: str):
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(2)
    workload = cluster.workload(manifest)
    getattr(cluster, method)(workload, fill(nodes))
    return describe(workload, from_dumps(cluster.objects, cluster.nodes))


@pytest.mark.parametrize(
    ("size", "segment", "policy", "expected"),
    [
        # TestBuildSubGroups_Segmentation_Divisible_*: segment-0 = {leader, w1, w2}, segment-1 = {w3, w4}.
        (
            5,
            2,
            None,
            {
                "lws-seg-0": "leader",
                "lws-seg-0-1": "workers",
                "lws-seg-0-2": "workers",
                "lws-seg-0-3": "segment-1",
                "lws-seg-0-4": "segment-1",
            },
        ),
        # ..._NotDivisible_LeaderPod: segment-0 = {leader, w1}, segment-1 = {w2, w3}.
        (
            4,
            2,
            None,
            {"lws-seg-0": "leader", "lws-seg-0-1": "workers", "lws-seg-0-2": "segment-1", "lws-seg-0-3": "segment-1"},
        ),
        # ..._LeaderExcluded_*: leader alone, segment-0 = {w1, w2}, segment-1 = {w3, w4}.
        (
            5,
            2,
            "LeaderExcluded",
            {
                "lws-seg-0": "leader",
                "lws-seg-0-1": "segment-0",
                "lws-seg-0-2": "segment-0",
                "lws-seg-0-3": "segment-1",
                "lws-seg-0-4": "segment-1",
            },
        ),
        # No segments: leader and workers subgroups (buildSubGroupsWithoutSegmentation).
        (3, None, None, {"lws-seg-0": "leader", "lws-seg-0-1": "workers", "lws-seg-0-2": "workers"}),
    ],
)
def test_lws_pods_land_in_kai_segments(size, segment, policy, expected):
    report = _describe(_lws(size, segment, policy), "run_lws")
    found = _pods(report)
    assert {name: sub for name, (_, sub) in found.items()} == expected
    assert {gang for gang, _ in found.values()} == {"lws-seg-group-0"}


def test_lws_groups_are_podgroups_by_group_index():
    report = _describe(_lws(2, None, replicas=3), "run_lws")
    found = _pods(report)
    for group in range(3):
        assert found[f"lws-seg-{group}"][0] == f"lws-seg-group-{group}"
        assert found[f"lws-seg-{group}-1"] == (f"lws-seg-group-{group}", "workers")


def test_grove_scaling_group_replicas_beyond_min_available_are_scaled_podgroups():
    clique = {"replicas": 2, "podSpec": {"containers": [{"name": "w", "image": "x"}]}}
    pcs = {
        "apiVersion": "grove.io/v1alpha1",
        "kind": "PodCliqueSet",
        "metadata": {"name": "serve"},
        "spec": {
            "replicas": 1,
            "template": {
                "cliques": [{"name": "frontend", "spec": clique}, {"name": "decode", "spec": clique}],
                "podCliqueScalingGroups": [{"name": "sg", "cliqueNames": ["decode"], "replicas": 3, "minAvailable": 1}],
            },
        },
    }
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(1)
    workload = cluster.workload(pcs)
    cluster.run_podcliqueset(workload, fill(nodes))
    report = describe(workload, from_dumps(cluster.objects, cluster.nodes))
    found = _pods(report)
    for pod in cluster.pods():
        podgang = pod["metadata"]["labels"]["grove.io/podgang"]
        # The base PodGang (serve-0: the standalone clique and scaling-group replica 0) and the scaled
        # ones (serve-0-sg-0, -1: Grove's 0-based index over the replicas beyond minAvailable) are
        # named as Grove names them, so wmap's gang is the pod's grove.io/podgang label.
        assert found[pod["metadata"]["name"]][0] == podgang, pod["metadata"]["name"]
    # Each pod's innermost SubGroup is its PodClique (Grove's PodGroup per clique).
    for pod in cluster.pods():
        assert found[pod["metadata"]["name"]][1] == pod["metadata"]["labels"]["grove.io/podclique"]


def test_jobset_pods_join_the_leaf_of_their_job():
    job = {"parallelism": 2, "completions": 2, "template": {"spec": {"containers": [{"name": "t", "image": "x"}]}}}
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "train"},
        "spec": {
            "startupPolicy": {"startupPolicyOrder": "InOrder"},
            "replicatedJobs": [
                {"name": "driver", "replicas": 1, "template": {"spec": job}},
                {"name": "workers", "replicas": 2, "template": {"spec": job}},
            ],
        },
    }
    report = _describe(jobset, "run_jobset")
    found = _pods(report)
    # KAI v0.17 jobset_grouper_test.go TestPodRoutingFindsCorrectLeaf: a pod's leaf is
    # <replicatedjob-name>-replica-<job-index>, under the one PodGroup of the JobSet
    assert {name: found[name] for name in sorted(found)} == {
        "train-driver-0-0-bcdfg": ("train", "driver-replica-0"),
        "train-driver-0-1-klmnp": ("train", "driver-replica-0"),
        "train-workers-0-0-bcdfg": ("train", "workers-replica-0"),
        "train-workers-0-1-klmnp": ("train", "workers-replica-0"),
        "train-workers-1-0-bcdfg": ("train", "workers-replica-1"),
        "train-workers-1-1-klmnp": ("train", "workers-replica-1"),
    }
