"""The Workloads Kueue makes of a given workload, with the PodSets its integration builds.

The PodSets are wmap's (:func:`~workloadmap.placement.kueue_pod_sets`): one Kueue Workload per
workload, its PodSets the components of each gang; one per LeaderWorkerSet group. Their topology
requests are the ones written on the pod templates (``kueue.x-k8s.io/podset-*``), as Kueue reads
them: what wmap would derive from the gangs is not Kueue's until it is written there. The
queue, priority class and creation time come from the workload object: the
``kueue.x-k8s.io/queue-name`` label (else the namespace's ``default`` LocalQueue), the
``kueue.x-k8s.io/priority-class`` label (else the ``default`` WorkloadPriorityClass, else the
first pod template's ``priorityClassName``; ``jobframework.ExtractPriority``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import labels
from ..placement import TopologyRef, WorkloadAnalysis, component_paths, kueue_pod_sets
from ..tree import WorkloadTree
from ..values import mapping_at
from .amounts import to_amount
from .objects import QueuedPodSet

__all__ = ["Submission", "submissions", "pod_set_name", "uses_kai"]

# Integrations whose only PodSet Kueue names ``main`` (``kueue.DefaultPodSetName``): batch Job
# (jobs/job/job_controller.go), Pod (jobs/pod), StatefulSet and the pods of a Deployment.
_DEFAULT_NAMED = {("batch", "Job"), ("", "Pod"), ("apps", "StatefulSet"), ("apps", "Deployment")}
_LWS = ("leaderworkerset.x-k8s.io", "LeaderWorkerSet")


@dataclass
class Submission:
    """One Kueue Workload of a given workload.

    Attributes:
        group: the Kueue Workload's name when the workload makes several (an LWS group), else None.
        labels: the workload object's labels (queue name, priority class).
        created: ``metadata.creationTimestamp``; None for a workload not yet created (it queues last).
        priority_class_name: the first pod template's ``priorityClassName``.
        position: the order the workloads were given in (ties of priority and time).
    """

    tree: WorkloadTree
    group: str | None
    namespace: str
    labels: dict[str, str]
    created: str | None
    pod_sets: tuple[QueuedPodSet, ...]
    priority_class_name: str | None = None
    position: int = 0
    body: Any = field(default=None, repr=False)

    @property
    def key(self) -> str:
        """``namespace/Kind/name`` (and ``/group``) for messages."""
        base = f"{self.namespace}/{self.tree.workload}"
        return f"{base}/{self.group}" if self.group else base


def _template(body: Any, path: Sequence[str | int] | None) -> Mapping[str, Any]:
    node: Any = body
    for part in path or ():
        if isinstance(part, int) and isinstance(node, list) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(part, str) and isinstance(node, Mapping):
            node = node.get(part)
        else:
            return {}
    return node if isinstance(node, Mapping) else {}


def _levels(tree: WorkloadTree, levels: Sequence[str]) -> list[str]:
    """The Topologies' levels, then any level a template names that none has (Kueue refuses the flavor instead)."""
    found = list(levels)
    for component in component_paths(tree).values():
        for key, value in component.topology_annotations.items():
            if key in (labels.KUEUE_REQUIRED, labels.KUEUE_PREFERRED, labels.KUEUE_SLICE_REQUIRED):
                if value not in found:
                    found.append(value)
    return found


def pod_set_name(tree: WorkloadTree, path: str, single: bool) -> str:
    """The PodSet's name as Kueue's integration gives it: ``main``, else the component's own name.

    A JobSet's replicatedJob, a Kubeflow replica type in lower case, an LWS ``leader`` and
    ``worker`` (``main`` without a leader template: ``leaderworkerset_reconciler.go`` ``podSets``).
    """
    group = tree.workload.api_version.rpartition("/")[0]
    if (group, tree.workload.kind) in _DEFAULT_NAMED or (single and (group, tree.workload.kind) == _LWS):
        return labels.KUEUE_DEFAULT_POD_SET
    return path.rsplit("/", 1)[-1].lower()


def submissions(tree: WorkloadTree, body: Any, levels: Sequence[str], position: int = 0) -> list[Submission]:
    """The Kueue Workloads of ``tree`` (read from ``body``), with PodSets as Kueue's integration builds them.

    Args:
        tree: the inspected workload.
        body: the workload object (labels, creation time, pod templates).
        levels: the levels of the dump's Topologies (to read the templates' topology requests).
        position: where the workload stands among those given (order of equal priority and time).

    Raises:
        PlacementError: a ``podset-*`` annotation Kueue's webhook would reject.
    """
    metadata = mapping_at(body, "metadata") if isinstance(body, Mapping) else {}
    object_labels = {str(k): str(v) for k, v in mapping_at(metadata, "labels").items()}
    namespace = tree.workload.namespace or "default"
    all_levels = _levels(tree, levels)
    # The gangs' own levels are not needed here: the PodSets' requests come from the tree's annotations.
    gangs = WorkloadAnalysis(
        workload=tree.workload, topology=TopologyRef(name="queues", levels=all_levels), pod_groups=(), slices=()
    )
    paths = component_paths(tree)
    class_name = None
    for component in paths.values():
        spec = mapping_at(_template(body, component.template_path), "spec")
        if component.has_pod_template and spec.get("priorityClassName"):
            class_name = str(spec["priorityClassName"])
            break
    found = []
    for unit in kueue_pod_sets(tree, gangs, all_levels):
        pod_sets = []
        for _, pod_set in unit.pod_sets:
            request = pod_set.topology
            explicit = request.source == "annotation" and bool(
                request.required or request.preferred or request.unconstrained or request.slices
            )
            pod_sets.append(
                QueuedPodSet(
                    name=pod_set_name(tree, pod_set.name, len(unit.pod_sets) == 1),
                    count=pod_set.count,
                    request={
                        name: to_amount(name, amount)
                        for name, amount in pod_set.request.items()
                        if amount > 0 and name != "pods"
                    },
                    scheduling=pod_set.scheduling,
                    explicit_tas=explicit,
                    tas_level=request.level if explicit else None,
                    group=request.group if request.source == "annotation" else None,
                )
            )
        group = unit.name if unit.name != str(tree.workload) else None
        created = metadata.get("creationTimestamp")
        found.append(
            Submission(
                tree,
                group,
                namespace,
                object_labels,
                str(created) if created else None,
                tuple(pod_sets),
                class_name,
                position,
                body,
            )  # fmt: skip
        )
    return found


def uses_kai(tree: WorkloadTree, body: Any) -> bool:
    """Whether the workload's pods name KAI Scheduler (``schedulerName: kai-scheduler``)."""
    for component in component_paths(tree).values():
        spec = mapping_at(_template(body, component.template_path), "spec")
        if component.has_pod_template and spec.get("schedulerName") == labels.KAI_SCHEDULER_NAME:
            return True
    return False
