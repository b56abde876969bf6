"""Live objects as the operators create them: owner chains, pod names and labels, nodes, events.

Each ``run_*`` method plays one operator's controller on a workload manifest, reading its spec
the way that controller does (not through wmap), and adds what the controller would create:

* JobSet -> Jobs ``<js>-<rjob>-<i>`` -> pods (kubernetes-sigs/jobset ``labelAndAnnotateObject``;
  the Job controller's ``batch.kubernetes.io/job-completion-index``);
* LeaderWorkerSet -> leader StatefulSet ``<lws>`` -> leader pods ``<lws>-<g>`` -> worker
  StatefulSets ``<lws>-<g>`` (owned by the leader pod) -> workers ``<lws>-<g>-<w>``
  (kubernetes-sigs/lws ``pod_webhook.go``, ``pod_controller.go``);
* RayCluster -> head and worker pods (KubeRay ``ray.io/node-type``, ``ray.io/group``);
* PyTorchJob -> pods ``<job>-<type>-<i>`` (training-operator ``CreateNewPod``);
* PodCliqueSet -> PodCliques ``<pcs>-<r>-<clique>`` and PodCliqueScalingGroups
  ``<pcs>-<r>-<sg>`` -> PodCliques ``<pcs>-<r>-<sg>-<j>-<clique>`` -> pods (ai-dynamo/grove
  ``namegen.go``, ``labels.go``, pod ``getLabels``).

Pods go to nodes through a placement function; ``None`` leaves a pod Pending with the
``PodScheduled=False/Unschedulable`` condition and the scheduler's message. UIDs and times are
deterministic.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Iterator
from typing import Any

Place = Callable[[str, dict], "str | None"]
"""Given a pod name and its labels, the node it runs on (None: Pending, unschedulable)."""

UNSCHEDULABLE = "0/8 nodes are available: 8 Insufficient nvidia.com/gpu. preemption: 0/8 nodes are available."


def _quantity_gpus(template: dict) -> int:
    total = 0
    for container in (template.get("spec") or {}).get("containers") or []:
        resources = container.get("resources") or {}
        value = (resources.get("limits") or {}).get("nvidia.com/gpu") or (resources.get("requests") or {}).get(
            "nvidia.com/gpu"
        )
        total += int(value or 0)
    return total


class LiveCluster:
    """Objects of one namespace (and the nodes), built as the operators would build them."""

    def __init__(self, namespace: str = "research") -> None:
        self.namespace = namespace
        self.objects: list[dict] = []
        self.nodes: list[dict] = []
        self.expected: dict[str, tuple[str, str | None]] = {}  # pod name -> (component, instance) it is
        self._uids = itertools.count(1)
        self._minute = itertools.count(0)

    # -- basics ------------------------------------------------------------------------------

    def uid(self) -> str:
        return f"00000000-0000-4000-8000-{next(self._uids):012d}"

    def time(self) -> str:
        minute = next(self._minute)
        return f"2026-05-01T{10 + minute // 60:02d}:{minute % 60:02d}:00Z"

    def node(self, name: str, labels: dict[str, str] | None = None, *, gpus: int = 4, ready: bool = True) -> dict:
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "uid": self.uid(), "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
            "status": {
                "allocatable": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": str(gpus), "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
            },
        }
        self.nodes.append(node)
        return node

    def nvl72_racks(self, racks: int, nodes_per_rack: int = 18, *, spines: int = 1) -> list[str]:
        """GB200 NVL72-style racks: 18 nodes x 4 GPUs, one Topograph accelerator domain per rack."""
        names = []
        for rack in range(racks):
            for index in range(nodes_per_rack):
                name = f"gb-r{rack}-n{index:02d}"
                self.node(
                    name,
                    {
                        "fabric.topograph.run/tier-1": f"spine-{rack % spines}",
                        "fabric.topograph.run/tier-0": f"leaf-{rack}",
                        "accelerator.topograph.run/domain": f"nvl72-{rack}",
                    },
                )
                names.append(name)
        return names

    def workload(self, manifest: dict) -> dict:
        obj = copy.deepcopy(manifest)
        metadata = obj.setdefault("metadata", {})
        metadata.setdefault("namespace", self.namespace)
        if "name" not in metadata and metadata.get("generateName"):
            metadata["name"] = f"{metadata['generateName']}x7k2q"  # the API server appends 5 random characters
        metadata["uid"] = self.uid()
        metadata.setdefault("creationTimestamp", self.time())
        self.objects.append(obj)
        return obj

    def owned(self, api_version: str, kind: str, name: str, owner: dict, labels: dict | None = None) -> dict:
        obj = {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {
                "name": name,
                "namespace": self.namespace,
                "uid": self.uid(),
                "creationTimestamp": self.time(),
                "labels": dict(labels or {}),
                "ownerReferences": [_reference(owner)],
            },
        }
        self.objects.append(obj)
        return obj

    def pod(
        self,
        name: str,
        owner: dict | None,
        labels: dict,
        template: dict | None,
        place: Place,
        *,
        annotations: dict | None = None,
        expect: tuple[str, str | None] | None = None,
    ) -> dict:
        spec = copy.deepcopy((template or {}).get("spec") or {"containers": [{"name": "main", "image": "x"}]})
        all_labels = {**((template or {}).get("metadata") or {}).get("labels", {}), **labels}
        node = place(name, all_labels)
        metadata: dict[str, Any] = {
            "name": name,
            "namespace": self.namespace,
            "uid": self.uid(),
            "creationTimestamp": self.time(),
            "labels": all_labels,
            "annotations": dict(annotations or {}),
        }
        if owner is not None:
            metadata["ownerReferences"] = [_reference(owner)]
        status: dict[str, Any]
        if node is None:
            status = {
                "phase": "Pending",
                "conditions": [
                    {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": UNSCHEDULABLE}
                ],
            }
        else:
            spec["nodeName"] = node
            status = {
                "phase": "Running",
                "conditions": [
                    {"type": "PodScheduled", "status": "True"},
                    {"type": "Ready", "status": "True"},
                ],
                "containerStatuses": [
                    {"name": c.get("name", "main"), "restartCount": 0, "ready": True, "state": {"running": {}}}
                    for c in spec.get("containers") or []
                ],
            }
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}
        if expect is not None:
            self.expected[name] = expect
        self.objects.append(pod)
        return pod

    def event(self, about: dict, reason: str, message: str, *, kind: str = "Normal", core: bool = False) -> dict:
        metadata = about["metadata"]
        regarding = {
            "apiVersion": about["apiVersion"],
            "kind": about["kind"],
            "name": metadata["name"],
            "namespace": metadata.get("namespace"),
            "uid": metadata["uid"],
        }
        name = f"{metadata['name']}.{next(self._uids):x}"
        when = self.time()
        if core:
            event = {
                "apiVersion": "v1",
                "kind": "Event",
                "involvedObject": regarding,
                "reason": reason,
                "message": message,
                "type": kind,
                "lastTimestamp": when,
                "firstTimestamp": when,
                "count": 1,
            }
        else:
            event = {
                "apiVersion": "events.k8s.io/v1",
                "kind": "Event",
                "regarding": regarding,
                "reason": reason,
                "note": message,
                "type": kind,
                "eventTime": when.replace("Z", ".000000Z"),
                "reportingController": "test",
                "action": reason,
            }
        event["metadata"] = {"name": name, "namespace": self.namespace, "uid": self.uid()}
        self.objects.append(event)
        return event

    def pods(self) -> list[dict]:
        return [obj for obj in self.objects if obj["kind"] == "Pod"]

    # -- operators ---------------------------------------------------------------------------

    def run_jobset(self, jobset: dict, place: Place) -> None:
        name = jobset["metadata"]["name"]
        for rjob in jobset["spec"]["replicatedJobs"]:
            job_spec = rjob["template"]["spec"]
            parallelism = job_spec.get("parallelism", 1)
            completions = job_spec.get("completions", parallelism)
            for index in range(rjob.get("replicas", 1)):
                labels = {
                    "jobset.sigs.k8s.io/jobset-name": name,
                    "jobset.sigs.k8s.io/replicatedjob-name": rjob["name"],
                    "jobset.sigs.k8s.io/job-index": str(index),
                    "jobset.sigs.k8s.io/replicatedjob-replicas": str(rjob.get("replicas", 1)),
                }
                job = self.owned("batch/v1", "Job", f"{name}-{rjob['name']}-{index}", jobset, labels)
                for completion in range(min(parallelism, completions)):
                    pod_labels = {
                        **labels,
                        "batch.kubernetes.io/job-name": job["metadata"]["name"],
                        "batch.kubernetes.io/job-completion-index": str(completion),
                    }
                    pod_name = f"{job['metadata']['name']}-{completion}-{_suffix(completion)}"
                    self.pod(
                        pod_name, job, pod_labels, job_spec["template"], place, expect=("replicatedJob", rjob["name"])
                    )

    def run_lws(self, lws: dict, place: Place) -> None:
        name = lws["metadata"]["name"]
        template = lws["spec"]["leaderWorkerTemplate"]
        size = template.get("size", 1)
        base = {"leaderworkerset.sigs.k8s.io/name": name}
        leader_sts = self.owned(
            "apps/v1", "StatefulSet", name, lws, {**base, "leaderworkerset.sigs.k8s.io/worker-index": "0"}
        )
        for group in range(lws["spec"].get("replicas", 1)):
            group_labels = {
                **base,
                "leaderworkerset.sigs.k8s.io/group-index": str(group),
                "leaderworkerset.sigs.k8s.io/group-key": f"key{group}",
            }
            leader = self.pod(
                f"{name}-{group}",
                leader_sts,
                {**group_labels, "leaderworkerset.sigs.k8s.io/worker-index": "0"},
                template.get("leaderTemplate") or template["workerTemplate"],
                place,
                expect=("leader", None),
            )
            if size > 1:
                workers = self.owned("apps/v1", "StatefulSet", f"{name}-{group}", leader, group_labels)
                for worker in range(1, size):
                    labels = {**group_labels, "leaderworkerset.sigs.k8s.io/worker-index": str(worker)}
                    self.pod(
                        f"{name}-{group}-{worker}",
                        workers,
                        labels,
                        template["workerTemplate"],
                        place,
                        expect=("worker", None),
                    )

    def run_raycluster(self, cluster: dict, place: Place, owner: dict | None = None) -> dict:
        name = cluster["metadata"]["name"]
        if owner is not None:  # RayJob / RayService create the RayCluster
            cluster = self.owned("ray.io/v1", "RayCluster", name, owner)
            spec = owner["spec"].get("rayClusterSpec") or owner["spec"].get("rayClusterConfig")
        else:
            spec = cluster["spec"]
        base = {"ray.io/cluster": name, "ray.io/is-ray-node": "yes", "app.kubernetes.io/created-by": "kuberay-operator"}
        self.pod(
            f"{name}-head-{_suffix(0)}",
            cluster,
            {**base, "ray.io/node-type": "head", "ray.io/group": "headgroup"},
            spec["headGroupSpec"]["template"],
            place,
            expect=("head", None),
        )
        for group in spec.get("workerGroupSpecs") or []:
            if group.get("suspended"):
                continue  # KubeRay deletes a suspended group's pods
            replicas = max(
                min(group.get("replicas", 0), group.get("maxReplicas", 1 << 31)), group.get("minReplicas", 0)
            )
            hosts = group.get("numOfHosts", 1)
            for replica in range(replicas):
                for host in range(hosts):
                    labels = {**base, "ray.io/node-type": "worker", "ray.io/group": group["groupName"]}
                    if hosts > 1:
                        labels["ray.io/worker-group-replica-index"] = str(replica)
                        labels["ray.io/replica-host-index"] = str(host)
                    pod_name = f"{name}-{group['groupName']}-worker-{_suffix(replica * hosts + host)}"
                    self.pod(
                        pod_name, cluster, labels, group["template"], place, expect=("workerGroup", group["groupName"])
                    )
        return cluster

    def run_pytorchjob(self, job: dict, place: Place) -> None:
        name = job["metadata"]["name"]
        for replica_type, spec in job["spec"]["pytorchReplicaSpecs"].items():
            kind = replica_type.lower()
            for index in range(spec.get("replicas", 1)):
                labels = {
                    "training.kubeflow.org/job-name": name,
                    "training.kubeflow.org/operator-name": "pytorchjob-controller",
                    "training.kubeflow.org/replica-type": kind,
                    "training.kubeflow.org/replica-index": str(index),
                }
                if kind == "master":
                    labels["training.kubeflow.org/job-role"] = "master"
                self.pod(f"{name}-{kind}-{index}", job, labels, spec["template"], place, expect=(kind, None))

    def run_podcliqueset(self, pcs: dict, place: Place) -> None:
        name = pcs["metadata"]["name"]
        template = pcs["spec"]["template"]
        cliques = {clique["name"]: clique for clique in template["cliques"]}
        groups = template.get("podCliqueScalingGroups") or []
        in_groups = {clique for group in groups for clique in group["cliqueNames"]}
        base = {"app.kubernetes.io/managed-by": "grove-operator", "app.kubernetes.io/part-of": name}
        for replica in range(pcs["spec"].get("replicas", 1)):
            gang = f"{name}-{replica}"
            for clique_name, clique in cliques.items():
                if clique_name in in_groups:
                    continue
                self._clique(
                    pcs,
                    f"{gang}-{clique_name}",
                    clique,
                    {**base, "grove.io/podcliqueset-replica-index": str(replica), "grove.io/podgang": gang},
                    place,
                    ("clique", clique_name),
                )
            for group in groups:
                sg_name = f"{gang}-{group['name']}"
                sg = self.owned("grove.io/v1alpha1", "PodCliqueScalingGroup", sg_name, pcs, base)
                for sg_replica in range(group.get("replicas", 1)):
                    podgang = (
                        gang
                        if sg_replica < group.get("minAvailable", 1)
                        else f"{sg_name}-{sg_replica - group.get('minAvailable', 1)}"
                    )
                    labels = {
                        **base,
                        "grove.io/podcliqueset-replica-index": str(replica),
                        "grove.io/podgang": podgang,
                        "grove.io/podcliquescalinggroup": sg_name,
                        "grove.io/podcliquescalinggroup-replica-index": str(sg_replica),
                    }
                    for clique_name in group["cliqueNames"]:
                        self._clique(
                            sg,
                            f"{sg_name}-{sg_replica}-{clique_name}",
                            cliques[clique_name],
                            labels,
                            place,
                            ("groupClique", clique_name),
                        )

    def _clique(
        self, owner: dict, clique_name: str, clique: dict, labels: dict, place: Place, expect: tuple[str, str]
    ) -> None:
        clique_obj = self.owned("grove.io/v1alpha1", "PodClique", clique_name, owner, labels)
        for index in range(clique["spec"].get("replicas", 1)):
            pod_labels = {**labels, "grove.io/podclique": clique_name, "grove.io/podclique-pod-index": str(index)}
            template = {"metadata": {"labels": clique.get("labels") or {}}, "spec": clique["spec"]["podSpec"]}
            self.pod(f"{clique_name}-{_suffix(index)}", clique_obj, pod_labels, template, place, expect=expect)


def _reference(owner: dict) -> dict:
    metadata = owner["metadata"]
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": metadata["name"],
        "uid": metadata["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _suffix(index: int) -> str:
    letters = "bcdfghjklmnpqrstvwxz"
    return "".join(letters[(index * 7 + shift) % len(letters)] for shift in range(5))


def fill(nodes: list[str], per_node: int = 1, *, pending_after: int | None = None) -> Place:
    """Place pods in order, ``per_node`` to a node; pods beyond ``pending_after`` stay Pending."""
    counter = itertools.count()

    def place(_name: str, _labels: dict) -> str | None:
        index = next(counter)
        if pending_after is not None and index >= pending_after:
            return None
        slot = index // per_node
        return nodes[slot] if slot < len(nodes) else None

    return place


def sequence(assignments: Iterator[str | None] | list[str | None]) -> Place:
    """Place pods on the given nodes in turn (None: Pending)."""
    iterator = iter(assignments)
    return lambda _name, _labels: next(iterator)
