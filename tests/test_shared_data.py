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
    assert "1 tests skipped: the shared data is missing" in done.stdout
    assert f"{SHARED_MISSING}: /nonexistent/shared/corpus does not exist (set WMAP_SHARED_DIR" in done.stdout


def test_with_wmap_require_shared_such_a_skip_fails_the_run(tmp_path):
    done = _pytest(tmp_path, "1")
    assert done.returncode == 1, done.stdout
    assert "WMAP_REQUIRE_SHARED=1: the run fails" in done.stdout
    assert "skipped: " in done.stdout and "test_needs_shared" in done.stdout


def test_ci_requires_the_shared_data_when_it_is_there():
    script = (REPO_ROOT / ".ci" / "run").read_text()
    assert "WMAP_REQUIRE_SHARED=1" in script and "WMAP_SHARED_DIR" in script
    assert "if [ -d ../shared ]" in script
