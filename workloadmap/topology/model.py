"""The cluster model: nodes with labels, capacity and usage, and ordered topology levels.

A :class:`Cluster` is what every topology source produces and what placement consumes.
Levels are node-label keys ordered widest first, ``kubernetes.io/hostname`` last (the same order
KAI and Kueue ``Topology`` objects use).

Domains (:func:`domain_tree`): nodes that share the values of every level down to level *L*
form one domain at level *L*. A domain is therefore identified by its **path** of label values,
widest first, not by its own value alone: the value ``leaf-1`` under ``spine-a`` and ``leaf-1``
under ``spine-b`` are two different domains. This is how Kueue TAS and KAI build domain IDs
(the values of all levels above joined together), so a tool that places pods "in one
``leaf-1``" never mixes nodes from two spines. A node that lacks a level's label sits in a
domain whose value is ``None`` at that level (shown as ``<none>``); KAI and Kueue do not place
a workload that requires that level on such nodes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..errors import QuantityError, TopologyError
from ..labels import HOSTNAME, NVIDIA_GPU
from ..numa import NumaLayout
from ..quantities import parse_quantity
from ..resources import DEFAULT_GPU_RESOURCES, count_gpus
from ..scheduling import Taint
from ..values import as_number

__all__ = [
    "MAX_LEVELS",
    "Node",
    "Cluster",
    "NodeCapacity",
    "Domain",
    "domain_tree",
    "validate_levels",
]

# KAI and Kueue Topology objects allow 1-16 levels.
MAX_LEVELS = 16

_ZERO = Fraction(0)


@dataclass
class Node:
    """One node.

    Attributes:
        name: the node name.
        labels: node labels (topology levels are looked up here).
        allocatable: allocatable resources, exact (``cpu``, ``memory``, ``pods``, ``nvidia.com/gpu`` ...).
        ready: whether the node's ``Ready`` condition is true (a node that is not holds nothing).
        used: requests of the pods bound to the node that have not terminated, exact; ``pods``
            counts them.
        unschedulable: ``spec.unschedulable``: the node is cordoned and takes no new pods.
        taints: ``spec.taints``; pods without a matching toleration stay off ``NoSchedule`` and
            ``NoExecute`` taints.
        numa: the node's NUMA zones and topology manager settings (from its
            ``NodeResourceTopology``), when known; the kubelet's admission is then predicted.
    """

    name: str
    labels: dict[str, str] = field(default_factory=dict)
    allocatable: dict[str, Fraction] = field(default_factory=dict)
    ready: bool = True
    used: dict[str, Fraction] = field(default_factory=dict)
    unschedulable: bool = False
    taints: tuple[Taint, ...] = ()
    numa: NumaLayout | None = None

    @property
    def usable(self) -> bool:
        """Ready and not cordoned: the node can take new pods (Kueue and KAI skip the others)."""
        return self.ready and not self.unschedulable

    def free(self) -> dict[str, Fraction]:
        """Allocatable minus used, per resource (never below zero); empty for a node not :attr:`usable`."""
        if not self.usable:
            return {}
        return {
            name: max(Fraction(0), amount - self.used.get(name, Fraction(0)))
            for name, amount in self.allocatable.items()
        }

    def gpus(self, gpu_resources: Sequence[str] = DEFAULT_GPU_RESOURCES) -> Fraction:
        """Allocatable GPUs, summed over the GPU resource names given (ready or not)."""
        return count_gpus(self.allocatable, gpu_resources)

    def free_gpus(self, gpu_resources: Sequence[str] = DEFAULT_GPU_RESOURCES) -> Fraction:
        """GPUs not requested by running pods; zero for a node not :attr:`usable`."""
        if not self.usable:
            return _ZERO
        total = _ZERO
        for name in gpu_resources:
            amount = self.allocatable.get(name)
            if amount is not None:
                total += max(_ZERO, amount - self.used.get(name, _ZERO))
        return total


@dataclass
class Cluster:
    """A set of nodes and the topology levels that group them.

    Attributes:
        name: a label for the cluster (file name, generated example name ...).
        nodes: the nodes.
        levels: node-label keys, widest domain first, hostname last.
        source: where the data came from (for messages).
        notes: what reading the source assumed or left out that a reader should know (a
            capacity the source does not state, pods bound to nodes the cluster lacks).
        topology: the name of the KAI ``Topology`` (or Grove ClusterTopologyBinding) that stated
            the levels, if one did.
        aliases: names that stand for levels (alias -> node-label key): a KAI ``Topology``'s
            ``levels[].alias`` (KAI v0.17, #1788), a Grove ClusterTopologyBinding's ``domain``s.
    """

    name: str
    nodes: list[Node] = field(default_factory=list)
    levels: list[str] = field(default_factory=list)
    source: str | None = None
    notes: list[str] = field(default_factory=list)
    topology: str | None = None
    aliases: dict[str, str] = field(default_factory=dict)

    def node(self, name: str) -> Node | None:
        """The node called ``name``, or ``None``."""
        for node in self.nodes:
            if node.name == name:
                return node
        return None

    def level_values(self, level: str) -> set[str]:
        """The distinct values the nodes carry for the label ``level`` (nodes without it skipped)."""
        return {node.labels[level] for node in self.nodes if level in node.labels}

    def domain_tree(self, gpu_resources: Sequence[str] = DEFAULT_GPU_RESOURCES) -> "Domain":
        """The nested domains of this cluster along :attr:`levels` (see :func:`domain_tree`)."""
        return domain_tree(self, gpu_resources=gpu_resources)


@dataclass(frozen=True)
class NodeCapacity:
    """Per-node capacity for sources that describe topology but not nodes (Slurm files, models).

    The defaults are those of Topograph's KWOK node renderer (cpu 96, memory 1024Gi, pods 110)
    plus 8 GPUs, the size of an HGX board, and local disk: every real node reports
    ``ephemeral-storage``, and a pod that requests some cannot land on a node without it.
    """

    gpus: int = 8
    cpu: str | int = 96
    memory: str | int = "1024Gi"
    pods: int = 110
    gpu_resource: str = NVIDIA_GPU
    ephemeral_storage: str | int = "3500Gi"

    def allocatable(self) -> dict[str, Fraction]:
        """The allocatable map every node of this capacity gets (a fresh dict each call).

        Raises:
            TopologyError: a capacity value is not a valid quantity or is negative.
        """
        values = {
            "cpu": self.cpu,
            "memory": self.memory,
            "pods": self.pods,
            "ephemeral-storage": self.ephemeral_storage,
            self.gpu_resource: self.gpus,
        }
        allocatable: dict[str, Fraction] = {}
        for name, raw in values.items():
            try:
                amount = parse_quantity(raw)
            except QuantityError as error:
                raise TopologyError(f"invalid per-node {name} capacity: {error}") from None
            if amount < 0:
                raise TopologyError(f"per-node {name} capacity must not be negative, got {raw!r}")
            if amount or name != self.gpu_resource:
                allocatable[name] = amount
        return allocatable


def validate_levels(
    levels: object,
    *,
    file: str | None = None,
    document: str | None = None,
    field_name: str = "levels",
) -> list[str]:
    """Check a level list the way KAI and Kueue validate ``Topology.spec.levels``.

    The list must hold 1-16 unique, non-empty label keys, and ``kubernetes.io/hostname`` may only
    be the last one. Returns the levels as a list of str.

    Raises:
        TopologyError: the list breaks one of these rules; the error names the offending entry.
    """
    if not isinstance(levels, (list, tuple)):
        raise TopologyError(
            f"expected a list of node-label keys, got {type(levels).__name__}",
            file=file,
            document=document,
            field=field_name,
        )
    if not levels:
        raise TopologyError("at least one level is required", file=file, document=document, field=field_name)
    if len(levels) > MAX_LEVELS:
        raise TopologyError(
            f"at most {MAX_LEVELS} levels are allowed, got {len(levels)}",
            file=file,
            document=document,
            field=field_name,
        )
    seen: set[str] = set()
    for index, level in enumerate(levels):
        where = f"{field_name}[{index}]"
        if not isinstance(level, str) or not level.strip():
            raise TopologyError(
                f"a level must be a non-empty node-label key, got {level!r}",
                file=file,
                document=document,
                field=where,
            )
        if level != level.strip():
            raise TopologyError(f"level {level!r} has surrounding spaces", file=file, document=document, field=where)
        if level in seen:
            raise TopologyError(f"level {level!r} is listed twice", file=file, document=document, field=where)
        if level == HOSTNAME and index != len(levels) - 1:
            raise TopologyError(
                f"{HOSTNAME} may only be the last (narrowest) level",
                file=file,
                document=document,
                field=where,
            )
        seen.add(level)
    return list(levels)


@dataclass
class Domain:
    """One topology domain: the nodes sharing the label values of every level down to ``level``.

    The root domain (the whole cluster) has ``level`` and ``value`` ``None`` and an empty path.

    Attributes:
        level: the label key of this domain's level.
        value: this domain's label value (``None``: the nodes lack the label).
        path: the label values from the widest level down to this one; the domain's identity.
        nodes: every node in the domain (its whole subtree).
        children: the domains one level down, keyed by their value within this domain.
        ready_nodes: how many of :attr:`nodes` are Ready (cordoned or not, as `kubectl get nodes`
            counts a ``Ready,SchedulingDisabled`` node).
        gpus_total: allocatable GPUs of all nodes.
        gpus_free: GPUs not used by running pods on usable (Ready, uncordoned) nodes.
        cordoned_nodes: how many of :attr:`nodes` are cordoned (``spec.unschedulable``).
    """

    level: str | None
    value: str | None
    path: tuple[str | None, ...] = ()
    nodes: list[Node] = field(default_factory=list)
    children: dict[str | None, "Domain"] = field(default_factory=dict)
    ready_nodes: int = 0
    gpus_total: Fraction = _ZERO
    gpus_free: Fraction = _ZERO
    cordoned_nodes: int = 0

    @property
    def id(self) -> str:
        """The path joined with ``/`` (``<none>`` for a missing label); ``""`` for the root."""
        return "/".join("<none>" if value is None else value for value in self.path)

    @property
    def node_count(self) -> int:
        """How many nodes the domain holds."""
        return len(self.nodes)

    def walk(self) -> Iterator["Domain"]:
        """This domain and every domain below it, depth first, children in insertion order."""
        stack = [self]
        while stack:
            domain = stack.pop()
            yield domain
            stack.extend(reversed(list(domain.children.values())))

    def at_level(self, level: str) -> list["Domain"]:
        """All domains of the given level below (or at) this one."""
        return [domain for domain in self.walk() if domain.level == level]

    def find(self, path: Sequence[str | None]) -> "Domain | None":
        """The domain at ``path`` below this one (values one per level), or ``None``."""
        domain: Domain | None = self
        for value in path:
            domain = domain.children.get(value) if domain is not None else None
        return domain

    def to_dict(self, *, max_depth: int | None = None, node_names: bool = False) -> dict[str, Any]:
        """A JSON-ready dict: level, value, id, node counts, GPU counts (numbers), children.

        Args:
            max_depth: stop after this many levels below this domain (``None``: all).
            node_names: list the node names of domains whose children are cut off.
        """
        data: dict[str, Any] = {
            "level": self.level,
            "value": self.value,
            "id": self.id,
            "nodes": self.node_count,
            "readyNodes": self.ready_nodes,
            "cordonedNodes": self.cordoned_nodes,
            "gpus": {"total": as_number(self.gpus_total), "free": as_number(self.gpus_free)},
        }
        if self.children and (max_depth is None or max_depth > 0):
            below = None if max_depth is None else max_depth - 1
            data["children"] = [
                child.to_dict(max_depth=below, node_names=node_names) for child in self.children.values()
            ]
        elif node_names:
            data["nodeNames"] = [node.name for node in self.nodes]
        return data


_Stats = list[Any]


"""[ready nodes, total GPUs, free GPUs, cordoned nodes] of a domain; GPUs as ints while whole (cheap to add)."""


def _node_gpus(node: Node, gpu_resources: Sequence[str]) -> tuple[int | Fraction, int | Fraction]:
    """A node's allocatable GPUs and those free on it (zero free when it is not ready)."""
    total: int | Fraction = 0
    free: int | Fraction = 0
    for name in gpu_resources:
        amount = node.allocatable.get(name)
        if amount is None:
            continue
        total += _whole(amount)
        if node.usable:
            left = amount - node.used.get(name, _ZERO) if node.used else amount
            if left > 0:
                free += _whole(left)
    return total, free


def _roll_up(domain: Domain, leaf_stats: dict[int, _Stats], fractions: dict[int, Fraction]) -> _Stats:
    """Fill in a domain's counts from its children's (recursion depth is the level count, at most 16)."""
    if domain.children:
        stats: _Stats = [0, 0, 0, 0]
        for child in domain.children.values():
            for position, amount in enumerate(_roll_up(child, leaf_stats, fractions)):
                stats[position] += amount
    else:
        stats = leaf_stats.get(id(domain), [0, 0, 0, 0])
    domain.ready_nodes = stats[0]
    domain.gpus_total = _as_fraction(stats[1], fractions)
    domain.gpus_free = _as_fraction(stats[2], fractions)
    domain.cordoned_nodes = stats[3]
    return stats


def _as_fraction(amount: int | Fraction, cache: dict[int, Fraction]) -> Fraction:
    if isinstance(amount, Fraction):
        return amount
    cached = cache.get(amount)
    if cached is None:
        cached = cache[amount] = Fraction(amount)
    return cached


def domain_tree(
    cluster: Cluster,
    levels: Sequence[str] | None = None,
    *,
    gpu_resources: Sequence[str] = DEFAULT_GPU_RESOURCES,
) -> Domain:
    """Group the cluster's nodes into nested domains, one tree level per topology level.

    Args:
        cluster: the cluster.
        levels: label keys widest first (default: ``cluster.levels``).
        gpu_resources: the resource names counted as GPUs.

    Returns:
        The root domain (the whole cluster); see the module docstring for how domains are keyed.
    """
    levels = list(cluster.levels if levels is None else levels)
    root = Domain(level=None, value=None)
    # Amounts are summed as ints while they are whole (Fraction arithmetic dominates otherwise),
    # first per node into its leaf domain, then once per domain up the tree.
    leaf_stats: dict[int, _Stats] = {}
    for node in cluster.nodes:
        domain = root
        domain.nodes.append(node)
        for level in levels:
            value = node.labels.get(level)
            child = domain.children.get(value)
            if child is None:
                child = Domain(level=level, value=value, path=(*domain.path, value))
                domain.children[value] = child
            domain = child
            domain.nodes.append(node)
        stats = leaf_stats.setdefault(id(domain), [0, 0, 0, 0])
        total, free = _node_gpus(node, gpu_resources)
        stats[0] += 1 if node.ready else 0
        stats[1] += total
        stats[2] += free
        stats[3] += 1 if node.unschedulable else 0
    _roll_up(root, leaf_stats, {})
    return root


def _whole(amount: Fraction) -> int | Fraction:
    """``amount`` as an int when it is whole (cheap to add), else unchanged."""
    return amount.numerator if amount.denominator == 1 else amount
