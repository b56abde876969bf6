"""The live cluster as a picture: the nodes' domains with every workload's gangs where their pods run.

The same data ``wmap place --html`` draws (:class:`workloadmap.placement.PlacementMap`), made from
the cache instead of a placement: the domain tree of the cached nodes (GPUs in use by the cached
pods), each gang's pods on the nodes they are bound to, and per gang its ``chosen`` domain, the
narrowest one that holds every scheduled pod (describe's placement audit). A gang is shown as
fitting when it is complete (at least minMember pods scheduled); otherwise the reason says how
many are.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..labels import HOSTNAME
from ..placement import DomainView, GangView, PlacementMap, placement_map
from ..topology import Cluster
from .interpret import WorkloadState

__all__ = ["live_picture", "MAX_GANGS_DRAWN"]

MAX_GANGS_DRAWN = 200
"""Gangs drawn at most (the largest first); the workloads table lists every workload."""


def _chosen(levels: Sequence[str], domains: dict[str, list[str | None]], narrowest: str | None) -> str | None:
    """The id of the narrowest domain holding every scheduled pod (its label values down to it)."""
    if narrowest is None or narrowest == HOSTNAME or narrowest not in levels:
        return None
    values: list[str] = []
    for level in levels[: levels.index(narrowest) + 1]:
        found = domains.get(level) or []
        if len(found) != 1:
            return None
        values.append("<none>" if found[0] is None else found[0])
    return "/".join(values)


def live_picture(cluster: Cluster, states: Sequence[WorkloadState]) -> PlacementMap:
    """The picture of ``cluster`` (the cached nodes, with the pods' usage) and the gangs of ``states``."""
    picture = placement_map(cluster)
    gangs: list[tuple[int, GangView, dict[str, int]]] = []
    for state in states:
        report = state.report
        if report is None or not report.pods_read:
            continue
        audits = {audit.name: audit for audit in (report.placement.pod_groups if report.placement else [])
                  if audit.sub_group is None}  # fmt: skip
        pods = [pod for component in report.components for item in component.walk() for pod in item.pods]
        for group in report.tree.pod_groups:
            members = [
                pod for pod in pods if pod.gang == group.name and pod.node and pod.phase not in ("Succeeded", "Failed")
            ]
            on_nodes: dict[str, int] = {}
            for pod in members:
                assert pod.node is not None
                on_nodes[pod.node] = on_nodes.get(pod.node, 0) + 1
            audit = audits.get(group.name)
            complete = len(members) >= group.min_member
            reason = None if complete else f"{len(members)} of {group.min_member} pods scheduled"
            if complete and audit is not None and audit.satisfied is False:
                reason = audit.reason
            key = f"{report.tree.workload} {group.name}"
            view = GangView(
                key=key,
                workload=str(report.tree.workload),
                name=group.name,
                cluster=cluster.name,
                pods=group.pods,
                min_member=group.min_member,
                fits=complete,
                reason=reason,
                level=audit.narrowest_level if audit is not None else None,
                required_level=audit.required_level if audit is not None else None,
                chosen=_chosen(cluster.levels, audit.domains, audit.narrowest_level) if audit is not None else None,
                nodes=len(on_nodes),
            )
            gangs.append((group.pods, view, on_nodes))
    gangs.sort(key=lambda item: -item[0])
    by_node: dict[str, dict[str, int]] = {}
    for _, view, on_nodes in gangs[:MAX_GANGS_DRAWN]:
        picture.gangs.append(view)
        for node_name, count in on_nodes.items():
            by_node.setdefault(node_name, {})[view.key] = count
    for domain in _domains(picture.root):
        for node in domain.node_views:
            node.pods = dict(by_node.get(node.name, {}))
    if len(gangs) > MAX_GANGS_DRAWN:
        picture.notes.append(f"the {MAX_GANGS_DRAWN} largest of {len(gangs)} gangs are drawn")
    return picture


def _domains(root: DomainView) -> Iterator[DomainView]:
    stack = [root]
    while stack:
        domain = stack.pop()
        yield domain
        stack.extend(domain.children)
