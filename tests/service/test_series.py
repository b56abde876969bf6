"""The series' names, labels and values follow kube-state-metrics' conventions and wmap's own answers.

Units and resource label values are kube-state-metrics' (``internal/store/utils.go``
``toResourceUnitValue`` and ``SanitizeLabelName``): cpu in ``core``; memory, storage,
ephemeral-storage, ``hugepages-*`` and ``attachable-volumes-*`` in ``byte``; pods and extended
resources (``nvidia.com/gpu``) as ``integer``; any other name exported by none; every character
outside ``[a-zA-Z0-9_]`` becomes ``_``. For every workload of the repository's fixtures (every kind
of the catalog), the requests are inspect's totals, the top-level components' requests add up to
them, and the phase is a state set with exactly one series at 1.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from helpers import FIXTURES_DIR
from workloadmap.catalog import Catalog
from workloadmap.documents import load_objects
from workloadmap.interpreter import ObjectIndex
from workloadmap.live import describe
from workloadmap.runtime_definitions import Phase
from workloadmap.service import WORKLOAD_SERIES, resource_unit, sanitized, workload_samples

CATALOG = Catalog.load(use_env=False)


@pytest.mark.parametrize(
    ("resource", "unit"),
    [
        ("cpu", "core"), ("memory", "byte"), ("storage", "byte"), ("ephemeral-storage", "byte"),
        ("hugepages-2Mi", "byte"), ("attachable-volumes-aws-ebs", "byte"), ("pods", "integer"),
        ("nvidia.com/gpu", "integer"), ("amd.com/gpu", "integer"), ("nvidia.com/mig-1g.5gb", "integer"),
        ("kubernetes.io/batteries", None), ("requests.nvidia.com/gpu", None), ("widgets", None),
    ],
)  # fmt: skip
def test_units_are_kube_state_metrics(resource, unit):
    assert resource_unit(resource) == unit


def test_resource_names_are_sanitized_as_label_names():
    assert sanitized("nvidia.com/gpu") == "nvidia_com_gpu"
    assert sanitized("nvidia.com/mig-1g.5gb") == "nvidia_com_mig_1g_5gb"
    assert sanitized("cpu") == "cpu"


def test_every_series_is_named_and_labelled_as_the_issue_lists():
    labels = {series.name: series.labels for series in WORKLOAD_SERIES}
    workload = ("namespace", "kind", "group", "name")
    assert labels["wmap_workload_info"] == (*workload, "definition", "phase")
    assert labels["wmap_workload_phase"] == (*workload, "phase")
    assert labels["wmap_workload_pods"] == (*workload, "state")
    assert labels["wmap_workload_resource_requests"] == (*workload, "resource", "unit")
    assert labels["wmap_component_pods"] == (*workload, "component", "state")
    assert labels["wmap_component_resource_requests"] == (*workload, "component", "resource", "unit")
    assert labels["wmap_gang_min_member"] == (*workload, "gang")
    assert labels["wmap_gang_pods"] == (*workload, "gang", "state")
    assert labels["wmap_gang_complete"] == (*workload, "gang")
    assert labels["wmap_gang_placement_satisfied"] == (*workload, "gang", "sub_group", "level")
    assert labels["wmap_pod_workload_info"] == ("namespace", "pod", "kind", "group", "name", "component", "gang")


def _workloads():
    for path in sorted(FIXTURES_DIR.rglob("*.yaml")):
        if {"bad", "topology", "live"} & set(path.relative_to(FIXTURES_DIR).parts):
            continue
        documents = [doc for doc in load_objects(str(path)) if hasattr(doc, "body")]
        for document in documents:
            body = document.body
            if isinstance(body, dict) and CATALOG.lookup(str(body.get("apiVersion")), str(body.get("kind"))):
                related = ObjectIndex(doc.body for doc in documents)
                yield pytest.param(body, related, id=f"{path.relative_to(FIXTURES_DIR)}-{body['kind']}")


@pytest.mark.parametrize(("manifest", "related"), list(_workloads()))
def test_the_samples_are_inspects_totals_for_every_kind(manifest, related):
    report = describe(manifest, None, catalog=CATALOG, related=related)
    tree = report.tree
    identity = ("ns", tree.workload.kind, tree.workload.api_version.rpartition("/")[0], tree.workload.name)
    samples = workload_samples(identity, tree, report)
    by_series: dict[str, dict[tuple, float]] = {}
    for series, labels, value in samples:
        assert len(labels) == len(series.labels), series.name
        assert labels not in by_series.setdefault(series.name, {}), f"a repeated series: {series.name} {labels}"
        by_series[series.name][labels] = value
    phases = by_series["wmap_workload_phase"]
    assert sorted(labels[-1] for labels in phases) == sorted(phase.value for phase in Phase)
    assert sum(phases.values()) == 1 and phases[(*identity, tree.phase.value)] == 1
    assert by_series["wmap_workload_pods"] == {(*identity, "desired"): tree.totals.pods}, "no pods read: desired only"
    requests = {labels[-2]: value for labels, value in by_series.get("wmap_workload_resource_requests", {}).items()}
    expected = {sanitized(name): float(amount) for name, amount in tree.totals.resources.items() if resource_unit(name)}
    assert requests == expected
    top = {component.name for component in tree.components}
    summed: dict[str, Fraction] = {}
    for labels, value in by_series.get("wmap_component_resource_requests", {}).items():
        if labels[4] in top:
            summed[labels[5]] = summed.get(labels[5], Fraction(0)) + Fraction(value)
    # The workload's totals are what runs at once (each figure at its peak, for pods run in
    # order); its components together hold every pod of the run: the tree's over_run.
    run = tree.over_run or tree.totals
    over_run = {sanitized(name): float(amount) for name, amount in run.resources.items() if resource_unit(name)}
    assert {name: float(total) for name, total in summed.items() if total or name in over_run} == pytest.approx(
        over_run
    )
    gangs = {labels[4]: value for labels, value in by_series.get("wmap_gang_min_member", {}).items()}
    assert gangs == {group.name: group.min_member for group in tree.pod_groups}
