"""Placement reasons written for people: what a pod needs against what the nodes have, Kueue's words.

A scheduler's rule gives a gang it does not place the scheduler's own reason (Kueue's
``PodSet worker: topology "x" doesn't allow to fit any of 3 pod(s). Total nodes: 72; excluded:
resource "nvidia.com/gpu": 72``). A reader wants the cause: each worker pod needs 8 GPUs, and the
nodes have 4. :class:`Wording` works that out from the workload's pods and the cluster's nodes
where it can (a pod larger than any node, or than any node has free), and otherwise puts Kueue's
message in words (:func:`kueue_words`); :func:`~.settle.settle` asks it once, when it builds each
gang's placement, and keeps the scheduler's own text beside it (``scheduler_reason``).

:func:`split_note` is what Kueue's rule says of a gang it placed across several domains of its
preferred level: Kueue's BestFit places a gang's PodSets one at a time, each in the tightest domain
that holds it, so a gang one domain could hold may land in several.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..quantities import format_quantity, is_binary_resource
from ..topology import Cluster, Node, accelerator_level
from ..tree import PodSet, Resources, WorkloadTree
from .analysis import GangFit
from .policy import component_paths, group_pod_sets, subgroup_pod_sets
from .report import Assignment

__all__ = ["Wording", "NodeCapacity", "kueue_words", "split_note", "UNPLACED_PARENT"]

UNPLACED_PARENT = "its PodGroup {} is not placed"
"""The reason of a SubGroup whose PodGroup is not placed (its own reason says nothing more)."""


def _tail(path: str | None) -> str:
    """A level key or component path by its last part (``domain``, ``worker``)."""
    return "cluster" if path is None else path.rpartition("/")[2]


_KUEUE_NOT_FIT = re.compile(
    r'^(?:Kueue admits (?P<unit>\S+) whole and its )?PodSet (?P<podset>\S+)(?: does not fit)?: topology "[^"]*" '
    r"(?:doesn't allow to fit any|allows to fit only (?P<fitting>\d+) out) of (?P<wanted>\d+) (?P<what>pod|slice)\(s\)"
    r'(?:\. Total nodes: (?P<total>\d+); excluded: (?P<excluded>(?:[^"]|"[^"]*")*?))?(?P<rest>; .*)?$'
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


def kueue_words(reason: str | None, required: str | None = None) -> str | None:
    """Kueue's not-fit message in words: how many pods find room, and why the nodes left out were left out.

    With a ``required`` level Kueue counts the pods the best domain of that level holds: the words
    say "in one rack".

    Kueue's ``topology "x" doesn't allow to fit any of 3 pod(s). Total nodes: 72; excluded:
    resource "nvidia.com/gpu": 72`` (``findTopologyAssignment``'s message, with the exclusion
    counts of ``TASFailureReason``) becomes ``none of its 3 worker pods finds room (72 nodes lack
    the free nvidia.com/gpu, of 72)``. Any other text is returned as it is.
    """
    match = _KUEUE_NOT_FIT.match(reason or "")
    if match is None:
        return reason
    what = _tail(match["podset"]) + " " + match["what"]
    wanted = int(match["wanted"])
    where = f" in one {_tail(required)}" if required else ""
    if match["fitting"]:
        text = f"only {match['fitting']} of its {wanted} {what}s find room{where}"
    else:
        text = f"no {what} finds room{where}" if wanted == 1 else f"none of its {wanted} {what}s finds room{where}"
    if match["unit"]:
        text = f"Kueue admits {match['unit']} whole, and {text}"
    if match["excluded"]:
        reasons = [_exclusion(found["what"], found["count"]) for found in _EXCLUSION.finditer(match["excluded"])]
        if reasons:
            text += f" ({', '.join(reasons)}, of {match['total']})"
    return text + (match["rest"] or "")


@dataclass(frozen=True)
class _Shape:
    """Pods of one component in a gang, and what each asks of its node."""

    component: str
    pods: int
    request: Mapping[str, Fraction]


def _request(resources: Resources) -> dict[str, Fraction]:
    return {name: Fraction(value) for name, value in resources.items() if name != "pods" and value}


def _shapes(pod_sets: Iterable[PodSet]) -> list[_Shape]:
    return [_Shape(pod_set.component, pod_set.count, _request(pod_set.pod_resources)) for pod_set in pod_sets]


def _count(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


class NodeCapacity:
    """What the usable nodes of a cluster as given offer, per resource: worked out once, when first asked.

    A session places many workloads on one cluster; their reasons all ask the same questions.
    """

    def __init__(self, cluster: Cluster) -> None:
        self._cluster = cluster
        self._known: dict[str, tuple[Fraction, Fraction, bool]] = {}
        self._nodes: list[Node] | None = None

    @property
    def any_usable(self) -> bool:
        """Whether some node is ready and schedulable."""
        return bool(self._usable())

    def _usable(self) -> list[Node]:
        if self._nodes is None:
            self._nodes = [node for node in self._cluster.nodes if node.usable]
        return self._nodes

    def of(self, name: str) -> tuple[Fraction, Fraction, bool]:
        """(the most a usable node has of ``name``, the most one has free, whether every usable node has as much)."""
        known = self._known.get(name)
        if known is None:
            nodes = self._usable()
            zero = Fraction(0)
            amounts = [node.allocatable.get(name, zero) for node in nodes]
            frees = [max(zero, amount - node.used.get(name, zero)) for amount, node in zip(amounts, nodes, strict=True)]
            most = max(amounts, default=zero)
            known = self._known[name] = (most, max(frees, default=zero), all(a == most for a in amounts))
        return known


class Wording:
    """The reasons of one workload's gangs on one cluster, worded for people.

    Args:
        tree: the workload (its gangs' pods and what each requests).
        capacity: what the cluster's nodes offer (as given, before any placement).
    """

    def __init__(self, tree: WorkloadTree, capacity: NodeCapacity) -> None:
        self._tree = tree
        self._gpu_names = tuple(tree.gpu_resources)
        self._capacity = capacity
        self._shapes: dict[str, list[_Shape]] | None = None

    def _shapes_of(self, key: str) -> list[_Shape]:
        """The pods of gang ``key`` by component (worked out for every gang when first asked)."""
        if self._shapes is None:
            shapes: dict[str, list[_Shape]] = {}
            tree = self._tree
            for group in tree.pod_groups:
                shapes[group.name] = _shapes(group_pod_sets(group))
                for sub in group.sub_groups:
                    shapes[f"{group.name}/{sub.name}"] = _shapes(subgroup_pod_sets(group, sub.name))
            if not tree.pod_groups:
                for path, component in component_paths(tree).items():
                    if component.has_pod_template:
                        shapes[path] = [_Shape(path, component.pods, _request(component.pod_resources))]
            self._shapes = shapes
        return self._shapes.get(key, [])

    def reason(self, key: str, reason: str | None, required: str | None = None) -> str | None:
        """The reason to give the gang ``key`` (``group``, ``group/sub``) for the scheduler's ``reason``.

        The cause where the pods and nodes show it, else Kueue's message in words (``required``: the
        gang's required level, where Kueue counted); None stays None.
        """
        if reason is None or reason.startswith(UNPLACED_PARENT.partition("{")[0]):
            return reason
        return self._too_large(key) or kueue_words(reason, required)

    def _too_large(self, key: str) -> str | None:
        """``each worker pod needs 8 GPUs; the nodes have 4``: a pod no node can hold, at all or as they are used."""
        shapes = self._shapes_of(key)
        if not shapes:
            return None
        if not self._capacity.any_usable:
            return "no node is ready and schedulable"
        causes = []
        for shape in shapes:
            for name, wanted in sorted(shape.request.items()):
                most, free, uniform = self._capacity.of(name)
                if wanted <= free:
                    continue
                pod = f"each {_tail(shape.component)} pod needs"
                if most == 0:
                    causes.append(f"{pod} {_quantity(name, wanted)} {name}; no node has any")
                elif wanted > most:
                    have = self._bare(name, most)
                    nodes_have = f"the nodes have {have}" if uniform else f"no node has more than {have}"
                    causes.append(f"{pod} {self._amount(name, wanted)}; {nodes_have}")
                else:
                    causes.append(
                        f"{pod} {self._amount(name, wanted)}; no node has more than {self._bare(name, free)} free"
                    )
                break
        return "; ".join(dict.fromkeys(causes)) or None

    def _amount(self, name: str, value: Fraction) -> str:
        if name in self._gpu_names:
            return f"{_count(value)} GPU{'' if value == 1 else 's'}"
        return f"{_quantity(name, value)} {name}"

    def _bare(self, name: str, value: Fraction) -> str:
        return _count(value) if name in self._gpu_names else _quantity(name, value)


def _quantity(name: str, value: Fraction) -> str:
    """An amount as Kubernetes writes it: bytes in binary units (``64Gi``), cores and counts without."""
    return format_quantity(value, binary=is_binary_resource(name))


def split_note(levels: Sequence[str], fit: GangFit, assignment: Assignment, *, first: bool) -> str | None:
    """What to say of a gang Kueue placed across several domains of its preferred level (None: it did not).

    ``fit`` (the cluster as given) tells whether one domain of that level could hold the whole gang;
    that is said only for the ``first`` gang placed on the cluster (nothing placed before it), for
    which the cluster as given is the cluster the rule saw.
    """
    preferred = fit.preferred_level
    if not fit.gang or preferred is None or preferred not in levels or len(assignment.nodes) < 2:
        return None
    if assignment.level == preferred:
        return None
    if assignment.level is not None and levels.index(assignment.level) > levels.index(preferred):
        return None  # narrower than preferred: inside one such domain
    domains = "NVLink" if preferred == accelerator_level(list(levels)) else _tail(preferred)
    text = f"split across {domains} domains"
    level = next((level for level in fit.levels if level.level == preferred), None)
    if not first or level is None or level.fitting == 0 or not fit.candidates:
        return text
    holds = ", ".join(fit.candidates[:3]) + (" ..." if len(fit.candidates) > 3 else "")
    return (
        f"{text} although {holds} could hold the whole gang: Kueue's BestFit places one PodSet at a time"
        " (policy kai places a gang whole)"
    )
