"""One workload interpreted from the cache: ``wmap describe``'s report, ``wmap get``'s row, and its samples.

:func:`interpret` runs :func:`workloadmap.live.describe` on a cached workload with the pods whose
owner chain ends at it, the cached owners, and the cluster built once from the cached nodes, so
attribution, phases, gangs and the placement audit are describe's own. Events are left out of the
kept report (they change far more often than anything a series shows); the describe endpoint
asks again with them (:func:`describe_now`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..catalog import Catalog
from ..errors import ClusterError, WorkloadMapError, internal_error
from ..interpreter import RelatedObjects
from ..live import (
    ClusterAnalysis,
    DescribeReport,
    LiveObjects,
    OwnerChains,
    WorkloadRow,
    describe,
    type_name,
    workload_row,
)
from ..topology import Cluster
from ..tree import WorkloadTree
from .cache import Cache
from .objects import object_key
from .series import GANG_PLACEMENT, Sample, workload_samples

__all__ = ["WorkloadState", "Interpreter", "CachedObjects", "with_last_audit"]


@dataclass(frozen=True)
class WorkloadState:
    """A workload as the last interpretation left it (immutable: a snapshot shares it).

    Attributes:
        uid: the workload's UID.
        namespace, kind, group, name: its identity (``group`` ``""`` for the core group).
        type_name: ``kind.group`` as ``kubectl get -o name`` prints it.
        obj: the cached object (describe runs on it again, with events).
        report: describe's report without events; None when interpretation failed.
        row: ``wmap get``'s row.
        error: the one-line error when interpretation failed.
        audited: the report holds the placement audit (it is made after the rest, see :meth:`Interpreter.interpret`).
        samples: its series' samples.
    """

    uid: str
    namespace: str
    kind: str
    group: str
    name: str
    type_name: str
    obj: Mapping[str, Any]
    report: DescribeReport | None = None
    row: WorkloadRow | None = None
    error: str | None = None
    audited: bool = False
    samples: tuple[Sample, ...] = field(default=(), repr=False)

    @property
    def tree(self) -> WorkloadTree | None:
        """The workload tree (None when interpretation failed)."""
        return self.report.tree if self.report is not None else None

    @property
    def sort_key(self) -> tuple[str, str, str]:
        """Namespace, type and name: the order of the API's lists."""
        return self.namespace, self.type_name, self.name


class CachedObjects:
    """Referenced objects (a TrainJob's runtime) from the cache, else from ``fallback``; each read recorded.

    The cache holds every kind a definition covers, runtime templates included; a kind it does not
    hold (a ConfigMap the user allowed) is read through ``fallback`` (GET).
    """

    def __init__(self, cache: Cache, fallback: RelatedObjects | None) -> None:
        self.cache = cache
        self.fallback = fallback
        self.read: list[tuple[str, str, str]] = []

    def find(self, kind: str, name: str, namespace: str | None, namespaced: bool) -> Mapping[str, Any] | None:
        """The cached object of that kind and name, else the fallback's answer."""
        scope = namespace if namespaced else None
        bare, _, group = kind.partition(".")  # the cache keys by bare kind
        self.read.append((bare, scope or "", name))
        found = self.cache.find(bare, name, scope)
        if found is not None and group and str(found.get("apiVersion", "")).split("/")[0] != group:
            found = None
        if found is None and self.fallback is not None:
            return self.fallback.find(kind, name, namespace, namespaced)
        return found


class Interpreter:
    """Interprets cached workloads with one catalog and the cluster built from the cached nodes.

    Args:
        cache: the cache.
        catalog: the definitions (built-ins, ``--catalog`` and the cluster's Kartas).
        gpu_resources: resource names counted as GPUs.
        source: where the objects came from, recorded in each tree (``cluster (context NAME)``).
        fallback: where referenced objects the cache does not hold are read.
    """

    def __init__(
        self,
        cache: Cache,
        catalog: Catalog,
        gpu_resources: Sequence[str],
        source: str,
        fallback: RelatedObjects | None = None,
    ) -> None:
        self.cache = cache
        self.catalog = catalog
        self.gpu_resources = tuple(gpu_resources)
        self.source = source
        self.fallback = fallback
        self.cluster: Cluster | None = None
        self.analysis: ClusterAnalysis | None = None
        self.nodes: list[dict[str, Any]] | None = None
        self.warnings: list[str] = []
        self.events_api: str | None = None

    def _live(self, uid: str, events: bool, audit: bool = True) -> LiveObjects:
        obj = self.cache.workload(uid) or {}
        namespace = object_key(obj)[0] or None
        return LiveObjects(
            pods=self.cache.pods_of(uid),
            owners=self.cache,
            events=self.cache.events_of(namespace) if events else (),
            events_api=self.events_api if events else None,
            nodes=self.nodes if self.analysis is None and audit else None,
            analysis=self.analysis if audit else None,
            chains=OwnerChains(self.cache),
            warnings=list(self.warnings),
        )

    def describe(self, uid: str, *, events: bool, audit: bool = True) -> DescribeReport:
        """The describe report of a cached workload (the cached Events with ``events``, the audit with ``audit``).

        Raises:
            WorkloadMapError: as :func:`workloadmap.live.describe`.
        """
        obj = self.cache.workload(uid)
        if obj is None:
            raise KeyError(uid)
        related = CachedObjects(self.cache, self.fallback)
        try:
            return describe(
                obj,
                self._live(uid, events, audit),
                catalog=self.catalog,
                gpu_resources=self.gpu_resources,
                related=related,
                source=self.source,
            )
        finally:
            self.cache.read_by(uid, related.read)

    def interpret(self, uid: str, *, audit: bool = False) -> WorkloadState | None:
        """The state of cached workload ``uid``; None when it is no longer a workload.

        Without ``audit`` the placement audit is left out (``audited`` False): on thousands of
        nodes it costs a placement per workload, so the service runs it after the rest, in the
        worker's idle time.
        """
        obj = self.cache.workload(uid)
        if obj is None:
            return None
        namespace, name = object_key(obj)
        api_version, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
        group = api_version.rpartition("/")[0]
        failed = WorkloadState(uid, namespace, kind, group, name, type_name(obj), obj)
        try:
            report = self.describe(uid, events=False, audit=audit)
        except ClusterError as error:
            return replace(failed, error=str(error))
        except WorkloadMapError as error:
            return replace(failed, error=str(error.located(file=self.source)))
        except Exception as error:  # one workload's failure must not stop the others'
            return replace(failed, error=str(internal_error(error).located(file=self.source)))
        return replace(
            failed,
            report=report,
            audited=audit,
            row=workload_row(obj, report.tree, report),
            samples=tuple(workload_samples((namespace, kind, group, name), report.tree, report)),
        )


def with_last_audit(state: WorkloadState, previous: WorkloadState | None) -> WorkloadState:
    """``state``, interpreted without its placement audit, keeping ``previous``'s audit series until one is made.

    A large batch (the first sync, a resync every ``--resync``) is interpreted first and audited
    in the worker's idle time, which on thousands of workloads and a busy cluster takes minutes:
    without this, ``wmap_gang_placement_satisfied`` would vanish from every workload at each
    resync and come back one workload at a time. ``wmap_audits_pending`` counts those still to
    be made again.
    """
    if state.audited or state.error is not None or previous is None:
        return state
    kept = tuple(sample for sample in previous.samples if sample[0] is GANG_PLACEMENT)
    if not kept:
        return state
    return replace(state, samples=state.samples + kept)
