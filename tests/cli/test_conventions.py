"""The command line's manners: colour on a TTY only, any stdout encoding, human numbers, plurals, suggestions."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import tempfile
from fractions import Fraction as F
from pathlib import Path

import pytest
import yaml

from helpers import FIXTURES_DIR
from workloadmap.cli.printing.numbers import amount, count, memory, plural

JOBSET = str(FIXTURES_DIR / "jobset-leader-workers.yaml")
ANSI = "\033["


def _manifest() -> dict:
    return yaml.safe_load(Path(JOBSET).read_text())


def _wmap(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """The real command line in a child process (stdout a pipe), as a user runs it."""
    environment = {
        key: value for key, value in os.environ.items() if key not in ("COLUMNS", "NO_COLOR", "WMAP_CATALOG")
    }
    code = "import sys; from workloadmap.cli.entry import run; sys.argv[0] = 'wmap'; run()"
    # Not from the clone's root, where ./workloadmap (without its cli/) would shadow the installed package.
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, env=environment | (env or {}),
                          timeout=120, cwd=tempfile.gettempdir())  # fmt: skip


def _on_a_tty(*args: str, env: dict[str, str] | None = None) -> str:
    """What the command writes to a terminal (a pseudo-terminal, 100 columns)."""
    environment = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "WMAP_CATALOG")}
    environment |= {"COLUMNS": "100", "TERM": "xterm"} | (env or {})
    code = "import sys; from workloadmap.cli.entry import run; sys.argv[0] = 'wmap'; run()"
    leader, follower = pty.openpty()
    with subprocess.Popen([sys.executable, "-c", code, *args], stdout=follower, stderr=subprocess.DEVNULL,
                          env=environment, cwd=tempfile.gettempdir()) as child:  # fmt: skip
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        child.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode()


def test_colour_on_a_tty_never_with_no_color_or_in_a_pipe():
    coloured = _on_a_tty("place", JOBSET)
    assert f"{ANSI}32mfits{ANSI}0m" in coloured
    assert ANSI not in _on_a_tty("place", JOBSET, env={"NO_COLOR": "1"})
    piped = _wmap("place", JOBSET)
    assert piped.returncode == 0 and ANSI.encode() not in piped.stdout


def test_a_non_utf8_stdout_gets_ascii_glyphs_and_never_a_crash(tmp_path):
    manifest = _manifest()
    manifest["metadata"]["name"] = "llm-train"
    manifest["spec"]["replicatedJobs"][0]["name"] = "léader"  # not a valid name, but a file may hold anything
    path = tmp_path / "x.yaml"
    path.write_text(yaml.safe_dump(manifest, allow_unicode=True), encoding="utf-8")
    for encoding in ("ascii", "latin-1"):
        result = _wmap("inspect", str(path), env={"PYTHONIOENCODING": encoding, "COLUMNS": "80"})
        assert result.returncode == 0, result.stderr
        text = result.stdout.decode(encoding)
        assert "|-- " in text and "`-- workers" in text and "├" not in text


@pytest.mark.parametrize(
    ("value", "text"),
    [(F(2048), "2048"), (F(2000), "2000"), (F(10**6), "1000000"), (F(1, 2), "0.5"), (3, "3")],
)
def test_counts_are_never_si(value, text):
    assert count(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (64 * 1024**3, "64Gi"),
        (1536 * 1024**2, "1536Mi"),  # the largest unit that holds it exactly
        (320 * 1024**3, "320Gi"),
        (40 * 10**9, "~37.3Gi"),  # no binary unit holds 40G in a few digits: rounded, and marked
        (1000, "1000"),
        (0, "0"),
    ],
)
def test_memory_in_the_largest_exact_binary_unit(value, text):
    assert memory(F(value)) == text


def test_amounts_by_resource():
    assert amount("cpu", F(1, 2)) == "500m" and amount("cpu", F(2000)) == "2000"
    assert amount("nvidia.com/gpu", F(2000)) == "2000"
    assert amount("ephemeral-storage", F(2 * 1024**4)) == "2Ti"
    assert [plural(n, "pod") for n in (0, 1, 2)] == ["0 pods", "1 pod", "2 pods"]


def test_big_workloads_read_as_counts_and_memory_is_exact_in_json(wmap, tmp_path):
    manifest = _manifest()
    workers = manifest["spec"]["replicatedJobs"][1]
    workers["replicas"] = 250  # 250 x 2 pods x 4 GPUs = 2000 GPUs
    workers["template"]["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "40G"
    path = tmp_path / "big.yaml"
    path.write_text(yaml.safe_dump(manifest))
    tree = wmap("inspect", str(path)).stdout
    assert "2004 GPUs" in tree and "2k" not in tree  # 2000 workers' GPUs + the leader's 4
    assert "memory ~37.3Gi per pod" in tree
    data = json.loads(wmap("inspect", str(path), "-o", "json").stdout)
    assert data["totals"]["gpus"] == 2004
    assert data["components"][1]["podResources"]["memory"] == "40G"  # exact, as Kubernetes writes it


def test_singular_and_plural(wmap, tmp_path):
    manifest = _manifest()
    manifest["spec"]["replicatedJobs"] = manifest["spec"]["replicatedJobs"][:1]
    path = tmp_path / "one.yaml"
    path.write_text(yaml.safe_dump(manifest))
    assert "Totals: 1 pod, 4 GPUs" in wmap("inspect", str(path)).stdout
    assert "(1 pod, min 1)" in wmap("place", str(path)).stdout


@pytest.mark.parametrize(
    ("edit", "suggested"),
    [
        (("kind", "Jobset"), "did you mean JobSet (jobset.x-k8s.io/v1alpha2)?"),  # a misspelt kind
        (("apiVersion", "jobsets.x-k8s.io/v1alpha2"), "did you mean JobSet (jobset.x-k8s.io/v1alpha2)?"),  # group
        (("kind", "LeaderWorkerSets"), "did you mean LeaderWorkerSet (leaderworkerset.x-k8s.io/v1)?"),
    ],
)
def test_unknown_kinds_and_groups_get_the_closest_suggested(wmap, tmp_path, edit, suggested):
    manifest = _manifest()
    manifest[edit[0]] = edit[1]
    path = tmp_path / "x.yaml"
    path.write_text(yaml.safe_dump(manifest))
    result = wmap("inspect", str(path))
    assert result.exit_code == 4
    assert suggested in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_unknown_definition_names_get_the_closest_suggested(wmap):
    result = wmap("catalog", "show", "jobst")
    assert result.exit_code == 4
    assert "did you mean jobset" in result.stderr
    assert "did you mean" not in wmap("catalog", "show", "zzzzzz").stderr


def test_catalog_show_takes_the_names_get_takes(wmap):
    for name in ("lws", "leaderworkersets", "LeaderWorkerSet", "lws.leaderworkerset.x-k8s.io", "leaderworkerset"):
        shown = wmap("catalog", "show", name, "-o", "json")
        assert shown.exit_code == 0, name
        assert json.loads(shown.stdout)["kind"] == "LeaderWorkerSet"
    assert json.loads(wmap("catalog", "show", "sts", "-o", "json").stdout)["kind"] == "StatefulSet"
    assert json.loads(wmap("catalog", "show", "jobs", "-o", "json").stdout)["group"] == "batch"  # the core group first
