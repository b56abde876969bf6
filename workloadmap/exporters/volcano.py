"""Volcano: HyperNodes for the cluster's domains, and ``networkTopology`` per gang.

HyperNode tier 1 is the level just above hostname; a higher tier is a wider level. A workload
whose kind takes a ``networkTopology`` block itself (a Volcano Job, as its definition says) is
edited; other workloads get one Volcano PodGroup per gang.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from ..labels import HOSTNAME, MANAGED_BY, VOLCANO_HYPERNODE_API_VERSION, VOLCANO_PODGROUP_API_VERSION
from ..placement import GroupPlacement, PlacementReport
from ..placement.policy import volcano_tier_name, volcano_tiers
from ..topology import Cluster
from .common import ExportRequest, applyable_copy, dns_name, object_metadata, report_levels, workload_levels
from .registry import exporter

__all__ = ["volcano_tiers", "volcano_hypernodes", "volcano_network_topology", "export_volcano"]

_MEMBER_STYLES = ("label", "exact")


def _domains(
    cluster: Cluster, above: list[str]
) -> tuple[list[tuple[str, ...]], dict[tuple[str, ...], list[tuple[str, ...]]], dict[tuple[str, ...], list[str]]]:
    """Domain paths in first-seen order, the children of each, and the nodes of each leaf domain."""
    order: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    children: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    nodes_of: dict[tuple[str, ...], list[str]] = {}
    for node in cluster.nodes:
        if not node.usable:
            continue
        path: tuple[str, ...] = ()
        complete = True
        for level in above:
            value = node.labels.get(level)
            if value is None:
                complete = False
                break
            parent, path = path, (*path, value)
            if path not in seen:
                seen.add(path)
                order.append(path)
                if parent:
                    children.setdefault(parent, []).append(path)
        if complete and path:
            nodes_of.setdefault(path, []).append(node.name)
    return order, children, nodes_of


def _names(
    order: list[tuple[str, ...]], above: list[str], tiers: dict[str, int], base: str
) -> dict[tuple[str, ...], str]:
    names: dict[tuple[str, ...], str] = {}
    used: set[str] = set()
    for path in order:
        tier = tiers[above[len(path) - 1]]
        name = dns_name(f"{base}-t{tier}-{path[-1]}", limit=253)
        if name in used:
            name = dns_name(f"{base}-t{tier}-{'-'.join(path)}", limit=253)
        if name in used:
            name = f"{name}-{hashlib.sha1('/'.join(path).encode()).hexdigest()[:8]}"
        names[path] = name
        used.add(name)
    return names


def volcano_hypernodes(cluster: Cluster, *, prefix: str | None = None, members: str = "label") -> list[dict[str, Any]]:
    """Volcano ``HyperNode`` objects (``topology.volcano.sh/v1alpha1``) for the cluster's levels.

    One HyperNode per domain of every level above hostname. Tier-1 HyperNodes list their nodes,
    by ``labelMatch`` on all level labels down to theirs (``members="label"``) or one
    ``exactMatch`` per node (``members="exact"``); wider tiers list their child HyperNodes.
    Nodes missing a level label belong to no domain of that level (nor below), unready nodes are
    skipped.

    Raises:
        ValueError: ``members`` is neither ``label`` nor ``exact``.
    """
    if members not in _MEMBER_STYLES:
        raise ValueError(f"members must be 'label' or 'exact', not {members!r}")
    tiers = volcano_tiers(cluster.levels)
    above = [level for level in cluster.levels if level != HOSTNAME]
    order, children, nodes_of = _domains(cluster, above)
    names = _names(order, above, tiers, dns_name(prefix or cluster.name or "wmap"))
    objects = []
    for path in order:
        level = above[len(path) - 1]
        tier = tiers[level]
        member_list: list[dict[str, Any]]
        if tier > 1:
            member_list = [
                {"type": "HyperNode", "selector": {"exactMatch": {"name": names[child]}}}
                for child in children.get(path, [])
            ]
        elif members == "label":
            match = {above[i]: value for i, value in enumerate(path)}
            member_list = [{"type": "Node", "selector": {"labelMatch": {"matchLabels": match}}}]
        else:
            member_list = [
                {"type": "Node", "selector": {"exactMatch": {"name": name}}} for name in nodes_of.get(path, [])
            ]
        objects.append(
            {
                "apiVersion": VOLCANO_HYPERNODE_API_VERSION,
                "kind": "HyperNode",
                "metadata": {"name": names[path], "labels": {MANAGED_BY: "wmap"}},
                "spec": {"tier": tier, "tierName": dns_name(volcano_tier_name(level)), "members": member_list},
            }
        )
    return objects


def _block(levels: Sequence[str], required: str | None, preferred: str | None) -> dict[str, Any] | None:
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
    levels = report_levels(report)
    if group is not None:
        return _block(levels, group.required_level, group.preferred_level)
    required, preferred = workload_levels(report)
    return _block(levels, required, preferred)


def _edited_workload(request: ExportRequest, path: tuple[str, ...]) -> dict[str, Any]:
    assert request.obj is not None
    workload = applyable_copy(request.obj)
    holder = workload
    for key in path[:-1]:
        holder = holder.setdefault(key, {})
    block = volcano_network_topology(request.report)
    if block:
        holder[path[-1]] = block
    else:
        holder.pop(path[-1], None)
    return workload


@exporter("volcano")
def export_volcano(request: ExportRequest) -> list[dict[str, Any]]:
    """HyperNodes for the cluster, then the workload with its ``networkTopology``, or PodGroups.

    The workload itself is edited for kinds that take a ``networkTopology`` block (with the object
    given); otherwise one Volcano ``PodGroup`` per gang is emitted.

    Raises:
        ValueError: the request carries no cluster.
    """
    if request.cluster is None:
        raise ValueError("the volcano export needs the cluster")
    objects = volcano_hypernodes(request.cluster)
    path = request.tree.export_hints.volcano_network_topology
    if request.obj is not None and path:
        objects.append(_edited_workload(request, path))
        return objects
    for group in request.report.pod_groups:
        if not group.gang:
            continue
        spec: dict[str, Any] = {"minMember": max(group.min_member, 0)}
        if request.queue:
            spec["queue"] = request.queue
        block = volcano_network_topology(request.report, group)
        if block:
            spec["networkTopology"] = block
        objects.append(
            {
                "apiVersion": VOLCANO_PODGROUP_API_VERSION,
                "kind": "PodGroup",
                "metadata": object_metadata(request.tree, dns_name(group.name, limit=253)),
                "spec": spec,
            }
        )
    return objects
