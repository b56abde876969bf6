"""Workflows whose pods run in order: Tekton PipelineRun and TaskRun (this file), Argo and Volcano JobFlow below.

Expected figures are worked out from the operators' code and docs, cited per case; the fixtures are
written for these tests (each names the upstream example it is modelled on).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from helpers import FIXTURES_DIR
from workloadmap import inspect_file
from workloadmap.interpreter import ObjectIndex

TEKTON = FIXTURES_DIR / "tekton"


def _trees(path, related=None):
    results = inspect_file(str(path), related=ObjectIndex.from_paths([str(related)]) if related else None)
    assert [result.error for result in results if result.error] == []
    return {result.tree.workload.name: result.tree for result in results if result.tree}


def _peak(tree):
    return {component.name: component.pods_at_peak for component in tree.walk() if component.has_pod_template}


# ----------------------------------------------------------------------------------------------- Tekton


def test_pipelinerun_tasks_start_after_their_run_after_and_finally_after_all():
    # tektoncd/pipeline pkg/reconciler/pipelinerun/resources/pipelinerunstate.go: DAGExecutionQueue starts the tasks
    # whose runAfter are done, GetFinalTasks "returns final tasks only when all DAG tasks have finished executing";
    # pkg/apis/pipeline/v1/matrix_types.go CountCombinations: 3 platforms x 2 versions = 6 TaskRuns of build.
    # fetch 1 -> (build 6 || lint 1) -> train 1 (4 GPUs) -> report 1 (finally).
    tree = _trees(TEKTON / "pipelinerun-order.yaml")["build-and-train"]
    # at once: build and lint (7 pods, cpu 6 x 2 + 0.5 = 12.5, memory 6 x 4Gi); GPUs: train's 4
    assert (tree.totals.pods, tree.totals.gpus) == (7, 4)
    assert tree.totals.resources["cpu"] == Fraction(25, 2)
    assert tree.totals.resources["memory"] == 24 * 2**30
    # over the run: 1 + 6 + 1 + 1 + 1 = 10 TaskRun pods
    assert (tree.over_run.pods, tree.over_run.gpus, tree.over_run.resources["cpu"]) == (10, 4, Fraction(27, 2))
    # placement checks the moment with the most GPUs: train with lint still running
    assert _peak(tree) == {"fetch": 0, "build": 0, "lint": 1, "train": 1, "report": 0}
    # KAI default grouper (hub.go tekton.dev/v1): one PodGroup, minMember 1, holding that moment
    [group] = tree.pod_groups
    assert (group.min_member, group.pods) == (1, 2)


@pytest.mark.parametrize("how", ["related", "same stream"])
def test_pipelinerun_runs_the_pipeline_and_tasks_it_names(how, tmp_path):
    # PipelineRun.spec.pipelineRef names the Pipeline, whose tasks name Tasks by taskRef (pkg/apis/pipeline/v1
    # pipelineref_types.go, pipeline_types.go PipelineTask.TaskRef); one pod per TaskRun with the Task's steps and
    # sidecars as containers (pkg/pod/pod.go Builder.Build). prepare (1.5 cpu) -> tune-a || tune-b (2 GPUs each).
    run, related = TEKTON / "pipelinerun-pipelineref.yaml", TEKTON / "related" / "tune-pipeline.yaml"
    if how == "related":
        trees = _trees(run, related)
    else:
        stream = tmp_path / "all.yaml"
        stream.write_text(related.read_text() + "\n---\n" + run.read_text())
        trees = _trees(stream)
    tree = trees["tune-run"]
    assert (tree.totals.pods, tree.totals.gpus, tree.over_run.pods, tree.over_run.gpus) == (2, 4, 3, 4)
    components = {c.name: c for c in tree.walk()}
    assert components["prepare"].pod_resources == {"cpu": Fraction(3, 2), "memory": 1536 * 2**20}
    assert components["tune-a"].pod_resources == {"cpu": Fraction(1, 4), "nvidia.com/gpu": 2}
    assert not any("not in the input" in warning for warning in tree.warnings)


def test_pipelinerun_without_its_pipeline_says_so():
    [tree] = _trees(TEKTON / "pipelinerun-pipelineref.yaml").values()
    assert tree.totals.pods == 0
    assert any("Pipeline/tune-pipeline is not in the input" in warning for warning in tree.warnings)


def test_taskrun_task_level_compute_resources_are_divided_over_the_steps():
    # tasklevel_test.go TestApplyTaskLevelResourceRequirements: "steps with compute resources are overridden by
    # task-level compute resources" gives each of two steps 500m (pod: 1 cpu); "only with limits" gives each step
    # requests of 250m / 128Mi (pod: 500m / 256Mi).
    trees = _trees(TEKTON / "taskrun-task-level-resources.yaml")
    assert trees["overridden"].totals.resources == {"cpu": 1}
    assert trees["limits-only"].totals.resources == {"cpu": Fraction(1, 2), "memory": 256 * 2**20}


def test_taskrun_by_task_ref_with_step_specs():
    # TaskRun.spec.taskRef names the Task; stepSpecs override a step's computeResources by name
    # (pkg/pod/pod.go Builder.Build -> MergeStepsWithSpecs); the sidecar adds its 512Mi.
    tree = _trees(TEKTON / "taskrun-task-level-resources.yaml")["by-ref"]
    assert tree.totals.resources == {"cpu": 3, "memory": 512 * 2**20, "nvidia.com/gpu": 1}


def test_taskrun_steps_are_summed_not_the_largest_only():
    # docs/compute-resources.md: "the pod's effective resource requirements are still the sum of its containers'
    # resource requirements"; fixtures/kinds/tekton.yaml TaskRun build: fetch 500m + train (1 GPU) + sidecar.
    tree = _trees(FIXTURES_DIR / "kinds" / "tekton.yaml")["build"]
    assert (tree.totals.resources["cpu"], tree.totals.gpus) == (Fraction(1, 2), 1)


def test_pipelinerun_json_has_both_figures(wmap):
    result = wmap("inspect", str(TEKTON / "pipelinerun-order.yaml"), "-o", "json")
    data = json.loads(result.stdout)
    assert (data["totals"]["pods"], data["overRun"]["pods"]) == (7, 10)
    assert [c["podsAtPeak"] for c in data["components"]] == [0, 0, 1, 1, 0]


# ------------------------------------------------------------------------------------------------- Argo

ARGO = FIXTURES_DIR / "argo"


@pytest.mark.parametrize(
    ("name", "at_once", "over_run"),
    [
        # examples/steps.yaml shape: workflow/controller/steps.go executeSteps runs the step groups in order and
        # returns while a group is unfulfilled; executeStepGroup starts every step of a group: hello1, then hello2a
        # and hello2b together.
        ("steps-", 2, 3),
        # examples/dag-diamond.yaml shape: dag.go executeDAG starts a task when its depends are met
        # (ancestry.go getTaskDependsLogic): A, then B and C, then D.
        ("dag-diamond-", 2, 4),
        # dependencies and depends name the tasks waited for; c and f (after b) and e (after d) can run together.
        ("dag-branches", 3, 6),
    ],
)
def test_argo_steps_and_dag_tasks_run_in_order(name, at_once, over_run):
    tree = _trees(ARGO / "steps-and-dag.yaml")[name]
    assert (tree.totals.pods, tree.over_run.pods) == (at_once, over_run)
    # KAI skips the Workflow and groups each pod on its own (hub.go skipTopOwner): one PodGroup per pod at once
    assert (tree.grouping.value, tree.pod_group_count, tree.pod_groups) == ("perPod", at_once, [])


def test_argo_step_resources_at_once_and_over_the_run():
    tree = _trees(ARGO / "steps-and-dag.yaml")["steps-"]
    assert tree.totals.resources == {"cpu": Fraction(1, 5), "memory": 64 * 2**20}
    assert tree.over_run.resources == {"cpu": Fraction(3, 10), "memory": 96 * 2**20}


@pytest.mark.parametrize(
    ("name", "at_once", "over_run"),
    [
        # operator.go expandSequence: count 5 -> 5 items; start 100 end 105 -> 6; start 5 end 0 (descending) -> 6;
        # withItems of 4 -> 4; a count that is a workflow parameter is resolved only at run time (not counted).
        # All in one step group, so all at once.
        ("loops-sequence-", 21, 21),
        # examples/parallelism-limit.yaml: spec.parallelism 2 over 10 items (operator.go checkParallelism).
        ("parallelism-limit-", 2, 10),
        # examples/parallelism-template-limit.yaml shape: the steps template's parallelism (3 here) over 10 items.
        ("parallelism-template-limit-", 3, 10),
        # withParam from a previous step's output: unknown offline, not counted (never as one pod).
        ("loops-param", 1, 1),
    ],
)
def test_argo_loops_expand_and_parallelism_caps(name, at_once, over_run):
    tree = _trees(ARGO / "loops.yaml")[name]
    assert (tree.totals.pods, tree.over_run.pods) == (at_once, over_run)


@pytest.mark.parametrize("name", ["loops-sequence-", "loops-param"])
def test_argo_unknown_loop_counts_are_said(name):
    tree = _trees(ARGO / "loops.yaml")[name]
    assert any("known only at run time" in warning for warning in tree.warnings)


def test_argo_template_types_agent_pod_exit_handler_and_retries():
    # operator.go executeTemplate: containerSet (one pod of both containers), resource (an executor pod), suspend
    # (none), http (the agent pod, agent.go createAgentPod: requests 10m / 64M, not held by parallelism); the
    # retried template runs one pod at a time (operator.go processNodeRetries); onExit runs after the entrypoint.
    tree = _trees(ARGO / "template-types.yaml")["template-types"]
    components = {component.name: component for component in tree.walk() if component.has_pod_template}
    assert sorted(components) == ["agent", "apply", "flaky", "onExit", "pair"]
    # spec.podResources is every pod's pod-level request (workflowpod.go build: pod.spec.resources)
    assert components["pair"].pod_resources == {"cpu": Fraction(1, 10), "memory": 64 * 2**20}
    assert components["agent"].pod_resources == {"cpu": Fraction(1, 100), "memory": 64 * 10**6}
    # at once: pair, apply and the agent; over the run: those, flaky and cleanup
    assert (tree.totals.pods, tree.over_run.pods) == (3, 5)


def test_argo_recursive_template_is_counted_once():
    # examples/coinflip-recursive.yaml shape: coinflip calls itself; the recursion ends at run time.
    tree = _trees(ARGO / "template-types.yaml")["coinflip-recursive"]
    assert (tree.totals.pods, tree.over_run.pods) == (1, 2)
    assert any("recursion" in warning for warning in tree.warnings)


def test_argo_gpu_moment_and_widest_moment_differ():
    # 8 preprocessing pods (2 cpu, 4Gi), then 4 training pods (8 cpu, 2 GPUs) beside 1 monitor pod.
    tree = _trees(ARGO / "fan-out-then-train.yaml")["fan-out-then-train"]
    assert (tree.totals.pods, tree.totals.gpus, tree.totals.resources["cpu"]) == (8, 8, 34)
    assert tree.totals.resources["memory"] == 32 * 2**30
    assert (tree.over_run.pods, tree.over_run.gpus, tree.over_run.resources["cpu"]) == (13, 8, 50)
    # placement checks the moment with the most GPUs: the 4 training pods and the monitor
    assert _peak(tree) == {"preprocess": 0, "train": 4, "monitor": 1}


def test_argo_workflow_template_ref_and_template_ref_resolve_through_related():
    # workflow/util/merge.go JoinWorkflowSpec: the Workflow's spec over the WorkflowTemplate's (entrypoint and
    # templates from the template); a task's templateRef runs one template of a ClusterWorkflowTemplate.
    trees = _trees(ARGO / "template-ref.yaml", ARGO / "related")
    built = trees["workflow-template-ref-"]
    # prepare (1 cpu), then train over 2 items with 4 GPUs each
    assert (built.totals.pods, built.totals.gpus, built.over_run.pods) == (2, 8, 3)
    calls = trees["calls-cluster-template"]
    assert (calls.totals.pods, calls.totals.gpus, calls.over_run.pods) == (1, 1, 2)


def test_argo_template_refs_missing_are_said():
    trees = _trees(ARGO / "template-ref.yaml")
    assert trees["workflow-template-ref-"].totals.pods == 0
    assert any(
        "WorkflowTemplate/train-pipeline is not in the input" in w for w in trees["workflow-template-ref-"].warnings
    )
    assert any("templateRef" in warning for warning in trees["calls-cluster-template"].warnings)


def test_argo_place_uses_the_moment_at_once(wmap):
    # placement of ungrouped pods checks the peak moment: 8 GPUs of the training step, not 13 pods of the run.
    result = wmap("place", str(ARGO / "fan-out-then-train.yaml"), "--topology", "preset:small-16", "-o", "json")
    data = json.loads(result.stdout)
    counted = {group["name"]: group["pods"] for group in data["podGroups"]}
    assert counted == {"pipeline/train": 4, "pipeline/monitor": 1}
    assert data["verdict"] == "Fits"


def test_argo_cron_workflow_shows_one_run():
    # workflow/cron/operator.go run(): each schedule submits one Workflow made from spec.workflowSpec
    # (common.ConvertCronWorkflowToWorkflowWithProperties): prepare, then 2 evaluation shards (1 GPU each).
    [tree] = _trees(ARGO / "cron-workflow.yaml").values()
    assert (tree.definition, tree.totals.pods, tree.totals.gpus, tree.over_run.pods) == ("cronworkflow", 2, 2, 3)
    assert (tree.grouping.value, tree.pod_group_count) == ("perPod", 2)


def test_argo_workflow_templates_show_what_a_submission_runs():
    # pkg/apis/workflow/v1alpha1/workflow_template_types.go: a WorkflowTemplate's spec is a WorkflowSpec; one
    # submitted Workflow runs prepare, then train over 2 items. A ClusterWorkflowTemplate that only holds templates
    # (no entrypoint) runs nothing by itself.
    trees = _trees(ARGO / "related" / "templates.yaml")
    template = trees["train-pipeline"]
    assert (template.definition, template.totals.pods, template.totals.gpus, template.over_run.pods) == (
        "workflowtemplate",
        2,
        8,
        3,
    )
    library = trees["shared-steps"]
    assert (library.definition, library.totals.pods) == ("clusterworkflowtemplate", 0)
