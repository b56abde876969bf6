"""A workload's Kueue Workloads read as Kueue wrote them, and their topology assignment checked against the pods.

Kueue keeps its decision in its own ``Workload`` object (``kueue.x-k8s.io`` v1beta2, or v1beta1 where
only that is served): the PodSets its integration built and, once it reserved quota, the admission
(``status.admission``: the ClusterQueue, and per PodSet the flavors, the count and, for TAS, the
``topologyAssignment``). The objects are read by the admission stage's reader (``queued_workload``),
both encodings of the assignment included.

A workload's Workloads are those owned by it (an integration's Workload has the job as its
controller owner; a plain pod's and a pod group's, ``kueue.x-k8s.io/pod-group-name``, are owned by
the pods), else the ones its pods name in the ``kueue.x-k8s.io/workload`` annotation. A Workload's
pods are the namespace's pods carrying that annotation with its name (Kueue's index of pods by
Workload), so a pod group's audit counts every member, whichever pod is described.

The audit follows Kueue's TopologyUngater (``pkg/controller/tas/topology_ungater.go``): the pods of a
PodSet are the workload's pods labelled ``kueue.x-k8s.io/podset: <name>``, terminated ones left out
(``podsForPodSet``), and each assigned domain is to hold ``count`` of them; a pod's domain is its
node's label values at the assignment's levels (``utiltas.LevelValues``). ``matches`` is true when
every assigned pod is scheduled inside its domains and no domain holds more than assigned, false
when a pod runs outside them or a domain holds too many, null while pods are still unscheduled or
when nothing can be checked (no assignment, nodes not read).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import labels
from ..admission.objects import AdmittedPodSet, QueuedWorkload
from ..admission.parse import Reader, queued_workload
from ..errors import InputError
from ..values import JsonForm, mapping_at
from .objects import PodView, natural_key

__all__ = ["DomainPods", "PodSetAudit", "KueueWorkload", "kueue_workloads", "is_kueue_workload", "assigned_nodes"]


@dataclass(kw_only=True)
class DomainPods(JsonForm):
    """One domain of a topology assignment (or one the pods run in outside it).

    Attributes:
        values: the domain's value at each level of the assignment.
        assigned: pods Kueue assigned to it (0: a domain outside the assignment).
        scheduled: the PodSet's pods bound to nodes of this domain.
    """

    values: list[str]
    assigned: int
    scheduled: int


@dataclass(kw_only=True)
class PodSetAudit(JsonForm):
    """One PodSet of a Kueue Workload: what Kueue admitted and where its pods really run.

    Attributes:
        count: the PodSet's pods (the admitted count once admitted).
        flavors: the flavor of each resource (empty before admission).
        levels: the topology assignment's levels, null without one.
        domains: the assigned domains, with the pods scheduled in each.
        outside: domains the PodSet's pods run in that the assignment does not name.
        delayed_topology: ``Pending`` while a ProvisioningRequest's second pass has not assigned it.
        unscheduled_pods: the PodSet's pods not bound to a node yet.
        matches: see the module docstring; reason: why it is false or null.
    """

    name: str
    count: int
    flavors: dict[str, str] = field(default_factory=dict)
    levels: list[str] | None = None
    domains: list[DomainPods] = field(default_factory=list)
    outside: list[DomainPods] = field(default_factory=list)
    delayed_topology: str | None = None
    unscheduled_pods: int = 0
    matches: bool | None = None
    reason: str | None = None


@dataclass(kw_only=True)
class KueueWorkload(JsonForm):
    """A Kueue Workload of the described workload.

    Attributes:
        api_version: as the object came (``kueue.x-k8s.io/v1beta2`` or ``v1beta1``).
        queue: ``spec.queueName`` (the LocalQueue).
        cluster_queue: ``status.admission.clusterQueue`` (kubectl's "Reserved in").
        status: Kueue's word (``pkg/workload/workload.go`` ``Status``): pending, quotaReserved,
            admitted, finished.
        admitted: the Admitted condition is true.
        evicted: an Evicted condition is true.
        assigned_nodes: the nodes of its TAS assignments, as ``TASAssignedNodeNames`` gives them
            (admitted, lowest level ``kubernetes.io/hostname``).
    """

    name: str
    api_version: str
    queue: str | None = None
    cluster_queue: str | None = None
    status: str
    admitted: bool
    evicted: bool = False
    pod_sets: list[PodSetAudit] = field(default_factory=list)
    assigned_nodes: list[str] = field(default_factory=list)


def is_kueue_workload(obj: Mapping[str, Any]) -> bool:
    """Whether ``obj`` is a Kueue ``Workload`` (either served version)."""
    return obj.get("kind") == labels.KUEUE_WORKLOAD_KIND and str(obj.get("apiVersion") or "").startswith(
        labels.KUEUE_GROUP + "/"
    )


def assigned_nodes(workload: QueuedWorkload) -> list[str]:
    """The hostnames of an admitted Workload's TAS assignments, once each (``workload.TASAssignedNodeNames``).

    Only an Admitted Workload has them, and only assignments whose lowest level is
    ``kubernetes.io/hostname`` name nodes (``pkg/workload/workload_test.go`` ``TestUsedNodes``).
    """
    if not workload.admitted_condition:
        return []
    found: dict[str, None] = {}
    for assignment in workload.assignments:
        topology = assignment.topology
        if topology is None or not topology.levels or topology.levels[-1] != labels.HOSTNAME:
            continue
        for domain in topology.domains:
            found.setdefault(domain.values[-1])
    return sorted(found, key=natural_key)


def _domain_of(
    node: str, levels: Sequence[str], nodes: Mapping[str, Mapping[str, str]] | None
) -> tuple[str, ...] | None:
    """The node's values at ``levels`` (hostname: the label, else the node's name); None when it cannot be told."""
    node_labels = nodes.get(node) if nodes is not None else None
    values = []
    for level in levels:
        if node_labels is not None and level in node_labels:
            values.append(node_labels[level])
        elif level == labels.HOSTNAME:
            values.append(node)  # the kubelet's default hostname label is the node's name
        else:
            return None
    return tuple(values)


def _audit(
    assignment: AdmittedPodSet, pods: Sequence[PodView], nodes: Mapping[str, Mapping[str, str]] | None
) -> PodSetAudit:
    audit = PodSetAudit(
        name=assignment.name,
        count=assignment.count,
        flavors=dict(assignment.flavors),
        delayed_topology=assignment.delayed_topology,
    )
    topology = assignment.topology
    if topology is None:
        audit.reason = (
            "topology assignment pending (delayedTopologyRequest)"
            if assignment.delayed_topology == "Pending"
            else "no topology assignment"
        )
        return audit
    audit.levels = list(topology.levels)
    assigned: dict[tuple[str, ...], int] = {}
    for domain in topology.domains:
        assigned[domain.values] = assigned.get(domain.values, 0) + domain.count
    scheduled: dict[tuple[str, ...], int] = {}
    unknown: list[str] = []
    for pod in pods:
        if pod.node is None:
            audit.unscheduled_pods += 1
            continue
        values = _domain_of(pod.node, topology.levels, nodes)
        if values is None:
            unknown.append(pod.node)
            continue
        scheduled[values] = scheduled.get(values, 0) + 1
    audit.domains = [DomainPods(values=list(v), assigned=n, scheduled=scheduled.get(v, 0)) for v, n in assigned.items()]
    audit.outside = [
        DomainPods(values=list(v), assigned=0, scheduled=n)
        for v, n in sorted(scheduled.items(), key=lambda item: [natural_key(part) for part in item[0]])
        if v not in assigned
    ]
    over = [domain for domain in audit.domains if domain.scheduled > domain.assigned]
    if audit.outside or over:
        audit.matches = False
        problems = [f"{_pods(d.scheduled)} on {'/'.join(d.values)}, not an assigned domain" for d in audit.outside]
        problems += [f"{_pods(d.scheduled)} on {'/'.join(d.values)}, {d.assigned} assigned" for d in over]
        audit.reason = "; ".join(problems)
    elif unknown:
        audit.reason = f"pods on nodes not read: {', '.join(sorted(set(unknown), key=natural_key))}"
    elif sum(scheduled.values()) < topology.pods:
        audit.reason = f"{sum(scheduled.values())} of {topology.pods} assigned pods scheduled"
    else:
        audit.matches = True
    return audit


def _pods(count: int) -> str:
    return f"{count} pod" + ("" if count == 1 else "s")


def _belongs(body: Mapping[str, Any], uid: str, kind: str, name: str, named: set[str]) -> bool:
    """Whether a Workload object is the described workload's: owned by it, else named by its pods.

    Decided on the raw object, so only the workload's own Workloads are read whole (``get`` asks
    this for every row against every Workload of the namespace).
    """
    metadata = mapping_at(body, "metadata")
    owners = [owner for owner in metadata.get("ownerReferences") or () if isinstance(owner, Mapping)]
    if uid and any(owner.get("uid") == uid for owner in owners):
        return True
    if not any(owner.get("uid") for owner in owners) and any(
        (owner.get("kind"), owner.get("name")) == (kind, name) for owner in owners
    ):
        return True  # a dump without uids
    return str(metadata.get("name") or "") in named


def kueue_workloads(
    resource: Mapping[str, Any],
    workloads: Sequence[Mapping[str, Any]],
    pods: Sequence[PodView],
    nodes: Sequence[Mapping[str, Any]] | None,
    *,
    namespace_pods: Sequence[Mapping[str, Any]] = (),
    source: str = "Kueue Workloads",
) -> tuple[list[KueueWorkload], list[str]]:
    """The Kueue Workloads of ``resource`` with their admission and audit, and warnings for ones that do not read.

    Args:
        resource: the workload object.
        workloads: Kueue Workload objects of its namespace (others are fine: only its own are kept).
        pods: the workload's pods (as attributed to it).
        nodes: the cluster's Node objects (None: not read; hostname-level assignments are still checked
            against the pods' node names).
        namespace_pods: every pod of the namespace: those annotated with a Workload's name are its
            pods, as Kueue lists them (a plain-pod group's other members included).
        source: where the Workloads came from, for the warnings.
    """
    metadata = mapping_at(resource, "metadata")
    uid, name = str(metadata.get("uid") or ""), str(metadata.get("name") or "")
    namespace, kind = str(metadata.get("namespace") or "default"), str(resource.get("kind") or "")
    node_labels = None
    if nodes is not None:
        node_labels = {
            str(mapping_at(node, "metadata").get("name") or ""): {
                str(k): str(v) for k, v in mapping_at(mapping_at(node, "metadata"), "labels").items()
            }
            for node in nodes
        }
    found: list[KueueWorkload] = []
    warnings: list[str] = []
    named = {pod.annotations[labels.KUEUE_WORKLOAD] for pod in pods if labels.KUEUE_WORKLOAD in pod.annotations}
    for index, body in enumerate(workloads, 1):
        wl_metadata = mapping_at(body, "metadata")
        wl_name = str(wl_metadata.get("name") or "")
        if str(wl_metadata.get("namespace") or "default") != namespace or not _belongs(body, uid, kind, name, named):
            continue
        try:
            workload = queued_workload(Reader(source, f"{index} (Workload {wl_name})"), body, wl_name)
        except InputError as error:
            warnings.append(f"Kueue Workload {wl_name} not read: {error}")
            continue
        members = [
            PodView.from_dict(pod)
            for pod in namespace_pods
            if mapping_at(mapping_at(pod, "metadata"), "annotations").get(labels.KUEUE_WORKLOAD) == wl_name
            and str(mapping_at(pod, "metadata").get("namespace") or "default") == namespace
        ]
        found.append(_report(workload, str(body.get("apiVersion") or ""), members or pods, node_labels))
    found.sort(key=lambda item: natural_key(item.name))
    return found, warnings


def _report(
    workload: QueuedWorkload, api_version: str, pods: Sequence[PodView], nodes: Mapping[str, Mapping[str, str]] | None
) -> KueueWorkload:
    named = [pod for pod in pods if pod.annotations.get(labels.KUEUE_WORKLOAD) == workload.name]
    mine = [pod for pod in (named or pods) if pod.phase not in ("Succeeded", "Failed")]  # utilpod.IsTerminated
    assignments = workload.assignments or tuple(
        AdmittedPodSet(name=pod_set.name, count=pod_set.count) for pod_set in workload.pod_sets
    )
    labelled = any(labels.KUEUE_PODSET in pod.labels for pod in mine)
    pod_sets = []
    for assignment in assignments:
        if labelled:
            members = [pod for pod in mine if pod.labels.get(labels.KUEUE_PODSET) == assignment.name]
        else:
            members = mine if len(assignments) == 1 else []
        audit = _audit(assignment, members, nodes)
        if not workload.assignments:
            audit.reason = f"not admitted ({workload.status})"
        pod_sets.append(audit)
    return KueueWorkload(
        name=workload.name,
        api_version=api_version,
        queue=workload.queue_name,
        cluster_queue=workload.reserved_in,
        status=workload.status,
        admitted=workload.admitted_condition,
        evicted=workload.evicted,
        pod_sets=pod_sets,
        assigned_nodes=assigned_nodes(workload),
    )
