"""NUMA admission as a node filter: the kubelet's topology manager, asked before a node is chosen.

Kube-scheduler, Kueue and KAI do not look inside a node: they place a pod by node totals, and the
kubelet's topology manager may then reject it (``TopologyAffinityError``), stalling a gang. Here a
node whose NUMA layout is known (its ``NodeResourceTopology``) is eligible for a pod template only
when the kubelet would admit one such pod on it as it stands (:func:`numa_exclusion`, called by
:meth:`~workloadmap.placement.nodes.NodeTree.eligible` after the taint, selector and affinity
filters), so a gang fits only on nodes that admit its pods. The reason names the cause and the fix.

Several pods put on one node are admitted one after another, each seeing the NUMA nodes the
earlier ones took (:class:`NumaTracker`, fed by the tree's consumption): a node the scheduler
fills with more pods than its NUMA nodes can align rejects the surplus, and the gang does not fit
(:func:`admission_reason`, read when the placement is settled).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..numa import NumaLayout, PodNuma, ZoneState, admit, explain
from ..scheduling import PodScheduling
from ..topology import Node
from .report import Assignment

__all__ = ["NUMA_REASON", "numa_exclusion", "NumaTracker", "NumaRejection", "admission_reason"]

NUMA_REASON = "numa"
"""How :class:`~workloadmap.placement.nodes.Exclusions` counts nodes the kubelet would reject pods on."""

_VERDICTS: dict[tuple[NumaLayout, PodNuma], str | None] = {}


def numa_exclusion(node: Node, scheduling: PodScheduling) -> str | None:
    """Why the node's kubelet would reject one pod of the template as the node stands; None: it admits.

    Nodes without a known NUMA layout, and templates whose demand is unknown, are not filtered.
    """
    layout, pod = node.numa, scheduling.numa
    if layout is None or pod is None:
        return None
    key = (layout, pod)
    if key not in _VERDICTS:
        if len(_VERDICTS) > 4096:
            _VERDICTS.clear()
        state = ZoneState.of(layout)
        result = admit(layout, state.copy(), pod)
        _VERDICTS[key] = None if result.admitted else str(explain(layout, state, pod, result))
    return _VERDICTS[key]


@dataclass(frozen=True)
class NumaRejection:
    """A pod the kubelet of ``node`` would reject after the scheduler put it there."""

    position: int  # the tree's journal length when it was consumed (for rollbacks)
    node: str
    reason: str
    placed: int  # pods of the template the scheduler put on the node at once
    admitted: int  # how many of them the kubelet admits before the first rejection

    def __str__(self) -> str:
        return (
            f"the scheduler puts {self.placed} pod(s) on {self.node} at once; its kubelet admits {self.admitted}"
            f" and rejects the rest: {self.reason}"
        )


@dataclass
class NumaTracker:
    """The NUMA nodes of every node with a layout as placements take them, with a rollback journal.

    Zone states are interned (nodes alike, filled alike, share one), and so are the transitions
    "this state admits these pods": a gang of hundreds of pods costs a few real admissions.
    """

    nodes: list[Node]
    node_state: dict[int, int] = field(default_factory=dict)  # node -> state id (absent: as given)
    journal: list[tuple[int, int, int | None]] = field(default_factory=list)
    rejections: list[NumaRejection] = field(default_factory=list)
    _states: list[ZoneState] = field(default_factory=list)
    _ids: dict[tuple, int] = field(default_factory=dict)
    _moves: dict[tuple, tuple[int, int, str | None]] = field(default_factory=dict)

    def _intern(self, state: ZoneState) -> int:
        key = state.key()
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self._states)
            self._states.append(state)
        return found

    def _move(self, layout: NumaLayout, start: int, pod: PodNuma, count: int) -> tuple[int, int, str | None]:
        """From state ``start``, admit ``count`` pods: the state after, how many were admitted, why not all."""
        key = (layout, start, pod, count)
        if key not in self._moves:
            state = self._states[start].copy()
            reason = None
            admitted = 0
            while admitted < count:
                before = state.copy()
                result = admit(layout, state, pod)
                if not result.admitted:  # the same pods after it see the same NUMA nodes: rejected too
                    reason = str(explain(layout, before, pod, result))
                    break
                admitted += 1
            self._moves[key] = (self._intern(state), admitted, reason)
        return self._moves[key]

    def take(self, position: int, node: int, scheduling: PodScheduling | None, count: int) -> None:
        """Admit ``count`` pods of the template on node ``node``, recording the ones rejected."""
        layout = self.nodes[node].numa
        if layout is None or scheduling is None or scheduling.numa is None or count <= 0:
            return
        previous = self.node_state.get(node)
        start = previous if previous is not None else self._intern(ZoneState.of(layout))
        after, admitted, reason = self._move(layout, start, scheduling.numa, count)
        self.journal.append((position, node, previous))
        self.node_state[node] = after
        if reason is not None:
            self.rejections.append(NumaRejection(position, self.nodes[node].name, reason, count, admitted))

    def rollback(self, mark: int) -> None:
        """Undo what was taken at journal positions from ``mark`` on."""
        while self.journal and self.journal[-1][0] >= mark:
            _, node, previous = self.journal.pop()
            if previous is None:
                self.node_state.pop(node, None)
            else:
                self.node_state[node] = previous
        self.rejections = [item for item in self.rejections if item.position < mark]

    def since(self, mark: int) -> dict[str, NumaRejection]:
        """Node name to its first rejection, for pods taken from journal position ``mark`` on."""
        found: dict[str, NumaRejection] = {}
        for item in self.rejections:
            if item.position >= mark:
                found.setdefault(item.node, item)
        return found


def admission_reason(assignment: Assignment | None, rejected: Mapping[str, NumaRejection]) -> str | None:
    """Why a group the scheduler assigned does not fit: the kubelet of one of its nodes rejects pods; None: admitted.

    ``rejected`` holds each node's first rejection (:meth:`NumaTracker.since`).
    """
    if assignment is None or not rejected:
        return None
    bad = [item.name for item in assignment.nodes if item.name in rejected]
    if not bad:
        return None
    more = f" (and so on {len(bad) - 1} other node(s))" if len(bad) > 1 else ""
    return f"{rejected[bad[0]]}{more}"
