"""Placement reasons as people read them: what a pod needs against what the nodes have, and Kueue's split gangs.

The placement stage gives each gang the reason its scheduler's rule gives (Kueue's own text,
``topology "x" doesn't allow to fit any of 3 pod(s). Total nodes: 72; excluded: resource
"nvidia.com/gpu": 72``). A reader wants the cause: each worker pod needs 8 GPUs, and the nodes
have 4. :class:`Explainer` works that out from the workload's pods and the cluster's nodes where
it can (a pod larger than any node, or than any node has free), and otherwise leaves the
scheduler's reason as it is. It also says when Kueue's BestFit, which places a gang's PodSets one
at a time, split a gang across domains of its preferred level although one of them holds the
whole gang, and names the policy that would not (``--policy kai``, which places a gang whole).

Only the wording is here: the verdicts, assignments and reasons are the library's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..printing.numbers import amount, count, plural

if TYPE_CHECKING:  # placement loads with the commands that use it
    from workloadmap.placement import GroupPlacement, PlacementReport
    from workloadmap.topology import Cluster
    from workloadmap.tree import WorkloadTree

__all__ = ["Explainer", "kueue_words"]


def _tail(path: str | None) -> str:
    """A level key or component path by its last part (``domain``, ``worker``)."""
    return "cluster" if path is None else path.rpartition("/")[2]


_KUEUE_NOT_FIT = re.compile(
    r'^(?:Kueue admits (?P<unit>\S+) whole and its )?PodSet (?P<podset>\S+)(?: does not fit)?: topology "[^"]*" '
    r"(?:doesn't allow to fit any|allows to fit only (?P<fitting>\d+) out) of (?P<wanted>\d+) (?P<what>pod|slice)\(s\)"
    r"(?:\. Total nodes: (?P<total>\d+); excluded: (?P<excluded>.*?))?(?P<rest>; .*)?$"
)
_EXCLUSION = re.compile(r'(?P<what>nodeSelector|affinity|taint "[^"]*"|numa "[^"]*"|resource "[^"]*"): (?P<count>\d+)')


def _exclusion(what: str, nodes: str) -> str:
    one = nodes == "1"
    noun = "node" if one else "nodes"
    if what == "nodeSelector":
        return f"{nodes} {noun} {'does' if one else 'do'} not match its nodeSelector"
    if what == "affinity":
        return f"{nodes} {noun} {'fails' if one else 'fail'} its node affinity"
    kind, _, quoted = what.partition(" ")
    name = quoted.strip('"')
    if kind == "taint":
        return f"{nodes} {noun} {'has' if one else 'have'} the taint {name} it does not tolerate"
    if kind == "numa":
        return f"the kubelet would not admit it on {nodes} {noun} ({name})"
    return f"{nodes} {noun} {'lacks' if one else 'lack'} the free {name}"


def kueue_words(reason: str | None) -> str | None:
    """Kueue's not-fit message in words: how many pods find room, and why the nodes left out were left out."""
    match = _KUEUE_NOT_FIT.match(reason or "")
    if match is None:
        return reason
    what = _tail(match["podset"]) + " " + match["what"]
    wanted = int(match["wanted"])
    if match["fitting"]:
        text = f"only {match['fitting']} of its {wanted} {what}s find room"
    else:
        text = f"no {what} finds room" if wanted == 1 else f"none of its {wanted} {what}s finds room"
    if match["unit"]:
        text = f"Kueue admits {match['unit']} whole, and {text}"
    if match["excluded"]:
        reasons = [_exclusion(found["what"], found["count"]) for found in _EXCLUSION.finditer(match["excluded"])]
        if reasons:
            text += f" ({', '.join(reasons)}, of {match['total']})"
    return text + (match["rest"] or "")


@dataclass
class _Shape:
    """Pods of one component in a gang, and what each asks of its node."""

    component: str
    pods: int
    request: dict[str, Fraction]


@dataclass
class Explainer:
    """People-facing reasons for placements made on ``clusters`` of the workloads ``trees``.

    Without trees or clusters (a report read back, a ranking) every reason stays the scheduler's.
    """

    trees: Sequence[WorkloadTree] = ()
    clusters: Sequence[Cluster] = ()
    _shapes: dict[tuple[str, str], list[_Shape]] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        for tree in self.trees:
            workload = str(tree.workload)
            for group in tree.pod_groups:
                self._shapes[(workload, group.name)] = self._pod_sets(tree, group.pod_sets)
                for sub in group.sub_groups:
                    self._shapes[(workload, f"{group.name}/{sub.name}")] = self._pod_sets(tree, sub.pod_sets)
            if not tree.pod_groups:
                for component in tree.walk():
                    if component.has_pod_template:
                        shape = _Shape(component.name, component.pods, self._request(tree, component.pod_resources))
                        self._shapes[(workload, component.name)] = [shape]

    @staticmethod
    def _request(tree: WorkloadTree, resources: Any) -> dict[str, Fraction]:
        return {name: Fraction(value) for name, value in resources.items() if name != "pods" and value}

    def _pod_sets(self, tree: WorkloadTree, pod_sets: Iterable[Any]) -> list[_Shape]:
        return [_Shape(p.component, p.count, self._request(tree, p.pod_resources)) for p in pod_sets]

    def _cluster(self, report: PlacementReport) -> Cluster | None:
        return next((cluster for cluster in self.clusters if cluster.name == report.topology.name), None)

    def _gpu_names(self, report: PlacementReport) -> Sequence[str]:
        tree = next((tree for tree in self.trees if tree.workload == report.workload), None)
        return tree.gpu_resources if tree is not None else ()

    # -- reasons ---------------------------------------------------------------------------------

    def reason(self, report: PlacementReport, group: GroupPlacement, key: str | None = None) -> str | None:
        """The reason to show for ``group`` (``key``: ``group/sub`` for a SubGroup): the cause where known."""
        if group.fits:
            return self.split(report, group)
        if group.reason and group.reason.startswith("its PodGroup "):
            return group.reason
        cause = self._too_large(report, key or group.name)
        return cause or kueue_words(group.reason)

    def _too_large(self, report: PlacementReport, key: str) -> str | None:
        """``each worker pod needs 8 GPUs; the nodes have 4``: a pod no node can hold, at all or as they are used."""
        cluster = self._cluster(report)
        shapes = self._shapes.get((str(report.workload), key))
        if cluster is None or not shapes:
            return None
        nodes = [node for node in cluster.nodes if node.usable]
        gpu_names = self._gpu_names(report)
        causes = []
        for shape in shapes:
            for name, wanted in sorted(shape.request.items()):
                if not nodes:
                    return "no node is ready and schedulable"
                most = max(node.allocatable.get(name, Fraction(0)) for node in nodes)
                free = max(node.free().get(name, Fraction(0)) for node in nodes)
                if wanted <= free:
                    continue
                what = self._amount(name, wanted, gpu_names)
                if wanted > most:
                    every = {node.allocatable.get(name, Fraction(0)) for node in nodes}
                    have = self._bare(name, most, gpu_names)
                    nodes_have = f"the nodes have {have}" if len(every) == 1 else f"no node has more than {have}"
                    causes.append(f"each {_tail(shape.component)} pod needs {what}; {nodes_have}")
                else:
                    have = self._bare(name, free, gpu_names)
                    causes.append(f"each {_tail(shape.component)} pod needs {what}; no node has more than {have} free")
                break
        return "; ".join(dict.fromkeys(causes)) or None

    @staticmethod
    def _amount(name: str, value: Fraction, gpu_names: Sequence[str]) -> str:
        if name in gpu_names:
            return plural(value, "GPU")
        return f"{amount(name, value)} {name}"

    @staticmethod
    def _bare(name: str, value: Fraction, gpu_names: Sequence[str]) -> str:
        return count(value) if name in gpu_names else amount(name, value)

    def split(self, report: PlacementReport, group: GroupPlacement) -> str | None:
        """When Kueue put a gang's pods in several domains of its preferred level, and whether one held it whole.

        Kueue's BestFit places a gang's PodSets one at a time, each in the tightest domain that
        holds it, so a gang one domain could hold may land in several. ``levels`` and
        ``candidates`` describe the cluster as given; they say what one domain could hold when the
        gang was placed only for the first gang placed on it (nothing placed before, no earlier
        gang of the workload): then the split is named as avoidable, with ``--policy kai``.
        """
        assignment = group.assignment
        preferred = group.preferred_level
        if report.policy != "kueue" or not group.gang or assignment is None or preferred is None:
            return None
        levels = report.topology.levels
        if preferred not in levels or assignment.level == preferred or len(assignment.nodes) < 2:
            return None
        if assignment.level is not None and levels.index(assignment.level) > levels.index(preferred):
            return None  # narrower than preferred: inside one such domain
        from workloadmap.topology import accelerator_level

        domains = "NVLink" if preferred == accelerator_level(levels) else _tail(preferred)
        text = f"split across {domains} domains"
        fit = next((fit for fit in group.levels if fit.level == preferred), None)
        first = not report.placed_before and report.pod_groups and report.pod_groups[0] is group
        if not first or fit is None or fit.fitting == 0 or not group.candidates:
            return text
        holds = ", ".join(group.candidates[:3]) + (" ..." if len(group.candidates) > 3 else "")
        return (
            f"{text} although {holds} could hold the whole gang: Kueue's BestFit places one PodSet at a time "
            "(--policy kai places a gang whole)"
        )

    def head(self, report: PlacementReport) -> str | None:
        """The reason after a report's verdict: how many groups fit (the groups say why), else the report's."""
        unfit = [group for group in report.pod_groups if group.verdict.value == "DoesNotFit"]
        if unfit and len(report.pod_groups) == 1:
            return None  # the one group's line says why
        if unfit:
            return f"{len(report.pod_groups) - len(unfit)} of {len(report.pod_groups)} groups fit"
        return report.reason
