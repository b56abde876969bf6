"""`wmap admit` and `wmap capacity` against the stand-in API server: queue objects, nodes and pods by LIST only.

The server serves the objects of fixtures/admission/kueue-queues.yaml (as Kueue's controllers
write them: the admitted Workload owned by its PyTorchJob, with status.admission) and the nodes
of the nvl72-4rack preset; the ``fake_cluster`` fixture fails the test on any request but GET.
"""

from __future__ import annotations

import json
import shlex

import yaml
from typer.testing import CliRunner

from helpers import FIXTURES_DIR, REPO_ROOT
from helpers.admission import queue_resources
from helpers.apiserver import fake_cluster  # noqa: F401  (the fixture)
from workloadmap.cli.examples import EXAMPLES
from workloadmap.cli.main import app
from workloadmap.topology import generate_nodelist, get_preset

runner = CliRunner()
FIXTURES = FIXTURES_DIR / "admission"


def _serve(server, *, kueue: bool = True) -> None:
    if kueue:
        server.resources.extend(queue_resources())
        server.add_all(yaml.safe_load((FIXTURES / "kueue-queues.yaml").read_text())["items"])
    server.add_all(generate_nodelist(get_preset("nvl72-4rack"))["items"])


def _admit(kubeconfig, *args: str):
    result = runner.invoke(app, ["admit", *args, "--kubeconfig", str(kubeconfig), "-o", "json"])
    assert "Traceback" not in result.output
    return result


def test_live_queues_and_nodes_give_the_offline_answers(fake_cluster):  # noqa: F811
    _serve(fake_cluster.server)
    result = _admit(fake_cluster.kubeconfig, str(FIXTURES / "workloads" / "eval.yaml"))
    assert result.exit_code == 0, result.output
    (item,) = json.loads(result.stdout)["items"]
    assert (item["clusterQueue"], item["verdict"]) == ("team-a", "admitted")
    result = _admit(fake_cluster.kubeconfig, str(FIXTURES / "workloads" / "gb200-train.yaml"))
    (item,) = json.loads(result.stdout)["items"]
    assert item["verdict"] == "admitted"  # placed on the live nodes of the TAS flavor
    result = _admit(fake_cluster.kubeconfig, str(FIXTURES / "workloads" / "train.yaml"))
    (item,) = json.loads(result.stdout)["items"]
    assert [c["name"] for c in item["preemptionCandidates"]] == ["pytorchjob-big-run-5f2c1"]
    methods = {method for method, _ in fake_cluster.server.requests}
    assert methods == {"GET"}
    paths = [path for _, path in fake_cluster.server.requests]
    assert any(path.startswith("/apis/kueue.x-k8s.io/v1beta2/clusterqueues") for path in paths)
    assert any(path.startswith("/apis/kueue.x-k8s.io/v1beta2/workloads") for path in paths)
    assert any(path.startswith("/api/v1/nodes") for path in paths)


def test_a_cluster_without_kueue(fake_cluster):  # noqa: F811
    _serve(fake_cluster.server, kueue=False)
    result = _admit(fake_cluster.kubeconfig, str(FIXTURES / "workloads" / "eval.yaml"))
    assert result.exit_code == 0, result.output
    (item,) = json.loads(result.stdout)["items"]
    assert (item["verdict"], item["reasons"]) == ("inadmissible", ["LocalQueue team-a doesn't exist"])
    assert "the queue objects hold no ClusterQueue or LocalQueue" in result.stderr


def test_capacity_from_the_live_cluster(fake_cluster):  # noqa: F811
    _serve(fake_cluster.server)
    args = ["capacity", str(FIXTURES / "workloads" / "gb200-train.yaml"), "--kubeconfig", str(fake_cluster.kubeconfig)]
    result = runner.invoke(app, [*args, "-o", "json"])
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)["items"]
    assert (report["copies"], report["quotaCopies"], report["admitted"]) == (4, 4, 4)


def test_the_live_help_example(fake_cluster, monkeypatch):  # noqa: F811
    """`wmap admit job.yaml --fail-pending` of --help, with the kubeconfig from $KUBECONFIG as kubectl reads it."""
    _serve(fake_cluster.server)
    monkeypatch.chdir(REPO_ROOT)
    (example,) = [line for line in EXAMPLES["admit"] if line.startswith("wmap") and "--queues" not in line]
    words = [str(FIXTURES / "workloads" / "eval.yaml") if word == "job.yaml" else word for word in shlex.split(example)]
    result = runner.invoke(app, words[1:], env={"KUBECONFIG": str(fake_cluster.kubeconfig)})
    assert result.exit_code == 0, result.output
    assert "admitted" in result.stdout


def test_kinds_the_user_may_not_list(fake_cluster):  # noqa: F811
    _serve(fake_cluster.server)
    fake_cluster.server.forbidden_lists.add("namespaces")
    result = _admit(fake_cluster.kubeconfig, str(FIXTURES / "workloads" / "eval.yaml"))
    assert result.exit_code == 0, result.output
    assert "note: may not list namespaces: left out of the preview" in result.stderr
    (item,) = json.loads(result.stdout)["items"]
    # team-a's namespaceSelector needs the namespace's labels, which could not be read.
    assert item["verdict"] == "unknown" and "namespace team-a is not among the queue objects" in item["reasons"][0]
    fake_cluster.server.forbidden_lists.add("kueue.x-k8s.io/clusterqueues")
    result = _admit(fake_cluster.kubeconfig, str(FIXTURES / "workloads" / "eval.yaml"))
    assert result.exit_code == 1
    assert len(result.stderr.strip().splitlines()) == 1 and "forbidden" in result.stderr
