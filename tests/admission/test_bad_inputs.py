"""Bad queue dumps and inputs: one line naming the file, the document and the field; exit 1; no traceback."""

from __future__ import annotations

import pytest
import yaml
from typer.testing import CliRunner

from helpers import FIXTURES_DIR
from helpers.admission import cluster_queue, flavor, job, kai_queue, local_queue, write_documents, write_list
from workloadmap.cli.main import app

runner = CliRunner()
BASE = [flavor("default"), local_queue("lq", "cq")]


def _queue_with(**changes):
    queue = cluster_queue("cq", {"default": {"cpu": 4}})
    for path, value in changes.items():
        node = queue
        keys = path.split(".")
        for key in keys[:-1]:
            node = node[int(key)] if key.isdigit() else node[key]
        node[keys[-1]] = value
    return queue


BAD = {
    "an invalid quantity": (
        [*BASE, _queue_with(**{"spec.resourceGroups.0.flavors.0.resources.0.nominalQuota": "2x"})],
        "field spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
    ),
    "a negative quota": (
        [*BASE, _queue_with(**{"spec.resourceGroups.0.flavors.0.resources.0.nominalQuota": "-1"})],
        "field spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: must not be negative",
    ),
    "resourceGroups not a list": (
        [*BASE, _queue_with(**{"spec.resourceGroups": {"cpu": 4}})],
        "field spec.resourceGroups: expected a list, got dict",
    ),
    "an unknown queueing strategy": (
        [*BASE, _queue_with(**{"spec.queueingStrategy": "Random"})],
        "field spec.queueingStrategy: 'Random' is not one of StrictFIFO, BestEffortFIFO",
    ),
    "a resource its group does not cover": (
        [*BASE, _queue_with(**{"spec.resourceGroups.0.flavors.0.resources.0.name": "memory"})],
        "field spec.resourceGroups[0].flavors[0].resources[0].name: memory is not one of the group's coveredResources",
    ),
    "an object without a name": (
        [*BASE, {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {}, "spec": {}}],
        "field metadata.name: is required",
    ),
    "a bad taint effect": (
        [*BASE, flavor("tainted", nodeTaints=[{"key": "a", "effect": "Sometimes"}])],
        "(ResourceFlavor/tainted), field spec.nodeTaints[0].effect",
    ),
    "a KAI quota that is not a number": (
        [{**kai_queue({"name": "q"}), "spec": {"resources": {"gpu": {"quota": "lots"}}}}],
        "(Queue/q), field spec.resources.gpu.quota: expected a number, got 'lots'",
    ),
    "a Workload usage that is not a quantity": (
        [*BASE, _queue_with(), {
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": "w", "namespace": "default"},
            "spec": {"podSets": []},
            "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [
                {"name": "main", "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "many"}}]},
                "conditions": [{"type": "QuotaReserved", "status": "True"}]},
        }],
        "(Workload/w), field status.admission.podSetAssignments[0].resourceUsage.cpu",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_dump_is_one_located_line(name, tmp_path):
    objects, expected = BAD[name]
    dump = write_list(tmp_path / "queues.yaml", objects)
    workload = write_documents(tmp_path / "job.yaml", [job({"name": "wl", "requests": {"cpu": "1"}})])
    result = runner.invoke(app, ["admit", str(workload), "--queues", str(dump)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error: {dump}, document #1 item ")
    assert expected in lines[0]


def test_a_document_that_is_not_an_object(tmp_path):
    dump = tmp_path / "queues.yaml"
    dump.write_text(yaml.safe_dump(["not", "an", "object"]))
    result = runner.invoke(
        app, ["admit", str(FIXTURES_DIR / "admission" / "workloads" / "eval.yaml"), "--queues", str(dump)]
    )
    assert result.exit_code == 1
    assert result.stderr.strip() == f"error: {dump}, document #1: expected a Kubernetes object (a mapping)"


def test_unparsable_yaml_and_missing_files(tmp_path):
    workload = str(FIXTURES_DIR / "admission" / "workloads" / "eval.yaml")
    broken = tmp_path / "queues.yaml"
    broken.write_text("items: [unclosed\n")
    result = runner.invoke(app, ["admit", workload, "--queues", str(broken)])
    assert result.exit_code == 1 and str(broken) in result.stderr and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1
    missing = tmp_path / "nowhere.yaml"
    result = runner.invoke(app, ["admit", workload, "--queues", str(missing)])
    assert result.exit_code == 1
    assert result.stderr.strip() == f"error: {missing}: no such file or directory"
    result = runner.invoke(app, ["admit", str(missing), "--queues", str(broken)])
    assert result.exit_code == 1 and "Traceback" not in result.output


def test_usage_errors_exit_2():
    workload = str(FIXTURES_DIR / "admission" / "workloads" / "eval.yaml")
    assert runner.invoke(app, ["admit", workload, "--queues", "x", "--scheduler", "slurm"]).exit_code == 2
    assert runner.invoke(app, ["admit", workload, "--queues", "x", "-o", "tree"]).exit_code == 2
    assert runner.invoke(app, ["capacity", workload, "-t", "preset:nvl72-4rack", "--max-copies", "0"]).exit_code == 2


def test_the_dump_file_is_never_changed(tmp_path):
    dump = write_list(tmp_path / "queues.yaml", [*BASE, _queue_with()])
    before = dump.read_bytes()
    workload = write_documents(tmp_path / "job.yaml", [job({"name": "wl", "requests": {"cpu": "1"}})])
    assert runner.invoke(app, ["admit", str(workload), "--queues", str(dump)]).exit_code == 0
    assert dump.read_bytes() == before
