"""The tests that need the shared data never skip silently (issue 25).

694 of 3,890 tests skipped without a word in a clone placed away from ``../shared``. Now their
location comes from ``$WMAP_SHARED_DIR`` too, the summary says how many skipped and why, and with
``WMAP_REQUIRE_SHARED=1`` (``.ci/run`` sets it when the shared data is there) such a skip fails the run.
"""

from __future__ import annotations

import os
import subprocess
import sys

from helpers import REPO_ROOT, SHARED_MISSING

NEEDS_SHARED = """\
from pathlib import Path

from helpers import require_shared


def test_needs_shared():
    require_shared(Path("/nonexistent/shared/corpus"))


def test_needs_nothing():
    pass
"""


def _pytest(tmp_path, require: str | None):
    (tmp_path / "test_needs_shared.py").write_text(NEEDS_SHARED)
    environment = {key: value for key, value in os.environ.items() if key != "WMAP_REQUIRE_SHARED"}
    if require is not None:
        environment["WMAP_REQUIRE_SHARED"] = require
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c", str(REPO_ROOT / "pyproject.toml")]
    command += ["--rootdir", str(REPO_ROOT), "-p", "conftest", str(tmp_path / "test_needs_shared.py")]
    return subprocess.run(command, capture_output=True, text=True, env=environment, cwd=REPO_ROOT, check=False)


def test_a_skip_for_missing_shared_data_is_counted_with_its_reason(tmp_path):
    done = _pytest(tmp_path, None)
    assert done.returncode == 0, done.stdout
    assert "1 test skipped: the shared data is missing" in done.stdout
    assert f"{SHARED_MISSING}: /nonexistent/shared/corpus does not exist (set WMAP_SHARED_DIR" in done.stdout


def test_with_wmap_require_shared_such_a_skip_fails_the_run(tmp_path):
    done = _pytest(tmp_path, "1")
    assert done.returncode == 1, done.stdout
    assert "WMAP_REQUIRE_SHARED=1: the run fails" in done.stdout
    assert "skipped: " in done.stdout and "test_needs_shared" in done.stdout


EMPTY_PARAMETERS = """\
import pytest


@pytest.mark.parametrize("file", [])
def test_every_file(file):
    pass
"""


def test_an_empty_parametrization_fails_the_collection(tmp_path):
    # Data read at collection that is absent gives no parameters: pytest's default skips the test
    # with "got empty parameter set", which no reason counts. pyproject makes it an error.
    (tmp_path / "test_needs_shared.py").write_text(EMPTY_PARAMETERS)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c", str(REPO_ROOT / "pyproject.toml")]
    command += ["--rootdir", str(REPO_ROOT), str(tmp_path / "test_needs_shared.py")]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT, check=False)
    assert done.returncode != 0, done.stdout
    assert "Empty parameter set in 'test_every_file'" in done.stdout


def _ci_environment(tmp_path, environment: dict[str, str]) -> str:
    """What .ci/run's shared-data lines export, run alone in a copy placed at ``tmp_path/clone``."""
    script = (REPO_ROOT / ".ci" / "run").read_text()
    start = script.index("SHARED_DATA=")
    end = script.index("\nfi\n", start) + len("\nfi\n")
    clone = tmp_path / "clone"
    clone.mkdir(exist_ok=True)
    snippet = script[start:end] + 'echo "dir=${WMAP_SHARED_DIR:-} require=${WMAP_REQUIRE_SHARED:-}"\n'
    base = {key: value for key, value in os.environ.items() if not key.startswith("WMAP_")}
    done = subprocess.run(
        ["bash", "-c", snippet], capture_output=True, text=True, cwd=clone, env={**base, **environment}, check=True
    )
    return done.stdout.splitlines()[-1]


def test_ci_requires_the_shared_data_beside_the_clone(tmp_path):
    assert _ci_environment(tmp_path, {}) == "dir= require="
    (tmp_path / "shared").mkdir()
    assert _ci_environment(tmp_path, {}) == f"dir={tmp_path / 'shared'} require=1"


def test_ci_requires_the_shared_data_wmap_shared_dir_names(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    assert _ci_environment(tmp_path, {"WMAP_SHARED_DIR": str(elsewhere)}) == f"dir={elsewhere} require="
    elsewhere.mkdir()
    assert _ci_environment(tmp_path, {"WMAP_SHARED_DIR": str(elsewhere)}) == f"dir={elsewhere} require=1"
    assert "pytest" in (REPO_ROOT / ".ci" / "run").read_text().rsplit("SHARED_DATA=", 1)[1]  # set before the run
