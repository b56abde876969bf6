"""Turn a placement report into scheduler inputs: KAI, Kueue, Volcano objects and a demand summary.

Every exporter returns a list of plain dicts (Kubernetes objects, or for ``demand`` a summary
document) ready for ``yaml.safe_dump_all`` / ``json.dumps``. Workload objects passed in are
deep-copied, never modified.

Facts these follow (see the scheduler reference): KAI and Kueue ``Topology`` levels are node-label
keys, widest first, ``kubernetes.io/hostname`` only as the last level, 1 to 16 levels. KAI reads
``kai.scheduler/topology*`` annotations from the workload's top-level metadata; Kueue reads
``kueue.x-k8s.io/podset-*`` annotations from pod templates, and once one template carries a
required or preferred level every template must carry one. Volcano HyperNode tier 1 is the level
just above hostname; a higher tier is a wider level.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from .errors import PlacementError
from .placement import (
    KAI_PREFERRED_ANNOTATION,
    KAI_REQUIRED_ANNOTATION,
    KAI_TOPOLOGY_ANNOTATION,
    KUEUE_GROUP_ANNOTATION,
    KUEUE_PREFERRED_ANNOTATION,
    KUEUE_REQUIRED_ANNOTATION,
    GroupPlacement,
    PlacementReport,
    component_paths,
    group_pod_sets,
    subgroup_pod_sets,
)
from .quantities import parse_quantity
from .resources import DEFAULT_GPU_RESOURCES, add_resources, format_resources
from .topology import HOSTNAME_LABEL, Cluster
from .tree import PodSet, WorkloadTree

__all__ = [
    "EXPORT_TARGETS",
    "KUEUE_SLICE_REQUIRED_ANNOTATION",
    "KUEUE_SLICE_SIZE_ANNOTATION",
    "TemplatePaths",
    "dns_name",
    "kai_topology",
    "kai_podgroups",
    "kai_annotated_workload",
    "kai_export",
    "kueue_topology",
    "kueue_annotations",
    "kueue_annotated_workload",
    "kueue_export",
    "volcano_tiers",
    "volcano_hypernodes",
    "volcano_network_topology",
    "volcano_export",
    "demand",
    "export",
]

KUEUE_SLICE_REQUIRED_ANNOTATION = "kueue.x-k8s.io/podset-slice-required-topology"
KUEUE_SLICE_SIZE_ANNOTATION = "kueue.x-k8s.io/podset-slice-size"

KAI_TOPOLOGY_API = "kai.scheduler/v1alpha1"
KAI_PODGROUP_API = "scheduling.run.ai/v2alpha2"
KUEUE_TOPOLOGY_API = "kueue.x-k8s.io/v1beta2"
VOLCANO_HYPERNODE_API = "topology.volcano.sh/v1alpha1"
VOLCANO_PODGROUP_API = "scheduling.volcano.sh/v1beta1"
DEMAND_API = "wmap.dev/v1alpha1"

EXPORT_TARGETS: tuple[str, ...] = ("kai", "kai-annotations", "kueue", "volcano", "demand")

TemplatePaths = Mapping[str, Sequence["str | int"]] | Callable[[str], "Sequence[str | int] | None"]
"""Where each component's PodTemplateSpec sits inside the workload object: component path
(``group/worker``) -> path segments (``["spec", "replicatedJobs", 0, "template", "spec",
"template"]``), as a mapping or a callable."""

_MAX_LEVELS = 16


def dns_name(text: str, *, limit: int = 63) -> str:
    """A lower-case DNS label made from ``text`` (invalid characters become ``-``).

    When characters had to change or the text is too long, a short hash of the original keeps
    distinct inputs distinct.
    """
    slug = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-") or "x"
    if slug != text or len(slug) > limit:
        digest = hashlib.sha1(text.encode()).hexdigest()[:6]
        slug = f"{slug[: limit - 7].rstrip('-')}-{digest}"
    return slug


def _check_levels(levels: Sequence[str]) -> list[str]:
    levels = list(levels)
    if not levels:
        raise PlacementError("the topology has no levels; a Topology needs 1 to 16", field="levels")
    if len(levels) > _MAX_LEVELS:
        raise PlacementError(f"the topology has {len(levels)} levels; a Topology allows at most 16", field="levels")
    if len(set(levels)) != len(levels):
        raise PlacementError("topology levels repeat", field="levels")
    if HOSTNAME_LABEL in levels[:-1]:
        raise PlacementError(f"{HOSTNAME_LABEL} may only be the last topology level", field="levels")
    return levels


def _topology(api_version: str, levels: Sequence[str], name: str) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": "Topology",
        "metadata": {"name": name},
        "spec": {"levels": [{"nodeLabel": level} for level in _check_levels(levels)]},
    }


def _default_topology_name(report: PlacementReport) -> str:
    return dns_name(str(report.topology.get("name") or "default"))


def _levels(report: PlacementReport) -> list[str]:
    return list(report.topology.get("levels") or [])


def _metadata(tree: WorkloadTree, name: str) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if tree.workload.namespace:
        metadata["namespace"] = tree.workload.namespace
    metadata["labels"] = {"app.kubernetes.io/managed-by": "wmap"}
    return metadata


# ------------------------------------------------------------------------------------------ KAI


def kai_topology(levels: Sequence[str], name: str) -> dict[str, Any]:
    """A KAI ``Topology`` (``kai.scheduler/v1alpha1``, cluster-scoped) with these levels.

    Raises:
        PlacementError: no levels, more than 16, repeats, or hostname not last.
    """
    return _topology(KAI_TOPOLOGY_API, levels, name)


def _kai_constraint(group: GroupPlacement, topology: str, *, always: bool) -> dict[str, str] | None:
    constraint = {"topology": topology}
    if group.required_level:
        constraint["requiredTopologyLevel"] = group.required_level
    if group.preferred_level:
        constraint["preferredTopologyLevel"] = group.preferred_level
    return constraint if always or len(constraint) > 1 else None


def kai_podgroups(
    tree: WorkloadTree, report: PlacementReport, *, topology: str, queue: str | None = None
) -> list[dict[str, Any]]:
    """KAI ``PodGroup`` objects (``scheduling.run.ai/v2alpha2``), one per gang of the report.

    ``spec.minMember`` is the gang's minMember (at least 1), ``spec.topologyConstraint`` carries the
    required and preferred levels, ``spec.subGroups`` the SubGroups with their own constraints.
    Pods join by the annotation ``pod-group-name`` and the label ``kai.scheduler/subgroup-name``,
    which whoever creates the pods must set. Pods without a gang get no PodGroup (KAI makes one
    per pod itself).
    """
    objects = []
    for group in report.pod_groups:
        if not group.gang:
            continue
        spec: dict[str, Any] = {"minMember": max(group.min_member, 1)}
        if queue:
            spec["queue"] = queue
        spec["topologyConstraint"] = _kai_constraint(group, topology, always=True)
        subgroups = []
        for sub in group.sub_groups:
            entry: dict[str, Any] = {"name": sub.name}
            if sub.min_member >= 1:
                entry["minMember"] = sub.min_member
            if sub.parent:
                entry["parent"] = sub.parent
            constraint = _kai_constraint(sub, topology, always=False)
            if constraint:
                entry["topologyConstraint"] = constraint
            subgroups.append(entry)
        if subgroups:
            spec["subGroups"] = subgroups
        objects.append(
            {
                "apiVersion": KAI_PODGROUP_API,
                "kind": "PodGroup",
                "metadata": _metadata(tree, dns_name(group.name, limit=253)),
                "spec": spec,
            }
        )
    return objects


def _widest(levels: Sequence[str], candidates: Sequence[str | None]) -> str | None:
    known = [level for level in candidates if level in levels]
    return min(known, key=levels.index) if known else None


def _workload_levels(report: PlacementReport) -> tuple[str | None, str | None]:
    """One required and one preferred level for constraints that apply to every PodGroup alike.

    Required only when every gang has one (the widest, so each still fits); preferred the widest
    preferred level among the gangs.
    """
    levels = _levels(report)
    gangs = [group for group in report.pod_groups if group.gang] or report.pod_groups
    required = None
    if gangs and all(group.required_level for group in gangs):
        required = _widest(levels, [group.required_level for group in gangs])
    preferred = _widest(levels, [group.preferred_level for group in gangs])
    if any(group.preferred_level is None for group in gangs):
        preferred = None
    return required, preferred


# Server-populated fields: an object meant for `kubectl apply` leaves them out.
_SERVER_METADATA = ("resourceVersion", "uid", "generation", "creationTimestamp", "managedFields", "selfLink")


def _applyable_copy(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of a workload without its status and server-populated metadata."""
    result = copy.deepcopy(dict(obj))
    result.pop("status", None)
    metadata = result.get("metadata")
    if isinstance(metadata, dict):
        for key in _SERVER_METADATA:
            metadata.pop(key, None)
    return result


def kai_annotated_workload(obj: Mapping[str, Any], report: PlacementReport, *, topology: str) -> dict[str, Any]:
    """A copy of the workload object with KAI topology annotations on its top-level metadata.

    KAI's pod-grouper reads ``kai.scheduler/topology``, ``…-required-placement`` and
    ``…-preferred-placement`` from the top owner only, and applies them to every PodGroup it
    builds; SubGroup constraints cannot be expressed this way (use :func:`kai_podgroups`).
    """
    result = _applyable_copy(obj)
    metadata = result.setdefault("metadata", {})
    annotations = metadata.get("annotations") or {}
    metadata["annotations"] = annotations
    required, preferred = _workload_levels(report)
    annotations[KAI_TOPOLOGY_ANNOTATION] = topology
    for key, value in ((KAI_REQUIRED_ANNOTATION, required), (KAI_PREFERRED_ANNOTATION, preferred)):
        if value:
            annotations[key] = value
        else:
            annotations.pop(key, None)
    return result


def kai_export(
    tree: WorkloadTree,
    report: PlacementReport,
    *,
    topology: str | None = None,
    queue: str | None = None,
    obj: Mapping[str, Any] | None = None,
    annotate: bool = False,
) -> list[dict[str, Any]]:
    """The KAI ``Topology`` followed by PodGroups, or by the annotated workload when ``annotate``."""
    name = topology or _default_topology_name(report)
    objects = [kai_topology(_levels(report), name)]
    if annotate:
        if obj is None:
            raise PlacementError("annotating for KAI needs the workload object", field="obj")
        objects.append(kai_annotated_workload(obj, report, topology=name))
    else:
        objects.extend(kai_podgroups(tree, report, topology=name, queue=queue))
    return objects


# ---------------------------------------------------------------------------------------- Kueue


def kueue_topology(levels: Sequence[str], name: str) -> dict[str, Any]:
    """A Kueue ``Topology`` (``kueue.x-k8s.io/v1beta2``); reference it from a ResourceFlavor's
    ``spec.topologyName`` to enable TAS.

    Raises:
        PlacementError: no levels, more than 16, repeats, or hostname not last.
    """
    return _topology(KUEUE_TOPOLOGY_API, levels, name)


def _pod_set_components(pod_sets: Sequence[PodSet]) -> list[str]:
    seen: list[str] = []
    for pod_set in pod_sets:
        if pod_set.component not in seen:
            seen.append(pod_set.component)
    return seen


def _is_lws(tree: WorkloadTree) -> bool:
    return tree.workload.kind == "LeaderWorkerSet"


def kueue_annotations(tree: WorkloadTree, report: PlacementReport) -> dict[str, dict[str, str]]:
    """Kueue pod-template annotations per component path.

    * A component gets ``podset-required-topology`` when every gang it belongs to has a required
      level (the widest of them), else ``podset-preferred-topology`` with the widest preferred
      level of those gangs.
    * LeaderWorkerSet leader and worker templates share ``podset-group-name`` so Kueue fits them
      into one domain together.
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
    levels = _levels(report)
    per_component: dict[str, list[tuple[str, str | None]]] = {}
    slices: dict[str, set[tuple[str, int]]] = {}
    groups = {group.name: group for group in report.pod_groups}
    annotations: dict[str, dict[str, str]] = {}
    if tree.pod_groups:
        for tree_group in tree.pod_groups:
            placed = groups.get(tree_group.name)
            if placed is None:
                continue
            components = _pod_set_components(group_pod_sets(tree_group))
            for component in components:
                if placed.required_level:
                    per_component.setdefault(component, []).append(("required", placed.required_level))
                else:
                    per_component.setdefault(component, []).append(("preferred", placed.preferred_level))
            if _is_lws(tree) and len(components) > 1:
                for component in components:
                    annotations.setdefault(component, {})[KUEUE_GROUP_ANNOTATION] = dns_name(tree.workload.name)
            placed_subs = {sub.name: sub for sub in placed.sub_groups}
            for component in components:
                parents = {sub.parent for sub in tree_group.sub_groups}
                own = [
                    (sub, subgroup_pod_sets(tree_group, sub.name))
                    for sub in tree_group.sub_groups
                    if sub.name not in parents
                ]
                own = [(sub, sets) for sub, sets in own if sets and _pod_set_components(sets) == [component]]
                total = sum(
                    pod_set.count for pod_set in group_pod_sets(tree_group) if pod_set.component == component
                )
                sizes = {sum(pod_set.count for pod_set in sets) for _, sets in own}
                covered = sum(sum(pod_set.count for pod_set in sets) for _, sets in own)
                required = {placed_subs[sub.name].required_level for sub, _ in own if sub.name in placed_subs}
                if (
                    len(own) >= 2
                    and len(sizes) == 1
                    and covered == total
                    and len(required) == 1
                    and None not in required
                ):
                    (size,) = sizes
                    (level,) = required
                    slices.setdefault(component, set()).add((level, size))
    else:
        for group in report.pod_groups:
            if group.required_level:
                per_component.setdefault(group.name, []).append(("required", group.required_level))

    for component, wanted in per_component.items():
        entry = annotations.setdefault(component, {})
        if all(kind == "required" for kind, _ in wanted):
            entry[KUEUE_REQUIRED_ANNOTATION] = _widest(levels, [level for _, level in wanted])
        elif all(level is not None for _, level in wanted):
            entry[KUEUE_PREFERRED_ANNOTATION] = _widest(levels, [level for _, level in wanted])
        level = entry.get(KUEUE_REQUIRED_ANNOTATION) or entry.get(KUEUE_PREFERRED_ANNOTATION)
        choices = slices.get(component, set())
        if len(choices) == 1 and level in levels:
            ((slice_level, size),) = choices
            if levels.index(slice_level) > levels.index(level):
                entry[KUEUE_SLICE_REQUIRED_ANNOTATION] = slice_level
                entry[KUEUE_SLICE_SIZE_ANNOTATION] = str(size)

    # A component made of multi-pod replicas (a JobSet Job, a Ray multi-host replica) whose one
    # replica must stay inside an accelerator domain gets that as its slice requirement, when the
    # podset-level requirement is wider. The slice size is the replica's pod count.
    for fit in report.slices:
        entry = annotations.get(fit.component)
        if not entry or KUEUE_SLICE_REQUIRED_ANNOTATION in entry or not fit.required_level:
            continue
        level = entry.get(KUEUE_REQUIRED_ANNOTATION) or entry.get(KUEUE_PREFERRED_ANNOTATION)
        if level in levels and fit.required_level in levels and levels.index(fit.required_level) > levels.index(level):
            entry[KUEUE_SLICE_REQUIRED_ANNOTATION] = fit.required_level
            entry[KUEUE_SLICE_SIZE_ANNOTATION] = str(fit.size)

    if levels and any(
        KUEUE_REQUIRED_ANNOTATION in entry or KUEUE_PREFERRED_ANNOTATION in entry for entry in annotations.values()
    ):
        for component in _all_template_components(tree):
            entry = annotations.setdefault(component, {})
            if KUEUE_REQUIRED_ANNOTATION not in entry and KUEUE_PREFERRED_ANNOTATION not in entry:
                entry[KUEUE_PREFERRED_ANNOTATION] = levels[0]
    return {component: entry for component, entry in annotations.items() if entry}


def _all_template_components(tree: WorkloadTree) -> list[str]:
    return [path for path, component in component_paths(tree).items() if component.has_pod_template]


def _template_path(
    tree: WorkloadTree, component: str, template_paths: TemplatePaths | None
) -> Sequence[str | int] | None:
    if template_paths is not None:
        if callable(template_paths):
            return template_paths(component)
        return template_paths.get(component)
    found = component_paths(tree).get(component)
    return getattr(found, "template_path", None) if found is not None else None


def _descend(obj: Any, path: Sequence[str | int], component: str) -> dict[str, Any]:
    node = obj
    for segment in path:
        try:
            node = node[segment]
        except (KeyError, IndexError, TypeError):
            raise PlacementError(
                f"pod template of component {component!r} not found at {'/'.join(map(str, path))}",
                field="/".join(map(str, path)),
            ) from None
    if not isinstance(node, dict):
        raise PlacementError(f"pod template of component {component!r} is not a mapping", field="/".join(map(str, path)))
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
    :data:`TemplatePaths`); without it each component's ``template_path`` attribute is used.
    Existing ``podset-*-topology`` annotations on a template are replaced (they are mutually
    exclusive in Kueue).

    Raises:
        PlacementError: a component's template cannot be located.
    """
    result = _applyable_copy(obj)
    for component, wanted in kueue_annotations(tree, report).items():
        path = _template_path(tree, component, template_paths)
        if path is None:
            raise PlacementError(f"no pod template path known for component {component!r}", field=component)
        template = _descend(result, path, component)
        metadata = template.setdefault("metadata", {})
        annotations = metadata.get("annotations") or {}
        metadata["annotations"] = annotations
        for key in (
            KUEUE_REQUIRED_ANNOTATION,
            KUEUE_PREFERRED_ANNOTATION,
            "kueue.x-k8s.io/podset-unconstrained-topology",
            KUEUE_SLICE_REQUIRED_ANNOTATION,
            KUEUE_SLICE_SIZE_ANNOTATION,
        ):
            annotations.pop(key, None)
        annotations.update(wanted)
    return result


def kueue_export(
    tree: WorkloadTree,
    report: PlacementReport,
    *,
    topology: str | None = None,
    obj: Mapping[str, Any] | None = None,
    template_paths: TemplatePaths | None = None,
) -> list[dict[str, Any]]:
    """The Kueue ``Topology`` followed by the annotated workload (when ``obj`` is given)."""
    objects = [kueue_topology(_levels(report), topology or _default_topology_name(report))]
    if obj is not None:
        objects.append(kueue_annotated_workload(obj, tree, report, template_paths=template_paths))
    return objects


# -------------------------------------------------------------------------------------- Volcano


def volcano_tiers(levels: Sequence[str]) -> dict[str, int]:
    """HyperNode tier per level: 1 for the level just above hostname, +1 per wider level.

    Hostname itself has no HyperNode tier and is left out.
    """
    above = [level for level in levels if level != HOSTNAME_LABEL]
    return {level: len(above) - position for position, level in enumerate(above)}


def volcano_hypernodes(cluster: Cluster, *, prefix: str | None = None, members: str = "label") -> list[dict[str, Any]]:
    """Volcano ``HyperNode`` objects (``topology.volcano.sh/v1alpha1``) for the cluster's levels.

    One HyperNode per domain of every level above hostname. Tier-1 HyperNodes list their nodes,
    by ``labelMatch`` on all level labels down to theirs (``members="label"``) or one
    ``exactMatch`` per node (``members="exact"``); wider tiers list their child HyperNodes.
    Nodes missing a level label belong to no domain of that level (nor below), unready nodes are
    skipped.
    """
    if members not in ("label", "exact"):
        raise PlacementError(f"members must be 'label' or 'exact', not {members!r}", field="members")
    tiers = volcano_tiers(cluster.levels)
    above = [level for level in cluster.levels if level != HOSTNAME_LABEL]
    base = dns_name(prefix or cluster.name or "wmap")
    names: dict[tuple[str, ...], str] = {}
    used: set[str] = set()
    children: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    nodes_of: dict[tuple[str, ...], list[str]] = {}
    order: list[tuple[str, ...]] = []
    for node in cluster.nodes:
        if not node.ready:
            continue
        path: tuple[str, ...] = ()
        for level in above:
            value = node.labels.get(level)
            if value is None:
                break
            parent, path = path, path + (value,)
            if path not in names:
                tier = tiers[level]
                name = dns_name(f"{base}-t{tier}-{value}", limit=253)
                if name in used:
                    name = dns_name(f"{base}-t{tier}-{'-'.join(path)}", limit=253)
                if name in used:
                    name = f"{name}-{hashlib.sha1('/'.join(path).encode()).hexdigest()[:8]}"
                names[path] = name
                used.add(name)
                order.append(path)
                if parent:
                    children.setdefault(parent, []).append(path)
        else:
            if path:
                nodes_of.setdefault(path, []).append(node.name)
    objects = []
    for path in order:
        level = above[len(path) - 1]
        tier = tiers[level]
        if tier == 1:
            if members == "label":
                member_list = [
                    {
                        "type": "Node",
                        "selector": {
                            "labelMatch": {"matchLabels": {above[i]: value for i, value in enumerate(path)}}
                        },
                    }
                ]
            else:
                member_list = [
                    {"type": "Node", "selector": {"exactMatch": {"name": name}}} for name in nodes_of.get(path, [])
                ]
        else:
            member_list = [
                {"type": "HyperNode", "selector": {"exactMatch": {"name": names[child]}}}
                for child in children.get(path, [])
            ]
        objects.append(
            {
                "apiVersion": VOLCANO_HYPERNODE_API,
                "kind": "HyperNode",
                "metadata": {"name": names[path], "labels": {"app.kubernetes.io/managed-by": "wmap"}},
                "spec": {"tier": tier, "tierName": dns_name(level.split("/")[-1]), "members": member_list},
            }
        )
    return objects


def _volcano_block(levels: Sequence[str], required: str | None, preferred: str | None) -> dict[str, Any] | None:
    tiers = volcano_tiers(levels)
    if required:
        # A single node has no HyperNode; tier 1 (the narrowest HyperNode) is the closest bound.
        return {"mode": "hard", "highestTierAllowed": tiers.get(required, 1)}
    if preferred:
        return {"mode": "soft"}
    return None


def volcano_network_topology(report: PlacementReport, group: GroupPlacement | None = None) -> dict[str, Any] | None:
    """The ``networkTopology`` block for a gang (or, without ``group``, for the whole workload).

    A required level becomes ``{mode: hard, highestTierAllowed: <tier>}``; a preferred level
    only ``{mode: soft}``; nothing when the gang has neither. A required hostname level maps to
    tier 1, the narrowest bound Volcano can express.
    """
    levels = _levels(report)
    if group is not None:
        return _volcano_block(levels, group.required_level, group.preferred_level)
    required, preferred = _workload_levels(report)
    return _volcano_block(levels, required, preferred)


def volcano_export(
    tree: WorkloadTree,
    report: PlacementReport,
    cluster: Cluster,
    *,
    obj: Mapping[str, Any] | None = None,
    members: str = "label",
    queue: str | None = None,
) -> list[dict[str, Any]]:
    """HyperNodes for the cluster, then either the Volcano ``Job`` (``obj``) with
    ``spec.networkTopology`` set, or one Volcano ``PodGroup`` per gang
    (``scheduling.volcano.sh/v1beta1``) with ``minMember`` and ``networkTopology``."""
    objects = volcano_hypernodes(cluster, members=members)
    if obj is not None and str(obj.get("apiVersion", "")).startswith("batch.volcano.sh/") and obj.get("kind") == "Job":
        job = _applyable_copy(obj)
        block = volcano_network_topology(report)
        spec = job.setdefault("spec", {})
        if block:
            spec["networkTopology"] = block
        else:
            spec.pop("networkTopology", None)
        objects.append(job)
        return objects
    for group in report.pod_groups:
        if not group.gang:
            continue
        spec: dict[str, Any] = {"minMember": max(group.min_member, 0)}
        if queue:
            spec["queue"] = queue
        block = volcano_network_topology(report, group)
        if block:
            spec["networkTopology"] = block
        objects.append(
            {
                "apiVersion": VOLCANO_PODGROUP_API,
                "kind": "PodGroup",
                "metadata": _metadata(tree, dns_name(group.name, limit=253)),
                "spec": spec,
            }
        )
    return objects


# --------------------------------------------------------------------------------------- demand


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def _demand_entry(name: str, min_member: int, pod_sets: Sequence[PodSet], group: GroupPlacement | None, gang: bool):
    total: dict[str, Fraction] = {}
    shapes = []
    for pod_set in pod_sets:
        request = {key: parse_quantity(value) for key, value in pod_set.pod_resources.items()}
        add_resources(total, request, pod_set.count)
        shapes.append(
            {"component": pod_set.component, "count": pod_set.count, "resources": format_resources(request)}
        )
    gpus = sum((total.get(key, Fraction(0)) for key in DEFAULT_GPU_RESOURCES), Fraction(0))
    return {
        "name": name,
        "gang": gang,
        "pods": sum(pod_set.count for pod_set in pod_sets),
        "minMember": min_member,
        "podShapes": shapes,
        "gpus": _number(gpus),
        "resources": format_resources(total),
        "requiredLevel": group.required_level if group else None,
        "preferredLevel": group.preferred_level if group else None,
        "fits": group.fits if group else None,
    }


def demand(tree: WorkloadTree, report: PlacementReport | None = None) -> list[dict[str, Any]]:
    """Compact resource demand per gang for a multi-cluster placer (one summary document).

    Each gang lists its pods, per-pod shapes, total GPUs and resources, and (with a report) the
    required level and the tightest level that holds it (``preferredLevel``; null = the whole
    cluster). Pods without a gang appear as one entry per component with ``gang: false``.
    """
    placed = {group.name: group for group in report.pod_groups} if report else {}
    gangs = []
    if tree.pod_groups:
        for group in tree.pod_groups:
            gangs.append(
                _demand_entry(group.name, group.min_member, group_pod_sets(group), placed.get(group.name), True)
            )
    else:
        for path, component in component_paths(tree).items():
            if component.has_pod_template and component.pods > 0:
                pod_set = PodSet(component=path, count=component.pods, pod_resources=component.pod_resources)
                gangs.append(_demand_entry(path, 1, [pod_set], placed.get(path), False))
    total: dict[str, Fraction] = {}
    for entry in gangs:
        add_resources(total, {key: parse_quantity(value) for key, value in entry["resources"].items()})
    gpus = sum((total.get(key, Fraction(0)) for key in DEFAULT_GPU_RESOURCES), Fraction(0))
    document: dict[str, Any] = {
        "apiVersion": DEMAND_API,
        "kind": "WorkloadDemand",
        "workload": tree.workload.to_dict(),
        "gangs": gangs,
        "totals": {"pods": sum(entry["pods"] for entry in gangs), "gpus": _number(gpus), "resources": format_resources(total)},
    }
    if report is not None:
        document["topology"] = dict(report.topology)
        document["fits"] = report.fits
    return [document]


# ------------------------------------------------------------------------------------- dispatch


def export(
    target: str,
    tree: WorkloadTree,
    report: PlacementReport,
    *,
    cluster: Cluster | None = None,
    obj: Mapping[str, Any] | None = None,
    topology: str | None = None,
    queue: str | None = None,
    template_paths: TemplatePaths | None = None,
) -> list[dict[str, Any]]:
    """Run one exporter by name (one of :data:`EXPORT_TARGETS`).

    Raises:
        PlacementError: unknown target, or the target needs ``cluster``/``obj`` and got none.
    """
    if target == "kai":
        return kai_export(tree, report, topology=topology, queue=queue)
    if target == "kai-annotations":
        return kai_export(tree, report, topology=topology, obj=obj, annotate=True)
    if target == "kueue":
        return kueue_export(tree, report, topology=topology, obj=obj, template_paths=template_paths)
    if target == "volcano":
        if cluster is None:
            raise PlacementError("the volcano export needs the cluster", field="cluster")
        return volcano_export(tree, report, cluster, obj=obj, queue=queue)
    if target == "demand":
        return demand(tree, report)
    raise PlacementError(f"unknown export target {target!r}; choose one of {', '.join(EXPORT_TARGETS)}", field="emit")
