"""What every exporter shares: DNS names, Topology objects, object metadata, applyable copies.

Facts these follow (see the scheduler reference): KAI and Kueue ``Topology`` levels are node-label
keys, widest first, ``kubernetes.io/hostname`` only as the last level, 1 to 16 levels.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..catalog import Catalog
from ..errors import InputError
from ..labels import MANAGED_BY
from ..placement import PlacementReport
from ..topology import Cluster, validate_levels
from ..tree import WorkloadTree

__all__ = [
    "ExportRequest",
    "TemplatePaths",
    "dns_name",
    "topology_object",
    "default_topology_name",
    "report_levels",
    "object_metadata",
    "applyable_copy",
    "annotations_of",
    "widest",
    "workload_levels",
]

TemplatePaths = Mapping[str, Sequence[str | int]]
"""Where each component's PodTemplateSpec sits inside the workload object: component path
(``group/worker``) -> path segments (``["spec", "replicatedJobs", 0, "template", "spec",
"template"]``)."""

# Server-populated fields: an object meant for `kubectl apply` leaves them out.
_SERVER_METADATA = ("resourceVersion", "uid", "generation", "creationTimestamp", "managedFields", "selfLink")


@dataclass(frozen=True)
class ExportRequest:
    """Everything an exporter may use: the tree, its placement, and the caller's choices.

    Attributes:
        tree: the workload tree.
        report: its placement on ``cluster``.
        cluster: the cluster (the Volcano export lists its domains as HyperNodes).
        obj: the workload object itself, for exports that annotate it; never modified.
        topology: the name of emitted Topology objects (default: from the cluster name).
        queue: the queue of emitted PodGroups.
        template_paths: where each component's pod template sits in ``obj`` (default: the tree's).
        catalog: the definitions exports that edit ``obj`` read it with (default: the built-in catalog).
        notes: what an exporter tells the user besides the objects (how to use them, what it left
            out); exporters append to it, the command line prints it.
        api_version: the version of the objects written where a target offers several (the native
            Workload API's ``v1beta1``, ``v1alpha3`` ...; default the target's newest).
    """

    tree: WorkloadTree
    report: PlacementReport
    cluster: Cluster | None = None
    obj: Mapping[str, Any] | None = None
    topology: str | None = None
    queue: str | None = None
    template_paths: TemplatePaths | None = None
    catalog: Catalog | None = None
    notes: list[str] = field(default_factory=list)
    api_version: str | None = None

    @property
    def topology_name(self) -> str:
        """The name of emitted Topology objects."""
        return self.topology or default_topology_name(self.report)


def dns_name(text: str, *, limit: int = 63) -> str:
    """A lower-case DNS label made from ``text`` (invalid characters become ``-``).

    When characters had to change or the text is too long, a short hash of the original keeps
    distinct inputs distinct.
    """
    slug = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-") or "x"
    if slug != text or len(slug) > limit:
        digest = hashlib.sha1(text.encode()).hexdigest()[:6]
        slug = f"{slug[: limit - 7].rstrip('-')}-{digest}"
    return slug


def topology_object(api_version: str, levels: Sequence[str], name: str) -> dict[str, Any]:
    """A cluster-scoped ``Topology`` with these levels (validated as KAI and Kueue do).

    Raises:
        TopologyError: no levels, more than 16, repeats, or hostname not last.
    """
    return {
        "apiVersion": api_version,
        "kind": "Topology",
        "metadata": {"name": name},
        "spec": {"levels": [{"nodeLabel": level} for level in validate_levels(list(levels))]},
    }


def default_topology_name(report: PlacementReport) -> str:
    """A Topology name made from the cluster's name."""
    return dns_name(report.topology.name or "default")


def report_levels(report: PlacementReport) -> list[str]:
    """The levels of the cluster a report is about, widest first."""
    return list(report.topology.levels)


def object_metadata(tree: WorkloadTree, name: str) -> dict[str, Any]:
    """Metadata of an object wmap emits for a workload: its namespace, marked as made by wmap."""
    metadata: dict[str, Any] = {"name": name}
    if tree.workload.namespace:
        metadata["namespace"] = tree.workload.namespace
    metadata["labels"] = {MANAGED_BY: "wmap"}
    return metadata


def annotations_of(obj: dict[str, Any], path: Sequence[str | int] = ()) -> dict[str, Any]:
    """The ``metadata.annotations`` mapping of ``obj`` (an object, or a pod template at ``path``), made when absent.

    Raises:
        InputError: ``metadata`` or its ``annotations`` is there but not a mapping (a list, a
            string): the field is named, as the API server names it.
    """
    metadata = obj.get("metadata")
    if metadata is None:
        metadata = obj["metadata"] = {}
    if not isinstance(metadata, dict):
        raise InputError(f"expected a mapping, got {type(metadata).__name__}", field=[*path, "metadata"])
    annotations = metadata.get("annotations")
    if annotations is None:
        annotations = metadata["annotations"] = {}
    if not isinstance(annotations, dict):
        raise InputError(
            f"expected a mapping of strings, got {type(annotations).__name__}",
            field=[*path, "metadata", "annotations"],
        )
    return annotations


def applyable_copy(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of a workload without its status and server-populated metadata."""
    result = copy.deepcopy(dict(obj))
    result.pop("status", None)
    metadata = result.get("metadata")
    if isinstance(metadata, dict):
        for key in _SERVER_METADATA:
            metadata.pop(key, None)
    return result


def widest(levels: Sequence[str], candidates: Sequence[str | None]) -> str | None:
    """The widest of ``candidates`` that is one of ``levels``."""
    known = [level for level in candidates if level in levels]
    return min(known, key=levels.index) if known else None


def workload_levels(report: PlacementReport) -> tuple[str | None, str | None]:
    """One required and one preferred level for constraints that apply to every PodGroup alike.

    Required only when every gang has one (the widest, so each still fits); preferred the widest
    preferred level among the gangs.
    """
    levels = report_levels(report)
    gangs = [group for group in report.pod_groups if group.gang] or report.pod_groups
    required = None
    if gangs and all(group.required_level for group in gangs):
        required = widest(levels, [group.required_level for group in gangs])
    preferred = widest(levels, [group.preferred_level for group in gangs])
    if any(group.preferred_level is None for group in gangs):
        preferred = None
    return required, preferred
