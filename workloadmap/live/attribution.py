"""Pod attribution: the workload's pods, and which component (and instance) each one is.

A pod is the workload's when its controller-owner chain reaches the workload (by UID; by kind
and name when the workload has no UID, as in a hand-written manifest), or when it is the
workload itself (a bare Pod). Each such pod goes to the first claim (definition order, see
:func:`workloadmap.interpreter.pod_claims`) whose selector its labels match; pods no claim takes
are kept apart as unattributed, never dropped. The replica index of every component on the
claim's lineage is read from the labels that component's ``pods.replicaIndex`` names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..interpreter import ExpandedComponent, PodClaim, label_index
from ..tree import WorkloadRef
from ..values import mapping_at
from .objects import PodView
from .owners import OwnerChains

__all__ = ["AttributedPod", "Attribution", "workload_pods", "attribute"]


@dataclass
class AttributedPod:
    """A pod and what attribution found out about it.

    Attributes:
        claim: the component (instance) it belongs to; None for an unattributed pod.
        replicas: the replica index of each component of the claim's lineage (by ``id()`` of the
            expanded component), where the labels carry it.
        pod_index: the pod's index within its replica, when a label carries it.
        gang: wmap's PodGroup for the pod, once gang membership is known.
        sub_groups: wmap's SubGroups the pod is in, innermost first.
    """

    pod: PodView
    claim: PodClaim | None = None
    replicas: dict[int, int] = field(default_factory=dict)
    pod_index: int | None = None
    gang: str | None = None
    sub_groups: list[str] = field(default_factory=list)

    def replica_of(self, node: ExpandedComponent) -> int | None:
        """The pod's replica index of ``node`` (a component of its lineage), when known."""
        index = self.replicas.get(id(node))
        if index is None and node.replicas == 1:
            return 0  # a single replica needs no label
        return index


@dataclass
class Attribution:
    """The workload's pods: by claim (in claim order) and those no claim takes."""

    claims: list[PodClaim]
    by_claim: dict[int, list[AttributedPod]]
    unattributed: list[AttributedPod]
    pods_read: bool = True
    ambiguous: dict[str, int] = field(default_factory=dict)
    """Pods left unattributed because several instances of a component claim them alike, by component path."""

    def pods_of(self, claim: PodClaim) -> list[AttributedPod]:
        """The pods attributed to ``claim``."""
        return self.by_claim.get(id(claim), [])

    def attributed(self) -> list[AttributedPod]:
        """Every attributed pod, in claim order."""
        return [pod for claim in self.claims for pod in self.pods_of(claim)]


def workload_pods(
    resource: Mapping[str, Any], workload: WorkloadRef, pods: Sequence[Mapping[str, Any]], chains: OwnerChains
) -> list[PodView]:
    """The pods among ``pods`` whose owner chain reaches the workload (or that are the workload)."""
    uid = str(mapping_at(resource, "metadata").get("uid") or "")
    if workload.kind == "Pod" and workload.api_version == "v1":
        return [
            PodView.from_dict(obj)
            for obj in pods
            if (uid and mapping_at(obj, "metadata").get("uid") == uid)
            or (not uid and mapping_at(obj, "metadata").get("name") == workload.name)
        ]
    below = chains.below(pods)
    found = below.get(uid, []) if uid else below.get((workload.kind, workload.name), [])
    namespace = workload.namespace
    return [
        PodView.from_dict(obj)
        for obj in found
        if not namespace or mapping_at(obj, "metadata").get("namespace") in (None, namespace)
    ]


def _indexes(pod: PodView, claim: PodClaim) -> tuple[dict[int, int], int | None]:
    replicas: dict[int, int] = {}
    for node in claim.lineage:
        pods = node.definition.pods
        if pods is not None and pods.replica_index:
            index = label_index(pods.replica_index, pod.labels)
            if index is not None:
                replicas[id(node)] = index
    own = claim.node.definition.pods
    pod_index = label_index(own.pod_index, pod.labels) if own is not None else None
    return replicas, pod_index


def _embedded_in(claim: PodClaim) -> tuple[str, str] | None:
    """``(kind, name)`` of the embedded object (an AppWrapper's) the claim's component belongs to."""
    owner = None
    for node in claim.lineage[:-1]:
        if node.definition.resource:
            owner = (node.kind or "", node.instance or node.name)
    return owner


def _embedded_objects(claims: list[PodClaim]) -> dict[int, tuple[str, str | None] | None]:
    """Per claim, the embedded object its pods' owner chain must hold: ``(kind, name)``.

    The name is asked only where two embedded objects of one kind must be told apart (an
    AppWrapper's two Jobs): a single one may be named by its operator at run time (a Volcano
    CronJob's run ``<name>-<minutes>``, a ScheduledSparkApplication's ``<name>-<nanoseconds>``).
    """
    wanted = {id(claim): _embedded_in(claim) for claim in claims}
    names: dict[str, set[str]] = {}
    for owner in wanted.values():
        if owner is not None:
            names.setdefault(owner[0], set()).add(owner[1])
    return {
        key: None if owner is None else (owner[0], owner[1] if len(names[owner[0]]) > 1 else None)
        for key, owner in wanted.items()
    }


def attribute(claims: list[PodClaim], pods: Iterable[PodView], chains: OwnerChains | None = None) -> Attribution:
    """Give each pod to the first claim whose selector its labels match.

    A claim inside an embedded object (an AppWrapper's Job or Deployment) also needs that object
    on the pod's owner chain: two wrapped objects' pods are told apart by who owns them. When
    several claims with the very same selector match (instances the operator's labels do not
    tell apart, as Argo's templates), only one of them expecting pods may take the pod; else it
    stays unattributed and is counted in :attr:`Attribution.ambiguous`.
    """
    embedded = _embedded_objects(claims)
    by_claim: dict[int, list[AttributedPod]] = {}
    unattributed: list[AttributedPod] = []
    ambiguous: dict[str, int] = {}
    chosen: dict[int, PodClaim | None] = {}  # by id() of the first matching claim
    for pod in pods:
        owners = _Owners(pod, chains)
        first = next((c for c in claims if c.selector.matches(pod.labels) and owners.include(embedded[id(c)])), None)
        if first is not None and id(first) not in chosen:
            chosen[id(first)] = _untwinned(first, claims, embedded)
        claim = chosen[id(first)] if first is not None else None
        if claim is None:
            if first is not None:
                ambiguous[first.node.path] = ambiguous.get(first.node.path, 0) + 1
            unattributed.append(AttributedPod(pod))
            continue
        replicas, pod_index = _indexes(pod, claim)
        by_claim.setdefault(id(claim), []).append(AttributedPod(pod, claim, replicas, pod_index))
    return Attribution(claims, by_claim, unattributed, ambiguous=ambiguous)


def _untwinned(
    claim: PodClaim, claims: list[PodClaim], embedded: Mapping[int, tuple[str, str | None] | None]
) -> PodClaim | None:
    """``claim``, or the one claim expecting pods among those with its very selector; None when ambiguous."""
    twins = [c for c in claims if c.selector == claim.selector and embedded[id(c)] == embedded[id(claim)]]
    if len(twins) == 1:
        return claim
    expecting = [c for c in twins if c.node.pods() > 0]
    return expecting[0] if len(expecting) == 1 else None


class _Owners:
    """The ``(kind, name)`` of a pod's owners, read only when a claim asks."""

    def __init__(self, pod: PodView, chains: OwnerChains | None) -> None:
        self.pod = pod
        self.chains = chains
        self.known: set[tuple[str, str]] | None = None

    def include(self, wanted: tuple[str, str | None] | None) -> bool:
        if wanted is None:
            return True
        if self.known is None:
            links = self.chains.chain(self.pod.raw) if self.chains is not None else ()
            self.known = {(link.kind, link.name) for link in links}
        kind, name = wanted
        return wanted in self.known if name is not None else any(known == kind for known, _ in self.known)
