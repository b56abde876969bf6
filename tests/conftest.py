"""Shared pytest fixtures for wmap's tests (helpers live in the ``helpers`` package).

Tests that need the shared data (``../shared`` beside the clone, or ``$WMAP_SHARED_DIR``) skip with a
reason that starts with ``helpers.SHARED_MISSING``; the run's summary counts them and says where it
looked. With ``WMAP_REQUIRE_SHARED=1`` (``.ci/run`` sets it when the shared data is there) such a
skip fails the run: CI never passes with a third of the suite silently not run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import BAD_FIXTURES_DIR, CORPUS_DIR, FIXTURES_DIR, SHARED_MISSING, require_shared
from helpers.apiserver import fake_cluster  # noqa: F401  (a fixture: the stand-in API server)


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """The project's hand-written example inputs (``fixtures/``)."""
    return FIXTURES_DIR


@pytest.fixture(scope="session")
def bad_fixtures_dir() -> Path:
    """Deliberately broken inputs (``fixtures/bad/``)."""
    return BAD_FIXTURES_DIR


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The shared corpus of real upstream manifests (``../shared/corpus``); skips when absent."""
    return require_shared(CORPUS_DIR)


@pytest.fixture(scope="session")
def builtin_catalog():
    """The built-in catalog only (no WMAP_CATALOG directories), loaded once."""
    from workloadmap.catalog import Catalog

    return Catalog.load(use_env=False)


@pytest.fixture
def inspect_builtin(builtin_catalog):
    """``inspect`` bound to the built-in catalog, so a user's WMAP_CATALOG cannot change results."""
    from workloadmap.interpreter import inspect

    def run(resource, **kwargs):
        return inspect(resource, catalog=builtin_catalog, **kwargs)

    return run


@pytest.fixture
def wmap(monkeypatch):
    """Run the command line in-process (no WMAP_CATALOG): ``wmap("inspect", "x.yaml")`` gives a Result."""
    from typer.testing import CliRunner

    from workloadmap.cli.main import app

    monkeypatch.delenv("WMAP_CATALOG", raising=False)
    runner = CliRunner()

    def run(*args: str, stdin: str | None = None):
        return runner.invoke(app, list(args), input=stdin)

    return run


_SHARED_SKIPS: list[tuple[str, str]] = []
"""(test, reason) of every test skipped for want of the shared data, in this run."""


def _requires_shared() -> bool:
    return os.environ.get("WMAP_REQUIRE_SHARED", "") not in ("", "0")


def pytest_runtest_logreport(report):
    """Record the skips that come from missing shared data (their reason starts with SHARED_MISSING)."""
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if SHARED_MISSING in reason:
            _SHARED_SKIPS.append((report.nodeid, reason.removeprefix("Skipped: ")))


def pytest_sessionfinish(session, exitstatus):
    """With WMAP_REQUIRE_SHARED=1, a test skipped for want of the shared data fails the run."""
    if _requires_shared() and _SHARED_SKIPS and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The tests skipped for want of the shared data (and why); after tests/test_architecture.py, long modules."""
    from helpers import sizes

    if _SHARED_SKIPS:
        reasons = sorted({reason for _, reason in _SHARED_SKIPS})
        required = _requires_shared()
        terminalreporter.section(
            f"{len(_SHARED_SKIPS)} test{'s' if len(_SHARED_SKIPS) != 1 else ''} skipped: the shared data is missing"
            + (" (WMAP_REQUIRE_SHARED=1: the run fails)" if required else ""),
            red=required,
            yellow=not required,
        )
        for reason in reasons:
            terminalreporter.write_line(reason)
        if required:
            for nodeid, _ in _SHARED_SKIPS[:20]:
                terminalreporter.write_line(f"  skipped: {nodeid}")

    ran = terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", [])
    if not any(report.nodeid.startswith("tests/test_architecture.py") for report in ran):
        return
    long = sizes.long_modules()
    if long:
        terminalreporter.section(f"modules over {sizes.PROMPT_LINES} lines: does each still do one job?")
        for path, lines in long:
            terminalreporter.write_line(f"{lines:6} {path}")
