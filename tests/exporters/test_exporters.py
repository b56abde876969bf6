"""Tests for workloadmap.exporters: objects validated against JSON Schemas written from the CRD
facts in schedulers.md (tests/data/crds), plus the rules schemas cannot express."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from helpers import DATA_DIR
from helpers.placement import BLOCK, CLIQUE, HOST, RACK, clique_cluster, pod_set, rack_cluster, tree  # noqa: E402
from workloadmap.errors import PlacementError, TopologyError
from workloadmap.exporters import (  # noqa: E402
    demand,
    dns_name,
    export,
    kai_annotated_workload,
    kai_podgroups,
    kai_topology,
    kueue_annotated_workload,
    kueue_annotations,
    kueue_topology,
    volcano_hypernodes,
    volcano_tiers,
)
from workloadmap.placement import place  # noqa: E402
from workloadmap.tree import ExportHints

CRDS = DATA_DIR / "crds"
REQ = "kueue.x-k8s.io/podset-required-topology"
PREF = "kueue.x-k8s.io/podset-preferred-topology"


def schema(name):
    return json.loads((CRDS / f"{name}.schema.json").read_text())


def validate(obj, name):
    jsonschema.validate(obj, schema(name), cls=jsonschema.Draft202012Validator)


def assert_hostname_last(topology):
    labels = [level["nodeLabel"] for level in topology["spec"]["levels"]]
    assert HOST not in labels[:-1]


def lws_components():
    return [
        {
            "name": "group",
            "role": "group",
            "replicas": 2,
            "pods": 16,
            "minPods": 16,
            "hasPodTemplate": False,
            "components": [
                {
                    "name": "leader",
                    "role": "leader",
                    "replicas": 1,
                    "pods": 2,
                    "minPods": 2,
                    "hasPodTemplate": True,
                    "podResources": {"nvidia.com/gpu": "4", "cpu": "8"},
                },
                {
                    "name": "worker",
                    "role": "worker",
                    "replicas": 7,
                    "pods": 14,
                    "minPods": 14,
                    "hasPodTemplate": True,
                    "podResources": {"nvidia.com/gpu": "4", "cpu": "8"},
                },
            ],
        },
    ]


def lws_tree():
    groups = []
    for g in range(2):
        groups.append(
            {
                "name": f"pg-infer-group-{g}",
                "minMember": 8,
                "pods": 8,
                "podSets": [pod_set("group/leader", 1, gpus=4, cpu=8), pod_set("group/worker", 7, gpus=4, cpu=8)],
                "subGroups": [
                    {
                        "name": "leader",
                        "minMember": 1,
                        "pods": 1,
                        "podSets": [pod_set("group/leader", 1, gpus=4, cpu=8)],
                    },
                    {
                        "name": "workers",
                        "minMember": 7,
                        "pods": 7,
                        "podSets": [pod_set("group/worker", 7, gpus=4, cpu=8)],
                    },
                ],
            }
        )
    workload = tree(groups, components=lws_components(), kind="LeaderWorkerSet", name="infer")
    # The LWS definition says leader and worker templates form one Kueue PodSet group.
    workload.export_hints = ExportHints(kueue_pod_set_group=True)
    return workload


LWS_OBJECT = {
    "apiVersion": "leaderworkerset.x-k8s.io/v1",
    "kind": "LeaderWorkerSet",
    "metadata": {"name": "infer", "namespace": "default"},
    "spec": {
        "replicas": 2,
        "leaderWorkerTemplate": {
            "size": 8,
            "leaderTemplate": {"metadata": {"labels": {"role": "leader"}}, "spec": {"containers": []}},
            "workerTemplate": {"spec": {"containers": []}},
        },
    },
}
LWS_PATHS = {
    "group/leader": ["spec", "leaderWorkerTemplate", "leaderTemplate"],
    "group/worker": ["spec", "leaderWorkerTemplate", "workerTemplate"],
}


def segmented_tree():
    """One gang: 8 workers of 4 GPUs in two segments of 4 (each fits one 4-node clique)."""
    return tree(
        [
            {
                "name": "train",
                "minMember": 8,
                "pods": 8,
                "podSets": [pod_set("worker", 8, gpus=4, cpu=8)],
                "subGroups": [
                    {"name": "worker", "minMember": 0, "pods": 8},
                    {
                        "name": "worker-0",
                        "minMember": 4,
                        "parent": "worker",
                        "pods": 4,
                        "podSets": [pod_set("worker", 4, gpus=4, cpu=8)],
                    },
                    {
                        "name": "worker-1",
                        "minMember": 4,
                        "parent": "worker",
                        "pods": 4,
                        "podSets": [pod_set("worker", 4, gpus=4, cpu=8)],
                    },
                ],
            }
        ],
        kind="PyTorchJob",
    )


# ------------------------------------------------------------------------------------- KAI


def test_kai_topology_and_podgroups_validate_and_carry_the_report():
    workload = segmented_tree()
    report = place(workload, clique_cluster("nvl cluster"))
    # kai_podgroups builds the PodGroups; export("kai") emits them only for bare pods (test_kai_emit.py)
    topology = kai_topology([RACK, CLIQUE, HOST], "gpu-topology")
    (podgroup,) = kai_podgroups(workload, report, topology="gpu-topology", queue="team-a")
    validate(topology, "kai-topology")
    assert_hostname_last(topology)
    assert [level["nodeLabel"] for level in topology["spec"]["levels"]] == [RACK, CLIQUE, HOST]
    validate(podgroup, "kai-podgroup")
    spec = podgroup["spec"]
    assert spec["minMember"] == 8 and spec["queue"] == "team-a"
    assert spec["topologyConstraint"] == {"topology": "gpu-topology", "preferredTopologyLevel": RACK}
    assert "subGroups" in spec and "subgroups" not in spec
    by_name = {sub["name"]: sub for sub in spec["subGroups"]}
    # KAI v0.17 podgroup_webhook.go: a parent SubGroup takes minSubGroup, never minMember (pytorch_grouper_test.go
    # TestGetPodGroupMetadata_Segments_HappyFlow_4Workers_2PerSegment: worker minSubGroup = its segments)
    assert "minMember" not in by_name["worker"] and by_name["worker"]["minSubGroup"] == 2
    assert by_name["worker-0"]["parent"] == "worker" and by_name["worker-0"]["minMember"] == 4
    assert by_name["worker-0"]["topologyConstraint"] == {
        "topology": "gpu-topology",
        "requiredTopologyLevel": CLIQUE,
        "preferredTopologyLevel": CLIQUE,
    }
    levels = {level["nodeLabel"] for level in topology["spec"]["levels"]}
    for sub in spec["subGroups"]:
        for key in ("requiredTopologyLevel", "preferredTopologyLevel"):
            assert sub.get("topologyConstraint", {}).get(key, RACK) in levels
    assert podgroup["metadata"]["namespace"] == "default"


def test_podgroup_schema_rejects_lowercase_subgroups_zero_min_member_and_both_minimums():
    bad = {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "x"},
        "spec": {"minMember": 1, "subgroups": []},
    }
    with pytest.raises(jsonschema.ValidationError):
        validate(bad, "kai-podgroup")
    bad["spec"] = {"minMember": 0}
    with pytest.raises(jsonschema.ValidationError):
        validate(bad, "kai-podgroup")
    # podgroup_webhook.go: "minMember and minSubGroup are mutually exclusive", on the PodGroup and on a SubGroup
    bad["spec"] = {"minMember": 1, "minSubGroup": 1}
    with pytest.raises(jsonschema.ValidationError):
        validate(bad, "kai-podgroup")
    bad["spec"] = {"minSubGroup": 1, "subGroups": [{"name": "a", "minMember": 1, "minSubGroup": 1}]}
    with pytest.raises(jsonschema.ValidationError):
        validate(bad, "kai-podgroup")


@pytest.mark.parametrize("levels", [[], [HOST, RACK], [RACK, RACK, HOST], [f"example.com/l{i}" for i in range(17)]])
def test_topology_level_rules_are_enforced(levels):
    # One validation for every Topology wmap reads or writes (workloadmap.topology.validate_levels).
    with pytest.raises(TopologyError):
        kai_topology(levels, "t")
    with pytest.raises(TopologyError):
        kueue_topology(levels, "t")


def test_kai_annotations_go_on_top_level_metadata_without_mutating_input():
    workload = lws_tree()
    report = place(workload, clique_cluster("nvl cluster"), required=RACK)
    original = copy.deepcopy(LWS_OBJECT)
    annotated = kai_annotated_workload(LWS_OBJECT, report, topology="gpu-topology")
    assert LWS_OBJECT == original
    annotations = annotated["metadata"]["annotations"]
    assert annotations == {
        "kai.scheduler/topology": "gpu-topology",
        "kai.scheduler/topology-required-placement": RACK,
        "kai.scheduler/topology-preferred-placement": RACK,
    }
    assert "annotations" not in annotated["spec"]["leaderWorkerTemplate"]["leaderTemplate"].get("metadata", {})
    # without a requirement on every gang, no required annotation
    loose = kai_annotated_workload(LWS_OBJECT, place(workload, clique_cluster("nvl cluster")), topology="t")
    assert "kai.scheduler/topology-required-placement" not in loose["metadata"]["annotations"]
    objects = export("kai-annotations", workload, report, obj=LWS_OBJECT)
    validate(objects[0], "kai-topology")
    assert objects[0]["metadata"]["name"] == dns_name("nvl cluster")


# ----------------------------------------------------------------------------------- Kueue


def test_kueue_lws_leader_and_workers_share_a_group_and_level():
    workload = lws_tree()
    report = place(workload, clique_cluster("nvl cluster"))  # 8 pods x 4 GPUs = a rack (2 cliques of 16 GPUs)
    topology, annotated = export("kueue", workload, report, obj=LWS_OBJECT, template_paths=LWS_PATHS)
    validate(topology, "kueue-topology")
    assert_hostname_last(topology)
    template = annotated["spec"]["leaderWorkerTemplate"]
    leader = template["leaderTemplate"]["metadata"]["annotations"]
    worker = template["workerTemplate"]["metadata"]["annotations"]
    assert leader["kueue.x-k8s.io/podset-group-name"] == worker["kueue.x-k8s.io/podset-group-name"]
    assert leader[PREF] == worker[PREF] == RACK
    assert REQ not in leader and REQ not in worker
    assert template["leaderTemplate"]["metadata"]["labels"] == {"role": "leader"}  # kept
    assert "annotations" not in LWS_OBJECT["spec"]["leaderWorkerTemplate"]["workerTemplate"].get("metadata", {})


def test_kueue_required_and_preferred_are_exclusive_and_every_template_gets_one():
    jobset = tree(
        [
            {"name": "pg-a", "minMember": 4, "pods": 4, "podSets": [pod_set("trainer", 4)]},
            {"name": "pg-b", "minMember": 20, "pods": 20, "podSets": [pod_set("big", 20, gpus=1, cpu=1)]},
        ],
        components=[
            {
                "name": "trainer",
                "role": "rj",
                "replicas": 4,
                "pods": 4,
                "minPods": 4,
                "hasPodTemplate": True,
                "podResources": {"nvidia.com/gpu": "8", "cpu": "32"},
            },
            {
                "name": "big",
                "role": "rj",
                "replicas": 20,
                "pods": 20,
                "minPods": 20,
                "hasPodTemplate": True,
                "podResources": {"nvidia.com/gpu": "1", "cpu": "1"},
            },
            {
                "name": "side",
                "role": "rj",
                "replicas": 1,
                "pods": 1,
                "minPods": 1,
                "hasPodTemplate": True,
                "podResources": {"cpu": "1"},
            },
        ],
    )
    report = place(jobset, rack_cluster(), required={"pg-a": RACK})
    wanted = kueue_annotations(jobset, report)
    assert wanted["trainer"] == {REQ: RACK}
    assert wanted["big"] == {PREF: RACK}  # 20 x 1 GPU fits in one rack (32 GPUs)
    assert wanted["side"] == {PREF: BLOCK}  # no gang: the loosest preference
    for entry in wanted.values():
        assert (REQ in entry) != (PREF in entry)
    obj = {
        "spec": {
            "replicatedJobs": [
                {"name": n, "template": {"spec": {"template": {"spec": {}}}}} for n in ("trainer", "big", "side")
            ]
        }
    }
    paths = {
        component: ["spec", "replicatedJobs", index, "template", "spec", "template"]
        for index, component in enumerate(("trainer", "big", "side"))
    }
    annotated = kueue_annotated_workload(obj, jobset, report, template_paths=paths)
    templates = [rj["template"]["spec"]["template"] for rj in annotated["spec"]["replicatedJobs"]]
    assert [t["metadata"]["annotations"] for t in templates] == [wanted["trainer"], wanted["big"], wanted["side"]]
    assert "kueue.x-k8s.io" not in json.dumps(annotated.get("metadata", {}))  # never on top-level metadata


def test_kueue_slice_annotations_for_equal_segments():
    workload = segmented_tree()
    report = place(workload, clique_cluster("nvl cluster"))
    wanted = kueue_annotations(workload, report)
    assert wanted["worker"] == {
        PREF: RACK,
        "kueue.x-k8s.io/podset-slice-required-topology": CLIQUE,
        "kueue.x-k8s.io/podset-slice-size": "4",
    }
    assert 8 % int(wanted["worker"]["kueue.x-k8s.io/podset-slice-size"]) == 0


def test_kueue_missing_template_is_an_error():
    workload = lws_tree()
    report = place(workload, clique_cluster("nvl cluster"))
    with pytest.raises(PlacementError, match="group/worker"):
        kueue_annotated_workload(
            LWS_OBJECT, workload, report, template_paths={"group/leader": LWS_PATHS["group/leader"]}
        )
    with pytest.raises(PlacementError, match="not found"):
        kueue_annotated_workload(
            LWS_OBJECT, workload, report, template_paths={**LWS_PATHS, "group/worker": ["spec", "nope"]}
        )


# --------------------------------------------------------------------------------- Volcano


def test_volcano_tiers_count_up_from_the_level_above_hostname():
    assert volcano_tiers([BLOCK, RACK, HOST]) == {BLOCK: 2, RACK: 1}


@pytest.mark.parametrize("members", ["label", "exact"])
def test_volcano_hypernodes_validate_and_form_a_tree(members):
    cluster = rack_cluster()  # 2 blocks x 2 racks (values repeat across blocks) x 4 hosts
    objects = volcano_hypernodes(cluster, members=members)
    for obj in objects:
        validate(obj, "volcano-hypernode")
    names = [obj["metadata"]["name"] for obj in objects]
    assert len(names) == len(set(names)) == 6
    tier1 = [obj for obj in objects if obj["spec"]["tier"] == 1]
    tier2 = [obj for obj in objects if obj["spec"]["tier"] == 2]
    assert len(tier1) == 4 and len(tier2) == 2
    tier1_names = {obj["metadata"]["name"] for obj in tier1}
    children = [m["selector"]["exactMatch"]["name"] for obj in tier2 for m in obj["spec"]["members"]]
    assert sorted(children) == sorted(tier1_names)
    assert all(m["type"] == "HyperNode" for obj in tier2 for m in obj["spec"]["members"])
    if members == "label":
        selectors = [obj["spec"]["members"][0]["selector"]["labelMatch"]["matchLabels"] for obj in tier1]
        assert {"cloud.provider.com/topology-block": "b1", "cloud.provider.com/topology-rack": "r0"} in selectors
    else:
        nodes = sorted(m["selector"]["exactMatch"]["name"] for obj in tier1 for m in obj["spec"]["members"])
        assert nodes == sorted(n.name for n in cluster.nodes)


def test_volcano_podgroups_and_job_network_topology():
    workload = tree([{"name": "g", "minMember": 4, "pods": 4, "podSets": [pod_set("w", 4)]}])
    cluster = rack_cluster()
    required = place(workload, cluster, required=RACK)
    objects = export("volcano", workload, required, cluster=cluster)
    podgroups = [obj for obj in objects if obj["kind"] == "PodGroup"]
    assert len(podgroups) == 1
    validate(podgroups[0], "volcano-podgroup")
    assert podgroups[0]["spec"] == {"minMember": 4, "networkTopology": {"mode": "hard", "highestTierAllowed": 1}}
    block = export("volcano", workload, place(workload, cluster, required=BLOCK), cluster=cluster)[-1]
    assert block["spec"]["networkTopology"] == {"mode": "hard", "highestTierAllowed": 2}
    soft = export("volcano", workload, place(workload, cluster), cluster=cluster)[-1]
    assert soft["spec"]["networkTopology"] == {"mode": "soft"}
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"tasks": []}}
    # Whether the workload takes networkTopology itself is definition data (the Volcano Job's
    # `exports.volcanoNetworkTopology`), not a kind check in the exporter.
    assert export("volcano", workload, required, cluster=cluster, obj=job)[-1]["kind"] == "PodGroup"
    workload.export_hints = ExportHints(volcano_network_topology=("spec", "networkTopology"))
    exported = export("volcano", workload, required, cluster=cluster, obj=job)[-1]
    validate(exported["spec"]["networkTopology"], "volcano-network-topology")
    assert exported["spec"]["networkTopology"] == {"mode": "hard", "highestTierAllowed": 1}
    assert "networkTopology" not in job["spec"]


# ---------------------------------------------------------------------------------- demand


def test_demand_per_gang_totals_and_levels():
    workload = lws_tree()
    report = place(workload, clique_cluster("nvl cluster"))
    (document,) = demand(workload, report)
    assert document["kind"] == "WorkloadDemand"
    assert [gang["name"] for gang in document["gangs"]] == ["pg-infer-group-0", "pg-infer-group-1"]
    gang = document["gangs"][0]
    assert gang["pods"] == 8 and gang["gpus"] == 32 and gang["resources"] == {"cpu": "64", "nvidia.com/gpu": "32"}
    assert gang["podShapes"][1] == {
        "component": "group/worker",
        "count": 7,
        "resources": {"cpu": "8", "nvidia.com/gpu": "4"},
    }
    assert gang["preferredLevel"] == RACK and gang["requiredLevel"] is None
    assert document["totals"]["gpus"] == 64 and document["totals"]["pods"] == 16
    json.dumps(document)  # plain JSON


def test_export_dispatch():
    workload = segmented_tree()
    cluster = clique_cluster("nvl cluster")
    report = place(workload, cluster)
    owner = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "train"}}
    assert [obj["kind"] for obj in export("kai", workload, report, obj=owner)] == ["Topology", "PyTorchJob"]
    assert export("volcano", workload, report, cluster=cluster)[-1]["kind"] == "PodGroup"
    with pytest.raises(ValueError, match="unknown export target"):
        export("slurm", workload, report)
    with pytest.raises(ValueError, match="cluster"):
        export("volcano", workload, report)


def test_exported_workloads_are_ready_to_apply():
    # A workload read back from a cluster carries status and server metadata; the annotated copy
    # that --emit prints drops them (kubectl apply would otherwise send stale fields) and leaves
    # the original untouched.
    from workloadmap.exporters import applyable_copy as _applyable_copy

    original = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "j", "uid": "1", "resourceVersion": "9", "managedFields": [], "labels": {"a": "b"}},
        "spec": {"x": 1},
        "status": {"conditions": []},
    }
    copy = _applyable_copy(original)
    assert copy == {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "j", "labels": {"a": "b"}},
        "spec": {"x": 1},
    }
    assert "status" in original and original["metadata"]["uid"] == "1"


def test_jobset_jobs_become_kueue_slices_inside_an_nvlink_domain():
    # 8 Jobs x 4 pods x 4 GPUs = 128 GPUs on NVL72 racks (18 nodes x 4 GPUs = 72 GPUs per NVLink domain,
    # 2 racks per leaf): the whole replicatedJob needs a leaf (144 GPUs), one Job (16 GPUs) fits a rack.
    # So Kueue gets the leaf as the podset's preferred level and each Job (slice of parallelism 4 pods)
    # required inside one NVLink domain.
    from workloadmap import inspect
    from workloadmap.exporters import kueue_annotated_workload
    from workloadmap.labels import KUEUE_PREFERRED as KUEUE_PREFERRED_ANNOTATION
    from workloadmap.labels import KUEUE_SLICE_REQUIRED as KUEUE_SLICE_REQUIRED_ANNOTATION
    from workloadmap.labels import KUEUE_SLICE_SIZE as KUEUE_SLICE_SIZE_ANNOTATION
    from workloadmap.placement import place
    from workloadmap.topology import example_cluster

    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "pretrain"},
        "spec": {
            "replicatedJobs": [
                {
                    "name": "trainer",
                    "replicas": 8,
                    "template": {
                        "spec": {
                            "parallelism": 4,
                            "completions": 4,
                            "template": {
                                "spec": {"containers": [{"name": "t", "resources": {"limits": {"nvidia.com/gpu": 4}}}]}
                            },
                        }
                    },
                }
            ]
        },
    }
    tree = inspect(jobset)
    report = place(tree, example_cluster("nvl72-4rack"))
    (fit,) = report.slices
    assert (fit.component, fit.size, fit.count) == ("trainer", 4, 8)
    assert (fit.required_level, fit.required_source) == ("accelerator.topograph.run/domain", "auto")
    annotated = kueue_annotated_workload(jobset, tree, report)
    annotations = annotated["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]["annotations"]
    assert annotations[KUEUE_PREFERRED_ANNOTATION] == "fabric.topograph.run/tier-0"
    assert annotations[KUEUE_SLICE_REQUIRED_ANNOTATION] == "accelerator.topograph.run/domain"
    assert annotations[KUEUE_SLICE_SIZE_ANNOTATION] == "4"
    assert 32 % int(annotations[KUEUE_SLICE_SIZE_ANNOTATION]) == 0  # Kueue: the slice size divides the podset


def test_kai_podgroups_of_a_segmented_lws_validate():
    # An LWS of size 36 in segments of 18 (subGroupPolicy): KAI's LeaderWorker segments, segment-0 with the
    # leader and 17 workers as children. The exported PodGroup passes the CRD schema and the webhook's rule
    # that every parent names an existing subgroup; each segment (18 pods x 4 GPUs = 72 GPUs) fits one
    # NVL72 rack and is required there by the auto policy.
    from workloadmap import inspect
    from workloadmap.topology import example_cluster

    lws = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "big-serve"},
        "spec": {
            "replicas": 1,
            "leaderWorkerTemplate": {
                "size": 36,
                "subGroupPolicy": {"subGroupSize": 18},
                "workerTemplate": {
                    "spec": {"containers": [{"name": "w", "resources": {"limits": {"nvidia.com/gpu": 4}}}]}
                },
            },
        },
    }
    tree = inspect(lws)
    report = place(tree, example_cluster("nvl72-4rack"))
    (podgroup,) = kai_podgroups(tree, report, topology="nvl72-4rack")
    validate(podgroup, "kai-podgroup")
    subgroups = podgroup["spec"]["subGroups"]
    names = {sub["name"] for sub in subgroups}
    assert all(sub.get("parent") in names for sub in subgroups if "parent" in sub)
    segments = {sub["name"]: sub for sub in subgroups if sub["name"].startswith("segment-")}
    # lws_grouper_test.go TestBuildSubGroups_Segmentation_Divisible_LeaderPod: segment-0 holds leader and workers
    # as children and is gated by minSubGroup 2; the other segments take minMember
    gates = {name: (sub.get("minSubGroup"), sub.get("minMember")) for name, sub in segments.items()}
    assert gates == {"segment-0": (2, None), "segment-1": (None, 18)}
    for segment in segments.values():
        assert segment["topologyConstraint"]["requiredTopologyLevel"] == "accelerator.topograph.run/domain"
