"""Fuzzing ``wmap inspect``: mutated real manifests must give a tree or a one-line located error.

Inputs come from :mod:`helpers.fuzz` (seeded, so a failure is reproduced from its seed): the shared
corpus when it is there, and always the repo's own fixtures, so CI without the corpus still fuzzes.
The CI run is bounded (a few thousand cases); ``WMAP_FUZZ_CASES=200000`` runs the long mode locally.
Every bug a run found is a fixture under ``fixtures/bad/`` with its expected message
(``test_regressions.py``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from helpers import CORPUS_DIR, FIXTURES_DIR, require_shared
from helpers.fuzz import corpus_documents, fuzz_plan, make_case
from workloadmap.cli.printing.output import dump
from workloadmap.cli.render.workloads import render_tree
from workloadmap.documents import iter_documents
from workloadmap.interpreter import inspect_documents

PLAN = fuzz_plan(ci_cases=1600)
BATCHES = PLAN.batches(8)
SOURCES = {"fixtures": FIXTURES_DIR, "corpus": CORPUS_DIR}
_documents: dict[str, list[tuple[str, Any]]] = {}


def documents(source: str) -> list[tuple[str, Any]]:
    require_shared(SOURCES[source])
    if source not in _documents:
        _documents[source] = corpus_documents(SOURCES[source])
    return _documents[source]


def check_case(text: str, catalog: Any) -> None:
    """The contract for any input: per document a tree that renders and dumps, or a one-line located error."""
    for result in inspect_documents(iter_documents(text, "fuzz.yaml"), catalog=catalog):
        if result.error is not None:
            message = str(result.error)
            assert "\n" not in message, message
            assert message.startswith("fuzz.yaml"), message
            assert result.error.location.document, message  # every document-level error names its document
        elif result.tree is not None:
            data = result.tree.to_dict()
            json.dumps(data)
            dump(data, "yaml")
            render_tree(result.tree)


def run_batch(source: str, seeds: range, catalog: Any) -> list[str]:
    inputs = documents(source)
    failures = []
    for seed in seeds:
        case = make_case(inputs, seed, budget=PLAN.budget)
        try:
            check_case(case.text, catalog)
        except Exception as error:  # every escape is a finding: a failed check or an internal error
            failures.append(f"seed {seed} {case.source} {case.mutations}: {type(error).__name__}: {str(error)[:200]}")
    return failures


# The CI run gives half its batches to each source (alternating); the long run gives both the whole range.
CASES = [
    (source, seeds)
    for index, seeds in enumerate(BATCHES)
    for source in ("fixtures", "corpus")
    if PLAN.long or index % 2 == ("fixtures", "corpus").index(source)
]


@pytest.mark.parametrize(("source", "seeds"), CASES, ids=[f"{s}-{r.start}-{r.stop - 1}" for s, r in CASES])
def test_mutated_manifests_fail_cleanly(source, seeds, builtin_catalog):
    failures = run_batch(source, seeds, builtin_catalog)
    assert not failures, "\n".join(failures[:20])
