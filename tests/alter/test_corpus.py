"""Round trips over every upstream manifest of ../shared/corpus (the issue's definition of done).

For each workload: altering and then removing exactly the fields added gives back the original
object, in the same key order (a value that was replaced must be named in a warning); read back
through the catalog, every pod template of every component carries the change; the components
altered are the pod-bearing components, as many as tests/data/corpus_expected.yaml lists (written
by hand from the operators' rules); the merge patch, applied as the API server applies one
(RFC 7386), gives the altered object. Kinds that cannot take a change are listed with the reason.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import pytest
import yaml

from helpers import CORPUS_DIR, DATA_DIR
from workloadmap.alter import Changes, NodeRequirement, Toleration, alter, apply_merge_patch
from workloadmap.catalog import Catalog
from workloadmap.documents import Document, load_objects
from workloadmap.errors import AlterError
from workloadmap.interpreter import EvaluationContext, Expander, ObjectIndex, inspect, resolve_references

CHANGES = Changes(
    scheduler_name="kai-scheduler",
    queue="team-a",
    tolerations=(Toleration.parse("nvidia.com/gpu:NoSchedule"),),
    pod_labels={"wmap.dev/probe": "yes"},
    pod_annotations={"wmap.dev/note": "altered"},
    node_selector={"wmap.dev/pool": "gpu"},
    priority_class="wmap-probe",
    node_affinity=(NodeRequirement("wmap.dev/rack", ("r1",)),),
)

# Documents the change cannot reach, and why (the error must say so, naming the kind).
REFUSED = {
    "NIMCache": "no place for the pods' labels",  # NIMCacheSpec: nodeSelector and tolerations only
    "TrainJob": "no place for the pods' labels",  # its templates live in the (Cluster)TrainingRuntime
}
REFUSED_FILES = {
    # spark-operator's addSchedulerName prefers spec.batchScheduler over the driver's schedulerName.
    "sparkapplication/spark-pi-volcano.yaml": "schedulerName would not change",
}


def _corpus_files() -> list[str]:
    if not CORPUS_DIR.is_dir():
        return []
    return sorted(
        str(path.relative_to(CORPUS_DIR))
        for path in CORPUS_DIR.rglob("*.y*ml")
        if path.parts[len(CORPUS_DIR.parts)] not in ("recorded", "karta")
    )


@lru_cache(maxsize=None)
def _catalog() -> Catalog:
    return Catalog.load(use_env=False)


def _workloads(file: str) -> tuple[list[Document], ObjectIndex]:
    documents = [document for document in load_objects(str(CORPUS_DIR / file)) if isinstance(document, Document)]
    own = ObjectIndex(document.body for document in documents)
    kept = []
    for document in documents:
        body = document.body
        if _catalog().lookup(body.get("apiVersion", ""), body.get("kind", "")) is not None:
            kept.append(document)
    return kept, own


def _strip_additions(original: Any, altered: Any, path: tuple = ()) -> tuple[Any, list[tuple]]:
    """``altered`` without what it adds (new keys, appended list items); also the paths whose value changed.

    A null that became a mapping (``spec:`` with nothing under it) was filled, not replaced.
    """
    if original is None and isinstance(altered, (dict, list)):
        return None, []
    if isinstance(original, dict) and isinstance(altered, dict):
        result, replaced = {}, []
        for key, value in altered.items():
            if key in original:
                result[key], more = _strip_additions(original[key], value, (*path, key))
                replaced += more
        return result, replaced
    if isinstance(original, list) and isinstance(altered, list) and len(altered) >= len(original):
        pairs = [_strip_additions(a, b, (*path, i)) for i, (a, b) in enumerate(zip(original, altered, strict=False))]
        return [value for value, _ in pairs], [p for _, more in pairs for p in more]
    return (original, [path]) if original != altered else (altered, [])


def _carries_change(template: dict) -> bool:
    spec, metadata = template["spec"], template.get("metadata") or {}
    terms = (
        ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
        or {}
    ).get("nodeSelectorTerms") or []
    return (
        spec.get("schedulerName") == "kai-scheduler"
        and spec.get("priorityClassName") == "wmap-probe"
        and (spec.get("nodeSelector") or {}).get("wmap.dev/pool") == "gpu"
        and {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in (spec.get("tolerations") or [])
        and bool(terms)
        and all(
            NodeRequirement("wmap.dev/rack", ("r1",)).to_pod() in term.get("matchExpressions", []) for term in terms
        )
        and (metadata.get("labels") or {}).get("wmap.dev/probe") == "yes"
        and (metadata.get("annotations") or {}).get("wmap.dev/note") == "altered"
    )


def _expected_components() -> dict[tuple[str, str], int]:
    counts = {}
    for entry in yaml.safe_load((DATA_DIR / "corpus_expected.yaml").read_text()):
        for document in entry.get("documents") or []:
            counts[(entry["file"], document["name"])] = len(document.get("components") or {})
    return counts


@pytest.mark.parametrize("file", _corpus_files())
def test_alter_round_trip(file, corpus_dir):
    documents, own = _workloads(file)
    expected = _expected_components()
    for document in documents:
        body = document.body
        before = json.dumps(body)
        kind = body["kind"]
        reason = REFUSED_FILES.get(file) or REFUSED.get(kind)
        if reason is not None:
            with pytest.raises(AlterError, match=reason):
                alter(body, CHANGES, catalog=_catalog(), related=own)
            continue
        result = alter(body, CHANGES, catalog=_catalog(), related=own)
        assert json.dumps(body) == before, "the input object was modified"

        # Removing exactly what was added gives the original back, in the same order; a value that
        # was replaced instead (put back by the stripping) is named in a warning.
        stripped, replaced = _strip_additions(body, result.object)
        for path in replaced:
            assert any(str(path[-1]) in warning for warning in result.warnings), (path, result.warnings)
        assert json.dumps(stripped) == before

        # Read back through the catalog, every pod-bearing component carries the change.
        definition = _catalog().lookup(body["apiVersion"], kind).definition
        refs = resolve_references(definition, result.object, own, None, [])
        nodes = [
            node
            for root in Expander(EvaluationContext(definition, result.object, refs), catalog=_catalog()).expand()
            for node in root.walk()
            if node.demand is not None
        ]
        assert nodes and all(_carries_change(node.template) for node in nodes), [
            node.path for node in nodes if not _carries_change(node.template)
        ]

        # One altered component per pod-bearing component of the tree (and of the hand-written figures).
        tree = inspect(body, catalog=_catalog(), related=own)
        pod_bearing = [c for root in tree.components for c in root.walk() if c.has_pod_template]
        assert len(result.components) == len(pod_bearing) == len(nodes)
        name = body["metadata"].get("name") or body["metadata"].get("generateName")
        if (file, name) in expected:
            assert len(result.components) == expected[(file, name)]

        # The merge patch does on the server what alter did here.
        assert apply_merge_patch(body, result.patch()) == result.object


@pytest.mark.parametrize("file", _corpus_files())
def test_suspend_resume_round_trip(file, corpus_dir):
    documents, _ = _workloads(file)
    for document in documents:
        body = document.body
        definition = _catalog().lookup(body["apiVersion"], body["kind"]).definition
        if definition.suspend is None:
            with pytest.raises(AlterError, match="cannot be suspended"):
                alter(body, Changes(suspend=True), catalog=_catalog())
            continue
        stopped = alter(body, Changes(suspend=True), catalog=_catalog())
        assert stopped.changed or stopped.object == body
        assert apply_merge_patch(body, stopped.patch()) == stopped.object
        resumed = alter(stopped.object, Changes(suspend=False), catalog=_catalog())
        # Only the suspend fields differ from the original: stripping what was added leaves it.
        stripped, replaced = _strip_additions(body, resumed.object)
        assert all(path[:2] in (("spec", "suspend"), ("spec", "runPolicy")) for path in replaced), replaced
