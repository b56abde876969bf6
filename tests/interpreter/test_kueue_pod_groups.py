"""Kueue's plain-pod groups (``kueue.x-k8s.io/pod-group-name`` + ``pod-group-total-count``) as one workload.

Expected values from kubernetes-sigs/kueue main (August 2026) ``pkg/controller/jobs/pod/pod_controller_test.go``
(TestReconciler cases named below: pods of ``basePodWrapper``, one container requesting cpu 1) and
``pod_webhook.go`` ``validatePodGroupMetadata``; the PodSet names are Kueue's role hashes in those tests.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from workloadmap.documents import Document
from workloadmap.errors import InputError
from workloadmap.interpreter import inspect_documents
from workloadmap.interpreter.kueue_groups import role_hash


def _pod(
    name: str,
    count: str | None = "2",
    *,
    group: str = "test-group",
    memory: str | None = None,
    annotation: bool = False,
    queue: str = "user-queue",
    **extra: Any,
) -> dict[str, Any]:
    requests = {"cpu": "1"} | ({"memory": memory} if memory else {})
    where = "annotations" if annotation else "labels"
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": "ns",
        "labels": {"kueue.x-k8s.io/queue-name": queue},
        "annotations": {},
    }
    metadata[where]["kueue.x-k8s.io/pod-group-name"] = group
    if count is not None:
        metadata["annotations"]["kueue.x-k8s.io/pod-group-total-count"] = count
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "c", "image": "i", "resources": {"requests": requests}}],
        },
    }
    for key, value in extra.items():
        body[key] = value
    return body


def _run(*bodies: dict[str, Any]):
    documents = [Document(body, "pods.yaml", index) for index, body in enumerate(bodies, 1)]
    return list(inspect_documents(documents))


def _pod_sets(tree) -> list[tuple[str, int]]:
    return [(pod_set.component, pod_set.count) for pod_set in tree.pod_groups[0].pod_sets]


def test_the_pods_of_one_group_are_one_workload_with_kueues_podset():
    # "workload is composed and created for the pod group": PodSet dc85db45 of count 2, Workload test-group
    results = _run(_pod("pod"), _pod("pod2"))
    tree = results[0].tree
    assert (tree.workload.kind, tree.workload.name, tree.workload.namespace) == ("KueuePodGroup", "test-group", "ns")
    assert [group.min_member for group in tree.pod_groups] == [2]
    assert _pod_sets(tree) == [("dc85db45", 2)]
    assert tree.totals.pods == 2
    assert "part of Kueue pod group ns/test-group" in results[1].skipped


def test_the_group_name_annotation_is_read_as_the_label():
    # "..., WorkloadIdentifierAnnotations enabled" (on by default since Kueue 0.18): the same Workload
    results = _run(_pod("pod", annotation=True), _pod("pod2", annotation=True))
    assert _pod_sets(results[0].tree) == [("dc85db45", 2)]


def test_pods_of_two_roles_are_two_podsets_sorted_by_hash():
    # "reclaimable pods updated for pod group": cpu 1 pods are role dc85db45, cpu 1 + memory 1Gi ones 4ebdd4a6
    results = _run(_pod("pod", "3"), _pod("pod2", "3"), _pod("pod3", "3", memory="1Gi"))
    assert _pod_sets(results[0].tree) == [("4ebdd4a6", 1), ("dc85db45", 2)]
    assert results[0].tree.pod_groups[0].min_member == 3


def test_fast_admission_is_one_podset_of_the_total_count():
    # "workload is composed and created for the pod group with fast admission": one pod, PodSet dc85db45 count 3
    pod = _pod("pod", "3")
    pod["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-fast-admission"] = "true"
    (result,) = _run(pod)
    assert _pod_sets(result.tree) == [("dc85db45", 3)]
    assert result.tree.warnings == []


def test_the_total_count_sizes_the_gang_before_all_pods_exist():
    # "if there's not enough non-failed pods in the group, workload should not be created": Kueue waits with
    # "'test-group' group has fewer runnable pods than expected"; the gang is still of the total count
    failed = _pod("pod2", "3", status={"phase": "Failed"})
    results = _run(_pod("pod", "3"), failed)
    tree = results[0].tree
    assert tree.pod_groups[0].min_member == 3
    assert _pod_sets(tree) == [("dc85db45", 3)]
    assert any("'test-group' group has fewer runnable pods than expected" in warning for warning in tree.warnings)


def test_excess_pods_are_deleted_youngest_first():
    # "excess pods before wl creation, youngest pods are deleted": total count 1, pod2 (a minute younger) deleted
    old = _pod("pod", "1", metadata_time="2026-08-01T00:00:00Z")
    young = _pod("pod2", "1")
    old["metadata"]["creationTimestamp"] = "2026-08-01T00:00:00Z"
    young["metadata"]["creationTimestamp"] = "2026-08-01T00:01:00Z"
    del old["metadata_time"]
    results = _run(young, old)  # input order does not decide: the creation time does
    (tree,) = [result.tree for result in results if result.tree is not None]
    assert _pod_sets(tree) == [("dc85db45", 1)]
    assert any("document #1 (Pod/pod2): Kueue deletes this pod" in warning for warning in tree.warnings)


def test_members_disagreeing_on_the_total_count_are_an_error():
    # validatePodGroupMetadata: "pods 'pod' and 'pod2' has different 'kueue.x-k8s.io/pod-group-total-count' values"
    results = _run(_pod("pod", "2"), _pod("pod2", "3"))
    error = results[0].error
    assert isinstance(error, InputError)
    assert "has different 'kueue.x-k8s.io/pod-group-total-count' values: 2!=3" in str(error)
    assert error.location.document == "#2 (Pod/pod2)"
    assert error.location.path[-1] == "kueue.x-k8s.io/pod-group-total-count"
    assert results[1].skipped is not None


def test_members_in_different_queues_are_an_error():
    # "workload for pod group with different queue names shouldn't be created"
    results = _run(_pod("pod", queue="test-queue"), _pod("pod2", queue="new-test-queue"))
    assert "has different queue names: test-queue!=new-test-queue" in str(results[0].error)


@pytest.mark.parametrize(
    ("count", "message"),
    [
        (
            None,
            "both the 'kueue.x-k8s.io/pod-group-total-count' annotation and the "
            "'kueue.x-k8s.io/pod-group-name' label should be set",
        ),
        ("", 'strconv.Atoi: parsing "": invalid syntax'),
        ("0", "group total count should be greater than zero"),
    ],
)
def test_the_webhook_refuses_a_member_without_a_good_total_count(count, message):
    # pod_webhook.go validatePodGroupMetadata; pod_webhook_test.go TestValidateCreate "pod with group name and no
    # group total count", "pod with empty group total count", "pod with 0 group total count" (field
    # metadata.annotations[kueue.x-k8s.io/pod-group-total-count])
    (result,) = _run(_pod("pod", count))
    assert message in str(result.error)
    assert result.error.location.document == "#1 (Pod/pod)"


def test_a_pod_without_a_group_is_left_alone():
    body = _pod("pod")
    del body["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"]
    del body["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"]
    (result,) = _run(body)
    assert result.tree.workload.kind == "Pod"


def test_the_role_hash_annotation_names_the_podset():
    pod = _pod("pod")
    pod["metadata"]["annotations"]["kueue.x-k8s.io/role-hash"] = "role-01"
    assert role_hash(pod) == "role-01"
    other = copy.deepcopy(pod)
    del other["metadata"]["annotations"]["kueue.x-k8s.io/role-hash"]
    other["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1000m"}}  # defaulted request, canonical 1
    assert role_hash(other) == "dc85db45"
