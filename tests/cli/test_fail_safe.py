"""The command line fails safe: verdict exit codes, --emit refusing, --timeout, one document at a time, escaping."""

from __future__ import annotations

import json
import time

import pytest
import yaml

from helpers import FIXTURES_DIR
from helpers.hostile import status_message
from workloadmap.topology import SimulationSpec, generate_nodelist

# Three cliques in one scaling group required in one NVLink domain (rack) of two nodes of 8 GPUs and
# 64 cpu: every first-fit order strands a pod (a + b + c / a + b fits), so with a search budget of
# one step that SubGroup's fit is unknown. The PodGroup itself is placed by Kueue's rule on 4 nodes.
CLIQUES = [("a", 2, 2, 32), ("b", 2, 4, 20), ("c", 1, 2, 8)]


@pytest.fixture
def unknown_case(tmp_path):
    nodes = generate_nodelist(SimulationSpec(name="four", racks=2, nodes_per_rack=2, gpus_per_node=8))
    for node in nodes["items"]:
        for key in ("capacity", "allocatable"):
            node["status"][key]["cpu"] = "64"
    cliques = [
        {
            "name": name,
            "spec": {
                "roleName": name,
                "replicas": count,
                "podSpec": {
                    "containers": [
                        {
                            "name": "c",
                            "image": "x",
                            "resources": {"limits": {"nvidia.com/gpu": str(gpus), "cpu": str(cpu)}},
                        }
                    ]
                },  # fmt: skip
            },
        }
        for name, count, gpus, cpu in CLIQUES
    ]
    constraint = {"topologyName": "t", "pack": {"required": "accelerator.topograph.run/domain"}}
    group = {"name": "grp", "cliqueNames": ["a", "b", "c"], "replicas": 1, "topologyConstraint": constraint}
    spec = {"replicas": 1, "template": {"cliques": cliques, "podCliqueScalingGroups": [group]}}
    workload = {"apiVersion": "grove.io/v1alpha1", "kind": "PodCliqueSet", "metadata": {"name": "pcs"}, "spec": spec}
    (tmp_path / "nodes.json").write_text(json.dumps(nodes))
    (tmp_path / "pcs.yaml").write_text(yaml.safe_dump(workload))
    return str(tmp_path / "pcs.yaml"), str(tmp_path / "nodes.json")


def test_fail_unfit_exits_5_when_a_fit_is_unknown(wmap, unknown_case):
    workload, nodes = unknown_case
    result = wmap("place", workload, "-t", nodes, "--search-budget", "1", "--fail-unfit")
    assert result.exit_code == 5, result.output
    # the scaling-group parent is gated by its 3 cliques (KAI v0.17 grove_grouper.go minSubGroup, #1642): min 5 pods
    assert "pcs-0-grp-0 (5 pods, min 5): UNKNOWN" in result.stdout
    assert "search budget spent: 2 domains undecided, none counted as fitting" in result.stdout
    decided = wmap("place", workload, "-t", nodes, "--fail-unfit")
    assert decided.exit_code == 0, decided.output


def test_json_carries_the_verdict_and_undecided_domains(wmap, unknown_case):
    workload, nodes = unknown_case
    report = json.loads(wmap("place", workload, "-t", nodes, "--search-budget", "1", "-o", "json").stdout)
    assert (report["verdict"], report["fits"]) == ("Unknown", False)
    (group,) = report["podGroups"]
    assert (group["verdict"], group["fits"]) == ("Fits", True)
    sub = next(sub for sub in group["subGroups"] if sub["name"] == "pcs-0-grp-0")  # the scaling group's parent
    assert (sub["verdict"], sub["fits"], sub["approximate"]) == ("Unknown", False, True)
    rack = next(fit for fit in sub["levels"] if fit["level"] == "accelerator.topograph.run/domain")
    assert (rack["domains"], rack["fitting"], rack["undecided"]) == (2, 0, 2)


def test_emit_refuses_unknown_gangs_unless_allowed(wmap, unknown_case):
    workload, nodes = unknown_case
    refused = wmap("place", workload, "-t", nodes, "--search-budget", "1", "--emit", "kai")
    assert refused.exit_code == 5 and refused.stdout == ""
    assert "refusing to --emit" in refused.stderr and "pcs-0-grp-0: Unknown" in refused.stderr
    allowed = wmap("place", workload, "-t", nodes, "--search-budget", "1", "--emit", "kai", "--allow-unfit")
    assert allowed.exit_code == 0 and "kind: PodCliqueSet" in allowed.stdout
    assert "WARNING: emitting objects for a gang that may never be scheduled" in allowed.stderr


def test_emit_refuses_gangs_that_do_not_fit(wmap):
    # 16 pods of 8 GPUs on the example cluster of 4 GPU nodes: none fits anywhere.
    path = str(FIXTURES_DIR / "jobset-leader-workers.yaml")
    text = (FIXTURES_DIR / "jobset-leader-workers.yaml").read_text().replace("nvidia.com/gpu: 4", "nvidia.com/gpu: 8")
    assert text != (FIXTURES_DIR / "jobset-leader-workers.yaml").read_text()
    result = wmap("place", "-", "--emit", "kai", stdin=text)
    assert result.exit_code == 3 and result.stdout == "" and "DoesNotFit" in result.stderr
    assert wmap("place", path, "--emit", "kai").exit_code == 0


def test_the_issue_case_exits_3_quickly(wmap, tmp_path):
    """300/500/700/200 pods on 1,008 nodes of 4 GPUs; 90 s and "fit assumed" before counting bounds."""
    nodes = tmp_path / "nodes.json"
    nodes.write_text(json.dumps(generate_nodelist(SimulationSpec(name="gb200", racks=56, nodes_per_rack=18))))
    jobs = []
    for name, count, cpu in [("a", 300, 73), ("b", 500, 74), ("c", 700, 75), ("d", 200, 1)]:
        pod = {"containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": 1, "cpu": cpu}}}]}
        jobs.append(
            {"name": name, "replicas": 1, "template": {"spec": {"parallelism": count, "template": {"spec": pod}}}}
        )
    workload = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "mixed"},
                "spec": {"replicatedJobs": jobs}}  # fmt: skip
    result = wmap("place", "-", "-t", str(nodes), "--fail-unfit", "--timeout", "60s", stdin=yaml.safe_dump(workload))
    assert result.exit_code == 3, result.output
    assert "fit assumed" not in result.stdout and "DOES NOT FIT" in result.stdout


def test_timeout_stops_work_that_never_checks_the_deadline(wmap, monkeypatch):
    """The alarm behind --timeout: an interpretation stuck in a loop with no deadline check still ends."""
    from workloadmap.interpreter import build

    def stuck(*args, **kwargs):
        while True:
            time.sleep(0.05)

    monkeypatch.setattr(build, "inspect", stuck)
    started = time.monotonic()
    result = wmap("inspect", str(FIXTURES_DIR / "jobset-leader-workers.yaml"), "--timeout", "1s")
    assert result.exit_code == 1
    assert "deadline of 1 s (--timeout)" in result.stderr and "Traceback" not in result.output
    assert time.monotonic() - started < 10


def test_timeout_is_checked_between_documents(wmap, monkeypatch, tmp_path):
    from workloadmap.interpreter import build

    real = build.inspect

    def slow(*args, **kwargs):
        time.sleep(0.4)
        return real(*args, **kwargs)

    monkeypatch.setattr(build, "inspect", slow)
    text = (FIXTURES_DIR / "jobset-leader-workers.yaml").read_text()
    (tmp_path / "many.yaml").write_text("\n---\n".join([text] * 20))
    result = wmap("inspect", str(tmp_path / "many.yaml"), "--timeout", "1s", "-o", "table")
    assert result.exit_code == 1 and "interpreting the documents: stopped at the deadline" in result.stderr


@pytest.mark.parametrize(
    "failure, message",
    [
        (ZeroDivisionError("division by zero"), "internal error (ZeroDivisionError: division by zero)"),
        (MemoryError(), "out of memory while handling this document"),
        (RecursionError("maximum recursion depth exceeded"), "nested too deeply to handle"),
    ],
)
def test_one_failing_document_does_not_hide_the_others(wmap, monkeypatch, tmp_path, failure, message):
    from workloadmap.interpreter import build

    real = build.inspect

    def second_fails(resource, **kwargs):
        if resource["metadata"]["name"] == "two":
            raise failure
        return real(resource, **kwargs)

    monkeypatch.setattr(build, "inspect", second_fails)
    text = (FIXTURES_DIR / "jobset-leader-workers.yaml").read_text()
    docs = [text.replace("name: llm-train\n", f"name: {name}\n", 1) for name in ("one", "two", "three")]
    (tmp_path / "three.yaml").write_text("\n---\n".join(docs))
    result = wmap("inspect", str(tmp_path / "three.yaml"))
    assert result.exit_code == 1
    assert "JobSet/one " in result.stdout and "JobSet/three " in result.stdout and "JobSet/two " not in result.stdout
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert "document #2 (JobSet/two)" in line and message in line and "Traceback" not in result.output


EVIL = """
apiVersion: batch/v1
kind: Job
metadata:
  name: "evil\\nTotals: 0 pods, 0 GPUs\\e[2J"
  namespace: "ns\\u202e"
spec:
  template:
    spec:
      containers: [{name: c, image: x}]
"""


def test_names_from_inputs_are_escaped_and_reported_invalid(wmap):
    result = wmap("inspect", "-", stdin=EVIL)
    assert result.exit_code == 0
    assert "\x1b" not in result.output and "\u202e" not in result.output
    assert result.stdout.splitlines()[0].startswith("Job/evil\\nTotals: 0 pods, 0 GPUs\\x1b[2J  namespace ns\\u202e")
    assert [line for line in result.stdout.splitlines() if line.startswith("Totals:")] == ["Totals: 1 pod, 0 GPUs"]
    assert "metadata.name 'evil\\nTotals" in result.stderr and "is not a valid Kubernetes name" in result.stderr
    assert "metadata.namespace" in result.stderr
    machine = json.loads(wmap("inspect", "-", "-o", "json", stdin=EVIL).stdout)
    assert machine["workload"]["name"] == "evil\nTotals: 0 pods, 0 GPUs\x1b[2J"  # machine output stays exact


def test_server_messages_are_escaped(wmap, fake_cluster):
    fake_cluster.server.hostile = status_message("/api/v1/nodes", "bad\x1b[2Jthing")
    result = wmap("cluster", "nodes", "--kubeconfig", str(fake_cluster.kubeconfig))
    assert result.exit_code == 1 and "\x1b" not in result.stderr and "bad\\x1b[2Jthing" in result.stderr


def test_wmap_catalog_is_announced_every_time(wmap, monkeypatch):
    monkeypatch.setenv("WMAP_CATALOG", str(FIXTURES_DIR / "karta" / "trainer-karta.yaml"))
    for _ in range(2):
        result = wmap("inspect", str(FIXTURES_DIR / "jobset-leader-workers.yaml"))
        assert result.exit_code == 0
        assert "WMAP_CATALOG is set: definitions are read from" in result.stderr


def test_budget_flags_name_the_limit_and_raise_it(wmap):
    lws = (FIXTURES_DIR / "leaderworkerset.yaml").read_text()
    tree = yaml.safe_load(lws)
    tree["spec"]["replicas"] = 300
    text = yaml.safe_dump(tree)
    refused = wmap("inspect", "-", "--max-pod-groups", "100", stdin=text)
    assert refused.exit_code == 1 and "300 PodGroups" in refused.stderr and "--max-pod-groups" in refused.stderr
    assert wmap("inspect", "-", "--max-pod-groups", "300", "-o", "json", stdin=text).exit_code == 0
