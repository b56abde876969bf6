"""Typed views of the live objects describe reads: pods and Events, from the API server or a dump.

:class:`PodView` keeps what describe shows about a pod (phase, readiness, node, restarts, the
gang a scheduler put it in, and why it is not running). :func:`event_view` reads an Event of
either API, ``events.k8s.io/v1`` (``regarding``, ``note``, ``series.lastObservedTime``,
``deprecatedLastTimestamp``) or core ``v1`` (``involvedObject``, ``message``, ``lastTimestamp``),
into one :class:`EventView`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ..labels import POD_GROUP_KEYS, POD_READY, POD_SCHEDULED, SUBGROUP_KEYS
from ..values import mapping_at

__all__ = [
    "PodView",
    "EventView",
    "event_view",
    "parse_time",
    "format_time",
    "natural_key",
    "newest_time",
    "TERMINATED_PHASES",
]

TERMINATED_PHASES = ("Succeeded", "Failed")
_RFC3339 = re.compile(r"^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$")


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp (``2024-05-01T10:00:00Z``, with or without fractions) as an aware datetime."""
    if not isinstance(value, str):
        return None
    match = _RFC3339.match(value.strip())
    if match is None:
        return None
    date, clock, fraction, zone = match.groups()
    micros = (fraction or ".0")[1:7].ljust(6, "0")
    offset = "+00:00" if zone in (None, "Z", "z") else zone
    try:
        return datetime.fromisoformat(f"{date}T{clock}.{micros}{offset}")
    except ValueError:
        return None


def format_time(value: datetime | None) -> str | None:
    """A datetime as RFC 3339 in UTC (``2024-05-01T10:00:00Z``), fractions kept when present."""
    if value is None:
        return None
    utc = value.astimezone(timezone.utc)
    text = utc.strftime("%Y-%m-%dT%H:%M:%S")
    if utc.microsecond:
        text += f".{utc.microsecond:06d}".rstrip("0")
    return text + "Z"


_TIMES = ("lastTimestamp", "firstTimestamp", "eventTime", "deprecatedLastTimestamp")
_STATUS_TIMES = ("startTime", "completionTime", "lastScheduleTime", "lastSuccessfulTime")
_CONDITION_TIMES = ("lastTransitionTime", "lastUpdateTime", "lastProbeTime", "lastHeartbeatTime")


def _times(obj: Mapping[str, Any]) -> Iterator[Any]:
    metadata = obj.get("metadata")
    if isinstance(metadata, Mapping):
        yield metadata.get("creationTimestamp")
        yield metadata.get("deletionTimestamp")
    yield from (obj.get(key) for key in _TIMES)
    series = obj.get("series")
    if isinstance(series, Mapping):
        yield series.get("lastObservedTime")
    status = obj.get("status")
    if isinstance(status, Mapping):
        yield from (status.get(key) for key in _STATUS_TIMES)
        conditions = status.get("conditions")
        for condition in conditions if isinstance(conditions, list) else ():
            if isinstance(condition, Mapping):
                yield from (condition.get(key) for key in _CONDITION_TIMES)


def newest_time(objects: Iterable[Mapping[str, Any]]) -> datetime | None:
    """The newest timestamp the objects hold: when a dump of them was taken, near enough (None: none).

    Read from creation and deletion times, Events' times, status times and conditions' transitions:
    AGE and LAST SEEN of objects read from a dump count from it, not from today.
    """
    newest = None
    for obj in objects:
        if not isinstance(obj, Mapping):
            continue
        for value in _times(obj):
            moment = parse_time(value)
            if moment is not None and (newest is None or moment > newest):
                newest = moment
    return newest


def natural_key(name: str) -> tuple[Any, ...]:
    """Sort key that orders ``pod-2`` before ``pod-10``."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def _first(metadata: Mapping[str, Any], keys: tuple[tuple[str, str], ...]) -> str | None:
    for field_name, key in keys:
        value = mapping_at(metadata, field_name).get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _strings(value: Any) -> dict[str, str]:
    return {str(key): str(item) for key, item in value.items()} if isinstance(value, Mapping) else {}


def _condition(status: Mapping[str, Any], kind: str) -> Mapping[str, Any]:
    for condition in status.get("conditions") or []:
        if isinstance(condition, Mapping) and condition.get("type") == kind:
            return condition
    return {}


def _container_problem(status: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The first waiting or failed container's reason and message (CrashLoopBackOff, ImagePullBackOff ...)."""
    for field_name in ("initContainerStatuses", "containerStatuses"):
        for container in status.get(field_name) or []:
            state = mapping_at(container, "state")
            waiting = mapping_at(state, "waiting")
            if waiting.get("reason"):
                return str(waiting["reason"]), waiting.get("message")
            terminated = mapping_at(state, "terminated")
            if terminated.get("reason") and terminated.get("exitCode") not in (0, None):
                return str(terminated["reason"]), terminated.get("message")
    return None, None


@dataclass(frozen=True)
class PodView:
    """What describe needs of one pod.

    Attributes:
        phase: ``status.phase`` (``Pending``, ``Running``, ``Succeeded``, ``Failed``, ``Unknown``).
        ready: the ``Ready`` condition is ``True``.
        node: ``spec.nodeName`` (None while unscheduled).
        restarts: container restarts, summed.
        pod_group: the PodGroup a scheduler put the pod in (KAI, Volcano, Kueue, coscheduling).
        sub_group: the KAI SubGroup, Kueue PodSet or Volcano task the pod joined.
        reason, message: why it is not running: the ``PodScheduled`` condition when unscheduled
            (``Unschedulable`` and the scheduler's text), else a waiting or failed container, else
            ``status.reason`` (``Evicted``).
        owners: the ``metadata.ownerReferences``.
        deleting: it has a ``deletionTimestamp`` (Terminating).
    """

    name: str
    namespace: str
    uid: str
    labels: dict[str, str]
    annotations: dict[str, str]
    phase: str
    ready: bool
    node: str | None
    restarts: int
    pod_group: str | None
    sub_group: str | None
    reason: str | None
    message: str | None
    owners: tuple[Mapping[str, Any], ...]
    deleting: bool
    created: datetime | None
    raw: Mapping[str, Any]

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> PodView:
        """Read a Pod object (as the API server or ``kubectl get -o yaml`` gives it)."""
        metadata, spec, status = mapping_at(obj, "metadata"), mapping_at(obj, "spec"), mapping_at(obj, "status")
        phase = str(status.get("phase") or "Pending")
        scheduled = _condition(status, POD_SCHEDULED)
        reason: str | None = None
        message: str | None = None
        if not spec.get("nodeName") and scheduled.get("status") == "False":
            reason, message = scheduled.get("reason") or "Unschedulable", scheduled.get("message")
        if reason is None:
            reason, message = _container_problem(status)
        if reason is None and status.get("reason"):
            reason, message = str(status["reason"]), status.get("message")
        restarts = sum(
            int(container.get("restartCount") or 0)
            for container in status.get("containerStatuses") or []
            if isinstance(container, Mapping)
        )
        owners = tuple(ref for ref in metadata.get("ownerReferences") or [] if isinstance(ref, Mapping))
        return cls(
            name=str(metadata.get("name") or ""),
            namespace=str(metadata.get("namespace") or ""),
            uid=str(metadata.get("uid") or ""),
            labels=_strings(metadata.get("labels")),
            annotations=_strings(metadata.get("annotations")),
            phase=phase,
            ready=_condition(status, POD_READY).get("status") == "True",
            node=str(spec["nodeName"]) if spec.get("nodeName") else None,
            restarts=restarts,
            pod_group=_first(metadata, POD_GROUP_KEYS),
            sub_group=_first(metadata, SUBGROUP_KEYS),
            reason=str(reason) if reason else None,
            message=" ".join(str(message).split()) if message else None,
            owners=owners,
            deleting=bool(metadata.get("deletionTimestamp")),
            created=parse_time(metadata.get("creationTimestamp")),
            raw=obj,
        )

    @property
    def terminated(self) -> bool:
        """Whether the pod has finished (``Succeeded`` or ``Failed``)."""
        return self.phase in TERMINATED_PHASES

    @property
    def health(self) -> int:
        """0 failed or unknown, 1 pending, 2 running but not ready, 3 ready, 4 succeeded: unhealthy sorts first."""
        if self.phase in ("Failed", "Unknown") or (self.reason and not self.ready and self.phase == "Running"):
            return 0
        if self.phase == "Pending":
            return 1
        if self.phase == "Succeeded":
            return 4
        return 3 if self.ready else 2


@dataclass(frozen=True)
class EventView:
    """An Event of either API, normalized.

    Attributes:
        regarding: the object it is about: ``(uid, kind, name)``.
        last_seen: the time kubectl sorts by: the series' last observation, else the last
            timestamp, else the event time.
    """

    type: str
    reason: str
    message: str
    regarding: tuple[str, str, str]
    last_seen: datetime | None
    count: int


def event_view(obj: Mapping[str, Any]) -> EventView:
    """Normalize an ``events.k8s.io/v1`` or core ``v1`` Event (told apart by their fields).

    The time follows kubectl's ``eventTime`` (``kubectl/pkg/cmd/events/events.go``): the
    series' ``lastObservedTime``, else ``lastTimestamp`` (``deprecatedLastTimestamp`` in
    ``events.k8s.io/v1``), else ``eventTime``.
    """
    new_api = "regarding" in obj or "note" in obj or "deprecatedLastTimestamp" in obj
    regarding = mapping_at(obj, "regarding" if new_api else "involvedObject")
    series = mapping_at(obj, "series")
    last = parse_time(series.get("lastObservedTime"))
    if last is None:
        last = parse_time(obj.get("deprecatedLastTimestamp" if new_api else "lastTimestamp"))
    if last is None:
        last = parse_time(obj.get("eventTime"))
    count = series.get("count") or obj.get("deprecatedCount" if new_api else "count") or 1
    return EventView(
        type=str(obj.get("type") or ""),
        reason=str(obj.get("reason") or ""),
        message=" ".join(str(obj.get("note" if new_api else "message") or "").split()),
        regarding=(str(regarding.get("uid") or ""), str(regarding.get("kind") or ""), str(regarding.get("name") or "")),
        last_seen=last,
        count=int(count) if isinstance(count, int) else 1,
    )
