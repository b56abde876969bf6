"""The cluster index: ready nodes reduced to distinct free-resource types, domains as type multisets.

Placement asks the same question of many domains ("do these pods fit here?"). Nodes built
alike have equal free vectors, so the index keeps one *type* per distinct vector and describes
each domain by its *signature*, the multiset of node types it holds; domains with equal
signatures are decided once. :func:`evaluate` answers, for one set of pod shapes, which domains
of every level hold them all, with exact integer arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..labels import HOSTNAME
from ..resources import DEFAULT_GPU_RESOURCES, count_gpus
from ..topology import Cluster, Node
from .fitting import pack_types
from .packing import Amount, Shape, capacity_of, clean_free

__all__ = ["ClusterIndex", "Evaluation", "evaluate"]

_ZERO = Fraction(0)

Signature = tuple[tuple[int, int], ...]
"""A domain's composition: (node type id, how many nodes of it) pairs, sorted."""


@dataclass(slots=True)
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


class ClusterIndex:
    """Usable nodes (all of the cluster's, or those given) reduced to free-resource types; domains as type multisets."""

    def __init__(
        self,
        cluster: Cluster,
        gpu_resources: Sequence[str] = DEFAULT_GPU_RESOURCES,
        nodes: Sequence[Node] | None = None,
        frees: Sequence[Mapping[str, Amount]] | None = None,
        grouped: Sequence[tuple[Sequence[int], Sequence[tuple[str, ...]]] | None] = (),
    ) -> None:
        """Index ``nodes`` (default: the cluster's usable nodes) by type and by domain.

        Args:
            cluster: the cluster (its levels).
            gpu_resources: the resource names counted as GPUs.
            nodes: the nodes to index, instead of the cluster's usable ones.
            frees: with ``nodes``, each node's free resources (shared objects for nodes alike).
            grouped: per level, the domains the nodes are already grouped in, when known (the
                node tree's): each node's domain id, where nodes share an id exactly when they
                share the parent domain and the label value, and each id's path of label values.
                The level is then not grouped again from the labels.
        """
        self.cluster = cluster
        self.gpu_resources = tuple(gpu_resources)
        self.levels_keys = list(cluster.levels)
        self.types: list[dict[str, Amount]] = []
        if frees is not None and nodes is not None:
            # Free vectors computed by the caller (shared objects for nodes alike): one type per object.
            nodes = list(nodes)
            node_types = self._given_types(frees)
        else:
            nodes = [node for node in (cluster.nodes if nodes is None else nodes) if node.usable]
            node_types = self._node_types(nodes)
        whole: dict[int, int] = {}
        for type_id in node_types:
            whole[type_id] = whole.get(type_id, 0) + 1
        self.whole = tuple(sorted(whole.items()))
        self._integral: dict[tuple[tuple[str, int], ...], list[dict[str, int]]] = {}
        self.levels: list[_Level] = []
        parent_of_node: list[int] = [-1] * len(nodes)
        for depth, level_key in enumerate(self.levels_keys):
            known = grouped[depth] if depth < len(grouped) else None
            if known is not None:
                level, parent_of_node = self._grouped_level(level_key, known, node_types, parent_of_node)
            else:
                level, parent_of_node = self._level(level_key, nodes, node_types, parent_of_node)
            self.levels.append(level)

    def _given_types(self, frees: Sequence[Mapping[str, Amount]]) -> list[int]:
        type_ids: dict[tuple[tuple[str, Amount], ...], int] = {}
        by_object: dict[int, int] = {}
        node_types = []
        for free in frees:
            type_id = by_object.get(id(free))
            if type_id is None:
                key = clean_free(free)
                type_id = type_ids.get(key)
                if type_id is None:
                    type_id = type_ids[key] = len(self.types)
                    self.types.append(dict(key))
                by_object[id(free)] = type_id
            node_types.append(type_id)
        return node_types

    def _node_types(self, nodes: list[Node]) -> list[int]:
        """The type id of each node, filling :attr:`types` with one free vector per distinct type."""
        type_ids: dict[tuple[tuple[str, Amount], ...], int] = {}
        node_types: list[int] = []
        # Nodes built alike share allocatable/used contents: key on those (as integers, which
        # hash fast) before any arithmetic.
        raw_ids: dict[tuple[Any, ...], int] = {}
        for node in nodes:
            raw = (  # amounts by identity: see NodeTree._initial_types
                tuple((name, id(value)) for name, value in node.allocatable.items()),
                tuple((name, id(value)) for name, value in node.used.items()) if node.used else (),
            )
            type_id = raw_ids.get(raw)
            if type_id is None:
                key = clean_free(node.free())
                type_id = type_ids.get(key)
                if type_id is None:
                    type_id = type_ids[key] = len(self.types)
                    self.types.append(dict(key))
                raw_ids[raw] = type_id
            node_types.append(type_id)
        return node_types

    def _level(
        self, level_key: str, nodes: list[Node], node_types: list[int], parent_of_node: list[int]
    ) -> tuple[_Level, list[int]]:
        """One level's domains and their signatures, and the domain of each node at this level."""
        level = _Level(level_key)
        # A domain is (parent domain, label value): the same value under two parents is two domains.
        domain_ids: dict[tuple[int, str], int] = {}
        # Each domain's composition: its one node's type id while it has one node (most domains
        # of the hostname level), a {type id: count} mapping from its second node on.
        compositions: list[int | dict[int, int]] = []
        node_domain: list[int] = []
        is_first = not self.levels
        hostname = level_key == HOSTNAME
        values: list[str] = []
        parents: list[int] = []
        for node, parent, type_id in zip(nodes, parent_of_node, node_types, strict=True):
            value = node.labels.get(level_key)
            if value is None and hostname:
                value = node.name
            if value is None or (parent < 0 and not is_first):
                node_domain.append(-1)
                continue
            ident = (parent, value)
            domain_id = domain_ids.get(ident)
            if domain_id is None:
                domain_id = domain_ids[ident] = len(values)
                values.append(value)
                parents.append(parent)
                compositions.append(type_id)
            else:
                composition = compositions[domain_id]
                if isinstance(composition, int):
                    composition = compositions[domain_id] = {composition: 1}
                composition[type_id] = composition.get(type_id, 0) + 1
            node_domain.append(domain_id)
        self._sign(level, values, parents, compositions)
        return level, node_domain

    def _grouped_level(
        self,
        level_key: str,
        known: tuple[Sequence[int], Sequence[tuple[str, ...]]],
        node_types: list[int],
        parent_of_node: list[int],
    ) -> tuple[_Level, list[int]]:
        """As :meth:`_level`, from domains the nodes are already grouped in (no label lookups)."""
        level = _Level(level_key)
        ids, paths = known
        own: dict[int, int] = {}
        compositions: list[int | dict[int, int]] = []
        node_domain: list[int] = []
        values: list[str] = []
        parents: list[int] = []
        for given, parent, type_id in zip(ids, parent_of_node, node_types, strict=True):
            domain_id = own.get(given)
            if domain_id is None:
                domain_id = own[given] = len(values)
                values.append(paths[given][-1])
                parents.append(parent)
                compositions.append(type_id)
            else:
                composition = compositions[domain_id]
                if isinstance(composition, int):
                    composition = compositions[domain_id] = {composition: 1}
                composition[type_id] = composition.get(type_id, 0) + 1
            node_domain.append(domain_id)
        self._sign(level, values, parents, compositions)
        return level, node_domain

    @staticmethod
    def _sign(level: _Level, values: list[str], parents: list[int], compositions: list[int | dict[int, int]]) -> None:
        """Give the level its domains, each with the id of its signature (shared by equal compositions)."""
        signature_ids: dict[Signature, int] = {}
        single: dict[int, Signature] = {}
        signatures = level.signatures
        signature_domains = level.signature_domains
        domains = level.domains
        for domain_id, composition in enumerate(compositions):
            if isinstance(composition, int):
                signature = single.get(composition)
                if signature is None:
                    signature = single[composition] = ((composition, 1),)
            else:
                signature = tuple(sorted(composition.items()))
            signature_id = signature_ids.get(signature)
            if signature_id is None:
                signature_id = signature_ids[signature] = len(signatures)
                signatures.append(signature)
                signature_domains.append([])
            domains.append(_Domain(values[domain_id], parents[domain_id], signature_id))
            signature_domains[signature_id].append(domain_id)

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

    def composition(self, signature: tuple[tuple[int, int], ...]) -> list[Shape]:
        """The node types of a domain of this composition, with their counts."""
        return [(self.types[type_id], count) for type_id, count in signature]

    def gpus(self, signature: tuple[tuple[int, int], ...]) -> Fraction:
        """Free GPUs of a domain of this composition."""
        return sum((count_gpus(self.types[type_id], self.gpu_resources) * count for type_id, count in signature), _ZERO)

    def resource(self, signature: tuple[tuple[int, int], ...], name: str) -> Fraction:
        """Free amount of one resource in a domain of this composition."""
        total = _ZERO
        for type_id, count in signature:
            total += self.types[type_id].get(name, 0) * count
        return total


@dataclass
class Evaluation:
    """How one set of pods fits the cluster's domains."""

    level_fitting: list[int]
    signature_fits: list[list[bool]]  # known to fit; an undecided domain is not among them
    cluster_fits: bool
    approximate: bool  # some answer was undecided (search budget spent)
    best_capacity: list[int] | None  # single shape only: max pods one domain holds, per level
    cluster_capacity: int | None
    level_undecided: list[int] = field(default_factory=list)  # domains per level whose answer is unknown
    cluster_undecided: bool = False  # the whole cluster's answer is unknown


def _scale(index: ClusterIndex, shapes: list[Shape]) -> dict[str, int]:
    """Per resource, a multiplier that turns every amount involved into a whole number."""
    scale: dict[str, int] = {}
    for amounts in [free for free in index.types] + [request for request, _ in shapes]:
        for name, amount in amounts.items():
            denominator = Fraction(amount).denominator
            if denominator != 1:
                current = scale.get(name, 1)
                scale[name] = current * denominator // math.gcd(current, denominator)
    return scale


def _one_shape(index: ClusterIndex, types: list[dict[str, int]], request: dict[str, Amount], count: int) -> Evaluation:
    """Pods of one shape: a domain holds them when the sum of its nodes' capacities does."""
    type_capacity = [capacity_of(free, request) for free in types]

    def capacity(signature: Signature) -> int:
        return sum(type_capacity[type_id] * multiplicity for type_id, multiplicity in signature)

    signature_fits: list[list[bool]] = []
    fitting: list[int] = []
    best: list[int] = []
    for level in index.levels:
        capacities = [capacity(signature) for signature in level.signatures]
        fits = [value >= count for value in capacities]
        signature_fits.append(fits)
        fitting.append(sum(len(level.signature_domains[i]) for i, ok in enumerate(fits) if ok))
        best.append(max(capacities, default=0))
    whole = capacity(index.whole)
    return Evaluation(fitting, signature_fits, whole >= count, False, best, whole, [0] * len(fitting))


def _mixed_shapes(index: ClusterIndex, types: list[dict[str, int]], shapes: list[Shape]) -> Evaluation:
    """Pods of several shapes: packed per domain composition, narrowest level first."""
    cache: dict[Signature, bool | None] = {}
    type_capacities = [[capacity_of(free, request) for request, _ in shapes] for free in types]
    demands = [count for _, count in shapes]

    def decide(signature: Signature) -> bool | None:
        if signature not in cache:
            capacities = [0] * len(shapes)
            for type_id, multiplicity in signature:
                for position, value in enumerate(type_capacities[type_id]):
                    capacities[position] += value * multiplicity
            if any(have < need for have, need in zip(capacities, demands, strict=True)):
                cache[signature] = False
                return False
            composition: list[Shape] = [(dict(types[type_id]), multiplicity) for type_id, multiplicity in signature]
            cache[signature] = pack_types(shapes, composition, capacities=capacities, gpu_resources=index.gpu_resources)
        return cache[signature]

    signature_fits: list[list[bool]] = [[] for _ in index.levels]
    fitting = [0] * len(index.levels)
    undecided = [0] * len(index.levels)
    child_fits: set[int] = set()
    for depth in range(len(index.levels) - 1, -1, -1):
        level = index.levels[depth]
        results = []
        for signature_id, signature in enumerate(level.signatures):
            members = level.signature_domains[signature_id]
            # Domains of equal composition fit alike; one with a fitting child domain fits.
            answer = True if any(member in child_fits for member in members) else decide(signature)
            results.append(answer is True)
            if answer is True:
                fitting[depth] += len(members)
            elif answer is None:
                undecided[depth] += len(members)  # unknown is never counted as a fit
        signature_fits[depth] = results
        child_fits = {domain.parent for domain in level.domains if results[domain.signature]}
    whole = True if child_fits else decide(index.whole)
    approximate = whole is None or any(undecided) or None in cache.values()
    return Evaluation(
        fitting, signature_fits, whole is True, approximate, None, None, undecided, cluster_undecided=whole is None
    )


def evaluate(index: ClusterIndex, shapes: list[Shape]) -> Evaluation:
    """Which domains hold all ``shapes``; arithmetic runs on integers (exact, and fast)."""
    scale = _scale(index, shapes)
    types = index.integral_types(scale)
    scaled: list[Shape] = [
        ({name: int(amount * scale.get(name, 1)) for name, amount in request.items()}, count)
        for request, count in shapes
    ]
    if not scaled:
        fits = [[True] * len(level.signatures) for level in index.levels]
        return Evaluation(
            [len(level.domains) for level in index.levels], fits, True, False, None, None, [0] * len(fits)
        )
    if len(scaled) == 1:
        return _one_shape(index, types, *scaled[0])
    return _mixed_shapes(index, types, scaled)
