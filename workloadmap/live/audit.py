"""Placement audit: where each gang's pods really run, against what the gang required or preferred.

The nodes are read into a :class:`~workloadmap.topology.Cluster` and their levels detected as
``wmap place`` does. For every PodGroup and SubGroup, the scheduled pods' nodes give the domains
the gang spans at each level (a domain is the node's label values of that level and every wider
one, as placement counts domains) and the narrowest level whose one domain holds them all. The
level that applies comes from :func:`workloadmap.placement.place` on the same nodes, empty:

* required: a topology annotation (KAI on the workload or a pod template, Kueue on pod
  templates) or the automatic NVLink policy (a SubGroup that fits one accelerator domain);
* preferred: a preferred-placement annotation, else the accelerator level when one
  accelerator domain can hold the whole gang (a gang split across NVLink domains pays in
  bandwidth even when nothing required otherwise).

``satisfied`` is null while no pod is scheduled; otherwise at least ``minMember`` pods are
scheduled (fewer is an ``incomplete`` gang, whatever its domains: a gang scheduler binds a gang's
minimum together or none of it) and the scheduled pods lie in one domain of the required level,
and of the preferred level unless no domain of it could hold the gang.
``acceleratorSplit`` flags a gang spread over several accelerator domains although one would
have held it ("would have held": allocatable capacity of the ready nodes, other workloads ignored).
``computeDomainSplit`` flags a gang whose pods hold an NVIDIA ComputeDomain channel and run in more
than one accelerator (NVLink) domain, the ``nvidia.com/gpu.clique`` or Topograph domain: the IMEX
domain forms per clique, so those pods cannot talk over NVLink (dra-driver-nvidia-gpu issues #377,
#804), whether or not one domain could have held them. Such a gang is required to stay in one
(``requiredSource: computeDomain``), so it is not satisfied either.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..labels import KAI_TOPOLOGY_PREFERRED, KUEUE_GROUP_NAME, KUEUE_PREFERRED
from ..loader import paused_gc
from ..placement import GangFit, GroupPlacement, place
from ..placement.analysis import Analysis
from ..placement.devices import pod_sets_hold_compute_domain
from ..placement.policy import LevelRequest, component_paths, find_path, group_pod_sets, subgroup_pod_sets
from ..placement.schedule import Options, Session
from ..topology import Cluster, Node, accelerator_level
from ..tree import PodSet, WorkloadTree
from ..values import JsonForm
from .attribution import AttributedPod

__all__ = ["GangAudit", "PlacementAudit", "ClusterAnalysis", "audit_placement"]


@dataclass(kw_only=True)
class GangAudit(JsonForm):
    """Where one PodGroup (``sub_group`` None) or SubGroup landed.

    Attributes:
        name: wmap's PodGroup name.
        sub_group: the SubGroup, or None for the whole PodGroup.
        pods: the gang's pods at the declared scale.
        min_member: the fewest of them the gang runs with (its ``minMember``).
        scheduled_pods: its attributed pods bound to a node.
        incomplete: fewer pods scheduled than ``min_member`` (never satisfied).
        domains: per level, the label values of the nodes they run on (null: a node without
            that label).
        narrowest_level: the narrowest level one of whose domains holds every scheduled pod.
        required_source, preferred_source: ``annotation`` or ``auto``.
        accelerator_split: spread over several accelerator (NVLink) domains although one
            would have held the gang.
        compute_domain_split: its pods hold a ComputeDomain channel and run in several
            accelerator (NVLink) domains: the IMEX domain does not reach across them.
        reason: why it is not satisfied, or why it cannot be judged.
    """

    name: str
    sub_group: str | None = None
    pods: int
    min_member: int
    scheduled_pods: int
    incomplete: bool = False
    domains: dict[str, list[str | None]] = field(default_factory=dict)
    narrowest_level: str | None = None
    required_level: str | None = None
    required_source: str | None = None
    preferred_level: str | None = None
    preferred_source: str | None = None
    satisfied: bool | None = None
    accelerator_split: bool = False
    compute_domain_split: bool = False
    reason: str | None = None


@dataclass(kw_only=True)
class PlacementAudit(JsonForm):
    """The audit of every gang, on the levels detected from the nodes (widest first).

    Attributes:
        unknown_nodes: nodes pods run on that are not among the nodes read.
    """

    levels: list[str]
    accelerator_level: str | None = None
    pod_groups: list[GangAudit] = field(default_factory=list)
    unknown_nodes: list[str] = field(default_factory=list)


def _annotation_preferred(
    tree: WorkloadTree, pod_sets: Sequence[PodSet], paths: Mapping[str, Any], *, root: bool
) -> str | None:
    """A preferred level written on the workload (KAI, PodGroups) or on the gang's pod templates."""
    if root and tree.topology_annotations.get(KAI_TOPOLOGY_PREFERRED):
        return tree.topology_annotations[KAI_TOPOLOGY_PREFERRED]
    keys = {key for pod_set in pod_sets if (key := find_path(paths, pod_set.component)) is not None}
    components = [paths[key] for key in sorted(keys)]
    if not components:
        return None
    if not root and len(components) == 1 and components[0].topology_annotations.get(KAI_TOPOLOGY_PREFERRED):
        return str(components[0].topology_annotations[KAI_TOPOLOGY_PREFERRED])
    values = {component.topology_annotations.get(KUEUE_PREFERRED) for component in components}
    groups = {component.topology_annotations.get(KUEUE_GROUP_NAME) for component in components}
    if len(values) == 1 and (len(components) == 1 or (len(groups) == 1 and None not in groups)):
        (value,) = values
        return value or None
    return None


class ClusterAnalysis:
    """Placement's standalone analysis on one cluster as given, its node tree and indexes made once.

    What the audit reads of a placement (each gang's required level and where it comes from, and
    which levels could hold it) is the standalone analysis :func:`~workloadmap.placement.place`
    makes before the scheduler's assignment. On thousands of nodes most of its cost is the node
    tree and the indexes, the same for every workload: a service that audits workload after
    workload on one cluster makes them once here (the nodes Index a gang's node filters pick is
    kept per filter, as one placement session keeps it). The answers are those of ``place``.
    """

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        with paused_gc():
            self._session = Session(cluster, Options())

    def groups(self, tree: WorkloadTree) -> list[GangFit]:
        """The analysis of each PodGroup of ``tree`` (with its SubGroups)."""
        analysis = Analysis(
            tree,
            self.cluster,
            LevelRequest(None, None),
            True,
            Options().max_candidates,
            lambda schedulings: self._session.index_for(schedulings, tree.gpu_resources),
        )
        with paused_gc():
            return [analysis.pod_group(group) for group in tree.pod_groups]


_Gang = GroupPlacement | GangFit
"""A gang as the audit reads it: a placement's (``place``) or the standalone analysis' (:class:`ClusterAnalysis`)."""


class _Auditor:
    def __init__(self, tree: WorkloadTree, cluster: Cluster, analysis: ClusterAnalysis | None = None) -> None:
        self.tree = tree
        self.levels = list(cluster.levels)
        self.nodes: dict[str, Node] = {node.name: node for node in cluster.nodes}
        self.accelerator = accelerator_level(self.levels)
        self.paths = component_paths(tree)
        groups: Sequence[_Gang] = analysis.groups(tree) if analysis is not None else place(tree, cluster).pod_groups
        self.placements: dict[tuple[str, str | None], _Gang] = {}
        for group in groups:
            self.placements[(group.name, None)] = group
            for sub in group.sub_groups:
                self.placements[(group.name, sub.name)] = sub

    def domain(self, node: Node, depth: int) -> tuple[str, ...] | None:
        values = [node.labels.get(level) for level in self.levels[: depth + 1]]
        return None if any(value is None for value in values) else tuple(v for v in values if v is not None)

    def holds(self, nodes: list[Node], level: str) -> bool:
        depth = self.levels.index(level)
        domains = {self.domain(node, depth) for node in nodes}
        return len(domains) == 1 and None not in domains

    def preferred(
        self, placement: _Gang | None, pod_sets: Sequence[PodSet], root: bool
    ) -> tuple[str | None, str | None]:
        annotated = _annotation_preferred(self.tree, pod_sets, self.paths, root=root)
        if annotated:
            return annotated, "annotation"
        if placement is None or self.accelerator is None or not placement.gang:
            return None, None
        depth = self.levels.index(self.accelerator)
        required = placement.required_level
        if required in self.levels and self.levels.index(required) >= depth:
            return None, None  # already required at least that narrow
        if placement.levels and placement.levels[depth].fitting > 0:
            return self.accelerator, "auto"
        return None, None

    def fits_one(self, placement: _Gang | None, level: str) -> bool:
        if placement is None or level not in self.levels or not placement.levels:
            return False
        return placement.levels[self.levels.index(level)].fitting > 0

    def gang(
        self,
        name: str,
        sub: str | None,
        size: tuple[int, int],
        pod_sets: Sequence[PodSet],
        members: list[AttributedPod],
    ) -> GangAudit:
        pods, min_member = size
        placement = self.placements.get((name, sub))
        scheduled = [member for member in members if member.pod.node]
        nodes = [self.nodes[member.pod.node] for member in scheduled if member.pod.node in self.nodes]
        audit = GangAudit(
            name=name,
            sub_group=sub,
            pods=pods,
            min_member=min_member,
            scheduled_pods=len(scheduled),
            incomplete=len(scheduled) < min_member,
        )
        for level in self.levels:
            values = {node.labels.get(level) for node in nodes}
            audit.domains[level] = sorted(values, key=lambda value: (value is None, value or ""))
            if nodes and self.holds(nodes, level):
                audit.narrowest_level = level
        if placement is not None:
            audit.required_level, audit.required_source = placement.required_level, placement.required_source
        audit.preferred_level, audit.preferred_source = self.preferred(placement, pod_sets, sub is None)
        if self.accelerator and len(nodes) > 1 and not self.holds(nodes, self.accelerator):
            audit.accelerator_split = self.fits_one(placement, self.accelerator)
            audit.compute_domain_split = pod_sets_hold_compute_domain(self.paths, pod_sets, self.tree.gpu_resources)
        self.judge(audit, placement, nodes, len(scheduled))
        return audit

    def judge(self, audit: GangAudit, placement: _Gang | None, nodes: list[Node], scheduled: int) -> None:
        if scheduled == 0:
            audit.reason = "no pod is scheduled yet"
            return
        if len(nodes) < scheduled:
            audit.reason = "some pods run on nodes that were not read"
            return
        problems = []
        if audit.incomplete:
            problems.append(f"only {scheduled} of minMember {audit.min_member} pods scheduled")
        for level, what in ((audit.required_level, "required"), (audit.preferred_level, "preferred")):
            if level is None:
                continue
            if level not in self.levels:
                audit.reason = f"{what} level {level} is not a label of the nodes read"
                return
            if self.holds(nodes, level):
                continue
            if what == "required" or self.fits_one(placement, level):
                spread = len({self.domain(node, self.levels.index(level)) for node in nodes})
                problems.append(f"{what} {level}: spans {spread} domains")
                if audit.compute_domain_split and level == self.accelerator:
                    problems[-1] += " (ComputeDomain pods split across NVLink cliques: IMEX cannot join them)"
        audit.satisfied = not problems
        audit.reason = "; ".join(problems) or None

    def run(self, members: list[AttributedPod]) -> PlacementAudit:
        audit = PlacementAudit(levels=self.levels, accelerator_level=self.accelerator)
        for group in self.tree.pod_groups:
            in_group = [member for member in members if member.gang == group.name]
            size = (group.pods, group.min_member)
            audit.pod_groups.append(self.gang(group.name, None, size, group_pod_sets(group), in_group))
            for sub in group.sub_groups:
                in_sub = [member for member in in_group if sub.name in member.sub_groups]
                sets = subgroup_pod_sets(group, sub.name)
                audit.pod_groups.append(self.gang(group.name, sub.name, (sub.pods, sub.min_member), sets, in_sub))
        audit.unknown_nodes = sorted({m.pod.node for m in members if m.pod.node and m.pod.node not in self.nodes})
        return audit


def audit_placement(
    tree: WorkloadTree, cluster: Cluster, members: list[AttributedPod], *, analysis: ClusterAnalysis | None = None
) -> PlacementAudit:
    """Audit every gang of ``tree`` on ``cluster`` from the attributed pods (gang membership set).

    ``analysis``: the cluster's :class:`ClusterAnalysis`, made once for many audits (else the
    analysis is made by placing the workload alone).
    """
    return _Auditor(tree, cluster, analysis).run(members)
