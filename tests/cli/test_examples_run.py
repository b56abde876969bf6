"""The examples of ``--help`` (cli/examples.py) that name the project's own files run, at 80 columns.

An example naming files of the project (fixtures/, catalog/) or a preset runs as written; one that
reads a cluster runs against the stand-in API server, loaded with the objects of fixtures/live and
fixtures/diff/v1 (the namespace those examples are about). Examples about a reader's own files
(``job.yaml``, ``manifests/``, ``nodes.json``) need files this repository does not have; the last
test holds that every example of the commands and options issue 33 added is among those that run.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from helpers import FIXTURES_DIR, REPO_ROOT
from workloadmap.cli.examples import EXAMPLES
from workloadmap.cli.main import app

WIDTH = 80
CLUSTER_COMMANDS = ("get", "describe")
MACHINE = re.compile(r"-o\s*(json|yaml|jsonpath|wide)|--emit|catalog (show|schema|export)|topology generate")
"""Machine output and -o wide, which are never fitted to the terminal (as the README test has it)."""


def _own_files(words: list[str]) -> bool:
    """Whether every file an example names is the project's (or standard input, or a preset)."""
    for word in words:
        value = word.split("=", 1)[-1]
        if "/" in value and not value.startswith(("preset:", ".", "{", "NAME:")) and "=" not in word[:2]:
            if not (REPO_ROOT / value).exists():
                return False
        elif value.endswith((".yaml", ".json", ".conf", ".html")) and not (REPO_ROOT / value).exists():
            return False
    return True


def _needs_cluster(words: list[str]) -> bool:
    if "--live" in words:
        return True
    if words[0] in CLUSTER_COMMANDS:
        return not any(flag in words for flag in ("--objects", "-f", "--filename"))
    return any(word.startswith("cluster:") for word in words) or words[0] == "cluster"


LONG_RUNNING = {"serve"}
"""Commands that run until stopped: tests/cli/test_serve_cli.py runs their examples as whole processes
and stops each once it serves (in process here, one would hold its port for its whole --timeout)."""


def _runnable() -> list[tuple[str, str]]:
    found = []
    for path, lines in EXAMPLES.items():
        if path in LONG_RUNNING:
            continue
        for line in lines:
            if not line.startswith("wmap ") or "|" in line or ">" in line or "<(" in line:
                continue
            words = shlex.split(line)[1:]
            if _own_files(words) and "--html" not in words:
                found.append((path, line))
    return found


RUNNABLE = _runnable()


@pytest.fixture
def cluster(fake_cluster):
    for path in [*(FIXTURES_DIR / "live").glob("*.yaml"), *(FIXTURES_DIR / "diff" / "v1").glob("*.yaml")]:
        for document in yaml.safe_load_all(path.read_text()):
            for obj in (document or {}).get("items", [document]) if document else []:
                fake_cluster.server.add(obj)
    return fake_cluster


@pytest.mark.parametrize(("path", "line"), RUNNABLE, ids=[line[5:65] for _, line in RUNNABLE])
def test_example_runs_and_fits_80_columns(path, line, cluster, monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    monkeypatch.delenv("WMAP_CATALOG", raising=False)
    words = shlex.split(line)[1:]
    if "-w" in words and "--timeout" in words:  # a watch runs until its deadline: a short one here
        words[words.index("--timeout") + 1] = "2s"
    if _needs_cluster(words) and words[0] in CLUSTER_COMMANDS and not {"-n", "-A"} & set(words):
        words += ["-n", "research"]
    environment = {"COLUMNS": str(WIDTH), "KUBECONFIG": str(cluster.kubeconfig)}  # cluster: reads it too
    result = CliRunner().invoke(app, words, env=environment)
    assert result.exit_code == 0, f"{line}\n{result.stderr}"
    assert result.stdout or "catalog lint" in line, line  # a clean lint prints nothing but its count
    if not MACHINE.search(line):
        too_wide = [text for text in result.stdout.splitlines() if len(text) > WIDTH]
        assert not too_wide, f"{line}: {too_wide[0]!r}"


def test_the_new_commands_examples_all_run():
    runnable = {line for _, line in RUNNABLE}
    new = [line for path in ("diff",) for line in EXAMPLES[path] if line.startswith("wmap ")]
    new += [line for path, lines in EXAMPLES.items() for line in lines if "--objects fixtures" in line]
    new += [line for line in EXAMPLES["inspect"] if "-l " in line or "--sort-by" in line]
    new += [line for line in EXAMPLES["describe"] if line.startswith("wmap describe jobsets")]
    new += [line for line in EXAMPLES["catalog lint"] if "catalog/" in line]
    new += [line for line in EXAMPLES[""] if "diff" in line or "--objects" in line]
    assert len(new) >= 12 and set(new) <= runnable, sorted(set(new) - runnable)


def test_wmap_help_lists_the_new_commands_with_examples(wmap):
    text = wmap("--help").stdout
    assert re.search(r"^  diff\s+What changes between two versions", text, re.M)
    assert "wmap diff fixtures/diff/v1 fixtures/diff/v2 -t preset:nvl72-4rack" in text
    assert "wmap get all --objects fixtures/live/" in text
    for command in ("diff", "get", "describe", "inspect"):
        assert "Examples:" in wmap(command, "--help").stdout


def test_examples_name_files_that_exist_when_they_are_the_projects():
    for _, line in RUNNABLE:
        for word in shlex.split(line):
            if word.startswith(("fixtures/", "catalog/")):
                assert Path(REPO_ROOT / word).exists(), (line, word)
