"""The wmap command line: output formats, the JSON contract, exit codes, one-line errors."""

from __future__ import annotations

import json

import pytest
import yaml

from helpers import FIXTURES_DIR

JOBSET = str(FIXTURES_DIR / "jobset-leader-workers.yaml")
BAD = FIXTURES_DIR / "bad"


def test_inspect_tree_shows_components_totals_and_podgroups(wmap):
    result = wmap("inspect", JOBSET)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("JobSet/llm-train")
    assert any(line.startswith("├── leader") for line in lines)
    assert any(line.startswith("└── workers") for line in lines)
    # one leader + two workers of 4 GPUs each: 3 pods, 12 GPUs, one gang of 3 gated by both replicatedJobs
    # (KAI v0.17 jobset_grouper_test.go TestMultipleReplicatedJobsAnyOrder)
    assert "Totals: 3 pods, 12 GPUs" in result.stdout
    assert "llm-train  minSubGroup 2 (3 of 3 pods)" in result.stdout


def test_inspect_json_contract(wmap):
    result = wmap("inspect", "-f", JOBSET, "-o", "json")
    assert result.exit_code == 0
    tree = json.loads(result.stdout)
    assert set(tree) >= {"workload", "definition", "phase", "phases", "totals", "components", "podGroups"}
    assert tree["workload"] == {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "name": "llm-train",
        "namespace": "research",
    }
    assert set(tree["totals"]) >= {"pods", "gpus", "resources"}
    assert tree["totals"]["resources"]["nvidia.com/gpu"] == "12"
    for component in tree["components"]:
        assert set(component) >= {
            "name",
            "replicas",
            "minReplicas",
            "maxReplicas",
            "pods",
            "podResources",
            "gpusPerPod",
            "gpus",
            "components",
        }
    (group,) = tree["podGroups"]
    # minMember or minSubGroup, the one KAI sets (a JobSet's PodGroup: minSubGroup), never both
    assert set(group) >= {"name", "minSubGroup", "subGroups"} and "minMember" not in group
    for sub in group["subGroups"]:
        assert ("minMember" in sub) != ("minSubGroup" in sub)


def test_inspect_several_documents_give_a_list(wmap):
    result = wmap("inspect", JOBSET, str(FIXTURES_DIR / "leaderworkerset.yaml"), "-o", "yaml")
    assert result.exit_code == 0
    document = yaml.safe_load(result.stdout)
    assert document["kind"] == "List"
    assert [item["workload"]["kind"] for item in document["items"]] == ["JobSet", "LeaderWorkerSet"]


def test_inspect_table_follows_kubectl_conventions(wmap):
    result = wmap("inspect", JOBSET, "-o", "table")
    header, *rows = result.stdout.splitlines()
    assert header.split()[0] == "NAME"
    assert header == header.upper()
    # NAME in kubectl's TYPE/NAME form, then the component (issue 33: the workload was a cut second column)
    assert [row.split()[:2] for row in rows] == [["jobset/llm-train", "leader"], ["jobset/llm-train", "workers"]]
    assert all(len(row.split()) == len(header.split()) for row in rows)  # no spaces inside values


def test_inspect_reads_standard_input(wmap):
    with open(JOBSET) as handle:
        result = wmap("inspect", "-", "-o", "json", stdin=handle.read())
    assert result.exit_code == 0
    assert json.loads(result.stdout)["totals"]["pods"] == 3


def test_skipped_kinds_are_a_note_not_an_error(wmap):
    result = wmap("inspect", str(FIXTURES_DIR / "multi-doc-with-configmap.yaml"))
    assert result.exit_code == 0
    assert "note:" in result.stderr and "ConfigMap" in result.stderr


@pytest.mark.parametrize(
    ("fixture", "code", "names"),
    [
        ("invalid-quantity.yaml", 1, ["invalid-quantity.yaml", "document #1", "2x"]),
        ("replicas-not-a-number.yaml", 1, ["field spec.replicas", "abc"]),
        ("missing-name.yaml", 1, ["metadata.name"]),
        ("unknown-kind.yaml", 4, ["FrobnicatorJob", "wmap catalog list"]),
    ],
)
def test_bad_input_gives_one_line_errors_and_exit_codes(wmap, fixture, code, names):
    result = wmap("inspect", str(BAD / fixture))
    assert result.exit_code == code
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1
    for name in names:
        assert name in errors[0]
    assert "Traceback" not in result.output


def test_every_document_is_processed_and_the_worst_code_wins(wmap):
    # broken-yaml.yaml: a broken first document and a valid Pod after it -> the Pod is still shown.
    result = wmap("inspect", str(BAD / "broken-yaml.yaml"), str(BAD / "unknown-kind.yaml"), JOBSET)
    assert result.exit_code == 1  # invalid input ranks above "no definition"
    assert "Pod/fine" in result.stdout and "JobSet/llm-train" in result.stdout
    assert result.stderr.count("error: ") == 2
    only_unknown = wmap("inspect", str(BAD / "unknown-kind.yaml"), JOBSET)
    assert only_unknown.exit_code == 4


def test_usage_errors_exit_2(wmap):
    assert wmap("inspect").exit_code == 2
    assert wmap("inspect", JOBSET, "-o", "wider").exit_code == 2


def test_empty_input_is_not_an_error(wmap, tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text("---\n# nothing here\n")
    result = wmap("inspect", str(empty))
    assert result.exit_code == 0 and "no Kubernetes objects" in result.stderr


def test_catalog_list_covers_at_least_thirty_kinds(wmap):
    result = wmap("catalog", "list", "-o", "json")
    items = json.loads(result.stdout)["items"]
    assert len({(item["group"], item["kind"]) for item in items}) >= 30
    for item in items:
        assert set(item) >= {"name", "group", "kind", "versions"}
    table = wmap("catalog", "list")
    assert table.stdout.splitlines()[0].split()[:3] == ["NAME", "KIND", "GROUP"]


def test_catalog_show_schema_and_validate(wmap, tmp_path):
    shown = yaml.safe_load(wmap("catalog", "show", "LeaderWorkerSet").stdout)
    assert shown["kind"] == "LeaderWorkerSet"
    assert wmap("catalog", "show", "nosuchkind").exit_code == 4
    schema = json.loads(wmap("catalog", "schema").stdout)
    assert schema["title"] == "wmap workload definition" and "components" in schema["properties"]
    path = tmp_path / "def.yaml"
    path.write_text(yaml.safe_dump(shown))
    assert wmap("catalog", "validate", str(path)).exit_code == 0
    shown["components"][0]["replicas"] = "spec.[replicas"
    path.write_text(yaml.safe_dump(shown))
    result = wmap("catalog", "validate", str(path))
    assert result.exit_code == 1
    assert str(path) in result.stderr and "components[0].replicas" in result.stderr


def test_user_catalog_replaces_the_builtin_with_a_notice(wmap, tmp_path):
    definition = yaml.safe_load(wmap("catalog", "show", "jobset").stdout)
    definition["name"] = "my-jobset"
    definition["gang"] = {"policy": "mine", "podGroups": []}
    (tmp_path / "jobset.yaml").write_text(yaml.safe_dump(definition))
    result = wmap("inspect", JOBSET, "--catalog", str(tmp_path), "-o", "json")
    assert result.exit_code == 0
    assert "notice:" in result.stderr and "my-jobset" in result.stderr
    tree = json.loads(result.stdout)
    assert tree["definition"] == "my-jobset" and tree["podGroups"] == []


def test_version(wmap):
    assert wmap("version").stdout.startswith("wmap ")


def test_trainjob_runtime_from_a_directory(wmap, corpus_dir):
    trainjob = str(FIXTURES_DIR / "kubeflow" / "trainjob-no-runtime.yaml")
    alone = wmap("inspect", trainjob)
    assert alone.exit_code == 0 and "not in the input" in alone.stderr
    with_runtime = wmap("inspect", trainjob, "--runtimes", str(corpus_dir / "clustertrainingruntime"))
    assert with_runtime.exit_code == 0 and "not in the input" not in with_runtime.stderr
    assert "(replicatedJob)" in with_runtime.stdout  # the runtime's JobSet template is expanded


def test_missing_related_file_is_a_one_line_error(tmp_path):
    # Through the console-script entry point (run), which turns library errors into one line and exit 1.
    import subprocess
    import sys

    code = (
        "import sys; sys.argv = ['wmap', 'inspect', sys.argv[1], '--related', sys.argv[2]]; "
        "from workloadmap.cli.entry import run; run()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, JOBSET, str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [f"error: {tmp_path / 'missing'}: no such file or directory"]


def test_a_new_exporter_is_offered_by_emit(wmap, monkeypatch):
    # docs/architecture.md: "a new exporter is one function decorated with @exporter(...); --emit
    # then offers it". Registered here for this test only: the help, the check of --emit, the
    # output and the shell completion all read the registry, none a copy of its names.
    from workloadmap.cli.completion import complete
    from workloadmap.cli.main import command_tree
    from workloadmap.exporters import EXPORTERS, export_targets, exporter

    def throwaway(request):
        return [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"seen-{request.tree.workload.name}"}}]

    monkeypatch.setenv("COLUMNS", "200")
    exporter("throwaway-target")(throwaway)
    try:
        help_text = " ".join(wmap("place", "--help").stdout.split())
        listed = ", ".join(export_targets())
        assert f"Print scheduler objects instead of the report: {listed} (repeatable)." in help_text
        assert "throwaway-target" in help_text
        emitted = wmap("place", JOBSET, "--emit", "throwaway-target")
        assert emitted.exit_code == 0, emitted.stderr
        assert yaml.safe_load(emitted.stdout)["metadata"]["name"] == "seen-llm-train"
        assert complete(command_tree(), ["place", JOBSET, "--emit", "throw"])[0] == ["throwaway-target"]
        unknown = wmap("place", JOBSET, "--emit", "nothing-such")
        assert unknown.exit_code == 2 and "throwaway-target" in unknown.stderr
    finally:
        del EXPORTERS["throwaway-target"]
    assert "throwaway-target" not in " ".join(wmap("place", "--help").stdout.split())


def test_topology_help_reads_the_library_tables(wmap):
    # Every form a SOURCE takes, and the default preset, come from the topology stage's tables.
    import re

    from workloadmap.topology import DEFAULT_PRESET, FILE_FORMATS, PREFIX_READERS

    for path in (["place"], ["topology", "show"]):
        # the help is wrapped at 80 columns, words at their hyphens too ("read- only")
        text = re.sub(r"(?<=\w)- (?=\w)", "-", " ".join(wmap(*path, "--help").stdout.split()))
        for file_format in FILE_FORMATS:
            assert file_format.described in text, (path, file_format.name)
        for prefix in PREFIX_READERS.values():
            assert f"{prefix.form} ({prefix.described})" in text, (path, prefix.form)
    assert f"preset:{DEFAULT_PRESET}" in " ".join(wmap("place", "--help").stdout.split())
    generate = " ".join(wmap("topology", "generate", "--help").stdout.split())
    assert f"default {DEFAULT_PRESET} when no shape option is given" in generate


def test_inspect_imports_only_what_it_needs(tmp_path):
    # Start-up time: `wmap inspect` loads neither placement, topology, exporters, alter, live, lint,
    # Karta (jq) nor the kubernetes client and jsonschema.
    import subprocess
    import sys

    from helpers import FIXTURES_DIR

    code = (
        f"import sys; sys.argv = ['wmap', 'inspect', {str(FIXTURES_DIR / 'jobset-leader-workers.yaml')!r}];"
        "from workloadmap.cli.entry import run\n"
        "try:\n    run()\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )
    # Run outside the clone: `python -c` puts the working directory first on sys.path, and the
    # clone's own workloadmap/ (without cli/, which the install maps in) would shadow the installed one.
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    loaded = set(done.stderr.split())
    heavy = {
        "workloadmap.placement", "workloadmap.topology", "workloadmap.exporters", "workloadmap.alter",
        "workloadmap.live", "workloadmap.lint", "workloadmap.karta", "workloadmap.kube", "kubernetes",
        "jsonschema", "jq",
        # the other commands' modules are imported only when their command is run (cli/main.py's _lazy)
        "workloadmap.cli.commands.place", "workloadmap.cli.commands.alter", "workloadmap.cli.commands.get",
        "workloadmap.cli.commands.catalog", "workloadmap.cli.commands.topology", "workloadmap.cli.commands.describe",
        # wmap serve and its metrics library load with that command only
        "workloadmap.service", "workloadmap.cli.commands.serve", "prometheus_client",
        # NUMA admission is placement's; inspect reads only a pod's QoS class and NUMA demand
        "workloadmap.numa.admission", "workloadmap.numa.policies", "workloadmap.numa.rejections",
    }  # fmt: skip
    assert not loaded & heavy
