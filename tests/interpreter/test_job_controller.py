"""The Job controller's own Workload and PodGroup (KEP-5547), behind ``--feature-gates``.

Expected values come from kubernetes ``pkg/controller/job``: ``util/utils_test.go``
``TestIsGangSchedulingCandidate`` (1.36 eligibility), ``job_scheduling_manager_test.go``
``TestShouldManageWorkloadForJob``, ``TestGenerateWorkload``, ``TestEnsureWorkloadAndPodGroup``,
``TestComputeWorkloadName`` and ``TestComputePodGroupName`` (1.36 and 1.37 revisions), the code's
``buildPodGroupTemplates`` (1.36: ``gang {minCount: parallelism}``, template ``<job>-pgt-0``) and the
kubernetes.io ``workload-api/_index.md`` section "Gang scheduling with Jobs"; the hash is Go's FNV-1a
(``hash/fnv/fnv_test.go`` ``golden32a``) spelled by apimachinery's ``rand.SafeEncodeString``.
"""

from __future__ import annotations

import copy
import json

import pytest

from workloadmap import inspect
from workloadmap.budgets import parse_feature_gates, with_feature_gates
from workloadmap.interpreter import ObjectIndex
from workloadmap.interpreter.job_controller import (
    _fnv1a32,
    gang_scheduling_candidate,
    pod_group_name,
    template_name,
    workload_name,
)
from workloadmap.tree import GangOrigin

ALPHA, GATE = "EnableWorkloadWithJob", "WorkloadWithJob"

JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "train", "namespace": "ml", "uid": "uid-123"},
    "spec": {
        "parallelism": 4,
        "completions": 4,
        "completionMode": "Indexed",
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "w", "image": "x", "resources": {"requests": {"cpu": "1"}}}],
            }
        },
    },
}


def job(**changes):
    obj = copy.deepcopy(JOB)
    for path, value in changes.items():
        *parents, last = path.split("__")
        node = obj
        for key in parents:
            node = node.setdefault(key, {})
        if value is None:
            node.pop(last, None)
        else:
            node[last] = value
    return obj


def gangs(obj, *gates, related=None):
    with with_feature_gates(gates):
        tree = inspect(obj, related=related)
    return tree, [(group.name, group.min_member, group.pods) for group in tree.pod_groups]


EXPECTED_NAME = pod_group_name(workload_name("train", "uid-123"), "train-pgt-0")


# -- names -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("", 0x811C9DC5), ("a", 0xE40C292C), ("ab", 0x4D2505CA), ("abc", 0x1A47E90B)],
)
def test_fnv1a32_is_gos(text, value):
    # Go hash/fnv/fnv_test.go golden32a.
    assert _fnv1a32(text.encode()) == value


def test_template_name_is_the_job_controllers():
    # podGroupTemplateName / buildPodGroupTemplates: fmt.Sprintf("%s-pgt-%d", job.Name, 0).
    assert template_name("train") == "train-pgt-0"


@pytest.mark.parametrize(
    ("job_name", "uid"),
    [("my-job", "uid-123"), ("j" * 253, "uid-456")],  # TestComputeWorkloadName: short and too long names
)
def test_compute_workload_name(job_name, uid):
    name = workload_name(job_name, uid)
    assert len(name) <= 253
    assert len(name.split("-")) >= 2
    assert name == workload_name(job_name, uid)  # deterministic
    assert name != workload_name(job_name, "different-uid")  # "different UIDs should produce different names"
    assert set(name.rpartition("-")[2]) <= set("bcdfghjklmnpqrstvwxz2456789")  # SafeEncodeString's alphabet


@pytest.mark.parametrize(
    ("workload", "template"),
    [("my-workload", "my-template"), ("w" * 250, "tpl"), ("wl", "t" * 250), ("w" * 200, "t" * 200)],
    ids=["short names", "long workload name", "long template name", "both long names"],
)
def test_compute_pod_group_name(workload, template):
    # TestComputePodGroupName: fits 253, at least wl-tpl-hash, deterministic; short names are kept whole.
    name = pod_group_name(workload, template)
    assert len(name) <= 253 and len(name.split("-")) >= 3
    assert name == pod_group_name(workload, template)
    if len(workload) + len(template) < 230:
        assert name.startswith(f"{workload}-{template}-")
    if workload == "wl":
        assert name.startswith("wl-t")  # the short part whole, the long one cut


# -- 1.36: EnableWorkloadWithJob -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parallelism", "completions", "indexed", "grouped", "eligible"),
    [
        (4, 4, True, False, True),  # indexed, parallelism=completions>1
        (2, 2, True, False, True),  # minimum parallelism of 2
        (None, 4, True, False, False),  # nil parallelism
        (1, 1, True, False, False),  # parallelism=1
        (0, 0, True, False, False),  # parallelism=0
        (4, 4, False, False, False),  # non-indexed
        (4, None, True, False, False),  # nil completions
        (4, 8, True, False, False),  # completions != parallelism
        (4, 4, True, True, False),  # schedulingGroup already set
    ],
)
def test_is_gang_scheduling_candidate(parallelism, completions, indexed, grouped, eligible):
    # pkg/controller/job/util/utils_test.go TestIsGangSchedulingCandidate.
    assert gang_scheduling_candidate(parallelism, completions, indexed, grouped) is eligible


def test_gate_off_keeps_the_definitions_gang():
    # feature gate disabled -> not managed (the EnableWorkloadWithJob feature gate defaults to false).
    tree, found = gangs(job())
    assert found == [("train", 1, 4)] and tree.pod_groups[0].source.type is GangOrigin.CATALOG


def test_alpha_gate_gangs_an_indexed_job_by_parallelism():
    # buildPodGroupTemplates: gang minCount = *job.Spec.Parallelism; the PodGroup computePodGroupName(wl, tpl).
    tree, found = gangs(job(), ALPHA)
    assert found == [(EXPECTED_NAME, 4, 4)]
    source = tree.pod_groups[0].source
    assert (source.type, source.feature_gate, source.kind, source.created) == (
        GangOrigin.JOB_CONTROLLER,
        ALPHA,
        "PodGroup",
        False,
    )
    assert ALPHA in tree.gang_policy


@pytest.mark.parametrize(
    "changes",
    [
        {"spec__completionMode": "NonIndexed"},
        {"spec__completions": 8},
        {"spec__parallelism": 1, "spec__completions": 1},
    ],
)
def test_alpha_gate_leaves_other_jobs_alone(changes):
    _, found = gangs(job(**changes), ALPHA)
    assert [name for name, *_ in found] == ["train"]


def test_no_uid_names_the_gang_after_its_template():
    tree, found = gangs(job(metadata__uid=None), ALPHA)
    assert found == [("train-pgt-0", 4, 4)]
    assert any("no metadata.uid" in warning for warning in tree.warnings)


@pytest.mark.parametrize(
    "status",
    [{"startTime": "2026-01-01T00:00:00Z"}, {"succeeded": 1}, {"failed": 1}, {"conditions": [{"type": "Suspended"}]}],
    ids=["startTime set", "succeeded=1", "failed=1", "previously suspended"],
)
def test_a_started_job_gets_no_objects(status):
    # TestEnsureWorkloadAndPodGroup "skips creation when ..." (isNewJob).
    tree, found = gangs(job(status=status), ALPHA)
    assert [name for name, *_ in found] == ["train"]
    assert any("isNewJob" in warning for warning in tree.warnings)


def test_an_existing_podgroup_is_read_with_its_status():
    # TestEnsureWorkloadAndPodGroup "discovers existing": the controller adopts its PodGroup; kube-scheduler's
    # PodGroupScheduled condition is kept on the gang's source.
    pod_group = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": EXPECTED_NAME, "namespace": "ml"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}},
        "status": {"conditions": [{"type": "PodGroupScheduled", "status": "True", "reason": "Scheduled"}]},
    }
    started = job(status={"startTime": "2026-01-01T00:00:00Z"})
    tree, found = gangs(started, ALPHA, related=ObjectIndex([pod_group]))
    assert found == [(EXPECTED_NAME, 4, 4)]
    source = tree.pod_groups[0].source
    assert source.created and source.api_version == "scheduling.k8s.io/v1alpha2"
    assert source.condition("PodGroupScheduled").reason == "Scheduled"


# -- 1.37: WorkloadWithJob -----------------------------------------------------------------------------


def test_standalone_job_is_managed_and_basic_by_default():
    # TestShouldManageWorkloadForJob "gate enabled, standalone Job -> managed";
    # TestGenerateWorkload "nil scheduling defaults to Basic" (basic: no minimum, kube-scheduler's minimum 1).
    tree, found = gangs(job(), GATE)
    assert found == [(EXPECTED_NAME, 1, 4)] and tree.pod_groups[0].source.feature_gate == GATE


def test_basic_single_pod_job_is_still_managed():
    _, found = gangs(job(spec__parallelism=1, spec__completions=1, spec__completionMode=None), GATE)
    assert found == [(EXPECTED_NAME, 1, 1)]


@pytest.mark.parametrize(
    ("scheduling", "minimum"),
    [
        ({}, 1),  # scheduling set but policy nil defaults to Basic
        ({"schedulingPolicy": {"basic": {}}}, 1),  # explicit basic policy
        ({"schedulingPolicy": {"gang": {"minCount": 3}}}, 3),  # gang with explicit minCount
        ({"schedulingPolicy": {"gang": {}}}, 4),  # gang without minCount defaults to parallelism
    ],
)
def test_generate_workload_policy(scheduling, minimum):
    # TestGenerateWorkload (parallelism 4).
    _, found = gangs(job(spec__scheduling=scheduling), GATE)
    assert found == [(EXPECTED_NAME, minimum, 4)]


def test_topology_passes_through():
    # TestGenerateWorkload "gang, topology, disruption, and claims passthrough".
    scheduling = {
        "schedulingPolicy": {"gang": {}},
        "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]},
    }
    tree, _ = gangs(job(spec__scheduling=scheduling), GATE)
    assert tree.pod_groups[0].topology_constraint.required_level == "topology.kubernetes.io/zone"


def test_byo_podgroup_is_not_managed():
    # "BYO PodGroup via pod template schedulingGroup -> not managed": the pods join the user's PodGroup.
    obj = job()
    obj["spec"]["template"]["spec"]["schedulingGroup"] = {"podGroupName": "mine"}
    tree, found = gangs(obj, GATE)
    assert [name for name, *_ in found] == ["train"]
    assert tree.pod_groups[0].source.type is GangOrigin.CATALOG


@pytest.mark.parametrize(
    "owner",
    [
        {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "js", "controller": True, "uid": "u"},
        {"apiVersion": "batch/v1", "kind": "CronJob", "name": "cj", "controller": True, "uid": "u"},
    ],
    ids=["parent-owned Workload without delegation annotation", "CronJob-owned Job is treated as parent-owned"],
)
def test_parent_owned_job_is_not_managed(owner):
    _, found = gangs(job(metadata__ownerReferences=[owner]), GATE)
    assert [name for name, *_ in found] == ["train"]


def test_delegated_job_is_said_not_modelled():
    owner = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "js", "controller": True}
    obj = job(metadata__ownerReferences=[owner], metadata__annotations={"scheduling.k8s.io/group-template-name": "w"})
    tree, found = gangs(obj, GATE)
    assert [name for name, *_ in found] == ["train"]
    assert any("group-template-name" in warning for warning in tree.warnings)


# -- the flag ----------------------------------------------------------------------------------------------


def test_parse_feature_gates():
    assert parse_feature_gates(["EnableWorkloadWithJob=true,WorkloadWithJob=false"]) == {ALPHA: True, GATE: False}
    with pytest.raises(ValueError, match="unrecognized feature gate: Foo"):
        parse_feature_gates(["Foo=true"])
    with pytest.raises(ValueError, match="want true or false"):
        parse_feature_gates(["WorkloadWithJob"])


def _wmap(*args, stdin):
    from typer.testing import CliRunner

    from workloadmap.cli.main import app

    return CliRunner().invoke(app, list(args), input=stdin)


def test_inspect_with_the_flag():
    done = _wmap("inspect", "-", "-o", "json", "--feature-gates", f"{ALPHA}=true", stdin=json.dumps(JOB))
    assert done.exit_code == 0, done.output
    (group,) = json.loads(done.stdout)["podGroups"]
    assert group["minMember"] == 4 and group["source"]["type"] == "JobController"
    bad = _wmap("inspect", "-", "--feature-gates", "Foo=true", stdin=json.dumps(JOB))
    assert bad.exit_code == 2 and "unrecognized feature gate: Foo" in bad.output
