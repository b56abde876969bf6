"""``workloadmap.diff``: two versions of workloads compared, field by field, and their placements.

The expected figures are worked out by hand from the operators' rules, as the fixtures' comments
say (fixtures/diff/v1 and v2: JobSet pods = replicas x min(parallelism, completions), one PodGroup of
every pod under startupPolicyOrder AnyOrder, KAI's jobset plugin; a batch Job of parallelism 2).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from helpers import FIXTURES_DIR
from workloadmap import inspect_file, load_cluster
from workloadmap.diff import Status, diff_trees, diff_workloads

V1 = FIXTURES_DIR / "diff" / "v1"
V2 = FIXTURES_DIR / "diff" / "v2"


def _trees(path) -> list:
    return [result.tree for result in inspect_file(str(path), recursive=True) if result.tree is not None]


@pytest.fixture(scope="module")
def report():
    return diff_workloads(_trees(V1), _trees(V2))


def _changes(item) -> dict:
    return {change.field: (change.old, change.new) for change in item.changes}


def test_workloads_are_paired_by_group_kind_namespace_and_name(report):
    assert [(item.workload.kind, item.workload.name, item.status) for item in report.workloads] == [
        ("JobSet", "llm-train", Status.CHANGED),
        ("LeaderWorkerSet", "serve", Status.ADDED),
        ("Job", "eval", Status.REMOVED),
    ]
    assert report.changed and report.counts() == {
        Status.ADDED: 1, Status.REMOVED: 1, Status.CHANGED: 1, Status.UNCHANGED: 0
    }  # fmt: skip


def test_totals_pods_gpus_and_every_resource(report):
    jobset = _changes(report.workloads[0])
    # v1: 3 pods, 12 GPUs, cpu 8 + 2 x 16, memory 64Gi + 2 x 128Gi; v2: 1 + 4 pods, 4 + 4 x 8 GPUs,
    # cpu 8 + 4 x 16, memory 64Gi + 4 x 192Gi. The GPU resource is compared as gpus only.
    gib = 2**30
    assert jobset == {
        "totals.pods": (3, 5),
        "totals.gpus": (12, 36),
        "totals.resources.cpu": (40, 72),
        "totals.resources.memory": (320 * gib, 832 * gib),
    }


def test_each_component_that_changes_and_how(report):
    [workers] = report.workloads[0].components  # the leader is unchanged
    assert (workers.path, workers.status) == ("workers", Status.CHANGED)
    changes = _changes(workers)
    assert changes["pods"] == (2, 4) and changes["podsPerReplica"] == (2, 4)
    assert changes["gpusPerPod"] == (4, 8) and changes["gpus"] == (8, 32)
    assert changes["podResources.memory"] == (128 * 2**30, 192 * 2**30)
    assert "podResources.cpu" not in changes  # 16 both times
    key = "topologyAnnotations.kueue.x-k8s.io/podset-required-topology"
    assert changes[key] == (None, "accelerator.topograph.run/domain")


def test_gangs_and_their_minimums(report):
    gang, *subs = report.workloads[0].gangs
    assert (gang.name, gang.status, gang.sub_group) == ("llm-train", Status.CHANGED, False)
    assert _changes(gang) == {"minMember": (3, 5), "pods": (3, 5), "podSets.workers": (2, 4)}
    # the workers' SubGroup and its one leaf (KAI v0.16+ jobset tree: a leaf per Job of minMember parallelism)
    assert [(sub.name, sub.sub_group, _changes(sub)["minMember"]) for sub in subs] == [
        ("llm-train/workers", True, (2, 4)),
        ("llm-train/workers-replica-0", True, (2, 4)),
    ]
    added = report.workloads[1]
    # LWS serve: one group of size 2 -> PodGroup serve-group-0 with leader and workers SubGroups
    assert [(gang.name, gang.status) for gang in added.gangs] == [
        ("serve-group-0", Status.ADDED),
        ("serve-group-0/leader", Status.ADDED),
        ("serve-group-0/workers", Status.ADDED),
    ]


def test_the_same_version_has_no_differences():
    trees = _trees(V1)
    same = diff_workloads(trees, _trees(V1))
    assert not same.changed and {item.status for item in same.workloads} == {Status.UNCHANGED}
    assert all(not item.changes and not item.components and not item.gangs for item in same.workloads)


def test_phase_changes_are_differences(inspect_builtin):
    import yaml

    body = yaml.safe_load((V1 / "jobset.yaml").read_text())
    failed = dict(body, status={"conditions": [{"type": "Failed", "status": "True"}]})
    item = diff_trees(inspect_builtin(body), inspect_builtin(failed))
    assert _changes(item)["phase"] == ("Undefined", "Failed")


def test_with_a_cluster_the_placement_verdict_is_compared():
    cluster = load_cluster("preset:nvl72-4rack")  # 18 nodes x 4 GPUs per NVL72 rack
    report = diff_workloads(_trees(V1), _trees(V2), cluster=cluster)
    placement = report.workloads[0].placement
    assert placement is not None and placement.verdict_changed
    # v2's workers ask 8 GPUs a pod, the preset's nodes have 4
    assert (placement.old_verdict.value, placement.new_verdict.value) == ("Fits", "DoesNotFit")
    gang = placement.gangs[0]
    assert gang.name == "llm-train"
    assert {change.field: (change.old, change.new) for change in gang.changes}["verdict"] == ("Fits", "DoesNotFit")
    data = report.to_dict()["workloads"][0]["placement"]
    assert "oldReport" not in data and data["newVerdict"] == "DoesNotFit"
    assert report.workloads[1].placement.old_verdict is None  # the LWS is new: nothing to place before
    assert Fraction(report.to_dict()["workloads"][0]["changes"][1]["new"]) == 36
