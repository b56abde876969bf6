"""Kueue Workloads read whole: the topology assignment in both encodings, the status, the nodes assigned.

The decoding cases are Kueue's own (tests/data/kueue_topology_assignments.yaml, from
``pkg/util/tas/tas_assignment_test.go``); the status and assigned-node cases come from
``pkg/workload/workload.go`` ``Status`` and ``pkg/workload/workload_test.go`` ``TestUsedNodes``.
"""

from __future__ import annotations

import copy

import pytest
import yaml

from helpers import DATA_DIR
from workloadmap.admission.parse import Reader, queued_workload, topology_assignment
from workloadmap.errors import InputError
from workloadmap.live.kueue import assigned_nodes

CASES = yaml.safe_load((DATA_DIR / "kueue_topology_assignments.yaml").read_text())
READER = Reader("workloads.yaml", "1")


def _domains(assignment) -> list[dict]:
    return [{"values": list(domain.values), "count": domain.count} for domain in assignment.domains]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_v1beta2_slices_decode_as_kueue_decodes_them(case):
    """``TestInternalFromV1Beta2`` over ``bothWaysTestCases``, and the hostname-prefix runs decoded back."""
    decoded = topology_assignment(READER, case["v1beta2"], ("topologyAssignment",))
    assert decoded is not None
    assert list(decoded.levels) == case["v1beta2"]["levels"]
    assert _domains(decoded) == case["domains"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_v1beta1_domains_read_to_the_same_assignment(case):
    """v1beta1 serves the internal form (``domains[] {values, count}``, workload_conversion.go)."""
    v1beta1 = {"levels": case["v1beta2"]["levels"], "domains": case["domains"]}
    decoded = topology_assignment(READER, v1beta1, ("topologyAssignment",))
    assert decoded is not None and _domains(decoded) == case["domains"]


SLICE = {"levels": ["a", "b"], "slices": [CASES[2]["v1beta2"]["slices"][0]]}


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        # The CEL rules of apis/kueue/v1beta2/workload_types.go, as the API server words them.
        (
            lambda s: s["valuesPerLevel"].pop(),
            "topologyAssignment.slices[0].valuesPerLevel",
            "valuesPerLevel must have the same length as the number of levels",
        ),
        (
            lambda s: s["valuesPerLevel"][0]["individual"]["roots"].pop(),
            "topologyAssignment.slices[0].valuesPerLevel[0].individual.roots",
            "must have roots of length equal to domainCount",
        ),
        (
            lambda s: s.update(podCounts={"individual": [1]}),
            "topologyAssignment.slices[0].podCounts.individual",
            "podCounts.individual must have length equal to domainCount",
        ),
        (
            lambda s: s.update(podCounts={"universal": 1, "individual": [1, 1]}),
            "topologyAssignment.slices[0].podCounts",
            "exactly one of the fields in [universal individual] must be set",
        ),
        (
            lambda s: s["valuesPerLevel"][0].update(universal="a"),
            "topologyAssignment.slices[0].valuesPerLevel[0]",
            "exactly one of the fields in [universal individual] must be set",
        ),
    ],
)
def test_a_slice_kueue_would_refuse_is_a_located_error(change, field, message):
    broken = copy.deepcopy(SLICE)
    change(broken["slices"][0])
    with pytest.raises(InputError) as caught:
        topology_assignment(READER, broken, ("topologyAssignment",))
    assert message in str(caught.value)
    assert caught.value.file == "workloads.yaml" and caught.value.field == field


def _workload(conditions: dict[str, bool], assignments: list[dict]) -> dict:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": "wl", "namespace": "ns"},
        "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 2, "template": {"spec": {}}}]},
        "status": {
            "conditions": [{"type": kind, "status": str(value)} for kind, value in conditions.items()],
            "admission": {"clusterQueue": "cq", "podSetAssignments": assignments},
        },
    }


def _tas(levels: list[str], values: list[dict], count: int) -> dict:
    return {
        "name": "main",
        "topologyAssignment": {
            "levels": levels,
            "slices": [{"domainCount": count, "valuesPerLevel": values, "podCounts": {"universal": 1}}],
        },
    }


HOST = "kubernetes.io/hostname"
ZONE_NODE = _tas(["zone", HOST], [{"universal": "zone-1"}, {"individual": {"roots": ["node-1"]}}], 1)
TWO_NODES = _tas(
    ["zone", "kubernetes.io/hostname"], [{"universal": "zone-1"}, {"individual": {"roots": ["node-1", "node-2"]}}], 2
)


@pytest.mark.parametrize(
    ("conditions", "assignments", "nodes"),
    [
        # pkg/workload/workload_test.go TestUsedNodes, case by case.
        ({"Admitted": False}, [ZONE_NODE], []),  # "tas admission present but lacking admitted condition"
        ({"QuotaReserved": True}, [ZONE_NODE], []),  # "quota reserved but waiting for admission check"
        ({"Admitted": True}, [{"name": "main"}], []),  # "admitted without tas"
        ({"Admitted": True}, [TWO_NODES], ["node-1", "node-2"]),  # "valid tas assignment"
        ({"Admitted": True}, [ZONE_NODE, TWO_NODES], ["node-1", "node-2"]),  # "duplicate node assignments ..."
        ({"Admitted": True}, [ZONE_NODE, {"name": "non-tas-podset"}], ["node-1"]),  # "mixed tas and non-tas ..."
        (
            {"Admitted": True},
            [_tas(["zone", "rack"], [{"universal": "zone-1"}, {"universal": "rack-1"}], 1)],
            [],
        ),  # "non-hostname topology"
    ],
)
def test_assigned_nodes_as_kueue_lists_them(conditions, assignments, nodes):
    workload = queued_workload(READER, _workload(conditions, assignments), "wl")
    assert assigned_nodes(workload) == nodes


@pytest.mark.parametrize(
    ("conditions", "status"),
    [
        # pkg/workload/workload.go Status: Finished, then Admitted, then QuotaReserved, else pending.
        ({}, "pending"),
        ({"QuotaReserved": True}, "quotaReserved"),
        ({"QuotaReserved": True, "Admitted": True}, "admitted"),
        ({"QuotaReserved": True, "Admitted": True, "Finished": True}, "finished"),
    ],
)
def test_workload_status_is_kueues(conditions, status):
    workload = queued_workload(READER, _workload(conditions, [TWO_NODES]), "wl")
    assert workload.status == status
    assert workload.reserved_in == "cq"
    assert [(a.name, a.count, a.topology.pods if a.topology else None) for a in workload.assignments] == [
        ("main", 2, 2)
    ]
