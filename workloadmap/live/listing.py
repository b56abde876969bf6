"""``wmap get`` rows: one line per workload, and which listed objects are workloads at all.

A row gives the normalized phase, ready/desired pods (pods attributed as ``describe`` does),
declared GPUs, age, and for ``-o wide`` the definition and a gang summary. :func:`top_level`
keeps the objects no covered kind owns (``get all`` would otherwise list a JobSet's Jobs and
their pods next to the JobSet): an object is a workload when no controller owner above it is of
a kind the catalog covers; an ownerless Pod is a workload.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..labels import POD_GROUP_SCHEDULED
from ..runtime_definitions import Phase
from ..tree import GangOrigin, WorkloadRef, WorkloadTree
from ..values import OMIT, JsonForm, mapping_at
from .objects import format_time, parse_time
from .owners import OwnerChains, controller_of
from .report import DescribeReport

__all__ = ["WorkloadRow", "workload_row", "gang_summary", "scheduled_summary", "top_level", "type_name"]


@dataclass(kw_only=True)
class WorkloadRow(JsonForm):
    """One workload as ``wmap get`` lists it.

    Attributes:
        type_name: kubectl's ``kind.group`` prefix (``jobset.jobset.x-k8s.io``), for ``-o name``.
        pods_ready: ready pods (null when pods were not read); pods_desired: at the declared scale.
        created: the creation time (RFC 3339).
        gangs: the gang summary of ``-o wide``.
        scheduled: kube-scheduler's ``PodGroupScheduled`` of the workload's native PodGroups
            (:func:`scheduled_summary`), the ``SCHEDULED`` column of ``-o wide``.
        metadata: the object's name, namespace, uid, labels and creationTimestamp, as the object has them.
    """

    workload: WorkloadRef
    type_name: str
    definition: str
    phase: Phase
    pods_ready: int | None = None
    pods_desired: int = 0
    gpus: Fraction = Fraction(0)
    created: str | None = None
    gangs: str = ""
    scheduled: str = "-"
    metadata: dict[str, Any] = field(default_factory=dict)
    tree: WorkloadTree | None = field(default=None, metadata=OMIT)


def gang_summary(tree: WorkloadTree) -> str:
    """``1 PodGroup min 3``, ``4 PodGroups min 8 (2 subgroups)`` or ``none``."""
    groups = tree.pod_groups
    if not groups:
        return "none"
    noun = "PodGroup" if len(groups) == 1 else "PodGroups"
    minimum = sum(group.min_member for group in groups)
    subgroups = sum(len(group.sub_groups) for group in groups)
    text = f"{len(groups)} {noun} min {minimum}"
    return text + (f" ({subgroups} subgroups)" if subgroups else "")


def scheduled_summary(tree: WorkloadTree) -> str:
    """``PodGroupScheduled`` of the native PodGroups read: ``True``, ``False(Unschedulable)``, ``1/2`` scheduled.

    One word each, as a table column other than the last takes them.

    ``Unknown`` when none has the condition yet, ``-`` when the gangs are not native objects that exist.
    """
    native = (GangOrigin.WORKLOAD_API, GangOrigin.JOB_CONTROLLER)
    sources = [group.source for group in tree.pod_groups if group.source and group.source.type in native]
    conditions = [source.condition(POD_GROUP_SCHEDULED) for source in sources if source.created]
    if not conditions:
        return "-"
    refused = next((item for item in conditions if item is not None and item.status == "False"), None)
    if refused is not None:
        return f"False({refused.reason})" if refused.reason else "False"
    scheduled = sum(item is not None and item.status == "True" for item in conditions)
    if scheduled == len(conditions):
        return "True"
    return f"{scheduled}/{len(conditions)}" if scheduled else "Unknown"


def type_name(obj: Mapping[str, Any]) -> str:
    """``kind.group`` in lower case as ``kubectl get -o name`` prints it (``pod`` for the core group)."""
    api_version = str(obj.get("apiVersion") or "")
    group = api_version.rpartition("/")[0]
    kind = str(obj.get("kind") or "").lower()
    return f"{kind}.{group}" if group else kind


_METADATA = ("name", "generateName", "namespace", "uid", "labels", "creationTimestamp")
"""What a row keeps of the object's metadata (``-o custom-columns=NAME:.metadata.name`` reads it)."""


def workload_row(obj: Mapping[str, Any], tree: WorkloadTree, report: DescribeReport | None) -> WorkloadRow:
    """The row of one workload; ``report`` (describe with the live pods) gives the ready count."""
    metadata = mapping_at(obj, "metadata")
    ready = None
    if report is not None and report.pods_read:
        ready = sum(component.replicas.ready or 0 for component in report.components)
    return WorkloadRow(
        workload=tree.workload,
        type_name=type_name(obj),
        definition=tree.definition,
        phase=tree.phase,
        pods_ready=ready,
        pods_desired=tree.totals.pods,
        gpus=tree.totals.gpus,
        created=format_time(parse_time(metadata.get("creationTimestamp"))),
        gangs=gang_summary(tree),
        scheduled=scheduled_summary(tree),
        metadata={key: metadata[key] for key in _METADATA if key in metadata},
        tree=tree,
    )


def top_level(
    objects: Iterable[Mapping[str, Any]], covered: Callable[[str, str], bool], chains: OwnerChains
) -> list[Mapping[str, Any]]:
    """The objects no owner of a covered kind sits above (``covered(apiVersion, kind)``)."""
    kept = []
    for obj in objects:
        reference = controller_of(obj)
        if reference is None:
            kept.append(obj)
            continue
        if covered(str(reference.get("apiVersion") or ""), str(reference.get("kind") or "")):
            continue  # the common case, decided without a lookup
        if not any(covered(link.api_version, link.kind) for link in chains.chain(obj)):
            kept.append(obj)
    return kept
