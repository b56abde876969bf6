"""Kinds from the same upstreams and KAI-known kinds: NIMPipeline, ScheduledSparkApplication, Volcano CronJob,
SeldonDeployment, KubeVirt VirtualMachineInstance, Tekton TaskRun and PipelineRun, Argo Workflow.

Expected figures come from the operators' semantics (named per case) and KAI's hub.go registrations
(kai-scheduler/KAI-Scheduler pkg/podgrouper/podgrouper/hub/hub.go), worked out in each fixture's comment.
"""

from __future__ import annotations

import pytest

from helpers import FIXTURES_DIR
from workloadmap import inspect_file


def trees(name):
    results = inspect_file(str(FIXTURES_DIR / "kinds" / name))
    assert [result.error for result in results if result.error] == []
    return [result.tree for result in results if result.tree]


def summary(tree):
    return (
        tree.totals.pods,
        tree.totals.gpus,
        [group.min_member for group in tree.pod_groups],
        tree.grouping.value,
        tree.pod_group_count,
    )


@pytest.mark.parametrize(
    ("fixture", "index", "expected"),
    [
        # nimpipeline_controller.go: enabled services only -> llm 2 + embedder 1 pods, 1 GPU each; NIMPipeline is
        # the top owner, unknown to KAI -> default grouper, one PodGroup of minMember 1.
        ("nimpipeline.yaml", 0, (3, 3, [1], "gang", 1)),
        # one run: driver 1 + executor instances 3; top owner unknown to KAI -> one PodGroup, minMember 1.
        ("scheduledsparkapplication.yaml", 0, (4, 0, [1], "gang", 1)),
        # Volcano job controller: PodGroup minMember = spec.minAvailable 3; ps 1 + worker 2 pods, 2 GPUs.
        ("cronjob-volcano.yaml", 0, (3, 2, [3], "gang", 1)),
        # main: predictor replicas 2 for a componentSpec without replicas (2 pods x 1 GPU); canary: 1 pod.
        # hub.go registers SeldonDeployment to the default grouper: one PodGroup, minMember 1.
        ("seldondeployment.yaml", 0, (3, 2, [1], "gang", 1)),
        # one virt-launcher pod; its devices (nvidia.com/GA102GL_A10) are not nvidia.com/gpu: 0 GPUs by default.
        ("virtualmachineinstance.yaml", 0, (1, 0, [1], "gang", 1)),
        # TaskRun: one pod (steps and sidecar are its containers), 1 GPU; default grouper.
        ("tekton.yaml", 0, (1, 1, [1], "gang", 1)),
        # PipelineRun: prepare, train (2 GPUs), notify with taskSpec = 3 pods over the run; publish (taskRef, its Task
        # not given) not counted. train runs after prepare (runAfter) and notify after both (finally:
        # pipelinerunstate.go GetFinalTasks), so at most 1 pod at once (2 GPUs); tests/builtin/test_workflows.py
        # has the run order's own cases.
        ("tekton.yaml", 1, (1, 2, [1], "gang", 1)),
        # Workflow: prepare, then train (4 GPUs) and report side by side (steps.go executeSteps: the outer list runs
        # in order, each inner list in parallel) = 2 pods at once, 3 over the run; KAI skips the Workflow and groups
        # each pod alone, so 2 PodGroups at once.
        ("argo-workflow.yaml", 0, (2, 4, [], "perPod", 2)),
    ],
)
def test_new_kind_totals_and_gangs(fixture, index, expected):
    assert summary(trees(fixture)[index]) == expected


def test_virtual_machine_devices_count_as_gpus_when_named():
    from workloadmap import inspect_documents
    from workloadmap.documents import load_objects

    [result] = inspect_documents(
        load_objects(str(FIXTURES_DIR / "kinds" / "virtualmachineinstance.yaml")),
        gpu_resources=["nvidia.com/GA102GL_A10"],
    )
    assert (result.tree.totals.pods, result.tree.totals.gpus) == (1, 2)


def test_unexpandable_references_are_warned_about():
    _, pipeline = trees("tekton.yaml")
    assert any("taskRef" in warning for warning in pipeline.warnings)


def test_operator_gang_of_a_volcano_cronjob_is_named():
    [tree] = trees("cronjob-volcano.yaml")
    assert any("no pod-grouper plugin for CronJob" in warning for warning in tree.warnings)


def test_argo_workflow_priority_is_train_and_pods_are_grouped_alone():
    [tree] = trees("argo-workflow.yaml")
    assert tree.pod_groups == [] and tree.gang_policy.startswith("KAI skips the Workflow")
