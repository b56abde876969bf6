"""Kueue topology-aware scheduling: a ``Topology`` plus the workload with podset annotations.

Kueue reads ``kueue.x-k8s.io/podset-*`` annotations from pod templates, and once one template
carries a required or preferred level every template must carry one. Reference the Topology from
a ResourceFlavor's ``spec.topologyName`` to enable TAS.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import PlacementError, format_path
from ..labels import (
    KUEUE_GROUP_NAME,
    KUEUE_PREFERRED,
    KUEUE_REQUIRED,
    KUEUE_SLICE_CONSTRAINTS,
    KUEUE_SLICE_REQUIRED,
    KUEUE_SLICE_SIZE,
    KUEUE_TOPOLOGY_API_VERSION,
    KUEUE_UNCONSTRAINED,
)
from ..placement import KueueRequest, PlacementReport, component_paths, kueue_requests
from ..tree import WorkloadTree
from .common import (
    ExportRequest,
    TemplatePaths,
    annotations_of,
    applyable_copy,
    dns_name,
    report_levels,
    topology_object,
)
from .registry import exporter

__all__ = ["kueue_topology", "kueue_annotations", "kueue_annotated_workload", "export_kueue"]

_TOPOLOGY_KEYS = (
    KUEUE_REQUIRED,
    KUEUE_PREFERRED,
    KUEUE_UNCONSTRAINED,
    KUEUE_SLICE_REQUIRED,
    KUEUE_SLICE_SIZE,
    KUEUE_SLICE_CONSTRAINTS,
    KUEUE_GROUP_NAME,
)


def kueue_topology(levels: Sequence[str], name: str) -> dict[str, Any]:
    """A Kueue ``Topology`` (``kueue.x-k8s.io/v1beta2``).

    Raises:
        TopologyError: no levels, more than 16, repeats, or hostname not last.
    """
    return topology_object(KUEUE_TOPOLOGY_API_VERSION, levels, name)


def _annotations(request: KueueRequest, tree: WorkloadTree) -> dict[str, str]:
    """A PodSet's request written as Kueue's pod-template annotations."""
    entry: dict[str, str] = {}
    if request.group:
        entry[KUEUE_GROUP_NAME] = request.group if request.source == "annotation" else dns_name(request.group)
    if request.required:
        entry[KUEUE_REQUIRED] = request.required
    elif request.preferred:
        entry[KUEUE_PREFERRED] = request.preferred
    elif request.unconstrained:
        entry[KUEUE_UNCONSTRAINED] = "true"
    if len(request.slices) == 1:
        entry[KUEUE_SLICE_REQUIRED] = request.slices[0].level
        entry[KUEUE_SLICE_SIZE] = str(request.slices[0].size)
    elif request.slices:
        layers = [{"topology": layer.level, "size": layer.size} for layer in request.slices]
        entry[KUEUE_SLICE_CONSTRAINTS] = json.dumps(layers, separators=(",", ":"))
    return entry


def kueue_annotations(tree: WorkloadTree, report: PlacementReport) -> dict[str, dict[str, str]]:
    """Kueue pod-template annotations per component path: the requests placement gave each PodSet.

    See :func:`~workloadmap.placement.kueue_requests`: a component keeps the request written on
    its template (unless ``--required``/``--preferred`` overrode it); otherwise it gets
    ``podset-required-topology`` when every gang it belongs to has a required level (the widest
    of them), else ``podset-preferred-topology`` with the widest preferred level; templates
    that form one PodSet group (LWS leader and workers) share ``podset-group-name``; equal
    SubGroups of one component required at a narrower level, or multi-pod replicas required in
    an accelerator domain, become ``podset-slice-required-topology`` with ``podset-slice-size``;
    and since Kueue wants a level on every template once one has it, the others get
    ``podset-preferred-topology`` at the widest level.

    Raises:
        PlacementError: a request on a template that Kueue would reject.
    """
    annotations = {}
    for component, request in kueue_requests(tree, report).items():
        entry = _annotations(request, tree)
        if entry:
            annotations[component] = entry
    return annotations


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
        annotations = annotations_of(template, path)
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
