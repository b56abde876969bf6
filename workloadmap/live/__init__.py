"""Live workloads: a workload's pods attributed to its components, its events, and a placement audit.

``describe`` builds a :class:`DescribeReport` from a workload and the live objects around it
(:class:`LiveObjects`, read from the API server or from dumps by ``sources``). ``owners`` walks
controller-owner chains, ``attribution`` gives each pod to a component and instance by the
definition's ``pods`` selectors, ``membership`` puts it in wmap's PodGroups and SubGroups,
``audit`` compares where each gang runs with the topology level it required or preferred,
``objects`` reads pods and Events of both Events APIs, ``listing`` makes ``wmap get``'s rows.
This stage sits above placement and uses the interpreter, topology and placement.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes
from .attribution import AttributedPod, Attribution, attribute, workload_pods
from .describe import MAX_EVENTS, LiveObjects, describe
from .listing import WorkloadRow, gang_summary, top_level, type_name, workload_row
from .objects import EventView, PodView, event_view, format_time, natural_key, newest_time, parse_time
from .owners import MAX_OWNER_DEPTH, ObjectsByUid, OwnerChains, OwnerLookup, controller_of
from .report import ComponentStatus, DescribeReport, EventRecord, PodStatus, ReplicaCounts

# The audit (with the placement stage under it) and the cluster sources (with the Kubernetes client)
# load on first use: `wmap describe -f FILE` needs neither, and they cost most of its cold start.
if TYPE_CHECKING:
    from .audit import ClusterAnalysis, GangAudit, PlacementAudit, audit_placement
    from .sources import from_cluster, from_dumps

_LAZY = {
    **dict.fromkeys(("ClusterAnalysis", "GangAudit", "PlacementAudit", "audit_placement"), ".audit"),
    **dict.fromkeys(("from_cluster", "from_dumps"), ".sources"),
}

__all__ = [
    "describe",
    "LiveObjects",
    "DescribeReport",
    "ComponentStatus",
    "PodStatus",
    "ReplicaCounts",
    "EventRecord",
    "PlacementAudit",
    "GangAudit",
    "audit_placement",
    "ClusterAnalysis",
    "attribute",
    "workload_pods",
    "Attribution",
    "AttributedPod",
    "OwnerChains",
    "OwnerLookup",
    "ObjectsByUid",
    "controller_of",
    "MAX_OWNER_DEPTH",
    "MAX_EVENTS",
    "PodView",
    "EventView",
    "event_view",
    "parse_time",
    "format_time",
    "natural_key",
    "newest_time",
    "WorkloadRow",
    "workload_row",
    "gang_summary",
    "top_level",
    "type_name",
    "from_cluster",
    "from_dumps",
]


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
