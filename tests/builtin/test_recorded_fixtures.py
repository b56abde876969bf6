"""Status frames of the kinds the shared recordings lack, written for these tests (``fixtures/recorded``).

Each file follows the shared recordings' format (``../shared/corpus/recorded/FORMAT.md``) and says in
its header which operator code shapes its status (the controller's status writes, cited there). Every
STATE frame must map to its ``state``; the run must end in ``want`` and its run-length summary match.
"""

from __future__ import annotations

import pytest
import yaml

from helpers import FIXTURES_DIR
from workloadmap.catalog import Catalog
from workloadmap.interpreter import inspect

RECORDED = FIXTURES_DIR / "recorded"


def _files():
    return sorted(RECORDED.rglob("*.yaml"))


def _frames():
    params = []
    for path in _files():
        recording = yaml.safe_load(path.read_text())
        states = [event for event in recording["events"] if event["kind"] == "STATE"]
        for index, frame in enumerate(states):
            params.append(pytest.param(frame, id=f"{path.relative_to(RECORDED).as_posix()}#{index}"))
    return params


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load(use_env=False)


@pytest.mark.parametrize("frame", _frames())
def test_written_frame_maps_to_its_state(catalog, frame):
    tree = inspect(frame["object"], catalog=catalog)
    assert tree.phase == frame["state"], f"frame phases {frame['phases']}, wmap phases {tree.phases}"


@pytest.mark.parametrize("path", _files(), ids=lambda path: path.relative_to(RECORDED).as_posix())
def test_written_flow_is_well_formed(path):
    recording = yaml.safe_load(path.read_text())
    assert set(recording) == {
        "schemaVersion", "operator", "version", "kartaName", "kartaFile", "flow", "want", "result", "summary", "events"
    }  # fmt: skip
    assert path.parts[-4:-1] == (recording["operator"], recording["version"], recording["kartaName"])
    assert path.stem == recording["flow"]
    states = [event for event in recording["events"] if event["kind"] == "STATE"]
    assert recording["want"] == states[-1]["state"]
    runs: list[dict] = []
    for frame in states:
        assert frame["state"] == frame["phases"][-1]
        if runs and runs[-1]["phases"] == frame["phases"]:
            runs[-1]["amount"] += 1
        else:
            runs.append({"amount": 1, "phases": frame["phases"]})
    assert runs == recording["summary"]
    versions = [int(frame["resourceVersion"]) for frame in states]
    assert versions == sorted(set(versions))
