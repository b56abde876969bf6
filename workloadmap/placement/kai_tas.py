"""KAI Scheduler's topology-aware allocation of one PodGroup, as its allocate action and topology plugin do it.

A port of ``pkg/scheduler/actions/common/allocate.go`` with the ``topology`` plugin
(``pkg/scheduler/plugins/topology/job_filtering.go``, ``node_scoring.go``) and the default
``nodeplacement`` binpack (``pack.go``), kai-scheduler/KAI-Scheduler:

* a PodGroup and each SubGroup with a topology constraint ask the plugin for *node sets*: every
  domain from the preferred level up to the required one (up to the whole cluster without a
  required level) that could hold the group's pods; pods of one shape are counted per node with
  the largest request, mixed shapes compare summed requests with the domain's free resources;
* the node sets are ordered as the plugin sorts its tree: from the group's domain down, the
  children of each domain most packed first (the largest ratio of the job's requests to the
  domain's free resources, the domain ID breaking ties), narrowest level first, so KAI packs
  the parent domains first and then the tightest child;
* each node set is tried in turn: SubGroups recurse into it, pods are placed one shape at a time
  on the node with the best score: the preferred-level domain's rank (domains with the most room
  score highest) and then binpack (the least free GPUs, cpu for pods without GPUs); a node set
  where some pod finds no node is rolled back and the next one is tried.

Equal scores are broken by node name (KAI takes them in map order). Queues, priorities, quotas,
preemption, reclaim and fractional GPUs are not modelled.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from math import floor

from ..scheduling import PodScheduling
from .nodes import NodeTree
from .packing import Amount, capacity_of

__all__ = ["KaiTasks", "KaiGroup", "KaiPlaced", "allocate_group", "allocate_pods"]

_NOT_IN_DOMAIN = 1000.0  # KAI's requiredResourceNotInDomainRatio


@dataclass
class KaiTasks:
    """``count`` pods of one shape (a cleaned request) with the template's node filters."""

    request: dict[str, Amount]
    count: int
    scheduling: PodScheduling = field(default_factory=PodScheduling)


@dataclass
class KaiGroup:
    """A PodGroup or SubGroup: its constraint, its own pods and its child SubGroups."""

    name: str
    required: str | None = None
    preferred: str | None = None
    tasks: list[KaiTasks] = field(default_factory=list)
    children: list[KaiGroup] = field(default_factory=list)

    def all_tasks(self) -> list[KaiTasks]:
        """The pods of this group and of every SubGroup below it."""
        found = list(self.tasks)
        for child in self.children:
            found.extend(child.all_tasks())
        return found


@dataclass
class KaiPlaced:
    """Where a group went: the domain KAI chose for it (depth, index; None: no constraint) and pods per node."""

    domain: tuple[int, int] | None = None
    nodes: dict[int, int] = field(default_factory=dict)


class _Allocation:
    def __init__(self, tree: NodeTree, gpu_resources: tuple[str, ...], topology: str) -> None:
        self.tree = tree
        self.gpus = gpu_resources
        self.topology = topology
        self.placed: dict[str, KaiPlaced] = {}
        self.reason: str | None = None

    # -- the allocate action --------------------------------------------------------------------

    def group(self, group: KaiGroup, nodes: list[int] | None, scores: dict[int, int] | None) -> bool:
        """``allocateSubGroupSet``: try the group's node sets in order until its pods all fit."""
        if not group.all_tasks():
            return True
        options = self.node_sets(group, nodes)
        for option_nodes, domain, option_scores in options:
            mark, saved = self.tree.mark(), dict(self.placed)
            self.placed[group.name] = KaiPlaced(domain)
            if self.members(group, option_nodes, option_scores or scores):
                return True
            self.tree.rollback(mark)
            self.placed = saved
        return False

    def members(self, group: KaiGroup, nodes: list[int], scores: dict[int, int] | None) -> bool:
        """``allocateMembersOnNodes``: child SubGroups in order, then the group's own pods."""
        for child in group.children:
            if not self.group(child, nodes, scores):
                return False
        for tasks in group.tasks:
            if not self.tasks(group, tasks, nodes, scores):
                return False
        return True

    def tasks(self, group: KaiGroup, tasks: KaiTasks, nodes: list[int], scores: dict[int, int] | None) -> bool:
        """``allocateTasksOnNodeSet``: each pod on the best-scored node it fits; fails when one fits none."""
        tree = self.tree
        eligible, _ = tree.eligible(tasks.scheduling)
        per_type = tree.type_capacity(tasks.request)
        dimension = self.gpus if any(tasks.request.get(name, 0) > 0 for name in self.gpus) else ("cpu",)
        names = tree.nodes

        def key(node: int) -> tuple:
            free = tree.types[tree.node_type[node]]
            packed = sum((free.get(name, 0) for name in dimension), Fraction(0))
            return (-(scores or {}).get(node, 0), packed, names[node].name)

        remaining = tasks.count
        placed = self.placed[group.name].nodes
        for node in sorted((node for node in nodes if eligible[node]), key=key):
            take = min(per_type[tree.node_type[node]], remaining)
            if take:
                tree.consume(node, tasks.request, take, tasks.scheduling)
                placed[node] = placed.get(node, 0) + take
                remaining -= take
                if not remaining:
                    return True
        found = tasks.count - remaining
        self.reason = (
            f"resources were found for {found} pods while {tasks.count} are required for gang scheduling"
            f" (group {group.name})"
        )
        return False

    # -- the topology plugin: subSetNodesFn -----------------------------------------------------

    def node_sets(
        self, group: KaiGroup, nodes: list[int] | None
    ) -> Iterator[tuple[list[int], tuple[int, int] | None, dict[int, int] | None]]:
        """The group's candidate node sets in KAI's order, each with its domain and node scores."""
        tree = self.tree
        if not group.required and not group.preferred:
            yield (list(range(len(tree.nodes))) if nodes is None else nodes), None, None
            return
        requests = group.all_tasks()
        common = self.common(nodes, group.preferred)
        if not self.fits(requests, common):
            where = "the cluster" if common is None else tree.display(*common)
            self.reason = self.no_match(group, f"not enough resources in {where} to allocate the job")
            return
        levels = self.relevant(group)
        deepest = max(levels)
        order = _SortedTree(self, requests, common, deepest)
        preferred = tree.levels.index(group.preferred) if group.preferred else None
        inside = None if nodes is None else set(nodes)
        found = False
        for depth, domain in order.reverse_level_order():
            if depth not in levels or not self.fits(requests, domain):
                continue
            found = True
            members = self.members_of(domain, inside)
            scores = None
            if preferred is not None and depth < preferred:
                scores = self.scores(order.layer(preferred))
            yield members, domain, scores
        if not found:
            self.reason = self.no_match(group)

    def members_of(self, domain: tuple[int, int] | None, inside: set[int] | None) -> list[int]:
        """The nodes of a domain that are in the node set given (every node for the whole cluster)."""
        every = list(range(len(self.tree.nodes))) if domain is None else self.tree.nodes_in(*domain)
        return every if inside is None else [node for node in every if node in inside]

    def no_match(self, group: KaiGroup, detail: str = "") -> str:
        required = group.required or ""
        text = f"topology {self.topology}, requirement {required} couldn't be satisfied for group {group.name}"
        return f"{text}: {detail}" if detail else text

    def common(self, nodes: list[int] | None, preferred: str | None) -> tuple[int, int] | None:
        """``lowestCommonDomainID``, no narrower than the preferred level."""
        if nodes is None:
            return None
        found = self.tree.common_domain(nodes)
        if found is None or preferred is None or preferred not in self.tree.levels:
            return found
        depth, domain = found
        limit = self.tree.levels.index(preferred)
        while depth > limit:
            domain = self.tree.parents[depth][domain]
            depth -= 1
        return depth, domain

    def relevant(self, group: KaiGroup) -> set[int]:
        """``calculateRelevantDomainLevels``: depths from the preferred level up to the required one (-1: root)."""
        levels = self.tree.levels
        stop = levels.index(group.required) if group.required else -1
        start = levels.index(group.preferred) if group.preferred else stop
        return set(range(stop, max(start, stop) + 1))

    def free(self, domain: tuple[int, int] | None) -> dict[str, Amount]:
        if domain is not None:
            return self.tree.domain_free(*domain)
        total: dict[str, Amount] = {}
        for top in range(len(self.tree.paths[0])):
            for name, amount in self.tree.domain_free(0, top).items():
                total[name] = total.get(name, 0) + amount
        return total

    def ratio(self, requests: list[KaiTasks], domain: tuple[int, int] | None) -> float:
        """``getJobRatioToFreeResources``: the largest share of a domain's free resources the job takes."""
        needed: dict[str, Amount] = {}
        for tasks in requests:
            for name, amount in tasks.request.items():
                needed[name] = needed.get(name, 0) + amount * tasks.count
        free = self.free(domain)
        worst = 0.0
        for name, amount in needed.items():
            if name == "pods" or amount <= 0:
                continue
            have = free.get(name, 0)
            worst = max(worst, _NOT_IN_DOMAIN if have <= 0 else float(amount) / float(have))
        return worst

    def fits(self, requests: list[KaiTasks], domain: tuple[int, int] | None) -> bool:
        """``checkJobDomainFit``: pods counted per node for one kind of pod, summed requests otherwise."""
        if not _homogeneous(requests, self.gpus):
            return self.ratio(requests, domain) <= 1
        largest: dict[str, Amount] = {}
        for tasks in requests:
            for name, amount in tasks.request.items():
                largest[name] = max(largest.get(name, 0), amount)
        count = sum(tasks.count for tasks in requests)
        tree = self.tree
        if domain is None:
            types: dict[int, int] = {}
            for top in range(len(tree.paths[0])):
                for type_id, many in tree.types_in(0, top).items():
                    types[type_id] = types.get(type_id, 0) + many
        else:
            types = tree.types_in(*domain)
        room = sum(min(capacity_of(tree.types[type_id], largest), count) * many for type_id, many in types.items())
        return room >= count

    def scores(self, domains: list[tuple[int, int]]) -> dict[int, int]:
        """``calculateNodeScores``: nodes score by their preferred-level domain's place in the sorted tree."""
        scores: dict[int, int] = {}
        for position, domain in enumerate(domains):
            score = floor(Fraction(position + 1, len(domains)) * 10)
            for node in self.tree.nodes_in(*domain):
                scores[node] = score
        return scores


class _SortedTree:
    """``sortTree`` from the group's domain down to the deepest relevant level, read in ``reverseLevelOrder``.

    Children of a domain come most packed first (the job's largest share of their free
    resources), the domain ID (label values joined by dots) breaking ties. The deepest layer is
    produced lazily, parent by parent, since KAI usually takes its first domain.
    """

    def __init__(
        self, allocation: _Allocation, requests: list[KaiTasks], common: tuple[int, int] | None, deepest: int
    ) -> None:
        self.allocation = allocation
        self.requests = requests
        self.top = -1 if common is None else common[0]
        self.deepest = max(deepest, self.top)
        self.layers: list[list[tuple[int, int] | None]] = [[common]]
        while self.top + len(self.layers) - 1 < self.deepest - 1:
            self.layers.append(list(self.children(self.layers[-1])))

    def children(self, parents: list[tuple[int, int] | None]) -> Iterator[tuple[int, int] | None]:
        tree = self.allocation.tree
        for entry in parents:
            depth = -1 if entry is None else entry[0]
            kids = range(len(tree.paths[0])) if entry is None else tree.children[entry[0]][entry[1]]
            paths = tree.paths[depth + 1]
            ranked = sorted(
                kids, key=lambda kid: (-self.allocation.ratio(self.requests, (depth + 1, kid)), ".".join(paths[kid]))
            )
            yield from ((depth + 1, kid) for kid in ranked)

    def layer(self, depth: int) -> list[tuple[int, int]]:
        """Every domain of one level below the group's domain, in sorted order."""
        if depth - self.top < len(self.layers):
            entries = self.layers[depth - self.top]
        else:
            entries = list(self.children(self.layers[-1]))
        return [entry for entry in entries if entry is not None]

    def reverse_level_order(self) -> Iterator[tuple[int, tuple[int, int] | None]]:
        """(depth, domain) pairs, the deepest layer first (-1, None: the whole cluster)."""
        if self.deepest > self.top:
            for entry in self.children(self.layers[-1]):
                yield self.deepest, entry
        for offset in range(len(self.layers) - 1, -1, -1):
            for entry in self.layers[offset]:
                yield self.top + offset, entry


def _homogeneous(requests: list[KaiTasks], gpus: tuple[str, ...]) -> bool:
    """``useRepresentorPodsAccounting``: all pods use GPUs or none do, and each other extended resource alike."""
    total = sum(tasks.count for tasks in requests)
    with_gpus = sum(tasks.count for tasks in requests if any(tasks.request.get(name, 0) > 0 for name in gpus))
    if with_gpus not in (0, total):
        return False
    extended: dict[str, int] = {}
    for tasks in requests:
        for name, amount in tasks.request.items():
            if name not in ("cpu", "memory", "pods", *gpus) and amount > 0:
                extended[name] = extended.get(name, 0) + tasks.count
    return all(count == total for count in extended.values())


def allocate_group(
    tree: NodeTree, group: KaiGroup, *, gpu_resources: tuple[str, ...], topology: str = "default"
) -> dict[str, KaiPlaced] | str:
    """Allocate a PodGroup (and its SubGroups) as KAI would; consumes the capacity it takes.

    Returns:
        Per group name (the PodGroup's and every SubGroup's) where it went, or the reason when
        the PodGroup cannot be allocated (nothing is consumed then).
    """
    allocation = _Allocation(tree, gpu_resources, topology)
    mark = tree.mark()
    if allocation.group(group, None, None):
        return allocation.placed
    tree.rollback(mark)
    return allocation.reason or f"group {group.name} cannot be allocated"


def allocate_pods(tree: NodeTree, tasks: KaiTasks, *, gpu_resources: tuple[str, ...]) -> tuple[dict[int, int], int]:
    """Pods without a gang, placed as KAI places one-pod PodGroups: binpack over every node, keeping what fits.

    Returns:
        Pods per node and how many were placed (the capacity they take is consumed).
    """
    allocation = _Allocation(tree, gpu_resources, "default")
    group = KaiGroup("pods", tasks=[tasks])
    allocation.placed[group.name] = KaiPlaced()
    allocation.tasks(group, tasks, list(range(len(tree.nodes))), None)
    nodes = allocation.placed[group.name].nodes
    return nodes, sum(nodes.values())
