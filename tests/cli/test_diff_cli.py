"""``wmap diff``: two versions of workloads from files, directories, standard input or the cluster, at 80 columns.

The figures are the fixtures' (fixtures/diff/v1 and v2, worked out in their comments); tests/diff
checks the library's differences field by field, these the command line's words and exit codes.
"""

from __future__ import annotations

import json

import yaml

from helpers import FIXTURES_DIR

V1 = str(FIXTURES_DIR / "diff" / "v1")
V2 = str(FIXTURES_DIR / "diff" / "v2")
WIDTH = 80


def _fits(text: str) -> list[str]:
    lines = text.splitlines()
    assert all(len(line) <= WIDTH for line in lines), [line for line in lines if len(line) > WIDTH]
    return lines


def test_diff_of_two_directories_per_workload_and_component(wmap, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    result = wmap("diff", V1, V2)
    assert result.exit_code == 0, result.stderr
    lines = _fits(result.stdout)
    assert lines[0] == "~ jobset/llm-train (research): changed"
    assert lines[1] == "├── pods 3 -> 5, GPUs 12 -> 36, cpu 40 -> 72, memory 320Gi -> 832Gi"
    text = " ".join(line.strip("│├└─ ") for line in lines)
    assert "~ component workers: pods/replica 2 -> 4, pods 2 -> 4" in text
    assert "GPUs/pod 4 -> 8, GPUs 8 -> 32, memory/pod 128Gi -> 192Gi" in text
    required = "kueue.x-k8s.io/podset-required-topology (none) -> accelerator.topograph.run/domain"
    assert required in " ".join(text.split())
    assert "~ PodGroup llm-train: minMember 3 -> 5, pods 3 -> 5, workers pods 2 -> 4" in text
    assert "+ leaderworkerset/serve (research): added (2 pods, 4 GPUs)" in lines
    assert "- job/eval (research): removed (2 pods, 2 GPUs)" in lines
    assert lines[-1] == "3 workloads: 1 added, 1 removed, 1 changed, 0 unchanged"


def test_with_a_cluster_it_says_whether_the_verdict_changes_and_why(wmap, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    lines = _fits(wmap("diff", V1, V2, "-t", "preset:nvl72-4rack").stdout)
    text = " ".join(" ".join(line.strip("│├└─ ") for line in lines).split())
    assert "placement on nvl72-4rack (kueue): fits -> DOES NOT FIT" in text
    # v2's workers ask 8 GPUs a pod; the preset's nodes have 4 (GB200 NVL72: 18 nodes x 4 GPUs a rack)
    assert "~ PodGroup llm-train: verdict fits -> DOES NOT FIT: each workers pod needs 8 GPUs; the nodes have 4" in text


def test_exit_code_and_standard_input(wmap):
    assert wmap("diff", V1, V2, "--exit-code").exit_code == 1
    same = wmap("diff", V1, V1, "--exit-code")
    assert same.exit_code == 0 and same.stdout == "2 workloads: 0 added, 0 removed, 0 changed, 2 unchanged\n"
    with open(FIXTURES_DIR / "diff" / "v2" / "jobset.yaml") as handle:
        piped = wmap("diff", str(FIXTURES_DIR / "diff" / "v1" / "jobset.yaml"), "-", stdin=handle.read())
    assert piped.exit_code == 0 and piped.stdout.startswith("~ jobset/llm-train (research): changed")


def test_json_is_the_librarys_diff(wmap):
    data = json.loads(wmap("diff", V1, V2, "-o", "json").stdout)
    first = data["workloads"][0]
    assert (first["status"], first["workload"]["name"]) == ("Changed", "llm-train")
    assert {change["field"]: [change["old"], change["new"]] for change in first["changes"]}["totals.gpus"] == [12, 36]
    assert [item["status"] for item in data["workloads"]] == ["Changed", "Added", "Removed"]


def test_usage_errors_exit_2(wmap):
    assert wmap("diff", V1).exit_code == 2  # NEW missing
    assert wmap("diff", "--live", V1, V2).exit_code == 2  # --live takes NEW alone
    assert wmap("diff", "-", "-").exit_code == 2
    assert wmap("diff", V1, V2, "--policy", "volcano").exit_code == 2
    missing = wmap("diff", V1, str(FIXTURES_DIR / "no-such-dir"))
    assert missing.exit_code == 1 and missing.stderr.count("\n") == 1 and "Traceback" not in missing.stderr


def test_live_compares_with_the_clusters_objects(fake_cluster, wmap):
    for path in (FIXTURES_DIR / "diff" / "v1").glob("*.yaml"):
        fake_cluster.server.add(yaml.safe_load(path.read_text()))
    result = wmap("diff", "--live", V2, "--kubeconfig", str(fake_cluster.kubeconfig))
    assert result.exit_code == 0, result.stderr
    # The cluster runs v1: the JobSet changes, the LWS is not there yet; the Job eval is in the
    # cluster but not in the files, and kubectl diff -f compares only what the files hold.
    assert result.stdout.splitlines()[-1] == "2 workloads: 1 added, 0 removed, 1 changed, 0 unchanged"
    assert {method for method, _ in fake_cluster.server.requests} == {"GET"}
