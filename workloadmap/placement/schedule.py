"""The scheduler's verdict for each gang, and where it puts the pods, as workloads are placed in turn.

A :class:`Session` holds one cluster's nodes (:class:`~.nodes.NodeTree`) and places workloads on
it one after another: each takes the capacity it is assigned, which the next can no longer use.
Per workload, :class:`~.analysis.Analysis` first says how each gang fits the cluster as given;
then the chosen policy's rule (a row of :data:`~.schedulers.POLICIES`: Kueue's, KAI's) decides on
what is left, and :func:`~.settle.settle` builds the report from the analysis, the decisions and
the kubelets' NUMA admission.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..scheduling import PodScheduling
from ..topology import Cluster
from ..tree import WorkloadRef, WorkloadTree
from .analysis import Analysis
from .index import ClusterIndex
from .nodes import NodeTree
from .policy import LevelOption, LevelRequest
from .reasons import NodeCapacity, Wording
from .report import PlacementReport
from .rules import RuleOptions
from .schedulers import DEFAULT_POLICY, POLICIES
from .settle import numa_notes, settle

__all__ = ["Options", "Session"]


@dataclass(frozen=True)
class Options:
    """The options of :func:`~workloadmap.placement.place` that shape every placement of a session."""

    required: LevelOption = None
    preferred: LevelOption = None
    auto: bool = True
    max_candidates: int = 10
    policy: str = DEFAULT_POLICY
    balanced: bool = False

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")


class Session:
    """One cluster on which workloads are placed in turn, each taking the capacity it is assigned."""

    def __init__(self, cluster: Cluster, options: Options) -> None:
        self.cluster = cluster
        self.options = options
        self.nodes = NodeTree(cluster)
        # The cluster as given, for the standalone analysis (placements change the tree's types).
        self.initial = list(self.nodes.types)
        self._initial_types = list(self.nodes.node_type)
        self.placed: list[WorkloadRef] = []
        self._indexes: dict[tuple, ClusterIndex] = {}
        self._capacity = NodeCapacity(cluster)  # for the reasons: what the nodes as given offer

    def index_for(self, schedulings: Sequence[PodScheduling], gpu_resources: tuple[str, ...]) -> ClusterIndex:
        """The nodes of the cluster as given that pass at least one of the node filters, indexed."""
        key = (frozenset(schedulings), gpu_resources)
        index = self._indexes.get(key)
        if index is None:
            flags = [self.nodes.eligible(scheduling)[0] for scheduling in schedulings]
            chosen = [position for position in range(len(self.nodes.nodes)) if any(f[position] for f in flags)]
            nodes = [self.nodes.nodes[position] for position in chosen]
            frees = [self.initial[self._initial_types[position]] for position in chosen]
            tree = self.nodes
            # The tree's domains, but for its last (hostname) level, where it keeps one domain per
            # node and the index one per label value.
            grouped = [
                ([tree.node_domain[depth][position] for position in chosen], tree.paths[depth])
                for depth in range(min(len(self.cluster.levels), len(tree.levels) - 1))
            ]
            index = self._indexes[key] = ClusterIndex(self.cluster, gpu_resources, nodes, frees, grouped)
        return index

    def place(self, tree: WorkloadTree) -> PlacementReport:
        """Analyse the workload, then place it by the policy's rule on what earlier workloads left.

        Raises:
            PlacementError: a requested level that is not one of the cluster's, or a Kueue
                request on a pod template that Kueue would reject.
        """
        options = self.options
        analysis = Analysis(
            tree,
            self.cluster,
            LevelRequest(options.required, options.preferred),
            options.auto,
            options.max_candidates,
            lambda schedulings: self.index_for(schedulings, tree.gpu_resources),
        ).workload()
        mark = self.nodes.mark()
        try:
            decisions = POLICIES[options.policy].assign(self.nodes, tree, analysis, RuleOptions(options.balanced))
        except Exception:
            self.nodes.rollback(mark)  # a rejected (or failed) workload takes nothing
            raise
        numa = self.nodes.numa
        report = settle(
            analysis,
            decisions,
            policy=options.policy,
            notes=self.nodes.left_out.notes(),
            admission_notes=numa_notes(tree, self.nodes.eligible) if numa is not None else (),
            placed_before=self.placed,
            rejected=numa.since(mark) if numa is not None else None,
            wording=Wording(tree, self._capacity),
            gpus_taken=self.nodes.taken_since(mark, tree.gpu_resources),
        )
        self.placed.append(tree.workload)
        return report
