"""The topology request of each Kueue PodSet: written on its pod template, or derived from the gangs.

A pod template's ``kueue.x-k8s.io/podset-*`` annotations are read and validated as Kueue's
webhook does (``ValidateTASPodSetRequest``, ``ValidateSliceSizeAnnotationUpperBound`` and
``ValidatePodSetGroupingTopology`` in ``pkg/controller/jobframework/tas_validation.go``), plus
the checks Kueue's scheduler makes when it meets the topology (``findTopologyAssignment``: every
level must be one of the Topology's, a slice level must not be wider than the PodSet's) and the
KEP's rule that a slice size divides the PodSet's pod count. A bad request is a
:class:`~workloadmap.errors.PlacementError` naming the annotation.

A template without its own request gets the one wmap's Kueue export writes for it
(:func:`kueue_requests`): the gangs' required level, else their preferred level; equal SubGroups
of one component become slices; the templates of one LWS group form a PodSet group.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..errors import PlacementError
from ..labels import (
    KUEUE_GROUP_NAME,
    KUEUE_PREFERRED,
    KUEUE_REQUIRED,
    KUEUE_SLICE_CONSTRAINTS,
    KUEUE_SLICE_REQUIRED,
    KUEUE_SLICE_SIZE,
    KUEUE_UNCONSTRAINED,
)
from ..scheduling import PodScheduling
from ..tree import Component, PodGroup, WorkloadTree
from .kueue_model import KueuePodSet, KueueRequest, SliceLayer
from .policy import component_paths, find_path, group_pod_sets, subgroup_pod_sets
from .report import SliceFit, TopologyRef

__all__ = ["annotated_request", "kueue_requests", "kueue_pod_sets", "KueueUnit", "GangLevels", "GangsLevels"]


class GangLevels(Protocol):
    """What the requests read of a gang: its required and preferred levels and their sources.

    A :class:`~.report.GroupPlacement` has them, and so has the standalone analysis
    (:class:`~.analysis.GangFit`) a scheduler's rule reads before any placement is made.
    """

    @property
    def name(self) -> str:
        """The gang's name."""
        ...

    @property
    def required_level(self) -> str | None:
        """The level it must fit in, if any."""
        ...

    @property
    def required_source(self) -> str | None:
        """Where that requirement comes from."""
        ...

    @property
    def preferred_level(self) -> str | None:
        """The level it prefers, if any."""
        ...

    @property
    def preferred_source(self) -> str | None:
        """Where that preference comes from."""
        ...

    @property
    def sub_groups(self) -> Sequence[GangLevels]:
        """Its SubGroups (none for a SubGroup)."""
        ...


class GangsLevels(Protocol):
    """A workload's gangs on one topology, with its slices: a :class:`~.report.PlacementReport` or an analysis."""

    @property
    def topology(self) -> TopologyRef:
        """The topology's name and levels."""
        ...

    @property
    def pod_groups(self) -> Sequence[GangLevels]:
        """The PodGroups (or, without gangs, the components' pods), in order."""
        ...

    @property
    def slices(self) -> Sequence[SliceFit]:
        """Components whose replicas are several pods each."""
        ...


_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")
_MAX_LAYERS = 3


def _error(tree: WorkloadTree, component: Component, key: str | None, message: str) -> PlacementError:
    where: list[str | int] = list(component.template_path or [])
    where += ["metadata", "annotations"] + ([key] if key else [])
    return PlacementError(message, file=tree.source, document=str(tree.workload), field=where)


def _level(tree: WorkloadTree, component: Component, key: str, value: str, levels: Sequence[str]) -> str:
    if value not in levels:
        raise _error(tree, component, key, f"{value!r} is not a level of the topology; levels: {', '.join(levels)}")
    return value


def _size(tree: WorkloadTree, component: Component, key: str, raw: object, count: int) -> int:
    """A slice size: a whole number >= 1, at most the pod count, dividing it (Kueue webhook and KEP-2724)."""
    try:
        size = int(str(raw))
    except ValueError:
        raise _error(tree, component, key, f"slice size {raw!r} must be a numeric value") from None
    if size < 1:
        raise _error(tree, component, key, f"slice size {size} must be greater than or equal to 1")
    if size > count:
        raise _error(tree, component, key, f"slice size {size} must not be greater than pod set count {count}")
    if count % size:
        raise _error(tree, component, key, f"slice size {size} must evenly divide the pod set count {count}")
    return size


def _layers(tree: WorkloadTree, component: Component, count: int, levels: Sequence[str]) -> tuple[SliceLayer, ...]:
    """The slice layers: the two-annotation form or the multi-layer JSON form (mutually exclusive)."""
    annotations = component.topology_annotations
    key = KUEUE_SLICE_CONSTRAINTS
    if key not in annotations:
        has_level, has_size = KUEUE_SLICE_REQUIRED in annotations, KUEUE_SLICE_SIZE in annotations
        if has_level and not has_size:
            raise _error(tree, component, KUEUE_SLICE_SIZE, f"must be set when {KUEUE_SLICE_REQUIRED!r} is specified")
        if has_size and not has_level:
            raise _error(
                tree, component, KUEUE_SLICE_SIZE, f"may not be set when {KUEUE_SLICE_REQUIRED!r} is not specified"
            )
        if not has_level:
            return ()
        level = _level(tree, component, KUEUE_SLICE_REQUIRED, annotations[KUEUE_SLICE_REQUIRED], levels)
        return (SliceLayer(level, _size(tree, component, KUEUE_SLICE_SIZE, annotations[KUEUE_SLICE_SIZE], count)),)
    for other in (KUEUE_SLICE_REQUIRED, KUEUE_SLICE_SIZE):
        if other in annotations:
            raise _error(tree, component, key, f"may not be set when {other!r} is specified")
    try:
        raw = json.loads(annotations[key])
    except ValueError as error:
        raise _error(tree, component, key, f"must be a valid JSON array: {error}") from None
    if not isinstance(raw, list) or not 1 <= len(raw) <= _MAX_LAYERS:
        raise _error(tree, component, key, f"must be a JSON array of 1 to {_MAX_LAYERS} {{topology, size}} layers")
    layers: list[SliceLayer] = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("topology"), str):
            raise _error(tree, component, key, f"layer {index} must be {{topology: <level>, size: <pods>}}")
        level = _level(tree, component, key, entry["topology"], levels)
        if any(layer.level == level for layer in layers):
            raise _error(tree, component, key, f"layer {index}: level {level} is listed twice")
        size = _size(tree, component, key, entry.get("size"), layers[-1].size if layers else count)
        if layers and levels.index(level) <= levels.index(layers[-1].level):
            raise _error(tree, component, key, f"layer {index}: {level} must be narrower than {layers[-1].level}")
        layers.append(SliceLayer(level, size))
    return tuple(layers)


def annotated_request(
    tree: WorkloadTree, component: Component, count: int, levels: Sequence[str]
) -> KueueRequest | None:
    """The request written on a component's pod template, validated; None without one.

    Args:
        tree: the workload (for error locations).
        component: the component whose template carries the annotations.
        count: the pods of the PodSet (the slice size must divide it).
        levels: the topology's levels.

    Raises:
        PlacementError: a request Kueue would reject, naming the annotation.
    """
    annotations = component.topology_annotations
    present = [key for key in (KUEUE_REQUIRED, KUEUE_PREFERRED, KUEUE_UNCONSTRAINED) if key in annotations]
    slices_given = any(key in annotations for key in (KUEUE_SLICE_REQUIRED, KUEUE_SLICE_SIZE, KUEUE_SLICE_CONSTRAINTS))
    if not present and not slices_given and KUEUE_GROUP_NAME not in annotations:
        return None
    if len(present) > 1:
        raise _error(tree, component, None, f"must not contain more than one topology annotation: {', '.join(present)}")
    required = preferred = None
    unconstrained = False
    if KUEUE_REQUIRED in annotations:
        required = _level(tree, component, KUEUE_REQUIRED, annotations[KUEUE_REQUIRED], levels)
    if KUEUE_PREFERRED in annotations:
        preferred = _level(tree, component, KUEUE_PREFERRED, annotations[KUEUE_PREFERRED], levels)
    if KUEUE_UNCONSTRAINED in annotations:
        value = annotations[KUEUE_UNCONSTRAINED]
        if value not in _TRUE + _FALSE:
            raise _error(tree, component, KUEUE_UNCONSTRAINED, f"{value!r} must be a boolean value")
        unconstrained = value in _TRUE
    layers = _layers(tree, component, count, levels)
    group = annotations.get(KUEUE_GROUP_NAME)
    if group is not None:
        if group.isdigit():
            raise _error(tree, component, KUEUE_GROUP_NAME, f"{group!r} must not be a number")
        if slices_given:
            raise _error(tree, component, KUEUE_GROUP_NAME, "may not be set together with slice annotations")
        if required is None and preferred is None:
            raise _error(
                tree,
                component,
                KUEUE_GROUP_NAME,
                f"may not be set when neither {KUEUE_PREFERRED!r} nor {KUEUE_REQUIRED!r} is",
            )
    level = required or preferred
    if layers and level is not None and levels.index(layers[0].level) < levels.index(level):
        raise _error(
            tree,
            component,
            KUEUE_SLICE_REQUIRED,
            f"podset slice topology {layers[0].level} is above the podset topology {level}",
        )
    return KueueRequest(
        required=required,
        preferred=preferred,
        unconstrained=unconstrained,
        slices=layers,
        group=group,
        source="annotation",
    )


@dataclass
class _Wants:
    """What the gangs ask of each component's template."""

    levels: dict[str, list[tuple[str, str | None, str | None]]] = field(default_factory=dict)
    slices: dict[str, set[tuple[str, int]]] = field(default_factory=dict)
    groups: dict[str, str] = field(default_factory=dict)
    option: set[str] = field(default_factory=set)


def _components(pod_sets: Sequence) -> list[str]:
    seen: list[str] = []
    for pod_set in pod_sets:
        if pod_set.component not in seen:
            seen.append(pod_set.component)
    return seen


def _subgroup_slice(tree_group: PodGroup, placed: GangLevels, component: str) -> tuple[str, int] | None:
    """The slice a component's pods form in a gang: equal leaf SubGroups of only that component, one required level."""
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


def _gang_wants(tree: WorkloadTree, report: GangsLevels) -> _Wants:
    wants = _Wants()
    placed_groups = {group.name: group for group in report.pod_groups}
    if not tree.pod_groups:
        for group in report.pod_groups:
            if group.required_level:
                wants.levels.setdefault(group.name, []).append(
                    ("required", group.required_level, group.required_source)
                )
        return wants
    for tree_group in tree.pod_groups:
        placed = placed_groups.get(tree_group.name)
        if placed is None:
            continue
        components = _components(group_pod_sets(tree_group))
        for component in components:
            if placed.required_level:
                wants.levels.setdefault(component, []).append(
                    ("required", placed.required_level, placed.required_source)
                )
            else:
                wants.levels.setdefault(component, []).append(
                    ("preferred", placed.preferred_level, placed.preferred_source)
                )
            if "option" in (placed.required_source, placed.preferred_source):
                wants.option.add(component)
            found = _subgroup_slice(tree_group, placed, component)
            if found is not None:
                wants.slices.setdefault(component, set()).add(found)
        if tree.export_hints.kueue_pod_set_group and len(components) > 1:
            for component in components:
                wants.groups[component] = tree.workload.name
    return wants


def _derived(levels: Sequence[str], wants: _Wants, component: str) -> KueueRequest | None:
    """The request wmap's export writes for a component without one of its own."""
    wanted = wants.levels.get(component)
    if not wanted:
        return None
    chosen = _widest(levels, [level for _, level, _ in wanted])
    if chosen is None:
        return None
    sources = [source for _, level, source in wanted if level == chosen and source]
    source = "option" if "option" in sources else sources[0] if sources else "fit"
    if all(kind == "required" for kind, _, _ in wanted):
        request = KueueRequest(required=chosen, source=source)
    elif all(level is not None for _, level, _ in wanted):
        request = KueueRequest(preferred=chosen, source=source)
    else:
        return None
    choices = wants.slices.get(component, set())
    if len(choices) == 1:
        ((slice_level, size),) = choices
        if _narrower(levels, slice_level, chosen):
            request = replace(request, slices=(SliceLayer(slice_level, size),))
    group = wants.groups.get(component)
    return replace(request, group=group) if group else request


def kueue_requests(tree: WorkloadTree, report: GangsLevels) -> dict[str, KueueRequest]:
    """The topology request of every component with a pod template, as Kueue will see it.

    In this order: a level the caller gave (``--required``/``--preferred``) for a gang the
    component is in; the component's own ``podset-*`` annotations; what the gangs ask (a
    component in several gangs gets ``required`` only when every gang has a required level, the
    widest; else ``preferred``); equal SubGroups of only that component, all required at one
    level narrower than the component's, as slices; a multi-pod replica (a JobSet Job) required
    in an accelerator domain as its slice; and, since Kueue wants a level on every template once
    one has one, the widest level as a preference for the rest. A component left without any
    request is ``implied`` (Kueue places it unconstrained on a flavor with a topology).

    ``report`` is a :class:`~.report.PlacementReport` or the standalone analysis a rule reads
    (:class:`~.analysis.WorkloadAnalysis`): only the gangs' levels, their sources and the slices count.

    Raises:
        PlacementError: an annotated request Kueue would reject (see :func:`annotated_request`).
    """
    levels = list(report.topology.levels)
    wants = _gang_wants(tree, report)
    requests: dict[str, KueueRequest] = {}
    for path, component in component_paths(tree).items():
        if not component.has_pod_template:
            continue
        own = None if path in wants.option else annotated_request(tree, component, max(component.pods, 1), levels)
        derived = _derived(levels, wants, path) if own is None else None
        if own is not None:
            requests[path] = own
        elif derived is not None:
            requests[path] = derived
    for path in wants.levels:  # gangs may name pod sets of no known component (a tree built by hand)
        derived = _derived(levels, wants, path) if path not in requests else None
        if derived is not None:
            requests[path] = derived
    for fit in report.slices:
        request = requests.get(fit.component)
        if request is None or request.slices or request.source == "annotation" or not fit.required_level:
            continue
        if _narrower(levels, fit.required_level, request.level):
            requests[fit.component] = replace(request, slices=(SliceLayer(fit.required_level, fit.size),))
    if levels and any(request.level for request in requests.values()):
        for path, component in component_paths(tree).items():
            if component.has_pod_template and path not in requests:
                requests[path] = KueueRequest(preferred=levels[0], source="default")
    return _consistent_groups(requests)


def _consistent_groups(requests: dict[str, KueueRequest]) -> dict[str, KueueRequest]:
    """Drop a group wmap derived that Kueue's webhook would reject: not two members, or two levels."""
    levels: dict[str, list[tuple[str | None, str | None]]] = {}
    for request in requests.values():
        if request.group and request.source != "annotation":
            levels.setdefault(request.group, []).append((request.required, request.preferred))
    broken = {group for group, found in levels.items() if len(found) != 2 or len(set(found)) > 1}
    return {
        path: replace(request, group=None) if request.group in broken and request.source != "annotation" else request
        for path, request in requests.items()
    }


@dataclass
class KueueUnit:
    """One Kueue Workload: its PodSets in order, each with the report group it belongs to."""

    name: str
    pod_sets: list[tuple[str, KueuePodSet]] = field(default_factory=list)


def kueue_pod_sets(tree: WorkloadTree, report: GangsLevels, levels: Sequence[str]) -> list[KueueUnit]:
    """The Workloads Kueue makes of the tree and their PodSets, with validated requests.

    One Workload for the whole tree, its PodSets the components of each PodGroup in turn (a
    JobSet's replicatedJobs, a PyTorchJob's Master and Worker); one Workload per PodGroup when
    the definition says a group's templates form a PodSet group (a LeaderWorkerSet group, as
    Kueue's LWS integration does). Without PodGroups each component is a PodSet.

    Raises:
        PlacementError: an annotated request Kueue would reject.
    """
    requests = kueue_requests(tree, report)
    paths = component_paths(tree)
    units: list[KueueUnit] = []
    whole = KueueUnit(str(tree.workload))
    if not tree.pod_groups:
        for path, component in paths.items():
            pods = component.concurrent_pods
            if component.has_pod_template and pods > 0:
                entry = _pod_set(tree, path, component, pods, component.pod_resources, requests, levels)
                whole.pod_sets.append((path, entry))
        return [whole]
    for group in tree.pod_groups:
        unit = KueueUnit(group.name) if tree.export_hints.kueue_pod_set_group else whole
        counts: dict[str, int] = {}
        shapes: dict[str, dict] = {}
        for member in group_pod_sets(group):
            counts[member.component] = counts.get(member.component, 0) + member.count
            shapes.setdefault(member.component, dict(member.pod_resources))
        for path, count in counts.items():
            key = find_path(paths, path)
            found = paths[key] if key is not None else None
            if count > 0:
                unit.pod_sets.append((group.name, _pod_set(tree, path, found, count, shapes[path], requests, levels)))
        if unit is not whole:
            units.append(unit)
    return units or [whole]


def _pod_set(
    tree: WorkloadTree,
    path: str,
    component: Component | None,
    count: int,
    resources: Mapping[str, Any],
    requests: Mapping[str, KueueRequest],
    levels: Sequence[str],
) -> KueuePodSet:
    request = requests.get(path) or KueueRequest(implied=True)
    if request.source == "annotation" and component is not None:
        # Validate against this PodSet's own count (one LWS group's workers, say).
        request = annotated_request(tree, component, count, levels) or request
    scheduling = component.scheduling if component is not None else PodScheduling()
    return KueuePodSet(path, count, dict(resources), scheduling, request)


def _widest(levels: Sequence[str], candidates: Sequence[str | None]) -> str | None:
    known = [level for level in candidates if level in levels]
    return min(known, key=levels.index) if known else None


def _narrower(levels: Sequence[str], level: str | None, than: str | None) -> bool:
    if level is None or than is None or level not in levels or than not in levels:
        return False
    return levels.index(level) > levels.index(than)
