"""Native PodGroups' status in `wmap describe` and `wmap get`, read from the stand-in API server.

The objects are shaped as the kubernetes.io concept pages show them (``podgroup-api/_index.md`` "How it
fits together": a Job whose pod template joins PodGroup ``training-worker-0``, gang minCount 4) with the
status kube-scheduler writes: ``PodGroupScheduled`` False, reason ``Unschedulable`` while it cannot place
the gang, True, reason ``Scheduled`` once it did (kubernetes/api ``scheduling/v1alpha2/types.go``
condition and reason constants; kubernetes.io ``podgroup-scheduling.md``). The server serves both
Kubernetes' and KAI's PodGroups, so the lookup must name the API group (a bare ``PodGroup`` is
ambiguous and was never fetched).
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from helpers.apiserver import DEFAULT_RESOURCES, TEST_TOKEN, FakeApiServer, FakeResource
from workloadmap.cli.main import app

runner = CliRunner()

POD_GROUPS = (
    FakeResource("scheduling.k8s.io", "v1alpha2", "podgroups", "podgroup", "PodGroup"),
    FakeResource("scheduling.k8s.io", "v1alpha2", "workloads", "workload", "Workload"),
    FakeResource("scheduling.run.ai", "v2alpha2", "podgroups", "podgroup", "PodGroup", short_names=("pg",)),
)

JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "training", "namespace": "ml", "uid": "job-uid", "creationTimestamp": "2026-01-01T00:00:00Z"},
    "spec": {
        "parallelism": 4,
        "completions": 4,
        "completionMode": "Indexed",
        "template": {
            "spec": {
                "schedulingGroup": {"podGroupName": "training-worker-0"},
                "restartPolicy": "Never",
                "containers": [{"name": "ml-worker", "image": "training:v1", "resources": {"requests": {"cpu": "1"}}}],
            }
        },
    },
}


def pod_group(status, reason, message=None):
    condition = {"type": "PodGroupScheduled", "status": status, "reason": reason}
    if message:
        condition["message"] = message
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "training-worker-0", "namespace": "ml"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}},
        "status": {"conditions": [condition]},
    }


@pytest.fixture
def cluster(tmp_path, monkeypatch):
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    server = FakeApiServer((*DEFAULT_RESOURCES, *POD_GROUPS), token=TEST_TOKEN).start()
    try:
        yield server, str(server.write_kubeconfig(tmp_path / "kubeconfig"))
    finally:
        server.stop()
    assert all(method == "GET" for method, _ in server.requests)


def _run(*args):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_describe_shows_the_podgroups_status(cluster):
    server, kubeconfig = cluster
    server.add(JOB)
    server.add(pod_group("False", "Unschedulable", "0/3 nodes are available"))
    result = _run("describe", "job/training", "-n", "ml", "--kubeconfig", kubeconfig)
    assert result.exit_code == 0, result.output
    assert "training-worker-0  minMember 4 of 4 pods" in result.stdout
    assert (
        "from PodGroup training-worker-0 (scheduling.k8s.io/v1alpha2): "
        "PodGroupScheduled=False Unschedulable: 0/3 nodes are available"
    ) in result.stdout
    report = json.loads(_run("describe", "job/training", "-n", "ml", "--kubeconfig", kubeconfig, "-o", "json").stdout)
    source = report["podGroups"][0]["source"]
    assert source["type"] == "WorkloadAPI" and source["conditions"][0]["reason"] == "Unschedulable"
    assert any(
        "/apis/scheduling.k8s.io/v1alpha2/namespaces/ml/podgroups/training-worker-0" in path
        for _, path in server.requests
    )


@pytest.mark.parametrize(
    ("status", "reason", "column"), [("True", "Scheduled", "True"), ("False", "Unschedulable", "False(Unschedulable)")]
)
def test_get_wide_shows_the_scheduled_column(cluster, status, reason, column):
    server, kubeconfig = cluster
    server.add(JOB)
    server.add(pod_group(status, reason))
    result = _run("get", "jobs", "-n", "ml", "--kubeconfig", kubeconfig, "-o", "wide")
    assert result.exit_code == 0, result.output
    header, row = result.stdout.splitlines()[:2]
    assert header.split()[-2:] == ["SCHEDULED", "GANGS"]
    assert row.split()[-5:] == [column, "1", "PodGroup", "min", "4"]
    items = json.loads(_run("get", "jobs", "-n", "ml", "--kubeconfig", kubeconfig, "-o", "json").stdout)["items"]
    assert items[0]["live"]["scheduled"] == column


def test_get_without_native_gangs_shows_a_dash(cluster):
    server, kubeconfig = cluster
    plain = json.loads(json.dumps(JOB))
    del plain["spec"]["template"]["spec"]["schedulingGroup"]
    server.add(plain)
    result = _run("get", "jobs", "-n", "ml", "--kubeconfig", kubeconfig, "-o", "wide")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1].split()[-5] == "-"


def test_the_job_controllers_podgroup_is_found_by_its_hashed_name(cluster):
    # With EnableWorkloadWithJob the controller made the PodGroup computePodGroupName(computeWorkloadName(job),
    # "<job>-pgt-0") and the pods join it; the Job's template names none. describe finds it by that name.
    from workloadmap.interpreter.job_controller import pod_group_name, workload_name

    server, kubeconfig = cluster
    plain = json.loads(json.dumps(JOB))
    del plain["spec"]["template"]["spec"]["schedulingGroup"]
    plain["status"] = {"startTime": "2026-01-01T00:00:05Z", "active": 4}
    server.add(plain)
    made = pod_group("True", "Scheduled")
    made["metadata"]["name"] = pod_group_name(workload_name("training", "job-uid"), "training-pgt-0")
    server.add(made)
    args = ("describe", "job/training", "-n", "ml", "--kubeconfig", kubeconfig)
    result = _run(*args, "--feature-gates", "EnableWorkloadWithJob=true")
    assert result.exit_code == 0, result.output
    assert (
        f"from PodGroup {made['metadata']['name']} (scheduling.k8s.io/v1alpha2), the Job controller's" in result.stdout
    )
    assert "PodGroupScheduled=True Scheduled" in result.stdout
    assert made["metadata"]["name"] not in _run(*args).stdout  # gate off: the definition's gang
