"""Placement policy: which pods a gang holds, and the levels a gang is required or prefers to fit in.

A requirement comes from, in this order: the caller's option (``--required``, per group or for
every PodGroup), the workload's own annotations (KAI on the top owner or a pod template, Kueue on
pod templates), or the automatic NVLink policy of :mod:`.placer`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import PlacementError
from ..labels import (
    HOSTNAME,
    KAI_TOPOLOGY_PREFERRED,
    KAI_TOPOLOGY_REQUIRED,
    KUEUE_GROUP_NAME,
    KUEUE_PREFERRED,
    KUEUE_REQUIRED,
)
from ..quantities import format_resources
from ..topology.levels import resolve_level
from ..tree import Component, PodGroup, PodSet, TopologyConstraint, WorkloadTree
from .packing import Shape, merge_shapes

__all__ = [
    "LevelOption",
    "LevelRequest",
    "component_paths",
    "find_path",
    "group_pod_sets",
    "subgroup_pod_sets",
    "shapes_of",
    "annotation_required",
    "annotation_preferred",
    "constraint_preferred",
    "constraint_level",
    "describe_shapes",
]


def component_paths(tree: WorkloadTree) -> dict[str, Component]:
    """Every component of the tree by its path (names joined by ``/``, as in ``PodSet.component``)."""
    paths: dict[str, Component] = {}

    def visit(component: Component, prefix: str) -> None:
        path = f"{prefix}/{component.name}" if prefix else component.name
        paths[path] = component
        for child in component.components:
            visit(child, path)

    for component in tree.components:
        visit(component, "")
    return paths


def find_path(paths: Mapping[str, Component], path: str) -> str | None:
    """The component path ``path`` names: itself, or the one path ending in ``/path``."""
    if path in paths:
        return path
    tails = [key for key in paths if key.endswith("/" + path)]
    return tails[0] if len(tails) == 1 else None


def shapes_of(pod_sets: Sequence[PodSet]) -> list[Shape]:
    """The pod shapes (request, count) of some pod sets, equal requests merged."""
    return merge_shapes([(pod_set.pod_resources, pod_set.count) for pod_set in pod_sets])


def subgroup_pod_sets(group: PodGroup, name: str, seen: frozenset[str] = frozenset()) -> list[PodSet]:
    """A SubGroup's pods: its own pod sets, else those of its child SubGroups."""
    subgroup = next((sub for sub in group.sub_groups if sub.name == name), None)
    if subgroup is None or name in seen:
        return []
    if subgroup.pod_sets:
        return list(subgroup.pod_sets)
    collected: list[PodSet] = []
    for child in group.sub_groups:
        if child.parent == name:
            collected.extend(subgroup_pod_sets(group, child.name, seen | {name}))
    return collected


def group_pod_sets(group: PodGroup) -> list[PodSet]:
    """A PodGroup's pods: its own pod sets, else those of its top-level SubGroups."""
    if group.pod_sets:
        return list(group.pod_sets)
    collected: list[PodSet] = []
    for sub in group.sub_groups:
        if sub.parent is None:
            collected.extend(subgroup_pod_sets(group, sub.name))
    return collected


def volcano_tiers(levels: Sequence[str]) -> dict[str, int]:
    """HyperNode tier per level: 1 for the level just above hostname, +1 per wider level.

    Hostname itself has no HyperNode tier and is left out. Volcano's design ("Network Topology
    Aware Scheduling.md"): "The smaller the value of the tier, the higher the bandwidth";
    ``highestTierAllowed: 1`` keeps every pod in one leaf HyperNode.
    """
    above = [level for level in levels if level != HOSTNAME]
    return {level: len(above) - position for position, level in enumerate(above)}


def volcano_tier_name(level: str) -> str:
    """The ``tierName`` wmap's HyperNodes give a level: the key's last segment (``tier-0``, ``topology-rack``)."""
    return level.split("/")[-1]


def tier_level(tier: str, levels: Sequence[str]) -> str:
    """A Volcano tier (``highestTierAllowed`` as a number, or a ``highestTierName``) as a level of ``levels``.

    A number is the HyperNode tier (:func:`volcano_tiers`); a name is a level key or the ``tierName``
    of its HyperNodes (the scheduler's session maps ``highestTierName`` to a tier through the
    HyperNodes' ``tierName``, ``pkg/scheduler/framework/session.go`` ``adjustNetworkTopologySpec``).
    Anything else comes back as written, which is no level of the cluster (the gang is refused).
    """
    tiers = volcano_tiers(levels)
    if tier.isdigit():
        found = [level for level, number in tiers.items() if number == int(tier)]
        return found[0] if found else tier
    for level in tiers:
        if tier in (level, volcano_tier_name(level)):
            return level
    return tier


def constraint_level(
    level: str,
    levels: Sequence[str],
    aliases: Mapping[str, str] | None = None,
    *,
    domains: bool = False,
    tiers: bool = False,
) -> str:
    """A constraint's level as a level of the cluster, else as written (which then is no level of it).

    KAI reads a level as a node-label key of the named ``Topology`` or one of its level aliases
    (``topology_info.go`` ``ResolveAliases``, KAI v0.17 #1788), and refuses any other name
    (``job_filtering.go`` ``calculateRelevantDomainLevels``: "the topology tree ... does not contain
    a level with this name"), so ``rack`` is not ``accelerator.nvidia.com/rack`` unless an alias
    says so. Grove's domain names (``domains``) are translated through its ClusterTopologyBinding:
    the cluster's aliases when it was given one, else the one level whose key ends in the name
    (``rack`` finds ``…/topology-rack``).
    """
    if tiers:
        return tier_level(level, levels)
    if level in levels:
        return level
    if aliases and level in aliases:
        return aliases[level]
    if domains:
        try:
            return resolve_level(level, levels)
        except PlacementError:
            return level
    return level


def _aliases_for(
    constraint: TopologyConstraint | None, topology: str | None, aliases: Mapping[str, str]
) -> Mapping[str, str]:
    """The cluster's aliases, unless the constraint names another topology (KAI resolves per topology)."""
    if constraint is not None and constraint.topology and topology and constraint.topology != topology:
        return {}
    return aliases


def constraint_preferred(
    constraint: TopologyConstraint | None,
    levels: Sequence[str] = (),
    aliases: Mapping[str, str] | None = None,
    topology: str | None = None,
) -> str | None:
    """The preferred level of a gang's own ``topologyConstraint`` as a level of ``levels`` (else as written)."""
    if constraint is None or not constraint.preferred_level:
        return None
    known = _aliases_for(constraint, topology, aliases or {})
    return constraint_level(
        constraint.preferred_level, levels, known, domains=constraint.domains, tiers=constraint.tiers
    )


def annotation_required(
    tree: WorkloadTree,
    pod_sets: Sequence[PodSet],
    paths: Mapping[str, Component],
    *,
    root: bool,
    constraint: TopologyConstraint | None = None,
    levels: Sequence[str] = (),
    aliases: Mapping[str, str] | None = None,
    topology: str | None = None,
) -> str | None:
    """A requirement already written on the workload for these pods.

    The gang's own ``topologyConstraint`` (what KAI's pod-grouper puts on the PodGroup or SubGroup:
    the workload's annotations, Grove's fields, a Ray template's or a segment's annotations) comes
    first; its level is matched to ``levels`` by :func:`constraint_level` (a key, a KAI alias, a
    Grove domain).
    KAI reads ``topology-required-placement`` from the top owner, so on the workload's own
    annotations it applies to PodGroups (roots); on a pod template (Ray groups, segments) it
    applies to the SubGroup made of that template's pods. Kueue's ``podset-required-topology`` constrains
    one pod template's pods, so it applies to a group only when the group's pods all come from
    that template, or from templates that share one ``podset-group-name`` and the same level.
    """
    if constraint is not None and constraint.required_level:
        known = _aliases_for(constraint, topology, aliases or {})
        return constraint_level(
            constraint.required_level, levels, known, domains=constraint.domains, tiers=constraint.tiers
        )
    keys: list[str] = []
    for pod_set in pod_sets:
        key = find_path(paths, pod_set.component)
        if key is not None and key not in keys:
            keys.append(key)
    components = [paths[key] for key in keys]
    if root:
        workload_level = tree.topology_annotations
        if workload_level.get(KAI_TOPOLOGY_REQUIRED):
            return constraint_level(workload_level[KAI_TOPOLOGY_REQUIRED], levels, aliases)
    elif len(components) == 1 and components[0].topology_annotations.get(KAI_TOPOLOGY_REQUIRED):
        # Per-template KAI constraints (Ray groups, segments) apply to that template's subgroup.
        return constraint_level(components[0].topology_annotations[KAI_TOPOLOGY_REQUIRED], levels, aliases)
    # Kueue reads a level as the node-label key of a Topology level, nothing else.
    return _kueue_level(components, KUEUE_REQUIRED)


def annotation_preferred(
    tree: WorkloadTree,
    pod_sets: Sequence[PodSet],
    paths: Mapping[str, Component],
    *,
    root: bool,
    levels: Sequence[str] = (),
    aliases: Mapping[str, str] | None = None,
) -> str | None:
    """A preferred level already written on the workload for these pods.

    The counterpart of :func:`annotation_required`: KAI's ``topology-preferred-placement`` on the
    top owner for PodGroups, on a pod template for that template's SubGroup; Kueue's
    ``podset-preferred-topology`` when the group's pods all come from that template (or from
    templates sharing one ``podset-group-name`` and the same level).
    """
    components = _components_of(pod_sets, paths)
    if root and tree.topology_annotations.get(KAI_TOPOLOGY_PREFERRED):
        return constraint_level(tree.topology_annotations[KAI_TOPOLOGY_PREFERRED], levels, aliases)
    if not root and len(components) == 1 and components[0].topology_annotations.get(KAI_TOPOLOGY_PREFERRED):
        return constraint_level(components[0].topology_annotations[KAI_TOPOLOGY_PREFERRED], levels, aliases)
    return _kueue_level(components, KUEUE_PREFERRED)


def _kueue_level(components: list[Component], annotation: str) -> str | None:
    """Kueue's level annotation, when the components are one PodSet unit that all give the same level.

    One unit: a single template, or templates sharing one ``podset-group-name``.
    """
    if not components:
        return None
    values = {component.topology_annotations.get(annotation) for component in components}
    group_names = {component.topology_annotations.get(KUEUE_GROUP_NAME) for component in components}
    one_unit = len(components) == 1 or (len(group_names) == 1 and None not in group_names)
    if one_unit and len(values) == 1:
        (value,) = values
        return value or None
    return None


def _components_of(pod_sets: Sequence[PodSet], paths: Mapping[str, Component]) -> list[Component]:
    keys: list[str] = []
    for pod_set in pod_sets:
        key = find_path(paths, pod_set.component)
        if key is not None and key not in keys:
            keys.append(key)
    return [paths[key] for key in keys]


def describe_shapes(shapes: Sequence[Shape]) -> str:
    """``3 x {cpu: 8, nvidia.com/gpu: 4}``: pod shapes for messages."""
    parts = []
    for request, count in shapes:
        text = ", ".join(f"{name}: {value}" for name, value in format_resources(request).items())
        parts.append(f"{count} x {{{text}}}")
    return " + ".join(parts) if parts else "no pods"


LevelOption = str | Mapping[str, str] | None
"""A level for every PodGroup (a string), or per PodGroup/SubGroup name (``"*"``: every PodGroup)."""


@dataclass
class LevelRequest:
    """The ``required`` and ``preferred`` options of :func:`~workloadmap.placement.place`."""

    required: LevelOption
    preferred: LevelOption

    def lookup(self, value: LevelOption, name: str, *, root: bool) -> str | None:
        """The level ``value`` gives the group ``name`` (a plain string applies to PodGroups only)."""
        if value is None:
            return None
        if isinstance(value, str):
            return value if root else None
        return value.get(name, value.get("*") if root else None)
