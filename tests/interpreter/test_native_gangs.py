"""Gangs from Kubernetes' Workload API: pods that join a native PodGroup take its gang.

The fixtures are the kubernetes.io concept pages' examples (each fixture names its page): 1.35 Workload +
``spec.workloadRef`` (``workload-api/_index.md``, ``pods/workload-reference.md``), 1.36 Workload, PodGroup and
``spec.schedulingGroup`` (``podgroup-api/_index.md``, ``workload-api/topology-aware-scheduling.md``), 1.37
CompositePodGroup (``compositepodgroup-api/_index.md``). The validation cases are kubernetes'
``pkg/registry/scheduling/workload/declarative_validation_test.go`` ``TestDeclarativeValidate`` (named per test).
"""

from __future__ import annotations

import copy

import pytest
import yaml

from helpers import BAD_FIXTURES_DIR, FIXTURES_DIR
from workloadmap import inspect
from workloadmap.interpreter import ObjectIndex, inspect_file
from workloadmap.interpreter.native import NATIVE_POLICY

NATIVE = FIXTURES_DIR / "native"


def trees(name):
    results = inspect_file(str(NATIVE / name))
    assert all(result.error is None for result in results), [str(result.error) for result in results]
    return {f"{result.tree.workload.kind}/{result.tree.workload.name}": result.tree for result in results}


def documents(name):
    return list(yaml.safe_load_all((NATIVE / name).read_text()))


def test_a_job_joining_a_podgroup_takes_its_gang_and_topology():
    # podgroup-api/_index.md: PodGroup training-worker-0 gang minCount 4; pods name it in spec.schedulingGroup.
    job = trees("job-podgroup.yaml")["Job/training"]
    (group,) = job.pod_groups
    assert (group.name, group.min_member, group.pods) == ("training-worker-0", 4, 4)
    assert group.topology_constraint.required_level == "rack"  # schedulingConstraints.topology[0].key
    assert job.gang_policy == NATIVE_POLICY
    # The Job definition's own grouping (KAI's job grouper: minMember 1) disagrees, and the tree says so.
    assert any("makes training (minMember 1 of 4), not the native gangs" in warning for warning in job.warnings)


def test_workload_and_podgroup_documents_are_read_not_refused():
    # Today's "no definition covers kind Workload" and "skipped PodGroup, not a workload" are gone.
    found = trees("job-podgroup.yaml")
    assert {"Workload/training-policy", "PodGroup/training-worker-0", "Job/training"} == set(found)
    workload = found["Workload/training-policy"]
    assert workload.components == [] and workload.totals.pods == 0 and workload.pod_groups == []


def test_a_podgroup_given_with_related_is_found():
    job, podgroup = documents("job-podgroup.yaml")[2], documents("job-podgroup.yaml")[1]
    tree = inspect(job, related=ObjectIndex([podgroup]))
    assert [(group.name, group.min_member) for group in tree.pod_groups] == [("training-worker-0", 4)]


def test_a_missing_podgroup_keeps_the_definitions_gangs_and_says_why():
    # GangScheduling PreEnqueue: "waiting for pod's pod group ... to appear in scheduling queue".
    job = documents("job-podgroup.yaml")[2]
    tree = inspect(job)
    assert [(group.name, group.min_member) for group in tree.pod_groups] == [("training", 1)]
    assert any("PodGroup training-worker-0, not in the input" in warning for warning in tree.warnings)


def test_a_kai_podgroup_of_the_same_name_is_not_native():
    job, podgroup = documents("job-podgroup.yaml")[2], copy.deepcopy(documents("job-podgroup.yaml")[1])
    podgroup["apiVersion"] = "scheduling.run.ai/v2alpha2"
    tree = inspect(job, related=ObjectIndex([podgroup]))
    assert tree.gang_policy != NATIVE_POLICY


def test_a_basic_podgroup_is_no_gang():
    # types.go: BasicSchedulingPolicy "intentionally empty"; PlacementFeasible's minimum for basic is 1.
    job, podgroup = documents("job-podgroup.yaml")[2], copy.deepcopy(documents("job-podgroup.yaml")[1])
    podgroup["spec"]["schedulingPolicy"] = {"basic": {}}
    (group,) = inspect(job, related=ObjectIndex([podgroup])).pod_groups
    assert group.min_member == 1 and group.pods == 4


def test_a_min_count_above_the_workloads_pods_is_warned():
    job, podgroup = documents("job-podgroup.yaml")[2], copy.deepcopy(documents("job-podgroup.yaml")[1])
    podgroup["spec"]["schedulingPolicy"] = {"gang": {"minCount": 6}}
    tree = inspect(job, related=ObjectIndex([podgroup]))
    assert any("minCount 6 exceeds the 4 pods" in warning for warning in tree.warnings)


def test_a_workload_ref_with_a_replica_key_is_one_gang_per_key():
    # 1.35 workload-reference.md: pods of replica key "0" form one gang of the Workload's group "workers".
    job = trees("job-workloadref.yaml")["Job/training-job"]
    assert [(group.name, group.min_member, group.pods) for group in job.pod_groups] == [
        ("training-job-workload-workers-0", 4, 4)
    ]


def test_a_composite_pod_group_nests_its_pod_groups():
    # compositepodgroup-api/_index.md: root-group-0 (minGroupCount 2) over workers-a-0 and workers-b-0 (minCount 4).
    jobset = trees("jobset-composite.yaml")["JobSet/trainer"]
    (root,) = jobset.pod_groups
    assert (root.name, root.min_member, root.pods) == ("root-group-0", 8, 8)
    assert [(sub.name, sub.min_member, sub.pods) for sub in root.sub_groups] == [
        ("workers-a-0", 4, 4),
        ("workers-b-0", 4, 4),
    ]


def test_a_composite_minimum_counts_the_smallest_children():
    # minGroupCount 1 of two gangs of 4: the fewest pods that satisfy it are one child's 4.
    docs = documents("jobset-composite.yaml")
    docs[1]["spec"]["schedulingPolicy"]["gang"]["minGroupCount"] = 1
    (root,) = inspect(docs[4], related=ObjectIndex(docs[:4])).pod_groups
    assert root.min_member == 4


WORKLOAD = """
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata: {name: valid-workload, namespace: default}
spec:
  podGroupTemplates:
  - name: main
    schedulingPolicy: {gang: {minCount: 1}}
"""


@pytest.mark.parametrize(
    ("case", "change", "said"),
    [
        ("empty podGroupTemplates", lambda spec: spec.pop("podGroupTemplates"), "must have at least one item"),
        (
            "too many podGroupTemplates",
            lambda spec: spec.update(
                podGroupTemplates=[{"name": f"group-{i}", "schedulingPolicy": {"basic": {}}} for i in range(9)]
            ),
            "must have at most 8 items",
        ),
        (
            "gang minCount zero",
            lambda spec: spec["podGroupTemplates"][0].update(schedulingPolicy={"gang": {"minCount": 0}}),
            "Required value",
        ),
        (
            "policy with neither basic nor gang",
            lambda spec: spec["podGroupTemplates"][0].update(schedulingPolicy={}),
            "must specify one of",
        ),
        (
            "policy with both basic and gang",
            lambda spec: spec["podGroupTemplates"][0].update(schedulingPolicy={"basic": {}, "gang": {"minCount": 1}}),
            "exactly one of",
        ),
        (
            "with multiple topology constraints",
            lambda spec: spec["podGroupTemplates"][0].update(
                schedulingConstraints={"topology": [{"key": "foo"}, {"key": "bar"}]}
            ),
            "at most 1 item",
        ),
    ],
)
def test_workload_validation_cases_are_errors(case, change, said):
    # What the API server rejects is a located error (tests/interpreter/test_native_validation.py has every case).
    from workloadmap.errors import InputError

    valid = yaml.safe_load(WORKLOAD)
    assert inspect(valid).warnings == []
    change(valid["spec"])
    with pytest.raises(InputError, match="the API server rejects this Workload") as caught:
        inspect(valid)
    assert said in str(caught.value), case


def test_wrongly_typed_native_fields_give_warnings_or_located_errors():
    results = inspect_file(str(BAD_FIXTURES_DIR / "native-shapes.yaml"))
    assert len(results) == 4
    errors = [str(result.error) for result in results if result.error is not None]
    # the PodGroup and the Workload are refused as the API server refuses them, each error located
    assert len(errors) == 2
    assert "document #1 (PodGroup/pg), field spec.schedulingPolicy.gang.minCount" in errors[0]
    assert "document #4 (Workload/w), field spec.podGroupTemplates" in errors[1]
    assert all("the API server rejects" in error for error in errors)
    # a Job joining the refused PodGroup still reads it (the object was given) and says what is wrong
    job = next(result.tree for result in results if result.tree and result.tree.workload.name == "j")
    assert [(group.name, group.min_member) for group in job.pod_groups] == [("pg", 1)]
    assert any("no whole gang.minCount" in warning for warning in job.warnings)
