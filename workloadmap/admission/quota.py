"""Quota through the cohort tree, per flavor-resource, as Kueue's ``resource_node.go`` computes it.

Each ClusterQueue and Cohort is a :class:`Node` with its own quotas, a ``subtree`` quota and a
``usage``. A ClusterQueue's subtree quota is its nominal quota; a Cohort's is its own nominal
plus, per child, what the child lends (its subtree quota less its ``local`` part, the part a
``lendingLimit`` keeps back). Usage above a node's local part bubbles to its parent. On that:

* ``available`` (``available``, resource_node.go:106-122): at the root ``subtree − usage``;
  below, ``local_available + available(parent)``, the parent's part capped by the
  ``borrowingLimit``: ``(subtree − local) − max(0, usage − local) + borrowingLimit``;
* ``potential`` (``potentialAvailable``, :129-140): the same with no usage at all;
* ``borrow_height`` (``FindHeightOfLowestSubtreeThatFits``,
  ``scheduler/preemption/classical/hierarchical_preemption.go:221-234``): how far up the tree the
  quota for a request comes from (0: the ClusterQueue's own).

A ClusterQueue naming a cohort without a Cohort object, or a Cohort naming a missing parent,
gets an implicit cohort without quota (the Cohort API: "We use default Cohort (no
borrowing/lending limits)"). A cycle of parents makes every ClusterQueue under it inactive
(``HasCycle``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from .objects import ClusterQueue, Cohort, FlavorResource, Quota

__all__ = ["Node", "QuotaTree"]


@dataclass(eq=False)
class Node:
    """A ClusterQueue or a Cohort in the quota tree."""

    name: str
    is_queue: bool
    quotas: dict[FlavorResource, Quota] = field(default_factory=dict)
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    subtree: dict[FlavorResource, int] = field(default_factory=dict)
    usage: dict[FlavorResource, int] = field(default_factory=dict)
    locals: dict[FlavorResource, int] = field(default_factory=dict)  # localQuota, fixed once the subtree is summed

    def local(self, fr: FlavorResource) -> int:
        """``localQuota``: the subtree quota never lent to the parent (``max(0, subtree − lendingLimit)``)."""
        return self.locals.get(fr, 0)

    def local_available(self, fr: FlavorResource) -> int:
        """``LocalAvailable``: local quota not yet used."""
        local = self.locals.get(fr, 0)
        return max(0, local - self.usage.get(fr, 0)) if local else 0

    def available(self, fr: FlavorResource) -> int:
        """What a request can take now (may be negative after overadmission)."""
        if self.parent is None:
            return self.subtree.get(fr, 0) - self.usage.get(fr, 0)
        from_parent = self.parent.available(fr)
        quota = self.quotas.get(fr)
        if quota is not None and quota.borrowing_limit is not None:
            local = self.local(fr)
            stored = self.subtree.get(fr, 0) - local
            used_in_parent = max(0, self.usage.get(fr, 0) - local)
            from_parent = min(stored - used_in_parent + quota.borrowing_limit, from_parent)
        return self.local_available(fr) + from_parent

    def potential(self, fr: FlavorResource) -> int:
        """``potentialAvailable``: the largest request the node could ever take (no usage)."""
        if self.parent is None:
            return self.subtree.get(fr, 0)
        total = self.local(fr) + self.parent.potential(fr)
        quota = self.quotas.get(fr)
        if quota is not None and quota.borrowing_limit is not None:
            total = min(self.subtree.get(fr, 0) + quota.borrowing_limit, total)
        return total

    def borrowing_with(self, fr: FlavorResource, value: int) -> bool:
        """``BorrowingWith``: a queue over its nominal quota, a cohort over its subtree quota, with ``value`` more."""
        limit = self.quotas[fr].nominal if self.is_queue and fr in self.quotas else self.subtree.get(fr, 0)
        return limit < self.usage.get(fr, 0) + value

    def within_nominal(self, resources: set[FlavorResource]) -> bool:
        """``IsWithinNominalInResources``: usage within the subtree quota for every one of these."""
        usage, subtree = self.usage, self.subtree
        for fr in resources:
            if usage.get(fr, 0) > subtree.get(fr, 0):
                return False
        return True

    def add_usage(self, fr: FlavorResource, value: int) -> None:
        """``addUsage``: what exceeds the local quota bubbles to the parent."""
        node: Node | None = self
        while node is not None:
            usage = node.usage
            before = usage.get(fr, 0)
            local = node.locals.get(fr, 0)
            local_available = local - before if local > before else 0
            usage[fr] = before + value
            if value <= local_available:
                return
            value -= local_available
            node = node.parent

    def remove_usage(self, fr: FlavorResource, value: int) -> None:
        """``removeUsage``: the mirror of :meth:`add_usage`."""
        node: Node | None = self
        while node is not None:
            usage = node.usage
            before = usage.get(fr, 0)
            stored_in_parent = before - node.locals.get(fr, 0)
            usage[fr] = before - value
            if stored_in_parent <= 0:
                return
            value = min(value, stored_in_parent)
            node = node.parent

    def ancestors(self) -> Iterator[Node]:
        """The parent, its parent ... up to the root (``PathParentToRoot``)."""
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def root(self) -> Node:
        """The root of this node's tree."""
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    def height(self) -> int:
        """``getNodeHeight``: distance to the furthest leaf (a cohort of only queues: 1)."""
        best = min(len(self.children), 1)
        for child in self.children:
            if not child.is_queue:
                best = max(best, child.height() + 1)
        return best

    def queues(self) -> Iterator[Node]:
        """Every ClusterQueue of this subtree (``SubtreeClusterQueues``)."""
        for child in self.children:
            if child.is_queue:
                yield child
            else:
                yield from child.queues()

    def borrow_height(self, fr: FlavorResource, value: int) -> tuple[int, bool]:
        """``FindHeightOfLowestSubtreeThatFits``: (borrowing level, whether a larger subtree remains)."""
        if not self.borrowing_with(fr, value) or self.parent is None:
            return 0, self.parent is not None
        remaining = value - self.local_available(fr)
        for node in self.ancestors():
            if not node.borrowing_with(fr, remaining):
                return node.height(), node.parent is not None
            remaining -= node.local_available(fr)
        return self.root().height(), False

    def fits_in_quota(self, requests: Mapping[FlavorResource, int]) -> tuple[bool, dict[FlavorResource, int]]:
        """``QuantitiesFitInQuota``: whether the requests fit the subtree quota, and what exceeds the local part."""
        fits = True
        remaining = {}
        for fr, value in requests.items():
            if self.subtree.get(fr, 0) < self.usage.get(fr, 0) + value:
                fits = False
            remaining[fr] = max(0, value - self.local_available(fr))
        return fits, remaining


class QuotaTree:
    """Every ClusterQueue and Cohort of a dump as :class:`Node` objects, with usage added.

    Attributes:
        queues: the ClusterQueue nodes by name.
        cohorts: the Cohort nodes by name (implicit ones included).
        cyclic: ClusterQueues whose cohort chain has a cycle (inactive, as Kueue makes them).
    """

    def __init__(self, cluster_queues: Mapping[str, ClusterQueue], cohorts: Mapping[str, Cohort]) -> None:
        self.queues: dict[str, Node] = {}
        self.cohorts: dict[str, Node] = {}
        self.cyclic: set[str] = set()
        for name, cohort in cohorts.items():
            self.cohorts[name] = Node(name, False, cohort.quotas())
        for name, cohort in cohorts.items():
            if cohort.parent:
                self._link(self.cohorts[name], self._cohort(cohort.parent))
        for name, queue in cluster_queues.items():
            node = self.queues[name] = Node(name, True, queue.quotas())
            if queue.cohort:
                self._link(node, self._cohort(queue.cohort))
        broken = [node for node in self.cohorts.values() if self._in_cycle(node)]
        for node in broken:
            self.cyclic.update(queue.name for queue in self._members(node))
        for node in broken:  # a tree with a cycle keeps no links: its queues are inactive anyway
            if node.parent is not None:
                node.parent.children.remove(node)
                node.parent = None
        for root in [node for node in (*self.cohorts.values(), *self.queues.values()) if node.parent is None]:
            _sum_subtree(root)

    def _cohort(self, name: str) -> Node:
        node = self.cohorts.get(name)
        if node is None:
            node = self.cohorts[name] = Node(name, False)
        return node

    @staticmethod
    def _link(child: Node, parent: Node) -> None:
        child.parent = parent
        parent.children.append(child)

    @staticmethod
    def _in_cycle(node: Node) -> bool:
        seen = {id(node)}
        current = node.parent
        while current is not None:
            if id(current) in seen:
                return True
            seen.add(id(current))
            current = current.parent
        return False

    @staticmethod
    def _members(node: Node) -> list[Node]:
        found: list[Node] = []
        stack, seen = [node], set()
        while stack:
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            found.extend(child for child in current.children if child.is_queue)
            stack.extend(child for child in current.children if not child.is_queue)
        return found

    def add(self, queue: str, usage: Mapping[FlavorResource, int]) -> None:
        """Add an admitted Workload's usage to its ClusterQueue (and what bubbles up)."""
        node = self.queues.get(queue)
        if node is None:
            return
        for fr, value in usage.items():
            if value:
                node.add_usage(fr, value)

    def remove(self, queue: str, usage: Mapping[FlavorResource, int]) -> None:
        """Remove usage added with :meth:`add`."""
        node = self.queues.get(queue)
        if node is None:
            return
        for fr, value in usage.items():
            if value:
                node.remove_usage(fr, value)


def _sum_subtree(node: Node) -> None:
    """``updateCohortResourceNode``: subtree quotas from the leaves up, then each node's local part."""
    node.subtree = {fr: quota.nominal for fr, quota in node.quotas.items()}
    for child in node.children:
        _sum_subtree(child)
        for fr, value in child.subtree.items():
            node.subtree[fr] = node.subtree.get(fr, 0) + value - child.local(fr)
    node.locals = {
        fr: max(0, node.subtree.get(fr, 0) - quota.lending_limit)
        for fr, quota in node.quotas.items()
        if quota.lending_limit is not None
    }
