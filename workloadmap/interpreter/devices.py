"""A workload's DRA devices: each pod-bearing component's claims counted, shared claims once (see :mod:`..dra`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..dra import ClaimDevices, DeviceCounter, PodDevices
from ..tree import SharedClaim, Totals
from .expand import ExpandedComponent
from .native import pod_group_templates

__all__ = ["WorkloadDevices", "count_devices", "pod_devices"]


@dataclass
class WorkloadDevices:
    """The totals with DRA devices, the shared claims, and the warnings the counting gave."""

    totals: Totals
    shared_claims: list[SharedClaim] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def pod_devices(counter: DeviceCounter, leaf: ExpandedComponent) -> tuple[PodDevices, str | None]:
    """One pod's devices of a pod-bearing component, and the PodGroup whose claims it shares (KEP-5729)."""
    demand = leaf.demand
    assert demand is not None  # pod-bearing components only
    group = pod_group_templates(leaf, counter.source, counter.namespace) if demand.resource_claims else None
    if group is None:
        return counter.pod(demand.requests, demand.resource_claims), None
    return counter.pod(demand.requests, demand.resource_claims, group[1]), group[0]


def _shared_warning(entry: SharedClaim) -> str | None:
    """What to say of a claim several pods share, or None when one pod holds it."""
    if entry.pods <= 1:
        return None
    if entry.pod_group is not None:
        return (
            f"claim {entry.name} (ResourceClaimTemplate/{entry.template}) is declared by PodGroup/{entry.pod_group}"
            f" too: one claim for the PodGroup, shared by its {entry.pods} pods (KEP-5729), counted once"
        )
    kai = f" (KAI's queues charge it once per pod: {entry.kai_queue_gpus} GPUs)" if entry.gpus else ""
    return f"ResourceClaim/{entry.name} is shared by {entry.pods} pods: its devices are counted once{kai}"


def count_devices(counter: DeviceCounter, leaves: Sequence[ExpandedComponent], totals: Totals) -> WorkloadDevices:
    """``totals`` with the workload's DRA devices and GPUs: pods' own claims per pod, shared claims once.

    Shared: named ResourceClaims (once for the workload) and the claims PodGroups declare (KEP-5729,
    once per PodGroup).
    """
    devices: dict[str, int] = {}
    lower: set[str] = set()
    unknown: list[str] = []
    warnings: list[str] = []
    shared: dict[tuple[str | None, str], SharedClaim] = {}
    gpus = totals.gpus
    for leaf in leaves:
        pods = leaf.pods()
        found, pod_group = pod_devices(counter, leaf)
        for device_class, count in found.per_pod.items():
            devices[device_class] = devices.get(device_class, 0) + count * pods
        gpus += found.gpus_per_pod * pods
        lower.update(found.lower_bound)
        unknown.extend(name for name in found.unknown if name not in unknown)
        warnings.extend(text for text in found.warnings if text not in warnings)
        claims: list[tuple[tuple[str | None, str], ClaimDevices, str | None, str | None]] = [
            ((namespace, name), claim, None, None) for (namespace, name), claim in found.shared.items()
        ]
        claims += [
            ((f"PodGroup/{pod_group}", f"{name}/{template}"), claim, name, template)
            for (name, template), claim in found.group_claims.items()
        ]
        for key, claim, group_claim, template in claims:
            entry = shared.get(key)
            if entry is None:  # a named claim, or the one claim generated for the PodGroup from the template
                claim_gpus = counter.gpus(claim.devices)
                name = group_claim if group_claim is not None else key[1]
                entry = shared[key] = SharedClaim(
                    name, counter.namespace, dict(claim.devices), claim_gpus, 0,
                    pod_group=pod_group if template else None, template=template,
                )  # fmt: skip
                for device_class, count in claim.devices.items():
                    devices[device_class] = devices.get(device_class, 0) + count
                gpus += claim_gpus
            entry.pods += pods
            if entry.pod_group is None:  # KAI maps a PodGroup-owned claim to no pod: its queues charge nothing
                entry.kai_queue_gpus = entry.gpus * entry.pods
            if leaf.path not in entry.components:
                entry.components.append(leaf.path)
    warnings.extend(filter(None, map(_shared_warning, shared.values())))
    result = Totals(
        pods=totals.pods,
        gpus=gpus,
        resources=totals.resources,
        devices=devices,
        devices_lower_bound=sorted(lower),
        devices_unknown=unknown,
    )
    return WorkloadDevices(result, list(shared.values()), warnings)
