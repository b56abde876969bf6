"""Shared pytest fixtures for wmap's tests: paths to fixtures and the corpus, loaders, a catalog."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
FIXTURES_DIR = REPO_ROOT / "fixtures"
BAD_FIXTURES_DIR = FIXTURES_DIR / "bad"
CORPUS_DIR = REPO_ROOT.parent / "shared" / "corpus"


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


def load_fixture(name: str) -> dict:
    """The single document of ``fixtures/<name>`` as a dict (safe loader, timestamps kept as strings)."""
    from workloadmap.documents import load_yaml_text

    documents = [doc for doc in load_yaml_text((FIXTURES_DIR / name).read_text(), name) if doc.body is not None]
    assert len(documents) == 1, f"{name} should hold exactly one document"
    return documents[0].body


def yaml_doc(text: str) -> dict:
    """Parse one YAML document written inline in a test."""
    return yaml.safe_load(text)


@pytest.fixture
def inspect_builtin(builtin_catalog):
    """``inspect`` bound to the built-in catalog, so a user's WMAP_CATALOG cannot change results."""
    from workloadmap.interpreter import inspect

    def run(resource, **kwargs):
        return inspect(resource, catalog=builtin_catalog, **kwargs)

    return run
