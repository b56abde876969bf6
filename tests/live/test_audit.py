"""The placement audit: did each gang land where its topology requirement said it must?

The cluster is GB200 NVL72-style: racks of 18 nodes x 4 GPUs, one Topograph accelerator domain
(``accelerator.topograph.run/domain``) and one leaf switch (``fabric.topograph.run/tier-0``) per
rack, every rack under one spine (``tier-1``). Expected values are worked out from that layout:
a 72-GPU gang (18 pods of 4 GPUs) fills exactly one rack; 144 GPUs need two. The required level
follows wmap's placement policy (KAI ``kai.scheduler/topology-required-placement`` on the
workload; the automatic NVLink rule for SubGroups that fit one domain, docs/topology.md).
"""

from __future__ import annotations

import pytest

from helpers.operators import LiveCluster, sequence
from workloadmap.live import describe, from_dumps

ACCELERATOR = "accelerator.topograph.run/domain"
LEVELS = ["fabric.topograph.run/tier-1", "fabric.topograph.run/tier-0", ACCELERATOR, "kubernetes.io/hostname"]
GPU_POD = {"spec": {"containers": [{"name": "t", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 4}}}]}}


def _jobset(pods: int, annotations: dict | None = None) -> dict:
    job = {"parallelism": pods, "completions": pods, "template": GPU_POD}
    metadata: dict = {"name": "train"}
    if annotations:
        metadata["annotations"] = annotations
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": metadata,
        "spec": {"replicatedJobs": [{"name": "workers", "replicas": 1, "template": {"spec": job}}]},
    }


def _rack(rack: int, count: int, start: int = 0) -> list[str]:
    return [f"gb-r{rack}-n{index:02d}" for index in range(start, start + count)]


def _audit(manifest: dict, method: str, nodes: list[str | None], racks: int = 4):
    cluster = LiveCluster(namespace="ml")
    cluster.nvl72_racks(racks)
    workload = cluster.workload(manifest)
    getattr(cluster, method)(workload, sequence(nodes))
    report = describe(workload, from_dumps(cluster.objects, cluster.nodes))
    assert report.placement is not None
    assert report.placement.levels == LEVELS and report.placement.accelerator_level == ACCELERATOR
    return report.placement


def _group(audit, name: str, sub: str | None = None):
    return next(gang for gang in audit.pod_groups if gang.name == name and gang.sub_group == sub)


def test_a_72_gpu_gang_inside_one_rack_is_satisfied():
    gang = _group(_audit(_jobset(18), "run_jobset", _rack(0, 18)), "train")
    assert (gang.pods, gang.scheduled_pods) == (18, 18)
    assert gang.narrowest_level == ACCELERATOR
    assert gang.domains[ACCELERATOR] == ["nvl72-0"]
    assert (gang.preferred_level, gang.preferred_source) == (ACCELERATOR, "auto")  # one rack holds 72 GPUs
    assert gang.required_level is None  # a PodGroup gets no automatic requirement, only SubGroups do
    assert gang.satisfied is True and gang.accelerator_split is False and gang.reason is None


def test_a_72_gpu_gang_split_over_two_racks_is_flagged():
    gang = _group(_audit(_jobset(18), "run_jobset", _rack(0, 9) + _rack(1, 9)), "train")
    assert gang.domains[ACCELERATOR] == ["nvl72-0", "nvl72-1"]
    assert gang.domains["fabric.topograph.run/tier-0"] == ["leaf-0", "leaf-1"]
    assert gang.narrowest_level == "fabric.topograph.run/tier-1"  # the shared spine
    assert gang.accelerator_split is True
    assert gang.satisfied is False
    assert gang.reason == f"preferred {ACCELERATOR}: spans 2 domains"


def test_a_required_rack_that_was_not_respected():
    required = {"kai.scheduler/topology-required-placement": ACCELERATOR}
    gang = _group(_audit(_jobset(18, required), "run_jobset", _rack(0, 10) + _rack(3, 8)), "train")
    assert (gang.required_level, gang.required_source) == (ACCELERATOR, "annotation")
    assert gang.preferred_level is None  # the requirement already covers the accelerator level
    assert gang.satisfied is False
    assert gang.reason == f"required {ACCELERATOR}: spans 2 domains"


def test_a_gang_larger_than_one_rack_may_span_racks():
    gang = _group(_audit(_jobset(36), "run_jobset", _rack(0, 18) + _rack(1, 18)), "train")
    assert gang.domains[ACCELERATOR] == ["nvl72-0", "nvl72-1"]
    assert gang.preferred_level is None  # no rack holds 144 GPUs
    assert gang.accelerator_split is False
    assert gang.satisfied is True


def test_only_scheduled_pods_are_judged():
    gang = _group(_audit(_jobset(18), "run_jobset", _rack(2, 10) + [None] * 8), "train")
    assert (gang.pods, gang.min_member, gang.scheduled_pods) == (18, 18, 10)
    assert gang.narrowest_level == ACCELERATOR  # the 10 share a rack, yet the gang is broken:
    assert gang.incomplete is True and gang.satisfied is False
    assert gang.reason == "only 10 of minMember 18 pods scheduled"
    nothing = _group(_audit(_jobset(18), "run_jobset", [None] * 18), "train")
    assert nothing.scheduled_pods == 0 and nothing.satisfied is None
    assert nothing.reason == "no pod is scheduled yet"
    assert all(values == [] for values in nothing.domains.values())


def test_a_level_no_node_carries_cannot_be_judged():
    required = {"kai.scheduler/topology-required-placement": "example.com/rack"}
    gang = _group(_audit(_jobset(2, required), "run_jobset", _rack(0, 2)), "train")
    assert gang.satisfied is None
    assert gang.reason == "required level example.com/rack is not a label of the nodes read"


def test_pods_on_nodes_that_were_not_read():
    audit = _audit(_jobset(2), "run_jobset", ["gb-r0-n00", "gone-node"])
    assert audit.unknown_nodes == ["gone-node"]
    gang = _group(audit, "train")
    assert gang.satisfied is None and gang.reason == "some pods run on nodes that were not read"


@pytest.mark.parametrize(("group_1_nodes", "satisfied"), [(_rack(1, 18), True), (_rack(1, 9) + _rack(2, 9), False)])
def test_lws_subgroups_get_the_automatic_nvlink_requirement(group_1_nodes, satisfied):
    """Two LWS groups of 18 x 4 GPUs: each group's workers SubGroup fits one rack, so it must stay in one."""
    lws = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "vllm"},
        "spec": {"replicas": 2, "leaderWorkerTemplate": {"size": 18, "workerTemplate": GPU_POD}},
    }
    # Pods in creation order: leader 0, its 17 workers, leader 1, its 17 workers.
    audit = _audit(lws, "run_lws", _rack(0, 18) + group_1_nodes)
    first = _group(audit, "vllm-group-0", "workers")
    assert (first.required_level, first.required_source, first.satisfied) == (ACCELERATOR, "auto", True)
    second = _group(audit, "vllm-group-1", "workers")
    assert (second.required_level, second.required_source) == (ACCELERATOR, "auto")
    assert second.satisfied is satisfied
    assert second.accelerator_split is (not satisfied)
    leader = _group(audit, "vllm-group-1", "leader")
    assert leader.scheduled_pods == 1 and leader.narrowest_level == "kubernetes.io/hostname"


def _pytorchjob(workers: int, min_available: int) -> dict:
    replica = {"replicas": 1, "template": GPU_POD}
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "elastic"},
        "spec": {
            "runPolicy": {"schedulingPolicy": {"minAvailable": min_available}},
            "pytorchReplicaSpecs": {"Master": replica, "Worker": {**replica, "replicas": workers}},
        },
    }


def test_a_gang_with_fewer_scheduled_pods_than_min_member_is_incomplete():
    """KAI's pod-grouper gives a gang minMember; the scheduler binds that many together or none (issue 25).

    The elastic job's minMember is runPolicy.schedulingPolicy.minAvailable, as KAI's kubeflow pod-grouper reads
    it (pkg/podgrouper/podgrouper/plugins/kubeflow, TestGetPodGroupMetadata_OnlyMinAvailable).
    """
    three = _group(_audit(_jobset(3), "run_jobset", _rack(0, 2) + [None]), "train")
    assert (three.min_member, three.scheduled_pods) == (3, 2)
    assert three.narrowest_level == ACCELERATOR
    assert three.incomplete is True and three.satisfied is False
    assert three.reason == "only 2 of minMember 3 pods scheduled"
    elastic = _group(_audit(_pytorchjob(3, 2), "run_pytorchjob", _rack(0, 2) + [None, None]), "elastic")
    assert (elastic.pods, elastic.min_member, elastic.scheduled_pods) == (4, 2, 2)
    assert elastic.incomplete is False and elastic.satisfied is True  # its minimum runs
    short = _group(_audit(_pytorchjob(3, 2), "run_pytorchjob", _rack(0, 1) + [None] * 3), "elastic")
    assert short.incomplete is True and short.satisfied is False


COMPUTE_DOMAIN = {
    "apiVersion": "resource.nvidia.com/v1beta1",
    "kind": "ComputeDomain",
    "metadata": {"name": "imex-domain", "namespace": "ml"},
    "spec": {"numNodes": 2, "channel": {"resourceClaimTemplate": {"name": "imex-channel"}}},
}


def _channel_jobset(pods: int) -> dict:
    """NVIDIA's multi-node NVLink example shape (dra-driver-nvidia-gpu docs: pods claim the domain's channel)."""
    jobset = _jobset(pods)
    spec = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"] = {
        "spec": {
            **spec,
            "containers": [{**spec["containers"][0], "resources": {**spec["containers"][0]["resources"],
                                                                   "claims": [{"name": "imex"}]}}],
            "resourceClaims": [{"name": "imex", "resourceClaimTemplateName": "imex-channel"}],
        }
    }  # fmt: skip
    return jobset


def _domain_audit(nodes: list[str | None]):
    from workloadmap.interpreter import ObjectIndex

    cluster = LiveCluster(namespace="ml")
    cluster.nvl72_racks(4)
    workload = cluster.workload(_channel_jobset(len(nodes)))
    cluster.run_jobset(workload, sequence(nodes))
    report = describe(workload, from_dumps(cluster.objects, cluster.nodes), related=ObjectIndex([COMPUTE_DOMAIN]))
    assert report.placement is not None
    return _group(report.placement, "train")


def test_a_compute_domain_split_across_nvlink_cliques_is_flagged():
    # The IMEX domain forms per NVLink clique (dra-driver-nvidia-gpu issues #377, #804; NVIDIA's docs
    # ask for a required podAffinity on nvidia.com/gpu.clique): two channel pods in two racks cannot
    # share it, though 8 GPUs would not need two racks.
    gang = _domain_audit(_rack(0, 1) + _rack(1, 1))
    assert (gang.required_level, gang.required_source) == (ACCELERATOR, "computeDomain")
    assert gang.compute_domain_split is True
    assert gang.satisfied is False
    assert gang.reason == (
        f"required {ACCELERATOR}: spans 2 domains (ComputeDomain pods split across NVLink cliques: IMEX cannot join"
        " them)"
    )
    assert gang.to_dict()["computeDomainSplit"] is True


def test_a_compute_domain_in_one_clique_is_satisfied():
    gang = _domain_audit(_rack(2, 2))
    assert gang.compute_domain_split is False and gang.satisfied is True


def test_a_gang_without_a_channel_is_never_a_compute_domain_split():
    gang = _group(_audit(_jobset(18), "run_jobset", _rack(0, 9) + _rack(1, 9)), "train")
    assert gang.accelerator_split is True and gang.compute_domain_split is False
