"""A workload's Kueue Workload in ``describe`` and ``get``: its admission, and its topology assignment audited.

The objects are built as Kueue makes them: the Workload owned by the job (controller reference),
``status.admission`` with the ClusterQueue and per PodSet the flavors, the count and the
``topologyAssignment`` in the v1beta2 slices encoding; each pod labelled ``kueue.x-k8s.io/podset``
and annotated ``kueue.x-k8s.io/workload`` (pkg/controller/jobframework/reconciler.go, the
TopologyUngater's ``podsForPodSet``). The assignment is the one of Kueue's
``pkg/controller/tas/topology_ungater_test.go`` "ungate multiple pods across multiple domains":
levels [cloud.com/topology-block, cloud.com/topology-rack], domains (b1, r1) x1 and (b1, r2) x1, so
the ungater gives one pod the nodeSelector block=b1, rack=r1 and the other rack=r2.
"""

from __future__ import annotations

import json

import yaml
from typer.testing import CliRunner

from helpers.apiserver import fake_cluster  # noqa: F401  (the fixture)
from helpers.operators import LiveCluster, sequence
from workloadmap.cli.main import app
from workloadmap.live import describe, from_dumps

BLOCK, RACK = "cloud.com/topology-block", "cloud.com/topology-rack"
runner = CliRunner()


def _reference(obj: dict, controller: bool = True) -> dict:
    meta = obj["metadata"]
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": meta["name"], "uid": meta["uid"],
            "controller": controller, "blockOwnerDeletion": True}  # fmt: skip


def _cluster(nodes: list[str | None], *, admitted: bool = True, api_version: str = "kueue.x-k8s.io/v1beta2"):
    cluster = LiveCluster(namespace="ml")
    for name, block, rack in (("n1", "b1", "r1"), ("n2", "b1", "r2"), ("n3", "b2", "r1")):
        cluster.node(name, {BLOCK: block, RACK: rack})
    template = {
        "metadata": {"annotations": {"kueue.x-k8s.io/podset-required-topology": BLOCK}},
        "spec": {"containers": [{"name": "main", "image": "x", "resources": {"requests": {"cpu": "1"}}}]},
    }
    job = cluster.workload(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "train", "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
            "spec": {"parallelism": 2, "completions": 2, "template": template},
        }
    )
    name = "job-train-5b7c9"  # GetWorkloadNameForOwnerWithGVK: <kind>-<name>-<hash>
    assignment = {
        "name": "main",
        "flavors": {"cpu": "tas-flavor"},
        "count": 2,
        "resourceUsage": {"cpu": "2"},
        "topologyAssignment": {
            "levels": [BLOCK, RACK],
            "domains": [{"values": ["b1", "r1"], "count": 1}, {"values": ["b1", "r2"], "count": 1}],
        }  # fmt: skip
        if api_version.endswith("v1beta1")
        else {
            "levels": [BLOCK, RACK],
            "slices": [
                {
                    "domainCount": 2,
                    "valuesPerLevel": [{"universal": "b1"}, {"individual": {"prefix": "r", "roots": ["1", "2"]}}],
                    "podCounts": {"universal": 1},
                }
            ],
        },
    }
    conditions = [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved"}]
    conditions.append({"type": "Admitted", "status": "True" if admitted else "False", "reason": "Admitted"})
    cluster.objects.append(
        {
            "apiVersion": api_version,
            "kind": "Workload",
            "metadata": {"name": name, "namespace": "ml", "uid": cluster.uid(), "ownerReferences": [_reference(job)]},
            "spec": {
                "queueName": "user-queue",
                "podSets": [{"name": "main", "count": 2, "template": template}],
            },
            "status": {
                "conditions": conditions,
                "admission": {"clusterQueue": "cluster-queue", "podSetAssignments": [assignment]},
            },  # fmt: skip
        }
    )
    place = sequence(nodes)
    for index in range(2):
        cluster.pod(
            f"train-{index}-x",
            job,
            {
                "batch.kubernetes.io/job-name": "train",
                "batch.kubernetes.io/job-completion-index": str(index),
                "kueue.x-k8s.io/podset": "main",
            },  # fmt: skip
            template,
            place,
            annotations={"kueue.x-k8s.io/workload": name},
        )
    return cluster, job


def _kueue(nodes: list[str | None], **options):
    cluster, job = _cluster(nodes, **options)
    report = describe(job, from_dumps(cluster.objects, cluster.nodes))
    assert report.kueue is not None and len(report.kueue) == 1
    return report.kueue[0]


def test_pods_in_the_assigned_domains_match():
    workload = _kueue(["n1", "n2"])
    assert (workload.name, workload.queue, workload.cluster_queue, workload.status, workload.admitted) == (
        "job-train-5b7c9",
        "user-queue",
        "cluster-queue",
        "admitted",
        True,
    )
    (pod_set,) = workload.pod_sets
    assert pod_set.flavors == {"cpu": "tas-flavor"} and pod_set.levels == [BLOCK, RACK]
    assert [(d.values, d.assigned, d.scheduled) for d in pod_set.domains] == [
        (["b1", "r1"], 1, 1),
        (["b1", "r2"], 1, 1),
    ]
    assert pod_set.matches is True and pod_set.outside == []


def test_v1beta1_workloads_read_alike():
    workload = _kueue(["n1", "n2"], api_version="kueue.x-k8s.io/v1beta1")
    assert workload.api_version == "kueue.x-k8s.io/v1beta1" and workload.pod_sets[0].matches is True


def test_a_pod_outside_the_assignment_is_reported():
    (pod_set,) = _kueue(["n1", "n3"]).pod_sets
    assert pod_set.matches is False
    assert [(d.values, d.scheduled) for d in pod_set.outside] == [(["b2", "r1"], 1)]
    assert pod_set.reason == "1 pod on b2/r1, not an assigned domain"


def test_two_pods_in_a_domain_assigned_one_are_reported():
    (pod_set,) = _kueue(["n1", "n1"]).pod_sets
    assert pod_set.matches is False and pod_set.reason == "2 pods on b1/r1, 1 assigned"


def test_an_unscheduled_pod_leaves_the_audit_open():
    (pod_set,) = _kueue(["n1", None]).pod_sets
    assert pod_set.matches is None and pod_set.unscheduled_pods == 1
    assert pod_set.reason == "1 of 2 assigned pods scheduled"


def test_quota_reserved_but_not_admitted():
    workload = _kueue(["n1", "n2"], admitted=False)
    assert workload.status == "quotaReserved" and workload.admitted is False


def test_without_kueue_workloads_nothing_is_said():
    cluster, job = _cluster(["n1", "n2"])
    objects = [obj for obj in cluster.objects if obj["kind"] != "Workload"]
    report = describe(job, from_dumps(objects, cluster.nodes))
    assert report.kueue is None and report.to_dict()["kueue"] is None


def _dump(tmp_path, cluster) -> str:
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": cluster.objects + cluster.nodes}))
    return str(path)


def test_describe_shows_the_kueue_workload(tmp_path):
    cluster, _ = _cluster(["n1", "n3"])
    result = runner.invoke(app, ["describe", "job/train", "--objects", _dump(tmp_path, cluster)])
    assert result.exit_code == 0, result.output
    assert "Kueue Workload job-train-5b7c9: admitted in cluster-queue (queue user-queue)" in result.output
    assert "NOT AS ASSIGNED: 1 pod on b2/r1, not an assigned domain" in result.output
    data = json.loads(runner.invoke(app, ["describe", "job/train", "--objects", _dump(tmp_path, cluster),
                                          "-o", "json"]).output)  # fmt: skip
    assert data["kueue"][0]["podSets"][0]["outside"] == [{"values": ["b2", "r1"], "assigned": 0, "scheduled": 1}]


def test_get_has_queue_and_admitted_columns_where_kueue_is_read(tmp_path):
    cluster, _ = _cluster(["n1", "n2"])
    result = runner.invoke(app, ["get", "jobs", "--objects", _dump(tmp_path, cluster)])
    assert result.exit_code == 0, result.output
    header, row = result.output.splitlines()[:2]
    assert header.split() == ["NAME", "PHASE", "PODS", "GPUS", "QUEUE", "ADMITTED", "AGE"]
    assert row.split()[4:6] == ["user-queue", "True"]
    listed = json.loads(runner.invoke(app, ["get", "jobs", "--objects", _dump(tmp_path, cluster), "-o", "json"]).output)
    assert listed["items"][0]["live"]["queue"] == "user-queue" and listed["items"][0]["live"]["admitted"] == "True"


def test_get_has_no_queue_column_without_kueue(tmp_path):
    cluster, _ = _cluster(["n1", "n2"])
    cluster.objects = [obj for obj in cluster.objects if obj["kind"] != "Workload"]
    result = runner.invoke(app, ["get", "jobs", "--objects", _dump(tmp_path, cluster)])
    assert result.exit_code == 0, result.output
    assert "QUEUE" not in result.output.splitlines()[0]


def test_describe_and_get_from_a_cluster_serving_kueue(fake_cluster):  # noqa: F811
    """Kueue's Workloads are LISTed in the namespace (GET only, the fixture checks) beside the pods."""
    from helpers.admission import queue_resources

    cluster, _ = _cluster(["n1", "n2"])
    fake_cluster.server.resources.extend(queue_resources())
    fake_cluster.server.add_all(cluster.objects)
    fake_cluster.server.add_all(cluster.nodes)
    kubeconfig = str(fake_cluster.kubeconfig)
    described = runner.invoke(app, ["describe", "job/train", "-n", "ml", "--kubeconfig", kubeconfig, "-o", "json"])
    assert described.exit_code == 0, described.output
    (workload,) = json.loads(described.output)["kueue"]
    assert workload["podSets"][0]["matches"] is True and workload["apiVersion"] == "kueue.x-k8s.io/v1beta2"
    listed = runner.invoke(app, ["get", "jobs", "-n", "ml", "--kubeconfig", kubeconfig])
    assert listed.exit_code == 0, listed.output
    assert listed.output.splitlines()[0].split()[4:6] == ["QUEUE", "ADMITTED"]


def test_a_cluster_without_kueue_gets_no_queue_column(fake_cluster):  # noqa: F811
    cluster, _ = _cluster(["n1", "n2"])
    fake_cluster.server.add_all([obj for obj in cluster.objects if obj["kind"] != "Workload"])
    fake_cluster.server.add_all(cluster.nodes)
    kubeconfig = str(fake_cluster.kubeconfig)
    described = runner.invoke(app, ["describe", "job/train", "-n", "ml", "--kubeconfig", kubeconfig, "-o", "json"])
    assert described.exit_code == 0 and json.loads(described.output)["kueue"] is None
    listed = runner.invoke(app, ["get", "jobs", "-n", "ml", "--kubeconfig", kubeconfig])
    assert listed.exit_code == 0 and "QUEUE" not in listed.output


def test_a_plain_pod_group_is_audited_over_every_member():
    """Kueue's pod integration (pkg/controller/jobs/pod): pods labelled ``kueue.x-k8s.io/pod-group-name`` with
    ``pod-group-total-count`` make one Workload named after the group, owned by every member (no controller),
    one PodSet per role hash (``constructGroupPodSets``); describing one pod shows the group's Workload."""
    cluster = LiveCluster(namespace="ml")
    cluster.node("n1")
    cluster.node("n2")
    group = {"kueue.x-k8s.io/pod-group-name": "grp", "kueue.x-k8s.io/podset": "a1b2c3d4"}
    annotations = {"kueue.x-k8s.io/pod-group-total-count": "2", "kueue.x-k8s.io/workload": "grp"}
    place = sequence(["n1", "n2"])
    pods = [cluster.pod(f"p{i}", None, group, None, place, annotations=annotations) for i in range(2)]
    hostname = "kubernetes.io/hostname"
    cluster.objects.append(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Workload",
            "metadata": {
                "name": "grp",
                "namespace": "ml",
                "uid": cluster.uid(),
                "ownerReferences": [_reference(pod, controller=False) for pod in pods],
            },  # fmt: skip
            "spec": {"queueName": "lq", "podSets": [{"name": "a1b2c3d4", "count": 2, "template": {"spec": {}}}]},
            "status": {
                "conditions": [{"type": "QuotaReserved", "status": "True"}, {"type": "Admitted", "status": "True"}],
                "admission": {
                    "clusterQueue": "cq",
                    "podSetAssignments": [
                        {
                            "name": "a1b2c3d4",
                            "count": 2,
                            "topologyAssignment": {
                                "levels": [hostname],
                                "slices": [
                                    {
                                        "domainCount": 2,
                                        "podCounts": {"universal": 1},
                                        "valuesPerLevel": [{"individual": {"prefix": "n", "roots": ["1", "2"]}}],
                                    }
                                ],
                            },  # fmt: skip
                        }
                    ],
                },
            },
        }
    )
    report = describe(pods[0], from_dumps(cluster.objects, cluster.nodes))
    assert report.kueue is not None
    (workload,) = report.kueue
    assert workload.name == "grp" and workload.assigned_nodes == ["n1", "n2"]
    (pod_set,) = workload.pod_sets
    assert [(d.values, d.assigned, d.scheduled) for d in pod_set.domains] == [(["n1"], 1, 1), (["n2"], 1, 1)]
    assert pod_set.matches is True
