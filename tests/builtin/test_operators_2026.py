"""What the operators' controllers create in late 2026: the kinds and fields the catalog now follows.

Expected figures are worked out from each operator's code or docs, cited per case; the fixtures are
written for these tests (each names the upstream example it is modelled on, if any).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import yaml

from helpers import BAD_FIXTURES_DIR, FIXTURES_DIR
from workloadmap import inspect_file
from workloadmap.interpreter import ObjectIndex

MIB = 2**20
GIB = 2**30


def _trees(path, related=None):
    results = inspect_file(str(path), related=ObjectIndex.from_paths([str(related)]) if related else None)
    assert [str(result.error) for result in results if result.error] == []
    return {result.tree.workload.name: result.tree for result in results if result.tree}


def _pods(tree):
    return {c.name: (c.pods, c.pod_resources) for c in tree.walk() if c.has_pod_template}


# ------------------------------------------------------------------------------------------------ Spark


def test_spark_memory_spark_refuses_is_a_located_error_with_the_accepted_forms(wmap):
    # apache/spark JavaUtils.byteStringAs: "512Mi" has the suffix "mi", which Spark rejects ("Invalid suffix");
    # the error names the field and what Spark accepts, never a JMESPath function error (add() on null).
    result = wmap("inspect", str(BAD_FIXTURES_DIR / "sparkapplication-memory-kubernetes-unit.yaml"))
    assert result.exit_code == 1
    [error] = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert "document #1 (SparkApplication/spark-pi), field spec.driver.memory: '512Mi' is not accepted" in error
    assert "512m = 512 MiB" in error and "Kubernetes quantities such as 512Mi" in error
    assert "add()" not in error and "invalid type" not in error and "Traceback" not in result.output


def test_spark_connect_server_and_executors():
    # internal/controller/sparkconnect/reconciler.go mutateServerPod: the server pod is server.template's (1 cpu /
    # 1Gi); options.go executorConfOption: 2 executors of 1 core and 512m, whose pods Spark sizes 512 MiB +
    # max(0.1 x 512 MiB, 384 MiB) = 896Mi (pkg/common/spark.go memory overhead, JVM factor 0.1).
    trees = _trees(FIXTURES_DIR / "spark" / "sparkconnect.yaml")
    tree = trees["spark-connect"]
    assert _pods(tree) == {"server": (1, {"cpu": 1, "memory": GIB}), "executor": (2, {"cpu": 1, "memory": 896 * MIB})}
    assert [group.min_member for group in tree.pod_groups] == [1]
    # Spark's defaults: a containerless server template gets spark-kubernetes-driver (no requests); 2 executors of
    # 1 core and 1g (1024 + 384 MiB overhead).
    defaults = trees["spark-connect-defaults"]
    assert _pods(defaults) == {"server": (1, {}), "executor": (2, {"cpu": 1, "memory": 1408 * MIB})}


def test_spark_connect_memory_spark_refuses_is_an_error(tmp_path):
    path = tmp_path / "conn.yaml"
    path.write_text(
        "apiVersion: sparkoperator.k8s.io/v1alpha1\nkind: SparkConnect\nmetadata: {name: c}\n"
        "spec: {sparkVersion: 4.0.4, server: {}, executor: {memory: 1.5g}}\n"
    )
    [result] = inspect_file(str(path))
    assert "field spec.executor.memory: '1.5g' is not accepted" in str(result.error)


def test_spark_connect_dynamic_allocation_starts_at_spark_s_initial_target():
    # Spark's ExecutorAllocationManager starts max(initialExecutors, minExecutors, instances) executors and keeps
    # between minExecutors and maxExecutors; 4g + max(0.1 x 4096, 384) MiB = 4505Mi per executor.
    tree = _trees(FIXTURES_DIR / "spark" / "sparkconnect.yaml")["spark-connect-dynamic"]
    executor = next(c for c in tree.walk() if c.name == "executor")
    assert (executor.replicas, executor.min_replicas, executor.max_replicas) == (3, 1, 10)
    assert executor.pod_resources == {"cpu": 2, "memory": 4505 * MIB}


# ------------------------------------------------------------------------------------ KServe llm-d

TOKENIZER = FIXTURES_DIR / "serving" / "llmisvc-tokenizer"


def test_llminferenceservice_token_producer_runs_a_standalone_tokenizer():
    # kserve/kserve pkg/controller/v1alpha2/llmisvc/tokenizer.go expectedTokenizerDeployment: one Deployment
    # <name>-tokenizer, replicas fixed at 1, its pod from config/llmisvcconfig/config-llm-tokenizer.yaml (main:
    # requests cpu 1 / 4Gi); the EPP from config-llm-scheduler.yaml (main: requests cpu 1 / 2Gi); the workload pods
    # from the sample llm-inference-service-qwen2-7b-gpu-kv-cache-routing.yaml (2 replicas, cpu 2 / 16Gi / 1 GPU).
    trees = _trees(TOKENIZER / "service.yaml", related=TOKENIZER / "presets.yaml")
    tree = trees["qwen2-7b-kv-cache-routing"]
    assert _pods(tree) == {
        "main": (2, {"cpu": 2, "memory": 16 * GIB, "nvidia.com/gpu": 1}),
        "router-scheduler": (1, {"cpu": 1, "memory": 2 * GIB}),
        "tokenizer": (1, {"cpu": 1, "memory": 4 * GIB}),
    }
    assert (tree.totals.pods, tree.totals.gpus) == (4, 2)
    assert tree.warnings == []
    # An existing InferencePool (pool.ref): neither EPP nor tokenizer (tokenizer.go shouldDeleteTokenizer).
    assert set(_pods(trees["shared-pool"])) == {"main"}
    # router.scheduler.tokenizer.template over the preset: the service's cpu 2 wins, the preset's memory stays
    # (config_merge.go mergeSpecs, the service's spec over its configs).
    assert _pods(trees["own-tokenizer"])["tokenizer"] == (1, {"cpu": 2, "memory": 4 * GIB})


def test_llminferenceservice_tokenizer_without_its_preset_is_one_pod_and_a_warning():
    tree = _trees(TOKENIZER / "service.yaml")["qwen2-7b-kv-cache-routing"]
    assert _pods(tree)["tokenizer"] == (1, {})
    assert any("kserve-config-llm-tokenizer is not in the input" in warning for warning in tree.warnings)


_MAIN_ARGS = "{containers: [{name: main, args: [--config-text, %s]}]}"


@pytest.mark.parametrize(
    "scheduler, enabled",
    [
        # kserve/kserve pkg/controller/v1alpha2/llmisvc/tokenizer_test.go TestIsTokenizerEnabled, case by case
        ("{tokenizer: {}}", True),  # "tokenizer field explicitly set"
        ("{tokenizer: {template: {}}}", True),  # "tokenizer field with template"
        (
            "{config: {inline: {plugins: [{type: token-producer}, {type: precise-prefix-cache-producer}]}}}",
            True,
        ),  # "token-producer plugin present"
        ("{config: {inline: {plugins: [{type: precise-prefix-cache-scorer}]}}}", True),  # "legacy ... present"
        ("{config: {inline: {plugins: [{type: prefix-cache-scorer}]}}}", False),  # "no tokenizer, no ..."
        ("{template: %s}" % (_MAIN_ARGS % '\'{"plugins":[{"type":"token-producer"}]}\''), True),  # via args
        (
            "{template: %s}" % (_MAIN_ARGS % '\'{"plugins":[{"type":"precise-prefix-cache-scorer"}]}\''),
            True,
        ),  # "legacy precise-prefix-cache-scorer present via template args"
        (
            "{config: {inline: {plugins: [{type: prefix-cache-scorer}]}}, template: %s}"
            % (_MAIN_ARGS % '\'{"plugins":[{"type":"token-producer"}]}\''),
            False,
        ),  # "config.inline takes priority over template args when both are present"
        (
            "{template: {containers: [{name: main, args: [--config-file, /etc/epp/config.yaml]}]}}",
            False,
        ),  # "config-file flag in template args is not treated as inline plugin source"
        ("{}", False),  # "empty scheduler, no config"
    ],
)
def test_llminferenceservice_tokenizer_is_enabled_as_kserve_decides(inspect_builtin, scheduler, enabled):
    resource = {
        "apiVersion": "serving.kserve.io/v1alpha2",
        "kind": "LLMInferenceService",
        "metadata": {"name": "my-llm"},
        "spec": {"model": {"uri": "hf://facebook/opt-125m"}, "router": {"scheduler": yaml.safe_load(scheduler)}},
    }
    tree = inspect_builtin(resource)
    assert ("tokenizer" in {c.name for c in tree.walk() if c.pods}) is enabled
    # The force-stop annotation scales it to none (tokenizer.go shouldDeleteTokenizer: GetForceStopRuntime).
    resource["metadata"]["annotations"] = {"serving.kserve.io/stop": "true"}
    assert "tokenizer" not in {c.name for c in inspect_builtin(resource).walk() if c.pods}


def test_llminferenceservice_no_router_or_scheduler_runs_no_tokenizer(inspect_builtin):
    # TestIsTokenizerEnabled "nil router" and "nil scheduler"
    for spec in ({}, {"router": {}}):
        resource = {"apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceService"}
        resource |= {"metadata": {"name": "my-llm"}, "spec": {"model": {"uri": "hf://m"}, **spec}}
        assert "tokenizer" not in {c.name for c in inspect_builtin(resource).walk()}


def test_llminferenceservice_latency_predictor_adds_sidecars_to_the_epp_pod_not_a_pod():
    # scheduler_latency_predictor.go hasLatencyProducerInSpec -> config_merge.go merges
    # config-llm-scheduler-latency-predictor.yaml: training-server (2 cpu / 4Gi) and prediction-server (8 cpu / 4Gi)
    # beside the EPP's main (1 cpu / 2Gi): one pod of 11 cpu / 10Gi; no tokenizer (no token-producer).
    tree = _trees(TOKENIZER / "service.yaml", related=TOKENIZER / "presets.yaml")["latency-routing"]
    assert _pods(tree) == {
        "main": (1, {"nvidia.com/gpu": 1}),
        "router-scheduler": (1, {"cpu": 11, "memory": 10 * GIB}),
    }


# ------------------------------------------------------------------------------------------ KubeRay


def _ray_cluster_spec(**spec):
    head = {
        "containers": [
            {
                "name": "ray-head",
                "image": "rayproject/ray:2.52.0",
                "resources": {"requests": {"cpu": "1", "memory": "2Gi"}},
            }
        ]
    }
    worker = {"containers": [{"name": "ray-worker", "resources": {"requests": {"cpu": "1"}}}]}
    return {
        "headGroupSpec": {"rayStartParams": {}, "template": {"spec": head}},
        "workerGroupSpecs": [
            {"groupName": "small-group", "replicas": 1, "minReplicas": 1, "template": {"spec": worker}}
        ],
        **spec,
    }


def test_raycluster_in_tree_autoscaling_adds_the_autoscaler_to_the_head_pod(inspect_builtin):
    # ray-operator/controllers/ray/common/pod.go DefaultHeadPodTemplate appends BuildAutoscalerContainer (requests =
    # limits = 500m / 512Mi) when IsAutoscalingEnabled; the head pod asks 1 + 0.5 cpu and 2Gi + 512Mi.
    resource = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "rc"}}
    resource["spec"] = _ray_cluster_spec(enableInTreeAutoscaling=True)
    head = next(c for c in inspect_builtin(resource).walk() if c.name == "head")
    assert head.pod_resources == {"cpu": Fraction(3, 2), "memory": 2 * GIB + 512 * MIB}
    # autoscalerOptions.resources replaces the container's resources whole (mergeAutoscalerOverrides;
    # pod_test.go TestBuildPodWithAutoscalerOptions: requests cpu 1).
    resource["spec"]["autoscalerOptions"] = {"resources": {"requests": {"cpu": "1"}}}
    head = next(c for c in inspect_builtin(resource).walk() if c.name == "head")
    assert head.pod_resources == {"cpu": 2, "memory": 2 * GIB}
    # Off (the default, utils.IsAutoscalingEnabled: nil or false): the head pod is the template's.
    resource["spec"]["enableInTreeAutoscaling"] = False
    head = next(c for c in inspect_builtin(resource).walk() if c.name == "head")
    assert head.pod_resources == {"cpu": 1, "memory": 2 * GIB}


def test_rayjob_and_rayservice_clusters_get_the_autoscaler_too(inspect_builtin):
    job = {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "j"}}
    job["spec"] = {"entrypoint": "python x.py", "submissionMode": "SidecarMode"}
    job["spec"]["rayClusterSpec"] = _ray_cluster_spec(enableInTreeAutoscaling=True)
    head = next(c for c in inspect_builtin(job).walk() if c.name == "head")
    # ray container 1 cpu / 2Gi + the SidecarMode submitter 500m / 200Mi + the autoscaler 500m / 512Mi
    assert head.pod_resources == {"cpu": 2, "memory": 2 * GIB + 712 * MIB}
    service = {"apiVersion": "ray.io/v1", "kind": "RayService", "metadata": {"name": "s"}}
    service["spec"] = {"rayClusterConfig": _ray_cluster_spec(enableInTreeAutoscaling=True)}
    head = next(c for c in inspect_builtin(service).walk() if c.name == "head")
    assert head.pod_resources == {"cpu": Fraction(3, 2), "memory": 2 * GIB + 512 * MIB}


# ---------------------------------------------------------------------------- KServe serving runtimes

RUNTIMES = FIXTURES_DIR / "serving" / "isvc-runtimes"


def test_inferenceservice_model_format_runs_the_shipped_runtime_s_container():
    # pkg/controller/v1beta1/inferenceservice/components/predictor.go reconcileModel: the runtime's kserve-container
    # (config/runtimes/kserve-sklearnserver.yaml: requests = limits = cpu 1 / 2Gi) under the model container.
    trees = _trees(RUNTIMES / "services.yaml", related=RUNTIMES / "runtimes.yaml")
    assert _pods(trees["sklearn-iris"]) == {"predictor": (1, {"cpu": 1, "memory": 2 * GIB})}
    # The legacy sklearn key is predictor.model with modelFormat sklearn after KServe's webhook
    # (inference_service_defaults.go setPredictorModelDefaults).
    assert _pods(trees["sklearn-legacy"]) == {"predictor": (1, {"cpu": 1, "memory": 2 * GIB})}
    # Resources merge key by key, the model's winning (container_merge_test.go TestMergeContainerWithPatch;
    # utils_test.go TestMergeServingRuntimeAndInferenceServiceSpecs): huggingface's 6 cpu / 24Gi / 1 GPU over 1 / 2Gi.
    llama = trees["huggingface-llama"]
    assert _pods(llama) == {"predictor": (1, {"cpu": 6, "memory": 24 * GIB, "nvidia.com/gpu": 1})}
    assert all(tree.warnings == [] for name, tree in trees.items() if name != "own-runtime")


def test_inferenceservice_protocol_v2_selects_mlserver_for_sklearn():
    # predictor_model.go GetSupportingRuntimes: of the shipped runtimes serving sklearn with protocol v2,
    # kserve-mlserver (priority 2) sorts before kserve-sklearnserver (priority 1) (sortSupportedRuntimeByPriority;
    # predictor_model_test.go TestGetSupportingRuntimes "MultipleRuntimeSupportsModelFormatSpecified").
    tree = _trees(RUNTIMES / "services.yaml")["sklearn-v2"]
    assert any("ClusterServingRuntime/kserve-mlserver is not in the input" in warning for warning in tree.warnings)
    # The default protocol v1 (GetProtocol): the sklearn runtime alone (TestGetSupportingRuntimes
    # "SMSRuntimeModelFormatSpecified"); mlserver serves v2 only.
    tree = _trees(RUNTIMES / "services.yaml")["sklearn-iris"]
    assert any("ClusterServingRuntime/kserve-sklearnserver is not" in warning for warning in tree.warnings)


def test_inferenceservice_named_runtime_is_a_namespaced_serving_runtime_first():
    # utils.go GetServingRuntime: ServingRuntime my-runtime in the namespace; its kserve-container (cpu 2 / 4Gi) under
    # the model's memory 8Gi, its agent container (100m) beside it, its nodeSelector beneath the predictor's.
    tree = _trees(RUNTIMES / "services.yaml", related=RUNTIMES / "runtimes.yaml")["own-runtime"]
    predictor = next(c for c in tree.walk() if c.name == "predictor")
    assert predictor.pod_resources == {"cpu": Fraction(21, 10), "memory": 8 * GIB}
    assert dict(predictor.scheduling.node_selector) == {"pool": "inference"}
    assert tree.warnings == []
    alone = _trees(RUNTIMES / "services.yaml")["own-runtime"]
    assert any("ServingRuntime/my-runtime is not in the input" in warning for warning in alone.warnings)


# ------------------------------------------------------------------------------------------ Trainer


def _train_job(runtime_spec, **trainer):
    runtime = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime"}
    runtime |= {"metadata": {"name": "rt"}, "spec": runtime_spec}
    job = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "tj"}}
    job["spec"] = {"runtimeRef": {"name": "rt"}, "trainer": trainer}
    return job, ObjectIndex([runtime])


_PLAIN_TEMPLATE = {
    "template": {
        "spec": {
            "replicatedJobs": [
                {
                    "name": "node",
                    "template": {
                        "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                        "spec": {
                            "template": {
                                "spec": {
                                    "containers": [
                                        {"name": "node", "resources": {"limits": {"cpu": "2", "nvidia.com/gpu": 1}}}
                                    ]
                                }
                            }
                        },
                    },
                }
            ]
        }
    }
}


def test_trainjob_num_nodes_applies_without_an_ml_policy(inspect_builtin):
    # kubeflow/trainer pkg/runtime/framework/plugins/plainml/plainml.go EnforceMLPolicy (v2.3): with no torch / mpi /
    # jax policy -- here no mlPolicy at all -- "TrainJob contains the actual information for the number of nodes":
    # the trainer PodSet count is numNodes (jobset.go syncParallelCount makes it parallelism = completions).
    job, related = _train_job(_PLAIN_TEMPLATE, numNodes=3, resourcesPerNode={"limits": {"nvidia.com/gpu": 4}})
    tree = inspect_builtin(job, related=related)
    [node] = [c for c in tree.walk() if c.name == "node"]
    # resourcesPerNode is not applied without an mlPolicy (trainingruntime.go newRuntimeInfo: isTrainerAncestor
    # needs mlPolicy != nil): each pod keeps the runtime's 1 GPU.
    assert (node.pods, node.gpus) == (3, 3)


def test_trainjob_resources_per_node_merge_key_by_key_with_an_ml_policy(inspect_builtin):
    # trainingruntime.go newRuntimeInfo -> pkg/util/trainingruntime MergeResourceRequirements: "Limits and requests
    # merge per-key": the runtime's cpu limit 2 stays beside resourcesPerNode's GPU limit 4.
    spec = {"mlPolicy": {"numNodes": 1}, **_PLAIN_TEMPLATE}
    job, related = _train_job(spec, numNodes=2, resourcesPerNode={"limits": {"nvidia.com/gpu": 4}})
    [node] = [c for c in inspect_builtin(job, related=related).walk() if c.name == "node"]
    assert (node.pods, node.pod_resources) == (2, {"cpu": 2, "nvidia.com/gpu": 4})
    # Without numNodes on the TrainJob: mlPolicy.numNodes (newRuntimeInfo count = mlPolicy.NumNodes).
    job, related = _train_job(spec)
    [node] = [c for c in inspect_builtin(job, related=related).walk() if c.name == "node"]
    assert node.pods == 1


# ------------------------------------------------------------------------------ KServe non-workloads


def test_kserve_model_caches_and_trained_models_are_skipped_with_a_note(wmap):
    # LocalModelCache: the localmodelnode agent's download Jobs (kserve/kserve pkg/controller/v1alpha1/localmodelnode/
    # controller.go launchJob) belong to the cache; TrainedModel: trainedmodel/controller.go only writes the model
    # into the InferenceService's model ConfigMap. Neither is a workload: skipped, exit 0, never "no definition".
    result = wmap("inspect", str(FIXTURES_DIR / "companions" / "kserve-model-caches.yaml"))
    assert result.exit_code == 0, result.output
    assert "skipped LocalModelCache" in result.stderr and "skipped TrainedModel" in result.stderr
    assert "triton-mms" in result.stdout


# --------------------------------------------------------------------------------- new kinds (1)


def test_raycronjob_shows_one_run_of_its_rayjob():
    # raycronjob_controller.go constructRayJob: one RayJob per tick, spec = jobTemplate; the RayJob's cluster (head
    # 200m / 2Gi, small-group 1 x 200m) and its default K8sJobMode submitter (500m / 200Mi, rayjob_controller.go).
    tree = _trees(FIXTURES_DIR / "ray" / "raycronjob.yaml")["raycronjob-sample"]
    pods = _pods(tree)
    assert pods["head"] == (1, {"cpu": Fraction(1, 5), "memory": 2 * GIB})
    assert pods["small-group"] == (1, {"cpu": Fraction(1, 5)})
    assert pods["submitter"] == (1, {"cpu": Fraction(1, 2), "memory": 200 * MIB})
    assert tree.totals.pods == 3
    # Not registered in KAI's pod-grouper: the default grouper's one PodGroup of minMember 1.
    assert [group.min_member for group in tree.pod_groups] == [1]


@pytest.mark.parametrize(
    "spec_change, status, phase",
    [
        ({}, None, "Undefined"),  # no status yet: not seen by the controller (as the CronWorkflow frames)
        ({}, {"lastScheduleTime": "2026-09-01T10:01:00Z"}, "Running"),
        ({"suspend": True}, {"lastScheduleTime": "2026-09-01T10:01:00Z"}, "Suspended"),
    ],
)
def test_raycronjob_status(inspect_builtin, spec_change, status, phase):
    # raycronjob_controller.go writes status.lastScheduleTime only; spec.suspend stops new runs.
    [document] = [r for r in yaml.safe_load_all((FIXTURES_DIR / "ray" / "raycronjob.yaml").read_text())]
    document["spec"].update(spec_change)
    if status:
        document["status"] = status
    assert inspect_builtin(document).phase == phase


def test_inferencegraph_is_one_router_pod():
    # kserve/kserve pkg/controller/v1alpha1/inferencegraph/knative_reconciler.go constructResourceRequirements: the
    # router defaults of config/configmap/inferenceservice.yaml (requests 100m / 100Mi); raw_ig.go: minReplicas,
    # at least 1 (hpa_reconciler.go DefaultMinReplicas).
    trees = _trees(FIXTURES_DIR / "serving" / "inferencegraph-sequence.yaml")
    assert _pods(trees["model-chainer"]) == {"router": (1, {"cpu": Fraction(1, 10), "memory": 100 * MIB})}
    # spec.resources, when set, is used whole; minReplicas 2 pods.
    sized = trees["sized-chainer"]
    assert _pods(sized) == {"router": (2, {"cpu": Fraction(1, 2), "memory": 512 * MIB})}
    router = next(c for c in sized.walk() if c.name == "router")
    assert (router.min_replicas, router.max_replicas) == (2, 4)


@pytest.mark.parametrize(
    "conditions, phase",
    [
        ([{"type": "Ready", "status": "True"}], "Running"),
        ([{"type": "Ready", "status": "Unknown"}], "Initializing"),
        ([{"type": "Ready", "status": "False"}], "Failed"),
        ([{"type": "Ready", "status": "False"}, {"type": "Stopped", "status": "True"}], "Suspended"),
    ],
)
def test_inferencegraph_status(inspect_builtin, conditions, phase):
    # inferencegraph/controller.go: Ready from the router Deployment (PropagateRawStatus) or the Knative Service;
    # the stop annotation sets Stopped True (StoppedISVCReason).
    [graph] = list(yaml.safe_load_all((FIXTURES_DIR / "serving" / "inferencegraph-sequence.yaml").read_text()))[:1]
    graph["status"] = {"conditions": conditions}
    assert inspect_builtin(graph).phase == phase


# ------------------------------------------------------------------------------------------- Dynamo


def test_dynamo_device_resources_are_the_main_container_s_requests_and_limits():
    # ai-dynamo/dynamo deploy/operator/internal/dynamo/device.go applyDeviceSpec: each device.resources key is set
    # as limit and request of containers[0] ("device.resources is authoritative"); nodeSelector added, the pod
    # template's keys winning. disagg_hami.yaml's workers: 1 GPU, 3000 gpumem, 50 gpucores, plus 2Gi
    # ephemeral-storage requested by the template; the frontend has none: 3 pods, 2 GPUs.
    tree = _trees(FIXTURES_DIR / "dynamo" / "dgd-device.yaml")["vllm-disagg-hami"]
    workers = {c.name: c for c in tree.walk() if c.name in ("VllmDecodeWorker", "VllmPrefillWorker")}
    for worker in workers.values():
        assert worker.pod_resources == {
            "nvidia.com/gpu": 1,
            "nvidia.com/gpumem": 3000,
            "nvidia.com/gpucores": 50,
            "ephemeral-storage": 2 * GIB,
        }
        assert dict(worker.scheduling.node_selector) == {"gpu": "on"}
    assert (tree.totals.pods, tree.totals.gpus) == (3, 2)


def test_dynamo_autoscaling_is_ignored_and_said_so(inspect_builtin):
    # api/v1alpha1 common.go Autoscaling: "Deprecated: This field is deprecated and ignored" -- replicas as written,
    # no maxReplicas read from it, and a warning in the tree.
    resource = {"apiVersion": "nvidia.com/v1alpha1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g"}}
    resource["spec"] = {
        "services": {
            "Worker": {
                "replicas": 2,
                "autoscaling": {"enabled": True, "minReplicas": 1, "maxReplicas": 8},
                "resources": {"limits": {"gpu": "1"}},
            }
        }
    }
    tree = inspect_builtin(resource)
    worker = next(c for c in tree.walk() if c.name == "Worker")
    assert (worker.pods, worker.max_replicas) == (2, None)
    assert any("autoscaling is deprecated and ignored" in warning for warning in tree.warnings)


def test_dynamo_scaling_adapters_set_the_replicas_of_the_components_that_opt_in(inspect_builtin):
    # deploy/operator/internal/controller/dynamographdeploymentscalingadapter_controller_test.go
    # TestDynamoGraphDeploymentScalingAdapterReconciler_Reconcile: the adapter's spec.replicas become the service's
    # ("updates DGD replicas when DGDSA spec differs": Frontend 2 -> 5; "uses default replicas (1) when DGD service
    # has no replicas set": worker -> 4). The controller at 0fddc01b skips a component whose scalingAdapter is unset
    # (v1alpha1 common.go ScalingAdapter: enabled defaults to false, "a bare scalingAdapter: {} is disabled"): the
    # Planner keeps its 1 replica despite an adapter of 7.
    tree = _trees(FIXTURES_DIR / "dynamo" / "dgd-scaling-adapters.yaml")["test-dgd"]
    replicas = {c.name: c.pods for c in tree.walk() if c.has_pod_template}
    assert replicas == {"Frontend": 5, "worker": 4, "Planner": 1}
    assert (tree.totals.pods, tree.totals.gpus) == (10, 4)
    # The adapters are looked up as the DGD controller names them, <dgd>-<lowercased component>
    # (dgd_scaling_adapters_reconciler.go generateAdapterName); absent, the DGD's replicas stand (the adapter keeps
    # them equal to its own), without a warning.
    [dgd] = list(yaml.safe_load_all((FIXTURES_DIR / "dynamo" / "dgd-scaling-adapters.yaml").read_text()))[:1]
    results = inspect_builtin(dgd)
    alone = {c.name: c.pods for c in results.walk() if c.has_pod_template}
    assert alone == {"Frontend": 2, "worker": 1, "Planner": 1}
    assert not [warning for warning in results.warnings if "ScalingAdapter" in warning]


def test_dynamo_v1beta1_scaling_adapter_is_opted_into_by_presence_and_targets_by_component_name(inspect_builtin):
    # api/v1beta1 common_types.go ScalingAdapter (presence opts in, "even as an empty object"); the adapter controller
    # (0fddc01b) finds the component by dgdRef.componentName (DynamoGraphDeployment.GetComponentByName, an exact
    # match) and writes spec.replicas into it: decode 1 -> 3 pods of 2 GPUs; prefill 2 x 1 GPU; frontend 1.
    tree = _trees(FIXTURES_DIR / "dynamo" / "dgd-v1beta1-scaling-adapter.yaml")["vllm-disagg"]
    replicas = {c.name: c.pods for c in tree.walk() if c.has_pod_template}
    assert replicas == {"Frontend": 1, "VllmDecodeWorker": 3, "VllmPrefillWorker": 2}
    assert (tree.totals.pods, tree.totals.gpus) == (6, 8)
    # The same adapter given with --related, the DGD alone in its file.
    documents = list(yaml.safe_load_all((FIXTURES_DIR / "dynamo" / "dgd-v1beta1-scaling-adapter.yaml").read_text()))
    related = ObjectIndex(documents[1:])
    assert inspect_builtin(documents[0], related=related).totals.pods == 6


def test_dynamo_v1beta1_initializing_state(inspect_builtin):
    # api/v1beta1 common_types.go: state enum initializing|pending|successful|failed, default initializing.
    resource = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g"}}
    resource["spec"] = {"components": [{"name": "Frontend", "type": "frontend"}]}
    resource["status"] = {"state": "initializing"}
    assert inspect_builtin(resource).phase == "Initializing"


# ------------------------------------------------------------------------------------------- Milvus


def test_milvus_deployment_groups_are_one_deployment_each():
    # zilliztech/milvus-operator pkg/controllers/components.go GetComponentWorkloadsBySpec / GetReplicas: a component
    # with groups is one workload per group of group.replicas; config/samples/milvus_deployment_groups.yaml's shape:
    # proxy 2 x 1, dataNode 2 x 2, queryNode 2 x 2, streamingNode 2 x 1, plus the defaulted mixCoord: 13 pods.
    tree = _trees(FIXTURES_DIR / "serving" / "milvus-deployment-groups.yaml")["my-release"]
    assert tree.totals.pods == 1 + 2 + 4 + 4 + 2
    groups = {}
    for parent in tree.components:
        for child in parent.components:
            groups[f"{parent.name}/{child.name}"] = child
    assert {path: c.pods for path, c in groups.items()} == {
        "proxy-groups/g1": 1, "proxy-groups/g2": 1,
        "datanode-groups/g1": 2, "datanode-groups/g2": 2,
        "querynode-groups/g1": 2, "querynode-groups/g2": 2,
        "streamingnode-groups/g1": 1, "streamingnode-groups/g2": 1,
    }  # fmt: skip
    # Resources stay the component's (queryNode 2 cpu / 8Gi); the group's nodeSelector replaces the component's
    # (ApplyDeploymentGroupOverrides).
    g1 = groups["querynode-groups/g1"]
    assert g1.pod_resources == {"cpu": 2, "memory": 8 * GIB}
    assert dict(g1.scheduling.node_selector) == {"topology.kubernetes.io/zone": "zone-a"}


def test_mxjob_is_a_pod_per_replica_under_kai_s_default_grouper():
    # training-operator v1.8 mxjob_dist_v1.yaml: Scheduler 1, Server 1, Worker 1 (1 GPU) -> 3 pods, 1 GPU; MXJob is
    # not in KAI's pod-grouper hub (hub.go) -> the default grouper's one PodGroup, minMember 1.
    tree = _trees(FIXTURES_DIR / "kubeflow" / "mxjob-dist.yaml")["mxnet-job"]
    assert {name: pods for name, (pods, _) in _pods(tree).items()} == {"scheduler": 1, "server": 1, "worker": 1}
    assert (tree.totals.pods, tree.totals.gpus) == (3, 1)
    assert [group.min_member for group in tree.pod_groups] == [1]


# --------------------------------------------------------------------------------------------- NeMo


def test_nemo_microservices_are_one_deployment_each():
    # k8s-nim-operator api/apps/v1alpha1 nemo_*_types.go: GetDeploymentKind "Deployment", GetResources = spec.resources,
    # GetReplicas = scale.hpa.minReplicas when scale.enabled, else spec.replicas. The datastore sample requests
    # 500m / 256Mi; the guardrails sample only limits cpu 1 and 10Gi ephemeral storage (requests default to them).
    trees = _trees(FIXTURES_DIR / "nim" / "nemo-microservices.yaml")
    assert _pods(trees["nemodatastore-sample"]) == {"service": (1, {"cpu": Fraction(1, 2), "memory": 256 * MIB})}
    assert _pods(trees["nemoguardrails-sample"]) == {"service": (1, {"cpu": 1, "ephemeral-storage": 10 * GIB})}
    scaled = trees["nemoentitystore-scaled"]
    service = next(c for c in scaled.walk() if c.name == "service")
    assert (service.pods, service.min_replicas, service.max_replicas) == (2, 2, 5)
    assert all([group.min_member for group in tree.pod_groups] == [1] for tree in trees.values())


@pytest.mark.parametrize(
    "state, phase",
    [("Pending", "Initializing"), ("NotReady", "Initializing"), ("Ready", "Running"), ("Failed", "Failed")],
)
def test_nemo_status(inspect_builtin, state, phase):
    # nemo_datastore_types.go NemoDatastoreStatusPending / NotReady / Ready / Failed (status.state)
    [document] = list(yaml.safe_load_all((FIXTURES_DIR / "nim" / "nemo-microservices.yaml").read_text()))[:1]
    document["status"] = {"state": state}
    assert inspect_builtin(document).phase == phase


# ------------------------------------------------------------------------------------------ Volcano


def test_jobflow_runs_a_volcano_job_per_flow_in_dependency_order():
    # volcano-sh/volcano pkg/controllers/jobflow/jobflow_controller_action.go deployJob: a Job <jobflow>-<flow> per
    # flow, spec = the JobTemplate's, created once every dependsOn target's Job completed. example/jobflow: a; b after
    # a; c, d after b; e after c, d -> 5 Jobs of 1 pod (cpu 1), at most c and d at once.
    tree = _trees(FIXTURES_DIR / "volcano" / "jobflow.yaml", related=FIXTURES_DIR / "volcano" / "jobtemplates.yaml")[
        "test"
    ]
    assert [c.name for c in tree.components] == ["test-a", "test-b", "test-c", "test-d", "test-e"]
    assert (tree.totals.pods, tree.totals.resources) == (2, {"cpu": 2})
    assert tree.over_run.pods == 5
    # Without the templates: no Job is known, and a warning names each template.
    alone = _trees(FIXTURES_DIR / "volcano" / "jobflow.yaml")["test"]
    assert alone.totals.pods == 0
    assert sum("JobTemplate/" in warning and "is not in the input" in warning for warning in alone.warnings) == 5


def test_jobtemplate_shows_the_volcano_job_made_from_it():
    # volcano-sh/apis pkg/apis/flow/v1alpha1/jobtemplate_types.go: spec is a Volcano JobSpec (copied whole by
    # loadJobTemplateAndSetJob): one task of 1 pod, Volcano's PodGroup of minAvailable 1.
    trees = _trees(FIXTURES_DIR / "volcano" / "jobtemplates.yaml")
    assert sorted(trees) == ["a", "b", "c", "d", "e"]
    tree = trees["a"]
    assert (tree.totals.pods, tree.totals.resources) == (1, {"cpu": 1})
    assert [group.min_member for group in tree.pod_groups] == [1]


@pytest.mark.parametrize(
    "phase_value, phase",
    [("Pending", "Initializing"), ("Running", "Running"), ("Succeed", "Completed"), ("Failed", "Failed")],
)
def test_jobflow_status(inspect_builtin, phase_value, phase):
    # pkg/controllers/jobflow/state (pending.go, running.go, succeed.go ...): status.state.phase
    flow = yaml.safe_load((FIXTURES_DIR / "volcano" / "jobflow.yaml").read_text())
    flow["status"] = {"state": {"phase": phase_value}}
    assert inspect_builtin(flow).phase == phase


# --------------------------------------------------------------------------------- new kinds (2)


def test_disaggregatedset_is_a_leaderworkerset_per_role_in_each_slice():
    # kubernetes-sigs/lws pkg/controllers/disaggregatedset/lws_manager.go Create: one LWS per (slice, role), the
    # role's spec; the sample's 2 slices x (prefill 2 + decode 2 replicas) x size 1 = 8 pods (concept doc
    # site/content/en/docs/concepts/disaggregatedset/_index.md), the decode leaders with a GPU each: 4 GPUs.
    tree = _trees(FIXTURES_DIR / "apps" / "disaggregatedset.yaml")["disaggregatedset-sample"]
    assert (tree.totals.pods, tree.totals.gpus) == (8, 4)
    [slice_] = tree.components
    assert slice_.replicas == 2
    assert [c.name for c in slice_.components] == ["disaggregatedset-sample-prefill", "disaggregatedset-sample-decode"]


@pytest.mark.parametrize(
    "conditions, phase",
    [
        ([{"type": "Available", "status": "True"}, {"type": "Progressing", "status": "False"}], "Running"),
        ([{"type": "Available", "status": "False"}, {"type": "Progressing", "status": "True"}], "Initializing"),
    ],
)
def test_disaggregatedset_status(inspect_builtin, conditions, phase):
    # api/disaggregatedset/v1/disaggregatedset_types.go: conditions Available and Progressing
    resource = yaml.safe_load((FIXTURES_DIR / "apps" / "disaggregatedset.yaml").read_text())
    resource["status"] = {"conditions": conditions}
    assert inspect_builtin(resource).phase == phase


def test_rolebasedgroup_patterns():
    # sgl-project/rbg leader-worker-pattern.yaml: "each replica creates 1 leader + (size-1) workers": prefill
    # 2 x 4 (1 GPU each) + decode 2 x 2 from roleTemplates base-template = 12 pods, 8 GPUs.
    trees = _trees(FIXTURES_DIR / "apps" / "rolebasedgroup.yaml")
    lws = trees["lws-pattern-demo"]
    assert (lws.totals.pods, lws.totals.gpus) == (12, 8)
    # customComponentsPattern: each instance runs every component's size pods (3 x (1 + 2 + 1)); a standalone role
    # without replicas runs one (RoleSpec replicas default 1).
    custom = trees["custom-components-demo"]
    assert custom.totals.pods == 3 * 4 + 1
    assert custom.totals.resources == {"cpu": 3 * (2 + 2 * 4), "memory": 3 * (4 + 2 * 8) * GIB}


def test_rolebasedgroup_template_patches_are_strategic_merge_patches_of_the_pods():
    # sgl-project/rbg api/workloads/v1alpha2/helper.go GetResolvedTemplate: templateRef -> the roleTemplate with
    # templateRef.patch applied by strategicpatch.StrategicMergePatch; pkg/reconciler/roleinstanceset_reconciler.go
    # constructRoleInstanceTemplateByLeaderWorkerPattern: the leader's template = base + leaderTemplatePatch, the
    # workers' = base + workerTemplatePatch (doc/features/patterns.md "Patch applied only to leader pod").
    # prefill: base-template (cpu 4, 16Gi, 1 GPU) with the GPU limit patched to 2, 2 replicas -> 4 GPUs; decode
    # (size 4): the leader adds a router container (cpu 1, 1Gi) beside sglang (cpu 2, 1 GPU); 3 workers of 4 GPUs.
    tree = _trees(FIXTURES_DIR / "apps" / "rolebasedgroup-patches.yaml")["pd-patched"]
    pods = {(c.name, c.pods): c.pod_resources for c in tree.walk() if c.has_pod_template}
    assert pods == {
        ("standalone", 2): {"cpu": 4, "memory": 16 * GIB, "nvidia.com/gpu": 2},
        ("leader", 1): {"cpu": 3, "memory": 1 * GIB, "nvidia.com/gpu": 1},
        ("worker", 3): {"cpu": 2, "nvidia.com/gpu": 4},
    }
    assert (tree.totals.pods, tree.totals.gpus) == (6, 4 + 1 + 12)
    assert tree.totals.resources == {"cpu": 8 + 3 + 6, "memory": 33 * GIB, "nvidia.com/gpu": 17}


def test_jobflow_patch_is_not_applied_by_volcano_s_controller(inspect_builtin):
    # volcano-sh/volcano master (ed72c7c8, 2026-08-20) pkg/controllers/jobflow/jobflow_controller_action.go
    # loadJobTemplateAndSetJob: Spec: jobTemplate.Spec, flows[].patch unread (applying it is pull request #4491,
    # not merged): a patch doubling a flow's replicas leaves its Job as the template made it.
    flow = yaml.safe_load((FIXTURES_DIR / "volcano" / "jobflow.yaml").read_text())
    flow["spec"]["flows"][0]["patch"] = {"jobSpec": {"tasks": [{"name": "default-a", "replicas": 2}]}}
    related = ObjectIndex.from_paths([str(FIXTURES_DIR / "volcano" / "jobtemplates.yaml")])
    with_patch = inspect_builtin(flow, related=related)
    assert with_patch.over_run.pods == 5
    assert with_patch.totals.pods == 2


def test_rolebasedgroup_json_patch_is_a_located_error_with_the_accepted_form(wmap, tmp_path):
    # pkg/reconciler/pod_reconciler.go applyStrategicMergePatch: strategicpatch.StrategicMergePatch takes a JSON
    # object; a JSON patch (a list of operations) fails and the role is not reconciled. The error names the field
    # and the accepted form, never a JMESPath function error.
    resource = yaml.safe_load((FIXTURES_DIR / "apps" / "rolebasedgroup-patches.yaml").read_text())
    resource["spec"]["roles"][1]["leaderWorkerPattern"]["leaderTemplatePatch"] = [
        {"op": "add", "path": "/spec/hostNetwork", "value": True}
    ]
    path = tmp_path / "rbg-json-patch.yaml"
    path.write_text(yaml.safe_dump(resource))
    result = wmap("inspect", str(path))
    assert result.exit_code == 1
    [error] = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert "document #1 (RoleBasedGroup/pd-patched), field spec.roles:" in error
    assert "strategic merge patches of a pod template, each an object" in error
    assert "invalid type" not in error and "patch_pod_template" not in error and "Traceback" not in result.output
