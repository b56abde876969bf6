"""KAI pod-grouper rules beyond minMember: topology constraints per gang, queue, priority and
preemptibility, per-pod grouping, and the warnings where KAI refuses a workload or a gang can never form.

Each case names the KAI Scheduler file and unit test (kai-scheduler/KAI-Scheduler,
pkg/podgrouper/podgrouper/plugins/...) whose expectation it reproduces.
"""

from __future__ import annotations

import pytest

from helpers import load_fixture


def constraint(item):
    tc = item.topology_constraint
    return (tc.topology, tc.required_level, tc.preferred_level)


def annotate(metadata, **values):
    metadata.setdefault("annotations", {}).update({f"kai.scheduler/{key}": value for key, value in values.items()})


def label(metadata, values):
    metadata.setdefault("labels", {}).update(values)


# ------------------------------------------------------------------------------- topology constraints


def test_podgroup_constraint_comes_from_the_workload_annotations(inspect_builtin):
    # defaultgrouper/default_grouper.go GetPodGroupMetadata; xgboost-grouper_test.go
    # TestGetPodGroupMetadata_TopologyFromOwnerAnnotation: topology, required and preferred from the top owner.
    sts = load_fixture("statefulset.yaml")
    annotate(sts["metadata"], **{"topology": "dc", "topology-required-placement": "rack"})
    [group] = inspect_builtin(sts).pod_groups
    assert constraint(group) == ("dc", "rack", None)
    data = group.to_dict()["topologyConstraint"]
    assert data == {"topology": "dc", "requiredLevel": "rack", "preferredLevel": None}


def test_podgroup_without_annotations_has_an_empty_constraint(inspect_builtin):
    [group] = inspect_builtin(load_fixture("statefulset.yaml")).pod_groups
    assert constraint(group) == (None, None, None)
    assert all(constraint(sub) == (None, None, None) for sub in group.sub_groups)


def raycluster_with_topology():
    # ray_grouper_test.go TestGetPodGroupMetadata_RayCluster_SubGroups_WithTopologyConstraints: each group's
    # constraint from its own pod template's annotations; topology alone is no constraint.
    ray = load_fixture("raycluster.yaml")
    annotate(
        ray["spec"]["headGroupSpec"]["template"].setdefault("metadata", {}),
        **{"topology": "test-topology", "topology-required-placement": "rack", "topology-preferred-placement": "node"},
    )
    tpu, gpu, _ = ray["spec"]["workerGroupSpecs"]
    annotate(
        tpu["template"].setdefault("metadata", {}),
        **{"topology": "test-topology", "topology-required-placement": "zone", "topology-preferred-placement": "rack"},
    )
    annotate(gpu["template"].setdefault("metadata", {}), topology="test-topology")
    return ray


def test_ray_group_constraints_come_from_each_template(inspect_builtin):
    tree = inspect_builtin(raycluster_with_topology())
    [group] = tree.pod_groups
    assert [(sub.name, constraint(sub)) for sub in group.sub_groups] == [
        ("headgroup", ("test-topology", "rack", "node")),
        ("tpu-group", ("test-topology", "zone", "rack")),
        ("gpu-group", (None, None, None)),  # topology without a level: no constraint
    ]
    assert tree.warnings == []


def test_ray_level_without_topology_is_refused(inspect_builtin):
    # ray_grouper.go getTemplateTopologyConstraints: a level without kai.scheduler/topology is an error.
    ray = raycluster_with_topology()
    del ray["spec"]["workerGroupSpecs"][0]["template"]["metadata"]["annotations"]["kai.scheduler/topology"]
    tree = inspect_builtin(ray)
    assert any("ray plugin refuses" in warning for warning in tree.warnings)


def test_ray_worker_group_without_name_is_named_by_index(inspect_builtin):
    # ray_grouper_test.go TestGetPodGroupMetadata_RayCluster_SubGroups_Default: worker-group-0, worker-group-1.
    ray = load_fixture("raycluster.yaml")
    for group in ray["spec"]["workerGroupSpecs"]:
        del group["groupName"]
    [group] = inspect_builtin(ray).pod_groups
    # spare (index 2) is suspended and has no subgroup (TestGetPodGroupMetadata_RayCluster_SuspendedWorkers_SubGroups)
    assert [sub.name for sub in group.sub_groups] == ["headgroup", "worker-group-0", "worker-group-1"]


def pytorch_segmented(**annotations):
    job = load_fixture("pytorchjob-elastic.yaml")
    job.pop("status")
    job["spec"].pop("elasticPolicy")
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = 4
    annotate(job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"].setdefault("metadata", {}), **annotations)
    return job


def test_pytorch_segments_carry_the_segment_constraint(inspect_builtin):
    # pytorch_grouper_test.go TestGetPodGroupMetadata_Segments_WithTopologyConstraints: segment-size 2, topology
    # cluster-topology, segment required rack, preferred node on every worker-<i> segment.
    job = pytorch_segmented(
        **{
            "segment-size": "2",
            "topology": "cluster-topology",
            "segment-topology-required-placement": "rack",
            "segment-topology-preferred-placement": "node",
        }
    )
    [group] = inspect_builtin(job).pod_groups
    segments = {sub.name: constraint(sub) for sub in group.sub_groups}
    assert segments["worker-0"] == segments["worker-1"] == ("cluster-topology", "rack", "node")
    assert segments["worker"] == (None, None, None)  # the parent subgroup itself has none


def test_pytorch_segment_topology_from_the_job(inspect_builtin):
    # TestGetPodGroupMetadata_Segments_TopologyFromRootAnnotation: the topology comes from the top owner.
    job = pytorch_segmented(**{"segment-size": "2", "segment-topology-required-placement": "rack"})
    annotate(job["metadata"], topology="cluster-topology")
    [group] = inspect_builtin(job).pod_groups
    assert {sub.name: constraint(sub) for sub in group.sub_groups}["worker-1"] == ("cluster-topology", "rack", None)
    # ... and without any topology there is no segment constraint (getSegmentTopologyConstraints)
    del job["metadata"]["annotations"]["kai.scheduler/topology"]
    [group] = inspect_builtin(job).pod_groups
    assert {sub.name: constraint(sub) for sub in group.sub_groups}["worker-1"] == (None, None, None)


@pytest.mark.parametrize("size", ["two", "0", "-1"])
def test_pytorch_malformed_segment_size_is_refused(inspect_builtin, size):
    # TestGetPodGroupMetadata_Segments_MalformedAnnotationInTemplate; getSegmentSize: must be a positive integer.
    tree = inspect_builtin(pytorch_segmented(**{"segment-size": size}))
    assert any("segment-size" in warning and "refuses" in warning for warning in tree.warnings)


def test_lws_segments_carry_the_segment_constraint(inspect_builtin):
    # lws_grouper_test.go TestBuildSubGroups_Segmentation_TopologyBothPlacementKeys_LeaderExcluded
    lws = load_fixture("leaderworkerset.yaml")
    template = lws["spec"]["leaderWorkerTemplate"]
    template["size"] = 5
    template["subGroupPolicy"] = {"subGroupSize": 2, "subGroupPolicyType": "LeaderExcluded"}
    annotate(
        template["workerTemplate"].setdefault("metadata", {}),
        **{
            "topology": "topo",
            "segment-topology-required-placement": "rack",
            "segment-topology-preferred-placement": "node",
        },
    )
    tree = inspect_builtin(lws)
    subs = {sub.name: constraint(sub) for sub in tree.pod_groups[0].sub_groups}
    assert subs == {
        "leader": (None, None, None),
        "segment-0": ("topo", "rack", "node"),
        "segment-1": ("topo", "rack", "node"),
    }


@pytest.mark.parametrize(
    ("size", "how"),
    [
        (6, "subGroupSize"),  # greater than size 5 (TestBuildSubGroups_Segmentation_ExceedsMaxAllowedSegmentation)
        (1, "subGroupSize"),  # must be greater than 1 (getSegmentSize)
        ("x", "annotation"),  # not a number: "invalid segment size annotation"
    ],
)
def test_lws_invalid_segment_size_is_refused(inspect_builtin, size, how):
    lws = load_fixture("leaderworkerset.yaml")
    template = lws["spec"]["leaderWorkerTemplate"]
    template["size"] = 5
    if how == "subGroupSize":
        template["subGroupPolicy"] = {"subGroupSize": size}
    else:
        annotate(lws["metadata"], **{"segment-size": size})
    tree = inspect_builtin(lws)
    assert any("segment size" in warning and "refuses" in warning for warning in tree.warnings)


def test_lws_valid_segment_size_gives_no_warning(inspect_builtin):
    lws = load_fixture("leaderworkerset.yaml")
    lws["spec"]["leaderWorkerTemplate"].update(size=5, subGroupPolicy={"subGroupSize": 5})
    assert inspect_builtin(lws).warnings == []


# ---------------------------------------------------------------------------- kubeflow refusals


def test_xgboost_without_master_is_refused(inspect_builtin):
    # xgboost-grouper_test.go TestGetPodGroupMetadata_MissingMasterSpec: Master and Worker are mandatory.
    job = load_fixture("kubeflow/xgboostjob.yaml")
    assert inspect_builtin(job).warnings == []
    del job["spec"]["xgbReplicaSpecs"]["Master"]
    assert any("no Master or Worker replica spec" in warning for warning in inspect_builtin(job).warnings)
    # TestGetPodGroupMetadata_RunPolicySkipsMandatorySpecValidation: minAvailable short-circuits the check
    job["spec"]["runPolicy"] = {"schedulingPolicy": {"minAvailable": 1}}
    assert inspect_builtin(job).warnings == []


def test_tfjob_zero_replicas_is_refused(inspect_builtin):
    # tensorflow-grouper_test.go TestGetPodGroupMetadata_ZeroPSReplicas; ..._RunPolicyMinAvailableOverridesZeroReplicas
    job = load_fixture("kubeflow/tfjob-chief-ps-worker-evaluator.yaml")
    assert not [warning for warning in inspect_builtin(job).warnings if "refuses" in warning]
    job["spec"]["tfReplicaSpecs"]["PS"]["replicas"] = 0
    assert any("replicas 0" in warning for warning in inspect_builtin(job).warnings)
    job["spec"]["runPolicy"] = {"schedulingPolicy": {"minAvailable": 3}}
    assert not [warning for warning in inspect_builtin(job).warnings if "refuses" in warning]


def test_mpijob_without_launcher_is_refused(inspect_builtin):
    # mpi-grouper.go: Launcher and Worker are mandatory (calcJobNumOfPods)
    job = load_fixture("mpijob.yaml")
    del job["spec"]["mpiReplicaSpecs"]["Launcher"]
    assert any("no Launcher or Worker replica spec" in warning for warning in inspect_builtin(job).warnings)


# --------------------------------------------------------------------------- gangs that cannot form


def test_min_member_above_the_pods_is_a_warning(inspect_builtin):
    # training-operator minAvailable 5 for a 4-pod PyTorchJob: KAI sets minMember 5 and the gang never forms
    job = load_fixture("pytorchjob-elastic.yaml")
    job.pop("status")
    job["spec"].pop("elasticPolicy")
    job["spec"]["pytorchReplicaSpecs"]["Master"]["replicas"] = 1
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = 3
    job["spec"]["runPolicy"] = {"schedulingPolicy": {"minAvailable": 5}}
    tree = inspect_builtin(job)
    assert tree.pod_groups[0].min_member == 5
    assert any("minMember 5 is more than its 4 pods" in warning for warning in tree.warnings)


def test_kind_without_kai_plugin_says_whose_gang_it_shows(inspect_builtin):
    # KAI's hub.go registers no PaddleJob: the default grouper gives minMember 1 (default_grouper.go MinAvailable 1)
    tree = inspect_builtin(load_fixture("kubeflow/paddlejob-elastic.yaml"))
    [warning] = [w for w in tree.warnings if "no pod-grouper plugin" in w]
    assert "PaddleJob" in warning and "minMember 1" in warning and "training-operator" in warning


# ------------------------------------------------------------------- queue, priority, preemptibility


def meta(tree):
    [group] = tree.pod_groups
    return (group.queue, group.priority_class, group.preemptibility)


def test_defaults_are_default_queue_train_and_preemptible(inspect_builtin):
    # xgboost-grouper_test.go TestGetPodGroupMetadata_DefaultQueue, _DefaultPriorityClassIsTrain;
    # train (50) is below PriorityBuildNumber (100): preemptible (pkg/common/podgroup/preemptible_test.go)
    assert meta(inspect_builtin(load_fixture("statefulset.yaml"))) == ("default-queue", "train", "preemptible")


def test_queue_from_owner_then_pod_then_project(inspect_builtin):
    sts = load_fixture("statefulset.yaml")
    pod = sts["spec"]["template"].setdefault("metadata", {})
    label(pod, {"kai.scheduler/queue": "pod-queue"})
    assert meta(inspect_builtin(sts))[0] == "pod-queue"  # TestGetPodGroupMetadata_QueueFromPodLabel
    label(sts["metadata"], {"kai.scheduler/queue": "owner-queue"})
    assert meta(inspect_builtin(sts))[0] == "owner-queue"  # ..._OwnerQueueTakesPrecedenceOverPod
    del sts["metadata"]["labels"]["kai.scheduler/queue"], pod["labels"]["kai.scheduler/queue"]
    label(sts["metadata"], {"project": "team-a"})
    assert meta(inspect_builtin(sts))[0] == "team-a"  # calculateQueueName: the project label
    label(pod, {"kai.scheduler/node-pool": "pool-1"})
    assert meta(inspect_builtin(sts))[0] == "team-a-pool-1"  # <project>-<node pool>


def test_priority_from_labels_and_pod_spec(inspect_builtin):
    sts = load_fixture("statefulset.yaml")
    sts["spec"]["template"]["spec"]["priorityClassName"] = "inference"
    # calcPodGroupPriorityClass: the pod's spec.priorityClassName; inference (125) >= 100: non-preemptible
    assert meta(inspect_builtin(sts))[1:] == ("inference", "non-preemptible")
    label(sts["metadata"], {"priorityClassName": "build-preemptible"})
    assert meta(inspect_builtin(sts))[1:] == ("build-preemptible", "preemptible")  # the owner's label wins
    label(sts["metadata"], {"kai.scheduler/preemptibility": "non-preemptible"})
    assert meta(inspect_builtin(sts))[2] == "non-preemptible"  # the label wins over the priority
    label(sts["metadata"], {"priorityClassName": "site-class"})
    del sts["metadata"]["labels"]["kai.scheduler/preemptibility"]
    assert meta(inspect_builtin(sts))[1:] == ("site-class", None)  # a class KAI does not install: unknown value


@pytest.mark.parametrize(
    ("fixture", "priority"),
    [
        ("kubeflow/notebook.yaml", "build"),  # notebook_grouper.go: BuildPriorityClass
        ("serving/knative-service.yaml", "inference"),  # knative.go: InferencePriorityClass
        ("kubeflow/xgboostjob.yaml", "train"),  # default_grouper.go: TrainPriorityClass
    ],
)
def test_per_kind_default_priority(inspect_builtin, fixture, priority):
    tree = inspect_builtin(load_fixture(fixture))
    assert {group.priority_class for group in tree.pod_groups} == {priority}


# ------------------------------------------------------------------------------------ the JSON contract


def test_inspect_json_has_grouping_count_and_constraints(wmap):
    import json

    from helpers import FIXTURES_DIR

    result = wmap("inspect", str(FIXTURES_DIR / "deployment-inference.yaml"), "-o", "json")
    data = json.loads(result.stdout)
    # deployment_grouper.go: one PodGroup per pod
    assert (data["grouping"], data["podGroupCount"], data["podGroups"]) == ("perPod", data["totals"]["pods"], [])
    result = wmap("inspect", str(FIXTURES_DIR / "grove" / "podcliqueset-topology.yaml"), "-o", "json")
    data = json.loads(result.stdout)
    assert (data["grouping"], data["podGroupCount"]) == ("gang", 2)
    base = data["podGroups"][0]
    assert base["topologyConstraint"] == {
        "topology": "test-topology",
        "requiredLevel": "zone",
        "preferredLevel": "rack",
        "domains": True,  # Grove domain names, translated through the ClusterTopologyBinding
    }
    assert (base["queue"], base["priorityClass"], base["preemptibility"]) == ("default-queue", "train", "preemptible")
    assert base["subGroups"][0]["topologyConstraint"]["requiredLevel"] == "rack"
    # the JSON reads back into the same tree
    from workloadmap import WorkloadTree

    assert WorkloadTree.from_dict(data).to_dict() == data


def test_human_view_shows_per_pod_count_and_constraints(wmap):
    from helpers import FIXTURES_DIR

    out = wmap("inspect", str(FIXTURES_DIR / "deployment-inference.yaml")).stdout
    assert "one per pod" in out
    out = wmap("inspect", str(FIXTURES_DIR / "grove" / "podcliqueset-topology.yaml")).stdout
    assert "required zone, preferred rack (topology test-topology)" in out


def test_pytorch_more_than_10000_segments_is_refused(inspect_builtin):
    # pytorch_grouper_test.go TestGetPodGroupMetadata_Segments_ExceedsMaxAllowedSegmentation: 10001 workers, size 1
    job = pytorch_segmented(**{"segment-size": "1"})
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = 10001
    assert any("more than 10000 segments" in warning for warning in inspect_builtin(job).warnings)
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = 10000
    assert not any("more than 10000 segments" in warning for warning in inspect_builtin(job).warnings)


@pytest.mark.parametrize(
    ("fixture", "path"),
    [("ray/rayjob-k8sjob.yaml", ("spec", "rayClusterSpec")), ("ray/rayservice.yaml", ("spec", "rayClusterConfig"))],
)
def test_rayjob_and_rayservice_unnamed_groups_by_index(inspect_builtin, fixture, path):
    # rayjob_grouper.go / rayservice_grouper.go group through the same ray_grouper.go getWorkerGroupName.
    obj = load_fixture(fixture)
    cluster = obj[path[0]][path[1]]
    for group in cluster["workerGroupSpecs"]:
        group.pop("groupName", None)
    [group] = inspect_builtin(obj).pod_groups
    names = [sub.name for sub in group.sub_groups]
    assert names[0] == "headgroup"
    assert names[1:] == [f"worker-group-{index}" for index in range(len(names) - 1)]
