"""`wmap admit` as users run it: a file, a directory, standard input, exit codes, the JSON contract.

The fixtures (fixtures/admission) are a kubectl dump of a small Kueue setup and of KAI queues;
the expectations follow from Kueue's rules worked by hand in each test (the numbers are in the
fixtures' comments), not from wmap's output.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from helpers import FIXTURES_DIR
from workloadmap.cli.main import app

FIXTURES = FIXTURES_DIR / "admission"
QUEUES = str(FIXTURES / "kueue-queues.yaml")
WORKLOADS = FIXTURES / "workloads"
runner = CliRunner()


def _run(*args: str, stdin: str | None = None):
    result = runner.invoke(app, list(args), input=stdin)
    assert "Traceback" not in result.output
    return result


def _items(result) -> dict[str, dict]:
    document = json.loads(result.stdout)
    assert document["kind"] == "List" and document["apiVersion"] == "v1"
    return {item["workload"]["name"]: item for item in document["items"]}


def test_a_file_prints_one_line_per_workload_and_per_pod_set():
    result = _run("admit", str(WORKLOADS / "eval.yaml"), "--queues", QUEUES)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "PODS", "VERDICT", "QUEUE/FLAVOR", "MESSAGE"]
    # team-a: 16 h100 GPUs nominal; team-b's big-run holds 24, borrowing 8 of team-a's: 8 are left for the 4 asked.
    assert lines[1].split()[:4] == ["Job/eval", "2", "admitted", "team-a"]
    assert lines[2].split()[:4] == ["podset/main", "2", "Fit", "h100"]


def test_the_json_contract():
    result = _run("admit", str(WORKLOADS / "eval.yaml"), "--queues", QUEUES, "-o", "json")
    item = _items(result)["eval"]
    assert {"workload", "localQueue", "clusterQueue", "verdict", "podSets", "reasons"} <= set(item)
    assert item["workload"] == {"kind": "Job", "namespace": "team-a", "name": "eval"}
    assert (item["localQueue"], item["clusterQueue"], item["verdict"]) == ("team-a", "team-a", "admitted")
    assert item["podSets"] == [
        {"name": "main", "count": 2, "flavors": {"cpu": "h100", "memory": "h100", "nvidia.com/gpu": "h100"},
         "borrowing": False, "mode": "Fit"}
    ]  # fmt: skip
    assert item["reasons"] == ["Quota reserved in ClusterQueue team-a", "The workload is admitted"]


def test_reclaim_from_the_borrowing_queue_is_named_as_a_possibility():
    result = _run("admit", str(WORKLOADS / "train.yaml"), "--queues", QUEUES, "-o", "json")
    item = _items(result)["llm-train"]
    # 16 GPUs asked, 8 unused: within team-a's nominal 16, and team-b borrows, so Kueue reclaims.
    assert item["verdict"] == "pending" and item["reason"] == "WaitingForPreemptedWorkloads"
    assert item["priority"] == 1000  # WorkloadPriorityClass high
    assert [c["name"] for c in item["preemptionCandidates"]] == ["pytorchjob-big-run-5f2c1"]
    assert item["preemptionCandidates"][0]["reason"] == "InCohortReclamation"
    assert item["reasons"] == [
        "couldn't assign flavors to pod set worker: insufficient unused quota for nvidia.com/gpu in flavor h100, "
        "8 more needed. Pending the preemption of 1 workload(s)"
    ]
    assert [(p["name"], p["mode"]) for p in item["podSets"]] == [("master", "Fit"), ("worker", "Preempt")]


def test_a_directory_is_taken_in_kueues_order():
    result = _run("admit", str(WORKLOADS), "--queues", QUEUES, "-o", "json")
    assert result.exit_code == 0, result.output
    names = [item["workload"]["name"] for item in json.loads(result.stdout)["items"]]
    # Priority first (llm-train is high: 1000), then creation time (none: the order given).
    assert names == ["llm-train", "eval", "nvl-train"]
    items = _items(result)
    # llm-train's preemption sets its 16 GPUs aside (scheduler.go processEntry: cq.AddUsage), so eval waits.
    assert items["eval"]["verdict"] == "pending" and items["eval"]["reason"] == "WaitingForQuota"
    # Without the cluster's nodes a topology-aware flavor cannot be decided.
    assert items["nvl-train"]["verdict"] == "unknown"
    assert "give the cluster's nodes (-t)" in items["nvl-train"]["reasons"][0]


def test_standard_input_for_the_workload_and_for_the_queues():
    workload = (WORKLOADS / "eval.yaml").read_text()
    result = _run("admit", "-", "--queues", QUEUES, "-o", "json", stdin=workload)
    assert result.exit_code == 0, result.output
    assert _items(result)["eval"]["verdict"] == "admitted"
    queues = (FIXTURES / "kueue-queues.yaml").read_text()
    result = _run("admit", str(WORKLOADS / "eval.yaml"), "--queues", "-", "-o", "json", stdin=queues)
    assert result.exit_code == 0, result.output
    assert _items(result)["eval"]["verdict"] == "admitted"


def test_fail_pending_exit_codes():
    assert _run("admit", str(WORKLOADS / "eval.yaml"), "--queues", QUEUES, "--fail-pending").exit_code == 0
    assert _run("admit", str(WORKLOADS / "train.yaml"), "--queues", QUEUES, "--fail-pending").exit_code == 3
    assert _run("admit", str(WORKLOADS / "gb200-train.yaml"), "--queues", QUEUES, "--fail-pending").exit_code == 5
    # Without --fail-pending the verdict does not change the exit code.
    assert _run("admit", str(WORKLOADS / "train.yaml"), "--queues", QUEUES).exit_code == 0


def test_topology_aware_flavor_placed_on_the_nodes():
    args = ["admit", str(WORKLOADS / "gb200-train.yaml"), "--queues", QUEUES, "-t", "preset:nvl72-4rack", "-o", "json"]
    item = _items(_run(*args))["nvl-train"]
    # 16 pods of 4 GPUs in one NVL72 domain (18 nodes of 4 GPUs): it fits, and gb200 has 256 GPUs of quota.
    assert item["verdict"] == "admitted"
    assert item["podSets"][0]["flavors"]["nvidia.com/gpu"] == "gb200"


def test_topology_that_never_fits_is_pending_with_the_placement_reason(tmp_path):
    big = (WORKLOADS / "gb200-train.yaml").read_text().replace("parallelism: 16", "parallelism: 20")
    big = big.replace("completions: 16", "completions: 20")
    path = tmp_path / "big.yaml"
    path.write_text(big)
    item = _items(_run("admit", str(path), "--queues", QUEUES, "-t", "preset:nvl72-4rack", "-o", "json"))["nvl-train"]
    # 20 pods of 4 GPUs need 20 nodes; an NVL72 domain has 18: not even on empty nodes (TopologyPlacementFailed).
    assert item["verdict"] == "pending" and item["reason"] == "TopologyPlacementFailed"
    assert "fails even on its empty nodes" in item["reasons"][-1]


def test_kai_queues():
    result = _run(
        "admit", str(FIXTURES / "kai" / "train.yaml"), "--queues", str(FIXTURES / "kai-queues.yaml"), "-o", "json"
    )
    item = _items(result)["kai-train"]
    # team-a: 8 of 16 deserved GPUs allocated, limit 32; the gang asks 16: over quota, under the limits.
    assert (item["scheduler"], item["queue"], item["verdict"], item["quota"]) == (
        "kai",
        "team-a",
        "admitted",
        "overQuota",
    )
    gpu = next(figure for figure in item["queueFigures"] if figure["resource"] == "gpu")
    assert (gpu["deserved"], gpu["limit"], gpu["allocated"], gpu["requested"]) == (16, 32, 8, 16)


def test_kai_explicitly_for_a_workload_that_names_no_scheduler():
    result = _run("admit", str(WORKLOADS / "eval.yaml"), "--queues", str(FIXTURES / "kai-queues.yaml"),
                  "--scheduler", "kai", "-o", "json")  # fmt: skip
    item = _items(result)["eval"]
    # No kai.scheduler/queue label: KAI's default-queue, which these queues lack.
    assert (item["verdict"], item["reasons"]) == ("inadmissible", ["Queue 'default-queue' does not exist"])


def test_the_command_line_offers_the_library_s_schedulers():
    from workloadmap.admission import SCHEDULERS
    from workloadmap.cli.commands import admit

    for name in SCHEDULERS:
        assert admit._check_scheduler(name) == name
    result = _run("admit", str(WORKLOADS / "eval.yaml"), "--scheduler", "volcano")
    assert result.exit_code == 2 and f"'volcano' is not one of {', '.join(SCHEDULERS)}" in result.output


def test_kai_gang_that_passes_quota_must_fit_the_free_nodes(tmp_path):
    import yaml

    from workloadmap import load_cluster

    nodes = [node.name for node in load_cluster("preset:nvl72-4rack").nodes]

    def pods_using(gpus: int):
        pods = [
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"busy-{index}", "namespace": "other"},
             "spec": {"nodeName": name, "containers": [{"name": "c", "image": "x",
                      "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}]},
             "status": {"phase": "Running"}}
            for index, name in enumerate(nodes)
        ]  # fmt: skip
        path = tmp_path / f"pods-{gpus}.yaml"
        path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "PodList", "items": pods}))
        return str(path)

    small = tmp_path / "small.yaml"  # the same gang with 2 GPUs a pod: 8 GPUs, team-a's deserved 16 reached
    small.write_text((FIXTURES / "kai" / "train.yaml").read_text().replace("nvidia.com/gpu: 4", "nvidia.com/gpu: 2"))
    args = ["--queues", str(FIXTURES / "kai-queues.yaml"), "-t", "preset:nvl72-4rack", "-o", "json"]
    # Every node keeps 2 of its 4 GPUs: the running pods are counted once, so 2-GPU pods fit.
    half = _items(_run("admit", str(small), *args, "--pods", pods_using(2)))["kai-train"]
    assert (half["verdict"], half["quota"]) == ("admitted", "withinQuota")
    # Every GPU taken: quota would let it run, the nodes do not.
    full = _items(_run("admit", str(small), *args, "--pods", pods_using(4)))["kai-train"]
    assert (full["verdict"], full["quota"]) == ("pending", "withinQuota")
    assert full["reasons"][-1].startswith("the free nodes do not hold the gang now")
