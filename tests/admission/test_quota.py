"""Quota through the cohort tree and Kueue's amounts, against Kueue's own unit tests.

``TestAvailable`` (pkg/cache/scheduler/resource_test.go): Available and PotentialAvailable of
each ClusterQueue per flavor-resource, in millicores, with the test's usage added; every case
there is here. The ClusterQueues and Cohorts are read from the objects as kubectl prints them.
"""

from __future__ import annotations

import pytest

from helpers.admission import write_list
from workloadmap.admission import load_queues
from workloadmap.admission.amounts import format_amount, parse_amount
from workloadmap.admission.quota import QuotaTree


def _rg(nominal: str, borrowing: str | None = None, lending: str | None = None) -> list:
    resource = {"name": "cpu", "nominalQuota": nominal}
    if borrowing is not None:
        resource["borrowingLimit"] = borrowing
    if lending is not None:
        resource["lendingLimit"] = lending
    return [{"coveredResources": ["cpu"], "flavors": [{"name": "red", "resources": [resource]}]}]


def _cq(name, cohort, *quota):
    spec = {"namespaceSelector": {}, "resourceGroups": _rg(*quota)}
    if cohort:
        spec["cohortName"] = cohort
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def _cohort(name, parent=None, *quota):
    spec = {"resourceGroups": _rg(*quota)} if quota else {}
    if parent:
        spec["parentName"] = parent
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


CASES = {
    "base cqs": (
        [_cq("cq1", None, "0"), {**_cq("cq2", None, "5"), "spec": {"namespaceSelector": {}, "resourceGroups": [
            {"coveredResources": ["cpu"], "flavors": [
                {"name": "red", "resources": [{"name": "cpu", "nominalQuota": "5"}]},
                {"name": "blue", "resources": [{"name": "cpu", "nominalQuota": "10"}]}]}]}}],
        {"cq1": {"red": 1000}, "cq2": {"red": 2500, "blue": 1000}},
        {"cq1": {"red": 0}, "cq2": {"red": 2500, "blue": 9000}},
        {"cq1": {"red": 0}, "cq2": {"red": 5000, "blue": 10000}},
    ),
    "cqs with cohort": (
        [_cq("cq1", "cohort", "10"), _cq("cq2", "cohort", "10", None, "9"), _cohort("cohort", None, "10")],
        {"cq1": {"red": 1000}, "cq2": {"red": 500}},
        {"cq1": {"red": 28000}, "cq2": {"red": 28500}},
        {"cq1": {"red": 29000}, "cq2": {"red": 30000}},
    ),
    "cq borrows from cohort": (
        [_cq("cq1", "cohort", "10"), _cohort("cohort", None, "10")],
        {"cq1": {"red": 11000}},
        {"cq1": {"red": 9000}},
        {"cq1": {"red": 20000}},
    ),
    "cq oversubscription spills into cohort": (
        [_cq("cq1", "cohort", "10"), _cq("cq2", "cohort", "10", "0", "0"), _cohort("cohort", None, "10")],
        {"cq1": {"red": 31000}},
        {"cq1": {"red": 0}, "cq2": {"red": 0}},
        {"cq1": {"red": 20000}, "cq2": {"red": 10000}},
    ),
    "lending and borrowing limits respected": (
        [_cq("cq1", "cohort", "10"), _cq("cq2", "cohort", "10", "2"), _cq("cq3", "cohort", "10", None, "5"),
         _cohort("cohort", None, "10")],
        {"cq1": {"red": 20000}, "cq2": {"red": 10000}, "cq3": {"red": 6000}},
        {"cq1": {"red": 4000}, "cq2": {"red": 2000}, "cq3": {"red": 4000}},
        {"cq1": {"red": 35000}, "cq2": {"red": 12000}, "cq3": {"red": 40000}},
    ),
    "hierarchical cohort": (
        [_cq("cq1", "left", "10"), _cq("cq2", "right", "10", None, "0"), _cohort("root"),
         _cohort("left", "root", "10"), _cohort("right", "root", "10")],
        {"cq1": {"red": 10000}, "cq2": {"red": 5000}},
        {"cq1": {"red": 20000}, "cq2": {"red": 25000}},
        {"cq1": {"red": 30000}, "cq2": {"red": 40000}},
    ),
    "hierarchical cohort respects borrowing limit": (
        [_cq("left-cq1", "left", "10"), _cq("left-cq2", "left", "10", "5"), _cq("right-cq", "right", "10"),
         _cohort("root"), _cohort("left", "root", "10", "5"), _cohort("right", "root", "10")],
        {},
        {"left-cq1": {"red": 35000}, "left-cq2": {"red": 15000}, "right-cq": {"red": 50000}},
        {"left-cq1": {"red": 35000}, "left-cq2": {"red": 15000}, "right-cq": {"red": 50000}},
    ),
    "hierarchical cohort respects lending limit": (
        [_cq("root-cq", "root", "0"), _cq("left-cq1", "left", "10", None, "5"), _cq("left-cq2", "left", "10"),
         _cq("right-cq", "right", "0"), _cohort("root"), _cohort("left", "root", "0", None, "5"),
         _cohort("right", "root", "0")],
        {},
        {"left-cq1": {"red": 20000}, "left-cq2": {"red": 15000}, "right-cq": {"red": 5000}, "root-cq": {"red": 5000}},
        {"left-cq1": {"red": 20000}, "left-cq2": {"red": 15000}, "right-cq": {"red": 5000}, "root-cq": {"red": 5000}},
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_available_and_potential(name, tmp_path):
    objects, usage, available, potential = CASES[name]
    state = load_queues([str(write_list(tmp_path / "queues.yaml", objects))])
    tree = QuotaTree(state.cluster_queues, state.cohorts)
    for queue, wanted in potential.items():
        assert {f: tree.queues[queue].potential((f, "cpu")) for f in wanted} == wanted, queue
    for queue, amounts in usage.items():
        tree.add(queue, {(f, "cpu"): amount for f, amount in amounts.items()})
    for queue, wanted in available.items():
        assert {f: max(0, tree.queues[queue].available((f, "cpu"))) for f in wanted} == wanted, queue
    for queue, amounts in usage.items():  # as the test does: removing the usage again leaves the potential
        tree.remove(queue, {(f, "cpu"): amount for f, amount in amounts.items()})
    for queue, wanted in potential.items():
        assert {f: tree.queues[queue].available((f, "cpu")) for f in wanted} == wanted, queue


def test_cohort_cycle_makes_its_queues_inactive(tmp_path):
    # snapshot.go: "If a cycle is created, we disable all members of the Cohort, including ClusterQueues".
    objects = [_cq("cq", "a", "1"), _cohort("a", "b"), _cohort("b", "a")]
    state = load_queues([str(write_list(tmp_path / "queues.yaml", objects))])
    assert QuotaTree(state.cluster_queues, state.cohorts).cyclic == {"cq"}


@pytest.mark.parametrize(
    ("resource", "value", "amount", "printed"),
    [
        # pkg/resources/amount.go: cpu in millicores, rounded up; resource_formatter.go prints Quantity.String().
        ("cpu", "2", 2000, "2"),
        ("cpu", "500m", 500, "500m"),
        ("cpu", "0.0001", 1, "1m"),
        ("cpu", "3k", 3_000_000, "3k"),
        ("memory", "10Mi", 10 * 1024**2, "10Mi"),
        ("memory", "1G", 10**9, "1G"),  # no power of 1024 divides it: re-read as decimal, "1G"
        ("memory", "1536", 1536, "1536"),
        ("memory", "5Gi", 5 * 1024**3, "5Gi"),
        ("nvidia.com/gpu", "8", 8, "8"),
        ("pods", "1000", 1000, "1k"),
        ("hugepages-2Mi", "4Mi", 4 * 1024**2, "4Mi"),
    ],
)
def test_kueue_amounts(resource, value, amount, printed):
    assert parse_amount(resource, value) == amount
    assert format_amount(resource, amount) == printed
