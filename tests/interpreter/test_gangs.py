"""Tests for workloadmap.gangs: PodGroups and SubGroups per kind, following KAI's pod-grouper rules
(schedulers.md A.4). Every expected minMember is worked out in the comment next to it."""

from __future__ import annotations

import copy

import pytest
import yaml

from helpers import load_fixture
from workloadmap.quantities import format_resources


def groups(tree):
    return [(group.name, group.min_member, group.pods) for group in tree.pod_groups]


def subgroups(group):
    return [(sub.name, sub.min_member) for sub in group.sub_groups]


# -------------------------------------------------------------------------------------------- JobSet


def gates(group):
    return [(sub.name, sub.min_sub_group, sub.min_member, sub.parent) for sub in group.sub_groups]


def test_jobset_anyorder_one_podgroup(inspect_builtin):
    tree = inspect_builtin(load_fixture("jobset-leader-workers.yaml"))
    # KAI v0.17 jobset_grouper_test.go TestMultipleReplicatedJobsAnyOrder: one PodGroup gated by both
    # replicatedJobs; a parent per replicatedJob gated by its replicas, a leaf per replica of minMember parallelism
    [group] = tree.pod_groups
    assert (group.name, group.min_sub_group, group.min_member, group.pods) == ("llm-train", 2, 3, 3)
    assert gates(group) == [
        ("leader", 1, 1, None),
        ("workers", 1, 2, None),
        ("leader-replica-0", None, 1, "leader"),
        ("workers-replica-0", None, 2, "workers"),
    ]
    assert [(pod_set.component, pod_set.count) for pod_set in group.pod_sets] == [("leader", 1), ("workers", 2)]
    assert format_resources(group.pod_sets[1].pod_resources) == {"cpu": "16", "memory": "128Gi", "nvidia.com/gpu": "4"}


def test_jobset_inorder_is_one_podgroup_gated_by_one_replicated_job(inspect_builtin):
    tree = inspect_builtin(load_fixture("jobset-inorder.yaml"))
    # TestStartupPolicyInOrderRootMinSubGroup: root minSubGroup 1. The workers' leaves take minMember = parallelism 4
    # (KAI reads no completions: getParallelism), above the 2 pods a Job of completions 2 runs.
    [group] = tree.pod_groups
    assert (group.name, group.min_sub_group, group.pods) == ("ordered", 1, 5)
    assert gates(group) == [
        ("driver", 1, 1, None),
        ("workers", 2, 8, None),
        ("driver-replica-0", None, 1, "driver"),
        ("workers-replica-0", None, 4, "workers"),
        ("workers-replica-1", None, 4, "workers"),
    ]
    assert group.min_member == 1  # the driver's one pod satisfies the root
    assert any("minMember 4 is more than its 2 pods" in warning for warning in tree.warnings)
    assert (tree.totals.pods, tree.totals.gpus) == (5, 8)  # 4 worker pods x 2 GPUs


def test_jobset_without_startup_policy_is_anyorder(inspect_builtin):
    # the JobSet webhook defaults a missing startupPolicy to AnyOrder, and KAI's getStartupPolicyOrder does too:
    # the root is gated by every replicatedJob
    jobset = load_fixture("jobset-inorder.yaml")
    del jobset["spec"]["startupPolicy"]
    [group] = inspect_builtin(jobset).pod_groups
    assert (group.min_sub_group, group.min_member) == (2, 9)  # driver 1 + workers 2 x parallelism 4


def test_jobset_empty_replicated_job_forms_no_subgroup(inspect_builtin):
    jobset = load_fixture("jobset-inorder.yaml")
    jobset["spec"]["replicatedJobs"][0]["replicas"] = 0
    # a replicatedJob with 0 replicas runs no pods: no SubGroup is formed for it (KAI would write a parent with
    # minSubGroup 0 and no leaves); the root still counts it in minSubGroup
    [group] = inspect_builtin(jobset).pod_groups
    assert [sub.name for sub in group.sub_groups] == ["workers", "workers-replica-0", "workers-replica-1"]
    assert group.min_sub_group == 1


# ---------------------------------------------------------------------------------------- PyTorchJob


def pytorchjob(master=1, workers=3, elastic=None, min_available=None):
    job = load_fixture("pytorchjob-elastic.yaml")
    job.pop("status")
    job["spec"].pop("elasticPolicy")
    if master is None:
        del job["spec"]["pytorchReplicaSpecs"]["Master"]
    else:
        job["spec"]["pytorchReplicaSpecs"]["Master"]["replicas"] = master
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = workers
    if elastic:
        job["spec"]["elasticPolicy"] = dict(zip(("minReplicas", "maxReplicas"), elastic, strict=False))
    if min_available is not None:
        job["spec"]["runPolicy"] = {"schedulingPolicy": {"minAvailable": min_available}}
    return job


def test_pytorchjob_plain_sum(inspect_builtin):
    [group] = inspect_builtin(pytorchjob()).pod_groups
    # Master 1 + Worker 3 = 4; subgroups master 1, worker 4 - 1 = 3
    assert (group.min_member, group.pods) == (4, 4)
    assert subgroups(group) == [("master", 1), ("worker", 3)]


def test_pytorchjob_elastic_min_replicas_is_the_total(inspect_builtin):
    tree = inspect_builtin(load_fixture("pytorchjob-elastic.yaml"))
    [group] = tree.pod_groups
    # elasticPolicy.minReplicas 2 overrides the sum (master included); worker = max(0, 2 - 1) = 1
    assert (group.min_member, group.pods) == (2, 4)
    assert subgroups(group) == [("master", 1), ("worker", 1)]
    assert (tree.totals.pods, tree.totals.gpus) == (4, 4)


def test_pytorchjob_elastic_worker_bounds(inspect_builtin):
    tree = inspect_builtin(load_fixture("pytorchjob-elastic.yaml"))
    worker = {component.name: component for component in tree.components}["worker"]
    # elasticPolicy bounds the Worker replicas: 3 declared, 2 at least, 4 at most
    assert (worker.pods, worker.min_pods, worker.max_pods) == (3, 2, 4)


def test_pytorchjob_min_available_wins_over_elastic(inspect_builtin):
    [group] = inspect_builtin(pytorchjob(elastic=(2, 4), min_available=3)).pod_groups
    # schedulingPolicy.minAvailable 3 beats elastic 2; worker = 3 - 1 = 2
    assert group.min_member == 3
    assert subgroups(group) == [("master", 1), ("worker", 2)]


def test_pytorchjob_min_available_without_elastic(inspect_builtin):
    [group] = inspect_builtin(pytorchjob(workers=7, min_available=4)).pod_groups
    # minAvailable 4 (not 1 + 7 = 8); worker = 4 - 1 = 3
    assert (group.min_member, group.pods) == (4, 8)
    assert subgroups(group) == [("master", 1), ("worker", 3)]


def test_pytorchjob_without_master(inspect_builtin):
    [group] = inspect_builtin(pytorchjob(master=None, workers=2)).pod_groups
    # no Master spec: no master subgroup; minMember = Worker 2, worker = 2 - 0 = 2
    assert group.min_member == 2
    assert subgroups(group) == [("worker", 2)]


# -------------------------------------------------------------------------------------------- MPIJob


def mpijob(**spec_changes):
    job = load_fixture("mpijob.yaml")
    job.pop("status")
    job["spec"].update(spec_changes)
    return job


def test_mpijob_launcher_counted(inspect_builtin):
    tree = inspect_builtin(load_fixture("mpijob.yaml"))
    # Launcher 1 + Worker 2 = 3; no subgroups; GPUs 2 x 8 = 16
    assert groups(tree) == [("nccl-tests", 3, 3)]
    assert tree.pod_groups[0].sub_groups == []
    assert (tree.totals.pods, tree.totals.gpus) == (3, 16)
    # rdma is an extended resource reported by name, not a GPU
    assert format_resources(tree.totals.resources)["rdma/rdma_shared_device_a"] == "2"


def test_mpijob_wait_for_workers_ready_leaves_launcher_out(inspect_builtin):
    tree = inspect_builtin(mpijob(launcherCreationPolicy="WaitForWorkersReady"))
    # (1 + 2) - Launcher 1 = 2; the launcher still counts as a declared pod
    assert groups(tree) == [("nccl-tests", 2, 3)]


def test_mpijob_min_available_minus_launcher(inspect_builtin):
    tree = inspect_builtin(
        mpijob(launcherCreationPolicy="WaitForWorkersReady", runPolicy={"schedulingPolicy": {"minAvailable": 2}})
    )
    # minAvailable 2, then WaitForWorkersReady subtracts the launcher: 2 - 1 = 1 (A.4.2 code order)
    assert tree.pod_groups[0].min_member == 1


def test_mpijob_at_creation_policy_keeps_launcher(inspect_builtin):
    assert inspect_builtin(mpijob(launcherCreationPolicy="AtStartup")).pod_groups[0].min_member == 3


def test_mpijob_launcher_replicas_default_to_one(inspect_builtin):
    job = mpijob()
    del job["spec"]["mpiReplicaSpecs"]["Launcher"]["replicas"]
    tree = inspect_builtin(job)
    # launcher defaults to 1: 1 + 2 = 3
    assert (tree.totals.pods, tree.pod_groups[0].min_member) == (3, 3)


# ---------------------------------------------------------------------------------------- RayCluster


def test_raycluster_min_replicas_first_times_hosts(inspect_builtin):
    tree = inspect_builtin(load_fixture("raycluster.yaml"))
    [group] = tree.pod_groups
    # head 1 + tpu-group minReplicas 1 x 2 hosts + gpu-group replicas 3 x 1 = 6; spare is suspended
    assert (group.min_member, group.pods) == (6, 8)
    assert subgroups(group) == [("headgroup", 1), ("tpu-group", 2), ("gpu-group", 3)]
    # declared: 1 + 2 x 2 + 3 = 8 pods; GPUs only from gpu-group: 3 (TPUs are not GPUs)
    assert (tree.totals.pods, tree.totals.gpus) == (8, 3)
    assert format_resources(tree.totals.resources)["google.com/tpu"] == "16"  # 4 pods x 4


def test_raycluster_suspended_group_has_no_pods(inspect_builtin):
    tree = inspect_builtin(load_fixture("raycluster.yaml"))
    components = {component.name: component for component in tree.components}
    assert components["spare"].pods == 0
    assert components["tpu-group"].min_pods == 2 and components["tpu-group"].max_pods == 8  # 1x2, 4x2


def ray_with_group(**group):
    ray = load_fixture("raycluster.yaml")
    ray.pop("status")
    base = copy.deepcopy(ray["spec"]["workerGroupSpecs"][1])
    for key in ("replicas", "minReplicas", "maxReplicas", "numOfHosts"):
        base.pop(key, None)
    base.update(group)
    ray["spec"]["workerGroupSpecs"] = [base]
    return ray


@pytest.mark.parametrize(
    ("group", "pods", "min_member"),
    [
        # KubeRay raises replicas to minReplicas: max(min(1, 4), 3) = 3 pods; KAI: head 1 + 3 = 4
        ({"replicas": 1, "minReplicas": 3, "maxReplicas": 4}, 1 + 3, 4),
        # and lowers it to maxReplicas: min(10, 4) = 4 pods; KAI at replicas (minReplicas 0): 1 + 4 = 5
        ({"replicas": 10, "minReplicas": 0, "maxReplicas": 4}, 1 + 4, 5),
        # replicas default 0 and minReplicas 0: no worker pods, head only
        ({}, 1, 1),
        # numOfHosts multiplies both: 2 replicas x 4 hosts = 8; KAI minReplicas 1 x 4 = 4
        ({"replicas": 2, "minReplicas": 1, "numOfHosts": 4}, 1 + 8, 1 + 4),
    ],
)
def test_raycluster_replica_rules(inspect_builtin, group, pods, min_member):
    tree = inspect_builtin(ray_with_group(**group))
    assert tree.totals.pods == pods
    assert tree.pod_groups[0].min_member == min_member


def test_raycluster_empty_group_gets_no_subgroup(inspect_builtin):
    [group] = inspect_builtin(ray_with_group(replicas=0)).pod_groups
    assert subgroups(group) == [("headgroup", 1)]


# ----------------------------------------------------------------------------------- LeaderWorkerSet


def test_lws_one_podgroup_per_group(inspect_builtin):
    tree = inspect_builtin(load_fixture("leaderworkerset.yaml"))
    # 2 groups, each minMember = size 4; subgroups leader 1, workers 4 - 1 = 3
    assert groups(tree) == [("vllm-multihost-group-0", 4, 4), ("vllm-multihost-group-1", 4, 4)]
    for group in tree.pod_groups:
        assert subgroups(group) == [("leader", 1), ("workers", 3)]
        assert sum(sub.pods for sub in group.sub_groups) == 4
    # pods 2 x 4 = 8; GPUs 2 groups x 3 workers x 8 = 48
    assert (tree.totals.pods, tree.totals.gpus) == (8, 48)


def test_lws_size_one_has_no_workers_subgroup(inspect_builtin):
    lws = load_fixture("leaderworkerset.yaml")
    lws["spec"]["leaderWorkerTemplate"]["size"] = 1
    tree = inspect_builtin(lws)
    # size 1: only the leader; minMember 1; the workers subgroup (size - 1 = 0) is omitted
    assert groups(tree) == [("vllm-multihost-group-0", 1, 1), ("vllm-multihost-group-1", 1, 1)]
    assert subgroups(tree.pod_groups[0]) == [("leader", 1)]
    assert tree.totals.gpus == 0  # the leader template has no GPU


def test_lws_without_leader_template_uses_worker_template(inspect_builtin):
    lws = load_fixture("leaderworkerset.yaml")
    del lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
    lws["spec"]["replicas"] = 1
    tree = inspect_builtin(lws)
    # one group of 4 pods, all from workerTemplate: 4 x 8 GPUs = 32
    assert (tree.totals.pods, tree.totals.gpus) == (4, 32)
    assert groups(tree) == [("vllm-multihost-group-0", 4, 4)]


def test_lws_replicas_default_to_one(inspect_builtin):
    lws = load_fixture("leaderworkerset.yaml")
    del lws["spec"]["replicas"]
    assert len(inspect_builtin(lws).pod_groups) == 1


# ----------------------------------------------------------------------------- no gang / default gang


def test_deployment_is_grouped_per_pod(inspect_builtin):
    # KAI's deployment grouper names each PodGroup after its pod (deployment_grouper.go GetPodGroupMetadata:
    # pg-<pod>-<podUID>, minMember 1): no PodGroups in the tree, one per pod counted.
    tree = inspect_builtin(load_fixture("deployment-inference.yaml"))
    assert tree.pod_groups == []
    assert (tree.grouping, tree.pod_group_count) == ("perPod", tree.totals.pods)
    assert tree.gang_policy  # says why (one PodGroup per pod)


def test_batch_job_pods_share_one_podgroup(inspect_builtin):
    # KAI v0.15+ job grouper: one PodGroup for the Job (pg-<job>-<jobUID>), minMember 1
    # (job_grouper_test.go TestGetPodGroupMetadata_MultiPodJobSharesPodGroup) ...
    job = load_fixture("job-parallel.yaml")
    tree = inspect_builtin(job)
    assert groups(tree) == [("eval", 1, 2)]
    assert (tree.grouping, tree.pod_group_count) == ("gang", 1)
    # ... or the kai.scheduler/batch-min-member annotation (TestGetPodGroupMetadata_MinMemberOverride: "3" -> 3)
    job["metadata"]["annotations"] = {"kai.scheduler/batch-min-member": "2"}
    assert groups(inspect_builtin(job)) == [("eval", 2, 2)]
    # TestGetPodGroupMetadata_MinMemberOverrideInvalid: KAI refuses; wmap keeps minMember 1 and warns
    job["metadata"]["annotations"] = {"kai.scheduler/batch-min-member": "invalid"}
    tree = inspect_builtin(job)
    assert groups(tree) == [("eval", 1, 2)]
    assert any("batch-min-member" in warning and "refuses" in warning for warning in tree.warnings)


def test_pod_and_statefulset_default_grouper(inspect_builtin):
    # KAI's default grouper: one PodGroup per top owner, minMember 1
    assert groups(inspect_builtin(load_fixture("pod-sidecar.yaml"))) == [("sidecar-demo", 1, 1)]
    assert groups(inspect_builtin(load_fixture("statefulset.yaml"))) == [("shards", 1, 4)]


def test_zero_replica_workload_forms_no_podgroup(inspect_builtin):
    sts = load_fixture("statefulset.yaml")
    sts["spec"]["replicas"] = 0
    assert inspect_builtin(sts).pod_groups == []


def test_gang_expression_giving_a_non_count_is_an_input_error(inspect_builtin):
    from workloadmap.errors import InputError

    job = pytorchjob(min_available="lots")
    with pytest.raises(InputError, match="minMember"):
        inspect_builtin(job)


def test_podgroup_json_contract(inspect_builtin):
    data = inspect_builtin(load_fixture("leaderworkerset.yaml")).to_dict()
    group = data["podGroups"][0]
    assert set(group) == {
        "name",
        "minMember",
        "pods",
        "subGroups",
        "podSets",
        "topologyConstraint",
        "queue",
        "priorityClass",
        "preemptibility",
        "source",
    }
    # Where the gang comes from (docs/native-gang.md "Where each gang comes from"): the catalog's definition.
    assert group["source"] == {"type": "Catalog", "definition": "leaderworkerset", "created": True, "conditions": []}
    assert set(group["subGroups"][0]) == {"name", "minMember", "parent", "pods", "podSets", "topologyConstraint"}
    assert set(group["topologyConstraint"]) == {"topology", "requiredLevel", "preferredLevel"}
    assert (data["grouping"], data["podGroupCount"]) == ("gang", len(data["podGroups"]))
    assert group["subGroups"][1]["podSets"][0]["count"] == 3
    yaml.safe_dump(data)  # plain data, no custom types


# ------------------------------------------------------------------ format features (user definition)

SCALED_DEFINITION = """
name: cells
group: example.com
kind: CellSet
versions: [v1]
components:
  - name: cell
    instances: spec.cells
    podTemplate: template
    replicas: replicas
    minReplicas: minReplicas
    scaledPodGroups: true
    components:
      - name: helper
        podTemplate: helperTemplate
        replicas: 2
gang:
  podGroups:
    - subGroups:
        - component: cell
          eachReplicaOf: cell
          name: "{base}-{instance|lower}-{replica}"
"""


def scaled_tree(tmp_path, replicas, min_replicas):
    from workloadmap import Catalog, inspect, load_definition

    path = tmp_path / "cells.yaml"
    path.write_text(SCALED_DEFINITION)
    catalog = Catalog([load_definition(path)])
    template = {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}
    resource = {
        "apiVersion": "example.com/v1",
        "kind": "CellSet",
        "metadata": {"name": "net"},
        "spec": {
            "cells": [
                {
                    "name": "Edge",
                    "replicas": replicas,
                    "minReplicas": min_replicas,
                    "template": template,
                    "helperTemplate": template,
                }
            ]
        },
    }
    return inspect(resource, catalog=catalog)


def test_scaled_pod_groups_split_replicas_beyond_the_minimum(tmp_path):
    # 3 cell replicas, minimum 1: each replica is 1 cell pod + 2 helper pods = 3 pods. The main group holds
    # the minimum (1 replica = 3 pods); replicas 1 and 2 are PodGroups of their own, named <group>-<cell>-<i>
    # with i counted from 0 over the replicas beyond the minimum: Grove's CreatePodGangNameFromPCSGFQN
    # (ai-dynamo/grove operator/api/common/namegen.go; syncflow.go buildExpectedScaledPodGangsForPCSG).
    tree = scaled_tree(tmp_path, replicas=3, min_replicas=1)
    assert tree.totals.pods == 9
    assert groups(tree) == [("net", 3, 3), ("net-Edge-0", 3, 3), ("net-Edge-1", 3, 3)]
    # Subgroup names follow the template: {base} is the main group for every one of them, |lower lower-cases.
    assert [subgroups(group) for group in tree.pod_groups] == [
        [("net-edge-0", 3)],
        [("net-edge-1", 3)],
        [("net-edge-2", 3)],
    ]


def test_scaled_pod_groups_with_minimum_two_keep_two_replicas_in_the_main_group(tmp_path):
    tree = scaled_tree(tmp_path, replicas=3, min_replicas=2)
    # main group: 2 replicas x 3 pods = 6, with one subgroup per replica; replica 2 stands alone.
    assert groups(tree) == [("net", 6, 6), ("net-Edge-0", 3, 3)]  # replica 2 is the first scaled one
    assert subgroups(tree.pod_groups[0]) == [("net-edge-0", 3), ("net-edge-1", 3)]


def test_scaled_pod_groups_at_the_minimum_form_no_extra_groups(tmp_path):
    tree = scaled_tree(tmp_path, replicas=2, min_replicas=2)
    assert groups(tree) == [("net", 6, 6)]


# ---------------------------------------------------------------- KAI segments (schedulers.md A.4.1, A.4.5)


def lws_segmented(size, segment, policy=None, replicas=1):
    lws = load_fixture("leaderworkerset.yaml")
    lws["spec"]["replicas"] = replicas
    template = lws["spec"]["leaderWorkerTemplate"]
    template["size"] = size
    template["subGroupPolicy"] = {"subGroupSize": segment}
    if policy:
        template["subGroupPolicy"]["subGroupPolicyType"] = policy
    return lws


def tree_subgroups(group):
    return [(sub.name, sub.min_member, sub.parent) for sub in group.sub_groups]


def test_lws_leader_worker_segments_when_workers_divide_evenly(inspect_builtin):
    # size 9, segments of 4: the 8 workers divide evenly, so segment-0 = 4 workers + the leader = 5,
    # segment-1 = 4; segment-0 has children leader (1) and workers (4).
    tree = inspect_builtin(lws_segmented(9, 4))
    (group,) = tree.pod_groups
    assert group.min_member == 9
    assert tree_subgroups(group) == [
        ("segment-0", 5, None),
        ("leader", 1, "segment-0"),
        ("workers", 4, "segment-0"),
        ("segment-1", 4, None),
    ]


def test_lws_leader_worker_segments_when_workers_do_not_divide(inspect_builtin):
    # size 8, segments of 4: 7 workers do not divide by 4, so the 8 pods are cut 4 + 4 with the leader first:
    # segment-0 = leader + 3 workers.
    tree = inspect_builtin(lws_segmented(8, 4))
    assert tree_subgroups(tree.pod_groups[0]) == [
        ("segment-0", 4, None),
        ("leader", 1, "segment-0"),
        ("workers", 3, "segment-0"),
        ("segment-1", 4, None),
    ]


def test_lws_leader_excluded_segments(inspect_builtin):
    # LeaderExcluded, size 9, segments of 4: a top-level leader (1) and the 8 workers in two segments of 4.
    tree = inspect_builtin(lws_segmented(9, 4, policy="LeaderExcluded", replicas=2))
    assert [group.name for group in tree.pod_groups] == ["vllm-multihost-group-0", "vllm-multihost-group-1"]
    assert tree_subgroups(tree.pod_groups[1]) == [("leader", 1, None), ("segment-0", 4, None), ("segment-1", 4, None)]


def test_lws_segment_size_must_be_above_one_and_within_size(inspect_builtin):
    for segment in (1, 10):
        tree = inspect_builtin(lws_segmented(9, segment))
        assert [sub.name for sub in tree.pod_groups[0].sub_groups] == ["leader", "workers"]


def test_pytorch_worker_segments_from_the_worker_template_annotation(inspect_builtin):
    # 1 master + 7 workers, segment-size 3: worker becomes the parent of worker-0 (3), worker-1 (3), worker-2 (1).
    job = pytorchjob(master=1, workers=7)
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"].setdefault("metadata", {}).setdefault("annotations", {})[
        "kai.scheduler/segment-size"
    ] = "3"
    tree = inspect_builtin(job)
    (group,) = tree.pod_groups
    assert group.min_member == 8
    assert tree_subgroups(group) == [
        ("master", 1, None),
        ("worker", 7, None),
        ("worker-0", 3, "worker"),
        ("worker-1", 3, "worker"),
        ("worker-2", 1, "worker"),
    ]


def test_gang_count_that_is_not_a_number_is_an_error_naming_the_expression(inspect_builtin):
    # schedulingPolicy.minAvailable must be a count; "most" is refused with the expression as the field.
    from workloadmap.errors import InputError

    job = pytorchjob(min_available="most")
    with pytest.raises(InputError) as raised:
        inspect_builtin(job)
    message = str(raised.value)
    assert "PodGroup" in message and "minMember" in message and "'most'" in message
    assert "spec.runPolicy.schedulingPolicy.minAvailable" in message and "\n" not in message


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{base}-{instance|lower}", "train-worker"),
        ("{base}-{replicaOf}-{replica}-{instance}", "train-group-0-Worker"),
        ("segment-{index}", "segment-3"),
        ("leader", "leader"),
        # a placeholder nothing fills stays as written, with its filter
        ("{base}-{nope}-{nope|lower}", "train-{nope}-{nope|lower}"),
        ("{base}{base}", "traintrain"),
    ],
)
def test_names_fill_their_placeholders(template, expected):
    from workloadmap.interpreter.gangs import _render_name

    values = {"base": "train", "instance": "Worker", "replicaOf": "group", "replica": "0", "index": "3"}
    assert _render_name(template, values) == expected
