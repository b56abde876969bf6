"""``--policy kube-scheduler``: the native PodGroup placement, against kube-scheduler's own tests.

Each case rebuilds a scenario of kubernetes ``test/integration/scheduler/podgroup/topology_aware_scheduling/
tas_test.go`` (``TestTopologyAwareSchedulingWithGangPolicy`` / ``…WithBasicPolicy``): nodes of ``cpu: 2`` labelled
``rack`` and ``zone`` (no memory: the MostAllocated ratio is cpu alone), pods of ``cpu: 1`` (large: 2), a PodGroup
with topology key ``rack``; the expected racks and nodes are the test's ``VerifyAssignments``. The scoring pieces
cite the plugins' unit tests: ``PodGroupPodsCount`` (``podgrouppodscount/podgroup_pods_count_test.go``
``TestNormalizePlacementScore``), ``GangScheduling`` (``gangscheduling_test.go`` ``TestPlacementFeasible``) and
``TopologyPlacement`` (``topologyaware/topology_placement_test.go`` ``TestGeneratePlacements``).
"""

from __future__ import annotations

import pytest

from helpers.placement import HOST, node, pod_set, tree
from workloadmap.placement import POLICIES, Verdict, place
from workloadmap.topology import Cluster

RACK, ZONE = "rack", "zone"
LEVELS = [ZONE, RACK, HOST]


def tas_node(name, rack, zone, used_cpu=0):
    """``makeNode``: ``cpu: 2`` and the rack and zone labels; ``makeAssignedPod`` as the node's used cpu."""
    return node(name, {RACK: rack, ZONE: zone}, gpus=0, cpu=2, memory="0", used={"cpu": used_cpu} if used_cpu else None)


def cluster(*nodes):
    return Cluster(name="tas", nodes=list(nodes), levels=LEVELS)


def gang(name, pods, min_count, key=RACK, cpu=1, component=None):
    """``makeGangPodGroup(name, key, minCount)`` with ``pods`` pods of ``cpu`` each."""
    group = {"name": name, "minMember": min_count, "pods": pods, "podSets": [pod_set(component or name, pods, 0, cpu)]}
    if key:
        group["topologyConstraint"] = {"requiredLevel": key}
    return group


def scheduled(report, name):
    (group,) = [group for group in report.pod_groups if group.name == name]
    return group


def nodes_of(group):
    return {entry.name for entry in group.assignment.nodes}


def test_the_policy_is_a_row_of_the_table():
    assert "kube-scheduler" in POLICIES and POLICIES["kube-scheduler"].summary


def test_gang_schedules_on_the_only_feasible_rack():
    # "gang schedules on a single rack, when only one feasible rack is available": existing1 takes 2 cpu on node4.
    nodes = cluster(
        tas_node("node1-rack1", "rack-1", "zone-1"),
        tas_node("node2-rack1", "rack-1", "zone-1"),
        tas_node("node3-rack1", "rack-1", "zone-1"),
        tas_node("node4-rack2", "rack-2", "zone-1", used_cpu=2),
        tas_node("node5-rack2", "rack-2", "zone-1"),
        tas_node("node6-zone2", "rack-3", "zone-2"),
    )
    group = scheduled(place(tree([gang("pg1", 3, 3)]), nodes, policy="kube-scheduler"), "pg1")
    assert group.verdict is Verdict.FITS and group.assignment.domain == "rack-1"
    assert nodes_of(group) == {"node1-rack1", "node2-rack1", "node3-rack1"}


def test_gang_remains_pending_when_no_rack_holds_it():
    # "gang remains pending when no feasible resources are found": three pods of 2 cpu, at most two nodes a rack.
    nodes = cluster(
        tas_node("node1-rack1", "rack-1", "zone-1"),
        tas_node("node2-rack1", "rack-1", "zone-1"),
        tas_node("node3-rack2", "rack-2", "zone-1"),
        tas_node("node4-zone2", "rack-3", "zone-2"),
    )
    report = place(tree([gang("pg1", 3, 3, cpu=2)]), nodes, policy="kube-scheduler")
    group = scheduled(report, "pg1")
    assert group.verdict is Verdict.DOES_NOT_FIT and group.assignment is None
    assert "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining" in group.reason


def test_gang_remains_pending_while_existing_pods_hold_the_rack():
    # "gang remains pending when resources are consumed by existing pods", then "Delete a pod in rack1".
    full = [("node1-rack1", 2), ("node2-rack1", 0), ("node3-rack1", 2)]
    busy = cluster(*(tas_node(name, "rack-1", "zone-1", used) for name, used in full))
    assert (
        scheduled(place(tree([gang("pg1", 3, 3)]), busy, policy="kube-scheduler"), "pg1").verdict
        is Verdict.DOES_NOT_FIT
    )
    freed = cluster(*(tas_node(name, "rack-1", "zone-1", used if name != "node1-rack1" else 0) for name, used in full))
    assert scheduled(place(tree([gang("pg1", 3, 3)]), freed, policy="kube-scheduler"), "pg1").verdict is Verdict.FITS


def test_gang_takes_the_most_allocated_rack():
    # "... choosing placement with the highest score in default placement scoring algorithm": PodGroupPodsCount
    # scores rack-1 and rack-2 alike (3 pods each), MostAllocated 3/4 = 75 against 3/6 = 50; rack-3 cannot hold 3.
    nodes = cluster(
        tas_node("node1-rack1", "rack-1", "zone-1"),
        tas_node("node2-rack1", "rack-1", "zone-1"),
        tas_node("node3-rack2", "rack-2", "zone-2"),
        tas_node("node4-rack2", "rack-2", "zone-2"),
        tas_node("node5-rack2", "rack-2", "zone-2"),
        tas_node("node6-rack3", "rack-3", "zone-2"),
    )
    group = scheduled(place(tree([gang("pg1", 3, 3)]), nodes, policy="kube-scheduler"), "pg1")
    assert group.assignment.domain == "rack-1" and nodes_of(group) == {"node1-rack1", "node2-rack1"}


def test_gang_counts_pods_already_running_in_the_allocation():
    # "... highest allocation percentage ... with pre-existing pods in cluster": rack1 (0+3)/4 = 0.75,
    # rack2 (2+3)/6 = 0.83, rack3 (1+3)/6 = 0.67, rack4 infeasible -> rack-2.
    nodes = cluster(
        tas_node("node1-rack1", "rack-1", "zone-1"),
        tas_node("node2-rack1", "rack-1", "zone-1"),
        tas_node("node3-rack2", "rack-2", "zone-2", used_cpu=2),
        tas_node("node4-rack2", "rack-2", "zone-2"),
        tas_node("node5-rack2", "rack-2", "zone-2"),
        tas_node("node6-rack3", "rack-3", "zone-2"),
        tas_node("node7-rack3", "rack-3", "zone-2"),
        tas_node("node8-rack3", "rack-3", "zone-2", used_cpu=1),
        tas_node("node9-rack4", "rack-4", "zone-2"),
    )
    group = scheduled(place(tree([gang("pg1", 3, 3)]), nodes, policy="kube-scheduler"), "pg1")
    assert group.assignment.domain == "rack-2"
    assert nodes_of(group) == {"node4-rack2", "node5-rack2"}  # node3 is full


def two_racks():
    return cluster(
        tas_node("node1-rack1", "rack-1", "zone-1"),
        tas_node("node2-rack1", "rack-1", "zone-1"),
        tas_node("node3-rack1", "rack-1", "zone-1"),
        tas_node("node4-rack2", "rack-2", "zone-1"),
        tas_node("node5-rack2", "rack-2", "zone-1"),
    )


def test_two_gangs_in_turn_each_on_its_own_rack():
    # "two gangs schedule consecutively, each on a separate rack": pg1's large pods fit only rack-1, pg2 then rack-2.
    workload = tree([gang("pg1", 3, 3, cpu=2), gang("pg2", 2, 2)])
    report = place(workload, two_racks(), policy="kube-scheduler")
    assert nodes_of(scheduled(report, "pg1")) == {"node1-rack1", "node2-rack1", "node3-rack1"}
    assert nodes_of(scheduled(report, "pg2")) == {"node4-rack2", "node5-rack2"}


def test_two_gangs_in_turn_on_the_same_rack():
    # "two gangs schedule consecutively, both on the same rack": rack-2 has one node, pg2 needs 3 cpu after pg1.
    nodes = cluster(*(tas_node(f"node{i}-rack1", "rack-1", "zone-1") for i in (1, 2, 3)))
    nodes.nodes.append(tas_node("node4-rack2", "rack-2", "zone-1"))
    first = gang("pg1", 2, 2)
    first["podSets"] = [pod_set("large", 1, 0, 2), pod_set("small", 1, 0, 1)]
    report = place(tree([first, gang("pg2", 3, 3)]), nodes, policy="kube-scheduler")
    assert scheduled(report, "pg1").assignment.domain == "rack-1"
    assert scheduled(report, "pg2").assignment.domain == "rack-1"


def test_two_gangs_with_different_topology_keys():
    # "two gangs schedule consecutively, different topology keys": pg1 by rack (3 x 2 cpu) -> rack-3; pg2 by zone
    # (3 x 2 cpu) -> zone-1, the only zone with three free nodes left.
    nodes = cluster(
        tas_node("node1-rack1", "rack-1", "zone-1"),
        tas_node("node2-rack1", "rack-1", "zone-1"),
        tas_node("node3-rack2", "rack-2", "zone-1"),
        tas_node("node4-zone2", "rack-3", "zone-2"),
        tas_node("node5-zone2", "rack-3", "zone-2"),
        tas_node("node6-zone2", "rack-3", "zone-2"),
    )
    workload = tree([gang("pg1", 3, 3, cpu=2), gang("pg2", 3, 3, key=ZONE, cpu=2)])
    report = place(workload, nodes, policy="kube-scheduler")
    assert scheduled(report, "pg1").assignment.domain == "rack-3"
    assert scheduled(report, "pg2").assignment.domain == "zone-1"


def test_two_gangs_when_only_one_fits():
    # "two gangs schedule consecutively, only one fits in the cluster": rack-1 of 2 nodes holds pg1 (3 pods), not pg2.
    nodes = cluster(tas_node("node1-rack1", "rack-1", "zone-1"), tas_node("node2-rack1", "rack-1", "zone-1"))
    report = place(tree([gang("pg1", 3, 3), gang("pg2", 2, 2)]), nodes, policy="kube-scheduler")
    assert scheduled(report, "pg1").verdict is Verdict.FITS
    refused = scheduled(report, "pg2")
    assert refused.verdict is Verdict.DOES_NOT_FIT and "fits the cluster as given" in refused.reason


def test_gang_with_fewer_required_pods_keeps_them_on_one_rack():
    # "gang with minCount < pod count schedules on a single rack": minCount 2, three pods, two racks of two nodes.
    nodes = cluster(*(tas_node(f"n{r}{h}", f"rack-{r}", "zone-1") for r in (1, 2) for h in (1, 2)))
    group = scheduled(place(tree([gang("pg1", 3, 2)]), nodes, policy="kube-scheduler"), "pg1")
    assert group.assignment.pods == 3 and len({name[:2] for name in nodes_of(group)}) == 1


def test_gang_above_min_count_schedules_what_fits_and_says_the_rest_wait():
    # "... choosing smaller rack" (p4 joins rack-2, p5 stays unschedulable): five pods, minCount 3, racks of 3, 2, 1
    # nodes; rack-1 holds all five pods (6 cpu), rack-2 four. wmap places the pods it is given at once, so the
    # group takes rack-1: PodGroupPodsCount 100 against 4 pods -> 80, MostAllocated 5/6 = 83 against 4/4 = 100,
    # 183 > 180. With the test's first three pods alone, rack-2 wins; the note names pods left pending.
    nodes = cluster(
        *(tas_node(f"node{i}-rack1", "rack-1", "zone-1") for i in (1, 2, 3)),
        *(tas_node(f"node{i}-rack2", "rack-2", "zone-1") for i in (4, 5)),
        tas_node("node6-rack3", "rack-3", "zone-2"),
    )
    report = place(tree([gang("pg1", 5, 3)]), nodes, policy="kube-scheduler")
    assert scheduled(report, "pg1").assignment.domain == "rack-1"
    three = place(tree([gang("pg1", 3, 3)]), nodes, policy="kube-scheduler")
    assert scheduled(three, "pg1").assignment.domain == "rack-2"  # 3/4 = 75 > 3/6 = 50
    five_on_two = place(tree([gang("pg1", 5, 3)]), cluster(*nodes.nodes[3:5]), policy="kube-scheduler")
    assert scheduled(five_on_two, "pg1").assignment.pods == 4
    assert any("1 of its 5 pods find no node" in note for note in five_on_two.notes)


def test_basic_group_keeps_its_pods_on_one_rack():
    # TestTopologyAwareSchedulingWithBasicPolicy "basic podgroup cannot fit on a single rack, no pods get scheduled
    # on a different rack": basic (minCount 1), three pods, two racks of one node: two pods, one rack.
    nodes = cluster(tas_node("node1-rack1", "rack-1", "zone-1"), tas_node("node2-rack2", "rack-2", "zone-1"))
    basic = gang("pg1", 3, 1)
    report = place(tree([basic]), nodes, policy="kube-scheduler")
    group = scheduled(report, "pg1")
    assert group.assignment.pods == 2 and len(nodes_of(group)) == 1


def test_basic_group_scores_by_allocation():
    # "basic ... highest allocation percentage": rack-1 of 2 nodes and rack-2 of 3, three pods -> rack-1.
    nodes = cluster(
        tas_node("node1-rack1", "rack-1", "zone-1"),
        tas_node("node2-rack1", "rack-1", "zone-1"),
        *(tas_node(f"node{i}-rack2", "rack-2", "zone-2") for i in (3, 4, 5)),
    )
    group = scheduled(place(tree([gang("pg1", 3, 1)]), nodes, policy="kube-scheduler"), "pg1")
    assert group.assignment.domain == "rack-1"


def test_basic_group_schedules_nothing_when_no_pod_fits():
    # "basic podgroup does not schedule at all when no pods fit": two pods of 3 cpu on nodes of 2.
    nodes = cluster(tas_node("node1-rack1", "rack-1", "zone-1"), tas_node("node2-rack2", "rack-2", "zone-1"))
    group = scheduled(place(tree([gang("pg1", 2, 1, cpu=3)]), nodes, policy="kube-scheduler"), "pg1")
    assert group.verdict is Verdict.DOES_NOT_FIT
    # The report words the reason once (placement's reasons); the rule's own words are the scheduler's.
    assert "minCount (1) cannot be satisfied: 0 scheduled" in (group.scheduler_reason or group.reason)


def test_without_a_constraint_the_whole_cluster_is_one_placement():
    # TestGeneratePlacements "without constraint returns placement matching all nodes"; TestPlacementFeasible
    # "First pod fails, minCount not satisfiable" reads as the reason when the pods do not fit at all.
    nodes = cluster(*(tas_node(f"n{i}", f"rack-{i}", "zone-1") for i in range(3)))
    group = scheduled(place(tree([gang("pg1", 3, 3, key=None)]), nodes, policy="kube-scheduler"), "pg1")
    assert group.verdict is Verdict.FITS and group.assignment.domain is None and group.assignment.pods == 3
    refused = scheduled(place(tree([gang("pg1", 7, 7, key=None)]), nodes, policy="kube-scheduler"), "pg1")
    assert refused.reason == "minCount (7) cannot be satisfied: 6 scheduled, 0 remaining"


def test_a_label_value_is_one_placement_across_parents():
    # TopologyPlacement groups nodes by the key's value alone ("one placement per distinct label value"): rack r0
    # under zone a and under zone b is one placement, wider than the tree's rack domain.
    nodes = cluster(tas_node("a0", "r0", "a"), tas_node("b0", "r0", "b"), tas_node("b1", "r1", "b"))
    group = scheduled(place(tree([gang("pg1", 4, 4)]), nodes, policy="kube-scheduler"), "pg1")
    assert group.assignment.domain == "r0" and nodes_of(group) == {"a0", "b0"}


def test_tie_is_noted():
    # findBestPodGroupPlacement breaks equal TotalScores with a random number: wmap takes the first and says so.
    nodes = cluster(*(tas_node(f"n{r}", f"rack-{r}", "zone-1") for r in range(2)))
    report = place(tree([gang("pg1", 2, 2)]), nodes, policy="kube-scheduler")
    assert scheduled(report, "pg1").assignment.domain == "rack-0"
    assert any("at random" in note for note in report.notes)


def test_pods_without_a_gang_land_one_by_one():
    # No PodGroup: the component's pods are a basic group over every node (least allocated node first).
    workload = tree([], components=[_component("web", 3)])
    (group,) = place(
        workload, cluster(*(tas_node(f"n{i}", "r", "z") for i in range(3))), policy="kube-scheduler"
    ).pod_groups
    assert group.verdict is Verdict.FITS and sorted(entry.pods for entry in group.assignment.nodes) == [1, 1, 1]


@pytest.mark.parametrize("policy", ["kueue", "kai", "kube-scheduler"])
def test_the_three_policies_answer_in_the_same_shape(policy):
    # The JSON ``assignment`` of every policy: domain, level and pods per node, so they compare side by side.
    report = place(tree([gang("pg1", 3, 3)]), two_racks(), policy=policy).to_dict()
    assert report["policy"] == policy
    (group,) = report["podGroups"]
    assert set(group["assignment"]) == {"domain", "level", "nodes"} and group["assignment"]["level"] == RACK
    assert sum(entry["pods"] for entry in group["assignment"]["nodes"]) == 3


def _component(name, pods):
    return {
        "name": name,
        "role": name,
        "replicas": pods,
        "pods": pods,
        "minPods": pods,
        "hasPodTemplate": True,
        "podResources": {"cpu": "1"},
    }
