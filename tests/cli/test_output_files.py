"""An output never replaces an input, and a failed write never leaves half a file (issue 26).

``place job.yaml --html job.yaml``, ``--html nodes.json`` and ``topology show nodes.json --html
nodes.json`` replaced the input with the HTML page. Every case below ends with exit 2, one error
naming the option, and the input byte for byte as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

from helpers import FIXTURES_DIR

WORKLOAD = FIXTURES_DIR / "jobset-leader-workers.yaml"
NODES = FIXTURES_DIR / "live" / "nvl72-nodes.yaml"
ENTRY = "import sys; sys.argv[0] = 'wmap'; from workloadmap.cli.entry import run; run()"


@pytest.fixture
def inputs(tmp_path):
    workload, nodes = tmp_path / "job.yaml", tmp_path / "nodes.json"
    workload.write_bytes(WORKLOAD.read_bytes())
    nodes.write_bytes(NODES.read_bytes())
    return workload, nodes


def refused(result, *files) -> None:
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    assert "--html" in result.stderr and "is an input of this command" in result.stderr
    assert all(path.read_bytes() == original for path, original in files)


def test_place_html_onto_its_workload_is_refused(wmap, inputs):
    workload, _ = inputs
    refused(wmap("place", str(workload), "--html", str(workload)), (workload, WORKLOAD.read_bytes()))


def test_place_html_onto_its_topology_is_refused(wmap, inputs):
    workload, nodes = inputs
    refused(wmap("place", str(workload), "-t", str(nodes), "--html", str(nodes)), (nodes, NODES.read_bytes()))


def test_topology_show_html_onto_its_source_is_refused(wmap, inputs):
    _, nodes = inputs
    refused(wmap("topology", "show", str(nodes), "--html", str(nodes)), (nodes, NODES.read_bytes()))


def test_a_symlink_or_hard_link_to_an_input_is_the_input(wmap, inputs, tmp_path):
    workload, _ = inputs
    (tmp_path / "link.html").symlink_to(workload)
    os.link(workload, tmp_path / "hard.html")
    for output in ("link.html", "hard.html"):
        result = wmap("place", str(workload), "--html", str(tmp_path / output))
        refused(result, (workload, WORKLOAD.read_bytes()))
        assert f"the same file as {workload}" in result.stderr


def test_a_file_of_an_input_directory_is_an_input(wmap, inputs, tmp_path):
    workload, _ = inputs
    refused(wmap("place", str(tmp_path), "--html", str(workload)), (workload, WORKLOAD.read_bytes()))


def test_standard_input_is_an_input(inputs):
    """`wmap place - --html job.yaml < job.yaml`: the file behind standard input is compared too."""
    workload, _ = inputs
    with workload.open("rb") as stdin:
        run = subprocess.run(
            [sys.executable, "-c", ENTRY, "place", "-", "--html", str(workload)],
            stdin=stdin, capture_output=True, text=True, check=False, timeout=120, cwd=tempfile.gettempdir(),
        )  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert "the same file as standard input" in run.stderr
    assert workload.read_bytes() == WORKLOAD.read_bytes()


def test_a_new_file_and_another_file_are_written(wmap, inputs, tmp_path):
    workload, _ = inputs
    other = tmp_path / "old.html"
    other.write_text("old")
    other.chmod(0o640)
    for output in (tmp_path / "new.html", other):
        result = wmap("place", str(workload), "--html", str(output))
        assert result.exit_code == 0, result.stderr
        assert output.read_text().startswith("<!DOCTYPE html>")
    assert other.stat().st_mode & 0o777 == 0o640  # the file it replaces keeps its mode
    assert sorted(path.name for path in tmp_path.iterdir()) == ["job.yaml", "new.html", "nodes.json", "old.html"]


def test_a_failed_write_leaves_the_old_file_whole(wmap, inputs, tmp_path, monkeypatch):
    """The disk fills up while the page is written: the old page stays, no temporary file is left."""
    workload, _ = inputs
    page = tmp_path / "page.html"
    page.write_text("the old page")

    def full(_descriptor):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    result = wmap("place", str(workload), "--html", str(page))
    assert result.exit_code == 1
    assert result.stderr.strip().endswith(f"error: {page}: cannot write: No space left on device")
    assert page.read_text() == "the old page"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["job.yaml", "nodes.json", "page.html"]


def test_topology_generate_writes_its_file_atomically(wmap, tmp_path, monkeypatch):
    out = tmp_path / "nodes.yaml"
    out.write_text("previous")
    monkeypatch.setattr(os, "fsync", lambda _descriptor: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    assert wmap("topology", "generate", "--output-file", str(out)).exit_code == 1
    assert out.read_text() == "previous" and [path.name for path in tmp_path.iterdir()] == ["nodes.yaml"]
    monkeypatch.undo()
    assert wmap("topology", "generate", "--output-file", str(out)).exit_code == 0
    assert "kind: NodeList" in out.read_text()
