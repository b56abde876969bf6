"""Fuzzing ``wmap alter``, ``suspend`` and ``resume``: mutated manifests end in output or one-line errors (issue 26).

The generic mutations of :mod:`helpers.fuzz` (wrong types where the catalog reads a field, huge and
non-ASCII numbers, YAML tags, deep nesting), labels and annotations of the wrong type, and Lists
whose items are not objects. Each run exits 0 (output printed) or 1 (nothing printed, each error one
located line; 4 when a kind has no definition), never an internal error. ``WMAP_FUZZ_CASES`` runs the long mode.
"""

from __future__ import annotations

import random

import pytest

from helpers import FIXTURES_DIR
from helpers.fuzz import _dump, _metadata_confusion, _tree_copy, corpus_documents, fuzz_plan, make_case

PLAN = fuzz_plan(ci_cases=120)
BATCHES = PLAN.batches(2)
COMMANDS = [["alter", "--queue", "n", "--label", "tier=y"], ["suspend"], ["resume"]]


def as_list(rng: random.Random, text: str) -> str:
    """Sometimes the case after a List whose items are no objects."""
    if rng.random() < 0.7:
        return text
    return _dump({"apiVersion": "v1", "kind": "List", "items": [5, ["x"], None, "text"]}) + "---\n" + text


def problem(result) -> str | None:
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return f"{type(result.exception).__name__}: {result.exception}"
    if result.exit_code not in (0, 1, 4):  # 4: a kind no definition covers
        return f"exit {result.exit_code}: {result.stderr[-300:]}"
    if "internal error" in result.stderr or "Traceback" in result.stderr:
        return result.stderr[-300:]
    if result.exit_code and result.stdout:
        return "exit 1 with output (a partial change printed)"
    return None


@pytest.mark.parametrize("seeds", BATCHES, ids=[f"{r.start}-{r.stop - 1}" for r in BATCHES])
def test_mutated_manifests_alter_cleanly(seeds, wmap, tmp_path):
    inputs = corpus_documents(FIXTURES_DIR)
    failures = []
    for seed in seeds:
        case = make_case(inputs, seed, budget=PLAN.budget)
        rng = random.Random(seed)
        text, mutations = case.text, case.mutations
        if rng.random() < 0.3:
            source, body = inputs[rng.randrange(len(inputs))]
            body = _tree_copy(body)
            mutations = (_metadata_confusion(rng, body), f"from {source}")
            text = _dump(body)
        path = tmp_path / "case.yaml"
        path.write_text(as_list(rng, text))
        command = COMMANDS[seed % len(COMMANDS)]
        found = problem(wmap(command[0], str(path), *command[1:]))
        if found:
            failures.append(f"seed {seed} {case.source} {mutations} `{command[0]}`: {found}")
    assert not failures, "\n".join(failures[:20])
