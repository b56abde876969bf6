"""Human lines of a workload's DRA devices: the totals per DeviceClass, shared claims, unknown claims."""

from __future__ import annotations

from workloadmap.tree import WorkloadTree

from ..printing.numbers import plural

__all__ = ["device_lines"]


def device_lines(tree: WorkloadTree) -> list[str]:
    """DRA devices of the totals (``at least`` where a count is a lower bound), shared claims, unknown claims."""
    totals = tree.totals
    lines = []
    if totals.devices:
        parts = [
            f"{name} {'at least ' if name in totals.devices_lower_bound else ''}{amount}"
            for name, amount in totals.devices.items()
        ]
        lines.append("DRA devices: " + ", ".join(parts))
    for claim in tree.shared_claims:
        devices = ", ".join(f"{name} {amount}" for name, amount in claim.devices.items()) or "no devices"
        if claim.pod_group is not None:
            lines.append(
                f"  PodGroup/{claim.pod_group} claim {claim.name} (ResourceClaimTemplate/{claim.template}): {devices},"
                f" once for {plural(claim.pods, 'pod')}"
            )
        else:
            lines.append(f"  shared ResourceClaim/{claim.name}: {devices}, once for {plural(claim.pods, 'pod')}")
    if totals.devices_unknown:
        lines.append("DRA devices unknown: " + ", ".join(totals.devices_unknown) + " (not found or unreadable)")
    return lines
