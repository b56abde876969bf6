"""A Volcano Job's ``spec.networkTopology`` read as its gang's topology constraint in ``place``.

Fields (volcano-sh/apis pkg/apis/batch/v1alpha1/job.go ``NetworkTopologySpec``): ``mode`` hard (default)
or soft, ``highestTierAllowed`` or ``highestTierName`` ("cannot be set simultaneously"). Tiers as
Volcano's design counts them (docs/design/Network Topology Aware Scheduling.md): "The smaller the value
of the tier, the higher the bandwidth", ``highestTierAllowed: 1`` → "all pods must be co-located within a
single leaf HyperNode"; the design's example Job is ``minAvailable 4``, ``networkTopology {hard, 2}``.
The cluster's HyperNodes are the ones ``--emit volcano`` writes for it: tier 1 the rack (just above
hostname), tier 2 the block, each ``tierName`` the key's last segment. A name is resolved through the
HyperNodes' ``tierName`` as the scheduler's session does (pkg/scheduler/framework/session.go
``adjustNetworkTopologySpec``). wmap has no Volcano policy: the gang's constraint is judged under the
``kai`` policy, which honours a gang's own topology constraint (Kueue's reads only its pod-template
annotations, so a Volcano Job's constraint is not Kueue's).
"""

from __future__ import annotations

import pytest

from helpers.placement import BLOCK, RACK, rack_cluster
from workloadmap.exporters import volcano_hypernodes
from workloadmap.interpreter import inspect
from workloadmap.placement import place

POD = {"spec": {"containers": [{"name": "w", "image": "x", "resources": {"requests": {"cpu": "1"}}}]}}


def _job(network_topology: dict | None) -> dict:
    spec: dict = {"minAvailable": 4, "tasks": [{"name": "t0", "replicas": 4, "template": POD}]}
    if network_topology is not None:
        spec["networkTopology"] = network_topology
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "j"}, "spec": spec}


@pytest.mark.parametrize(
    ("network_topology", "required", "preferred"),
    [
        ({"mode": "hard", "highestTierAllowed": 1}, RACK, None),
        ({"mode": "hard", "highestTierAllowed": 2}, BLOCK, None),  # the design document's example
        ({"highestTierAllowed": 1}, RACK, None),  # mode defaults to hard (+kubebuilder:default=hard)
        ({"mode": "hard", "highestTierName": "topology-rack"}, RACK, None),
        ({"mode": "soft", "highestTierAllowed": 2}, None, BLOCK),
        ({"mode": "soft"}, None, RACK),
    ],
)
def test_network_topology_is_the_gangs_constraint(network_topology, required, preferred):
    tree = inspect(_job(network_topology))
    (group,) = tree.pod_groups
    assert group.topology_constraint.tiers is True
    report = place(tree, rack_cluster(), policy="kai")
    (placed,) = report.pod_groups
    assert placed.required_level == required and report.fits
    if preferred is not None:
        assert placed.preferred_level == preferred


def test_tier_names_are_those_of_the_emitted_hypernodes():
    names = {obj["spec"]["tier"]: obj["spec"]["tierName"] for obj in volcano_hypernodes(rack_cluster())}
    assert names == {2: "topology-block", 1: "topology-rack"}


@pytest.mark.parametrize("network_topology", [{"highestTierAllowed": 3}, {"highestTierName": "spine"}])
def test_a_tier_the_cluster_lacks_is_never_a_fit(network_topology):
    report = place(inspect(_job(network_topology)), rack_cluster(), policy="kai")
    (placed,) = report.pod_groups
    assert not report.fits and "is not a level of topology" in (placed.reason or "")


def test_no_network_topology_no_constraint():
    (group,) = inspect(_job(None)).pod_groups
    assert not group.topology_constraint


def _partitioned(partition_topology: dict | None, partitions: int = 2, size: int = 4) -> dict:
    """The design document's example Job: minAvailable 4, networkTopology {hard, 2}, task t0 of 8 replicas
    in partitions of 4 with networkTopology {hard, 1} (docs/design/Network Topology Aware Scheduling.md)."""
    job = _job({"mode": "hard", "highestTierAllowed": 2})
    task = job["spec"]["tasks"][0]
    task["replicas"] = partitions * size
    task["partitionPolicy"] = {"totalPartitions": partitions, "partitionSize": size}
    if partition_topology is not None:
        task["partitionPolicy"]["networkTopology"] = partition_topology
    return job


def test_partitions_are_subgroups_of_partition_size_with_their_topology():
    """job_controller_actions_test.go TestGetSubGroupPolicy: a partitioned task's policy has subGroupSize =
    partitionSize; the pods of partition i carry volcano.sh/partition-id i (index / partitionSize), one subjob each."""
    tree = inspect(_partitioned({"mode": "hard", "highestTierAllowed": 1}))
    (group,) = tree.pod_groups
    assert group.min_member == 4
    shapes = [(s.name, s.parent, s.pods, s.min_member) for s in group.sub_groups]
    assert shapes == [("t0", None, 8, 8), ("t0-0", "t0", 4, 4), ("t0-1", "t0", 4, 4)]
    report = place(tree, rack_cluster(), policy="kai")
    assert report.fits
    (placed,) = report.pod_groups
    assert placed.required_level == BLOCK
    assert [(s.name, s.required_level) for s in placed.sub_groups][1:] == [("t0-0", RACK), ("t0-1", RACK)]


def test_soft_partitions_prefer_their_tier():
    tree = inspect(_partitioned({"mode": "soft", "highestTierAllowed": 1}))
    report = place(tree, rack_cluster(), policy="kai")
    partitions = [s for s in report.pod_groups[0].sub_groups if s.name != "t0"]
    assert [(s.required_level, s.preferred_level) for s in partitions] == [(None, RACK), (None, RACK)]


def test_partitions_without_topology_have_no_constraint():
    (group,) = inspect(_partitioned(None)).pod_groups
    assert [bool(s.topology_constraint) for s in group.sub_groups] == [False, False, False]
