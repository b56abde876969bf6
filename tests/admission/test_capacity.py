"""`wmap capacity`: copies placed in turn, per domain of the gangs' level, and what the quota admits.

The figures are worked from the preset's shape: nvl72-4rack has 4 NVLink domains of 18 nodes
with 4 GPUs each (72 GPUs per domain, 288 in all).
"""

from __future__ import annotations

import json
import shlex

import pytest
from typer.testing import CliRunner

from helpers import FIXTURES_DIR, REPO_ROOT
from workloadmap import inspect_file, load_cluster
from workloadmap.admission import capacity
from workloadmap.admission.capacity import copy_bound
from workloadmap.cli.examples import EXAMPLES
from workloadmap.cli.main import app

runner = CliRunner()
FIXTURES = FIXTURES_DIR / "admission"
NVL = load_cluster("preset:nvl72-4rack")


def _tree(text: str, tmp_path):
    path = tmp_path / "workload.yaml"
    path.write_text(text)
    (result,) = inspect_file(str(path))
    return result.tree


def _gangs(pods: int) -> str:
    text = (FIXTURES / "workloads" / "gb200-train.yaml").read_text()
    return text.replace("parallelism: 16", f"parallelism: {pods}").replace("completions: 16", f"completions: {pods}")


def test_one_copy_per_nvlink_domain(tmp_path):
    # 16 pods of 4 GPUs need 16 of a domain's 18 nodes: one copy per domain, four in all.
    report = capacity(_tree(_gangs(16), tmp_path), NVL)
    assert (report.level, report.copies, report.lower_bound) == ("accelerator.topograph.run/domain", 4, False)
    assert [domain.copies for domain in report.domains] == [1, 1, 1, 1]


def test_fragmentation_a_gpu_count_hides(tmp_path):
    # 12 pods (48 GPUs) per copy: 288 free GPUs count 6 copies, but a domain holds one (72 < 96).
    tree = _tree(_gangs(12), tmp_path)
    assert copy_bound(tree, NVL) == 6
    report = capacity(tree, NVL)
    assert report.copies == 4
    assert [domain.copies for domain in report.domains] == [1, 1, 1, 1]


def test_small_gangs_pack_several_per_domain(tmp_path):
    # 4 pods (16 GPUs): 18 nodes hold 4 copies (16 nodes), 2 nodes left over in each domain.
    report = capacity(_tree(_gangs(4), tmp_path), NVL)
    assert [domain.copies for domain in report.domains] == [4, 4, 4, 4]
    assert report.copies == 16


def test_the_limit_makes_a_lower_bound(tmp_path):
    report = capacity(_tree(_gangs(4), tmp_path), NVL, limit=3)
    assert (report.copies, report.lower_bound) == (3, True)


def test_with_the_quota(tmp_path):
    args = ["capacity", str(FIXTURES / "workloads" / "gb200-train.yaml"), "-t", "preset:nvl72-4rack",
            "--queues", str(FIXTURES / "kueue-queues.yaml"), "-o", "json"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)["items"]
    # gb200's nominal 256 GPUs admit 4 copies of 64; the fifth waits for quota.
    assert (report["copies"], report["quotaCopies"], report["admitted"]) == (4, 4, 4)
    assert report["quotaReason"].endswith(
        "insufficient unused quota for nvidia.com/gpu in flavor gb200, 64 more needed"
    )


def test_kai_quota_limits_the_copies():
    args = ["capacity", str(FIXTURES / "kai" / "train.yaml"), "-t", "preset:h100-2spine",
            "--queues", str(FIXTURES / "kai-queues.yaml"), "-o", "json"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)["items"]
    # 64 nodes of 8 GPUs hold 32 copies of 16 GPUs; team-a's limit 32 with 8 allocated admits one.
    assert (report["copies"], report["quotaCopies"], report["admitted"]) == (32, 1, 1)
    assert report["quotaReason"].startswith("team-a quota has reached the allowable limit of GPUs")


def test_human_output_and_plain_forms(tmp_path):
    text = (FIXTURES / "workloads" / "gb200-train.yaml").read_text()
    result = runner.invoke(app, ["capacity", "-", "-t", "preset:nvl72-4rack"], input=text)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "JobSet/nvl-train: 4 more copies fit nvl72-4rack"
    result = runner.invoke(app, ["capacity", str(FIXTURES / "workloads"), "-t", "preset:nvl72-4rack", "-o", "json"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["items"]) == 3


EXAMPLE_LINES = [line for name in ("admit", "capacity") for line in EXAMPLES[name] if line.startswith("wmap ")]


@pytest.mark.parametrize("line", [line for line in EXAMPLE_LINES if "--queues" in line or " -t " in line])
def test_help_examples_run(line, monkeypatch):
    """Every offline example of `wmap admit --help` and `wmap capacity --help` (the live one: test_live.py)."""
    monkeypatch.chdir(REPO_ROOT)
    result = runner.invoke(app, shlex.split(line)[1:])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and result.stdout


def test_every_example_is_run():
    offline = [line for line in EXAMPLE_LINES if "--queues" in line or " -t " in line]
    live = [line for line in EXAMPLE_LINES if line not in offline]
    assert live == ["wmap admit job.yaml --fail-pending"]  # run against the stand-in API in test_live.py
