"""Corpus conformance: every upstream manifest interprets, and its figures match the operators' rules.

The expected figures live in tests/data/corpus_expected.yaml. They were written by reading each
manifest and the operator's / KAI pod-grouper's documented semantics (the arithmetic is in each
entry's `why`), never by running wmap.
"""

from __future__ import annotations

from collections import Counter

import pytest
import yaml

import workloadmap
from helpers import CORPUS_DIR, DATA_DIR, require_shared
from workloadmap.documents import load_objects

EXPECTED_FILE = DATA_DIR / "corpus_expected.yaml"
CORPUS = CORPUS_DIR

# Where wmap deliberately differs from an expected entry, the reason is recorded here and the
# comparison is marked xfail(strict): if the two ever agree, the test says so.
_DYNAMO_MULTINODE = (
    "Dynamo renders a multinode service as a Grove scaling group of two PodCliques, <svc>-ldr (1 pod) and "
    "<svc>-wkr (nodeCount - 1); wmap keeps each multinode replica as one subgroup of nodeCount pods named "
    "<dgd>-0-<svc>-<replica>. Pods, GPUs and each PodGroup's minMember agree; only the subgroup split differs."
)
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    ("dynamographdeployment/vllm-disagg-multinode.yaml", "vllm-disagg"): _DYNAMO_MULTINODE,
    ("dynamographdeployment/sglang-disagg-multinode-v1beta1.yaml", "sglang-disagg-multinode"): _DYNAMO_MULTINODE,
}
KNOWN_DIFFERENCE_TESTS = {"test_pod_groups"}


def _entries(test: str):
    for entry in yaml.safe_load(EXPECTED_FILE.read_text()):
        for document in entry.get("documents") or []:
            key = (entry["file"], document["name"])
            marks = []
            if key in KNOWN_DIFFERENCES and test in KNOWN_DIFFERENCE_TESTS:
                marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_DIFFERENCES[key]))
            yield pytest.param(entry["file"], document, id=f"{entry['file']}:{document['name']}", marks=marks)


def _skipped_entries():
    for entry in yaml.safe_load(EXPECTED_FILE.read_text()):
        yield pytest.param(entry["file"], entry.get("skipped") or [], id=entry["file"])


@pytest.fixture(scope="module")
def results():
    require_shared(CORPUS)
    cache: dict[str, list] = {}

    def get(file: str):
        if file not in cache:
            cache[file] = workloadmap.inspect_file(str(CORPUS / file))
        return cache[file]

    return get


def _leaf_components(tree: workloadmap.WorkloadTree) -> dict[str, dict]:
    pods: Counter = Counter()
    gpus_per_pod: dict[str, float] = {}
    for component in tree.walk():
        if component.has_pod_template:
            pods[component.name] += component.pods
            gpus_per_pod[component.name] = component.gpus_per_pod
    return {name: {"pods": pods[name], "gpusPerPod": gpus_per_pod[name]} for name in pods}


def _gate(min_member: int, min_sub_group: int | None) -> dict:
    """The field KAI sets: ``minSubGroup`` where the gang is gated by its SubGroups, else ``minMember``."""
    return {"minSubGroup": min_sub_group} if min_sub_group is not None else {"minMember": min_member}


def _groups(tree: workloadmap.WorkloadTree) -> list[dict]:
    return [
        {
            **_gate(group.min_member, group.min_sub_group),
            "subGroups": sorted(
                ({"name": s.name, **_gate(s.min_member, s.min_sub_group)} for s in group.sub_groups),
                key=lambda s: s["name"],
            ),
        }
        for group in tree.pod_groups
    ]


def _expected_gate(item: dict) -> dict:
    return {"minSubGroup": item["minSubGroup"]} if "minSubGroup" in item else {"minMember": item["minMember"]}


def _expected_groups(document: dict) -> list[dict]:
    return [
        {
            **_expected_gate(group),
            "subGroups": sorted(
                ({"name": s["name"], **_expected_gate(s)} for s in group.get("subGroups") or []),
                key=lambda s: s["name"],
            ),
        }
        for group in document.get("podGroups") or []
    ]


def _tree_for(results, file: str, document: dict) -> workloadmap.WorkloadTree:
    matches = []
    for result in results(file):
        assert result.error is None, f"{file}: {result.error}"
        if (
            result.tree
            and result.tree.workload.name == document["name"]
            and result.tree.workload.kind == document["kind"]
        ):
            matches.append(result.tree)
    assert matches, f"{file}: no {document['kind']}/{document['name']} in wmap's output"
    return matches[0]


@pytest.mark.parametrize("file, document", list(_entries("test_pods_and_gpus")))
def test_pods_and_gpus(results, file, document):
    tree = _tree_for(results, file, document)
    assert (tree.totals.pods, tree.totals.gpus) == (document["pods"], document["gpus"]), document.get("why")


@pytest.mark.parametrize("file, document", list(_entries("test_components")))
def test_components(results, file, document):
    tree = _tree_for(results, file, document)
    assert _leaf_components(tree) == document["components"], document.get("why")


@pytest.mark.parametrize("file, document", list(_entries("test_pod_groups")))
def test_pod_groups(results, file, document):
    tree = _tree_for(results, file, document)
    assert _groups(tree) == _expected_groups(document), document.get("why")


@pytest.mark.parametrize("file, skipped", list(_skipped_entries()))
def test_every_document_is_interpreted_or_skipped(results, file, skipped):
    outcomes = results(file)
    errors = [str(result.error) for result in outcomes if result.error is not None]
    assert not errors
    skipped_here = []
    for result in outcomes:
        if result.skipped and result.document is not None:
            body = result.document.body
            skipped_here.append(f"{body.get('kind')}/{(body.get('metadata') or {}).get('name')}")
    assert skipped_here == skipped


def test_every_corpus_manifest_has_expected_figures():
    require_shared(CORPUS)
    covered = {entry["file"] for entry in yaml.safe_load(EXPECTED_FILE.read_text())}
    manifests = {
        str(path.relative_to(CORPUS))
        for path in CORPUS.rglob("*.yaml")
        if path.relative_to(CORPUS).parts[0] not in ("recorded", "karta")
    }
    assert manifests - covered == set()


def test_corpus_documents_load(results):
    # Every object the corpus holds parses (no YAML errors anywhere).
    for path in CORPUS.rglob("*.yaml"):
        if path.relative_to(CORPUS).parts[0] in ("recorded", "karta"):
            continue
        errors = [item for item in load_objects(str(path)) if isinstance(item, workloadmap.WorkloadMapError)]
        assert not errors, errors


@pytest.mark.parametrize("file, document", list(_entries("test_pod_group_sizes")))
def test_pod_group_sizes(results, file, document):
    # The gang thresholds alone, for every document (also those whose subgroup split is a known difference).
    tree = _tree_for(results, file, document)
    expected = [_expected_gate(group) for group in document.get("podGroups") or []]
    assert [_gate(group.min_member, group.min_sub_group) for group in tree.pod_groups] == expected, document.get("why")
