"""Tests for workloadmap.phases: realistic status blocks per built-in kind -> normalized phase.

Each status block is what the kind's controller writes (conditions, counters) in that situation;
the expected phase is what that situation means, not what the definition happens to compute.
"""

from __future__ import annotations

import pytest
import yaml

from workloadmap.definitions import Definition
from workloadmap.interpreter import evaluate_phase


def phase_of(builtin_catalog, name: str, resource: dict) -> tuple[str, list[str]]:
    return evaluate_phase(builtin_catalog.get(name).status, resource)


def cond(type_, status, reason=None):
    condition = {"type": type_, "status": status, "lastTransitionTime": "2025-03-01T10:00:00Z"}
    if reason:
        condition["reason"] = reason
    return condition


# ------------------------------------------------------------------------------------------ Pod


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Pending", "Initializing"),
        ("Running", "Running"),
        ("Succeeded", "Completed"),
        ("Failed", "Failed"),
        ("Unknown", "Undefined"),
    ],
)
def test_pod_phase(builtin_catalog, raw, expected):
    pod = {"kind": "Pod", "status": {"phase": raw, "conditions": [cond("PodScheduled", "True")]}}
    assert phase_of(builtin_catalog, "pod", pod)[0] == expected


# ------------------------------------------------------------------------------------------ Job


def test_job_running_with_ready_pods(builtin_catalog):
    # 2 active, 2 ready: Running; Initializing (active > 0) also matches and loses on precedence
    job = {"status": {"active": 2, "ready": 2, "startTime": "2025-03-01T10:00:00Z"}}
    assert phase_of(builtin_catalog, "job", job) == ("Running", ["Running", "Initializing"])


def test_job_active_but_not_ready_is_initializing(builtin_catalog):
    job = {"status": {"active": 2, "ready": 0, "startTime": "2025-03-01T10:00:00Z"}}
    assert phase_of(builtin_catalog, "job", job) == ("Initializing", ["Initializing"])


def test_job_complete(builtin_catalog):
    job = {
        "status": {
            "succeeded": 2,
            "active": 0,
            "ready": 0,
            "conditions": [
                cond("SuccessCriteriaMet", "True", "CompletionsReached"),
                cond("Complete", "True", "CompletionsReached"),
            ],
        }
    }
    assert phase_of(builtin_catalog, "job", job)[0] == "Completed"


def test_job_failed_with_failure_target(builtin_catalog):
    job = {
        "status": {
            "failed": 7,
            "active": 0,
            "conditions": [
                cond("FailureTarget", "True", "BackoffLimitExceeded"),
                cond("Failed", "True", "BackoffLimitExceeded"),
            ],
        }
    }
    assert phase_of(builtin_catalog, "job", job)[0] == "Failed"


def test_job_suspended_while_pods_terminate(builtin_catalog):
    # suspending a Job keeps counting active pods until they are gone: Suspended wins over Initializing
    job = {"status": {"active": 1, "ready": 0, "conditions": [cond("Suspended", "True", "JobSuspended")]}}
    phase, phases = phase_of(builtin_catalog, "job", job)
    assert phase == "Suspended"
    assert phases == ["Suspended", "Initializing"]


def test_job_resumed_condition_false_is_not_suspended(builtin_catalog):
    job = {"status": {"active": 1, "ready": 1, "conditions": [cond("Suspended", "False", "JobResumed")]}}
    assert phase_of(builtin_catalog, "job", job)[0] == "Running"


# ------------------------------------------------------------------------------------ Deployment


def deployment(status, replicas=3, generation=2):
    return {"metadata": {"name": "d", "generation": generation}, "spec": {"replicas": replicas}, "status": status}


def test_deployment_rolled_out_is_running(builtin_catalog):
    status = {
        "observedGeneration": 2, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 3, "availableReplicas": 3,
        "conditions": [
            cond("Available", "True", "MinimumReplicasAvailable"),
            cond("Progressing", "True", "NewReplicaSetAvailable"),
        ],
    }  # fmt: skip
    assert phase_of(builtin_catalog, "deployment", deployment(status))[0] == "Running"


def test_deployment_progress_deadline_exceeded_is_failed(builtin_catalog):
    status = {
        "observedGeneration": 2, "replicas": 3, "updatedReplicas": 1, "readyReplicas": 2, "unavailableReplicas": 1,
        "conditions": [
            cond("Available", "True", "MinimumReplicasAvailable"),
            cond("Progressing", "False", "ProgressDeadlineExceeded"),
        ],
    }  # fmt: skip
    assert phase_of(builtin_catalog, "deployment", deployment(status))[0] == "Failed"


def test_deployment_losing_a_ready_pod_is_degraded(builtin_catalog):
    # all 3 updated, only 1 ready after a node loss: degraded, not initializing
    status = {
        "observedGeneration": 2, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 1, "availableReplicas": 1,
        "conditions": [
            cond("Available", "False", "MinimumReplicasUnavailable"),
            cond("Progressing", "True", "NewReplicaSetAvailable"),
        ],
    }  # fmt: skip
    assert phase_of(builtin_catalog, "deployment", deployment(status))[0] == "Degraded"


def test_new_deployment_is_initializing(builtin_catalog):
    status = {
        "observedGeneration": 1, "replicas": 3, "updatedReplicas": 3, "unavailableReplicas": 3,
        "conditions": [
            cond("Available", "False", "MinimumReplicasUnavailable"),
            cond("Progressing", "True", "ReplicaSetUpdated"),
        ],
    }  # fmt: skip
    assert phase_of(builtin_catalog, "deployment", deployment(status, generation=1))[0] == "Initializing"


# ----------------------------------------------------------------------------------- StatefulSet


def statefulset(status, replicas=4):
    return {"metadata": {"name": "s", "generation": 1}, "spec": {"replicas": replicas}, "status": status}


def test_statefulset_all_ready_is_running(builtin_catalog):
    status = {
        "observedGeneration": 1, "replicas": 4, "readyReplicas": 4, "availableReplicas": 4, "currentReplicas": 4,
        "updatedReplicas": 4, "currentRevision": "s-1", "updateRevision": "s-1",
    }  # fmt: skip
    assert phase_of(builtin_catalog, "statefulset", statefulset(status)) == ("Running", ["Running"])


def test_statefulset_starting_is_initializing(builtin_catalog):
    status = {"observedGeneration": 1, "replicas": 1, "currentReplicas": 1, "updatedReplicas": 1,
              "currentRevision": "s-1", "updateRevision": "s-1"}  # fmt: skip
    assert phase_of(builtin_catalog, "statefulset", statefulset(status))[0] == "Initializing"


def test_statefulset_rolling_update_is_initializing(builtin_catalog):
    status = {
        "observedGeneration": 1, "replicas": 4, "readyReplicas": 4, "currentReplicas": 2, "updatedReplicas": 2,
        "currentRevision": "s-1", "updateRevision": "s-2",
    }  # fmt: skip
    assert phase_of(builtin_catalog, "statefulset", statefulset(status))[0] == "Initializing"


def test_statefulset_fixture_is_degraded(builtin_catalog):
    from helpers import load_fixture

    # 2 of 4 ready, update complete (revisions equal, 4 updated)
    assert phase_of(builtin_catalog, "statefulset", load_fixture("statefulset.yaml")) == ("Degraded", ["Degraded"])


# ---------------------------------------------------------------------------------------- JobSet


def rj_status(name, **counts):
    base = {"name": name, "replicas": 1, "ready": 0, "active": 0, "succeeded": 0, "failed": 0, "suspended": 0}
    base.update(counts)
    return base


def test_jobset_running(builtin_catalog):
    jobset = {
        "status": {"replicatedJobsStatus": [rj_status("leader", active=1, ready=1), rj_status("workers", active=1)]}
    }
    assert phase_of(builtin_catalog, "jobset", jobset)[0] == "Running"


def test_jobset_completed(builtin_catalog):
    jobset = {
        "status": {
            "conditions": [cond("Completed", "True", "AllJobsCompleted")],
            "replicatedJobsStatus": [rj_status("leader", succeeded=1), rj_status("workers", succeeded=1)],
        }
    }
    assert phase_of(builtin_catalog, "jobset", jobset) == ("Completed", ["Completed"])


def test_jobset_failed_beats_running(builtin_catalog):
    # the failure condition is set while other jobs still have active pods being torn down
    jobset = {
        "status": {
            "conditions": [cond("Failed", "True", "FailedJobs")],
            "replicatedJobsStatus": [rj_status("leader", active=1), rj_status("workers", failed=1)],
        }
    }
    assert phase_of(builtin_catalog, "jobset", jobset) == ("Failed", ["Failed", "Running"])


def test_jobset_suspended(builtin_catalog):
    jobset = {
        "status": {
            "conditions": [cond("Suspended", "True", "SuspendedJobs")],
            "replicatedJobsStatus": [rj_status("leader", suspended=1)],
        }
    }
    assert phase_of(builtin_catalog, "jobset", jobset)[0] == "Suspended"


# ------------------------------------------------------------------------------ PyTorchJob / MPIJob


@pytest.mark.parametrize("name", ["pytorchjob", "mpijob"])
def test_kubeflow_created_only_is_initializing(builtin_catalog, name):
    job = {"status": {"conditions": [cond("Created", "True", "JobCreated")]}}
    assert phase_of(builtin_catalog, name, job) == ("Initializing", ["Initializing"])


@pytest.mark.parametrize("name", ["pytorchjob", "mpijob"])
def test_kubeflow_running(builtin_catalog, name):
    job = {"status": {"conditions": [cond("Created", "True"), cond("Running", "True", "JobRunning")]}}
    assert phase_of(builtin_catalog, name, job) == ("Running", ["Running", "Initializing"])


@pytest.mark.parametrize("name", ["pytorchjob", "mpijob"])
def test_kubeflow_succeeded(builtin_catalog, name):
    job = {
        "status": {
            "conditions": [
                cond("Created", "True"),
                cond("Running", "False", "JobSucceeded"),
                cond("Succeeded", "True", "JobSucceeded"),
            ],
            "completionTime": "2025-03-01T11:00:00Z",
        }
    }
    assert phase_of(builtin_catalog, name, job)[0] == "Completed"


@pytest.mark.parametrize("name", ["pytorchjob", "mpijob"])
def test_kubeflow_failed(builtin_catalog, name):
    job = {
        "status": {
            "conditions": [cond("Created", "True"), cond("Running", "False"), cond("Failed", "True", "JobFailed")]
        }
    }
    assert phase_of(builtin_catalog, name, job)[0] == "Failed"


@pytest.mark.parametrize("name", ["pytorchjob", "mpijob"])
def test_kubeflow_suspended(builtin_catalog, name):
    job = {
        "status": {
            "conditions": [cond("Created", "True"), cond("Running", "False"), cond("Suspended", "True", "JobSuspended")]
        }
    }
    assert phase_of(builtin_catalog, name, job)[0] == "Suspended"


# -------------------------------------------------------------------------------------- RayCluster


def test_raycluster_ready(builtin_catalog):
    ray = {"spec": {}, "status": {"state": "ready", "readyWorkerReplicas": 2}}
    assert phase_of(builtin_catalog, "raycluster", ray)[0] == "Running"


def test_raycluster_failed(builtin_catalog):
    ray = {"spec": {}, "status": {"state": "failed", "reason": "head pod crashed"}}
    assert phase_of(builtin_catalog, "raycluster", ray)[0] == "Failed"


def test_raycluster_suspended_outranks_stale_ready_state(builtin_catalog):
    ray = {"spec": {"suspend": True}, "status": {"state": "ready"}}
    assert phase_of(builtin_catalog, "raycluster", ray) == ("Suspended", ["Suspended", "Running"])


# --------------------------------------------------------------------------------- LeaderWorkerSet


def test_lws_progressing_is_initializing(builtin_catalog):
    lws = {
        "status": {"replicas": 2, "readyReplicas": 0, "conditions": [cond("Progressing", "True", "GroupsProgressing")]}
    }
    assert phase_of(builtin_catalog, "leaderworkerset", lws)[0] == "Initializing"


def test_lws_available_is_running(builtin_catalog):
    lws = {
        "status": {
            "replicas": 2, "readyReplicas": 2,
            "conditions": [cond("Available", "True", "AllGroupsReady"), cond("Progressing", "False", "Ready"),
                           cond("UpdateInProgress", "False")],
        }
    }  # fmt: skip
    assert phase_of(builtin_catalog, "leaderworkerset", lws)[0] == "Running"


# ----------------------------------------------------------------------------- no status / general


@pytest.mark.parametrize(
    "name",
    ["pod", "job", "deployment", "statefulset", "jobset", "pytorchjob", "mpijob", "raycluster", "leaderworkerset"],
)
@pytest.mark.parametrize("status", [None, {}], ids=["absent", "empty"])
def test_no_status_is_undefined(builtin_catalog, name, status):
    resource = {"metadata": {"name": "x", "generation": 1}, "spec": {"replicas": 1, "suspend": True}}
    if status is not None:
        resource["status"] = status
    assert phase_of(builtin_catalog, name, resource) == ("Undefined", [])


def make_status(rules: str):
    definition = Definition.model_validate(
        yaml.safe_load(
            "name: t\ngroup: g\nkind: T\nversions: [v1]\ncomponents: [{name: p, podTemplate: spec.template}]\n" + rules
        )
    ).compile()
    return definition.status


def test_precedence_is_fixed_not_declaration_order():
    # rules declared Initializing first; Failed must still win
    status = make_status(
        "status:\n  phase: status.phase\n  rules:\n"
        "    Initializing: [{phase: X}]\n    Running: [{phase: X}]\n    Failed: [{phase: X}]\n"
    )
    assert evaluate_phase(status, {"status": {"phase": "X"}}) == ("Failed", ["Failed", "Running", "Initializing"])


def test_matcher_checks_are_anded_and_matchers_ored():
    status = make_status(
        "status:\n  phase: status.phase\n  rules:\n"
        "    Running:\n      - {phase: Up, conditions: [{type: Ready, status: 'True'}]}\n"
        "    Degraded:\n      - {phase: Sick}\n      - {conditions: [{type: Ready, status: 'False'}]}\n"
    )
    ready = [{"type": "Ready", "status": "True"}]
    assert evaluate_phase(status, {"status": {"phase": "Up", "conditions": ready}})[0] == "Running"
    # phase matches but the condition does not: Running's single matcher fails as a whole
    assert evaluate_phase(status, {"status": {"phase": "Up"}})[0] == "Undefined"
    # either Degraded matcher is enough
    assert evaluate_phase(status, {"status": {"phase": "Sick"}})[0] == "Degraded"
    assert evaluate_phase(status, {"status": {"conditions": [{"type": "Ready", "status": "False"}]}})[0] == "Degraded"


def test_reason_list_and_custom_condition_fields():
    status = make_status(
        "status:\n  conditions: status.events\n  conditionFields: {type: kind, status: state, reason: why}\n"
        "  rules:\n    Failed:\n      - conditions: [{type: Broken, status: 'yes', reason: [OOM, Crash]}]\n"
    )
    event = {"kind": "Broken", "state": "yes", "why": "Crash"}
    assert evaluate_phase(status, {"status": {"events": [event]}})[0] == "Failed"
    event["why"] = "Other"
    assert evaluate_phase(status, {"status": {"events": [event]}})[0] == "Undefined"


def test_expression_with_equals_compares_loosely_across_types():
    status = make_status(
        "status:\n  rules:\n"
        "    Suspended: [{expression: spec.suspend, equals: 'true'}]\n"
        "    Running: [{expression: status.readyReplicas, equals: 3}]\n"
    )
    assert evaluate_phase(status, {"spec": {"suspend": True}, "status": {"x": 1}})[0] == "Suspended"
    assert evaluate_phase(status, {"spec": {}, "status": {"readyReplicas": 3.0}})[0] == "Running"
    assert evaluate_phase(status, {"spec": {}, "status": {"readyReplicas": 2}})[0] == "Undefined"


def test_expression_truthiness_follows_jmespath():
    status = make_status("status:\n  rules:\n    Running: [{expression: status.count}]\n")
    # JMESPath: 0 is true; null, false, "" and empty containers are false
    assert evaluate_phase(status, {"status": {"count": 0}})[0] == "Running"
    for falsy in (None, False, "", [], {}):
        assert evaluate_phase(status, {"status": {"count": falsy, "x": 1}})[0] == "Undefined"
