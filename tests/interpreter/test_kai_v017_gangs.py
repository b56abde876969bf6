"""Gangs as KAI Scheduler v0.17 forms them (kai-scheduler/KAI-Scheduler tag v0.17.0).

Every expected value comes from KAI's pod-grouper unit tests, named beside each case
(``pkg/podgrouper/podgrouper/plugins/<plugin>/<file>_test.go``). The JSON form writes a
PodGroup's or SubGroup's ``minMember`` or its ``minSubGroup``, never both, as KAI does.
"""

from __future__ import annotations

import copy

import pytest

POD = {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def replicated_job(name, replicas=None, parallelism=None, annotations=None):
    """A replicatedJob as jobset_grouper_test.go's replicatedJob(name, replicas, parallelism) helper."""
    spec = {"template": copy.deepcopy(POD)}
    if parallelism is not None:
        spec["parallelism"] = parallelism
    template = {"spec": spec}
    if annotations:
        template["metadata"] = {"annotations": annotations}
    job = {"name": name, "template": template}
    if replicas is not None:
        job["replicas"] = replicas
    return job


def jobset(*replicated_jobs, order=None, annotations=None):
    """baseJobSet("js", "default", "uid", ...): name js, uid uid."""
    metadata = {"name": "js", "namespace": "default", "uid": "uid"}
    if annotations:
        metadata["annotations"] = annotations
    spec = {"replicatedJobs": list(replicated_jobs)}
    if order:
        spec["startupPolicy"] = {"startupPolicyOrder": order}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": metadata, "spec": spec}


def shape(group):
    """A PodGroup as KAI's metadata: the root gate and each SubGroup's gate and parent, from the JSON form."""
    data = group.to_dict()
    root = {key: data[key] for key in ("minMember", "minSubGroup") if key in data}
    subs = {
        sub["name"]: {key: sub[key] for key in ("minMember", "minSubGroup", "parent") if sub.get(key) is not None}
        for sub in data["subGroups"]
    }
    return root, subs


# ------------------------------------------------------------------------------------- JobSet


def test_single_replicated_job_single_replica(inspect_builtin):
    # jobset_grouper_test.go TestSingleReplicatedJobSingleReplica: root minSubGroup 1, parent worker minSubGroup 1,
    # leaf worker-replica-0 (parent worker, minMember 4)
    (group,) = inspect_builtin(jobset(replicated_job("worker", 1, 4))).pod_groups
    assert shape(group) == (
        {"minSubGroup": 1},
        {"worker": {"minSubGroup": 1}, "worker-replica-0": {"minMember": 4, "parent": "worker"}},
    )


def test_single_replicated_job_multiple_replicas(inspect_builtin):
    # TestSingleReplicatedJobMultipleReplicas: 4 SubGroups, worker minSubGroup 3, worker-replica-0..2 minMember 4
    (group,) = inspect_builtin(jobset(replicated_job("worker", 3, 4))).pod_groups
    root, subs = shape(group)
    assert len(subs) == 4 and subs["worker"] == {"minSubGroup": 3}
    assert all(subs[f"worker-replica-{i}"] == {"minMember": 4, "parent": "worker"} for i in range(3))


@pytest.mark.parametrize(
    ("order", "annotations", "expected", "test"),
    [
        ("AnyOrder", None, 2, "TestMultipleReplicatedJobsAnyOrder"),
        ("InOrder", None, 1, "TestStartupPolicyInOrderRootMinSubGroup"),
        (None, None, 2, "getStartupPolicyOrder defaults to AnyOrder"),
        ("AnyOrder", {"kai.scheduler/batch-min-member": "1"}, 1, "TestJobSetAnnotationOverridesRoot (lowers it)"),
        ("AnyOrder", {"kai.scheduler/batch-min-member": "9"}, 2, "TestJobSetAnnotationClampedToReplicatedJobCount"),
        ("InOrder", {"kai.scheduler/batch-min-member": "2"}, 2, "TestJobSetAnnotationWinsOverInOrder"),
    ],
)
def test_root_min_sub_group(inspect_builtin, order, annotations, expected, test):
    workload = jobset(
        replicated_job("leader", 1, 1), replicated_job("worker", 2, 4), order=order, annotations=annotations
    )
    (group,) = inspect_builtin(workload).pod_groups
    root, subs = shape(group)
    assert root == {"minSubGroup": expected}, test
    assert subs["leader"] == {"minSubGroup": 1} and subs["worker"] == {"minSubGroup": 2}
    assert subs["leader-replica-0"] == {"minMember": 1, "parent": "leader"}
    assert subs["worker-replica-1"] == {"minMember": 4, "parent": "worker"}


def test_three_replicated_jobs_annotation_overrides_root(inspect_builtin):
    # TestJobSetAnnotationOverridesRoot: a, b, c (r1 p1), AnyOrder, batch-min-member "2" -> root minSubGroup 2
    workload = jobset(
        *(replicated_job(name, 1, 1) for name in "abc"),
        order="AnyOrder",
        annotations={"kai.scheduler/batch-min-member": "2"},
    )
    (group,) = inspect_builtin(workload).pod_groups
    assert group.min_sub_group == 2 and group.min_member == 2  # the fewest pods: two one-pod replicatedJobs


@pytest.mark.parametrize(
    ("value", "test"), [("not-an-int", "TestJobSetAnnotationUnparseable"), ("0", "TestJobSetAnnotationBelowOne")]
)
def test_invalid_jobset_annotation_is_refused(inspect_builtin, value, test):
    workload = jobset(replicated_job("worker", 1, 1), annotations={"kai.scheduler/batch-min-member": value})
    assert any("refuses the JobSet" in warning for warning in inspect_builtin(workload).warnings), test


@pytest.mark.parametrize(
    ("value", "replicas", "parallelism", "expected", "test"),
    [
        ("5", 2, 8, 5, "TestTemplateAnnotationOverridesLeafMinMember"),
        ("10", 1, 2, 10, "TestTemplateAnnotationGreaterThanParallelismAccepted"),
    ],
)
def test_template_annotation_sets_the_leaf(inspect_builtin, value, replicas, parallelism, expected, test):
    rj = replicated_job("worker", replicas, parallelism, annotations={"kai.scheduler/batch-min-member": value})
    (group,) = inspect_builtin(jobset(rj)).pod_groups
    _, subs = shape(group)
    assert subs["worker-replica-0"]["minMember"] == expected, test


@pytest.mark.parametrize(
    ("value", "test"), [("abc", "TestTemplateAnnotationUnparseable"), ("0", "TestTemplateAnnotationBelowOne")]
)
def test_invalid_template_annotation_is_refused(inspect_builtin, value, test):
    rj = replicated_job("worker", 1, 2, annotations={"kai.scheduler/batch-min-member": value})
    assert any("refuses the JobSet" in warning for warning in inspect_builtin(jobset(rj)).warnings), test


def test_root_is_gated_by_min_sub_group_not_min_member(inspect_builtin):
    # TestRootMinSubGroupNotMinAvailable: root MinAvailable 0 (no minMember written), MinSubGroup set
    (group,) = inspect_builtin(jobset(replicated_job("worker", 1, 1))).pod_groups
    data = group.to_dict()
    assert "minMember" not in data and data["minSubGroup"] == 1


def test_distinct_topologies_at_jobset_and_replicated_job_levels(inspect_builtin):
    # TestDistinctTopologiesAtJobSetAndReplicatedJobLevels: root (root-topology, datacenter, ""); parent worker no
    # constraint; both leaves (leaf-topology, rack, zone)
    rj = replicated_job(
        "worker",
        2,
        4,
        annotations={
            "kai.scheduler/topology": "leaf-topology",
            "kai.scheduler/topology-required-placement": "rack",
            "kai.scheduler/topology-preferred-placement": "zone",
        },
    )
    workload = jobset(
        rj,
        annotations={
            "kai.scheduler/topology": "root-topology",
            "kai.scheduler/topology-required-placement": "datacenter",
        },
    )
    (group,) = inspect_builtin(workload).pod_groups
    root = group.topology_constraint
    assert (root.topology, root.required_level, root.preferred_level) == ("root-topology", "datacenter", None)
    subs = {sub.name: sub.topology_constraint for sub in group.sub_groups}
    assert not subs["worker"]
    for leaf in ("worker-replica-0", "worker-replica-1"):
        assert (subs[leaf].topology, subs[leaf].required_level, subs[leaf].preferred_level) == (
            "leaf-topology",
            "rack",
            "zone",
        )


def test_replicas_default_to_one(inspect_builtin):
    # TestReplicasDefaultsToOne: a replicatedJob without replicas -> parent worker minSubGroup 1
    (group,) = inspect_builtin(jobset(replicated_job("worker", None, 2))).pod_groups
    assert shape(group)[1]["worker"] == {"minSubGroup": 1}


def _flat_podgroup(name, sub_groups=None):
    spec = {"minMember": 1}
    if sub_groups:
        spec["subGroups"] = sub_groups
    return {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def _with_related(*objects):
    from workloadmap.interpreter import ObjectIndex

    return ObjectIndex(list(objects))


def test_legacy_flat_podgroup_keeps_the_flat_shape(inspect_builtin):
    # legacy_grouper_test.go TestLegacyDetection_FlatPodGroupTriggersOldHandler: worker r2 p4, AnyOrder, existing flat
    # pg-js-uid -> one PodGroup of minMember 1, no SubGroups, no minSubGroup
    workload = jobset(replicated_job("worker", 2, 4), order="AnyOrder")
    (group,) = inspect_builtin(workload, related=_with_related(_flat_podgroup("pg-js-uid"))).pod_groups
    assert (group.min_member, group.min_sub_group, group.sub_groups) == (1, None, [])
    # TestLegacyDetection_AnnotationOverridesLegacyMinAvailable: batch-min-member "3" -> minMember 3
    workload["metadata"]["annotations"] = {"kai.scheduler/batch-min-member": "3"}
    (group,) = inspect_builtin(workload, related=_with_related(_flat_podgroup("pg-js-uid"))).pod_groups
    assert group.min_member == 3


def test_legacy_in_order_keeps_a_podgroup_per_replicated_job(inspect_builtin):
    # TestLegacyDetection_InOrderPerReplicatedJobPodGroup: leader r1 p1, worker r2 p4, InOrder, existing
    # pg-js-uid-leader -> pg-js-uid-<rj> per replicatedJob (wmap names them <jobset>-<rj>)
    workload = jobset(replicated_job("leader", 1, 1), replicated_job("worker", 2, 4), order="InOrder")
    groups = inspect_builtin(workload, related=_with_related(_flat_podgroup("pg-js-uid-leader"))).pod_groups
    assert [(group.name, group.min_member, group.sub_groups) for group in groups] == [
        ("js-leader", 1, []),
        ("js-worker", 1, []),
    ]


def test_a_podgroup_with_subgroups_is_not_legacy(inspect_builtin):
    # TestLegacyDetection_PodGroupWithSubGroupsDoesNotTriggerLegacy: the new tree shape
    workload = jobset(replicated_job("worker", 2, 4))
    related = _with_related(_flat_podgroup("pg-js-uid", [{"name": "worker", "minSubGroup": 2}]))
    (group,) = inspect_builtin(workload, related=related).pod_groups
    assert group.min_sub_group == 1 and len(group.sub_groups) == 3
    assert not [warning for warning in inspect_builtin(workload).warnings if "not in the input" in warning]


# ------------------------------------------------------------------------------------- PyTorchJob


def pytorch(master, workers, segment_size=None, min_replicas=None):
    worker = {"replicas": workers, "template": copy.deepcopy(POD)}
    if segment_size is not None:
        worker["template"]["metadata"] = {"annotations": {"kai.scheduler/segment-size": segment_size}}
    spec = {"pytorchReplicaSpecs": {"Master": {"replicas": master, "template": copy.deepcopy(POD)}, "Worker": worker}}
    if min_replicas is not None:
        spec["elasticPolicy"] = {"minReplicas": min_replicas}
    return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "pt"}, "spec": spec}


@pytest.mark.parametrize(
    ("job", "root", "segments", "test"),
    [
        (
            pytorch(1, 4, "2"),
            5,
            {"worker-0": 2, "worker-1": 2},
            "TestGetPodGroupMetadata_Segments_HappyFlow_4Workers_2PerSegment",
        ),
        (
            pytorch(1, 5, "2"),
            6,
            {"worker-0": 2, "worker-1": 2, "worker-2": 1},
            "TestGetPodGroupMetadata_Segments_5Workers_2PerSegment",
        ),
        (
            pytorch(1, 8, "2", min_replicas=5),
            5,
            {"worker-0": 2, "worker-1": 2, "worker-2": 0, "worker-3": 0},
            "TestGetPodGroupMetadata_Segments_ElasticMinReplicas",
        ),
    ],
)
def test_pytorch_segments(inspect_builtin, job, root, segments, test):
    # pytorch_grouper_test.go: root minMember (the scheduler reads the SubGroups), master leaf, parent worker gated by
    # minSubGroup = its segments, segments past ceil(workerMin / size) minMember 0 (#1971)
    (group,) = inspect_builtin(job).pod_groups
    got_root, subs = shape(group)
    assert got_root == {"minMember": root}, test
    assert subs["master"] == {"minMember": 1}
    assert subs["worker"] == {"minSubGroup": len(segments)}
    assert {name: sub["minMember"] for name, sub in subs.items() if name.startswith("worker-")} == segments
    assert all(subs[name]["parent"] == "worker" for name in segments)


# ------------------------------------------------------------------------------------- LeaderWorkerSet


def lws(size, segment_size, policy_type=None):
    policy = {"subGroupSize": segment_size}
    if policy_type:
        policy["subGroupPolicyType"] = policy_type
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "lws-seg", "uid": "lws-seg-uid"},
        "spec": {
            "replicas": 1,
            "startupPolicy": "LeaderCreated",
            "leaderWorkerTemplate": {"size": size, "subGroupPolicy": policy, "workerTemplate": copy.deepcopy(POD)},
        },
    }


@pytest.mark.parametrize(
    ("workload", "expected", "test"),
    [
        (
            lws(5, 2),
            {
                "segment-0": {"minSubGroup": 2},
                "segment-1": {"minMember": 2},
                "leader": {"minMember": 1, "parent": "segment-0"},
                "workers": {"minMember": 2, "parent": "segment-0"},
            },
            "lws_grouper_test.go TestBuildSubGroups_Segmentation_Divisible_LeaderPod",
        ),
        (
            lws(4, 2),
            {
                "segment-0": {"minSubGroup": 2},
                "segment-1": {"minMember": 2},
                "leader": {"minMember": 1, "parent": "segment-0"},
                "workers": {"minMember": 1, "parent": "segment-0"},
            },
            "TestBuildSubGroups_Segmentation_NotDivisible_LeaderPod",
        ),
        (
            lws(5, 2, "LeaderExcluded"),
            {"leader": {"minMember": 1}, "segment-0": {"minMember": 2}, "segment-1": {"minMember": 2}},
            "TestBuildSubGroups_Segmentation_LeaderExcluded_WorkerInFirstSegment",
        ),
    ],
)
def test_lws_segments(inspect_builtin, workload, expected, test):
    (group,) = inspect_builtin(workload).pod_groups
    root, subs = shape(group)
    assert root == {"minMember": workload["spec"]["leaderWorkerTemplate"]["size"]}
    assert subs == expected, test


# ------------------------------------------------------------------------------------- Grove


def test_grove_topology_group_parents_are_gated_by_their_cliques(inspect_builtin):
    # grove_grouper_test.go TestGetPodGroupMetadata_WithTopologyHierarchy: group1 [pg1, pg2] -> minSubGroup 2
    # (#1642), pg1 minMember 2, pg2 minMember 3 under it; root minMember 5
    from helpers import load_fixture

    pcs = load_fixture("grove/podcliqueset-topology.yaml")
    base = inspect_builtin(pcs).pod_groups[0]
    root, subs = shape(base)
    assert root == {"minMember": 5}
    assert subs["pcs-0-grp-0"] == {"minSubGroup": 2}
    assert subs["pcs-0-grp-0-a"] == {"minMember": 2, "parent": "pcs-0-grp-0"}
    assert subs["pcs-0-grp-0-b"] == {"minMember": 3, "parent": "pcs-0-grp-0"}


def test_json_form_reads_back_with_the_fewest_pods(inspect_builtin):
    from workloadmap.tree import PodGroup

    (group,) = inspect_builtin(
        jobset(replicated_job("leader", 1, 1), replicated_job("worker", 2, 4), order="InOrder")
    ).pod_groups
    again = PodGroup.from_dict(group.to_dict())
    assert again == group
    assert again.min_member == 1  # InOrder: one replicatedJob's replicas satisfy the root (the leader's one pod)
