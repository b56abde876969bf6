"""KAI metadata of PodGroups (queue, priority, preemptibility), their count, and gang warnings.

Besides the gang, KAI's pod-grouper sets a queue, a priority class and a preemptibility on every
PodGroup; wmap also says how many PodGroups it makes and warns where it refuses or a gang can
never form.

The rules are those of KAI's default grouper (``pkg/podgrouper/podgrouper/plugins/defaultgrouper/
default_grouper.go``), which every plugin starts from:

- queue: the ``kai.scheduler/queue`` label of the workload, then of the pod, then the ``project``
  label (workload, then pod; ``<project>-<node-pool>`` when the pod carries
  ``kai.scheduler/node-pool``), then ``default-queue`` (``CalcPodGroupQueue``);
- priority class: the ``priorityClassName`` label of the workload, then of the pod, then the pod's
  ``spec.priorityClassName``, then the plugin's default: ``train``; ``inference`` for Deployments,
  Knative and SPOTRequests; ``build`` for Notebooks (``calcPodGroupPriorityClass``);
- preemptibility: the ``kai.scheduler/preemptibility`` label of the workload, then of the pod; else
  what the scheduler derives from the priority: non-preemptible at KAI's build priority (100) or
  above (``pkg/common/podgroup`` ``CalculatePreemptibility``). A class KAI does not install has a
  value wmap cannot know offline; its preemptibility stays unset.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .. import labels
from ..runtime_definitions import Definition
from ..tree import Grouping, PodGroup, Preemptibility
from ..values import mapping_at, truthy
from .context import EvaluationContext
from .expand import ExpandedComponent

__all__ = ["apply_kai_metadata", "grouping", "gang_warnings"]

_PREEMPTIBILITY_VALUES = frozenset(item.value for item in Preemptibility)
# bound once: reading a member off its Enum class costs ~70 ns on Python 3.11
_PREEMPTIBLE, _NON_PREEMPTIBLE = Preemptibility.PREEMPTIBLE, Preemptibility.NON_PREEMPTIBLE
_GANG, _PER_POD = Grouping.GANG, Grouping.PER_POD


def _labels(metadata: Mapping[str, Any]) -> Mapping[str, Any]:
    return mapping_at(metadata, "labels")


def _value(label_maps: Iterable[Mapping[str, Any]], key: str) -> str | None:
    """The first non-empty value of ``key`` among the label maps, in order."""
    for label_map in label_maps:
        value = label_map.get(key)
        if value not in (None, ""):
            return str(value)
    return None


def _templates(by_path: Mapping[str, ExpandedComponent], components: Iterable[str]) -> list[Mapping[str, Any]]:
    """The pod templates of these components (all of them when none is known)."""
    chosen = [by_path[path] for path in components if path in by_path] or list(by_path.values())
    return [
        node.template
        for node in chosen
        if node.template.__class__ is dict or isinstance(node.template, Mapping)  # the exact type first: cheaper
    ]


def _queue(everyone: list[Mapping[str, Any]], pods: list[Mapping[str, Any]]) -> str:
    """``everyone``: the owner's labels, then the pods'."""
    queue = _value(everyone, labels.KAI_QUEUE)
    if queue:
        return queue
    project = _value(everyone, labels.KAI_PROJECT)
    if project:
        pool = _value(pods, labels.KAI_NODE_POOL)
        return f"{project}-{pool}" if pool else project
    return labels.KAI_DEFAULT_QUEUE


def _gang_priority(context: EvaluationContext) -> str | None:
    """The class the operator puts on the gang itself (Grove: the PodGang's ``spec.priorityClassName``)."""
    gang = context.definition.gang
    if gang.priority_class_name is None:
        return None
    expression = gang.compiled("priority_class_name")
    resource = context.resource
    value = expression.search(resource, root=resource, refs=context.refs) if expression is not None else None
    return str(value) if isinstance(value, (str, int)) and value != "" else None


def _priority(
    owner: Mapping[str, Any],
    pods: list[Mapping[str, Any]],
    specs: list[Mapping[str, Any]],
    default: str,
    gang: str | None,
) -> str:
    named = _value([owner], labels.KAI_PRIORITY_CLASS) or gang or _value(pods, labels.KAI_PRIORITY_CLASS)
    return named or _value(specs, "priorityClassName") or default


def _preemptibility(everyone: list[Mapping[str, Any]], priority: str) -> Preemptibility | None:
    for label_map in everyone:
        value = label_map.get(labels.KAI_PREEMPTIBILITY)
        if value in _PREEMPTIBILITY_VALUES:
            return Preemptibility(value)
    number = labels.KAI_PRIORITY_VALUES.get(priority)
    if number is None:
        return None
    return _NON_PREEMPTIBLE if number >= labels.KAI_NON_PREEMPTIBLE_PRIORITY else _PREEMPTIBLE


def apply_kai_metadata(
    groups: Sequence[PodGroup], context: EvaluationContext, nodes: Sequence[ExpandedComponent]
) -> None:
    """Set queue, priority class and preemptibility on each PodGroup, from the pods it holds.

    Raises:
        ExpressionError: the definition's ``gang.priorityClassName`` failed on this resource.
    """
    if not groups:
        return
    owner = _labels(mapping_at(context.resource, "metadata"))
    gang = _gang_priority(context)
    default_priority = context.definition.gang.priority_class
    by_path = {node.path: node for root in nodes for node in root.walk() if node.template is not None}
    # Groups made of the same components get the same metadata: work it out once per set of components.
    known: dict[tuple[str, ...], tuple[str, str, Preemptibility | None]] = {}
    for group in groups:
        pod_sets = group.pod_sets or [pod_set for sub in group.sub_groups for pod_set in sub.pod_sets]
        key = tuple(dict.fromkeys(pod_set.component for pod_set in pod_sets))
        if key not in known:
            templates = _templates(by_path, key)
            pods = [_labels(mapping_at(template, "metadata")) for template in templates]
            specs = [mapping_at(template, "spec") for template in templates]
            priority = _priority(owner, pods, specs, default_priority, gang)
            everyone = [owner, *pods]
            known[key] = (_queue(everyone, pods), priority, _preemptibility(everyone, priority))
        queue, group.priority_class, group.preemptibility = known[key]
        group.queue = group.queue or queue  # a PodGroup the user made keeps its spec.queue (KAI: authoritative)


def grouping(definition: Definition, groups: Sequence[PodGroup], pods: int) -> tuple[Grouping, int]:
    """How KAI groups the pods, and how many PodGroups it makes (one per pod for ``perPod`` kinds)."""
    if definition.gang.per_pod_now():
        return _PER_POD, pods
    return _GANG, len(groups)


def gang_warnings(context: EvaluationContext, groups: Sequence[PodGroup]) -> list[str]:
    """The definition's warnings that hold, the kinds KAI has no plugin for, and gangs that cannot form."""
    definition, resource, refs = context.definition, context.resource, context.refs
    warnings = []
    for rule in definition.gang.warnings:
        if not rule.in_kai_release():
            continue
        expression = rule.compiled("when")
        if expression is not None and truthy(expression.search(resource, root=resource, refs=refs)):
            warnings.append(rule.message)
    if definition.gang.operator_gang and groups:
        warnings.append(
            f"KAI has no pod-grouper plugin for {definition.kind}: its default grouper makes one PodGroup of "
            f"minMember 1; the PodGroups shown are {definition.gang.operator_gang}"
        )
    for group in groups:
        if group.min_member > group.pods:
            warnings.append(
                f"PodGroup {group.name}: minMember {group.min_member} is more than its {group.pods} pods; "
                "the gang can never form"
            )
        for sub in group.sub_groups:
            if sub.pods and sub.min_member > sub.pods:
                warnings.append(
                    f"SubGroup {sub.name} of PodGroup {group.name}: minMember {sub.min_member} is more than its "
                    f"{sub.pods} pods; the gang can never form"
                )
    return warnings
