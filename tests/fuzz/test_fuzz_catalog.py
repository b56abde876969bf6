"""Fuzzing ``wmap catalog validate`` and ``wmap catalog lint`` with hostile definitions.

The built-in definitions and the repo's Kartas, mutated by :mod:`helpers.fuzz` (wrong types, huge and
non-ASCII numbers, YAML tags, deep nesting, duplicated keys, multiplied lists). Each run must end with
a verdict (exit 0 or 1) and one-line errors, never a traceback. ``WMAP_FUZZ_CASES`` runs the long mode.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from helpers import FIXTURES_DIR, REPO_ROOT
from helpers.fuzz import fuzz_plan, make_definition_case

PLAN = fuzz_plan(ci_cases=240)
BATCHES = PLAN.batches(3)


def definitions() -> list[tuple[str, Any]]:
    found = []
    for path in sorted([*(REPO_ROOT / "catalog").glob("*.yaml"), *(FIXTURES_DIR / "karta").glob("*.yaml")]):
        for body in yaml.safe_load_all(path.read_text()):
            if isinstance(body, dict):
                found.append((str(path.relative_to(REPO_ROOT)), body))
    return found


def problem(result) -> str | None:
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return f"{type(result.exception).__name__}: {result.exception}"
    if result.exit_code not in (0, 1):
        return f"exit {result.exit_code}"
    if "internal error" in result.stderr or "Traceback" in result.stderr:
        return result.stderr[-300:]
    return None


@pytest.mark.parametrize("seeds", BATCHES, ids=[f"{r.start}-{r.stop - 1}" for r in BATCHES])
def test_hostile_definitions_fail_cleanly(seeds, wmap, tmp_path):
    inputs = definitions()
    failures = []
    for seed in seeds:
        case = make_definition_case(inputs, seed, budget=PLAN.budget)
        path = tmp_path / "definition.yaml"
        path.write_text(case.text)
        for command in ("validate", "lint"):
            found = problem(wmap("catalog", command, str(path)))
            if found:
                failures.append(f"seed {seed} {case.source} {case.mutations} `catalog {command}`: {found}")
    assert not failures, "\n".join(failures[:20])
