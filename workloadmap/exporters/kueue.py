"""Kueue topology-aware scheduling: a ``Topology`` plus the workload with podset annotations.

Kueue reads ``kueue.x-k8s.io/podset-*`` annotations from pod templates, and once one template
carries a required or preferred level every template must carry one. Reference the Topology from
a ResourceFlavor's ``spec.topologyName`` to enable TAS.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import PlacementError, format_path
from ..labels import (
    KUEUE_GROUP_NAME,
    KUEUE_PREFERRED,
    KUEUE_REQUIRED,
    KUEUE_SLICE_REQUIRED,
    KUEUE_SLICE_SIZE,
    KUEUE_TOPOLOGY_API_VERSION,
    KUEUE_UNCONSTRAINED,
)
from ..placement import GroupPlacement, PlacementReport, component_paths, group_pod_sets, subgroup_pod_sets
from ..tree import PodGroup, PodSet, WorkloadTree
from .common import ExportRequest, TemplatePaths, applyable_copy, dns_name, report_levels, topology_object, widest
from .registry import exporter

__all__ = ["kueue_topology", "kueue_annotations", "kueue_annotated_workload", "export_kueue"]

_TOPOLOGY_KEYS = (KUEUE_REQUIRED, KUEUE_PREFERRED, KUEUE_UNCONSTRAINED, KUEUE_SLICE_REQUIRED, KUEUE_SLICE_SIZE)


def kueue_topology(levels: Sequence[str], name: str) -> dict[str, Any]:
    """A Kueue ``Topology`` (``kueue.x-k8s.io/v1beta2``).

    Raises:
        TopologyError: no levels, more than 16, repeats, or hostname not last.
    """
    return topology_object(KUEUE_TOPOLOGY_API_VERSION, levels, name)


def _components(pod_sets: Sequence[PodSet]) -> list[str]:
    seen: list[str] = []
    for pod_set in pod_sets:
        if pod_set.component not in seen:
            seen.append(pod_set.component)
    return seen


@dataclass
class _Wants:
    """What the gangs ask of each component's template, before the annotations are written."""

    levels: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)
    slices: dict[str, set[tuple[str, int]]] = field(default_factory=dict)
    groups: dict[str, str] = field(default_factory=dict)


def _subgroup_slice(tree_group: PodGroup, placed: GroupPlacement, component: str) -> tuple[str, int] | None:
    """The slice a component's pods form in a gang, if they form one.

    That is: equal leaf SubGroups of only that component, covering all of its pods, all required
    at one level.
    """
    parents = {sub.parent for sub in tree_group.sub_groups}
    own = [(sub, subgroup_pod_sets(tree_group, sub.name)) for sub in tree_group.sub_groups if sub.name not in parents]
    own = [(sub, sets) for sub, sets in own if sets and _components(sets) == [component]]
    total = sum(pod_set.count for pod_set in group_pod_sets(tree_group) if pod_set.component == component)
    sizes = {sum(pod_set.count for pod_set in sets) for _, sets in own}
    covered = sum(sum(pod_set.count for pod_set in sets) for _, sets in own)
    placed_subs = {sub.name: sub for sub in placed.sub_groups}
    required = {placed_subs[sub.name].required_level for sub, _ in own if sub.name in placed_subs}
    if len(own) >= 2 and len(sizes) == 1 and covered == total and len(required) == 1 and None not in required:
        (size,) = sizes
        (level,) = required
        return level, size  # type: ignore[return-value]  # None was excluded above
    return None


def _gang_wants(tree: WorkloadTree, report: PlacementReport) -> _Wants:
    wants = _Wants()
    placed_groups = {group.name: group for group in report.pod_groups}
    if not tree.pod_groups:
        for group in report.pod_groups:
            if group.required_level:
                wants.levels.setdefault(group.name, []).append(("required", group.required_level))
        return wants
    for tree_group in tree.pod_groups:
        placed = placed_groups.get(tree_group.name)
        if placed is None:
            continue
        components = _components(group_pod_sets(tree_group))
        for component in components:
            kind = "required" if placed.required_level else "preferred"
            wants.levels.setdefault(component, []).append((kind, placed.required_level or placed.preferred_level))
            found = _subgroup_slice(tree_group, placed, component)
            if found is not None:
                wants.slices.setdefault(component, set()).add(found)
        if tree.export_hints.kueue_pod_set_group and len(components) > 1:
            for component in components:
                wants.groups[component] = dns_name(tree.workload.name)
    return wants


def _narrower(levels: Sequence[str], level: str | None, than: str | None) -> bool:
    """Whether ``level`` is a level below ``than`` (both must be levels)."""
    if level is None or than is None or level not in levels or than not in levels:
        return False
    return levels.index(level) > levels.index(than)


def kueue_annotations(tree: WorkloadTree, report: PlacementReport) -> dict[str, dict[str, str]]:
    """Kueue pod-template annotations per component path.

    * A component gets ``podset-required-topology`` when every gang it belongs to has a required
      level (the widest of them), else ``podset-preferred-topology`` with the widest preferred
      level of those gangs.
    * Templates a definition says form one PodSet group (LWS leader and workers) share
      ``podset-group-name`` so Kueue fits them into one domain together.
    * When a component's pods in a gang are split into SubGroups made only of that component, of
      equal size that divides its pod count, all with one required level narrower than the
      component's, the component gets ``podset-slice-required-topology`` and
      ``podset-slice-size``.
    * A component whose replicas are several pods each (see ``PlacementReport.slices``) and whose
      one replica is required to stay in an accelerator domain gets that level as
      ``podset-slice-required-topology`` with ``podset-slice-size`` = the replica's pods.
    * Kueue requires a level on every template once one has it: components left without one get
      ``podset-preferred-topology`` at the widest level (the loosest preference).
    """
    levels = report_levels(report)
    wants = _gang_wants(tree, report)
    annotations: dict[str, dict[str, str]] = {}
    for component, group_name in wants.groups.items():
        annotations.setdefault(component, {})[KUEUE_GROUP_NAME] = group_name
    for component, wanted in wants.levels.items():
        entry = annotations.setdefault(component, {})
        chosen = widest(levels, [level for _, level in wanted])
        if all(kind == "required" for kind, _ in wanted) and chosen:
            entry[KUEUE_REQUIRED] = chosen
        elif all(level is not None for _, level in wanted) and chosen:
            entry[KUEUE_PREFERRED] = chosen
        level = entry.get(KUEUE_REQUIRED) or entry.get(KUEUE_PREFERRED)
        choices = wants.slices.get(component, set())
        if len(choices) == 1:
            ((slice_level, size),) = choices
            if _narrower(levels, slice_level, level):
                entry[KUEUE_SLICE_REQUIRED] = slice_level
                entry[KUEUE_SLICE_SIZE] = str(size)
    # A component made of multi-pod replicas (a JobSet Job, a Ray multi-host replica) whose one
    # replica must stay inside an accelerator domain gets that as its slice requirement, when the
    # podset-level requirement is wider. The slice size is the replica's pod count.
    for fit in report.slices:
        entry = annotations.get(fit.component) or {}
        if not entry or KUEUE_SLICE_REQUIRED in entry or not fit.required_level:
            continue
        if _narrower(levels, fit.required_level, entry.get(KUEUE_REQUIRED) or entry.get(KUEUE_PREFERRED)):
            entry[KUEUE_SLICE_REQUIRED] = fit.required_level
            entry[KUEUE_SLICE_SIZE] = str(fit.size)
    if levels and any(KUEUE_REQUIRED in entry or KUEUE_PREFERRED in entry for entry in annotations.values()):
        for path, component_model in component_paths(tree).items():
            if component_model.has_pod_template:
                entry = annotations.setdefault(path, {})
                if KUEUE_REQUIRED not in entry and KUEUE_PREFERRED not in entry:
                    entry[KUEUE_PREFERRED] = levels[0]
    return {component: entry for component, entry in annotations.items() if entry}


def _template_path(
    tree: WorkloadTree, component: str, template_paths: TemplatePaths | None
) -> Sequence[str | int] | None:
    if template_paths is not None:
        return template_paths.get(component)
    found = component_paths(tree).get(component)
    return found.template_path if found is not None else None


def _descend(obj: Any, path: Sequence[str | int], component: str) -> dict[str, Any]:
    node = obj
    for segment in path:
        try:
            node = node[segment]
        except (KeyError, IndexError, TypeError):
            raise PlacementError(
                f"pod template of component {component!r} not found at {format_path(path)}", field=list(path)
            ) from None
    if not isinstance(node, dict):
        raise PlacementError(f"pod template of component {component!r} is not a mapping", field=list(path))
    return node


def kueue_annotated_workload(
    obj: Mapping[str, Any],
    tree: WorkloadTree,
    report: PlacementReport,
    *,
    template_paths: TemplatePaths | None = None,
) -> dict[str, Any]:
    """A copy of the workload object with Kueue TAS annotations on its pod templates.

    ``template_paths`` maps component paths to the PodTemplateSpec inside ``obj`` (see
    :data:`~workloadmap.exporters.common.TemplatePaths`); without it each component's
    ``template_path`` is used. Existing ``podset-*-topology`` annotations on a template are
    replaced (they are mutually exclusive in Kueue).

    Raises:
        PlacementError: a component's template cannot be located.
    """
    result = applyable_copy(obj)
    for component, wanted in kueue_annotations(tree, report).items():
        path = _template_path(tree, component, template_paths)
        if path is None:
            raise PlacementError(f"no pod template path known for component {component!r}", field=component)
        template = _descend(result, path, component)
        metadata = template.setdefault("metadata", {})
        annotations = metadata.get("annotations") or {}
        metadata["annotations"] = annotations
        for key in _TOPOLOGY_KEYS:
            annotations.pop(key, None)
        annotations.update(wanted)
    return result


@exporter("kueue")
def export_kueue(request: ExportRequest) -> list[dict[str, Any]]:
    """The Kueue ``Topology`` followed by the annotated workload (when the object is given)."""
    objects = [kueue_topology(report_levels(request.report), request.topology_name)]
    if request.obj is not None:
        objects.append(
            kueue_annotated_workload(request.obj, request.tree, request.report, template_paths=request.template_paths)
        )
    return objects
