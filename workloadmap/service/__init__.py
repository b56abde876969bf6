"""``wmap serve``: the catalog as a running, read-only service beside a cluster.

The stages of the service, in the order an event goes through them:

* ``watchers`` — one LIST + WATCH per resource type on a thread of its own (``kube.ListWatch``:
  bookmarks, reconnects, relists after 410), restarted after failures; ``discovery`` chooses the
  types (every kind the catalog covers that the server serves, Pods, Nodes, Events, Kartas, and
  owner kinds met on pods' chains) and is asked again periodically;
* ``cache`` — the objects cut down to what wmap reads (``objects``), which are workloads, which
  pods are whose; a change marks only the workloads it touches as dirty;
* ``interpret`` — a dirty workload through ``live.describe`` (attribution, phases, gangs, the
  placement audit), its ``wmap get`` row and its series' samples (``series``);
* ``service`` — the worker that owns the cache: applies events, coalesces bursts, interprets, and
  publishes an immutable ``snapshot``;
* ``metrics`` (``prometheus_client``, a custom collector over the snapshot), ``api`` (the JSON
  contracts of ``get``/``describe``/``inspect``/``place -o json``), ``picture`` (the live topology
  map), ``http`` (the server: health, metrics, API, pages);
* ``rbac`` (the ClusterRole from the catalog) and ``sharding`` (a stable hash of the namespace).

GET, LIST and WATCH only. This stage sits above live and exporters, and is imported only by
``wmap serve``.
"""

from .api import Api, ApiError, ApiOptions, error_status, status_object
from .cache import Cache, Role
from .discovery import catalog_groups, wanted_watches
from .http import MAX_POSTS, READ_SECONDS, Pages, ServiceServer
from .interpret import Interpreter, WorkloadState
from .metrics import HealthCollector, MetricsEndpoint, WorkloadCollector
from .objects import EVENT_FIELDS, OWNER_FIELDS, POD_FIELDS, cut, keep, workload_copy
from .picture import live_picture
from .rbac import cluster_role
from .series import HEALTH_SERIES, WORKLOAD_SERIES, Series, resource_unit, sanitized, workload_samples
from .service import Service, ServiceOptions
from .sharding import UNSHARDED, Shard, namespace_hash, statefulset_ordinal
from .snapshot import Snapshot, WatchHealth
from .watchers import Watch, WatchSpec

__all__ = [
    "Service",
    "ServiceOptions",
    "Snapshot",
    "WatchHealth",
    "WorkloadState",
    "Interpreter",
    "Cache",
    "Role",
    "Watch",
    "WatchSpec",
    "wanted_watches",
    "catalog_groups",
    "Api",
    "ApiError",
    "ApiOptions",
    "error_status",
    "status_object",
    "ServiceServer",
    "Pages",
    "READ_SECONDS",
    "MAX_POSTS",
    "MetricsEndpoint",
    "WorkloadCollector",
    "HealthCollector",
    "Series",
    "WORKLOAD_SERIES",
    "HEALTH_SERIES",
    "workload_samples",
    "resource_unit",
    "sanitized",
    "live_picture",
    "cluster_role",
    "Shard",
    "UNSHARDED",
    "namespace_hash",
    "statefulset_ordinal",
    "keep",
    "cut",
    "workload_copy",
    "POD_FIELDS",
    "OWNER_FIELDS",
    "EVENT_FIELDS",
]
