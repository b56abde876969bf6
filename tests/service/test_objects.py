"""What the cache keeps answers exactly what the whole objects answer.

For every workload the operators' builders make (JobSet, LWS, RayCluster, PyTorchJob, Grove), with
pods, owners in between, Events and nodes as a real API server returns them (managedFields,
images, container statuses ...), describe on the cut-down objects (``service.objects``) must equal
describe on the whole ones, placement audit and Events included, and the cluster model built from
the cut-down nodes and pods must equal the one built from the whole. The audit made with one
:class:`~workloadmap.live.ClusterAnalysis` shared by many workloads must equal the audit that
places each workload alone.
"""

from __future__ import annotations

import copy

import pytest

from helpers.serve import WORKLOADS, operator_cluster
from workloadmap.live import ClusterAnalysis, LiveObjects, ObjectsByUid, OwnerChains, describe, from_dumps
from workloadmap.service import EVENT_FIELDS, OWNER_FIELDS, POD_FIELDS, cut, keep, workload_copy
from workloadmap.service.objects import NODE_FIELDS
from workloadmap.topology import cluster_from_objects

BULK = {"f:metadata": {"f:labels": {}}, "f:spec": {"f:containers": {}}}


def _as_served(obj: dict) -> dict:
    """An object with what a real API server and kubelet add, which wmap never reads."""
    obj = copy.deepcopy(obj)
    obj["metadata"]["managedFields"] = [{"manager": "kubelet", "operation": "Update", "fieldsV1": BULK}]
    obj["metadata"].setdefault("annotations", {})["kubectl.kubernetes.io/last-applied-configuration"] = "{}" * 50
    if obj.get("kind") == "Pod":
        obj["spec"]["volumes"] = [{"name": "data", "emptyDir": {}}]
        for container in obj["spec"].get("containers", []):
            container.update(image="example/trainer:1", env=[{"name": "A", "value": "x" * 100}])
        obj["status"].update(hostIP="10.0.0.1", podIP="10.1.0.1", qosClass="Burstable")
        for status in obj["status"].get("containerStatuses", []):
            status.update(imageID="sha256:" + "a" * 64, containerID="containerd://" + "b" * 64)
    if obj.get("kind") == "Node":
        obj["status"]["images"] = [{"names": ["example/image:1"], "sizeBytes": 10**9}]
        obj["status"]["nodeInfo"] = {"kubeletVersion": "v1.33.0"}
    return obj


def _kept(obj: dict, workloads: set[str]) -> dict:
    """As the cache keeps it: workloads whole (but managed fields), pods and events cut, owners identity only."""
    kind = obj.get("kind")
    if obj["metadata"].get("uid") in workloads:
        return workload_copy(obj)
    if kind == "Pod":
        return cut(obj, POD_FIELDS)
    if kind == "Event":
        return keep(obj, EVENT_FIELDS)
    return keep(obj, OWNER_FIELDS)


@pytest.mark.parametrize("ref", sorted(WORKLOADS))
def test_describe_answers_the_same_from_the_kept_fields(ref):
    cluster = operator_cluster(pending=1)
    served = [_as_served(obj) for obj in cluster.objects]
    nodes = [_as_served(node) for node in cluster.nodes]
    workload_uids = {obj["metadata"]["uid"] for obj in served if obj.get("kind") != "Pod" and not obj["metadata"].get(
        "ownerReferences") and obj.get("kind") != "Event"}  # fmt: skip
    name = ref.split("/")[1]
    workload = next(
        obj for obj in served if obj["metadata"]["name"] == name and obj["metadata"]["uid"] in workload_uids
    )
    whole = describe(workload, from_dumps(served, nodes)).to_dict()
    kept = [_kept(obj, workload_uids) for obj in served]
    kept_nodes = [keep(node, NODE_FIELDS) for node in nodes]
    kept_workload = workload_copy(workload)
    assert "managedFields" not in kept_workload["metadata"]
    cut = describe(kept_workload, from_dumps(kept, kept_nodes)).to_dict()
    assert cut == whole
    assert whole["events"] and whole["placement"] and whole["components"]


def test_the_cluster_model_is_the_same_from_the_kept_fields():
    cluster = operator_cluster(pending=1)
    nodes = [_as_served(node) for node in cluster.nodes]
    pods = [_as_served(obj) for obj in cluster.objects if obj["kind"] == "Pod"]
    whole = cluster_from_objects(nodes, pods, name="c", source="s")
    cut = cluster_from_objects([keep(node, NODE_FIELDS) for node in nodes], [keep(pod, POD_FIELDS) for pod in pods],
                               name="c", source="s")  # fmt: skip
    assert cut.domain_tree().to_dict(node_names=True) == whole.domain_tree().to_dict(node_names=True)
    assert [(node.name, node.used, node.labels) for node in cut.nodes] == [
        (node.name, node.used, node.labels) for node in whole.nodes
    ]


def test_what_wmap_never_reads_is_not_kept():
    import json

    cluster = operator_cluster()
    pods = [_as_served(obj) for obj in cluster.objects if obj["kind"] == "Pod"]
    for pod in pods:
        kept = cut(pod, POD_FIELDS)
        text = json.dumps(kept)
        for unread in ("managedFields", "last-applied-configuration", "volumes", "image", "env", "podIP", "imageID"):
            assert f'"{unread}' not in text and unread not in kept["metadata"].get("annotations", {}), unread


@pytest.mark.parametrize("ref", sorted(WORKLOADS))
def test_one_shared_analysis_audits_as_placing_each_workload_alone(ref):
    cluster = operator_cluster(pending=1)
    model = cluster_from_objects(cluster.nodes, name="cluster", source="nodes")
    shared = ClusterAnalysis(model)
    owners = ObjectsByUid(cluster.objects)
    workload = next(obj for obj in cluster.objects if obj["metadata"]["name"] == ref.split("/")[1])
    for _ in range(2):  # the second time from the indexes the first made
        alone = describe(workload, LiveObjects(pods=cluster.pods(), owners=owners, nodes=cluster.nodes))
        with_shared = describe(workload, LiveObjects(pods=cluster.pods(), owners=owners, chains=OwnerChains(owners),
                                                     analysis=shared))  # fmt: skip
        assert with_shared.placement is not None
        assert with_shared.placement.to_dict() == alone.placement.to_dict()
