"""A workload's DRA devices: each pod-bearing component's claims counted, shared claims once (see :mod:`..dra`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..dra import DeviceCounter, PodDevices
from ..tree import SharedClaim, Totals
from .expand import ExpandedComponent

__all__ = ["WorkloadDevices", "count_devices", "pod_devices"]


@dataclass
class WorkloadDevices:
    """The totals with DRA devices, the shared claims, and the warnings the counting gave."""

    totals: Totals
    shared_claims: list[SharedClaim] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def pod_devices(counter: DeviceCounter, leaf: ExpandedComponent) -> PodDevices:
    """One pod's devices of a pod-bearing component."""
    demand = leaf.demand
    assert demand is not None  # pod-bearing components only
    return counter.pod(demand.requests, demand.resource_claims)


def count_devices(counter: DeviceCounter, leaves: Sequence[ExpandedComponent], totals: Totals) -> WorkloadDevices:
    """``totals`` with the workload's DRA devices and GPUs: pods' own claims per pod, named claims once."""
    devices: dict[str, int] = {}
    lower: set[str] = set()
    unknown: list[str] = []
    warnings: list[str] = []
    shared: dict[tuple[str | None, str], SharedClaim] = {}
    gpus = totals.gpus
    for leaf in leaves:
        pods = leaf.pods()
        found = pod_devices(counter, leaf)
        for device_class, count in found.per_pod.items():
            devices[device_class] = devices.get(device_class, 0) + count * pods
        gpus += found.gpus_per_pod * pods
        lower.update(found.lower_bound)
        unknown.extend(name for name in found.unknown if name not in unknown)
        warnings.extend(text for text in found.warnings if text not in warnings)
        for (namespace, name), claim in found.shared.items():
            entry = shared.get((namespace, name))
            if entry is None:
                claim_gpus = counter.gpus(claim.devices)
                entry = shared[(namespace, name)] = SharedClaim(name, namespace, dict(claim.devices), claim_gpus, 0)
                for device_class, count in claim.devices.items():
                    devices[device_class] = devices.get(device_class, 0) + count
                gpus += claim_gpus
            entry.pods += pods
            entry.kai_queue_gpus = entry.gpus * entry.pods
            if leaf.path not in entry.components:
                entry.components.append(leaf.path)
    for entry in shared.values():
        if entry.pods > 1:
            kai = f" (KAI's queues charge it once per pod: {entry.kai_queue_gpus} GPUs)" if entry.gpus else ""
            shared_by = f"ResourceClaim/{entry.name} is shared by {entry.pods} pods"
            warnings.append(f"{shared_by}: its devices are counted once{kai}")
    result = Totals(
        pods=totals.pods,
        gpus=gpus,
        resources=totals.resources,
        devices=devices,
        devices_lower_bound=sorted(lower),
        devices_unknown=unknown,
    )
    return WorkloadDevices(result, list(shared.values()), warnings)
