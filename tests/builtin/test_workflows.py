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
