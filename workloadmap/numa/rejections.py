"""Why the kubelet would reject a pod on a node, and what would make it fit, in words.

The cause compares what the rejected container (or, with the pod scope, the pod) asks of the
managers with the node's NUMA nodes: the most one NUMA node has (capacity) and the most one has
free. The fix names the change that removes the cause: split the container or the pod, give up
exclusive CPUs, ask for CPUs that span as many NUMA nodes as the devices, another policy.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from ..quantities import format_quantity, is_binary_resource
from .admission import ADMISSION_ERROR, NOT_STARTED, Admission, admit
from .hints import ZoneState, device_requests, iterate_masks, memory_requests, pod_amounts
from .layout import NumaLayout, TopologyManagerPolicy, TopologyManagerScope
from .pod import ContainerDemand, PodNuma

__all__ = ["Rejection", "explain", "demands"]

_ZERO = Fraction(0)
_LENIENT = (TopologyManagerPolicy.RESTRICTED, TopologyManagerPolicy.BEST_EFFORT)


@dataclass(frozen=True)
class Rejection:
    """Why a pod is rejected (``cause``) and what would make it fit (``fix``)."""

    error: str
    cause: str
    fix: str

    def __str__(self) -> str:
        return f"{self.cause}; fix: {self.fix}"


def _show(name: str, amount: Fraction) -> str:
    text = format_quantity(amount, binary=is_binary_resource(name))
    return f"{text} {'CPUs' if name == 'cpu' else name}"


def demands(pod: PodNuma, container: ContainerDemand | None) -> dict[str, Fraction]:
    """What the NUMA-aware managers allocate for a container (or the pod): exclusive CPUs, memory, devices."""
    found = dict(device_requests(pod, container))
    found.update(memory_requests(pod, container))
    if container is not None:
        cpus = pod.guaranteed_cpus(container)
    else:
        cpus = int(pod_amounts(pod, lambda item: {"cpu": Fraction(pod.guaranteed_cpus(item))}).get("cpu", _ZERO))
    if cpus:
        found["cpu"] = Fraction(cpus)
    return found


def _width(layout: NumaLayout, amounts: dict[int, Fraction], need: Fraction) -> int | None:
    """The fewest NUMA nodes whose amounts add up to ``need``."""
    for mask in iterate_masks(layout.ids):
        if sum((amount for zone, amount in amounts.items() if mask >> zone & 1), _ZERO) >= need:
            return mask.bit_count()
    return None


def _subject(pod: PodNuma, admission: Admission) -> tuple[ContainerDemand | None, str]:
    if admission.container is None:
        return None, "the pod"
    container = next(item for item in pod.containers if item.name == admission.container)
    return container, f"container {container.name}"


def _other_policy(layout: NumaLayout, state: ZoneState, pod: PodNuma) -> str:
    """``or use nodes with policy P``: the least lenient policy that admits the pod here."""
    current = layout.manager.policy
    for policy in _LENIENT:
        if current is TopologyManagerPolicy.RESTRICTED and policy is TopologyManagerPolicy.RESTRICTED:
            continue
        other = replace(layout, manager=replace(layout.manager, policy=policy))
        if admit(other, state.copy(), pod).admitted:
            return f"or use nodes whose topology manager policy is {policy.value} (it admits this pod)"
    other = replace(layout, manager=replace(layout.manager, policy=TopologyManagerPolicy.NONE))
    if admit(other, state.copy(), pod).admitted:
        return "or use nodes whose topology manager policy is none (no alignment at all)"
    return "or another node"


def _short(state: ZoneState, asked: dict[str, Fraction], who: str) -> tuple[str, str] | None:
    """When the node's NUMA nodes together have too little free of something: that, whatever the policy."""
    for name, need in sorted(asked.items()):
        free = sum(state.free.get(name, {}).values(), _ZERO)
        if free < need:
            return (
                f"{who} needs {_show(name, need)}; the node's NUMA nodes have {_show(name, free)} free",
                "a node with more free, or wait until pods on this one finish",
            )
    return None


def _single_numa(
    layout: NumaLayout, state: ZoneState, asked: dict[str, Fraction], who: str, pod_scope: bool, other: str
) -> tuple[str, str]:
    split = "split the pod (the pod scope aligns all its containers together)" if pod_scope else "split the container"
    for name, need in sorted(asked.items()):
        most = max(layout.amounts(name, "capacity" if name != "memory" else "allocatable").values(), default=_ZERO)
        if need > most:
            fix = f"{split} so each part asks at most {_show(name, most)}"
            if name == "cpu":
                fix += ", or ask for a fractional cpu (shared CPUs are not aligned)"
            return (
                f"{who} needs {_show(name, need)} aligned on one NUMA node; nodes have {_show(name, most)} per"
                f" NUMA node",
                f"{fix}, {other}",
            )
    for name, need in sorted(asked.items()):
        most = max(state.free.get(name, {}).values(), default=_ZERO)
        if need > most:
            return (
                f"{who} needs {_show(name, need)} on one NUMA node; the most free on one is {_show(name, most)}",
                "a node with an emptier NUMA node, or wait until pods on this one finish",
            )
    wanted = ", ".join(_show(name, need) for name, need in sorted(asked.items()))
    return (
        f"{who} needs {wanted} together on one NUMA node; no NUMA node has them together",
        f"lower the request so one NUMA node holds it all, {split}, {other}",
    )


def _restricted(
    layout: NumaLayout, state: ZoneState, asked: dict[str, Fraction], who: str, other: str
) -> tuple[str, str]:
    widths = {
        name: _width(layout, layout.amounts(name, "capacity" if name != "memory" else "allocatable"), need)
        for name, need in asked.items()
    }
    known = {name: width for name, width in widths.items() if width is not None}
    if known and len(set(known.values())) > 1:
        wide = max(known, key=lambda name: (known[name], name))
        narrow = min(known, key=lambda name: (known[name], name))
        cause = (
            f"{who} needs {known[wide]} NUMA nodes for {_show(wide, asked[wide])} but {_show(narrow, asked[narrow])}"
            f" fit on {known[narrow]}; restricted admits only an alignment every resource prefers"
        )
        fix = f"make the requests span the same NUMA nodes (split the container so each part fits {known[narrow]})"
        if narrow == "cpu":
            fix = (
                "make the CPUs shared (a fractional cpu request) or ask for enough CPUs to span "
                f"{known[wide]} NUMA nodes, or split the container"
            )
        return cause, f"{fix}, {other}"
    frees = {name: _width(layout, state.free.get(name, {}), need) for name, need in asked.items()}
    name = next((name for name in sorted(asked) if frees[name] != known.get(name)), sorted(asked)[0])
    return (
        f"{who} cannot get {_show(name, asked[name])} on the {known.get(name, 1)} NUMA node(s) it prefers: too"
        " little is free there",
        "a node with emptier NUMA nodes, or wait until pods on this one finish",
    )


def explain(layout: NumaLayout, state: ZoneState, pod: PodNuma, admission: Admission) -> Rejection:
    """Cause and fix of a rejection (``state``: the NUMA nodes as the pod found them)."""
    error = admission.error or ""
    manager = layout.manager
    if error == NOT_STARTED:
        zones = len(layout.zones)
        return Rejection(
            error,
            f"the kubelet does not start with topology manager policy {manager.policy.value} on {zones}"
            f" NUMA nodes (max-allowable-numa-nodes {manager.max_allowable_numa_nodes})",
            f"set the policy option max-allowable-numa-nodes to {zones} or more, or policy none",
        )
    container, who = _subject(pod, admission)
    state = admission.seen or state
    if error == ADMISSION_ERROR:
        name = admission.detail or "a resource"
        return Rejection(
            error,
            f"{who}: the kubelet cannot allocate its {name} on the NUMA nodes left free",
            "a node with more free NUMA capacity",
        )
    asked = {name: need for name, need in demands(pod, container).items() if layout.reports(name)}
    other = _other_policy(layout, state, pod)
    if not asked:
        return Rejection(error, f"{who} is rejected by the topology manager", other.removeprefix("or "))
    short = _short(state, asked, who)
    if short is not None:
        return Rejection(error, *short)
    if manager.policy is TopologyManagerPolicy.SINGLE_NUMA_NODE:
        cause, fix = _single_numa(layout, state, asked, who, manager.scope is TopologyManagerScope.POD, other)
    else:
        cause, fix = _restricted(layout, state, asked, who, other)
    return Rejection(error, cause, fix)
