"""``--emit kai``: PodGroups only where KAI leaves them in place, annotations otherwise; the workload's
own constraints and topology name carried, not replaced.

KAI's pod-grouper (kai-scheduler/KAI-Scheduler pkg/podgrouper/pod_controller.go) builds the PodGroup of
every owned pod itself; it skips only an ownerless pod that names its PodGroup (isOrphanPodWithPodGroup).
"""

from __future__ import annotations

import copy

import pytest

from helpers import load_fixture
from helpers.placement import RACK, rack_cluster
from workloadmap import inspect, place
from workloadmap.exporters import export


def emit(obj, cluster=None, **options):
    tree = inspect(obj)
    report = place(tree, cluster or rack_cluster())
    notes: list[str] = []
    objects = export("kai", tree, report, obj=obj, notes=notes, **options)
    return objects, notes


def test_bare_pod_gets_its_podgroup_with_kai_metadata():
    pod = load_fixture("pod-sidecar.yaml")  # annotated kai.scheduler/topology: cluster-topology
    (topology, podgroup), notes = emit(pod)
    # the topology the pod names is kept for the Topology object and the constraint
    assert topology["metadata"]["name"] == "cluster-topology"
    spec = podgroup["spec"]
    assert spec["topologyConstraint"]["topology"] == "cluster-topology"
    # KAI's default grouper defaults: default-queue, train (preemptible)
    assert (spec["queue"], spec["priorityClassName"], spec["preemptibility"]) == (
        "default-queue",
        "train",
        "preemptible",
    )
    assert len(notes) == 1 and "pod-group-name: sidecar-demo" in notes[0]


def test_owned_workload_gets_annotations_and_a_note_not_podgroups():
    sts = load_fixture("statefulset.yaml")
    sts["metadata"].setdefault("annotations", {}).update(
        {"kai.scheduler/topology": "site-topology", "kai.scheduler/topology-required-placement": RACK}
    )
    original = copy.deepcopy(sts)
    objects, notes = emit(sts)
    assert [obj["kind"] for obj in objects] == ["Topology", "StatefulSet"]
    annotations = objects[1]["metadata"]["annotations"]
    # the user's topology name and required level are carried, not replaced
    assert annotations["kai.scheduler/topology"] == "site-topology"
    assert annotations["kai.scheduler/topology-required-placement"] == RACK
    assert objects[0]["metadata"]["name"] == "site-topology"
    assert len(notes) == 1 and "no PodGroup is emitted" in notes[0]
    assert sts == original  # the input is never modified


def test_the_callers_topology_name_wins():
    sts = load_fixture("statefulset.yaml")
    sts["metadata"]["annotations"] = {"kai.scheduler/topology": "site-topology"}
    objects, _ = emit(sts, topology="chosen")
    assert objects[0]["metadata"]["name"] == "chosen"
    assert objects[1]["metadata"]["annotations"]["kai.scheduler/topology"] == "chosen"


def test_grove_topology_name_is_carried():
    objects, _ = emit(load_fixture("grove/podcliqueset-topology.yaml"))
    assert objects[0]["metadata"]["name"] == "test-topology"
    # Grove's own fields stay on the copy: they give KAI the subgroup constraints
    assert objects[1]["spec"]["template"]["podCliqueScalingGroups"][0]["topologyConstraint"]["pack"]["required"] == (
        "rack"
    )


def test_owned_workload_without_its_object_is_a_usage_error():
    tree = inspect(load_fixture("statefulset.yaml"))
    with pytest.raises(ValueError, match="owned pods"):
        export("kai", tree, place(tree, rack_cluster()))


def test_cli_prints_the_note_on_stderr(wmap):
    from helpers import FIXTURES_DIR

    # The example cluster has no GPU these pods may use: --emit refuses unless --allow-unfit.
    result = wmap("place", str(FIXTURES_DIR / "statefulset.yaml"), "--emit", "kai", "--allow-unfit")
    assert result.exit_code == 0, result.output
    assert "note: StatefulSet/shards: KAI's pod-grouper builds the PodGroups" in result.stderr
    assert "WARNING: emitting objects for a gang that may never be scheduled: StatefulSet/shards" in result.stderr
