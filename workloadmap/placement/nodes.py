"""The nodes a scheduler can place on, as a tree of domains with free resources that placements consume.

Kueue and KAI build the same tree: only nodes that are Ready and not cordoned, and that carry
the label of every topology level (Kueue ``NodeMatchesFlavor`` in ``pkg/util/tas/node.go``, KAI
``isNodePartOfTopology`` in ``pkg/scheduler/plugins/topology/common.go``); a domain is the path
of label values from the widest level down. The hostname level falls back to the node name; when
the cluster's levels do not end with ``kubernetes.io/hostname``, the tree adds it as an implicit
last level so that an assignment always names nodes (Kueue would stop at the lowest level and
leave the node choice to kube-scheduler).

Free resources are kept per node *type*: nodes with equal free vectors share one, so a pod
shape's per-node capacity is computed once per type. Consuming pods moves a node to another
type; a journal lets a caller roll consumption back (KAI tries domains one after another).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ..labels import HOSTNAME
from ..scheduling import PodScheduling
from ..topology import Cluster, Node
from .numa_fit import NUMA_REASON, NumaTracker, numa_exclusion
from .packing import Amount, capacity_of, clean_free

__all__ = ["NodeTree", "Exclusions", "LeftOut"]

_ZERO = Fraction(0)
_SLOT = "pods"


@dataclass
class LeftOut:
    """Nodes of the cluster that the tree leaves out, and why (counts)."""

    not_ready: int = 0
    cordoned: int = 0
    missing_label: dict[str, int] = field(default_factory=dict)

    def notes(self) -> list[str]:
        """One sentence per reason, for the report."""
        notes = []
        if self.not_ready:
            notes.append(f"{self.not_ready} NotReady node(s) hold nothing")
        if self.cordoned:
            notes.append(f"{self.cordoned} cordoned (unschedulable) node(s) take no pods")
        for level, count in self.missing_label.items():
            notes.append(
                f"{count} node(s) lack the level label {level} and are left out of the topology, as Kueue and KAI do"
            )
        return notes


@dataclass
class Exclusions:
    """Why nodes were left out for one pod template, counted as Kueue's ``tasExclusionStats`` does."""

    total: int = 0
    taints: dict[str, int] = field(default_factory=dict)
    node_selector: int = 0
    affinity: int = 0
    numa: dict[str, int] = field(default_factory=dict)  # the kubelet's topology manager: reason -> nodes

    @property
    def any(self) -> bool:
        """Whether a filter left out at least one node."""
        return bool(self.taints or self.node_selector or self.affinity or self.numa)

    def reasons(self, resources: dict[str, int] | None = None) -> str:
        """Kueue's ``formatReasons``: ``nodeSelector: 2, taint "k=v:NoSchedule": 1``, sorted."""
        parts = []
        if self.node_selector:
            parts.append(f"nodeSelector: {self.node_selector}")
        if self.affinity:
            parts.append(f"affinity: {self.affinity}")
        parts += [f'taint "{taint}": {count}' for taint, count in self.taints.items()]
        parts += [f'{NUMA_REASON} "{reason}": {count}' for reason, count in self.numa.items()]
        parts += [f'resource "{name}": {count}' for name, count in (resources or {}).items()]
        return ", ".join(sorted(parts))


class NodeTree:
    """Usable nodes carrying every level label, their domains per level, and their free resources.

    Attributes:
        levels: the cluster's levels, plus ``kubernetes.io/hostname`` when it was not the last.
        nodes: the nodes in the tree; node ``i`` is leaf domain ``i`` of the last level.
        paths: per level, each domain's label values from the widest level down.
        parents: per level, each domain's parent domain one level up (-1 at the top level).
        children: per level but the last, each domain's child domains.
        node_domain: per level, the domain of each node.
        left_out: the cluster's nodes the tree does not hold.
    """

    def __init__(self, cluster: Cluster) -> None:
        self.levels = list(cluster.levels)
        self.implicit_host = not self.levels or self.levels[-1] != HOSTNAME
        if self.implicit_host:
            self.levels.append(HOSTNAME)
        self.left_out = LeftOut()
        self.nodes: list[Node] = []
        for node in cluster.nodes:
            if not node.ready:
                self.left_out.not_ready += 1
            elif node.unschedulable:
                self.left_out.cordoned += 1
            else:
                missing = next((key for key in cluster.levels if key not in node.labels), None)
                if missing is None:
                    self.nodes.append(node)
                else:
                    self.left_out.missing_label[missing] = self.left_out.missing_label.get(missing, 0) + 1
        self.paths: list[list[tuple[str, ...]]] = []
        self.parents: list[list[int]] = []
        self.children: list[list[list[int]]] = []
        self.node_domain: list[list[int]] = []
        self._build_domains()
        self.types: list[dict[str, Amount]] = []
        self._type_ids: dict[tuple[tuple[str, Amount], ...], int] = {}
        self.node_type = self._initial_types()
        # Per level above the nodes, each domain's node count per type (kept up to date by consume).
        self.domain_types: list[list[dict[int, int]]] = [[{} for _ in paths] for paths in self.paths[:-1]]
        for counts, own in zip(self.domain_types, self.node_domain, strict=False):
            for domain, type_id in zip(own, self.node_type, strict=True):
                types = counts[domain]
                types[type_id] = types.get(type_id, 0) + 1
        self._capacity: dict[tuple, list[int]] = {}
        self._eligible: dict[tuple, tuple[list[bool], Exclusions]] = {}
        self._value_counts: dict[int, dict[str, int]] = {}
        self.journal: list[tuple[int, int]] = []
        # NUMA nodes taken as pods are placed, where nodes have a NUMA layout (numa_fit).
        self.numa = NumaTracker(self.nodes) if any(node.numa for node in self.nodes) else None

    def _initial_types(self) -> list[int]:
        """Each node's type; nodes built alike (equal allocatable and used) are computed once."""
        raw_types: dict[tuple, int] = {}
        found = []
        for node in self.nodes:
            # Readers share one Fraction object per distinct raw quantity, so object identities tell
            # nodes built alike apart without hashing fractions (equal values under other objects
            # only cost one more type computation, which ends in the same type).
            raw = (
                tuple([(name, id(value)) for name, value in node.allocatable.items()]),
                tuple([(name, id(value)) for name, value in node.used.items()]) if node.used else (),
            )
            type_id = raw_types.get(raw)
            if type_id is None:
                type_id = raw_types[raw] = self._type_of(node.free())
            found.append(type_id)
        return found

    def _build_domains(self) -> None:
        previous = [-1] * len(self.nodes)
        last = len(self.levels) - 1
        for depth, key in enumerate(self.levels):
            ids: dict[tuple[int, str], int] = {}
            paths: list[tuple[str, ...]] = []
            parents: list[int] = []
            own: list[int] = []
            for position, node in enumerate(self.nodes):
                parent = previous[position]
                value = node.labels.get(key)
                if value is None:
                    value = node.name
                if depth == last:  # one domain per node
                    own.append(len(paths))
                    paths.append((*(self.paths[depth - 1][parent] if depth else ()), value))
                    parents.append(parent)
                    continue
                ident = (parent, value)
                domain = ids.get(ident)
                if domain is None:
                    domain = ids[ident] = len(paths)
                    paths.append((*(self.paths[depth - 1][parent] if depth else ()), value))
                    parents.append(parent)
                own.append(domain)
            self.paths.append(paths)
            self.parents.append(parents)
            self.node_domain.append(own)
            if depth:
                kids: list[list[int]] = [[] for _ in self.paths[depth - 1]]
                for domain, parent in enumerate(parents):
                    kids[parent].append(domain)
                self.children.append(kids)
            previous = own

    # -- free resources -------------------------------------------------------------------------

    def _type_of(self, free: dict[str, Fraction]) -> int:
        key = clean_free(free)
        type_id = self._type_ids.get(key)
        if type_id is None:
            type_id = self._type_ids[key] = len(self.types)
            self.types.append(dict(key))
        return type_id

    def free(self, node: int) -> dict[str, Amount]:
        """The free resources of node ``node``."""
        return self.types[self.node_type[node]]

    def type_capacity(self, request: dict[str, Amount]) -> list[int]:
        """Per node type, how many pods of ``request`` (a cleaned request) fit on one such node."""
        key = tuple(sorted(request.items()))
        known = self._capacity.setdefault(key, [])
        for free in self.types[len(known) :]:
            known.append(capacity_of(free, request))
        return known

    def capacity(self, request: dict[str, Amount], eligible: Sequence[bool] | None = None) -> list[int]:
        """Per node, how many pods of ``request`` fit (0 on nodes not ``eligible``)."""
        per_type = self.type_capacity(request)
        node_type = self.node_type
        if eligible is None:
            return [per_type[type_id] for type_id in node_type]
        return [per_type[type_id] if ok else 0 for type_id, ok in zip(node_type, eligible, strict=True)]

    def consume(
        self, node: int, request: dict[str, Amount], count: int, scheduling: PodScheduling | None = None
    ) -> None:
        """Take ``count`` pods of ``request`` from node ``node`` (journaled).

        With the pods' ``scheduling`` on a node with a NUMA layout, the kubelet admits them one
        after another (:class:`~workloadmap.placement.numa_fit.NumaTracker`).
        """
        if count <= 0:
            return
        if self.numa is not None:
            self.numa.take(len(self.journal), node, scheduling, count)
        free = dict(self.types[self.node_type[node]])
        for name, amount in request.items():
            free[name] = free.get(name, _ZERO) - amount * count
        if _SLOT in free:
            free[_SLOT] = free[_SLOT] - count
        self.journal.append((node, self.node_type[node]))
        self._set_type(node, self._type_of({name: max(_ZERO, Fraction(value)) for name, value in free.items()}))

    def _count_type(self, node: int, type_id: int, delta: int) -> None:
        for depth, counts in enumerate(self.domain_types):
            types = counts[self.node_domain[depth][node]]
            left = types.get(type_id, 0) + delta
            if left:
                types[type_id] = left
            else:
                del types[type_id]

    def _set_type(self, node: int, type_id: int) -> None:
        self._count_type(node, self.node_type[node], -1)
        self.node_type[node] = type_id
        self._count_type(node, type_id, 1)

    def mark(self) -> int:
        """A point to :meth:`rollback` to."""
        return len(self.journal)

    def taken_since(self, mark: int, names: Sequence[str]) -> dict[str, Fraction]:
        """Per node name, how much of the resources ``names`` (the GPUs) the consumption since ``mark`` took."""
        first: dict[int, int] = {}
        for node, previous in self.journal[mark:]:
            first.setdefault(node, previous)
        taken = {}
        for node, previous in first.items():
            before, now = self.types[previous], self.types[self.node_type[node]]
            amount = sum((Fraction(before.get(name, 0)) - Fraction(now.get(name, 0)) for name in names), Fraction(0))
            if amount:
                taken[self.nodes[node].name] = amount
        return taken

    def rollback(self, mark: int) -> None:
        """Undo every :meth:`consume` since ``mark``."""
        while len(self.journal) > mark:
            node, previous = self.journal.pop()
            self._set_type(node, previous)
        if self.numa is not None:
            self.numa.rollback(mark)

    # -- eligibility ----------------------------------------------------------------------------

    def eligible(self, scheduling: PodScheduling) -> tuple[list[bool], Exclusions]:
        """Which nodes pass the pod template's filters (taints, nodeSelector, affinity), and why not.

        The filters run in Kueue's order: an untolerated taint first, then the selector, then the
        required affinity; each node counts once, under the first filter it fails. Last, on nodes
        with a NUMA layout, the kubelet's topology manager must admit one such pod (``numa_fit``).
        """
        cached = self._eligible.get(_scheduling_key(scheduling))
        if cached is not None:
            return cached
        stats = Exclusions(total=len(self.nodes))
        keys = sorted(scheduling.label_keys)
        uses_name = scheduling.uses_name
        memo: dict[tuple, str | None] = {}
        flags = []
        for node in self.nodes:
            labels = node.labels
            memo_key = (
                node.taints,
                tuple([labels.get(key) for key in keys]),
                node.name if uses_name else None,
                node.numa,
            )
            if memo_key not in memo:
                memo[memo_key] = _excluded_by(scheduling, node)
            why = memo[memo_key]
            flags.append(why is None)
            if why is None:
                continue
            if why == "nodeSelector":
                stats.node_selector += 1
            elif why == "affinity":
                stats.affinity += 1
            elif why.startswith(_NUMA_PREFIX):
                reason = why[len(_NUMA_PREFIX) :]
                stats.numa[reason] = stats.numa.get(reason, 0) + 1
            else:
                stats.taints[why] = stats.taints.get(why, 0) + 1
        result = (flags, stats)
        self._eligible[_scheduling_key(scheduling)] = result
        return result

    # -- domains --------------------------------------------------------------------------------

    def display(self, depth: int, domain: int) -> str:
        """A domain's label value, or its path (``b0/r1``) when other domains of the level share the value."""
        path = self.paths[depth][domain]
        if depth == 0 or depth == len(self.levels) - 1:
            return path[-1]
        counts = self._value_counts.get(depth)
        if counts is None:
            counts = self._value_counts[depth] = {}
            for other in self.paths[depth]:
                counts[other[-1]] = counts.get(other[-1], 0) + 1
        return path[-1] if counts[path[-1]] == 1 else "/".join(path)

    def types_in(self, depth: int, domain: int) -> dict[int, int]:
        """How many nodes of each type the domain holds."""
        if depth == len(self.levels) - 1:
            return {self.node_type[domain]: 1}
        return self.domain_types[depth][domain]

    def domain_free(self, depth: int, domain: int) -> dict[str, Amount]:
        """The free resources of a whole domain (every node's, summed)."""
        total: dict[str, Amount] = {}
        for type_id, count in self.types_in(depth, domain).items():
            for name, amount in self.types[type_id].items():
                total[name] = total.get(name, 0) + amount * count
        return total

    def nodes_in(self, depth: int, domain: int) -> list[int]:
        """The nodes of a domain, in tree order."""
        found = [domain]
        for level in range(depth, len(self.levels) - 1):
            found = [child for parent in found for child in self.children[level][parent]]
        return found

    def rollup(self, per_node: Sequence[int]) -> list[list[int]]:
        """Per level, the sum of ``per_node`` over each domain's nodes (last level: the nodes)."""
        sums = [list(per_node)]
        for depth in range(len(self.levels) - 2, -1, -1):
            totals = [0] * len(self.paths[depth])
            parents = self.parents[depth + 1]
            for domain, amount in enumerate(sums[0]):
                if amount:
                    totals[parents[domain]] += amount
            sums.insert(0, totals)
        return sums

    def common_domain(self, nodes: Sequence[int]) -> tuple[int, int] | None:
        """The narrowest (depth, domain) holding every node given; None when only the whole cluster does."""
        if not nodes:
            return None
        for depth in range(len(self.levels) - 1, -1, -1):
            found = {self.node_domain[depth][node] for node in nodes}
            if len(found) == 1:
                return depth, found.pop()
        return None


_NUMA_PREFIX = f"{NUMA_REASON}: "


def _scheduling_key(scheduling: PodScheduling) -> tuple:
    return (scheduling.node_selector, scheduling.tolerations, scheduling.required_terms, scheduling.numa)


def _excluded_by(scheduling: PodScheduling, node: Node) -> str | None:
    """The first filter the node fails (a taint as text, ``nodeSelector``, ``affinity``, ``numa: why``), or None."""
    taint = scheduling.untolerated(node.taints)
    if taint is not None:
        return str(taint)
    if not scheduling.selector_matches(node.labels):
        return "nodeSelector"
    if not scheduling.affinity_matches(node.labels, node.name):
        return "affinity"
    rejected = numa_exclusion(node, scheduling)
    return None if rejected is None else _NUMA_PREFIX + rejected
