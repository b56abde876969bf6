"""Kinds whose pods the operator renders from fragments: the change goes into the fragment's own fields.

Where each field goes is taken from the operators' APIs and controllers (cited per test); where an
operator takes no such field, or another field overrides it, the change is refused with an error
naming the kind instead of being printed as if it worked.
"""

from __future__ import annotations

import pytest

from helpers import FIXTURES_DIR, load_fixture, yaml_doc
from workloadmap.alter import Changes, Toleration, alter
from workloadmap.documents import load_objects
from workloadmap.errors import AlterError
from workloadmap.interpreter import ObjectIndex

KAI = Changes(scheduler_name="kai-scheduler")
LABEL = Changes(pod_labels={"wmap.dev/x": "y"})


def test_kserve_predictor_fields_are_inline_in_spec_predictor():
    # KServe v1beta1 PredictorSpec inlines PodSpec and ComponentExtensionSpec, whose labels and
    # annotations "will be added to the component pod" (pkg/apis/serving/v1beta1/component.go).
    isvc = load_fixture("serving/inferenceservice-multinode.yaml")
    result = alter(isvc, Changes(scheduler_name="kai-scheduler", pod_labels={"wmap.dev/x": "y"}))
    predictor = result.object["spec"]["predictor"]
    assert predictor["schedulerName"] == "kai-scheduler"
    assert predictor["workerSpec"]["schedulerName"] == "kai-scheduler"  # WorkerSpec inlines its own PodSpec
    assert predictor["labels"] == {"wmap.dev/x": "y"}
    assert [component.component for component in result.components] == ["predictor", "worker"]


def test_kserve_worker_labels_are_the_predictors():
    # reconcileWorker labels the worker pods with isvc.Spec.Predictor.Labels: one field for both roles.
    isvc = load_fixture("serving/inferenceservice-multinode.yaml")
    with pytest.raises(AlterError, match="component worker shares its pods' labels .* with predictor"):
        alter(isvc, LABEL, component="worker")
    # Its PodSpec is its own (WorkerSpec.PodSpec), so the scheduler can be set for it alone.
    result = alter(isvc, KAI, component="worker")
    assert "schedulerName" not in result.object["spec"]["predictor"]
    assert result.object["spec"]["predictor"]["workerSpec"]["schedulerName"] == "kai-scheduler"


def test_milvus_component_keeps_the_global_entries_it_falls_back_to():
    # milvus-operator merges spec.components (global) into each component's ComponentSpec: a
    # component's own tolerations replace the global ones, so they are copied in first.
    milvus = load_fixture("serving/milvus-cluster.yaml")
    milvus["spec"]["components"]["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    result = alter(milvus, Changes(tolerations=(Toleration.parse("nvidia.com/gpu:NoSchedule"),)), component="querynode")
    query = result.object["spec"]["components"]["queryNode"]
    assert query["tolerations"] == [
        {"key": "dedicated", "operator": "Exists"},
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
    ]
    assert result.object["spec"]["components"]["tolerations"] == [{"key": "dedicated", "operator": "Exists"}]
    assert "tolerations" not in result.object["spec"]["components"]["proxy"]


def test_milvus_pod_labels_go_to_pod_labels():
    result = alter(load_fixture("serving/milvus-cluster.yaml"), LABEL, component="proxy")
    assert result.object["spec"]["components"]["proxy"]["podLabels"] == {"wmap.dev/x": "y"}


def test_nimcache_takes_no_scheduler_name():
    # NIMCacheSpec has tolerations and nodeSelector but no schedulerName, affinity or labels
    # (k8s-nim-operator api/apps/v1alpha1/nimcache_types.go).
    cache = load_fixture("serving/nimcache.yaml")
    with pytest.raises(AlterError, match="NIMCache component nimcache: no place for the pods' schedulerName"):
        alter(cache, KAI)
    result = alter(cache, Changes(node_selector={"gpu": "h100"}))
    assert result.object["spec"]["nodeSelector"] == {"gpu": "h100"}


def test_nimservice_roles_share_one_spec():
    service = load_fixture("serving/nimservice-multinode.yaml")
    result = alter(service, Changes(scheduler_name="kai-scheduler", priority_class="high"))
    assert result.object["spec"]["schedulerName"] == "kai-scheduler"
    assert result.object["spec"]["priorityClassName"] == "high"
    assert result.changed == ["spec.schedulerName", "spec.priorityClassName"]
    with pytest.raises(AlterError, match="shares its pods' schedulerName"):
        alter(service, KAI, component="leader")


def test_dynamo_v1alpha1_service_gets_an_extra_pod_spec():
    # Dynamo's DynamoComponentDeploymentSharedSpec: extraPodSpec is a PodSpec (plus mainContainer),
    # extraPodMetadata adds labels/annotations to the created pods. The definition reads the
    # services map as merged copies; the write lands in the original service.
    graph = load_fixture("grove/dynamo-v1alpha1-fragmented.yaml")
    result = alter(graph, Changes(scheduler_name="kai-scheduler", pod_labels={"a": "b"}))
    for name, service in result.object["spec"]["services"].items():
        assert service["extraPodSpec"]["schedulerName"] == "kai-scheduler", name
        assert service["extraPodMetadata"]["labels"] == {"a": "b"}, name
    assert len(result.components) == len(graph["spec"]["services"])


def test_rayjob_default_submitter_is_written_out_before_it_changes():
    # KubeRay builds the submitter pod only without spec.submitterPodTemplate (GetSubmitterTemplate):
    # container ray-job-submitter, the head's image, limits 1 cpu / 1Gi, requests 500m / 200Mi,
    # restartPolicy Never; a given template is used as is, KubeRay still adding the command and env.
    rayjob = load_fixture("ray/rayjob-k8sjob.yaml")
    result = alter(rayjob, KAI, component="submitter")
    assert result.object["spec"]["submitterPodTemplate"] == {
        "spec": {
            "restartPolicy": "Never",
            "containers": [
                {
                    "name": "ray-job-submitter",
                    "image": "rayproject/ray:2.46.0",
                    "resources": {
                        "requests": {"cpu": "500m", "memory": "200Mi"},
                        "limits": {"cpu": "1", "memory": "1Gi"},
                    },
                }
            ],
            "schedulerName": "kai-scheduler",
        }
    }
    # The head and workers keep theirs.
    assert "schedulerName" not in result.object["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]


def test_rayjob_sidecar_mode_writes_the_head_template():
    result = alter(load_fixture("ray/rayjob-sidecar.yaml"), KAI, component="head")
    assert (
        result.object["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["schedulerName"] == "kai-scheduler"
    )


SPARK = """
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: pi}
spec:
  type: Scala
  driver: {cores: 1}
  executor: {cores: 1, instances: 2}
"""


def test_spark_driver_and_executor_fields():
    result = alter(yaml_doc(SPARK), Changes(scheduler_name="kai-scheduler", pod_labels={"a": "b"}))
    for role in ("driver", "executor"):
        assert result.object["spec"][role]["schedulerName"] == "kai-scheduler"
        assert result.object["spec"][role]["labels"] == {"a": "b"}


def test_spark_batch_scheduler_overrides_the_pods_scheduler():
    # spark-operator's pod webhook (addSchedulerName) prefers spec.batchScheduler over the
    # driver/executor schedulerName: writing the latter would change nothing, so it is refused.
    app = yaml_doc(SPARK)
    app["spec"]["batchScheduler"] = "volcano"
    with pytest.raises(AlterError, match="schedulerName would not change .*'volcano'"):
        alter(app, KAI)


def test_podcliqueset_clique_labels():
    # Grove PodCliqueTemplateSpec.labels / annotations go to the PodClique and its pods.
    pcs = load_fixture("grove/podcliqueset-two-replicas.yaml")
    result = alter(pcs, Changes(pod_labels={"a": "b"}, scheduler_name="kai-scheduler"))
    for clique in result.object["spec"]["template"]["cliques"]:
        assert clique["labels"]["a"] == "b"
        assert clique["spec"]["podSpec"]["schedulerName"] == "kai-scheduler"


def test_trainjob_points_at_its_runtime():
    # The Trainer builds the JobSet from the runtime's templates: the TrainJob holds none of them.
    path = FIXTURES_DIR / "kubeflow" / "trainjob-torch-runtime.yaml"
    trainjob = next(document.body for document in load_objects(str(path)) if document.body["kind"] == "TrainJob")
    runtimes = ObjectIndex.from_paths([str(path)])
    with pytest.raises(
        AlterError, match="lives in the referenced TrainingRuntime/torch-with-init .*; alter that object"
    ):
        alter(trainjob, KAI, related=runtimes)
    # Object-level changes still apply to the TrainJob itself.
    assert (
        alter(trainjob, Changes(queue="q"), related=runtimes).object["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]
        == "q"
    )
