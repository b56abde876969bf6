"""Exporters: a placed workload turned into the objects a scheduler consumes.

Every target is one function registered by name in :data:`EXPORTERS` (``registry``); each module
registers its own: ``kai`` (Topology + PodGroups, or annotations), ``kueue`` (Topology + podset
annotations), ``volcano`` (HyperNodes + networkTopology), ``demand`` (a summary for multi-cluster
placers), ``pinned`` (the workload with each gang's pods required onto its chosen domain), ``workload``
(Kubernetes' own Workload and PodGroups, and the workload joined to them: ``native``). Workload
objects passed in are deep-copied, never modified; every exporter returns plain dicts ready for
``yaml.safe_dump_all`` / ``json.dumps``.
"""

from collections.abc import Mapping
from typing import Any

from ..catalog import Catalog
from ..placement import PlacementReport
from ..topology import Cluster
from ..tree import WorkloadTree
from . import demand as _demand
from . import kai as _kai
from . import kueue as _kueue
from . import native as _native
from . import pinned as _pinned
from . import volcano as _volcano
from .common import ExportRequest, TemplatePaths, applyable_copy, dns_name
from .demand import demand
from .kai import kai_annotated_workload, kai_podgroups, kai_topology
from .kueue import kueue_annotated_workload, kueue_annotations, kueue_topology
from .registry import EXPORTERS, Exporter, export_targets, exporter
from .volcano import volcano_hypernodes, volcano_network_topology, volcano_tiers

__all__ = [
    "export",
    "ExportRequest",
    "TemplatePaths",
    "EXPORTERS",
    "Exporter",
    "exporter",
    "export_targets",
    "dns_name",
    "applyable_copy",
    "kai_topology",
    "kai_podgroups",
    "kai_annotated_workload",
    "kueue_topology",
    "kueue_annotations",
    "kueue_annotated_workload",
    "volcano_tiers",
    "volcano_hypernodes",
    "volcano_network_topology",
    "demand",
]

_REGISTERED = (_kai, _kueue, _volcano, _demand, _pinned, _native)  # importing a target module registers it


def export(
    target: str,
    tree: WorkloadTree,
    report: PlacementReport,
    *,
    cluster: Cluster | None = None,
    obj: Mapping[str, Any] | None = None,
    topology: str | None = None,
    queue: str | None = None,
    template_paths: TemplatePaths | None = None,
    catalog: Catalog | None = None,
    notes: list[str] | None = None,
    api_version: str | None = None,
) -> list[dict[str, Any]]:
    """Run the export target ``target`` (one of :func:`export_targets`) on a placed workload.

    ``notes``, when given, receives what the exporter tells the user besides the objects.

    Raises:
        ValueError: unknown target, or the target needs ``cluster``/``obj`` and got none.
        PlacementError: a pod template the target must annotate cannot be found.
    """
    function = EXPORTERS.get(target)
    if function is None:
        raise ValueError(f"unknown export target {target!r}; choose one of {', '.join(EXPORTERS)}")
    request = ExportRequest(
        tree, report, cluster, obj, topology, queue, template_paths, catalog, api_version=api_version
    )
    objects = function(request)
    if notes is not None:
        notes.extend(request.notes)
    return objects
