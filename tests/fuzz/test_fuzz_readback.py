"""The read-back check: every ``alter``/``suspend``/``resume`` output parsed as kubectl parses it (issue 26).

Mutated manifests (``helpers.fuzz``: YAML 1.1 words, go-yaml numbers, NEL and structure characters as
values, keys and annotations, on top of generic scalar changes) are altered with option values drawn
from the same words, suspended and resumed; each output is read back with go-yaml v2's and v3's scalar
typing (``helpers.goyaml``, ported from ``resolve.go``) and must equal what ``-o json`` prints for it.
``WMAP_FUZZ_CASES`` runs the long mode (see test_fuzz_inspect).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from helpers import CORPUS_DIR, FIXTURES_DIR
from helpers.fuzz import READ_BACK_MUTATIONS, YAML_WORDS, corpus_documents, fuzz_plan, make_case
from helpers.goyaml import differences, read_back
from workloadmap.alter import Changes, alter
from workloadmap.cli.printing.output import dump, dump_manifests
from workloadmap.documents import Document, iter_documents
from workloadmap.errors import WorkloadMapError

PLAN = fuzz_plan(ci_cases=480)
BATCHES = PLAN.batches(3)
# Words that are valid label values (alter checks them as the API server would).
_LABEL_WORDS = [word for word in YAML_WORDS if re.fullmatch(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?", word)]


def option_changes(rng: random.Random) -> list[Changes]:
    """alter with option values that look typed (--queue n, --node-selector zone=Y ...), suspend, resume."""
    altered = Changes(
        queue=rng.choice(["y", "n", "on", "off", "yes", "no", "1e3", "2e-3", "0o17", "08", "017", "0x1f", "null"]),
        labels={"tier": rng.choice(_LABEL_WORDS)},
        annotations={"note": rng.choice(YAML_WORDS)},
        pod_labels={"team": rng.choice(_LABEL_WORDS)},
        node_selector={"zone": rng.choice(_LABEL_WORDS)},
        scheduler_name="kai-scheduler",
    )
    return [altered, Changes(suspend=True), Changes(suspend=False)]


def read_back_problems(objects: list[Any]) -> list[str]:
    """What kubectl (v2) or a go-yaml v3 tool would read differently from the JSON of ``objects``."""
    expected = [json.loads(dump(obj, "json")) for obj in objects]
    text = dump_manifests(objects)
    problems = []
    for version in ("v2", "v3"):
        try:
            found = read_back(text, version)
        except ValueError as error:  # a key kubectl cannot read, an explicit tag it cannot decode
            problems.append(f"{version}: {error}")
            continue
        problems += [f"{version} {problem}" for want, got in zip(expected, found, strict=True)
                     for problem in differences(want, got)]  # fmt: skip
    return problems


@pytest.mark.parametrize("seeds", BATCHES, ids=[f"{r.start}-{r.stop - 1}" for r in BATCHES])
def test_alter_suspend_resume_output_reads_back_unchanged(seeds, builtin_catalog):
    inputs = corpus_documents(FIXTURES_DIR) + (corpus_documents(CORPUS_DIR) if CORPUS_DIR.is_dir() else [])
    failures = []
    for seed in seeds:
        case = make_case(inputs, seed, READ_BACK_MUTATIONS, budget=PLAN.budget)
        documents = [doc for doc in iter_documents(case.text, "fuzz.yaml") if isinstance(doc, Document)]
        for changes in option_changes(random.Random(seed)):
            printed = []
            for document in documents:
                try:
                    printed.append(alter(document.body, changes, catalog=builtin_catalog).object)
                except (WorkloadMapError, TypeError):
                    continue  # refused with an error: nothing printed, nothing to read back
            problems = read_back_problems(printed) if printed else []
            if problems:
                failures.append(f"seed {seed} {case.source} {case.mutations} {changes}: {problems[:3]}")
    assert not failures, "\n".join(failures[:20])
