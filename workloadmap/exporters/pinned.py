"""``pinned``: the workload with each gang's pods required onto the domain placement chose.

Every pod template of a gang gets a required node affinity ``level In [domain]`` (with the
enclosing levels when the domain's name repeats under several parents), so a cluster without a
topology-aware scheduler still lands the gang in one NVLink domain or rack. The templates are
written through the catalog (:func:`~workloadmap.alter.alter`), like ``wmap alter``.

A template several gangs share (the groups of a LeaderWorkerSet) can only be pinned to one domain:
that is done when every one of them chose the same domain and the domain holds them together.
Otherwise the kind's per-replica place is used when the definition names one
(``exports.exclusiveTopology``: LWS's ``leaderworkerset.sigs.k8s.io/exclusive-topology`` puts each
group in a domain of its own at the chosen level), and the export is refused when it names none.
Gangs are pinned as whole PodGroups; the narrower levels SubGroups may need are not expressed.

A gang whose pods hold an NVIDIA ComputeDomain channel (``requiredSource: computeDomain``) also
gets the required podAffinity NVIDIA recommends, on its required accelerator (clique) level: its
pods labelled ``wmap.dev/clique-group=<gang>`` and required to share that level's domain, as
``wmap alter --clique-affinity`` writes it (the IMEX domain forms per NVLink clique).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..alter import Changes, NodeRequirement, alter, get_at, pod_places, set_at
from ..errors import AlterError, PlacementError, format_path
from ..expressions import field_path
from ..placement import GroupPlacement, group_pod_sets, pods_fit
from ..topology import Cluster
from ..tree import Resources
from .common import ExportRequest, applyable_copy
from .registry import exporter

__all__ = ["chosen_domain", "domain_requirements", "export_pinned"]


def chosen_domain(group: GroupPlacement) -> tuple[str, str] | None:
    """The level and the domain placement chose for a gang.

    The scheduler's own choice (the report's ``assignment``, made by the policy's rule on what
    earlier gangs left) when there is one; else the first (tightest) candidate at the gang's
    preferred level. None when the gang does not fit.
    """
    if not group.fits:
        return None
    assignment = group.assignment
    if assignment is not None and assignment.domain is not None and assignment.level is not None:
        return assignment.level, assignment.domain
    if not group.candidates or group.preferred_level is None:
        return None
    return group.preferred_level, group.candidates[0]


def domain_requirements(levels: Sequence[str], level: str, domain: str) -> tuple[NodeRequirement, ...]:
    """``level In [domain]``, plus the enclosing levels when the domain is shown as a path (``b0/r1``).

    Placement names a domain by its path of label values when its own value repeats under other
    parents (rack ``r1`` in blocks ``b0`` and ``b1``); every value of the path is then required.
    """
    parts = domain.split("/")
    depth = list(levels).index(level)
    keys = levels[depth - len(parts) + 1 : depth + 1]
    if len(keys) != len(parts):
        raise PlacementError(f"domain {domain!r} does not match the levels above {level}")
    return tuple(NodeRequirement(key, (value,)) for key, value in zip(keys, parts, strict=True))


@dataclass
class _Gang:
    name: str
    level: str
    domain: str
    requirements: tuple[NodeRequirement, ...]
    components: list[str]
    pods: list[tuple[Resources, int]]
    fitting: int
    clique: str | None = None


def _gangs(request: ExportRequest) -> list[_Gang]:
    report, tree = request.report, request.tree
    levels = list(report.topology.levels)
    groups = {group.name: group for group in tree.pod_groups}
    placed = [group for group in report.pod_groups if group.gang and group.name in groups]
    if not placed:
        raise PlacementError(f"{tree.workload} has no gang to pin: its pods are placed one by one")
    gangs = []
    for group in placed:
        chosen = chosen_domain(group)
        if chosen is None:
            reason = group.reason or "placement lists no candidate domain for it"
            raise PlacementError(f"gang {group.name} cannot be pinned: {reason}")
        level, domain = chosen
        required = group.required_level
        if required in levels and levels.index(required) > levels.index(level):
            raise PlacementError(
                f"gang {group.name} requires {required}, narrower than {level} where placement chose its domain; "
                f"ask for --preferred {required}"
            )
        pod_sets = group_pod_sets(groups[group.name])
        fitting = next((fit.fitting for fit in group.levels if fit.level == level), 0)
        gangs.append(
            _Gang(
                name=group.name,
                level=level,
                domain=domain,
                requirements=domain_requirements(levels, level, domain),
                components=list(dict.fromkeys(pod_set.component for pod_set in pod_sets)),
                pods=[(pod_set.pod_resources, pod_set.count) for pod_set in pod_sets],
                fitting=fitting,
                clique=required if group.required_source == "computeDomain" else None,
            )
        )
    return gangs


def _fit_together(cluster: Cluster | None, gangs: Sequence[_Gang]) -> bool:
    """Whether one domain holds all of ``gangs`` at once (they chose the same one)."""
    if len(gangs) == 1:
        return True
    if cluster is None:
        names = ", ".join(gang.name for gang in gangs)
        raise PlacementError(f"gangs {names} chose the same domain; the cluster is needed to check they fit together")
    wanted = gangs[0].requirements
    nodes = [
        node.free()
        for node in cluster.nodes
        if all(node.labels.get(requirement.key) in requirement.values for requirement in wanted)
    ]
    return pods_fit([shape for gang in gangs for shape in gang.pods], nodes)


def _shared(gangs: Sequence[_Gang], places: Mapping[str, Any], kind: str) -> dict[Any, list[_Gang]]:
    """Pod-template places (where node affinity is written) and the gangs whose pods use each."""
    by_place: dict[Any, list[_Gang]] = {}
    for gang in gangs:
        for component in gang.components:
            slot = places.get(component)
            if slot is None:
                raise PlacementError(f"gang {gang.name}: no pod template found for component {component}")
            sharing = by_place.setdefault(slot.place("affinity", kind), [])
            if gang not in sharing:
                sharing.append(gang)
    return by_place


def _exclusive(
    sharing: Sequence[_Gang], place: Any, exclusive_path: str | None, kind: str, cluster: Cluster | None
) -> bool:
    """Whether gangs sharing a template go to the kind's per-replica place (else they are pinned together)."""
    if len({gang.requirements for gang in sharing}) == 1 and _fit_together(cluster, sharing):
        return False
    names = ", ".join(f"{gang.name} ({gang.domain})" for gang in sharing)
    if exclusive_path is None:
        raise AlterError(
            f"{kind}: gangs {names} share the pod template at {format_path(place)} but cannot all be pinned to one "
            f"domain, and {kind} offers no per-replica place (definition exports.exclusiveTopology); not pinned"
        )
    levels = {gang.level for gang in sharing}
    if len(levels) > 1:
        raise AlterError(f"{kind}: gangs {names} share a pod template but were placed at different levels")
    if min(gang.fitting for gang in sharing) < len(sharing):
        raise AlterError(
            f"{kind}: {len(sharing)} gangs sharing a pod template need a {sharing[0].level} domain each; "
            f"only {min(gang.fitting for gang in sharing)} hold one"
        )
    return True


@exporter("pinned")
def export_pinned(request: ExportRequest) -> list[dict[str, Any]]:
    """The workload with a required node affinity to its chosen domain on every gang's pod templates.

    Raises:
        ValueError: no workload object was given.
        PlacementError: a gang does not fit, has no candidate, or gangs chose a domain that cannot hold them all.
        AlterError: gangs share a template but cannot share a domain, and the kind has no per-replica place.
    """
    if request.obj is None:
        raise ValueError("the pinned export edits the workload: pass obj")
    kind = request.tree.workload.kind
    definition, slots = pod_places(request.obj, catalog=request.catalog)
    gangs = _gangs(request)
    exclusive_path = definition.exports.exclusive_topology
    exclusive: dict[str, str] = {}
    for place, sharing in _shared(gangs, {slot.component: slot for slot in slots}, kind).items():
        if len(sharing) > 1 and _exclusive(sharing, place, exclusive_path, kind, request.cluster):
            exclusive.update((gang.name, gang.level) for gang in sharing)
    by_domain: dict[tuple[NodeRequirement, ...], list[_Gang]] = {}
    for gang in gangs:
        if gang.name not in exclusive:
            by_domain.setdefault(gang.requirements, []).append(gang)
    obj: Mapping[str, Any] = request.obj
    for requirements, together in by_domain.items():
        if not _fit_together(request.cluster, together):
            names = ", ".join(gang.name for gang in together)
            raise PlacementError(f"gangs {names} all chose {together[0].domain}, which cannot hold them together")
        components = list(dict.fromkeys(component for gang in together for component in gang.components))
        domain = next((gang for gang in together if gang.clique is not None), None)
        changes = Changes(
            node_affinity=requirements,
            clique_affinity=domain.clique if domain is not None else None,
            clique_group=domain.name if domain is not None else None,
        )
        obj = alter(obj, changes, component=components, catalog=request.catalog).object
    result = applyable_copy(obj)
    if exclusive and exclusive_path is not None:
        levels = set(exclusive.values())
        if len(levels) > 1:
            raise AlterError(f"{kind}: gangs sharing pod templates were placed at different levels ({sorted(levels)})")
        _set_exclusive(result, field_path(exclusive_path), levels.pop(), kind)
    return [result]


def _set_exclusive(obj: dict[str, Any], path: tuple[str, ...], level: str, kind: str) -> None:
    current = get_at(obj, path)
    if current is not None and current != level:
        raise AlterError(f"{kind} already asks for exclusive topology {current!r}; placement chose {level!r}")
    set_at(obj, path, level)
