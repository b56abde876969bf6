"""``wmap place`` with the scheduler policies: assignments, workloads given together, flags and errors."""

from __future__ import annotations

import json

import pytest
import yaml

from helpers import FIXTURES_DIR

PLACEMENT = FIXTURES_DIR / "placement"
CLUSTER = str(PLACEMENT / "gpu-racks-tainted.yaml")
LEVELS = "cloud.provider.com/topology-block,cloud.provider.com/topology-rack,kubernetes.io/hostname"


@pytest.fixture
def wmap():
    from typer.testing import CliRunner

    from workloadmap.cli.main import app

    runner = CliRunner()

    def run(*args):
        return runner.invoke(app, ["place", *args])

    return run


def test_json_carries_the_assignment_and_the_policy(wmap):
    result = wmap(str(PLACEMENT / "jobset-slices.yaml"), "-t", CLUSTER, "--levels", LEVELS, "-o", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assignment = report["podGroups"][0]["assignment"]
    assert assignment["domain"] == "b0" and sum(node["pods"] for node in assignment["nodes"]) == 8
    assert report["policy"] == "kueue"
    kai = json.loads(
        wmap(
            str(PLACEMENT / "jobset-slices.yaml"), "-t", CLUSTER, "--levels", LEVELS, "-o", "json", "--policy", "kai"
        ).stdout
    )
    assert kai["policy"] == "kai" and kai["podGroups"][0]["assignment"]["domain"] == "b0"


def test_human_output_shows_the_assignment_and_notes(wmap):
    result = wmap(str(PLACEMENT / "jobset-slices.yaml"), "-t", CLUSTER, "--levels", LEVELS)
    assert result.exit_code == 0, result.output
    assert "assigned b0 [gpu-b0-r0-0 x1, gpu-b0-r0-1 x1, gpu-b0-r0-2 x1, gpu-b0-r0-3 x1, +4 nodes]" in result.stdout
    assert "note: 1 cordoned (unschedulable) node(s) take no pods" in result.stdout
    table = wmap(str(PLACEMENT / "jobset-slices.yaml"), "-t", CLUSTER, "--levels", LEVELS, "-o", "table")
    assert "ASSIGNED:NODES" in table.stdout and "b0:8" in table.stdout


def test_workloads_given_together_share_the_cluster(wmap, tmp_path):
    documents = []
    for index in range(3):
        obj = yaml.safe_load((PLACEMENT / "jobset-slices.yaml").read_text())
        obj["metadata"]["name"] = f"sliced-{index}"
        documents.append(obj)
    path = tmp_path / "three.yaml"
    path.write_text(yaml.safe_dump_all(documents))
    together = wmap(str(path), "-t", CLUSTER, "--levels", LEVELS, "--fail-unfit")
    assert together.exit_code == 3
    assert together.stdout.rstrip().endswith(
        "Together on gpu-racks-tainted (policy kueue): 2 of 3 groups fit; not: JobSet/sliced-2 sliced-2"
    )
    alone = wmap(str(path), "-t", CLUSTER, "--levels", LEVELS, "--each-alone", "--fail-unfit")
    assert alone.exit_code == 0 and "Together" not in alone.stdout
    data = json.loads(wmap(str(path), "-t", CLUSTER, "--levels", LEVELS, "-o", "json").stdout)
    assert [item["fits"] for item in data["items"]] == [True, True, False]
    assert data["items"][2]["placedBefore"][1]["name"] == "sliced-1"


def test_several_clusters_rank_each_workload_after_the_ones_before_it(wmap, tmp_path):
    documents = []
    for index in range(3):
        obj = yaml.safe_load((PLACEMENT / "jobset-slices.yaml").read_text())
        obj["metadata"]["name"] = f"sliced-{index}"
        documents.append(obj)
    path = tmp_path / "three.yaml"
    path.write_text(yaml.safe_dump_all(documents))
    text = (PLACEMENT / "gpu-racks-tainted.yaml").read_text()
    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text(text)
    result = wmap(
        str(path), "-t", str(tmp_path / "a.yaml"), "-t", str(tmp_path / "b.yaml"), "--levels", LEVELS, "-o", "json"
    )
    assert result.exit_code == 0, result.output
    rankings = json.loads(result.stdout)["items"]
    # a cluster holds two of them (one per block); equal clusters rank by name, so the first two
    # go to a, and the third no longer fits a once the two before it are there
    assert [ranking["ranked"][0]["cluster"] for ranking in rankings] == ["a", "a", "b"]
    assert rankings[2]["unfit"][0]["cluster"] == "a"


def test_a_rejected_request_is_one_located_error_and_the_others_are_placed(wmap, tmp_path):
    good = yaml.safe_load((PLACEMENT / "jobset-slices.yaml").read_text())
    bad = yaml.safe_load((PLACEMENT / "jobset-slices.yaml").read_text())
    bad["metadata"]["name"] = "bad"
    annotations = bad["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]["annotations"]
    annotations["kueue.x-k8s.io/podset-slice-size"] = "3"
    path = tmp_path / "mixed.yaml"
    path.write_text(yaml.safe_dump_all([bad, good]))
    result = wmap(str(path), "-t", CLUSTER, "--levels", LEVELS)
    assert result.exit_code == 1
    (line,) = result.stderr.strip().splitlines()
    assert "JobSet/bad" in line and "podset-slice-size" in line and "evenly divide the pod set count 8" in line
    assert "JobSet/sliced on gpu-racks-tainted: fits" in result.stdout


def test_unknown_policy_is_a_usage_error(wmap):
    result = wmap(str(PLACEMENT / "jobset-slices.yaml"), "--policy", "volcano")
    assert result.exit_code == 2 and "--policy" in result.output


# ---------------------------------------------------------------- the policy table


def test_policy_choices_and_help_come_from_the_library_table(wmap):
    from workloadmap.cli.completion import complete
    from workloadmap.cli.main import command_tree
    from workloadmap.placement import DEFAULT_POLICY, POLICIES

    assert complete(command_tree(), ["place", "x.yaml", "--policy", ""])[0] == list(POLICIES)
    help_text = " ".join(wmap("--help").stdout.split())
    for name, policy in POLICIES.items():
        assert f"{name} ({policy.summary})" in help_text
    assert f"Default: {DEFAULT_POLICY}." in help_text
    refused = wmap(str(PLACEMENT / "jobset-slices.yaml"), "--policy", "volcano")
    assert f"'volcano' is not one of {', '.join(POLICIES)}" in refused.output


@pytest.fixture
def refusing_rule(monkeypatch):
    """A test-only rule registered as ``refuse-all`` while the test runs: it places nothing."""
    from workloadmap.placement import POLICIES, Decision, Decisions, SchedulerPolicy

    def refuse_all(nodes, tree, analysis, options):
        return Decisions({group.name: Decision(reason="refused by the test rule") for group in analysis.pod_groups})

    monkeypatch.setitem(POLICIES, "refuse-all", SchedulerPolicy("places nothing", refuse_all))
    return "refuse-all"


def test_a_rule_registered_in_the_table_is_offered_and_used(wmap, refusing_rule):
    from workloadmap.cli.commands.place import _policy_help
    from workloadmap.cli.completion import complete
    from workloadmap.cli.main import command_tree

    assert refusing_rule in complete(command_tree(), ["place", "x.yaml", "--policy", ""])[0]
    assert "or refuse-all (places nothing). Default:" in _policy_help()
    result = wmap(str(PLACEMENT / "jobset-slices.yaml"), "-t", CLUSTER, "--levels", LEVELS, "-o", "json",
                  "--policy", refusing_rule, "--fail-unfit")  # fmt: skip
    assert result.exit_code == 3, result.output
    report = json.loads(result.stdout)
    assert report["policy"] == "refuse-all" and report["verdict"] == "DoesNotFit"
    assert report["podGroups"][0]["reason"] == "refused by the test rule"


def test_a_rule_removed_from_the_table_is_no_longer_offered(wmap):
    from workloadmap.cli.completion import complete
    from workloadmap.cli.main import command_tree

    assert "refuse-all" not in complete(command_tree(), ["place", "x.yaml", "--policy", ""])[0]
    assert wmap(str(PLACEMENT / "jobset-slices.yaml"), "--policy", "refuse-all").exit_code == 2
