"""Helpers the tests share: where the fixtures and the corpus are, and small loaders."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES_DIR = REPO_ROOT / "fixtures"
BAD_FIXTURES_DIR = FIXTURES_DIR / "bad"
SHARED_DIR = Path(os.environ.get("WMAP_SHARED_DIR") or REPO_ROOT.parent / "shared")
"""The shared data beside the clone (``../shared``), or where ``$WMAP_SHARED_DIR`` says it is."""
CORPUS_DIR = SHARED_DIR / "corpus"
DATA_DIR = REPO_ROOT / "tests" / "data"


def load_fixture(name: str) -> dict[str, Any]:
    """The single document of ``fixtures/<name>`` as a dict (safe loader, timestamps kept as strings)."""
    from workloadmap.documents import load_yaml_text

    documents = [doc for doc in load_yaml_text((FIXTURES_DIR / name).read_text(), name) if doc.body is not None]
    assert len(documents) == 1, f"{name} should hold exactly one document"
    body: dict[str, Any] = documents[0].body
    return body


def yaml_doc(text: str) -> Any:
    """Parse one YAML document written inline in a test."""
    return yaml.safe_load(text)
