"""The queue objects of a live cluster, read with LIST requests only.

The same kinds a dump holds (see :mod:`.dump`), listed across every namespace. A kind the
server does not serve (no KAI installed, no Cohort CRD in an older Kueue) is left out and named
in :attr:`QueueState.ignored`, as is one the user may not list (403) unless the preview needs
it (:data:`REQUIRED_KINDS`); any other failure (401, unreachable) is an error.
"""

from __future__ import annotations

from typing import Any

from ..documents import Document
from ..errors import ClusterApiError, UnknownResourceTypeError
from .dump import QueueState, read_queue_objects

__all__ = ["LIVE_KINDS", "REQUIRED_KINDS", "read_live_queues"]

LIVE_KINDS = (
    "clusterqueues.kueue.x-k8s.io",
    "localqueues.kueue.x-k8s.io",
    "resourceflavors.kueue.x-k8s.io",
    "cohorts.kueue.x-k8s.io",
    "topologies.kueue.x-k8s.io",
    "workloadpriorityclasses.kueue.x-k8s.io",
    "workloads.kueue.x-k8s.io",
    "priorityclasses.scheduling.k8s.io",
    "namespaces",
    "queues.scheduling.run.ai",
)
"""What a live preview lists (the resource types, plural.group as kubectl names them)."""

REQUIRED_KINDS = LIVE_KINDS[:3] + (LIVE_KINDS[6],)
"""ClusterQueues, LocalQueues, ResourceFlavors and Workloads: a preview cannot do without them. A
user whose RBAC does not allow listing the others (namespaces, priority classes ...) gets a
preview without them (where one is needed, the verdict says so) and a note."""


def read_live_queues(client: Any, kinds: tuple[str, ...] = LIVE_KINDS) -> QueueState:
    """List every queue object from the cluster ``client`` talks to (a :class:`~workloadmap.kube.ClusterClient`).

    Raises:
        ClusterError: the server refused a list or could not be reached.
        InputError: an object the server returned has a field of the wrong shape.
    """
    state = QueueState()
    source = f"cluster (context {client.context})" if getattr(client, "context", None) else "cluster"
    for kind in kinds:
        try:
            items = client.list(kind, all_namespaces=True)
        except UnknownResourceTypeError:
            state.ignored[f"{kind} (not served)"] = 0
            continue
        except ClusterApiError as error:
            if error.status_code != 403 or kind in REQUIRED_KINDS:
                raise
            state.ignored[f"{kind} (forbidden)"] = 0
            continue
        documents = [Document(item, f"{source} {kind}", index + 1) for index, item in enumerate(items)]
        read_queue_objects(documents, state)
    state.sources = [source]
    return state
