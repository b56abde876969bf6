"""``-o`` as kubectl has it: wide, name, jsonpath, custom-columns (and their file forms), on what -o json prints."""

from __future__ import annotations

import json

import pytest
import yaml

from helpers import FIXTURES_DIR

JOBSET = str(FIXTURES_DIR / "jobset-leader-workers.yaml")
LWS = str(FIXTURES_DIR / "leaderworkerset.yaml")


def test_inspect_name_is_kind_dot_group_slash_name_as_kubectl_prints_it(wmap):
    result = wmap("inspect", JOBSET, str(FIXTURES_DIR / "statefulset.yaml"), "-o", "name")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "jobset.jobset.x-k8s.io/llm-train"
    assert lines[1].startswith("statefulset.apps/")


def test_inspect_wide_adds_columns_and_never_cuts(wmap, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    table = wmap("inspect", JOBSET, "-o", "table").stdout
    wide = wmap("inspect", JOBSET, "-o", "wide").stdout
    # At 60 columns MEMORY, the first column to give way, is left out; -o wide shows it again.
    assert table.splitlines()[0].split() == ["NAME", "COMPONENT", "PHASE", "PODS", "GPUS", "CPU"]
    assert all(len(line) <= 60 for line in table.splitlines())
    assert "jobset/llm-train" in table.splitlines()[1]  # the name is never cut
    header = wide.splitlines()[0].split()
    assert header[0] == "NAMESPACE"
    assert header[-6:] == ["MEMORY", "REPLICAS", "GPUS/POD", "CPU/POD", "MEMORY/POD", "DEFINITION"]
    assert "jobset/llm-train" in wide and "research" in wide  # whole, however narrow the terminal


def test_jsonpath_sees_exactly_what_json_prints(wmap):
    single = wmap("inspect", JOBSET, "-o", "jsonpath={.workload.name} {.totals.gpus}")
    assert single.stdout == "llm-train 12"  # kubectl adds no newline either
    several = wmap(
        "inspect", JOBSET, LWS, "-o", 'jsonpath={range .items[*]}{.workload.kind}={.totals.pods}{"\\n"}{end}'
    )
    documents = json.loads(wmap("inspect", JOBSET, LWS, "-o", "json").stdout)["items"]
    assert several.stdout == "".join(f"{item['workload']['kind']}={item['totals']['pods']}\n" for item in documents)


def test_jsonpath_as_json_and_file(wmap, tmp_path):
    result = wmap("inspect", JOBSET, "-o", "jsonpath-as-json={.podGroups[*].minSubGroup}")
    assert json.loads(result.stdout) == [2]  # a JobSet's PodGroup is gated by its 2 replicatedJobs (KAI v0.16+)
    template = tmp_path / "t.txt"
    template.write_text("{.definition}")
    assert wmap("inspect", JOBSET, "-o", f"jsonpath-file={template}").stdout == "jobset"


def test_custom_columns_one_row_per_item(wmap, tmp_path):
    result = wmap("inspect", JOBSET, LWS, "-o", "custom-columns=NAME:.workload.name,GPUS:totals.gpus,X:.nope")
    assert result.exit_code == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows[0] == ["NAME", "GPUS", "X"]
    assert rows[1] == ["llm-train", "12", "<none>"]
    spec = tmp_path / "columns.txt"
    spec.write_text("NAME          PODS\n.workload.name .totals.pods\n")
    from_file = wmap("inspect", JOBSET, "-o", f"custom-columns-file={spec}").stdout.splitlines()
    assert [line.split() for line in from_file] == [["NAME", "PODS"], ["llm-train", "3"]]


@pytest.mark.parametrize(
    "value",
    ["jsonpath", "jsonpath={.a", "custom-columns=NAME", "custom-columns=:.a", "yamll", "jsonpath-file=/nonexistent/x"],
)
def test_malformed_formats_are_usage_errors(wmap, value):
    result = wmap("inspect", JOBSET, "-o", value)
    assert result.exit_code == 2
    assert result.stdout == ""


def test_a_template_that_fails_on_the_data_exits_1_with_one_line(wmap):
    result = wmap("inspect", JOBSET, "-o", "jsonpath={.components[9].name}")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: jsonpath: array index out of bounds")


def test_catalog_list_views(wmap, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    table = wmap("catalog", "list").stdout.splitlines()
    assert table[0].split() == ["NAME", "KIND", "GROUP"] and all(len(line) <= 80 for line in table)
    wide = wmap("catalog", "list", "-o", "wide").stdout.splitlines()
    assert wide[0].split() == ["NAME", "KIND", "GROUP", "VERSIONS", "COMPONENTS", "GANG", "FORMAT"]
    names = wmap("catalog", "list", "-o", "name").stdout.split()
    assert "jobset" in names and "leaderworkerset" in names
    kinds = wmap("catalog", "list", "-o", 'jsonpath={.items[?(@.group=="ray.io")].kind}').stdout.split()
    assert kinds == ["RayCluster", "RayCronJob", "RayJob", "RayService"]


def test_place_views(wmap):
    json_reports = json.loads(wmap("place", JOBSET, "-o", "json").stdout)
    assigned = wmap("place", JOBSET, "-o", "jsonpath={.podGroups[0].assignment.domain}").stdout
    assert assigned == json_reports["podGroups"][0]["assignment"]["domain"] == "nvl-001"
    wide = wmap("place", JOBSET, "-o", "wide").stdout.splitlines()
    assert wide[0].split()[:4] == ["WORKLOAD", "CLUSTER", "GROUP", "PODS"]


def test_topology_views(wmap):
    data = yaml.safe_load(wmap("topology", "show", "preset:small-16", "-o", "yaml").stdout)
    total = wmap("topology", "show", "preset:small-16", "-o", "jsonpath={.domains.gpus.total}").stdout
    assert total == str(data["domains"]["gpus"]["total"]) == "128"
    assert wmap("topology", "presets", "-o", "name").stdout.splitlines()[0] == "preset:nvl72-4rack"
    columns = wmap("topology", "presets", "-o", "custom-columns=NAME:.name,NODES:.nodes").stdout.splitlines()
    assert columns[1].split() == ["nvl72-4rack", "72"]
