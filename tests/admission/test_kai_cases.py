"""KAI Scheduler's queue quota cases (tests/data/admission/kai_cases.yaml) through `wmap admit`.

Each case cites the upstream file and test; the verdicts (KAI's Running/Pending) and the
messages (unschedule_info.go) are KAI's. Queues are written as `kubectl get queues -o yaml`
prints them, the gangs as the Jobs a user submits with `schedulerName: kai-scheduler`.
"""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from helpers import DATA_DIR
from helpers.admission import kai_job, kai_queue, write_documents, write_list
from workloadmap.admission.kai import humanize, over_limit_message, over_quota_message
from workloadmap.cli.main import app

CASES = yaml.safe_load((DATA_DIR / "admission" / "kai_cases.yaml").read_text())["cases"]
runner = CliRunner()


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_kai_case(case, tmp_path):
    queues = write_list(tmp_path / "queues.yaml", [kai_queue(spec) for spec in case["queues"]])
    jobs = write_documents(tmp_path / "jobs.yaml", [kai_job(spec) for spec in case["jobs"]])
    result = runner.invoke(app, ["admit", str(jobs), "--queues", str(queues), "-o", "json"])
    assert result.exit_code == 0, result.output
    items = {item["workload"]["name"]: item for item in json.loads(result.stdout)["items"]}
    for want in case["expect"]:
        item = items[want["name"]]
        assert item["scheduler"] == "kai"
        assert item["verdict"] == want["verdict"], item
        for key in ("reason", "quota", "reasons"):
            if key in want:
                assert item[key] == want[key], item


# pkg/scheduler/api/unschedule_info_test.go: the messages, word for word.
def test_kai_over_limit_messages():
    assert over_limit_message("gpu-queue", "gpu", 8, 6, 4) == (
        "gpu-queue quota has reached the allowable limit of GPUs. Limit is 8 GPUs, currently 6 GPUs allocated and "
        "workload requested 4 GPUs"
    )
    assert over_limit_message("cpu-queue", "cpu", 16000, 12000, 8000) == (
        "cpu-queue quota has reached the allowable limit of CPU cores. Limit is 16 cores, currently 12 cores "
        "allocated and workload requested 8 cores"
    )
    assert over_limit_message("memory-queue", "memory", 500e9, 400e9, 200e9) == (
        "memory-queue quota has reached the allowable limit of memory. Limit is 500 GB, currently 400 GB allocated "
        "and workload requested 200 GB"
    )


def test_kai_non_preemptible_messages():
    request = {"cpu": 6000.0, "memory": 200e9, "gpu": 0.0}
    assert over_quota_message("cpu-queue", "cpu", 8000, 4000, request) == (
        "Non-preemptible workload is over quota. Workload requested 6 CPU cores, but cpu-queue quota is 8 cores, "
        "while 4 cores are already allocated for non-preemptible pods. Use a preemptible workload to go over quota."
    )
    assert over_quota_message("memory-queue", "memory", 100e9, 50e9, request) == (
        "Non-preemptible workload is over quota. Workload requested 200 GB memory, but memory-queue quota is 100 GB, "
        "while 50 GB are already allocated for non-preemptible pods. Use a preemptible workload to go over quota."
    )


def test_humanize_is_kais():
    # base_resources.go HumanizeResource: Unlimited for -1, humanize.FtoaWithDigits(v/unit, 3).
    assert humanize(-1, 1) == "Unlimited"
    assert humanize(1234.5678, 1000) == "1.235"
    assert humanize(0.5, 1) == "0.5"
    assert humanize(0, 1) == "0"
