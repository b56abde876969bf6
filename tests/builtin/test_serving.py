"""Catalog definitions for Ray jobs/services, serving kinds, Sandbox and AppWrapper.

Expected figures are worked by hand from the operators' documented semantics (KubeRay, KServe,
Knative, NIM operator, Milvus operator, agent-sandbox, AppWrapper) and KAI's pod-grouper rules
(/work/shared/reference/schedulers.md A.4); the comment next to each figure shows the arithmetic.
"""

from __future__ import annotations

import copy

import pytest
import yaml

from helpers import REPO_ROOT, load_fixture
from workloadmap.catalog import load_definition
from workloadmap.errors import WorkloadMapError
from workloadmap.quantities import format_resources

OWNED_DEFINITIONS = (
    "rayjob",
    "rayservice",
    "inferenceservice",
    "llminferenceservice",
    "knative-service",
    "nimservice",
    "nimcache",
    "milvus",
    "sandbox",
    "appwrapper",
)


def leaves(tree) -> dict[str, object]:
    """Pod-bearing components of a tree by name (instance name for multi-instance roles)."""
    found: dict[str, object] = {}
    stack = list(tree.components)
    while stack:
        component = stack.pop()
        if component.has_pod_template:
            assert component.name not in found, f"duplicate leaf {component.name}"
            found[component.name] = component
        stack.extend(component.components)
    return found


def pods_by_leaf(tree) -> dict[str, int]:
    return {name: component.pods for name, component in leaves(tree).items()}


def with_status(resource: dict, status: dict, **spec_changes) -> dict:
    changed = copy.deepcopy(resource)
    changed["status"] = status
    changed.setdefault("spec", {}).update(spec_changes)
    return changed


def condition(type_: str, status: str, reason: str | None = None) -> dict:
    entry = {"type": type_, "status": status}
    if reason is not None:
        entry["reason"] = reason
    return entry


@pytest.mark.parametrize("name", OWNED_DEFINITIONS)
def test_definition_file_is_valid_and_named_after_its_slug(name):
    definition = load_definition(REPO_ROOT / "catalog" / f"{name}.yaml")
    assert definition.name == name
    assert definition.gang.policy, "gang.policy must say whose semantics the rules follow"


# --------------------------------------------------------------------------------------- RayJob
def test_rayjob_k8sjob_mode_counts_cluster_and_default_submitter(inspect_builtin):
    tree = inspect_builtin(load_fixture("ray/rayjob-k8sjob.yaml"))
    # head 1 + gpu-hosts 3 replicas x 2 hosts + parked (suspended) 0 + submitter 1
    assert pods_by_leaf(tree) == {"head": 1, "gpu-hosts": 6, "parked": 0, "submitter": 1}
    assert tree.totals.pods == 8
    assert tree.totals.gpus == 1 + 6 * 4
    submitter = leaves(tree)["submitter"]
    # KubeRay's default submitter: requests cpu 500m, memory 200Mi, no GPU.
    assert format_resources(submitter.pod_resources) == {"cpu": "500m", "memory": "200Mi"}
    assert submitter.gpus_per_pod == 0


def test_rayjob_gang_counts_head_and_min_workers_but_not_submitter(inspect_builtin):
    tree = inspect_builtin(load_fixture("ray/rayjob-k8sjob.yaml"))
    [group] = tree.pod_groups
    assert group.pods == 8  # the submitter joins the PodGroup
    assert group.min_member == 1 + 2 * 2  # head + minReplicas 2 x numOfHosts 2; parked skipped
    assert {sub.name: sub.min_member for sub in group.sub_groups} == {"headgroup": 1, "gpu-hosts": 4}


def test_rayjob_gang_uses_replicas_when_min_replicas_is_zero(inspect_builtin):
    resource = load_fixture("ray/rayjob-k8sjob.yaml")
    resource["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["minReplicas"] = 0
    tree = inspect_builtin(resource)
    assert tree.pod_groups[0].min_member == 1 + 3 * 2


@pytest.mark.parametrize("mode", ["HTTPMode", "InteractiveMode"])
def test_rayjob_http_and_interactive_modes_have_no_submitter(inspect_builtin, mode):
    resource = load_fixture("ray/rayjob-k8sjob.yaml")
    resource["spec"]["submissionMode"] = mode
    tree = inspect_builtin(resource)
    assert "submitter" not in leaves(tree)
    assert tree.totals.pods == 7
    assert format_resources(leaves(tree)["head"].pod_resources)["cpu"] == "2"


def test_rayjob_submitter_pod_template_replaces_the_default(inspect_builtin):
    resource = load_fixture("ray/rayjob-k8sjob.yaml")
    resource["spec"]["submitterPodTemplate"] = {
        "spec": {"restartPolicy": "Never", "containers": [{"name": "submit", "resources": {"requests": {"cpu": "1"}}}]}
    }
    tree = inspect_builtin(resource)
    assert format_resources(leaves(tree)["submitter"].pod_resources) == {"cpu": "1"}


def test_rayjob_sidecar_mode_adds_submitter_container_to_head(inspect_builtin):
    tree = inspect_builtin(load_fixture("ray/rayjob-sidecar.yaml"))
    assert pods_by_leaf(tree) == {"head": 1, "cpu": 2}
    # head 2 cpu / 4Gi + sidecar submitter 500m / 200Mi
    assert format_resources(leaves(tree)["head"].pod_resources) == {"cpu": "2500m", "memory": "4296Mi"}
    [group] = tree.pod_groups
    assert group.min_member == 1 + 2  # minReplicas absent -> replicas 2


def test_rayjob_with_cluster_selector_is_only_the_submitter(inspect_builtin):
    resource = {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {"name": "on-existing"},
        "spec": {"entrypoint": "python x.py", "clusterSelector": {"ray.io/cluster": "shared"}},
    }
    tree = inspect_builtin(resource)
    assert pods_by_leaf(tree) == {"submitter": 1}
    assert [group.min_member for group in tree.pod_groups] == [1]


@pytest.mark.parametrize(
    "status, spec_changes, phase",
    [
        ({"jobDeploymentStatus": "Initializing"}, {}, "Initializing"),
        ({"jobDeploymentStatus": "Running", "jobStatus": "PENDING"}, {}, "Initializing"),
        ({"jobDeploymentStatus": "Running", "jobStatus": "RUNNING"}, {}, "Running"),
        ({"jobDeploymentStatus": "Complete", "jobStatus": "SUCCEEDED"}, {}, "Completed"),
        ({"jobDeploymentStatus": "Running", "jobStatus": "FAILED"}, {}, "Failed"),
        ({"jobDeploymentStatus": "Failed"}, {}, "Failed"),
        ({"jobDeploymentStatus": "Suspended"}, {"suspend": True}, "Suspended"),
        # Resume asked (suspend false), controller still Suspended: Resuming.
        ({"jobDeploymentStatus": "Suspended"}, {"suspend": False}, "Resuming"),
        # Cluster up and job submitted, no Ray job status yet: Initializing (the recordings say Undefined).
        ({"jobDeploymentStatus": "Running"}, {}, "Initializing"),
        ({"jobDeploymentStatus": "Suspending"}, {"suspend": True}, "Suspending"),
    ],
)
def test_rayjob_status(inspect_builtin, status, spec_changes, phase):
    resource = with_status(load_fixture("ray/rayjob-k8sjob.yaml"), status, **spec_changes)
    assert inspect_builtin(resource).phase == phase


# ----------------------------------------------------------------------------------- RayService
def test_rayservice_clamps_replicas_and_gangs_at_min_replicas(inspect_builtin):
    tree = inspect_builtin(load_fixture("ray/rayservice.yaml"))
    # replicas 5 clamped to maxReplicas 3; no submitter for a RayService
    assert pods_by_leaf(tree) == {"head": 1, "gpu": 3}
    assert tree.totals.gpus == 3 * 2
    [group] = tree.pod_groups
    assert (group.min_member, group.pods) == (1 + 1, 4)
    assert {sub.name: sub.min_member for sub in group.sub_groups} == {"headgroup": 1, "gpu": 1}


@pytest.mark.parametrize(
    "conditions, phase",
    [
        ([condition("Ready", "True", "NonZeroServeEndpoints")], "Running"),
        ([condition("Ready", "False", "Initializing")], "Initializing"),
        ([condition("Ready", "False", "ZeroServeEndpoints")], "Degraded"),
        ([condition("Ready", "False", "InitializingTimeout")], "Failed"),
    ],
)
def test_rayservice_status(inspect_builtin, conditions, phase):
    resource = with_status(load_fixture("ray/rayservice.yaml"), {"conditions": conditions})
    assert inspect_builtin(resource).phase == phase


def test_rayservice_status_before_conditions_existed(inspect_builtin):
    resource = with_status(load_fixture("ray/rayservice.yaml"), {"serviceStatus": "Running"})
    assert inspect_builtin(resource).phase == "Running"


# ----------------------------------------------------------------------------- InferenceService
def test_inferenceservice_roles_replicas_and_default_grouper(inspect_builtin):
    tree = inspect_builtin(load_fixture("serving/inferenceservice.yaml"))
    # predictor minReplicas 2; transformer minReplicas 0 still starts at 1; explainer default 1
    assert pods_by_leaf(tree) == {"predictor": 2, "transformer": 1, "explainer": 1}
    predictor = leaves(tree)["predictor"]
    assert (predictor.min_replicas, predictor.max_replicas) == (2, 4)
    assert leaves(tree)["transformer"].min_replicas == 0
    # model container (requests default to limits: 8 cpu, 32Gi) + log-shipper sidecar (100m, 64Mi)
    assert format_resources(predictor.pod_resources)["cpu"] == "8100m"
    assert format_resources(predictor.pod_resources)["memory"] == "32832Mi"
    assert tree.totals.gpus == 2 * 2
    assert [(group.min_member, group.pods) for group in tree.pod_groups] == [(1, 4)]


def test_inferenceservice_framework_key_is_the_model_container(inspect_builtin):
    resource = load_fixture("serving/inferenceservice.yaml")
    predictor = resource["spec"]["predictor"]
    predictor["pytorch"] = predictor.pop("model")
    del predictor["containers"]
    tree = inspect_builtin(resource)
    assert leaves(tree)["predictor"].gpus_per_pod == 2
    assert format_resources(leaves(tree)["predictor"].pod_resources)["cpu"] == "8"


def test_inferenceservice_initial_scale_annotation_raises_the_start(inspect_builtin):
    resource = load_fixture("serving/inferenceservice.yaml")
    resource["spec"]["transformer"]["annotations"] = {"autoscaling.knative.dev/initial-scale": "3"}
    tree = inspect_builtin(resource)
    assert leaves(tree)["transformer"].pods == 3


def test_inferenceservice_multinode_adds_pipeline_workers(inspect_builtin):
    tree = inspect_builtin(load_fixture("serving/inferenceservice-multinode.yaml"))
    # head predictor 1 + (pipelineParallelSize 3 - 1) workers, 4 GPUs each
    assert pods_by_leaf(tree) == {"predictor": 1, "worker": 2}
    assert tree.totals.gpus == 12


def test_inferenceservice_stop_annotation_runs_no_pods(inspect_builtin):
    resource = load_fixture("serving/inferenceservice.yaml")
    resource["metadata"]["annotations"] = {"serving.kserve.io/stop": "true"}
    tree = inspect_builtin(resource)
    assert tree.totals.pods == 0
    assert tree.pod_groups == []


@pytest.mark.parametrize(
    "conditions, phase",
    [
        ([condition("Ready", "True"), condition("Stopped", "False")], "Running"),
        ([condition("Ready", "False", "RevisionMissing"), condition("Stopped", "False")], "Failed"),
        ([condition("Ready", "False", "Stopped"), condition("Stopped", "True")], "Suspended"),
        # Ready=Unknown while the revision comes up (Knative's convention; the recordings say Undefined).
        ([condition("Ready", "Unknown", "RevisionMissing")], "Initializing"),
    ],
)
def test_inferenceservice_status(inspect_builtin, conditions, phase):
    resource = with_status(load_fixture("serving/inferenceservice.yaml"), {"conditions": conditions})
    assert inspect_builtin(resource).phase == phase


# -------------------------------------------------------------------------- LLMInferenceService
def test_llminferenceservice_multinode_prefill_and_scheduler(inspect_builtin):
    tree = inspect_builtin(load_fixture("serving/llminferenceservice-multinode.yaml"))
    assert pods_by_leaf(tree) == {
        "main": 2,  # one LWS leader per replica
        "worker": 2 * (4 - 1),  # size = pipeline 4
        "prefill": 3,
        "prefill-worker": 3 * (4 // 2 - 1),  # size = data 4 / dataLocal 2
        "router-scheduler": 2,
    }
    assert tree.totals.gpus == (2 + 6) * 8 + (3 + 3) * 2
    assert [(group.min_member, group.pods) for group in tree.pod_groups] == [(1, 16)]


def test_llminferenceservice_data_parallel_size_is_floored(inspect_builtin):
    resource = load_fixture("serving/llminferenceservice-multinode.yaml")
    resource["spec"]["parallelism"] = {"data": 7, "dataLocal": 2}
    tree = inspect_builtin(resource)
    assert leaves(tree)["worker"].pods == 2 * (7 // 2 - 1)


def test_llminferenceservice_v1alpha2_scaling_and_no_scheduler(inspect_builtin):
    tree = inspect_builtin(load_fixture("serving/llminferenceservice-scaling.yaml"))
    assert pods_by_leaf(tree) == {"main": 2}
    main = leaves(tree)["main"]
    assert (main.min_replicas, main.max_replicas) == (2, 5)


def test_llminferenceservice_default_scheduler_and_existing_pool(inspect_builtin):
    resource = load_fixture("serving/llminferenceservice-scaling.yaml")
    resource["spec"]["router"]["scheduler"] = {}
    assert pods_by_leaf(inspect_builtin(resource))["router-scheduler"] == 1
    resource["spec"]["router"]["scheduler"] = {"pool": {"ref": {"name": "shared-pool"}}}
    assert "router-scheduler" not in leaves(inspect_builtin(resource))


@pytest.mark.parametrize(
    "conditions, phase",
    [
        ([condition("Ready", "True")], "Running"),
        ([condition("Ready", "Unknown")], "Initializing"),
        ([condition("Ready", "False", "Progressing")], "Initializing"),
        ([condition("Ready", "False", "MinimumReplicasUnavailable")], "Initializing"),
        ([condition("Ready", "False", "ReconcileSingleNodeWorkloadError")], "Failed"),
        ([condition("Ready", "Unknown"), condition("PresetsCombined", "False", "ConfigNotFound")], "Failed"),
        ([condition("Ready", "False", "Stopped")], "Suspended"),
    ],
)
def test_llminferenceservice_status(inspect_builtin, conditions, phase):
    resource = with_status(load_fixture("serving/llminferenceservice-scaling.yaml"), {"conditions": conditions})
    assert inspect_builtin(resource).phase == phase


# ------------------------------------------------------------------------------ Knative Service
def test_knative_min_scale_sets_pods_and_gang(inspect_builtin):
    tree = inspect_builtin(load_fixture("serving/knative-service.yaml"))
    revision = leaves(tree)["revision"]
    # max(initial-scale default 1, min-scale 2) = 2 pods; bounds 2..5
    assert (revision.pods, revision.min_replicas, revision.max_replicas) == (2, 2, 5)
    assert tree.totals.gpus == 2
    assert [(group.min_member, group.pods) for group in tree.pod_groups] == [(2, 2)]


def test_knative_initial_scale_without_min_scale(inspect_builtin):
    resource = load_fixture("serving/knative-service.yaml")
    resource["spec"]["template"]["metadata"]["annotations"] = {"autoscaling.knative.dev/initial-scale": "3"}
    tree = inspect_builtin(resource)
    assert leaves(tree)["revision"].pods == 3
    assert leaves(tree)["revision"].max_replicas is None
    assert tree.pod_groups[0].min_member == 1  # KAI: min-scale absent -> 1


def test_knative_non_numeric_min_scale_falls_back_to_one(inspect_builtin):
    resource = load_fixture("serving/knative-service.yaml")
    resource["spec"]["template"]["metadata"]["annotations"] = {"autoscaling.knative.dev/min-scale": "lots"}
    tree = inspect_builtin(resource)
    assert leaves(tree)["revision"].pods == 1
    assert tree.pod_groups[0].min_member == 1


@pytest.mark.parametrize(
    "conditions, phase",
    [
        ([condition("Ready", "True")], "Running"),
        ([condition("Ready", "Unknown", "RevisionMissing")], "Initializing"),
        ([condition("Ready", "False", "RevisionFailed")], "Failed"),
    ],
)
def test_knative_status(inspect_builtin, conditions, phase):
    resource = with_status(load_fixture("serving/knative-service.yaml"), {"conditions": conditions})
    assert inspect_builtin(resource).phase == phase


# -------------------------------------------------------------------------------- NIM operator
def test_nimservice_multinode_is_lws_of_pipeline_size(inspect_builtin):
    tree = inspect_builtin(load_fixture("serving/nimservice-multinode.yaml"))
    # 2 groups x (leader 1 + pipeline 3 - 1 workers), 4 GPUs each
    assert pods_by_leaf(tree) == {"leader": 2, "worker": 4}
    assert tree.totals.gpus == 6 * 4
    assert [(group.min_member, group.pods) for group in tree.pod_groups] == [(1, 6)]


def test_nimservice_single_node_with_hpa_bounds(inspect_builtin):
    resource = load_fixture("serving/nimservice-multinode.yaml")
    del resource["spec"]["multiNode"]
    resource["spec"]["scale"] = {"enabled": True, "hpa": {"minReplicas": 1, "maxReplicas": 4}}
    tree = inspect_builtin(resource)
    nim = leaves(tree)["nimservice"]
    assert (nim.pods, nim.min_replicas, nim.max_replicas, nim.gpus_per_pod) == (2, 1, 4, 4)


@pytest.mark.parametrize(
    "state, phase",
    [("Pending", "Initializing"), ("NotReady", "Initializing"), ("Ready", "Running"), ("Failed", "Failed")],
)
def test_nimservice_status(inspect_builtin, state, phase):
    resource = with_status(load_fixture("serving/nimservice-multinode.yaml"), {"state": state})
    assert inspect_builtin(resource).phase == phase


def test_nimcache_is_one_caching_pod_without_gpu(inspect_builtin):
    tree = inspect_builtin(load_fixture("serving/nimcache.yaml"))
    nimcache = leaves(tree)["nimcache"]
    assert (nimcache.pods, nimcache.gpus_per_pod) == (1, 0)
    assert format_resources(nimcache.pod_resources) == {"cpu": "2", "memory": "8Gi"}
    assert [group.min_member for group in tree.pod_groups] == [1]


@pytest.mark.parametrize("state, phase", [("InProgress", "Running"), ("Ready", "Completed"), ("Failed", "Failed")])
def test_nimcache_status(inspect_builtin, state, phase):
    resource = with_status(load_fixture("serving/nimcache.yaml"), {"state": state})
    assert inspect_builtin(resource).phase == phase


# -------------------------------------------------------------------------------------- Milvus
def test_milvus_cluster_components_and_shared_resources(inspect_builtin):
    tree = inspect_builtin(load_fixture("serving/milvus-cluster.yaml"))
    # listed components only; dataNode -1 (HPA) counts 1, streamingNode {} defaults to 1;
    # etcd 3 / MinIO / Pulsar broker 2 are dependencies, not components
    assert pods_by_leaf(tree) == {"proxy": 2, "mixcoord": 1, "querynode": 3, "datanode": 1, "streamingnode": 1}
    assert format_resources(leaves(tree)["proxy"].pod_resources) == {"cpu": "500m", "memory": "512Mi"}
    assert format_resources(leaves(tree)["mixcoord"].pod_resources) == {"cpu": "1", "memory": "2Gi"}
    assert tree.totals.gpus == 3
    assert [(group.min_member, group.pods) for group in tree.pod_groups] == [(1, 8)]


def test_milvus_standalone_is_the_default_mode(inspect_builtin):
    resource = {
        "apiVersion": "milvus.io/v1beta1",
        "kind": "Milvus",
        "metadata": {"name": "solo"},
        "spec": {"components": {"proxy": {"replicas": 4}}, "dependencies": {"etcd": {"inCluster": {}}}},
    }
    tree = inspect_builtin(resource)
    assert pods_by_leaf(tree) == {"standalone": 1}


@pytest.mark.parametrize(
    "health, phase",
    [("Pending", "Initializing"), ("Healthy", "Running"), ("Unhealthy", "Degraded"), ("Stopped", "Suspended")],
)
def test_milvus_status(inspect_builtin, health, phase):
    resource = with_status(load_fixture("serving/milvus-cluster.yaml"), {"status": health})
    assert inspect_builtin(resource).phase == phase


# ------------------------------------------------------------------------------------- Sandbox
def test_sandbox_runs_one_agent_pod(inspect_builtin):
    tree = inspect_builtin(load_fixture("serving/sandbox.yaml"))
    assert pods_by_leaf(tree) == {"agent": 1}
    assert tree.totals.gpus == 1
    assert [(group.min_member, group.pods) for group in tree.pod_groups] == [(1, 1)]


def test_sandbox_suspended_runs_no_pod(inspect_builtin):
    resource = load_fixture("serving/sandbox.yaml")
    resource["spec"]["operatingMode"] = "Suspended"
    tree = inspect_builtin(resource)
    assert tree.totals.pods == 0
    assert tree.pod_groups == []


def test_sandbox_v1alpha1_replicas_zero_runs_no_pod(inspect_builtin):
    resource = load_fixture("serving/sandbox.yaml")
    resource["apiVersion"] = "agents.x-k8s.io/v1alpha1"
    del resource["spec"]["operatingMode"]
    assert inspect_builtin(resource).totals.pods == 1
    resource["spec"]["replicas"] = 0
    assert inspect_builtin(resource).totals.pods == 0


@pytest.mark.parametrize(
    "mode, conditions, phase",
    [
        ("Running", [condition("Ready", "False"), condition("Suspended", "False")], "Initializing"),
        ("Running", [condition("Ready", "True"), condition("Suspended", "False")], "Running"),
        ("Suspended", [condition("Ready", "True"), condition("Suspended", "False")], "Suspending"),
        ("Suspended", [condition("Ready", "False"), condition("Suspended", "True")], "Suspended"),
        ("Running", [condition("Ready", "False"), condition("Suspended", "True")], "Resuming"),
    ],
)
def test_sandbox_status(inspect_builtin, mode, conditions, phase):
    resource = with_status(load_fixture("serving/sandbox.yaml"), {"conditions": conditions}, operatingMode=mode)
    assert inspect_builtin(resource).phase == phase


# ---------------------------------------------------------------------------------- AppWrapper
def test_appwrapper_expands_each_wrapped_object_by_its_kind(inspect_builtin):
    tree = inspect_builtin(load_fixture("serving/appwrapper.yaml"))
    # Deployment 3 replicas x 2 GPUs; Job min(parallelism 2, completions 4) = 2 pods x 1 GPU
    assert [component.name for component in tree.components] == ["api", "batch"]
    assert pods_by_leaf(tree) == {"deployment": 3, "job": 2}
    assert tree.totals.gpus == 3 * 2 + 2 * 1
    # KAI's owner walk ends at the unregistered AppWrapper: default grouper, minMember 1
    assert [(group.min_member, group.pods, group.sub_groups) for group in tree.pod_groups] == [(1, 5, [])]


def test_appwrapper_with_an_unknown_wrapped_kind_is_a_one_line_error(inspect_builtin):
    resource = load_fixture("serving/appwrapper.yaml")
    resource["spec"]["components"][0]["template"] = {
        "apiVersion": "example.com/v1",
        "kind": "Mystery",
        "metadata": {"name": "m"},
        "spec": {},
    }
    with pytest.raises(WorkloadMapError) as raised:
        inspect_builtin(resource)
    assert "Mystery" in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize(
    "phase_value, conditions, phase",
    [
        ("Suspended", [], "Suspended"),
        ("Resuming", [], "Resuming"),
        ("Running", [condition("PodsReady", "False")], "Initializing"),
        ("Running", [condition("PodsReady", "True")], "Running"),
        ("Running", [condition("PodsReady", "True"), condition("Unhealthy", "True")], "Degraded"),
        ("Succeeded", [], "Completed"),
        ("Failed", [], "Failed"),
    ],
)
def test_appwrapper_status(inspect_builtin, phase_value, conditions, phase):
    resource = with_status(load_fixture("serving/appwrapper.yaml"), {"phase": phase_value, "conditions": conditions})
    assert inspect_builtin(resource).phase == phase


# ------------------------------------------------------------------------- corpus conformance
CORPUS_DIRECTORIES = (
    "rayjob",
    "rayservice",
    "inferenceservice",
    "llminferenceservice",
    "knative-service",
    "nimservice",
    "milvus",
    "appwrapper",
)


def _expected_entries() -> list[dict]:
    data = yaml.safe_load((REPO_ROOT / "tests" / "data" / "corpus_expected.yaml").read_text())
    return [entry for entry in data if entry["file"].split("/")[0] in CORPUS_DIRECTORIES]


@pytest.mark.parametrize("entry", _expected_entries(), ids=lambda entry: entry["file"])
def test_corpus_manifest_matches_expected_figures(corpus_dir, builtin_catalog, entry):
    from workloadmap.interpreter import inspect_file

    results = [result for result in inspect_file(str(corpus_dir / entry["file"]), catalog=builtin_catalog)]
    errors = [str(result.error) for result in results if result.error]
    assert not errors
    trees = [result.tree for result in results if result.tree is not None]
    assert len(trees) == len(entry["documents"])
    for tree, expected in zip(trees, entry["documents"], strict=False):
        assert (tree.workload.kind, tree.workload.name) == (expected["kind"], expected["name"])
        assert tree.totals.pods == expected["pods"]
        assert tree.totals.gpus == expected["gpus"]
        found = leaves(tree)
        assert {
            name: (component.pods, component.gpus_per_pod) for name, component in found.items() if component.pods
        } == {name: (figures["pods"], figures["gpusPerPod"]) for name, figures in expected["components"].items()}
        assert [
            (group.min_member, [(sub.name, sub.min_member) for sub in group.sub_groups]) for group in tree.pod_groups
        ] == [
            (group["minMember"], [(sub["name"], sub["minMember"]) for sub in group["subGroups"]])
            for group in expected["podGroups"]
        ]
