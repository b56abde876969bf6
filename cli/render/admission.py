"""Human renderings of ``wmap admit`` and ``wmap capacity``: kubectl-style tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..printing.output import table

if TYPE_CHECKING:  # the admission stage loads only with the commands that use it
    from workloadmap.admission import AdmissionReport, CapacityReport, WorkloadAdmission


def _workload_name(item: WorkloadAdmission) -> str:
    name = f"{item.workload.kind}/{item.workload.name}"
    return f"{name}[{item.group}]" if item.group else name


def _queue(item: WorkloadAdmission) -> str | None:
    if item.scheduler == "kai":
        return item.queue
    return item.cluster_queue or item.local_queue


def _flavors(flavors: dict[str, str], borrowing: bool) -> str | None:
    """``h100`` when every resource has that flavor, else ``two:cpu,b_one:memory``; ``+borrows`` when it borrows."""
    by_flavor: dict[str, list[str]] = {}
    for resource, flavor in flavors.items():
        by_flavor.setdefault(flavor, []).append(resource)
    if len(by_flavor) == 1:
        text = next(iter(by_flavor))
    else:
        text = ",".join(f"{flavor}:{'+'.join(resources)}" for flavor, resources in by_flavor.items())
    return f"{text}+borrows" if text and borrowing else text or None


def render_admission_table(report: AdmissionReport, *, wide: bool = False) -> str:
    """`wmap admit`: one line per workload (Kueue Workload or KAI PodGroup), then one per PodSet.

    The workload line holds its ClusterQueue (or KAI queue), the verdict and the message (Kueue's
    or KAI's); a PodSet line its pods, its mode and its flavor (one name when every resource has
    it, else ``flavor:resource`` pairs; ``+borrows``). KAI's gangs say ``withinQuota`` or
    ``overQuota`` instead. ``wide`` adds the reason code, the LocalQueue, the priority and the
    preemption candidates.
    """
    rows: list[list[Any]] = []
    extra = 4 if wide else 0
    for item in report.items:
        pods = sum(pod_set.count for pod_set in item.pod_sets)
        row: list[Any] = [_workload_name(item), pods, item.verdict.value, _queue(item)]
        if wide:
            candidates = ",".join(f"{c.namespace}/{c.name}" for c in item.preemption_candidates)
            row += [item.reason, item.local_queue, item.priority, candidates]
        rows.append([*row, "; ".join(item.reasons)])
        for pod_set in item.pod_sets:
            where = item.quota if item.scheduler == "kai" else _flavors(pod_set.flavors, pod_set.borrowing)
            rows.append([f"podset/{pod_set.name}", pod_set.count, pod_set.mode or None, where, *[None] * extra, None])
    headers = ["NAME", "PODS", "VERDICT", "QUEUE/FLAVOR"]
    headers += ["REASON", "LOCALQUEUE", "PRIORITY", "CANDIDATES"] if wide else []
    return table([*headers, "MESSAGE"], rows, free_text_last=True, fit=not wide, wrap_last=not wide)


def render_capacity(reports: Sequence[CapacityReport]) -> str:
    """`wmap capacity`: the copies in all and by quota, then one line per domain of the gangs' level."""
    lines = []
    for report in reports:
        more = "+" if report.lower_bound else ""
        head = f"{report.workload.kind}/{report.workload.name}: {report.copies}{more} more copies fit {report.topology}"
        if report.quota_copies is not None:
            quota_more = "+" if report.quota_lower_bound else ""
            head += f"; the quota admits {report.quota_copies}{quota_more}; both: {report.admitted}"
        lines.append(head)
        if report.quota_reason and report.quota_copies is not None and not report.quota_lower_bound:
            lines.append(f"  quota: {report.quota_reason}")
        if report.level is not None and report.domains:
            rows = [[domain.domain, f"{domain.copies}{'+' if domain.lower_bound else ''}"] for domain in report.domains]
            shown = table([report.level.upper(), "COPIES"], rows, indent=2)
            lines.extend(f"  {line}" for line in shown.splitlines())
        for note in report.notes:
            lines.append(f"  note: {note}")
        if report.lower_bound:
            lines.append("  (+: a lower bound: the count stopped at an unknown fit or at the limit)")
    return "\n".join(lines) + "\n"
