"""Describe works for every kind of the catalog: pods labelled as each definition says are attributed.

For every workload of the repository's fixtures, two pods per pod-bearing component (instance)
are created below an intermediate owner of the kind the operator creates (a Job, a StatefulSet,
a PodClique ...; directly below the workload for pods), labelled with the values the component's
selector requires. Describe must put each pod in its own component, leave none unattributed and
count them. The operator-faithful objects of the main kinds are tested in test_attribution.py;
this is the breadth check over the 35 definitions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import FIXTURES_DIR
from helpers.operators import LiveCluster, fill
from workloadmap.catalog import Catalog
from workloadmap.documents import load_objects
from workloadmap.interpreter import EvaluationContext, Expander, ObjectIndex, pod_claims, resolve_references
from workloadmap.live import describe, from_dumps

CATALOG = Catalog.load(use_env=False)


def _workloads() -> list:
    cases = []
    for path in sorted(FIXTURES_DIR.rglob("*.yaml")):
        if "bad" in path.parts or "topology" in path.parts or "live" in path.parts:
            continue
        for document in load_objects(str(path)):
            body = getattr(document, "body", None)
            if isinstance(body, dict) and CATALOG.lookup(str(body.get("apiVersion")), str(body.get("kind"))):
                cases.append(pytest.param(path, body, id=f"{path.relative_to(FIXTURES_DIR)}-{body['kind']}"))
    return cases


def _labels(claim) -> dict[str, str]:
    labels = claim.selector.example_labels("1")
    return {key: value for key, value in labels.items()}


@pytest.mark.parametrize(("path", "manifest"), _workloads())
def test_pods_labelled_as_the_definition_says_are_attributed(path: Path, manifest: dict):
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(1)
    workload = cluster.workload({**manifest, "metadata": {**manifest.get("metadata", {}), "namespace": "ml"}})
    related = ObjectIndex(doc.body for doc in load_objects(str(path)) if hasattr(doc, "body"))
    definition = CATALOG.lookup(workload["apiVersion"], workload["kind"]).definition
    refs = resolve_references(definition, workload, related, "ml", [])
    expanded = Expander(EvaluationContext(definition, workload, refs), catalog=CATALOG).expand()
    claims = pod_claims(expanded, workload["metadata"]["name"], "ml")
    expected = {}
    if workload["kind"] == "Pod":
        cluster.objects.remove(workload)
        pod = cluster.pod(workload["metadata"]["name"], None, {}, workload, fill(nodes))
        pod["metadata"]["uid"] = workload["metadata"]["uid"]
        expected[pod["metadata"]["name"]] = claims[0].node.path
    else:
        for index, claim in enumerate(claims):
            if claim.node.pods() == 0:
                continue
            above = workload
            for node in claim.lineage[:-1]:  # AppWrapper: the wrapped object, created with its own name
                if node.definition.resource:
                    above = cluster.owned("example.com/v1", node.kind, node.instance, above)
            kind = claim.node.kind if claim.node.kind not in (None, "Pod") else None
            owner = cluster.owned("example.com/v1", kind, f"owner-{index}", above) if kind else above
            for copy in range(2):
                name = f"pod-{index}-{copy}"
                cluster.pod(name, owner, _labels(claim), None, fill(nodes))
                expected[name] = None if _ambiguous(claim, claims) else claim.node.path
    report = describe(workload, from_dumps(cluster.objects, cluster.nodes), catalog=CATALOG, related=related)
    found = {}

    def walk(components, prefix):
        for component in components:
            path_here = f"{prefix}/{component.name}" if prefix else component.name
            for pod in component.pods:
                found[pod.name] = path_here
            walk(component.components, path_here)

    walk(report.components, "")
    assert found == {name: path for name, path in expected.items() if path is not None}
    # Pods whose labels cannot say which instance they are (Argo templates) stay unattributed.
    assert sorted(pod.name for pod in report.unattributed_pods) == sorted(n for n, p in expected.items() if p is None)
    alike = sum(path is None for path in expected.values())
    assert any(f"{alike} pod(s) of component" in warning for warning in report.warnings) == bool(alike)


def _ambiguous(claim, claims) -> bool:
    """Whether other instances expecting pods share the claim's very selector: no label tells them apart."""
    return any(
        other is not claim
        and other.selector == claim.selector
        and _wrapper(other) == _wrapper(claim)
        and other.node.pods()
        for other in claims
    )


def _wrapper(claim) -> list:
    """The embedded objects (an AppWrapper's, a NIMPipeline's) above the claim: pods say them by their owners."""
    return [(node.kind, node.instance) for node in claim.lineage[:-1] if node.definition.resource]
