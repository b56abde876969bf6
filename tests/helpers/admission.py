"""Kubernetes objects as kubectl prints them, for the admission tests: Jobs, JobSets, admitted Workloads, dumps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

CREATED = "2026-01-01T00:00:00Z"
RESERVED = "2026-01-01T00:00:01Z"


def pod_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """A pod spec with one container requesting ``spec['requests']`` (and the given node filters)."""
    requests = dict(spec.get("requests") or {})
    resources: dict[str, Any] = {"requests": requests}
    extended = {name: value for name, value in requests.items() if "/" in name}  # never overcommitted
    if extended:
        resources["limits"] = extended
    container = {"name": "main", "image": "busybox", "resources": resources}
    pod: dict[str, Any] = {"restartPolicy": "Never", "containers": [container]}
    for key in ("tolerations", "nodeSelector", "affinity", "priorityClassName", "schedulerName"):
        if key in spec:
            pod[key] = spec[key]
    return pod


def _metadata(spec: dict[str, Any]) -> dict[str, Any]:
    labels = {"kueue.x-k8s.io/queue-name": spec.get("queue", "lq")}
    if "priorityClass" in spec:
        labels["kueue.x-k8s.io/priority-class"] = spec["priorityClass"]
    labels.update(spec.get("labels") or {})
    metadata: dict[str, Any] = {"name": spec["name"], "namespace": spec.get("namespace", "default"), "labels": labels}
    if "created" in spec:
        metadata["creationTimestamp"] = spec["created"]
    return metadata


def job(spec: dict[str, Any]) -> dict[str, Any]:
    """A batch/v1 Job of ``pods`` pods (parallelism = completions)."""
    pods = spec.get("pods", 1)
    template: dict[str, Any] = {"spec": pod_spec(spec)}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": _metadata(spec),
        "spec": {"parallelism": pods, "completions": pods, "template": template},
    }


def jobset(spec: dict[str, Any]) -> dict[str, Any]:
    """A JobSet whose replicatedJobs are ``spec['jobs']`` (one replica of ``pods`` pods each)."""
    replicated = []
    for entry in spec["jobs"]:
        pods = entry.get("pods", 1)
        replicated.append(
            {
                "name": entry["name"],
                "replicas": 1,
                "template": {"spec": {"parallelism": pods, "completions": pods, "template": {"spec": pod_spec(entry)}}},
            }
        )
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": _metadata(spec),
        "spec": {"replicatedJobs": replicated},
    }


def admitted_workload(spec: dict[str, Any]) -> dict[str, Any]:
    """A Workload holding a quota reservation in ``spec['queue']``: ``usage`` under ``flavors``."""
    usage = dict(spec["usage"])
    queue = spec["queue"]
    conditions = [
        {
            "type": "QuotaReserved",
            "status": "True",
            "reason": "QuotaReserved",
            "message": f"Quota reserved in ClusterQueue {queue}",
            "lastTransitionTime": spec.get("reserved", RESERVED),
        },
        {
            "type": "Admitted",
            "status": "True",
            "reason": "Admitted",
            "message": "The workload is admitted",
            "lastTransitionTime": spec.get("reserved", RESERVED),
        },
    ]
    template = {"spec": {"containers": [{"name": "main", "image": "busybox", "resources": {"requests": usage}}]}}
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": spec["name"],
            "namespace": spec.get("namespace", "default"),
            "uid": f"uid-{spec['name']}",
            "creationTimestamp": spec.get("created", CREATED),
        },
        "spec": {
            "active": True,
            "queueName": spec.get("localQueue", ""),
            "priority": spec.get("priority", 0),
            "podSets": [{"name": "main", "count": 1, "template": template}],
        },
        "status": {
            "admission": {
                "clusterQueue": queue,
                "podSetAssignments": [
                    {"name": "main", "count": 1, "flavors": dict(spec["flavors"]), "resourceUsage": usage}
                ],
            },
            "conditions": conditions,
        },
    }


def priority_class(spec: dict[str, Any]) -> dict[str, Any]:
    """A WorkloadPriorityClass."""
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "WorkloadPriorityClass",
        "metadata": {"name": spec["name"]},
        "value": spec["value"],
    }


def write_list(path: Path, items: list[dict[str, Any]]) -> Path:
    """``items`` as ``kubectl get -o yaml`` prints several kinds: one ``List``."""
    document = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}
    path.write_text(yaml.safe_dump(document))
    return path


def write_documents(path: Path, documents: list[dict[str, Any]]) -> Path:
    """Workload manifests as a user writes them: documents separated by ``---``."""
    path.write_text(yaml.safe_dump_all(documents))
    return path


def kai_queue(spec: dict[str, Any]) -> dict[str, Any]:
    """A KAI ``scheduling.run.ai/v2`` Queue; cpu and memory default to quota -1, limit -1 (unlimited)."""
    resources = {}
    for name in ("cpu", "memory", "gpu"):
        given = dict(spec.get(name) or {"quota": -1, "limit": -1})
        resources[name] = {"quota": given.get("quota", 0), "limit": given.get("limit", 0),
                           "overQuotaWeight": given.get("overQuotaWeight", 1)}  # fmt: skip
    obj: dict[str, Any] = {
        "apiVersion": "scheduling.run.ai/v2",
        "kind": "Queue",
        "metadata": {"name": spec["name"]},
        "spec": {"resources": resources},
    }
    if "parent" in spec:
        obj["spec"]["parentQueue"] = spec["parent"]
    status = {key: spec[key] for key in ("allocated", "allocatedNonPreemptible") if key in spec}
    if status:
        obj["status"] = status
    return obj


def kai_job(spec: dict[str, Any]) -> dict[str, Any]:
    """A batch Job whose pods KAI schedules, in queue ``spec['queue']``."""
    obj = job({**spec, "schedulerName": "kai-scheduler", "labels": {"kai.scheduler/queue": spec["queue"]}})
    obj["metadata"]["labels"].pop("kueue.x-k8s.io/queue-name")
    return obj


def cluster_queue(name: str, quotas: dict[str, dict[str, Any]], **spec: Any) -> dict[str, Any]:
    """A ClusterQueue with one resource group: ``{flavor: {resource: nominal}}`` (``namespaceSelector: {}``)."""
    resources = sorted({resource for quota in quotas.values() for resource in quota})
    flavors = [
        {"name": flavor, "resources": [{"name": r, "nominalQuota": str(quota[r])} for r in resources]}
        for flavor, quota in quotas.items()
    ]
    body = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": resources, "flavors": flavors}], **spec}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name}, "spec": body}


def local_queue(name: str, cluster_queue_name: str, namespace: str = "default", **spec: Any) -> dict[str, Any]:
    """A LocalQueue."""
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": cluster_queue_name, **spec},
    }


def flavor(name: str, **spec: Any) -> dict[str, Any]:
    """A ResourceFlavor."""
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec}


def admit_json(tmp_path: Path, objects: list[dict[str, Any]], workloads: list[dict[str, Any]], *args: str) -> Any:
    """Run ``wmap admit WORKLOADS --queues DUMP -o json`` (and ``args``): (result, items by name)."""
    import json

    from typer.testing import CliRunner

    from workloadmap.cli.main import app

    dump = write_list(tmp_path / "queues.yaml", objects)
    files = write_documents(tmp_path / "workloads.yaml", workloads)
    result = CliRunner().invoke(app, ["admit", str(files), "--queues", str(dump), "-o", "json", *args])
    assert "Traceback" not in result.output
    if result.exit_code != 0:
        return result, {}
    items: dict[str, Any] = {}
    for item in json.loads(result.stdout)["items"]:
        items.setdefault(item["workload"]["name"], item)
    return result, items


def queue_resources() -> list[Any]:
    """The resource types Kueue and KAI serve, as the stand-in API server's discovery lists them."""
    from helpers.apiserver import FakeResource

    group = "kueue.x-k8s.io"
    return [
        FakeResource(group, "v1beta2", "clusterqueues", "clusterqueue", "ClusterQueue", False, ("cq",)),
        FakeResource(group, "v1beta2", "localqueues", "localqueue", "LocalQueue", True, ("queue", "queues", "lq")),
        FakeResource(group, "v1beta2", "resourceflavors", "resourceflavor", "ResourceFlavor", False, ("flavor", "rf")),
        FakeResource(group, "v1beta2", "cohorts", "cohort", "Cohort", False, ("co",)),
        FakeResource(group, "v1beta2", "topologies", "topology", "Topology", False),
        FakeResource(
            group, "v1beta2", "workloadpriorityclasses", "workloadpriorityclass", "WorkloadPriorityClass", False
        ),
        FakeResource(group, "v1beta2", "workloads", "workload", "Workload", True, ("wl",)),
        FakeResource("scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", False, ("pc",)),
        FakeResource("scheduling.run.ai", "v2", "queues", "queue", "Queue", False),
    ]
