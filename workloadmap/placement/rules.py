"""What a scheduler's choice rule is given and what it returns: the protocol every policy implements.

A rule (one module per scheduler: :mod:`.kueue_rule`, :mod:`.kai_rule`; the table of them is
:data:`~.schedulers.POLICIES`) places one workload on the nodes as earlier placements left them.
It reads the standalone analysis (:class:`~.analysis.WorkloadAnalysis`: each gang's required and
preferred levels), consumes the capacity it assigns on the :class:`~.nodes.NodeTree`, and returns
a :class:`Decision` per gang it decides, as Kueue's ``TASAssignmentsResult`` holds either a
``TopologyAssignment`` or a ``FailureReason``. It never builds or changes a result: the report is
built once from the analysis and these decisions (:func:`~.settle.settle`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from ..tree import WorkloadTree
from .analysis import WorkloadAnalysis
from .nodes import NodeTree
from .packing import SLOT, Amount
from .report import Assignment, NodePods

__all__ = [
    "Decision",
    "Decisions",
    "RuleOptions",
    "SchedulerRule",
    "assignment_at",
    "assignment_in",
    "requested",
]


@dataclass(frozen=True)
class Decision:
    """A rule's answer for one gang: where it put the pods, or why it put none.

    Attributes:
        assignment: the domain and pods per node, when placed; for pods without a gang, which
            are placed one by one, also where those that found a node went when some did not.
        reason: why the gang is not placed (the scheduler's words); None when it is.
        crowded: other placements (earlier workloads, or gangs of this one) had taken capacity
            when the rule tried the gang, so a gang that fits the cluster as given may not.
        sub_groups: decisions for the gang's SubGroups, by name, for a scheduler that places
            SubGroups (KAI); a SubGroup without one keeps the analysis' verdict (Kueue places
            PodSets, not SubGroups).
        note: what the rule says of a gang it placed that a reader may not expect (Kueue's BestFit
            split it across domains one of which could hold it).
    """

    assignment: Assignment | None = None
    reason: str | None = None
    crowded: bool = False
    sub_groups: Mapping[str, Decision] = field(default_factory=dict)
    note: str | None = None

    @property
    def placed(self) -> bool:
        """Whether the rule placed the gang."""
        return self.reason is None


@dataclass(frozen=True)
class Decisions:
    """A rule's answers for one workload.

    Attributes:
        groups: per PodGroup name (without PodGroups, per component path) the decision; a
            PodGroup absent here was not decided by the rule and keeps the analysis' verdict.
        notes: what the verdict rests on that a reader may not expect (requests the scheduler
            does not read, a gang's PodSets that may land apart).
    """

    groups: Mapping[str, Decision]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RuleOptions:
    """The options of a placement that a rule may read.

    Attributes:
        balanced: Kueue's balanced placement for preferred levels (``TASBalancedPlacement``);
            rules of other schedulers ignore it.
    """

    balanced: bool = False


class SchedulerRule(Protocol):
    """A scheduler's choice rule: one workload placed on ``nodes`` (consuming what it assigns).

    Raises:
        PlacementError: a request the scheduler (or its webhook) would reject; the caller rolls
            back what the rule consumed.
    """

    def __call__(
        self, nodes: NodeTree, tree: WorkloadTree, analysis: WorkloadAnalysis, options: RuleOptions
    ) -> Decisions:
        """Place the workload: consume what the rule assigns, return a decision per gang it decides."""
        ...


def requested(request: Mapping[str, Amount]) -> dict[str, Amount]:
    """A pod's request as consumed from a node: positive amounts, the pod slot left to the node tree."""
    return {name: amount for name, amount in request.items() if amount > 0 and name != SLOT}


def _node_pods(nodes: NodeTree, pods: Mapping[int, int]) -> tuple[list[int], list[NodePods]]:
    ordered = sorted(pods, key=lambda node: nodes.paths[-1][node])
    return ordered, [NodePods(nodes.nodes[node].name, pods[node]) for node in ordered]


def assignment_at(nodes: NodeTree, pods: Mapping[int, int], level: str | None) -> Assignment:
    """The assignment of ``pods`` per node: its domain at ``level``, else the narrowest holding them all."""
    ordered, per_node = _node_pods(nodes, pods)
    found = nodes.common_domain(ordered)
    if found is not None and level in nodes.levels:
        depth, domain = found
        while depth > nodes.levels.index(level):
            depth, domain = depth - 1, nodes.parents[depth][domain]
        found = depth, domain
    if found is None:
        return Assignment(domain=None, level=None, nodes=per_node)
    return Assignment(domain=nodes.display(*found), level=nodes.levels[found[0]], nodes=per_node)


def assignment_in(nodes: NodeTree, pods: Mapping[int, int], domain: tuple[int, int] | None) -> Assignment:
    """The assignment of ``pods`` per node in the domain (depth, index) the scheduler chose (None: see above)."""
    if domain is None:
        return assignment_at(nodes, pods, None)
    _, per_node = _node_pods(nodes, pods)
    return Assignment(domain=nodes.display(*domain), level=nodes.levels[domain[0]], nodes=per_node)
