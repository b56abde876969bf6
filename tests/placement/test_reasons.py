"""Placement reasons written for people, decided once where the placement is settled (issue 33).

Kueue's own messages are the input: ``notFitMessage`` and the exclusion counts of
``TASFailureReason`` in Kueue's pkg/cache/scheduler/tas_flavor_snapshot.go, as its tests spell them
(tas_flavor_snapshot_test.go, "block required; single Pod fits in a block; BestFit" and the cases
near it: ``topology "default" doesn't allow to fit any of 1 pod(s). Total nodes: 4; excluded:
resource "cpu": 4``). The report keeps that text as ``scheduler_reason`` and gives the words as
``reason``.
"""

from __future__ import annotations

import dataclasses

import pytest

from helpers.placement import CLIQUE, HOST, RACK, node, pod_set, rack_cluster, tree
from workloadmap.placement import place, place_together
from workloadmap.placement.reasons import kueue_words
from workloadmap.topology import Cluster


@pytest.mark.parametrize(
    ("kueue", "words"),
    [
        # tas_flavor_snapshot_test.go: a pod asking more cpu than any node has
        (
            'PodSet main: topology "default" doesn\'t allow to fit any of 1 pod(s). Total nodes: 4; excluded: '
            'resource "cpu": 4',
            "no main pod finds room (4 nodes lack the free cpu, of 4)",
        ),
        # a QuotaReserved message of Kueue >= 0.13 (resource and taint exclusions, the taint quoted with its colon)
        (
            'PodSet main: topology "default-node-topology" doesn\'t allow to fit any of 3 pod(s). Total nodes: 4; '
            'excluded: resource "cpu": 3, taint "nvidia.com/gpu:NoSchedule": 1',
            "none of its 3 main pods finds room (3 nodes lack the free cpu, 1 node has the taint"
            " nvidia.com/gpu:NoSchedule it does not tolerate, of 4)",
        ),
        # notFitMessage with a count that fits, no exclusions
        (
            'PodSet group/worker: topology "default" allows to fit only 2 out of 3 pod(s)',
            "only 2 of its 3 worker pods find room",
        ),
        # a Workload Kueue admits whole, refused for another PodSet
        (
            'Kueue admits JobSet/train whole and its PodSet w1 does not fit: topology "t" allows to fit only 6 out '
            "of 10 pod(s)",
            "Kueue admits JobSet/train whole, and only 6 of its 10 w1 pods find room",
        ),
        # not Kueue's: kept as it is
        ("the whole cluster cannot hold the 9 pods", "the whole cluster cannot hold the 9 pods"),
    ],
)
def test_kueue_messages_in_words(kueue, words):
    assert kueue_words(kueue) == words


def test_with_a_required_level_kueue_counts_one_domain():
    # findTopologyAssignment with a required level reports what the best domain of that level holds
    kueue = 'PodSet job: topology "t" allows to fit only 4 out of 6 pod(s)'
    assert (
        kueue_words(kueue, "cloud.provider.com/topology-rack")
        == "only 4 of its 6 job pods find room in one topology-rack"
    )


def test_a_pod_larger_than_every_node_says_so_and_keeps_kueues_text():
    # 16 nodes of 8 GPUs: a pod of 16 GPUs fits none (Kueue: resource "nvidia.com/gpu" excludes all 16)
    report = place(
        tree([{"name": "big", "minMember": 2, "pods": 2, "podSets": [pod_set("w", 2, gpus=16)]}]), rack_cluster()
    )
    (group,) = report.pod_groups
    assert not group.fits
    assert group.reason == "each w pod needs 16 GPUs; the nodes have 8"
    assert group.scheduler_reason.startswith('PodSet w: topology "test" doesn\'t allow to fit any of 2 pod(s)')
    assert group.scheduler_reason.endswith('excluded: resource "nvidia.com/gpu": 16')
    # said once: the report's reason counts the groups and names the first one's reason
    assert report.reason == f"0 of 1 groups fit; big does not: {group.reason}"
    assert group.to_dict()["schedulerReason"] == group.scheduler_reason


def test_a_pod_larger_than_any_node_has_free():
    # every node has 8 GPUs, 6 of them in use: a pod of 4 fits a node's size, not what is left
    cluster = rack_cluster(used={"nvidia.com/gpu": 6})
    report = place(tree([{"name": "g", "minMember": 1, "pods": 1, "podSets": [pod_set("w", 1, gpus=4)]}]), cluster)
    assert report.pod_groups[0].reason == "each w pod needs 4 GPUs; no node has more than 2 free"


def test_a_placement_is_worded_once_and_never_changed():
    report = place(
        tree([{"name": "big", "minMember": 1, "pods": 1, "podSets": [pod_set("w", 1, gpus=16)]}]), rack_cluster()
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.pod_groups[0].reason = "anything"  # type: ignore[misc]


def _two_cliques(a: int = 4, b: int = 8) -> Cluster:
    """One rack: NVLink clique A of ``a`` nodes, clique B of ``b``, every node 4 GPUs."""
    nodes = [node(f"a{h}", {RACK: "r0", CLIQUE: "A"}, gpus=4) for h in range(a)]
    nodes += [node(f"b{h}", {RACK: "r0", CLIQUE: "B"}, gpus=4) for h in range(b)]
    return Cluster(name="nvl", nodes=nodes, levels=[RACK, CLIQUE, HOST])


def test_kueues_bestfit_splitting_a_gang_one_domain_could_hold_says_so_and_names_kai():
    """Kueue places a Workload's PodSets one at a time (FindTopologyAssignmentsForFlavor), each in the
    tightest domain that holds it (BestFit, tas_flavor_snapshot.go ``sortedDomains``): the first 4 pods
    take clique A whole, the next 4 go to B, though B holds all 8. KAI places the gang whole."""
    gang = [{"name": "g", "minMember": 8, "pods": 8, "podSets": [pod_set("a", 4, gpus=4), pod_set("b", 4, gpus=4)]}]
    report = place(tree(gang), _two_cliques(), policy="kueue")
    (group,) = report.pod_groups
    assert group.fits and group.reason is None and group.preferred_level == CLIQUE
    assert {entry.name[0] for entry in group.assignment.nodes} == {"a", "b"}
    assert group.note == (
        "split across NVLink domains although B could hold the whole gang: Kueue's BestFit places one PodSet at"
        " a time (policy kai places a gang whole)"
    )
    kai = place(tree(gang), _two_cliques(), policy="kai").pod_groups[0]
    assert kai.fits and kai.note is None and kai.assignment.domain == "B"


def test_a_split_after_earlier_placements_claims_nothing_it_cannot_show():
    """A workload of 2 pods takes the tightest clique, A (6 nodes); the gang's first 4 pods then fill
    A's last 4, the next 4 go to B. The cluster as given is not the one the gang met: only the split
    is said, not that B could have held it."""
    small = tree([{"name": "s", "minMember": 2, "pods": 2, "podSets": [pod_set("s", 2, gpus=4)]}], name="small")
    gang = [{"name": "g", "minMember": 8, "pods": 8, "podSets": [pod_set("a", 4, gpus=4), pod_set("b", 4, gpus=4)]}]
    joint = place_together([small, tree(gang)], _two_cliques(a=6, b=8))
    first, second = (report.pod_groups[0] for report in joint.reports)
    assert first.assignment.domain == "A"
    assert second.fits and {entry.name[0] for entry in second.assignment.nodes} == {"a", "b"}
    assert second.note == "split across NVLink domains"
