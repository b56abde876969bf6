"""The fail-safe classes under fuzzing: exploded counts, segments of one pod and hostile names on real manifests.

Every seeded case (``helpers.fuzz``, issue 16's mutations) must end as a tree within the budgets or a
located one-line error: never another exception, never a tree past a budget, and its human
rendering never holds a control character that came from the input.
"""

from __future__ import annotations

import pytest

from helpers.fuzz import FAIL_SAFE_MUTATIONS, corpus_documents, make_case
from workloadmap import Budgets, WorkloadMapError
from workloadmap.cli.printing.escape import escaped
from workloadmap.cli.render.workloads import render_tree
from workloadmap.documents import iter_documents
from workloadmap.interpreter import inspect_documents

SEEDS = range(160)
_UNSAFE = {chr(code) for code in [*range(0x20), *range(0x7F, 0xA0)]} - {"\n"} | {"\u202e", "\u2028"}


@pytest.fixture(scope="module")
def documents(corpus_dir):
    return corpus_documents(corpus_dir)


@pytest.mark.parametrize("seed", SEEDS)
def test_fail_safe_mutations_end_in_a_bounded_tree_or_a_located_error(documents, builtin_catalog, seed):
    case = make_case(documents, seed, FAIL_SAFE_MUTATIONS)
    budgets = Budgets()
    for result in inspect_documents(iter_documents(case.text, "case.yaml"), catalog=builtin_catalog):
        if result.error is not None:
            assert isinstance(result.error, WorkloadMapError), case.mutations
            assert result.error.file == "case.yaml" and "\n" not in str(result.error), case.mutations
            continue
        tree = result.tree
        if tree is None:
            continue
        assert tree.totals.pods <= budgets.pods, case.mutations
        assert len(tree.pod_groups) <= budgets.pod_groups, case.mutations
        assert sum(len(group.sub_groups) for group in tree.pod_groups) <= budgets.sub_groups, case.mutations
        shown = render_tree(escaped(tree))
        assert not _UNSAFE & set(shown), (case.mutations, [c for c in shown if c in _UNSAFE][:3])
