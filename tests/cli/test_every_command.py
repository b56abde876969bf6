"""What users run, run by the tests (issue 25): every ``--help`` example, every command in its plainest form.

Two habits let defects through: examples shown in ``--help`` were printed but never run, and
commands were tested in the forms the code was written for, not in the most common one (no
options, a directory, standard input). ``catalog export --format karta`` without names, the
export everyone runs first, ended in an internal error for that reason.

Every command runs here at 80 columns, and its human output must fit them. Live commands run
against the stand-in API server (``fake_cluster``: GET only), never a real cluster.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from helpers import FIXTURES_DIR, REPO_ROOT
from helpers.admission import queue_resources
from helpers.operators import LiveCluster, fill
from workloadmap.cli.examples import EXAMPLES
from workloadmap.cli.main import app

WIDTH = 80
runner = CliRunner()
JOBSET = FIXTURES_DIR / "jobset-leader-workers.yaml"
DEFINITION = REPO_ROOT / "catalog" / "jobset.yaml"


def _leaves(command, prefix=()):
    subs = getattr(command, "commands", None)
    if subs:
        for name, sub in sorted(subs.items()):
            if not sub.hidden:
                yield from _leaves(sub, (*prefix, name))
    else:
        yield " ".join(prefix)


COMMANDS = sorted(_leaves(get_command(app)))


# -- the sandbox every example runs in --------------------------------------------------------


@pytest.fixture
def sandbox(tmp_path, monkeypatch, fake_cluster):
    """A directory holding the files the examples name, and a kubeconfig for the stand-in cluster."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("WMAP_CATALOG", raising=False)
    (tmp_path / "fixtures").symlink_to(FIXTURES_DIR)
    (tmp_path / "catalog").symlink_to(REPO_ROOT / "catalog")
    for name in ("job.yaml", "jobset.yaml"):
        shutil.copy(JOBSET, tmp_path / name)
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    for fixture in ("jobset-leader-workers.yaml", "leaderworkerset.yaml", "raycluster.yaml"):
        shutil.copy(FIXTURES_DIR / fixture, manifests / fixture)
    nodes = runner.invoke(app, ["topology", "generate", "--preset", "nvl72-4rack", "-o", "json"])
    assert nodes.exit_code == 0, nodes.output
    (tmp_path / "nodes.json").write_text(nodes.stdout)
    (tmp_path / "pods.json").write_text(json.dumps({"apiVersion": "v1", "kind": "PodList", "items": []}))
    shutil.copy(FIXTURES_DIR / "live" / "llm-train-objects.yaml", tmp_path / "namespace.yaml")
    shutil.copy(FIXTURES_DIR / "live" / "nvl72-nodes.yaml", tmp_path / "nodes.yaml")
    shutil.copy(FIXTURES_DIR / "topology" / "topology-tree.conf", tmp_path / "topology.conf")
    definitions = tmp_path / "my-definitions"
    definitions.mkdir()
    shutil.copy(REPO_ROOT / "catalog" / "jobset.yaml", definitions / "jobset.yaml")
    shutil.copy(REPO_ROOT / "catalog" / "jobset.yaml", tmp_path / "trainer.yaml")
    samples = tmp_path / "samples"
    samples.mkdir()
    shutil.copy(JOBSET, samples / "jobset.yaml")
    _serve(fake_cluster.server)
    return {"KUBECONFIG": str(fake_cluster.kubeconfig), "COLUMNS": str(WIDTH)}


def _serve(server) -> None:
    """The cluster the live examples read: the README's JobSet in research, a PyTorchJob and an LWS in default."""
    import yaml

    research = LiveCluster(namespace="research")
    nodes = research.nvl72_racks(2)
    jobset = research.workload(yaml.safe_load(JOBSET.read_text()))
    research.run_jobset(jobset, fill(nodes))
    default = LiveCluster(namespace="default")
    train = yaml.safe_load((FIXTURES_DIR / "pytorchjob-elastic.yaml").read_text())
    train["metadata"] = {"name": "train", "namespace": "default"}
    default.run_pytorchjob(default.workload(train), fill(nodes))
    lws = next(d for d in yaml.safe_load_all((FIXTURES_DIR / "leaderworkerset.yaml").read_text()) if d)
    lws["metadata"] = {"name": "serve", "namespace": "default"}
    default.run_lws(default.workload(lws), fill(nodes))
    for cluster in (research, default):
        server.add_all(cluster.objects)
    server.add_all(research.nodes)
    # Kueue's queues (wmap admit against the cluster): one ClusterQueue over a flavor without labels or
    # taints, open to every namespace (namespaceSelector {}), with the LocalQueue named "default" that
    # Kueue's LocalQueueDefaulting gives a workload of research without a queue label.
    group = "kueue.x-k8s.io/v1beta2"
    quota = [{"name": name, "nominalQuota": amount} for name, amount in (("cpu", "64"), ("memory", "1Ti"))]
    quota.append({"name": "nvidia.com/gpu", "nominalQuota": "16"})
    queues = [
        {"apiVersion": group, "kind": "ResourceFlavor", "metadata": {"name": "default-flavor"}, "spec": {}},
        {
            "apiVersion": group,
            "kind": "ClusterQueue",
            "metadata": {"name": "sandbox"},
            "spec": {
                "namespaceSelector": {},
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                        "flavors": [{"name": "default-flavor", "resources": quota}],
                    }
                ],
            },
        },
        {
            "apiVersion": group,
            "kind": "LocalQueue",
            "metadata": {"name": "default", "namespace": "research"},
            "spec": {"clusterQueue": "sandbox"},
        },
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "research"}},
    ]
    server.resources.extend(queue_resources())
    server.add_all(queues)


def _words(line: str) -> tuple[list[str], str | None]:
    """The wmap command of an example line (pipes, redirections and process substitution dropped) and its stdin."""
    stdin = None
    if "| wmap" in line:  # kubectl ... | wmap ...: the kubectl side gives a workload
        line = line.split("| ", 1)[1]
        stdin = JOBSET.read_text()
    line = re.sub(r"^source <\((.*)\)$", r"\1", line)
    line = line.split(" | ")[0].split(" > ")[0]
    words = shlex.split(line)
    assert words[0] == "wmap", line
    return words[1:], stdin


LONG_RUNNING = {"serve"}
"""Commands that run until stopped: their examples and plainest form run as whole processes against the
stand-in API server, each stopped once it serves, in tests/cli/test_serve_cli.py (here they would hold a
port for their whole --timeout)."""
HELP_EXAMPLES = sorted(
    {
        (path, line)
        for path, lines in EXAMPLES.items()
        if path not in LONG_RUNNING
        for line in lines
        if not line.startswith("#")
    },
)
MACHINE = re.compile(
    r"(^|\s)-o\s*(json|yaml|name|wide|jsonpath=\S+|custom-columns=\S+)"  # -o wide keeps every cell, as kubectl
    r"|--emit|completion|catalog (export|schema|show)|topology generate|suspend|resume|alter"
)
"""Commands whose output is for machines or for kubectl (manifests, scripts, dumps): any width."""


DIAGNOSTIC = re.compile(r"^\S+:\d+: (error|warning|info): ")
"""A compiler-style finding of ``catalog lint`` (FILE:LINE: SEVERITY: ...): one line each, never cut or
wrapped, so that editors and grep read it (issue 33)."""


def _fits(command: str, stdout: str) -> None:
    """Human output fits 80 columns (machine output, manifests, scripts and diagnostics are whatever they are)."""
    if MACHINE.search(command):
        return
    too_wide = [line for line in stdout.splitlines() if len(line) > WIDTH and not DIAGNOSTIC.match(line)]
    assert not too_wide, f"{command}: {len(too_wide)} lines wider than {WIDTH} columns, e.g. {too_wide[0]!r}"


@pytest.mark.parametrize(("path", "line"), HELP_EXAMPLES, ids=[line[:70] for _, line in HELP_EXAMPLES])
def test_every_help_example_runs(sandbox, path, line, tmp_path):
    words, stdin = _words(line)
    if "-w" in words:  # a watch runs until its deadline: a short one here
        words[words.index("--timeout") + 1] = "2s"
    if "--html" in words:
        words[words.index("--html") + 1] = str(tmp_path / "picture.html")
    result = runner.invoke(app, words, input=stdin, env=sandbox)
    assert "internal error" not in result.output and "Traceback" not in result.output, result.output
    expected = (0, 6) if "-w" in words else (0,)  # 6: a watch stopped at its --timeout
    assert result.exit_code in expected, f"{line}: exit {result.exit_code}\n{result.output}"
    _fits(line, result.stdout)


def test_the_examples_cover_every_command():
    assert {path for path in EXAMPLES if path in COMMANDS} == set(COMMANDS)


# -- every command in its plainest form: no optional arguments, a file, a directory, stdin --------

WORKLOADS_DIR = "manifests"
PLAIN: dict[str, list[tuple[list[str], bool]]] = {
    # command: [(arguments, reads standard input)] — the required arguments only
    "inspect": [(["job.yaml"], False), ([WORKLOADS_DIR], False), (["-"], True)],
    "diff": [(["job.yaml", "jobset.yaml"], False), (["-", "jobset.yaml"], True)],
    "admit": [(["job.yaml"], False), ([WORKLOADS_DIR], False), (["-"], True)],  # the queues: the cluster's
    "capacity": [(["job.yaml"], False), ([WORKLOADS_DIR], False), (["-"], True)],
    "place": [(["job.yaml"], False), ([WORKLOADS_DIR], False), (["-"], True)],
    "alter": [
        (["job.yaml", "--queue", "team-a"], False),
        ([WORKLOADS_DIR, "--queue", "team-a"], False),
        (["-", "--queue", "team-a"], True),
    ],  # a change is required: nothing to change is a usage error
    "suspend": [(["job.yaml"], False), ([WORKLOADS_DIR], False), (["-"], True)],
    "resume": [(["job.yaml"], False), ([WORKLOADS_DIR], False), (["-"], True)],
    "describe": [(["-f", "job.yaml"], False), (["-f", "-"], True), (["jobset/llm-train", "-n", "research"], False)],
    "get": [(["jobsets"], False), (["all"], False)],
    "catalog list": [([], False)],
    "catalog show": [(["jobset"], False)],
    "catalog validate": [(["my-definitions"], False), (["my-definitions/jobset.yaml"], False), (["-"], True)],
    "catalog lint": [(["my-definitions"], False), (["--rules"], False), (["-"], True)],
    "catalog schema": [([], False)],
    "catalog export": [([], False)],
    "cluster nodes": [([], False)],
    "cluster pods": [([], False)],
    "topology show": [(["nodes.json"], False), (["-"], True), (["preset:nvl72-4rack"], False)],
    "topology generate": [([], False)],
    "topology presets": [([], False)],
    "completion": [(["bash"], False)],
    "version": [([], False)],
}


STDIN = {"topology show": Path("nodes.json"), "catalog validate": DEFINITION, "catalog lint": DEFINITION}
"""What a command given ``-`` reads when it is not a workload (JOBSET otherwise)."""


def test_every_command_has_a_plainest_form():
    assert set(PLAIN) | LONG_RUNNING == set(COMMANDS)


CASES = [(command, arguments, stdin) for command, forms in sorted(PLAIN.items()) for arguments, stdin in forms]


@pytest.mark.parametrize(("command", "arguments", "stdin"), CASES, ids=[f"{c} {' '.join(a)}" for c, a, _ in CASES])
def test_every_command_in_its_plainest_form(sandbox, command, arguments, stdin):
    words = [*command.split(), *arguments]
    text = None
    if stdin:
        text = STDIN.get(command, JOBSET).read_text()
    result = runner.invoke(app, words, input=text, env=sandbox)
    shown = " ".join(["wmap", *words])
    assert "internal error" not in result.output and "Traceback" not in result.output, result.output
    assert result.exit_code == 0, f"{shown}: exit {result.exit_code}\n{result.output}"
    assert result.output.strip(), f"{shown} said nothing"  # `get` of no objects says so on stderr, as kubectl
    _fits(shown, result.stdout)


def _readme_shell_commands() -> list[str]:
    """The wmap commands of the README's shell blocks that are not ``$ wmap`` transcripts (those run in
    test_readme_examples.py): the quick start, the completion line."""
    found, inside = [], False
    for line in (REPO_ROOT / "README.md").read_text().splitlines():
        if line.startswith("```"):
            inside = not inside
            continue
        if not inside or line.startswith("$ "):
            continue
        line = line.split("  #")[0]
        for part in line.split("&&"):
            part = re.sub(r"^source <\((.*)\)$", r"\1", part.strip())
            if part.startswith("wmap "):
                found.append(part)
    return found


README_SHELL = [line for line in _readme_shell_commands() if line.split()[1:2] != ["serve"]]
README_SERVE = [line for line in _readme_shell_commands() if line.split()[1:2] == ["serve"]]


def test_the_readme_s_serve_examples_are_run_with_the_help_s():
    """README's `wmap serve` lines are among its --help examples, which test_serve_cli.py runs and stops."""
    assert README_SERVE and set(README_SERVE) <= set(EXAMPLES["serve"])


def test_the_readme_quick_start_is_among_them():
    assert "wmap inspect fixtures/jobset-leader-workers.yaml" in README_SHELL
    assert "wmap place fixtures/jobset-leader-workers.yaml" in README_SHELL


@pytest.mark.parametrize("line", README_SHELL)
def test_every_readme_shell_example_runs(line, monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    monkeypatch.delenv("WMAP_CATALOG", raising=False)
    words, _ = _words(line)
    result = runner.invoke(app, words, env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.output
    _fits(line, result.stdout)
