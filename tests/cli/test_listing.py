"""Tables and listings as kubectl makes them (issue 33), every one checked at 80 columns.

The identifying columns are never cut; NAME is kubectl's TYPE/NAME; every amount is a total;
other accelerators get a column; ``--no-headers``, ``--sort-by`` (kubectl's sorter), ``-l`` on
files, ``-h``; ``-A`` puts NAMESPACE first; ``get -o json`` items carry the object's metadata and
the live columns; a summary line under several workloads; ``get``/``describe`` from dumps, ages
counted from the dump's newest time.
"""

from __future__ import annotations

import json

import pytest
from typer.main import get_command

from helpers import FIXTURES_DIR
from workloadmap.cli.main import app
from workloadmap.cli.printing import output
from workloadmap.cli.printing.sorting import natural_less, sort_by
from workloadmap.cli.render.workloads import typed_names
from workloadmap.tree import WorkloadRef

WIDTH = 80
JOBSET = str(FIXTURES_DIR / "jobset-leader-workers.yaml")
RAY = str(FIXTURES_DIR / "raycluster.yaml")
LIVE = FIXTURES_DIR / "live"
DUMP = ["--objects", str(LIVE / "research-workloads.yaml"), "--objects", str(LIVE / "llm-train-objects.yaml")]
NODES = ["--nodes", str(LIVE / "nvl72-nodes.yaml")]


@pytest.fixture
def narrow(monkeypatch):
    monkeypatch.setenv("COLUMNS", str(WIDTH))


def _fits(text: str) -> list[str]:
    lines = text.splitlines()
    assert all(len(line) <= WIDTH for line in lines), [line for line in lines if len(line) > WIDTH]
    return lines


# -- the identifying columns are never cut ---------------------------------------------------------


def test_inspect_table_keeps_every_workload_name_whole(wmap, narrow):
    result = wmap("inspect", str(FIXTURES_DIR / "grove"), "-o", "table")
    assert result.exit_code == 0, result.stderr
    lines = _fits(result.stdout)
    names = {line.split()[0] for line in lines[1:-1]}
    # fixtures/grove: two DynamoGraphDeployments (dgd-frag, dgd-beta) and three PodCliqueSets
    assert {"dynamographdeployment/dgd-frag", "dynamographdeployment/dgd-beta"} <= names
    assert "…" not in result.stdout


def test_catalog_list_never_cuts_the_name_you_type(wmap, narrow):
    lines = _fits(wmap("catalog", "list").stdout)
    assert "scheduledsparkapplication" in [line.split()[0] for line in lines]


def test_place_table_never_cuts_the_group(wmap, narrow):
    lines = _fits(wmap("place", str(FIXTURES_DIR / "leaderworkerset.yaml"), "-o", "table").stdout)
    assert [line.split()[0] for line in lines[1:]] == [
        "vllm-multihost-group-0",
        "vllm-multihost-group-0/leader",
        "vllm-multihost-group-0/workers",
        "vllm-multihost-group-1",
        "vllm-multihost-group-1/leader",
        "vllm-multihost-group-1/workers",
    ]


def test_topology_numa_view_never_cuts_a_node_name(wmap, narrow, tmp_path):
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text(wmap("topology", "generate", "--preset", "nvl72-4rack", "--numa-nodes", "2").stdout)
    lines = _fits(wmap("topology", "show", str(nodes), "--numa").stdout)
    table = lines[lines.index(next(line for line in lines if line.startswith("NODE"))) :]
    assert table[0].split() == ["NODE", "ZONE", "POLICY/SCOPE", "CPU", "MEMORY", "GPU"]
    names = {f"node-00{rack}-{node:02d}" for rack in range(1, 5) for node in range(1, 19)}  # 4 racks of 18
    assert {row.split()[0] for row in table[1:]} == names


def test_the_columns_that_give_way_come_back_with_wide(wmap, narrow):
    table = wmap("inspect", str(FIXTURES_DIR / "grove"), "-o", "table").stdout
    wide = wmap("inspect", str(FIXTURES_DIR / "grove"), "-o", "wide").stdout
    assert "MEMORY" not in table.splitlines()[0] and "MEMORY" in wide.splitlines()[0]


def test_a_key_wider_than_the_terminal_wraps_after_a_separator(monkeypatch):
    monkeypatch.setenv("COLUMNS", "30")
    text = output.table(["NAME", "PODS"], [["leaderworkerset/vllm-multihost-serving", 4]])
    lines = text.splitlines()
    assert [line.split() for line in lines] == [["NAME", "PODS"], ["leaderworkerset/vllm-", "4"], ["multihost-serving"]]
    assert all(len(line) <= 30 for line in lines)


def test_type_name_carries_the_group_only_when_two_kinds_share_a_name():
    argo = WorkloadRef(api_version="argoproj.io/v1alpha1", kind="Workflow", name="a")
    other = WorkloadRef(api_version="example.com/v1", kind="Workflow", name="b")
    jobset = WorkloadRef(api_version="jobset.x-k8s.io/v1alpha2", kind="JobSet", name="c")
    pod = WorkloadRef(api_version="v1", kind="Pod", name="d")
    assert typed_names([argo, jobset, pod]) == ["workflow/a", "jobset/c", "pod/d"]
    assert typed_names([argo, other]) == ["workflow.argoproj.io/a", "workflow.example.com/b"]


# -- one unit per column -----------------------------------------------------------------------------


def test_every_amount_is_the_components_total_and_tpus_get_a_column(wmap, narrow):
    result = wmap("inspect", JOBSET, RAY, "-o", "wide")
    header, *rows, summary = result.stdout.splitlines()
    cells = {(row.split()[1], row.split()[2]): dict(zip(header.split(), row.split(), strict=True)) for row in rows}
    workers = cells[("jobset/llm-train", "workers")]
    # fixtures/jobset-leader-workers.yaml: 2 worker pods of 16 cpu, 128Gi, 4 GPUs each
    assert (workers["PODS"], workers["GPUS"], workers["CPU"], workers["MEMORY"]) == ("2", "8", "32", "256Gi")
    assert (workers["GPUS/POD"], workers["CPU/POD"], workers["MEMORY/POD"]) == ("4", "16", "128Gi")
    tpus = cells[("raycluster/ray-mixed", "tpu-group")]
    # fixtures/raycluster.yaml: tpu-group 2 replicas x numOfHosts 2 = 4 pods of google.com/tpu 4, no GPU
    assert (tpus["PODS"], tpus["GPUS"], tpus["TPU"], tpus["TPU/POD"]) == ("4", "0", "16", "4")
    assert summary == "2 workloads: 11 pods, 15 GPUs, 16 google.com/tpu"


# -- --no-headers, --sort-by, -l, -h ------------------------------------------------------------------


def test_no_headers_leaves_out_the_header_and_the_summary(wmap, narrow):
    table = wmap("inspect", JOBSET, RAY, "-o", "table", "--no-headers").stdout.splitlines()
    assert len(table) == 6 and not any(line.startswith("NAME") or "workloads:" in line for line in table)
    columns = wmap("inspect", JOBSET, RAY, "-o", "custom-columns=NAME:.workload.name", "--no-headers").stdout
    assert columns.split() == ["llm-train", "ray-mixed"]
    got = wmap("get", "all", *DUMP, "--no-headers").stdout.splitlines()
    assert [line.split()[0] for line in got] == ["jobset/llm-train", "leaderworkerset/vllm", "job/nightly-eval"]


# fvbommel/sortorder natsort_test.go TestNaturalLess: the table kubectl's NaturalLess is checked by.
NATURAL = [
    ("0", "00", True), ("00", "0", False), ("aa", "ab", True), ("ab", "abc", True), ("abc", "ad", True),
    ("ab1", "ab2", True), ("ab1c", "ab1c", False), ("ab12", "abc", True), ("ab2a", "ab10", True),
    ("a0001", "a0000001", True), ("a10", "abcdefgh2", True), ("аб2аб", "аб10аб", True), ("2аб", "3аб", True),
    ("a1b", "a01b", True), ("a01b", "a1b", False), ("ab01b", "ab010b", True), ("ab010b", "ab01b", False),
    ("a01b001", "a001b01", True), ("a001b01", "a01b001", False), ("a1", "a1x", True), ("1ax", "1b", True),
    ("1b", "1ax", False), ("082", "83", True), ("083a", "9a", False), ("9a", "083a", True),
]  # fmt: skip


@pytest.mark.parametrize(("left", "right", "less"), NATURAL)
def test_natural_order_is_sortorders(left, right, less):
    assert natural_less(left, right) is less


def test_sort_by_follows_kubectls_sorter_tests():
    # k8s.io/kubectl/pkg/cmd/get/sorter_test.go TestSortingPrinter: reverse-order names, numbers,
    # some-missing-fields (the item without the field first), cpu and memory quantities.
    names = [{"metadata": {"name": name}} for name in "bca"]
    assert [item["metadata"]["name"] for item in sort_by(names, lambda item: item, "{.metadata.name}")] == list("abc")
    replicas = [{"spec": {"replicas": count}} for count in (5, 1, 9)]
    assert [item["spec"]["replicas"] for item in sort_by(replicas, lambda item: item, ".spec.replicas")] == [1, 5, 9]
    missing = [{"status": {"availableReplicas": 2}}, {"status": {}}, {"status": {"availableReplicas": 1}}]
    ordered = sort_by(missing, lambda item: item, "{.status.availableReplicas}")
    assert [item["status"].get("availableReplicas") for item in ordered] == [None, 1, 2]
    cpus = [{"cpu": value} for value in ("0.5", "10", "100m")] + [{}]
    assert [item.get("cpu") for item in sort_by(cpus, lambda item: item, "cpu")] == [None, "100m", "0.5", "10"]
    memory = [{"m": value} for value in ("128Mi", "10Ei", "8Ti", "64Gi", "55Pi", "2Ki")]
    assert [item["m"] for item in sort_by(memory, lambda item: item, ".m")] == [
        "2Ki", "128Mi", "64Gi", "8Ti", "55Pi", "10Ei"
    ]  # fmt: skip


def test_sort_by_a_field_no_item_has_is_kubectls_error(wmap):
    result = wmap("inspect", JOBSET, RAY, "--sort-by", "{.status.availableReplicas}")
    assert result.exit_code == 1 and result.stdout == ""
    assert "couldn't find any field with path '{.status.availableReplicas}' in the list of objects" in result.stderr


def test_sort_by_sorts_every_view(wmap, narrow):
    by_gpus = wmap("inspect", JOBSET, RAY, str(FIXTURES_DIR / "leaderworkerset.yaml"), "-o", "name", "--sort-by",
                   ".totals.gpus")  # fmt: skip
    assert by_gpus.stdout.split() == [  # 3, 12 and 48 GPUs
        "raycluster.ray.io/ray-mixed",
        "jobset.jobset.x-k8s.io/llm-train",
        "leaderworkerset.leaderworkerset.x-k8s.io/vllm-multihost",
    ]
    got = wmap("get", "all", *DUMP, "--sort-by", ".metadata.creationTimestamp").stdout.splitlines()
    assert [line.split()[0] for line in got[1:4]] == ["leaderworkerset/vllm", "jobset/llm-train", "job/nightly-eval"]


def test_selector_picks_files_by_their_labels_as_on_the_cluster(wmap):
    dump = str(LIVE / "research-workloads.yaml")
    serving = wmap("inspect", dump, "-l", "team=serving", "-o", "name").stdout
    assert serving == "leaderworkerset.leaderworkerset.x-k8s.io/vllm\n"
    assert wmap("inspect", dump, "-l", "team in (research,serving),team!=serving", "-o", "name").stdout.split() == [
        "jobset.jobset.x-k8s.io/llm-train"
    ]
    none = wmap("inspect", dump, "-l", "team=nobody")
    assert none.exit_code == 0 and "No resources found matching team=nobody" in none.stderr
    assert wmap("inspect", dump, "-l", "team in").exit_code == 2  # a malformed selector is a usage error
    described = wmap("describe", "-f", dump, "-l", "team=serving", "-o", "json")
    assert json.loads(described.stdout)["workload"]["name"] == "vllm"


def _commands(group, path=()):
    for name, command in group.commands.items():
        yield (*path, name), command
        if hasattr(command, "commands"):
            yield from _commands(command, (*path, name))


def test_h_is_help_on_every_command(wmap):
    paths = [path for path, _ in _commands(get_command(app)) if path[0] != "__complete"]
    assert len(paths) > 20
    assert wmap("-h").stdout == wmap("--help").stdout
    for path in paths:
        short, long = wmap(*path, "-h"), wmap(*path, "--help")
        assert short.exit_code == 0 and short.stdout == long.stdout and "-h, --help" in long.stdout, path


# -- get and describe: from dumps, NAMESPACE first, metadata and live columns, summaries --------------


def test_get_from_dumps_as_from_the_cluster(wmap, narrow):
    result = wmap("get", "all", *DUMP, *NODES)
    assert result.exit_code == 0, result.stderr
    # research-workloads.yaml + llm-train-objects.yaml; the dump's newest time is 10:11 (the pod of
    # nightly-eval), so the JobSet created at 10:00 is 11m old, the LWS created a day before 24h.
    assert _fits(result.stdout) == [
        "NAME                   PHASE          PODS   GPUS   AGE",
        "jobset/llm-train       Running        3/3    12     11m",
        "leaderworkerset/vllm   Initializing   0/2    4      24h",
        "job/nightly-eval       Undefined      0/0    0      1m",
        "3 workloads: 5 pods, 16 GPUs",
    ]
    one = wmap("get", "jobsets", *DUMP).stdout.splitlines()
    assert one[1].split()[0] == "llm-train" and len(one) == 2  # one type: NAME alone, no summary for one row


def test_get_all_namespaces_puts_namespace_first(wmap, narrow):
    lines = _fits(wmap("get", "jobsets,lws", "-A", *DUMP).stdout)
    assert lines[0].split()[:2] == ["NAMESPACE", "NAME"] and lines[1].split()[:2] == ["research", "jobset/llm-train"]


def test_get_json_and_custom_columns_see_metadata_and_live_columns(wmap):
    listed = json.loads(wmap("get", "jobsets", *DUMP, "-o", "json").stdout)["items"][0]
    assert listed["metadata"] == {
        "name": "llm-train",
        "namespace": "research",
        "uid": "00000000-0000-4000-8000-000000000009",
        "labels": {"team": "research"},
        "creationTimestamp": "2026-05-01T10:00:00Z",
    }
    assert listed["live"] == {"podsReady": 3, "podsDesired": 3, "age": "11m", "scheduled": "-"}
    assert listed["workload"]["name"] == "llm-train" and listed["totals"]["gpus"] == 12  # the inspect tree, as before
    columns = wmap("get", "all", *DUMP, "-o", "custom-columns=NAME:.metadata.name,READY:.live.podsReady,AGE:.live.age")
    assert [line.split() for line in columns.stdout.splitlines()] == [
        ["NAME", "READY", "AGE"], ["llm-train", "3", "11m"], ["vllm", "0", "24h"], ["nightly-eval", "0", "1m"]
    ]  # fmt: skip


def test_summary_by_namespace_and_kind(wmap, narrow):
    lines = _fits(wmap("get", "all", *DUMP, "--summary").stdout)
    at = lines.index("") + 1
    assert lines[at:] == [
        "NAMESPACE   KIND              WORKLOADS   PODS   GPUS",
        "research    Job               1           0      0",
        "research    JobSet            1           3      12",
        "research    LeaderWorkerSet   1           2      4",
        "3 workloads: 5 pods, 16 GPUs",
    ]
    trees = _fits(wmap("inspect", JOBSET, RAY).stdout)
    assert trees[-2:] == ["", "2 workloads: 11 pods, 15 GPUs, 16 google.com/tpu"]


def test_describe_a_type_from_a_dump_with_ages_from_the_dump(wmap, narrow):
    result = wmap("describe", "jobsets", *DUMP, *NODES)
    assert result.exit_code == 0, result.stderr
    lines = _fits(result.stdout)
    assert lines[0].startswith("JobSet/llm-train  namespace research")
    events = lines[lines.index("Events (newest first):") + 2 :]
    # Events at 10:09, 10:08, 10:07 and 10:06, the dump's newest time 10:11 (not today)
    assert [line.split()[0] for line in events if line.startswith("  ") and line.split()[0][0].isdigit()] == [
        "2m", "3m", "4m", "5m"
    ]  # fmt: skip
    by_label = wmap("describe", "lws", *DUMP, "-l", "team=serving", "-o", "json")
    assert json.loads(by_label.stdout)["workload"]["name"] == "vllm"
    unknown = wmap("describe", "widgets", *DUMP)
    assert unknown.exit_code == 4 and unknown.stderr.count("\n") == 1


def test_get_offline_refuses_what_needs_the_cluster(wmap):
    for extra in (["-w"], ["--field-selector", "metadata.name=x"]):
        assert wmap("get", "jobsets", *DUMP, *extra).exit_code == 2
    assert wmap("get", "jobsets", *NODES).exit_code == 2  # --nodes goes with --objects
    unknown = wmap("get", "widgets", *DUMP)
    assert unknown.exit_code == 4 and "widgets" in unknown.stderr
