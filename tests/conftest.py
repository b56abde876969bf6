"""Shared pytest fixtures for wmap's tests (helpers live in the ``helpers`` package)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import BAD_FIXTURES_DIR, CORPUS_DIR, FIXTURES_DIR
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
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"corpus not available: {CORPUS_DIR} does not exist (it lives outside the repository)")
    return CORPUS_DIR


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


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """After a run of tests/test_architecture.py, the modules past the size that prompts a look."""
    from helpers import sizes

    ran = terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", [])
    if not any(report.nodeid.startswith("tests/test_architecture.py") for report in ran):
        return
    long = sizes.long_modules()
    if long:
        terminalreporter.section(f"modules over {sizes.PROMPT_LINES} lines: does each still do one job?")
        for path, lines in long:
            terminalreporter.write_line(f"{lines:6} {path}")
