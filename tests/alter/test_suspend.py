"""`wmap suspend|resume`: each kind's switch as its operator defines it, and the kinds that have none.

Expected fields come from the operators' APIs: batch/v1 JobSpec/CronJobSpec.suspend; JobSet
JobSetSpec.Suspend (jobset_types.go); Kubeflow v1 RunPolicy.Suspend (training-operator
common_types.go) and MPIJob v2beta1 RunPolicy.Suspend; TrainJobSpec.Suspend; KubeRay
RayClusterSpec/RayJobSpec/RayServiceSpec.Suspend; AppWrapperSpec.Suspend;
SparkApplicationSpec.Suspend; agent-sandbox v1beta1 operatingMode and v1alpha1 replicas; the
Kubeflow notebook controller's kubeflow-resource-stopped annotation; KServe's
serving.kserve.io/stop annotation; and, for kinds without a field that Kueue manages, Kueue's
kueue.x-k8s.io/admission-gated-by annotation (a comma-separated list of gates, KEP-6915).
"""

from __future__ import annotations

import pytest

from helpers import load_fixture
from workloadmap.alter import Changes, alter, apply_merge_patch, get_at
from workloadmap.catalog import Catalog
from workloadmap.errors import AlterError
from workloadmap.expressions import field_path
from workloadmap.interpreter import inspect

SUSPEND, RESUME = Changes(suspend=True), Changes(suspend=False)
GATE = 'metadata.annotations."kueue.x-k8s.io/admission-gated-by"'
STOP = 'metadata.annotations."serving.kserve.io/stop"'


def _object(api_version, kind):
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": "w"}, "spec": {}}


# (apiVersion, kind, field, suspended value, resumed value)
SWITCHES = [
    ("batch/v1", "Job", "spec.suspend", True, False),
    ("batch/v1", "CronJob", "spec.suspend", True, False),
    ("jobset.x-k8s.io/v1alpha2", "JobSet", "spec.suspend", True, False),
    ("kubeflow.org/v1", "PyTorchJob", "spec.runPolicy.suspend", True, False),
    ("kubeflow.org/v1", "TFJob", "spec.runPolicy.suspend", True, False),
    ("kubeflow.org/v1", "XGBoostJob", "spec.runPolicy.suspend", True, False),
    ("kubeflow.org/v1", "JAXJob", "spec.runPolicy.suspend", True, False),
    ("kubeflow.org/v1", "PaddleJob", "spec.runPolicy.suspend", True, False),
    ("kubeflow.org/v1", "MXJob", "spec.runPolicy.suspend", True, False),
    ("kubeflow.org/v2beta1", "MPIJob", "spec.runPolicy.suspend", True, False),
    ("trainer.kubeflow.org/v1alpha1", "TrainJob", "spec.suspend", True, False),
    ("ray.io/v1", "RayCluster", "spec.suspend", True, False),
    ("ray.io/v1", "RayJob", "spec.suspend", True, False),
    ("ray.io/v1", "RayService", "spec.suspend", True, False),
    ("workload.codeflare.dev/v1beta2", "AppWrapper", "spec.suspend", True, False),
    ("sparkoperator.k8s.io/v1beta2", "SparkApplication", "spec.suspend", True, False),
    ("agents.x-k8s.io/v1beta1", "Sandbox", "spec.operatingMode", "Suspended", "Running"),
    ("agents.x-k8s.io/v1alpha1", "Sandbox", "spec.replicas", 0, 1),
    ("serving.kserve.io/v1beta1", "InferenceService", STOP, "true", "false"),
    ("serving.kserve.io/v1alpha1", "LLMInferenceService", STOP, "true", "false"),
    ("serving.kserve.io/v1alpha1", "InferenceGraph", STOP, "true", "false"),
    ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", GATE, "wmap.dev/suspend", None),
    ("apps/v1", "StatefulSet", GATE, "wmap.dev/suspend", None),
    ("v1", "Pod", GATE, "wmap.dev/suspend", None),
    ("batch.volcano.sh/v1alpha1", "CronJob", "spec.suspend", True, False),
    ("sparkoperator.k8s.io/v1beta2", "ScheduledSparkApplication", "spec.suspend", True, False),
    ("argoproj.io/v1alpha1", "Workflow", "spec.suspend", True, False),
    ("ray.io/v1", "RayCronJob", "spec.suspend", True, False),  # raycronjob_types.go Suspend
    ("argoproj.io/v1alpha1", "CronWorkflow", "spec.suspend", True, False),  # cron_workflow_types.go Suspend
]


@pytest.mark.parametrize("api_version, kind, path, suspended, resumed", SWITCHES, ids=lambda v: str(v))
def test_suspend_and_resume_set_the_operators_field(api_version, kind, path, suspended, resumed):
    obj = _object(api_version, kind)
    stopped = alter(obj, SUSPEND)
    assert get_at(stopped.object, field_path(path)) == suspended
    running = alter(stopped.object, RESUME)
    assert get_at(running.object, field_path(path)) == resumed
    assert obj == _object(api_version, kind)


# Kinds with no suspend field their operator honours, and why (their APIs were read for one).
NOT_SUSPENDABLE = {
    "kueue-pod-group": "not an API object: wmap's view of plain pods Kueue groups (it gates pods, no field)",
    "deployment": "spec.paused pauses rollouts only; Kueue gates a Deployment's pods, not the Deployment",
    "daemonset": "no suspend field",
    "replicaset": "no suspend field",
    "job-volcano": "Volcano suspends through a bus.volcano.sh Command (AbortJob/ResumeJob), not a field",
    "knative-service": "Knative scales to zero on its own; no suspend field",
    "milvus": "stops only when every component's replicas is 0 (IsStopping); no switch keeps the counts",
    "nimservice": "NIMServiceSpec has no suspend field",
    "nimcache": "NIMCacheSpec has no suspend field",
    "nodeset": "Slinky NodeSet has no suspend field",
    "dynamographdeployment": "no suspend field in v1alpha1 or v1beta1",
    "podcliqueset": "Grove PodCliqueSet has no suspend field",
    "clustertrainingruntime": "a template for TrainJobs; it runs nothing itself",
    "trainingruntime": "a template for TrainJobs; it runs nothing itself",
    "nimpipeline": "NIMPipelineSpec has no suspend field (it wraps NIMServices, which have none either)",
    "pipelinerun": "spec.status PipelineRunPending only holds a run that has not started; Cancelled ends it",
    "taskrun": "spec.status TaskRunCancelled ends the run; no suspend",
    "seldondeployment": "no suspend field in SeldonDeploymentSpec",
    "workflowtemplate": "a template for Workflows (Argo WorkflowTemplate); it runs nothing itself",
    "clusterworkflowtemplate": "a template for Workflows (Argo ClusterWorkflowTemplate); it runs nothing itself",
    "sparkconnect": "SparkConnectSpec has no suspend field (spark-operator api/v1alpha1/sparkconnect_types.go)",
    "nemocustomizer": "NemoCustomizerSpec has no suspend field (k8s-nim-operator api/apps/v1alpha1)",
    "nemodatastore": "NemoDatastoreSpec has no suspend field (k8s-nim-operator api/apps/v1alpha1)",
    "nemoentitystore": "NemoEntitystoreSpec has no suspend field (k8s-nim-operator api/apps/v1alpha1)",
    "nemoevaluator": "NemoEvaluatorSpec has no suspend field (k8s-nim-operator api/apps/v1alpha1)",
    "nemoguardrail": "NemoGuardrailSpec has no suspend field (k8s-nim-operator api/apps/v1alpha1)",
    "jobtemplate": "a template for JobFlows (Volcano JobTemplate); it runs nothing itself",
    "jobflow": "JobFlowSpec has no suspend field (volcano-sh/apis pkg/apis/flow/v1alpha1/jobflow_types.go)",
    "disaggregatedset": "DisaggregatedSetSpec has no suspend field (kubernetes-sigs/lws api/disaggregatedset/v1)",
    "rolebasedgroup": "RoleBasedGroupSpec has no suspend field (sgl-project/rbg api/workloads/v1alpha2)",
    "virtualmachineinstance": "KubeVirt pauses a VMI through its pause subresource (virtctl pause), not a spec field",
    "workload": "a scheduling.k8s.io policy object; it runs nothing itself",
    "podgroup": "a scheduling.k8s.io policy object; its pods are their owners'",
    "compositepodgroup": "a scheduling.k8s.io policy object; it runs nothing itself",
}


def test_every_builtin_kind_is_either_suspendable_or_listed_with_a_reason(builtin_catalog: Catalog):
    without = {definition.name for definition in builtin_catalog if definition.suspend is None}
    assert without == set(NOT_SUSPENDABLE)
    with_switch = {(d.group, d.kind) for d in builtin_catalog if d.suspend is not None}
    tested = {(api_version.rpartition("/")[0], kind) for api_version, kind, *_ in SWITCHES}
    assert with_switch == tested | {("kubeflow.org", "Notebook")}  # the Notebook has a test of its own


@pytest.mark.parametrize("name", sorted(NOT_SUSPENDABLE))
def test_kinds_without_a_switch_cannot_be_suspended(name, builtin_catalog: Catalog):
    definition = next(definition for definition in builtin_catalog if definition.name == name)
    obj = _object(f"{definition.group}/{definition.versions[0]}".lstrip("/"), definition.kind)
    with pytest.raises(
        AlterError, match=f"{definition.kind} cannot be suspended: its operator offers no suspend field"
    ):
        alter(obj, SUSPEND, catalog=builtin_catalog)


def test_the_kueue_gate_keeps_other_gates():
    # Kueue only lets gates be removed after creation, and keeps the others (validation_admissiongatedby.go).
    obj = _object("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet")
    obj["metadata"]["annotations"] = {"kueue.x-k8s.io/admission-gated-by": "example.com/quota"}
    stopped = alter(obj, SUSPEND)
    assert stopped.object["metadata"]["annotations"] == {
        "kueue.x-k8s.io/admission-gated-by": "example.com/quota,wmap.dev/suspend"
    }
    assert any("Kueue refuses adding the gate to an existing object" in warning for warning in stopped.warnings)
    resumed = alter(stopped.object, RESUME)
    assert resumed.object["metadata"]["annotations"] == {"kueue.x-k8s.io/admission-gated-by": "example.com/quota"}
    assert resumed.removed == []
    # Our gate alone: resume removes the annotation, and says so (kubectl apply would keep it).
    alone = alter(alter(_object("apps/v1", "StatefulSet"), SUSPEND).object, RESUME)
    assert alone.object["metadata"]["annotations"] == {}
    assert alone.removed == ["metadata.annotations.kueue.x-k8s.io/admission-gated-by"]


def test_notebook_stop_annotation_holds_the_stop_time(monkeypatch):
    from workloadmap.alter import suspend as suspend_module

    monkeypatch.setattr(suspend_module, "_now", lambda: "2026-01-02T03:04:05Z")
    notebook = load_fixture("kubeflow/notebook.yaml")
    stopped = alter(notebook, SUSPEND)
    assert stopped.object["metadata"]["annotations"]["kubeflow-resource-stopped"] == "2026-01-02T03:04:05Z"
    # The controller scales the StatefulSet to 0: the catalog reads no pods any more.
    assert inspect(stopped.object).totals.pods == 0
    # Suspending again keeps the first stop time.
    monkeypatch.setattr(suspend_module, "_now", lambda: "2030-01-01T00:00:00Z")
    assert alter(stopped.object, SUSPEND).changed == []
    resumed = alter(stopped.object, RESUME)
    assert "kubeflow-resource-stopped" not in resumed.object["metadata"].get("annotations", {})
    # A merge patch deletes the annotation with a null (RFC 7386), where kubectl apply might not.
    assert resumed.patch() == {"metadata": {"annotations": {"kubeflow-resource-stopped": None}}}
    assert apply_merge_patch(stopped.object, resumed.patch()) == resumed.object
    assert resumed.removed == ["metadata.annotations.kubeflow-resource-stopped"]
    assert inspect(resumed.object).totals.pods == inspect(notebook).totals.pods


@pytest.mark.parametrize(
    "fixture",
    ["serving/inferenceservice.yaml", "serving/llminferenceservice-scaling.yaml", "serving/sandbox.yaml"],
)
def test_a_suspended_workload_runs_no_pods_as_the_catalog_reads_it(fixture):
    # The catalog counts pods from each operator's rules (KServe's stop annotation scales every
    # component to 0; a suspended Sandbox has no pod): suspend and read back must agree.
    obj = load_fixture(fixture)
    assert inspect(obj).totals.pods > 0
    stopped = alter(obj, SUSPEND).object
    assert inspect(stopped).totals.pods == 0
    assert inspect(alter(stopped, RESUME).object).totals.pods == inspect(obj).totals.pods


def test_cronjob_suspended_phase_is_read_back():
    cronjob = load_fixture("apps/cronjob.yaml")
    cronjob["status"] = {"lastScheduleTime": "2026-01-01T00:00:00Z"}
    stopped = alter(cronjob, SUSPEND)
    assert inspect(stopped.object).phase.value == "Suspended"
    assert any("starts no new Jobs" in warning for warning in stopped.warnings)


def test_resuming_a_kueue_managed_workload_warns():
    job = _object("batch/v1", "Job")
    job["metadata"]["labels"] = {"kueue.x-k8s.io/queue-name": "team-a"}
    result = alter(job, RESUME)
    assert result.object["spec"]["suspend"] is False
    assert any("Kueue decides when it runs" in warning for warning in result.warnings)


def test_suspend_with_pod_changes_in_one_go():
    job = load_fixture("job-parallel.yaml")
    result = alter(job, Changes(suspend=True, scheduler_name="kai-scheduler", queue="q"))
    assert result.object["spec"]["suspend"] is True
    assert result.object["spec"]["template"]["spec"]["schedulerName"] == "kai-scheduler"
