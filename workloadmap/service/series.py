"""Every series ``/metrics`` exports, declared once, and the samples of one interpreted workload.

The names and labels follow kube-state-metrics' conventions (``docs/design/metrics-best-practices.md``,
``internal/store/pod.go``): identity once in an ``_info`` series; the phase as a state set (one
series per phase, 1 for the current one); amounts with a ``resource`` label (every character
outside ``[a-zA-Z0-9_]`` replaced by ``_``, so ``nvidia.com/gpu`` is ``nvidia_com_gpu``) and a
``unit`` label (``core``, ``byte``, ``integer``) chosen as kube-state-metrics'
``toResourceUnitValue`` does; optional properties keep their label as ``""``.

A workload is identified by ``namespace``, ``kind``, ``group`` and ``name`` on every series. The
samples of a workload are computed once, when it is interpreted (:func:`workload_samples`); a
scrape only writes them out, so it costs no interpretation and never waits for the watch.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from ..live import ComponentStatus, DescribeReport, PodStatus
from ..runtime_definitions import Phase
from ..tree import Component, WorkloadTree

__all__ = [
    "Series",
    "WORKLOAD_SERIES",
    "HEALTH_SERIES",
    "Sample",
    "WORKLOAD_LABELS",
    "workload_samples",
    "resource_unit",
    "sanitized",
]

WORKLOAD_LABELS = ("namespace", "kind", "group", "name")
"""The labels that identify a workload on every per-workload series."""


@dataclass(frozen=True)
class Series:
    """One exported metric family: its name, help text, type and label names."""

    name: str
    help: str
    labels: tuple[str, ...]
    type: str = "gauge"


def _workload(name: str, help_text: str, *labels: str) -> Series:
    return Series(name, help_text, (*WORKLOAD_LABELS, *labels))


INFO = _workload("wmap_workload_info", "A workload wmap interprets: its definition and phase.", "definition", "phase")
PHASE = _workload("wmap_workload_phase", "The workload's normalized phase (1 for the current one).", "phase")
PODS = _workload(
    "wmap_workload_pods",
    "Pods of the workload: desired (declared scale), current (not finished), ready, scheduled (bound to a node).",
    "state",
)
REQUESTS = _workload(
    "wmap_workload_resource_requests",
    "Resources the workload requests at its declared scale, summed over its pods as wmap inspect sums them.",
    "resource",
    "unit",
)
COMPONENT_PODS = _workload(
    "wmap_component_pods", "Pods of a component (those of the components inside it included).", "component", "state"
)
COMPONENT_REQUESTS = _workload(
    "wmap_component_resource_requests",
    "Resources a component requests at the declared scale (those of the components inside it included).",
    "component",
    "resource",
    "unit",
)
GANG_MIN = _workload("wmap_gang_min_member", "Pods a gang (PodGroup) needs scheduled together.", "gang")
GANG_PODS = _workload("wmap_gang_pods", "Pods of a gang that are scheduled or ready.", "gang", "state")
GANG_COMPLETE = _workload("wmap_gang_complete", "1 when a gang has at least minMember pods scheduled, else 0.", "gang")
GANG_PLACEMENT = _workload(
    "wmap_gang_placement_satisfied",
    "1 when a gang's scheduled pods lie in one domain of the level it required or preferred, else 0 "
    "(wmap describe's placement audit; absent while no pod is scheduled).",
    "gang",
    "sub_group",
    "level",
)
POD_INFO = Series(
    "wmap_pod_workload_info",
    "A pod of a workload, with its component and gang: the join key from per-pod series to components.",
    ("namespace", "pod", "kind", "group", "name", "component", "gang"),
)

WORKLOAD_SERIES: tuple[Series, ...] = (
    INFO,
    PHASE,
    PODS,
    REQUESTS,
    COMPONENT_PODS,
    COMPONENT_REQUESTS,
    GANG_MIN,
    GANG_PODS,
    GANG_COMPLETE,
    GANG_PLACEMENT,
    POD_INFO,
)

HEALTH_SERIES: dict[str, Series] = {
    series.name: series
    for series in (
        Series("wmap_build_info", "The wmap version serving these metrics.", ("version",)),
        Series("wmap_ready", "1 once every watched resource type has been listed and interpreted.", ()),
        Series(
            "wmap_watch_events_total", "Watch events received, by resource type and event type.", ("resource", "type"),
            "counter",
        ),
        Series(
            "wmap_watch_restarts_total",
            "Watches started again: after a cut stream, a 410 Gone relist, or an error.",
            ("resource",),
            "counter",
        ),
        Series("wmap_cache_objects", "Objects held in the cache, by resource type.", ("resource",)),
        Series(
            "wmap_interpretation_errors_total",
            "Workloads whose interpretation failed, by kind (group/kind).",
            ("kind",),
            "counter",
        ),
        Series("wmap_interpretations_total", "Workloads interpreted (after a change of them or of their pods).", (),
               "counter"),
        Series("wmap_workloads", "Workloads interpreted in the current snapshot.", ()),
        Series("wmap_audits_pending", "Workloads whose placement audit is still to be made.", ()),
        Series("wmap_last_sync_timestamp_seconds", "When the cache last caught up with every watch event.", ()),
        Series("wmap_sync_age_seconds", "Seconds since the cache last caught up with every watch event.", ()),
    )
}  # fmt: skip

Sample = tuple[Series, tuple[str, ...], float]
"""One sample: its series, the label values (in the series' label order) and the value."""

_INVALID = re.compile(r"[^a-zA-Z0-9_]")


def sanitized(name: str) -> str:
    """A resource name as a label value the kube-state-metrics way (``nvidia.com/gpu`` -> ``nvidia_com_gpu``)."""
    return _INVALID.sub("_", name)


def resource_unit(resource: str) -> str | None:
    """kube-state-metrics' unit of a resource (``core``, ``byte``, ``integer``), None when it exports none.

    As ``toResourceUnitValue``: cpu in cores; memory, storage and ephemeral storage, huge pages and
    attachable volumes in bytes; pods and extended resources (a domain-prefixed name outside
    ``kubernetes.io/``, such as ``nvidia.com/gpu``) as integers.
    """
    if resource == "cpu":
        return "core"
    if resource in ("memory", "storage", "ephemeral-storage"):
        return "byte"
    if resource == "pods":
        return "integer"
    if resource.startswith(("hugepages-", "attachable-volumes-")):
        return "byte"
    prefix, slash, _ = resource.partition("/")
    if slash and "." in prefix and not prefix.endswith("kubernetes.io") and not resource.startswith("requests."):
        return "integer"
    return None


def _amounts(resources: dict[str, Fraction]) -> Iterator[tuple[str, str, float]]:
    for resource, amount in sorted(resources.items()):
        unit = resource_unit(resource)
        if unit is not None:
            yield sanitized(resource), unit, float(amount)


def _component_resources(component: Component) -> dict[str, Fraction]:
    total: dict[str, Fraction] = {}
    if component.has_pod_template:
        for resource, amount in component.pod_resources.items():
            total[resource] = total.get(resource, Fraction(0)) + amount * component.pods
    for child in component.components:
        for resource, amount in _component_resources(child).items():
            total[resource] = total.get(resource, Fraction(0)) + amount
    return total


def _scheduled(pod: PodStatus) -> bool:
    return bool(pod.node) and pod.phase not in ("Succeeded", "Failed")


def _component_rows(
    tree_components: list[Component], statuses: list[ComponentStatus], prefix: str
) -> Iterator[tuple[str, Component, ComponentStatus, list[PodStatus]]]:
    """(path, component, its live status, the pods of it and of the components inside it), depth first.

    describe builds the live components from the tree's, in the same order.
    """
    for component, status in zip(tree_components, statuses, strict=False):
        path = f"{prefix}/{component.name}" if prefix else component.name
        yield path, component, status, [pod for item in status.walk() for pod in item.pods]
        yield from _component_rows(component.components, status.components, path)


def workload_samples(identity: tuple[str, str, str, str], tree: WorkloadTree, report: DescribeReport) -> list[Sample]:
    """Every sample of one interpreted workload.

    Args:
        identity: ``(namespace, kind, group, name)``.
        tree: the workload's tree.
        report: describe's report on it (pods attributed, gangs, the placement audit).
    """
    samples: list[Sample] = [(INFO, (*identity, tree.definition, tree.phase.value), 1.0)]
    samples.extend((PHASE, (*identity, phase.value), 1.0 if phase is tree.phase else 0.0) for phase in Phase)
    all_pods = [pod for status in report.components for item in status.walk() for pod in item.pods]
    samples.append((PODS, (*identity, "desired"), float(tree.totals.pods)))
    if report.pods_read:
        current = sum(status.replicas.current or 0 for status in report.components)
        ready = sum(status.replicas.ready or 0 for status in report.components)
        samples.append((PODS, (*identity, "current"), float(current)))
        samples.append((PODS, (*identity, "ready"), float(ready)))
        samples.append((PODS, (*identity, "scheduled"), float(sum(1 for pod in all_pods if _scheduled(pod)))))
    samples.extend(
        (REQUESTS, (*identity, resource, unit), value) for resource, unit, value in _amounts(tree.totals.resources)
    )
    for path, component, status, pods in _component_rows(tree.components, report.components, ""):
        samples.append((COMPONENT_PODS, (*identity, path, "desired"), float(status.replicas.desired)))
        if report.pods_read:
            samples.append((COMPONENT_PODS, (*identity, path, "current"), float(status.replicas.current or 0)))
            samples.append((COMPONENT_PODS, (*identity, path, "ready"), float(status.replicas.ready or 0)))
            scheduled = sum(1 for pod in pods if _scheduled(pod))
            samples.append((COMPONENT_PODS, (*identity, path, "scheduled"), float(scheduled)))
        for resource, unit, value in _amounts(_component_resources(component)):
            samples.append((COMPONENT_REQUESTS, (*identity, path, resource, unit), value))
    samples.extend(_gang_samples(identity, tree, report, all_pods))
    samples.extend(_pod_samples(identity, tree, report))
    return samples


def _gang_samples(
    identity: tuple[str, str, str, str], tree: WorkloadTree, report: DescribeReport, pods: list[PodStatus]
) -> Iterator[Sample]:
    for group in tree.pod_groups:
        yield GANG_MIN, (*identity, group.name), float(group.min_member)
        if not report.pods_read:
            continue
        members = [pod for pod in pods if pod.gang == group.name]
        scheduled = sum(1 for pod in members if _scheduled(pod))
        yield GANG_PODS, (*identity, group.name, "scheduled"), float(scheduled)
        yield GANG_PODS, (*identity, group.name, "ready"), float(sum(1 for pod in members if pod.ready))
        yield GANG_COMPLETE, (*identity, group.name), 1.0 if scheduled >= group.min_member else 0.0
    for audit in report.placement.pod_groups if report.placement is not None else []:
        if audit.satisfied is None:
            continue
        level = audit.preferred_level or audit.required_level or ""
        labels = (*identity, audit.name, audit.sub_group or "", level)
        yield GANG_PLACEMENT, labels, 1.0 if audit.satisfied else 0.0


def _pod_samples(identity: tuple[str, str, str, str], tree: WorkloadTree, report: DescribeReport) -> Iterator[Sample]:
    namespace, kind, group, name = identity
    for path, _, status, _ in _component_rows(tree.components, report.components, ""):
        for pod in status.pods:
            yield POD_INFO, (namespace, pod.name, kind, group, name, path, pod.gang or ""), 1.0
    for pod in report.unattributed_pods:
        yield POD_INFO, (namespace, pod.name, kind, group, name, "", pod.gang or ""), 1.0
