"""``describe``: a workload's tree with its live pods attributed, its events, and the placement audit.

The live objects come as :class:`LiveObjects`, from the API server or from ``kubectl get -o
yaml`` dumps (so a user can send a bug report); without them (``describe -f`` alone) the report
has the tree and gangs and no pods. Pods are attributed (:mod:`.attribution`), put in wmap's
gangs (:mod:`.membership`) and, with the nodes, audited (:mod:`.audit`). Events are those of the
workload, of the owners between it and its pods, and of its pods, newest first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..catalog import Catalog
from ..errors import PlacementError, TopologyError
from ..interpreter import (
    EvaluationContext,
    Expander,
    ObjectIndex,
    RelatedObjects,
    default_catalog,
    inspect,
    pod_claims,
    resolve_references,
)
from ..resources import DEFAULT_GPU_RESOURCES
from ..runtime_definitions import Definition
from ..topology import cluster_from_objects
from ..tree import Component, WorkloadTree
from ..values import mapping_at
from .attribution import AttributedPod, Attribution, attribute, workload_pods
from .kueue import kueue_workloads
from .membership import assign_gangs
from .objects import PodView, event_view, format_time, natural_key
from .owners import OwnerChains, OwnerLookup
from .report import ComponentStatus, DescribeReport, EventRecord, PodStatus, ReplicaCounts

if TYPE_CHECKING:  # the audit (and the placement stage under it) loads only when nodes are audited
    from .audit import ClusterAnalysis

__all__ = ["LiveObjects", "describe", "MAX_EVENTS"]

MAX_EVENTS = 100
"""Events kept in a report, newest first."""


@dataclass
class LiveObjects:
    """The live objects around a workload.

    Attributes:
        pods: the pods of the workload's namespace (those of other workloads are fine: only
            pods whose owner chain reaches the workload are kept).
        owners: where owner references are looked up.
        events: Events of the namespace (either API), if read.
        events_api: the API they came from.
        nodes: the cluster's Node objects, for the placement audit (None: no audit).
        chains: owner chains already walked (shared between several workloads).
        analysis: the nodes already read into a cluster and analysed once, for the audit instead
            of ``nodes`` (a service makes it once per change of the nodes, not once per workload).
        kueue_workloads: Kueue's Workload objects of the namespace; None where Kueue is not
            served (or none were dumped).
    """

    pods: Sequence[Mapping[str, Any]]
    owners: OwnerLookup
    events: Sequence[Mapping[str, Any]] = ()
    events_api: str | None = None
    nodes: Sequence[Mapping[str, Any]] | None = None
    chains: OwnerChains | None = None
    warnings: list[str] = field(default_factory=list)
    analysis: ClusterAnalysis | None = None
    kueue_workloads: Sequence[Mapping[str, Any]] | None = None


def _pod_status(member: AttributedPod) -> PodStatus:
    pod = member.pod
    replica = member.replica_of(member.claim.node) if member.claim is not None else None
    return PodStatus(
        name=pod.name,
        phase="Terminating" if pod.deleting and not pod.terminated else pod.phase,
        ready=pod.ready,
        node=pod.node,
        restarts=pod.restarts,
        pod_group=pod.pod_group,
        sub_group=pod.sub_group,
        reason=pod.reason,
        message=pod.message,
        replica=replica,
        gang=member.gang,
        gang_sub_group=member.sub_groups[0] if member.sub_groups else None,
    )


def _ordered(members: Iterable[AttributedPod]) -> list[AttributedPod]:
    """Unhealthy first (failed, pending, not ready), then by name (``pod-2`` before ``pod-10``)."""
    return sorted(members, key=lambda member: (member.pod.health, natural_key(member.pod.name)))


def _components(tree: WorkloadTree, attribution: Attribution, pod_limit: int | None) -> list[ComponentStatus]:
    by_path: dict[str, list[AttributedPod]] = {}
    for claim in attribution.claims:
        by_path.setdefault(claim.node.path, []).extend(attribution.pods_of(claim))

    def build(component: Component, prefix: str) -> ComponentStatus:
        path = f"{prefix}/{component.name}" if prefix else component.name
        children = [build(child, path) for child in component.components]
        members = _ordered(by_path.get(path, []))
        live = [member.pod for member in members]
        current = sum(1 for pod in live if not pod.terminated)
        ready = sum(1 for pod in live if pod.ready)
        nodes = {pod.node for pod in live if pod.node}
        for child in children:
            nodes.update(child.nodes)
            if attribution.pods_read:
                current += child.replicas.current or 0
                ready += child.replicas.ready or 0
        kept = members if pod_limit is None or pod_limit <= 0 else members[:pod_limit]
        return ComponentStatus(
            name=component.name,
            role=component.role,
            instance=component.instance,
            kind=component.kind,
            replicas=ReplicaCounts(
                desired=component.pods,
                current=current if attribution.pods_read else None,
                ready=ready if attribution.pods_read else None,
            ),
            gpus=component.gpus,
            nodes=sorted(nodes, key=natural_key),
            pods=[_pod_status(member) for member in kept],
            pods_omitted=len(members) - len(kept),
            components=children,
        )

    return [build(component, "") for component in tree.components]


def _events(
    live: LiveObjects, resource: Mapping[str, Any], pods: list[PodView], chains: OwnerChains
) -> list[EventRecord]:
    metadata = mapping_at(resource, "metadata")
    workload_uid = str(metadata.get("uid") or "")
    wanted = {workload_uid} - {""}
    names = {(str(resource.get("kind") or ""), str(metadata.get("name") or ""))}
    for pod in pods:
        wanted.add(pod.uid)
        names.add(("Pod", pod.name))
        for link in chains.chain(pod.raw):  # the owners between the pod and the workload
            if link.uid == workload_uid:
                break
            wanted.add(link.uid)
            names.add((link.kind, link.name))
    views = [event_view(event) for event in live.events]
    kept = [
        view
        for view in views
        if (view.regarding[0] in wanted) or (not view.regarding[0] and view.regarding[1:] in names)
    ]
    kept.sort(key=lambda view: (view.last_seen is not None, view.last_seen), reverse=True)
    return [
        EventRecord(
            type=view.type,
            reason=view.reason,
            message=view.message,
            object=f"{view.regarding[1]}/{view.regarding[2]}",
            last_seen=format_time(view.last_seen),
            count=view.count,
        )
        for view in kept[:MAX_EVENTS]
    ]


def _attribution(
    tree: WorkloadTree, resource: Mapping[str, Any], live: LiveObjects | None, catalog: Catalog, related: RelatedObjects
) -> tuple[Attribution, OwnerChains | None]:
    lookup = catalog.lookup(tree.workload.api_version, tree.workload.kind)
    assert lookup is not None  # inspect found it
    definition = lookup.definition
    if not isinstance(definition, Definition):
        # A Karta definition has no pod selectors: its pods are listed as the workload's, unattributed.
        if live is None:
            return Attribution([], {}, [], pods_read=False), None
        chains = live.chains or OwnerChains(live.owners)
        return attribute([], workload_pods(resource, tree.workload, live.pods, chains), chains), chains
    context = EvaluationContext(
        definition, resource, resolve_references(definition, resource, related, tree.workload.namespace, [])
    )
    nodes = Expander(context, catalog=catalog).expand()
    claims = pod_claims(nodes, tree.workload.name, tree.workload.namespace or "")
    if live is None:
        return Attribution(claims, {}, [], pods_read=False), None
    chains = live.chains or OwnerChains(live.owners)
    attribution = attribute(claims, workload_pods(resource, tree.workload, live.pods, chains), chains)
    assign_gangs(attribution, context, tree.workload.name, nodes, tree.pod_groups)
    return attribution, chains


def describe(
    resource: Mapping[str, Any],
    live: LiveObjects | None = None,
    *,
    catalog: Catalog | None = None,
    gpu_resources: Iterable[str] = DEFAULT_GPU_RESOURCES,
    related: RelatedObjects | None = None,
    source: str | None = None,
    pod_limit: int | None = None,
) -> DescribeReport:
    """Describe one workload: its tree with the live pods, events and placement audit.

    Args:
        resource: the workload object.
        live: pods, owners, events and nodes around it; None for the tree and gangs alone.
        catalog: definitions to use; the built-in catalog when omitted.
        gpu_resources: extended-resource names counted as GPUs.
        related: where to find objects the workload references (a TrainJob's runtime).
        source: the file the workload came from, recorded in the tree.
        pod_limit: pods kept per component (unhealthy first; the rest are counted in
            ``podsOmitted``); None or 0 keeps them all.

    Raises:
        NoDefinitionError, InputError, ExpressionError: as :func:`workloadmap.inspect`.
    """
    catalog = catalog if catalog is not None else default_catalog()
    related = related if related is not None else ObjectIndex()
    tree = inspect(resource, catalog=catalog, gpu_resources=gpu_resources, source=source, related=related)
    attribution, chains = _attribution(tree, resource, live, catalog, related)
    report = DescribeReport(
        tree=tree,
        components=_components(tree, attribution, pod_limit),
        unattributed_pods=[_pod_status(member) for member in _ordered(attribution.unattributed)],
        pods_read=attribution.pods_read,
    )
    if live is None or chains is None:
        return report
    report.warnings.extend(live.warnings)
    for path, count in attribution.ambiguous.items():
        report.warnings.append(
            f"{count} pod(s) of component {path} left unattributed: several of its instances claim them "
            "alike (the operator's labels do not say which)"
        )
    pods = [member.pod for member in [*attribution.attributed(), *attribution.unattributed]]
    report.events = _events(live, resource, pods, chains)
    report.events_api = live.events_api
    if live.kueue_workloads is not None:
        nodes = list(live.nodes) if live.nodes is not None else None
        report.kueue, warnings = kueue_workloads(resource, live.kueue_workloads, pods, nodes, namespace_pods=live.pods)
        report.warnings.extend(warnings)
    if live.nodes is not None or live.analysis is not None:
        try:
            if live.analysis is not None:
                cluster = live.analysis.cluster
            else:
                cluster = cluster_from_objects(list(live.nodes or ()), name="cluster", source="nodes")
            from .audit import audit_placement

            report.placement = audit_placement(tree, cluster, attribution.attributed(), analysis=live.analysis)
        except (TopologyError, PlacementError) as error:
            # A required level the nodes do not carry is what the scheduler would refuse too: say so.
            report.warnings.append(f"no placement audit: {error}")
    return report
