"""Gang placement: which topology domains of a cluster can hold each gang of a workload.

Two layers:

* **Packing** (:func:`pods_fit`, :func:`pack_pods`, :func:`node_capacity`): can a set of pods fit
  onto a set of nodes? A pod never splits across nodes and every resource it requests (GPUs, cpu,
  memory, extended resources) must fit on its node; each pod also takes one ``pods`` slot on nodes
  that declare a ``pods`` allocatable (nodes without one have unlimited slots). Pods of one shape
  are decided exactly. Mixed shapes use necessary aggregate checks (exact "no"), first-fit
  heuristics that build a real placement (exact "yes"), and a bounded exact search in between.
  Only when that search runs out of budget is the answer unknown; :func:`pods_fit` then answers
  "fits", so a group that fits is never reported as unfit.
* **Placement** (:func:`place`, :func:`rank_clusters`): for every PodGroup and SubGroup, per
  topology level, how many domains exist and how many hold the whole group, the narrowest level
  that holds it, the required level (option, workload annotations or the auto policy) and the
  best-fit candidate domains.

Domains: a node belongs to a domain of level *i* when it carries the labels of levels ``0..i``;
the domain is identified by those label values (so rack ``r1`` under block ``a`` and rack ``r1``
under block ``b`` are two domains). The hostname level falls back to the node name when the
``kubernetes.io/hostname`` label is missing. Unready nodes hold nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .errors import PlacementError, WorkloadMapError
from .quantities import parse_quantity
from .resources import DEFAULT_GPU_RESOURCES
from .topology import HOSTNAME_LABEL, Cluster
from .tree import Component, PodGroup, PodSet, SubGroup, WorkloadTree

__all__ = [
    "UNLIMITED",
    "ACCELERATOR_LEVEL_LABELS",
    "KAI_REQUIRED_ANNOTATION",
    "KAI_PREFERRED_ANNOTATION",
    "KAI_TOPOLOGY_ANNOTATION",
    "KUEUE_REQUIRED_ANNOTATION",
    "KUEUE_PREFERRED_ANNOTATION",
    "KUEUE_GROUP_ANNOTATION",
    "node_capacity",
    "pack_pods",
    "pods_fit",
    "accelerator_level",
    "resolve_level",
    "LevelFit",
    "GroupPlacement",
    "PlacementReport",
    "SliceFit",
    "ClusterFit",
    "ClusterRanking",
    "component_paths",
    "group_pod_sets",
    "subgroup_pod_sets",
    "place",
    "rank_clusters",
]

UNLIMITED = 1 << 62
"""Capacity of a node without a ``pods`` allocatable for pods that request nothing else."""

ACCELERATOR_LEVEL_LABELS: tuple[str, ...] = (
    "nvidia.com/gpu.clique",
    "accelerator.topograph.run/domain",
    "network.topology.nvidia.com/accelerator",
)
"""Node-label keys known to name an accelerator (NVLink) domain."""

KAI_TOPOLOGY_ANNOTATION = "kai.scheduler/topology"
KAI_REQUIRED_ANNOTATION = "kai.scheduler/topology-required-placement"
KAI_PREFERRED_ANNOTATION = "kai.scheduler/topology-preferred-placement"
KUEUE_REQUIRED_ANNOTATION = "kueue.x-k8s.io/podset-required-topology"
KUEUE_PREFERRED_ANNOTATION = "kueue.x-k8s.io/podset-preferred-topology"
KUEUE_GROUP_ANNOTATION = "kueue.x-k8s.io/podset-group-name"

Resources = Mapping[str, Fraction]
PodShapes = Sequence[tuple[Resources, int]]

_ZERO = Fraction(0)
_SLOT = "pods"
# Work units (reachable states x configurations) the exact search may spend on one question.
_DEFAULT_BUDGET = 200_000


# --------------------------------------------------------------------------------------------
# Packing
# --------------------------------------------------------------------------------------------


def _clean_request(request: Resources) -> dict[str, Fraction]:
    """Positive requests only; the pod slot is implicit (one per pod), never requested."""
    return {name: Fraction(amount) for name, amount in request.items() if amount > 0 and name != _SLOT}


def _clean_free(free: Resources) -> tuple[tuple[str, Fraction], ...]:
    """Hashable free vector: positive amounts, plus ``pods`` even when 0 (0 slots != unlimited)."""
    return tuple(
        sorted((name, Fraction(amount)) for name, amount in free.items() if amount > 0 or name == _SLOT)
    )


def node_capacity(free: Resources, request: Resources) -> int:
    """How many pods of ``request`` fit on a node with ``free`` resources.

    The minimum over the requested resources of ``floor(free / request)`` and over the node's pod
    slots (``free["pods"]``; unlimited when the node has no ``pods`` entry). A resource the node
    does not list counts as zero. A pod that requests nothing fits :data:`UNLIMITED` times on a
    node without pod slots.
    """
    return _capacity(free, _clean_request(request))


def _capacity(free: Resources, request: Mapping[str, Fraction]) -> int:
    """:func:`node_capacity` for a request already cleaned by :func:`_clean_request`."""
    capacity = int(free[_SLOT]) if _SLOT in free else UNLIMITED
    for name, amount in request.items():
        have = free.get(name, 0)
        if have < amount:
            return 0
        capacity = min(capacity, int(have // amount))
    return max(capacity, 0)


def _subtract(free: Resources, request: Resources, times: int) -> dict[str, Fraction]:
    left = dict(free)
    for name, amount in request.items():
        left[name] = left.get(name, 0) - amount * times
    if _SLOT in left:
        left[_SLOT] = left[_SLOT] - times
    return left


def _shape_key(request: Resources) -> tuple[tuple[str, Fraction], ...]:
    return tuple(sorted(request.items()))


def _merge_shapes(pods: PodShapes) -> list[tuple[dict[str, Fraction], int]]:
    merged: dict[tuple, int] = {}
    for request, count in pods:
        if count < 0:
            raise PlacementError(f"negative pod count {count}")
        if count == 0:
            continue
        key = _shape_key(_clean_request(request))
        merged[key] = merged.get(key, 0) + count
    return [(dict(key), count) for key, count in merged.items()]


def _merge_nodes(nodes: Sequence[Resources]) -> list[tuple[dict[str, Fraction], int]]:
    merged: dict[tuple, int] = {}
    for free in nodes:
        key = _clean_free(free)
        merged[key] = merged.get(key, 0) + 1
    return [(dict(key), count) for key, count in merged.items()]


def _size_key(free: Resources) -> tuple:
    """Order nodes by how much they offer: GPUs first, then cpu, then memory."""
    gpus = sum((free.get(name, 0) for name in DEFAULT_GPU_RESOURCES), 0)
    return (gpus, free.get("cpu", 0), free.get("memory", 0))


def _greedy(
    shapes: list[tuple[dict[str, Fraction], int]],
    node_types: list[tuple[dict[str, Fraction], int]],
    largest_nodes_first: bool,
) -> bool:
    """First-fit over node types: each shape in turn fills nodes up to their capacity.

    Works on node types with multiplicities, so it costs O(types x shapes) whatever the node
    count. A success is a real placement, so ``True`` is always right.
    """
    pool = [(dict(free), count) for free, count in node_types]
    for request, count in shapes:
        pool.sort(key=lambda entry: _size_key(entry[0]), reverse=largest_nodes_first)
        remaining = count
        next_pool: list[tuple[dict[str, Fraction], int]] = []
        for free, multiplicity in pool:
            capacity = _capacity(free, request) if remaining else 0
            if capacity == 0:
                next_pool.append((free, multiplicity))
                continue
            full_nodes = min(multiplicity, remaining // capacity)
            if full_nodes:
                remaining -= full_nodes * capacity
                next_pool.append((_subtract(free, request, capacity), full_nodes))
            untouched = multiplicity - full_nodes
            if untouched and remaining:
                # Fewer than `capacity` pods are left: one more node takes them all.
                next_pool.append((_subtract(free, request, remaining), 1))
                remaining = 0
                untouched -= 1
            if untouched:
                next_pool.append((free, untouched))
        if remaining:
            return False
        pool = next_pool
    return True


def _dominant_share(request: Resources, totals: Resources) -> Fraction:
    shares = [amount / totals[name] for name, amount in request.items() if totals.get(name, 0) > 0]
    return max(shares, default=0)


def _configurations(
    free: Resources, shapes: list[tuple[dict[str, Fraction], int]], budget: list[int]
) -> list[tuple[int, ...]]:
    """Pareto-maximal per-shape pod counts (capped at the demand) that fit together on one node."""
    found: list[tuple[int, ...]] = []

    def extend(index: int, left: dict[str, Fraction], counts: list[int]) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            raise _OutOfBudget
        if index == len(shapes):
            found.append(tuple(counts))
            return
        request, demand = shapes[index]
        most = min(demand, _capacity(left, request))
        if index == len(shapes) - 1:
            counts.append(most)
            extend(index + 1, left, counts)
            counts.pop()
            return
        for take in range(most, -1, -1):
            counts.append(take)
            extend(index + 1, _subtract(left, request, take) if take else left, counts)
            counts.pop()

    extend(0, dict(free), [])
    return _pareto(found, maximal=True)


def _pareto(vectors: list[tuple[int, ...]], *, maximal: bool) -> list[tuple[int, ...]]:
    """Drop vectors dominated by another (keep maxima, or minima when ``maximal`` is false)."""
    unique = sorted(set(vectors), key=sum, reverse=maximal)
    kept: list[tuple[int, ...]] = []
    for vector in unique:
        if maximal:
            dominated = any(all(k >= v for k, v in zip(other, vector)) for other in kept)
        else:
            dominated = any(all(k <= v for k, v in zip(other, vector)) for other in kept)
        if not dominated:
            kept.append(vector)
    return kept


class _OutOfBudget(Exception):
    pass


def _exact(
    shapes: list[tuple[dict[str, Fraction], int]],
    node_types: list[tuple[dict[str, Fraction], int]],
    budget: int,
) -> bool | None:
    """Exact search: the Pareto frontier of remaining demand vectors, one node at a time.

    Returns ``None`` when ``budget`` work units are spent before an answer.
    """
    demand = tuple(count for _, count in shapes)
    total_pods = sum(demand)
    allowance = [budget]
    reachable: list[tuple[int, ...]] = [demand]
    zero = tuple(0 for _ in demand)
    try:
        for free, multiplicity in node_types:
            configs = [c for c in _configurations(free, shapes, allowance) if any(c)]
            if not configs:
                continue
            # Every useful node holds at least one pod, so more nodes than pods never help.
            for _ in range(min(multiplicity, total_pods)):
                allowance[0] -= len(reachable) * len(configs)
                if allowance[0] < 0:
                    return None
                successors = list(reachable)
                for remaining in reachable:
                    for config in configs:
                        successors.append(tuple(max(0, r - c) for r, c in zip(remaining, config)))
                reachable = _pareto(successors, maximal=False)
                if zero in reachable:
                    return True
    except _OutOfBudget:
        return None
    return zero in reachable


def _pack_types(
    shapes: list[tuple[dict[str, Fraction], int]],
    node_types: list[tuple[dict[str, Fraction], int]],
    budget: int = _DEFAULT_BUDGET,
    capacities: list[int] | None = None,
) -> bool | None:
    """:func:`pack_pods` on merged shapes (clean requests) and node types with multiplicities.

    ``capacities`` (per shape, pods the nodes hold of that shape alone) may be passed when known.
    """
    if not shapes:
        return True
    if capacities is None:
        capacities = [
            sum(_capacity(free, request) * count for free, count in node_types) for request, _ in shapes
        ]
    if len(shapes) == 1:
        return capacities[0] >= shapes[0][1]
    if any(capacity < demand for capacity, (_, demand) in zip(capacities, shapes)):
        return False
    # Aggregate check: the sum of requests cannot exceed the sum of free amounts.
    totals: dict[str, Fraction] = {}
    unlimited_slots = False
    for free, count in node_types:
        if _SLOT not in free:
            unlimited_slots = True
        for name, amount in free.items():
            totals[name] = totals.get(name, 0) + amount * count
    needed: dict[str, Fraction] = {}
    for request, count in shapes:
        for name, amount in request.items():
            needed[name] = needed.get(name, 0) + amount * count
    if not unlimited_slots:
        needed[_SLOT] = Fraction(sum(count for _, count in shapes))
    if any(totals.get(name, 0) < amount for name, amount in needed.items()):
        return False
    by_share = sorted(shapes, key=lambda shape: _dominant_share(shape[0], totals), reverse=True)
    by_size = sorted(shapes, key=lambda shape: _size_key(shape[0]), reverse=True)
    for order in (by_share, by_size):
        for largest_first in (False, True):
            if _greedy(order, node_types, largest_first):
                return True
    return _exact(by_share, node_types, budget)


def pack_pods(
    pods: PodShapes, nodes: Sequence[Resources], *, budget: int = _DEFAULT_BUDGET
) -> bool | None:
    """Decide whether all ``pods`` fit onto ``nodes``.

    Args:
        pods: ``(per-pod request, count)`` pairs; requests are exact amounts per resource.
        nodes: each node's free resources (include ``pods`` to limit pod slots).
        budget: work units the exact search for mixed shapes may spend.

    Returns:
        ``True`` or ``False`` when decided, ``None`` when the exact search ran out of budget
        (only possible with several pod shapes).
    """
    return _pack_types(_merge_shapes(pods), _merge_nodes(nodes), budget)


def pods_fit(pods: PodShapes, nodes: Sequence[Resources], *, budget: int = _DEFAULT_BUDGET) -> bool:
    """Whether all ``pods`` fit onto ``nodes`` (see :func:`pack_pods`).

    An undecided case (search budget exhausted) counts as fitting: this function never reports
    a group that fits as unfit.
    """
    return pack_pods(pods, nodes, budget=budget) is not False


# --------------------------------------------------------------------------------------------
# Cluster index
# --------------------------------------------------------------------------------------------


@dataclass
class _Domain:
    value: str
    parent: int
    signature: int


@dataclass
class _Level:
    key: str
    domains: list[_Domain] = field(default_factory=list)
    # signature id -> (node type id, count) pairs; domains with equal composition share one id
    signatures: list[tuple[tuple[int, int], ...]] = field(default_factory=list)
    signature_domains: list[list[int]] = field(default_factory=list)
    value_counts: dict[str, int] | None = None


class _ClusterIndex:
    """Ready nodes reduced to distinct free-resource types, and domains as type multisets."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.levels_keys = list(cluster.levels)
        type_ids: dict[tuple, int] = {}
        self.types: list[dict[str, Fraction]] = []
        node_types: list[int] = []
        nodes = [node for node in cluster.nodes if node.ready]
        # Nodes built alike share allocatable/used contents: key on those (as integers, which
        # hash fast) before any arithmetic.
        raw_ids: dict[tuple, int] = {}
        for node in nodes:
            raw = (
                tuple((name, value.numerator, value.denominator) for name, value in sorted(node.allocatable.items())),
                tuple((name, value.numerator, value.denominator) for name, value in sorted(node.used.items()))
                if node.used
                else (),
            )
            type_id = raw_ids.get(raw)
            if type_id is None:
                key = _clean_free(node.free())
                type_id = type_ids.get(key)
                if type_id is None:
                    type_id = type_ids[key] = len(self.types)
                    self.types.append(dict(key))
                raw_ids[raw] = type_id
            node_types.append(type_id)
        whole: dict[int, int] = {}
        for type_id in node_types:
            whole[type_id] = whole.get(type_id, 0) + 1
        self.whole = tuple(sorted(whole.items()))
        self._integral: dict[tuple, list[dict[str, int]]] = {}
        self.levels: list[_Level] = []
        parent_of_node: list[int] = [-1] * len(nodes)
        for level_key in self.levels_keys:
            level = _Level(level_key)
            # A domain is (parent domain, label value): the same value under two parents is two domains.
            domain_ids: dict[tuple[int, str], int] = {}
            compositions: list[dict[int, int]] = []
            node_domain: list[int] = []
            is_first = not self.levels
            for position, node in enumerate(nodes):
                parent = parent_of_node[position]
                value = node.labels.get(level_key)
                if value is None and level_key == HOSTNAME_LABEL:
                    value = node.name
                if value is None or (parent < 0 and not is_first):
                    node_domain.append(-1)
                    continue
                key = (parent, value)
                domain_id = domain_ids.get(key)
                if domain_id is None:
                    domain_id = domain_ids[key] = len(level.domains)
                    level.domains.append(_Domain(value, parent, -1))
                    compositions.append({})
                node_domain.append(domain_id)
                composition = compositions[domain_id]
                type_id = node_types[position]
                composition[type_id] = composition.get(type_id, 0) + 1
            signature_ids: dict[tuple, int] = {}
            for domain_id, composition in enumerate(compositions):
                signature = tuple(sorted(composition.items()))
                signature_id = signature_ids.get(signature)
                if signature_id is None:
                    signature_id = signature_ids[signature] = len(level.signatures)
                    level.signatures.append(signature)
                    level.signature_domains.append([])
                level.domains[domain_id].signature = signature_id
                level.signature_domains[signature_id].append(domain_id)
            self.levels.append(level)
            parent_of_node = node_domain

    def integral_types(self, scale: Mapping[str, int]) -> list[dict[str, int]]:
        """The node types with every amount multiplied by ``scale[name]`` (whole numbers)."""
        key = tuple(sorted(scale.items()))
        if key not in self._integral:
            self._integral[key] = [
                {name: int(amount * scale.get(name, 1)) for name, amount in free.items()} for free in self.types
            ]
        return self._integral[key]

    def display(self, depth: int, domain_id: int) -> str:
        """The domain's label value, or its path of values (``b0/r1``) when the value repeats."""
        level = self.levels[depth]
        if level.value_counts is None:
            level.value_counts = {}
            for domain in level.domains:
                level.value_counts[domain.value] = level.value_counts.get(domain.value, 0) + 1
        domain = level.domains[domain_id]
        if level.value_counts[domain.value] == 1 or depth == 0:
            return domain.value
        return f"{self.display(depth - 1, domain.parent)}/{domain.value}"

    def composition(self, signature: tuple[tuple[int, int], ...]) -> list[tuple[dict[str, Fraction], int]]:
        return [(self.types[type_id], count) for type_id, count in signature]

    def gpus(self, signature: tuple[tuple[int, int], ...]) -> Fraction:
        return sum(
            (self.types[type_id].get(name, _ZERO) * count for type_id, count in signature for name in DEFAULT_GPU_RESOURCES),
            _ZERO,
        )

    def resource(self, signature: tuple[tuple[int, int], ...], name: str) -> Fraction:
        return sum((self.types[type_id].get(name, _ZERO) * count for type_id, count in signature), _ZERO)


@dataclass
class _Evaluation:
    """How one set of pods fits the cluster's domains."""

    level_fitting: list[int]
    signature_fits: list[list[bool]]
    cluster_fits: bool
    approximate: bool
    best_capacity: list[int] | None  # single shape only: max pods one domain holds, per level
    cluster_capacity: int | None


def _scale(index: _ClusterIndex, shapes: list[tuple[dict[str, Fraction], int]]) -> dict[str, int]:
    """Per resource, a multiplier that turns every amount involved into a whole number."""
    scale: dict[str, int] = {}
    for amounts in [free for free in index.types] + [request for request, _ in shapes]:
        for name, amount in amounts.items():
            denominator = Fraction(amount).denominator
            if denominator != 1:
                current = scale.get(name, 1)
                scale[name] = current * denominator // math.gcd(current, denominator)
    return scale


def _evaluate(index: _ClusterIndex, shapes: list[tuple[dict[str, Fraction], int]]) -> _Evaluation:
    """Which domains hold all ``shapes``; arithmetic runs on integers (exact, and fast)."""
    scale = _scale(index, shapes)
    types = index.integral_types(scale)
    shapes = [({name: int(amount * scale.get(name, 1)) for name, amount in request.items()}, count)
              for request, count in shapes]
    if not shapes:
        fits = [[True] * len(level.signatures) for level in index.levels]
        return _Evaluation([len(level.domains) for level in index.levels], fits, True, False, None, None)
    if len(shapes) == 1:
        request, count = shapes[0]
        type_capacity = [_capacity(free, request) for free in types]

        def capacity(signature: tuple[tuple[int, int], ...]) -> int:
            return sum(type_capacity[type_id] * multiplicity for type_id, multiplicity in signature)

        signature_fits, fitting, best = [], [], []
        for level in index.levels:
            capacities = [capacity(signature) for signature in level.signatures]
            fits = [value >= count for value in capacities]
            signature_fits.append(fits)
            fitting.append(sum(len(level.signature_domains[i]) for i, ok in enumerate(fits) if ok))
            best.append(max(capacities, default=0))
        whole = capacity(index.whole)
        return _Evaluation(fitting, signature_fits, whole >= count, False, best, whole)

    approximate = False
    cache: dict[tuple, bool] = {}
    type_capacities = [[_capacity(free, request) for request, _ in shapes] for free in types]
    demands = [count for _, count in shapes]

    def decide(signature: tuple[tuple[int, int], ...]) -> bool:
        nonlocal approximate
        if signature not in cache:
            capacities = [0] * len(shapes)
            for type_id, multiplicity in signature:
                for position, value in enumerate(type_capacities[type_id]):
                    capacities[position] += value * multiplicity
            if any(have < need for have, need in zip(capacities, demands)):
                cache[signature] = False
                return False
            composition = [(types[type_id], multiplicity) for type_id, multiplicity in signature]
            answer = _pack_types(shapes, composition, capacities=capacities)
            if answer is None:
                approximate = True
            cache[signature] = answer is not False
        return cache[signature]

    signature_fits: list[list[bool]] = [[] for _ in index.levels]
    fitting = [0] * len(index.levels)
    child_fits: set[int] = set()
    for depth in range(len(index.levels) - 1, -1, -1):
        level = index.levels[depth]
        results = []
        for signature_id, signature in enumerate(level.signatures):
            members = level.signature_domains[signature_id]
            # Domains of equal composition fit alike; one with a fitting child domain fits.
            ok = any(member in child_fits for member in members) or decide(signature)
            results.append(ok)
            if ok:
                fitting[depth] += len(members)
        signature_fits[depth] = results
        child_fits = {domain.parent for domain in level.domains if results[domain.signature]}
    cluster_fits = bool(child_fits) or decide(index.whole)
    return _Evaluation(fitting, signature_fits, cluster_fits, approximate, None, None)


# --------------------------------------------------------------------------------------------
# Report models
# --------------------------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (camelCase keys)."""
        return self.model_dump(mode="json", by_alias=True)


class LevelFit(_Model):
    """Domains of one topology level and how many of them hold the whole group."""

    level: str
    domains: int
    fitting: int


class GroupPlacement(_Model):
    """Placement of one PodGroup or SubGroup."""

    name: str
    min_member: int = Field(alias="minMember")
    pods: int
    gang: bool = Field(
        default=True, description="False for pods without a gang (each pod is its own group of one)."
    )
    parent: str | None = Field(default=None, description="Enclosing SubGroup (SubGroups only).")
    fits: bool
    preferred_level: str | None = Field(default=None, alias="preferredLevel")
    required_level: str | None = Field(default=None, alias="requiredLevel")
    required_source: str | None = Field(
        default=None, alias="requiredSource", description="option | annotation | auto"
    )
    candidates: list[str] = Field(default_factory=list)
    levels: list[LevelFit] = Field(default_factory=list)
    reason: str | None = None
    approximate: bool = Field(
        default=False, description="A mixed-shape search ran out of budget and assumed a fit."
    )
    sub_groups: list["GroupPlacement"] = Field(default_factory=list, alias="subGroups")


class SliceFit(_Model):
    """Where one replica of a multi-pod component fits: a JobSet Job of ``parallelism`` pods, a Ray
    multi-host group replica of ``numOfHosts`` pods. Kueue calls such a unit a slice."""

    component: str
    size: int = Field(description="Pods in one slice.")
    count: int = Field(description="Slices of this component in the workload.")
    fits: bool
    preferred_level: str | None = Field(default=None, alias="preferredLevel")
    required_level: str | None = Field(default=None, alias="requiredLevel")
    required_source: str | None = Field(default=None, alias="requiredSource")


class PlacementReport(_Model):
    """Placement of every gang of a workload on one cluster."""

    workload: dict[str, Any]
    topology: dict[str, Any]
    fits: bool
    reason: str | None = None
    pod_groups: list[GroupPlacement] = Field(alias="podGroups")
    slices: list[SliceFit] = Field(
        default_factory=list,
        description="Components whose replicas are several pods each, and where one replica fits "
        "(the auto policy requires an accelerator domain for a slice that fits one).",
    )

    def groups(self):
        """Yield every PodGroup and SubGroup placement, parents first."""
        for group in self.pod_groups:
            yield group
            yield from group.sub_groups


class ClusterFit(_Model):
    """One cluster that holds the workload, with its ranking figures."""

    cluster: str
    preferred_level: str | None = Field(alias="preferredLevel")
    levels_from_bottom: int = Field(
        alias="levelsFromBottom",
        description="How many levels above the narrowest one the workload needs (0 = one node).",
    )
    leftover_gpus: int | float = Field(alias="leftoverGpus")
    report: PlacementReport


class ClusterRanking(_Model):
    """Clusters that can hold the workload, tightest fit first, and the reasons of the others."""

    workload: dict[str, Any]
    ranked: list[ClusterFit]
    unfit: list[dict[str, str]]


# --------------------------------------------------------------------------------------------
# Placement
# --------------------------------------------------------------------------------------------


def resolve_level(name: str, levels: Sequence[str], *, what: str = "level") -> str:
    """Map a level given by the user to one of ``levels``.

    Accepts the exact node-label key, or a unique key whose last path segment or tail matches
    (``rack`` finds ``cloud.provider.com/topology-rack``).

    Raises:
        PlacementError: no level or several levels match.
    """
    if name in levels:
        return name
    matches = [level for level in levels if level.split("/")[-1] == name]
    if not matches:
        matches = [level for level in levels if level.endswith(name) or level.split("/")[-1].endswith(name)]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(levels) if levels else "(none)"
    detail = "is ambiguous" if matches else "is not a topology level"
    raise PlacementError(f"{what} level {name!r} {detail}; levels: {known}")


def accelerator_level(levels: Sequence[str]) -> str | None:
    """The level that is an accelerator (NVLink) domain, if any.

    A known accelerator-domain key (:data:`ACCELERATOR_LEVEL_LABELS`) wins; otherwise the narrowest
    level above hostname whose key mentions ``accelerator``, ``clique`` or ``nvlink``.
    """
    for level in levels:
        if level in ACCELERATOR_LEVEL_LABELS:
            return level
    for level in reversed(levels):
        if level == HOSTNAME_LABEL:
            continue
        lowered = level.lower()
        if any(word in lowered for word in ("accelerator", "clique", "nvlink")):
            return level
    return None


def _parse_resources(resources: Mapping[str, str], where: str) -> dict[str, Fraction]:
    parsed = {}
    for name, value in resources.items():
        try:
            parsed[name] = parse_quantity(value)
        except WorkloadMapError as error:
            raise error.located(field=f"{where}.{name}") from None
    return parsed


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


def _find_path(paths: Mapping[str, Component], path: str) -> str | None:
    if path in paths:
        return path
    tails = [key for key in paths if key.endswith("/" + path)]
    return tails[0] if len(tails) == 1 else None


def _shapes(pod_sets: Sequence[PodSet], where: str) -> list[tuple[dict[str, Fraction], int]]:
    pods = [
        (_parse_resources(pod_set.pod_resources, f"{where}.podSets[{i}].podResources"), pod_set.count)
        for i, pod_set in enumerate(pod_sets)
    ]
    return _merge_shapes(pods)


def subgroup_pod_sets(group: PodGroup, name: str, seen: frozenset = frozenset()) -> list[PodSet]:
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


def _annotation_required(
    tree: WorkloadTree, pod_sets: Sequence[PodSet], paths: Mapping[str, Component], *, root: bool
) -> str | None:
    """A requirement already written on the workload for these pods.

    KAI reads ``topology-required-placement`` from the top owner, so on the workload's own
    annotations it applies to PodGroups (roots); on a pod template (Ray groups, segments) it
    applies to the SubGroup made of that template's pods. Kueue's ``podset-required-topology`` constrains
    one pod template's pods, so it applies to a group only when the group's pods all come from
    that template, or from templates that share one ``podset-group-name`` and the same level.
    """
    keys: list[str] = []
    for pod_set in pod_sets:
        key = _find_path(paths, pod_set.component)
        if key is not None and key not in keys:
            keys.append(key)
    components = [paths[key] for key in keys]
    if root:
        workload_level = getattr(tree, "topology_annotations", None) or {}
        if workload_level.get(KAI_REQUIRED_ANNOTATION):
            return workload_level[KAI_REQUIRED_ANNOTATION]
    elif len(components) == 1 and components[0].topology_annotations.get(KAI_REQUIRED_ANNOTATION):
        # Per-template KAI constraints (Ray groups, segments) apply to that template's subgroup.
        return components[0].topology_annotations[KAI_REQUIRED_ANNOTATION]
    if not components:
        return None
    values = {component.topology_annotations.get(KUEUE_REQUIRED_ANNOTATION) for component in components}
    group_names = {component.topology_annotations.get(KUEUE_GROUP_ANNOTATION) for component in components}
    one_unit = len(components) == 1 or (len(group_names) == 1 and None not in group_names)
    if one_unit and len(values) == 1:
        (value,) = values
        return value or None
    return None


def _level_name(level: str | None) -> str:
    return level if level is not None else "the whole cluster"


def _describe_shapes(shapes: list[tuple[dict[str, Fraction], int]]) -> str:
    from .resources import format_resources

    parts = []
    for request, count in shapes:
        text = ", ".join(f"{name}: {value}" for name, value in format_resources(request).items())
        parts.append(f"{count} x {{{text}}}")
    return " + ".join(parts) if parts else "no pods"


@dataclass
class _Request:
    required: str | Mapping[str, str] | None
    preferred: str | Mapping[str, str] | None

    def lookup(self, value: str | Mapping[str, str] | None, name: str, *, root: bool) -> str | None:
        if value is None:
            return None
        if isinstance(value, str):
            return value if root else None
        return value.get(name, value.get("*") if root else None)


class _Placer:
    def __init__(self, tree: WorkloadTree, cluster: Cluster, request: _Request, auto: bool, limit: int) -> None:
        self.tree = tree
        self.cluster = cluster
        self.index = _ClusterIndex(cluster)
        self.levels = list(cluster.levels)
        self.request = request
        self.auto = auto
        self.limit = limit
        self.paths = component_paths(tree)
        self.accelerator = accelerator_level(self.levels)

    def resolve(self, value: str | None, what: str) -> str | None:
        return None if value is None else resolve_level(value, self.levels, what=what)

    def group(
        self,
        *,
        name: str,
        min_member: int,
        pods: int,
        shapes: list[tuple[dict[str, Fraction], int]],
        root: bool,
        pod_sets: Sequence[PodSet],
        parent: str | None = None,
        parent_required: str | None = None,
        gang: bool = True,
    ) -> GroupPlacement:
        evaluation = _evaluate(self.index, shapes)
        levels = [
            LevelFit(level=level.key, domains=len(level.domains), fitting=evaluation.level_fitting[depth])
            for depth, level in enumerate(self.index.levels)
        ]
        narrowest = next((fit.level for fit in reversed(levels) if fit.fitting), None)

        required, source, reason = None, None, None
        option = self.request.lookup(self.request.required, name, root=root)
        if option is not None:
            required, source = self.resolve(option, "required"), "option"
        else:
            annotated = _annotation_required(self.tree, pod_sets, self.paths, root=root)
            if annotated is not None:
                required, source = annotated, "annotation"
        if required is None and self.auto and not root and gang and self.accelerator is not None:
            depth = self.levels.index(self.accelerator)
            parent_depth = self.levels.index(parent_required) if parent_required in self.levels else -1
            if levels[depth].fitting and parent_depth < depth:
                required, source = self.accelerator, "auto"

        if required is not None and required not in self.levels:
            fits = False
            reason = f"required level {required!r} ({source}) is not a level of topology {self.cluster.name!r}"
        elif required is not None:
            fits = levels[self.levels.index(required)].fitting > 0
        else:
            fits = evaluation.cluster_fits
        if not gang:
            # Pods without a gang spread freely: the cluster must hold them all, one anywhere.
            fits = fits and _pack_types(
                [(shapes[0][0], pods)] if shapes else [], self.index.composition(self.index.whole)
            ) is not False

        preferred_option = self.request.lookup(self.request.preferred, name, root=root)
        preferred = self.resolve(preferred_option, "preferred") if preferred_option else narrowest
        if not fits and reason is None:
            reason = self.reason(shapes, evaluation, required, pods, gang)
        return GroupPlacement(
            name=name,
            min_member=min_member,
            pods=pods,
            gang=gang,
            parent=parent,
            fits=fits,
            preferred_level=preferred,
            required_level=required,
            required_source=source,
            candidates=self.candidates(preferred, evaluation, shapes) if fits else [],
            levels=levels,
            reason=reason,
            approximate=evaluation.approximate,
        )

    def candidates(
        self, level_key: str | None, evaluation: _Evaluation, shapes: list[tuple[dict[str, Fraction], int]]
    ) -> list[str]:
        if level_key is None or not shapes:
            return []
        depth = self.levels.index(level_key)
        level = self.index.levels[depth]
        need_gpus = sum(
            (request.get(name, _ZERO) * count for request, count in shapes for name in DEFAULT_GPU_RESOURCES),
            _ZERO,
        )
        need_cpu = sum((request.get("cpu", _ZERO) * count for request, count in shapes), _ZERO)
        by_leftover: dict[tuple, list[int]] = {}
        for signature_id, ok in enumerate(evaluation.signature_fits[depth]):
            if ok:
                signature = level.signatures[signature_id]
                leftover = (
                    self.index.gpus(signature) - need_gpus,
                    self.index.resource(signature, "cpu") - need_cpu,
                )
                by_leftover.setdefault(leftover, []).extend(level.signature_domains[signature_id])
        chosen: list[str] = []
        # Domains of one signature leave the same leftover: rank signatures, names break ties.
        for leftover in sorted(by_leftover):
            names = sorted(self.index.display(depth, domain_id) for domain_id in by_leftover[leftover])
            chosen.extend(names[: self.limit - len(chosen)])
            if len(chosen) >= self.limit:
                break
        return chosen

    def reason(
        self,
        shapes: list[tuple[dict[str, Fraction], int]],
        evaluation: _Evaluation,
        required: str | None,
        pods: int,
        gang: bool,
    ) -> str:
        offered = {name for free in self.index.types for name, amount in free.items() if amount > 0}
        missing = sorted({name for request, _ in shapes for name in request} - offered)
        if not self.index.types:
            return f"topology {self.cluster.name!r} has no ready nodes"
        if missing:
            return f"no ready node offers {', '.join(missing)}"
        demand = _describe_shapes(shapes)
        if required is not None:
            depth = self.levels.index(required)
            text = f"no {required} domain holds all {pods} pods ({demand})"
            if evaluation.best_capacity is not None:
                text += f"; the largest holds {evaluation.best_capacity[depth]}"
            return text
        if not gang:
            return f"the cluster cannot hold all {pods} pods ({demand})"
        text = f"the whole cluster cannot hold the {pods} pods ({demand})"
        if evaluation.cluster_capacity is not None:
            text += f"; it holds {evaluation.cluster_capacity}"
        return text

    def pod_group(self, group: PodGroup, position: int) -> GroupPlacement:
        where = f"podGroups[{position}]"
        pod_sets = group_pod_sets(group)
        shapes = _shapes(pod_sets, where)
        report = self.group(
            name=group.name,
            min_member=group.min_member,
            pods=group.pods or sum(count for _, count in shapes),
            shapes=shapes,
            root=True,
            pod_sets=pod_sets,
        )
        required_of: dict[str, str | None] = {}
        subgroups = []
        # Parents before children, so a child knows its parent's requirement.
        for sub in _parents_first(group.sub_groups):
            sub_sets = subgroup_pod_sets(group, sub.name)
            parent_required = required_of.get(sub.parent) if sub.parent else report.required_level
            sub_report = self.group(
                name=sub.name,
                min_member=sub.min_member,
                pods=sub.pods or sum(pod_set.count for pod_set in sub_sets),
                shapes=_shapes(sub_sets, f"{where}.subGroups[{sub.name}]"),
                root=False,
                pod_sets=sub_sets,
                parent=sub.parent,
                parent_required=parent_required,
            )
            required_of[sub.name] = sub_report.required_level or parent_required
            subgroups.append(sub_report)
        order = {sub.name: i for i, sub in enumerate(group.sub_groups)}
        report.sub_groups = sorted(subgroups, key=lambda sub: order[sub.name])
        return report

    def slices(self) -> list[SliceFit]:
        """One :class:`SliceFit` per component with several pods per replica and several replicas."""
        fits = []
        for path, component in self.paths.items():
            size = component.pods_per_replica
            if not component.has_pod_template or size <= 1 or component.pods <= size:
                continue
            request = _parse_resources(component.pod_resources, f"components[{path}].podResources")
            report = self.group(
                name=f"{path}[slice]",
                min_member=size,
                pods=size,
                shapes=_merge_shapes([(request, size)]),
                root=False,
                pod_sets=[PodSet(component=path, count=size, pod_resources=component.pod_resources)],
            )
            fits.append(
                SliceFit(
                    component=path,
                    size=size,
                    count=component.pods // size,
                    fits=report.fits,
                    preferred_level=report.preferred_level,
                    required_level=report.required_level,
                    required_source=report.required_source,
                )
            )
        return fits

    def independent(self) -> list[GroupPlacement]:
        reports = []
        for path, component in self.paths.items():
            if not component.has_pod_template or component.pods <= 0:
                continue
            request = _parse_resources(component.pod_resources, f"components[{path}].podResources")
            pod_set = PodSet(component=path, count=1, pod_resources=component.pod_resources)
            reports.append(
                self.group(
                    name=path,
                    min_member=1,
                    pods=component.pods,
                    shapes=_merge_shapes([(request, 1)]),
                    root=True,
                    pod_sets=[pod_set],
                    gang=False,
                )
            )
        return reports


def _parents_first(sub_groups: Sequence[SubGroup]) -> list[SubGroup]:
    names = {sub.name for sub in sub_groups}
    done: set[str] = set()
    ordered: list[SubGroup] = []
    pending = list(sub_groups)
    while pending:
        progressed = False
        for sub in list(pending):
            if sub.parent is None or sub.parent not in names or sub.parent in done:
                ordered.append(sub)
                done.add(sub.name)
                pending.remove(sub)
                progressed = True
        if not progressed:  # a cycle: keep the declared order rather than loop
            ordered.extend(pending)
            break
    return ordered


def _all_shapes(tree: WorkloadTree, paths: Mapping[str, Component]) -> list[tuple[dict[str, Fraction], int]]:
    pods: list[tuple[dict[str, Fraction], int]] = []
    if tree.pod_groups:
        for position, group in enumerate(tree.pod_groups):
            pods.extend(_shapes(group_pod_sets(group), f"podGroups[{position}]"))
    else:
        for path, component in paths.items():
            if component.has_pod_template and component.pods > 0:
                request = _parse_resources(component.pod_resources, f"components[{path}].podResources")
                pods.append((request, component.pods))
    return _merge_shapes(pods)


def place(
    tree: WorkloadTree,
    cluster: Cluster,
    *,
    required: str | Mapping[str, str] | None = None,
    preferred: str | Mapping[str, str] | None = None,
    auto: bool = True,
    max_candidates: int = 10,
) -> PlacementReport:
    """Place every gang of ``tree`` on ``cluster`` (each gang considered alone).

    Args:
        tree: the workload tree. A tree without PodGroups (Deployment, batch Job) is placed as
            independent pods: one entry per component, ``gang: false``.
        cluster: nodes and levels (widest first).
        required: a level every PodGroup must fit in (node-label key, or a unique tail such as
            ``rack``), or a mapping from PodGroup/SubGroup name (``"*"`` = every PodGroup) to a
            level. Overrides requirements written on the workload.
        preferred: the preferred level to report (and export) instead of the narrowest fitting
            one; same forms as ``required``.
        auto: give a SubGroup that fits in one accelerator (NVLink) domain that level as its
            required level (see :func:`accelerator_level`).
        max_candidates: how many best-fit candidate domains to list per group.

    Returns:
        The report; ``fits`` is true when every group fits and all pods together fit the cluster.

    Raises:
        PlacementError: ``required``/``preferred`` names no level of the cluster.
        QuantityError: a pod resource amount in the tree is invalid.
    """
    for option, what in ((required, "required"), (preferred, "preferred")):
        values = [option] if isinstance(option, str) else list(option.values()) if option else []
        for value in values:
            resolve_level(value, cluster.levels, what=what)
    placer = _Placer(tree, cluster, _Request(required, preferred), auto, max_candidates)
    if tree.pod_groups:
        groups = [placer.pod_group(group, position) for position, group in enumerate(tree.pod_groups)]
    else:
        groups = placer.independent()
    reason = None
    unfit = [group.name for group in groups if not group.fits]
    if unfit:
        reason = f"{len(unfit)} of {len(groups)} groups do not fit: {', '.join(unfit)}"
    elif _pack_types(_all_shapes(tree, placer.paths), placer.index.composition(placer.index.whole)) is False:
        reason = "each group fits alone, but the cluster cannot hold all groups at once"
    return PlacementReport(
        workload=tree.workload.to_dict(),
        topology={"name": cluster.name, "levels": list(cluster.levels)},
        fits=reason is None,
        reason=reason,
        pod_groups=groups,
        slices=placer.slices(),
    )


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def rank_clusters(
    tree: WorkloadTree,
    clusters: Sequence[Cluster],
    *,
    place_fn: Callable[..., PlacementReport] | None = None,
    **options: Any,
) -> ClusterRanking:
    """Rank the clusters that can hold ``tree``, tightest fit first.

    Order: the fewest levels above the narrowest one that the widest-placed PodGroup needs
    (``levelsFromBottom``; the whole cluster counts as one above the widest level), then the least
    leftover GPUs in the cluster once the workload is placed, then the cluster name. Clusters that
    cannot hold it are listed under ``unfit`` with the reason. ``options`` go to :func:`place`.
    """
    placer = place_fn or place
    ranked: list[ClusterFit] = []
    unfit: list[dict[str, str]] = []
    for cluster in clusters:
        try:
            report = placer(tree, cluster, **options)
        except PlacementError as error:
            unfit.append({"cluster": cluster.name, "reason": str(error)})
            continue
        if not report.fits:
            unfit.append({"cluster": cluster.name, "reason": report.reason or "does not fit"})
            continue
        levels = list(cluster.levels)
        depth_from_bottom = 0
        widest: str | None = None
        for group in report.pod_groups:
            level = group.preferred_level
            height = len(levels) if level is None else len(levels) - 1 - levels.index(level)
            if height >= depth_from_bottom:
                depth_from_bottom, widest = height, level
        free_gpus = sum(
            (node.free().get(name, _ZERO) for node in cluster.nodes for name in DEFAULT_GPU_RESOURCES), _ZERO
        )
        needed = sum(
            (request.get(name, _ZERO) * count for request, count in _all_shapes(tree, component_paths(tree)) for name in DEFAULT_GPU_RESOURCES),
            _ZERO,
        )
        ranked.append(
            ClusterFit(
                cluster=cluster.name,
                preferred_level=widest,
                levels_from_bottom=depth_from_bottom,
                leftover_gpus=_number(free_gpus - needed),
                report=report,
            )
        )
    ranked.sort(key=lambda fit: (fit.levels_from_bottom, fit.leftover_gpus, fit.cluster))
    return ClusterRanking(workload=tree.workload.to_dict(), ranked=ranked, unfit=unfit)
