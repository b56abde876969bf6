"""How long a module of wmap may grow: a size that prompts a look, and a ceiling that fails the tests."""

from __future__ import annotations

from pathlib import Path

from . import REPO_ROOT

PROMPT_LINES = 550
"""Modules longer than this are listed after a run of tests/test_architecture.py: look whether each does one job."""

MAX_LINES = 1500
"""Modules longer than this fail tests/test_architecture.py."""


def long_modules() -> list[tuple[str, int]]:
    """The modules of workloadmap/ and cli/ longer than :data:`PROMPT_LINES`, longest first, with their lengths."""
    found = []
    for root in ("workloadmap", "cli"):
        for path in sorted((REPO_ROOT / root).rglob("*.py")):
            lines = Path(path).read_text().count("\n")
            if lines > PROMPT_LINES:
                found.append((str(path.relative_to(REPO_ROOT)), lines))
    return sorted(found, key=lambda item: -item[1])
