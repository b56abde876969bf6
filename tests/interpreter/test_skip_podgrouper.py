"""kai.scheduler/skip-podgrouper (KAI v0.15+, #1552): no PodGroup of the grouper's; the pods join the user's.

Expected values from kai-scheduler/KAI-Scheduler v0.17.0 ``pkg/podgrouper/pod_controller_test.go``
(TestShouldSkipPodGrouper, TestReconcileSkipsAnnotatedOwner, TestReconcileDoesNotSkipOnFalseAnnotationValue)
and ``examples/topology-aliases/topology-aliases.yaml`` (a skipped Job joining a PodGroup of minMember 3).
"""

from __future__ import annotations

import copy
import json

from helpers import FIXTURES_DIR
from workloadmap.documents import load_yaml_text
from workloadmap.interpreter import ObjectIndex

FIXTURE = FIXTURES_DIR / "kai" / "skip-podgrouper-job.yaml"
ALIASES = FIXTURES_DIR / "topology" / "aliases"


def _documents():
    podgroup, job = (doc.body for doc in load_yaml_text(FIXTURE.read_text(), str(FIXTURE)))
    return podgroup, job


def test_a_skipped_owner_joins_the_podgroup_its_pods_name(inspect_builtin):
    # TestReconcileSkipsAnnotatedOwner: the grouper makes nothing; the pods carry pod-group-name
    podgroup, job = _documents()
    tree = inspect_builtin(job, related=ObjectIndex([podgroup]))
    (group,) = tree.pod_groups
    assert (group.name, group.min_member, group.pods, group.queue) == ("aliased-topology-job", 3, 3, "team-a")
    constraint = group.topology_constraint
    assert (constraint.topology, constraint.required_level) == ("network", "rack")
    assert tree.warnings == []


def test_false_is_not_skipping(inspect_builtin):
    # TestShouldSkipPodGrouper / TestReconcileDoesNotSkipOnFalseAnnotationValue: only "true" skips; the Job
    # grouper's one PodGroup of minMember 1 (job_grouper_test.go TestGetPodGroupMetadata_MultiPodJobSharesPodGroup)
    podgroup, job = _documents()
    job["metadata"]["annotations"]["kai.scheduler/skip-podgrouper"] = "false"
    (group,) = inspect_builtin(job, related=ObjectIndex([podgroup])).pod_groups
    assert (group.name, group.min_member, group.queue) == ("aliased-topology-job", 1, "default-queue")


def test_the_annotation_on_the_pod_skips_too(inspect_builtin):
    # TestShouldSkipPodGrouper: the annotation on the pod itself
    podgroup, job = _documents()
    del job["metadata"]["annotations"]
    job["spec"]["template"]["metadata"]["annotations"]["kai.scheduler/skip-podgrouper"] = "true"
    (group,) = inspect_builtin(job, related=ObjectIndex([podgroup])).pod_groups
    assert (group.min_member, group.queue) == (3, "team-a")


def test_a_missing_user_podgroup_is_a_warning_not_a_gang(inspect_builtin):
    _, job = _documents()
    tree = inspect_builtin(job)
    assert tree.pod_groups == []
    assert any("aliased-topology-job" in warning and "--related" in warning for warning in tree.warnings)
    unnamed = copy.deepcopy(job)
    del unnamed["spec"]["template"]["metadata"]
    assert any("KAI does not schedule them" in warning for warning in inspect_builtin(unnamed).warnings)


def test_the_user_podgroup_is_placed_with_its_aliased_level(wmap):
    # examples/topology-aliases: the hand-written PodGroup's required level "rack" is the alias of the
    # network Topology's accelerator.nvidia.com/rack (topology_info_test.go TestResolveAliases)
    result = wmap(
        "place",
        str(FIXTURE),
        "-t",
        str(ALIASES / "nodes.yaml"),
        "--topology-object",
        str(ALIASES / "topology-network.yaml"),
        "--policy",
        "kai",
        "-o",
        "json",
    )
    assert result.exit_code == 0, result.output
    (group,) = json.loads(result.stdout)["podGroups"]
    assert (group["name"], group["requiredLevel"], group["verdict"]) == (
        "aliased-topology-job",
        "accelerator.nvidia.com/rack",
        "Fits",
    )
