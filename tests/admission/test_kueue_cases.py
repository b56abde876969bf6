"""Kueue's flavor-assigner and scheduler test cases (tests/data/admission/kueue_cases.yaml) through `wmap admit`.

Each case cites the upstream file, test and subtest it comes from; the expected verdicts,
flavors, modes, borrowing and messages are Kueue's. The dump is written as `kubectl get ... -o
yaml` prints it and the workload as the Job or JobSet a user submits; the command runs as a
user runs it (`wmap admit FILE --queues DUMP -o json`).
"""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from helpers import DATA_DIR
from helpers.admission import admitted_workload, job, jobset, priority_class, write_documents, write_list
from workloadmap.cli.main import app

DATA = yaml.safe_load((DATA_DIR / "admission" / "kueue_cases.yaml").read_text())
CASES = DATA["cases"]
runner = CliRunner()


def _dump(case: dict) -> list[dict]:
    objects = [*DATA["flavors"].get(case.get("flavors", ""), []), *case["objects"]]
    if not any(obj["kind"] == "LocalQueue" for obj in objects):
        objects.append(
            {
                "apiVersion": "kueue.x-k8s.io/v1beta2",
                "kind": "LocalQueue",
                "metadata": {"name": "lq", "namespace": "default"},
                "spec": {"clusterQueue": "cq"},
            }
        )
    objects += [admitted_workload(spec) for spec in case.get("admitted", [])]
    objects += [priority_class(spec) for spec in case.get("priorityClasses", [])]
    return objects


def run_case(case: dict, tmp_path) -> dict[str, dict]:
    """Run `wmap admit` on the case: its items by workload name."""
    dump = write_list(tmp_path / "queues.yaml", _dump(case))
    workloads = [job(spec) for spec in case.get("jobs", [])] + [jobset(spec) for spec in case.get("jobsets", [])]
    files = write_documents(tmp_path / "workloads.yaml", workloads)
    result = runner.invoke(app, ["admit", str(files), "--queues", str(dump), "-o", "json"])
    assert result.exit_code == 0, result.output
    return {item["workload"]["name"]: item for item in json.loads(result.stdout)["items"]}


def _check(item: dict, want: dict) -> None:
    assert item["verdict"] == want["verdict"], item
    for key in ("reason", "priority"):
        if key in want:
            assert item[key] == want[key], item
    if "reasons" in want:
        assert item["reasons"] == want["reasons"]
    pod_sets = {pod_set["name"]: pod_set for pod_set in item["podSets"]}
    first = item["podSets"][0]
    if "flavors" in want:
        assert first["flavors"] == want["flavors"], item
    if "mode" in want:
        assert first["mode"] == want["mode"], item
    if "borrowing" in want:
        assert first["borrowing"] is want["borrowing"], item
    for name, expected in want.get("podSets", {}).items():
        for key, value in expected.items():
            assert pod_sets[name][key] == value, (name, item)
    if "candidates" in want:
        found = [{"name": c["name"], "reason": c["reason"]} for c in item["preemptionCandidates"]]
        assert sorted(found, key=str) == sorted(want["candidates"], key=str)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_kueue_case(case, tmp_path):
    items = run_case(case, tmp_path)
    for want in case["expect"]:
        _check(items[want["name"]], want)


def test_every_case_cites_its_source():
    assert len(CASES) >= 25
    for case in CASES:
        assert case["source"].startswith(("fat Test", "st Test")), case["name"]
        assert case["name"].lower().replace(";", "").replace(":", "")[:20] in case["source"].lower().replace(
            ";", ""
        ).replace(":", ""), case["name"]
