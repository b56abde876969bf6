"""KAI Scheduler's queue quota for a gang, as the proportion plugin checks it before allocating.

Per PodGroup (``pkg/scheduler/plugins/proportion/capacity_policy``), walking from the gang's
leaf queue up through every parent:

* ``OverLimit`` (``max_allowed_check.go``): a resource the gang requests whose ``limit`` is not
  -1 and below the queue's allocation plus the request; the gang waits;
* ``NonPreemptibleOverQuota`` (``quota_check.go``): a non-preemptible gang (priority 100 or more,
  or the label) whose request would take the queue's non-preemptible allocation above its
  deserved ``quota``; it waits;
* otherwise quota does not stop it: within the deserved quota all along the path it is safe
  from reclaim (``withinQuota``), above it it runs over quota and may be reclaimed
  (``overQuota``; KAI's docs/fairness/README.md).

The request is the gang's minimum (``GetTasksToAllocate``: ``minMember`` pods of each SubGroup);
resources are KAI's three: CPU in millicores, memory in bytes (the Queue's megabytes times 10^6),
GPUs. The allocation is the Queue's ``status.allocated`` / ``status.allocatedNonPreemptible``
(the queue controller sums a queue's children into it), else the running pods given, summed
to their queue and its parents. Messages are KAI's (``pkg/scheduler/api/unschedule_info.go``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .. import labels
from ..placement import Verdict, group_pod_sets, place, subgroup_pod_sets
from ..resources import count_gpus, pod_demand
from ..topology import Cluster
from ..tree import PodGroup, Preemptibility, WorkloadTree
from ..values import mapping_at
from .dump import QueueState
from .objects import KAI_RESOURCES, KaiQueue
from .report import AdmissionReport, AdmissionVerdict, KaiQuota, PodSetAdmission, WorkloadAdmission, WorkloadKey

__all__ = ["admit_kai", "humanize"]

_NAMES = {"cpu": "CPU", "memory": "Memory", "gpu": "GPU"}
_UNLIMITED = -1.0


def humanize(value: float, unit: float) -> str:
    """``HumanizeResource``: ``Unlimited`` for -1, else at most 3 decimals, trailing zeros dropped."""
    if value == _UNLIMITED:
        return "Unlimited"
    text = f"{value / unit:.3f}".rstrip("0").rstrip(".")
    return text or "0"


def _go_float(value: float) -> str:
    """Go's ``%v`` of a float64 for the values these messages print."""
    return str(int(value)) if float(value).is_integer() else repr(value)


def over_limit_message(queue: str, resource: str, limit: float, used: float, requested: float) -> str:
    """``GetJobOverMaxAllowedMessageForQueue``."""
    name, unit, word = {
        "gpu": ("GPUs", 1, "GPUs"),
        "cpu": ("CPU cores", 1000, "cores"),
        "memory": ("memory", 1e9, "GB"),
    }[resource]
    details = (
        f"Limit is {humanize(limit, unit)} {word}, currently {humanize(used, unit)} {word} allocated and workload "
        f"requested {humanize(requested, unit)} {word}"
    )
    return f"{queue} quota has reached the allowable limit of {name}. {details}"


def over_quota_message(queue: str, resource: str, deserved: float, used: float, requested: Mapping[str, float]) -> str:
    """``GetBuildOverCapacityMessageForQueue``."""
    if resource == "gpu":
        details = (
            f"Workload requested {_go_float(requested['gpu'])} GPUs, but {queue} quota is "
            f"{humanize(deserved, 1)} GPUs, "
            f"while {humanize(used, 1)} GPUs are already allocated for non-preemptible pods."
        )
    elif resource == "cpu":
        details = (
            f"Workload requested {humanize(requested['cpu'], 1000)} CPU cores, but {queue} quota is "
            f"{humanize(deserved, 1000)} cores, while {humanize(used, 1000)} cores are already allocated for "
            "non-preemptible pods."
        )
    else:
        details = (
            f"Workload requested {humanize(requested['memory'], 1e9)} GB memory, but {queue} quota is "
            f"{humanize(deserved, 1e9)} GB, while {humanize(used, 1e9)} GB are already allocated for "
            "non-preemptible pods."
        )
    return f"Non-preemptible workload is over quota. {details} Use a preemptible workload to go over quota."


def _kai_request(resources: Mapping[str, Any], gpu_resources: Sequence[str]) -> dict[str, float]:
    return {
        "cpu": float(Fraction(resources.get("cpu", 0)) * 1000),
        "memory": float(Fraction(resources.get("memory", 0))),
        "gpu": float(count_gpus(resources, gpu_resources)),
    }


def gang_request(group: PodGroup, gpu_resources: Sequence[str]) -> tuple[dict[str, float], int]:
    """The resources of the gang's first allocation: ``minMember`` pods of each leaf SubGroup (or of the group)."""
    total = {name: 0.0 for name in KAI_RESOURCES}
    parents = {sub.parent for sub in group.sub_groups}
    parts = [
        (sub.min_member, subgroup_pod_sets(group, sub.name)) for sub in group.sub_groups if sub.name not in parents
    ]
    if not parts:
        parts = [(group.min_member, group_pod_sets(group))]
    pods = 0
    for wanted, pod_sets in parts:
        for pod_set in pod_sets:
            take = min(wanted, pod_set.count)
            wanted -= take
            pods += take
            for name, value in _kai_request(pod_set.pod_resources, gpu_resources).items():
                total[name] += value * take
    return total, pods


@dataclass
class _Usage:
    allocated: dict[str, dict[str, float]] = field(default_factory=dict)
    non_preemptible: dict[str, dict[str, float]] = field(default_factory=dict)

    def add(self, queues: Mapping[str, KaiQueue], leaf: str, request: Mapping[str, float], preemptible: bool) -> None:
        """Allocation counts in the queue and every parent (``proportion.go`` ``updateQueuesCurrentResourceUsage``)."""
        name: str | None = leaf
        seen: set[str] = set()
        while name is not None and name in queues and name not in seen:
            seen.add(name)
            for kind, amount in request.items():
                self.allocated.setdefault(name, dict.fromkeys(KAI_RESOURCES, 0.0))[kind] += amount
                if not preemptible:
                    self.non_preemptible.setdefault(name, dict.fromkeys(KAI_RESOURCES, 0.0))[kind] += amount
            name = queues[name].parent


def _usage(state: QueueState, pods: Sequence[Mapping[str, Any]], gpu_resources: Sequence[str]) -> _Usage:
    """Queue status where the dump has it, else the running pods given (bound, KAI's, by their queue label)."""
    usage = _Usage()
    queues = state.kai_queues
    for pod in pods:
        spec, status = mapping_at(pod, "spec"), mapping_at(pod, "status")
        pod_labels = mapping_at(mapping_at(pod, "metadata"), "labels")
        queue = pod_labels.get(labels.KAI_QUEUE)
        if not spec.get("nodeName") or queue not in queues or status.get("phase") in ("Succeeded", "Failed"):
            continue
        request = _kai_request(pod_demand(spec).requests, gpu_resources)
        preemptible = pod_labels.get(labels.KAI_PREEMPTIBILITY)
        if preemptible is None:
            preemptible = (
                "preemptible" if int(spec.get("priority") or 0) < labels.KAI_NON_PREEMPTIBLE_PRIORITY else "no"
            )
        usage.add(queues, str(queue), request, preemptible == "preemptible")
    for name, queue in queues.items():
        if queue.allocated is not None:
            usage.allocated[name] = dict(queue.allocated)
        if queue.allocated_non_preemptible is not None:
            usage.non_preemptible[name] = dict(queue.allocated_non_preemptible)
    return usage


def _path(queues: Mapping[str, KaiQueue], leaf: str) -> list[KaiQueue]:
    found, seen = [], set()
    name: str | None = leaf
    while name is not None and name in queues and name not in seen:
        seen.add(name)
        found.append(queues[name])
        name = queues[name].parent
    return found


def _check(
    path: Sequence[KaiQueue], usage: _Usage, request: Mapping[str, float], non_preemptible: bool | None
) -> tuple[AdmissionVerdict, str, str | None, bool]:
    """(verdict, reason, message, within deserved quota along the whole path)."""
    for queue in path:
        allocated = usage.allocated.get(queue.name, {})
        for resource in KAI_RESOURCES:
            limit, wanted = queue.resources[resource].limit, request[resource]
            if limit != _UNLIMITED and wanted > 0 and limit < allocated.get(resource, 0.0) + wanted:
                used = allocated.get(resource, 0.0)
                message = over_limit_message(queue.name, resource, limit, used, wanted)
                return AdmissionVerdict.PENDING, "OverLimit", message, False
    for queue in path:
        allocated = usage.non_preemptible.get(queue.name, {})
        for resource in KAI_RESOURCES:
            deserved, wanted = queue.resources[resource].quota, request[resource]
            if deserved != _UNLIMITED and wanted > 0 and deserved < allocated.get(resource, 0.0) + wanted:
                if non_preemptible is None:
                    message = "the gang's priority class is not one KAI installs: whether it is preemptible is unknown"
                    return AdmissionVerdict.UNKNOWN, "", message, False
                if non_preemptible:
                    used = allocated.get(resource, 0.0)
                    message = over_quota_message(queue.name, resource, deserved, used, request)
                    return AdmissionVerdict.PENDING, "NonPreemptibleOverQuota", message, False
    within = all(
        queue.resources[r].quota == _UNLIMITED
        or request[r] == 0
        or usage.allocated.get(queue.name, {}).get(r, 0.0) + request[r] <= queue.resources[r].quota
        for queue in path
        for r in KAI_RESOURCES
    )
    return AdmissionVerdict.ADMITTED, "", None, within


def _scale(value: float, unit: float) -> float:
    return value if value == _UNLIMITED else round(value / unit, 3)


def _figures(queue: KaiQueue, usage: _Usage, request: Mapping[str, float]) -> list[KaiQuota]:
    """The leaf queue's figures in KAI's message units: cores, GB, GPUs."""
    units = {"cpu": 1000.0, "memory": 1e9, "gpu": 1.0}
    figures = []
    for resource in KAI_RESOURCES:
        unit, spec = units[resource], queue.resources[resource]
        allocated = usage.allocated.get(queue.name, {}).get(resource, 0.0)
        values = [_scale(value, unit) for value in (spec.quota, spec.limit, allocated, request[resource])]
        figures.append(KaiQuota(resource, *values))
    return figures


def _physical(
    tree: WorkloadTree, cluster: Cluster | None, before: list[WorkloadTree]
) -> dict[str, tuple[Verdict, str | None]]:
    """Each PodGroup's fit on the free nodes (the cluster's nodes already count its running pods)."""
    if cluster is None:
        return {}
    report = place(tree, cluster, policy="kai", before=before)
    return {group.name: (group.verdict, group.reason) for group in report.pod_groups}


def _decide_group(
    state: QueueState, usage: _Usage, tree: WorkloadTree, group: PodGroup, fit: tuple[Verdict, str | None] | None
) -> WorkloadAdmission:
    queue = group.queue or labels.KAI_DEFAULT_QUEUE
    request, _pods = gang_request(group, tree.gpu_resources)
    item = WorkloadAdmission(
        workload=WorkloadKey(tree.workload.kind, tree.workload.namespace or "default", tree.workload.name),
        local_queue=None, cluster_queue=None, verdict=AdmissionVerdict.UNKNOWN, scheduler="kai", queue=queue,
        group=group.name if len(tree.pod_groups) > 1 else None,
        pod_sets=[PodSetAdmission(pod_set.component, pod_set.count) for pod_set in group_pod_sets(group)],
    )  # fmt: skip
    queues = state.kai_queues
    if queue not in queues:
        item.verdict, item.reason = AdmissionVerdict.INADMISSIBLE, "QueueDoesNotExist"
        item.reasons = [f"Queue '{queue}' does not exist"]
        return item
    children = sorted(name for name, other in queues.items() if other.parent == queue)
    if children:
        item.verdict = AdmissionVerdict.INADMISSIBLE
        item.reasons = [f"queue {queue} has child queues ({', '.join(children)}): only leaf queues take jobs"]
        return item
    preemptibility = group.preemptibility
    non_preemptible = None if preemptibility is None else preemptibility is Preemptibility.NON_PREEMPTIBLE
    verdict, reason, message, within = _check(_path(queues, queue), usage, request, non_preemptible)
    item.queue_figures = _figures(queues[queue], usage, request)
    item.verdict, item.reason = verdict, reason
    item.reasons = [message] if message else []
    if verdict is not AdmissionVerdict.ADMITTED:
        return item
    item.quota = "withinQuota" if within else "overQuota"
    item.reasons = [
        "within the deserved quota of every queue on its path: not reclaimable"
        if within
        else "over its queues' deserved quota: runs on free capacity and may be reclaimed"
    ]
    if fit is not None and fit[0] is not Verdict.FITS:
        item.verdict = AdmissionVerdict.UNKNOWN if fit[0] is Verdict.UNKNOWN else AdmissionVerdict.PENDING
        item.reasons.append(f"the free nodes do not hold the gang now: {fit[1] or 'no room'}")
    return item


def admit_kai(
    trees: Sequence[WorkloadTree],
    state: QueueState,
    *,
    cluster: Cluster | None = None,
    pods: Sequence[Mapping[str, Any]] = (),
) -> AdmissionReport:
    """KAI's queue verdict for every gang of the workloads, taken in the order given.

    Each gang admitted (within or over quota) adds its request to its queues' allocation before
    the next is checked. With ``cluster`` (whose nodes already count the running pods), a gang
    that passes quota must also fit the free nodes (wmap's KAI placement); KAI's reclaim and
    preemption to make room are not modelled. ``pods`` give the queues' allocation where the
    Queue objects carry no status.
    """
    report = AdmissionReport()
    usage = _usage(state, pods, trees[0].gpu_resources if trees else ())
    if not any(queue.allocated is not None for queue in state.kai_queues.values()) and not pods:
        report.notes.append("no Queue status and no --pods: the queues' current allocation is taken as zero")
    admitted: list[WorkloadTree] = []
    for tree in trees:
        if not tree.pod_groups:
            item = WorkloadAdmission(
                WorkloadKey(tree.workload.kind, tree.workload.namespace or "default", tree.workload.name),
                None, None, AdmissionVerdict.UNKNOWN, scheduler="kai",
                reasons=["KAI makes one PodGroup per pod of this workload: per-pod queue checks are not modelled"],
            )  # fmt: skip
            report.items.append(item)
            continue
        fits = _physical(tree, cluster, admitted)
        placed = False
        for group in tree.pod_groups:
            item = _decide_group(state, usage, tree, group, fits.get(group.name))
            report.items.append(item)
            if item.verdict is AdmissionVerdict.ADMITTED and item.queue is not None:
                request, _ = gang_request(group, tree.gpu_resources)
                non_preemptible = group.preemptibility is Preemptibility.NON_PREEMPTIBLE
                usage.add(state.kai_queues, item.queue, request, not non_preemptible)
                placed = True
        if placed:
            admitted.append(tree)
    return report
