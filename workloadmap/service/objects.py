"""What the service keeps of each object it watches: only the fields wmap reads.

An informer that keeps whole objects holds every ``managedFields`` entry, every image list of a
node and every container status a kubelet wrote. The cache keeps:

* **workloads** (objects no covered kind owns): the object without ``metadata.managedFields``
  and the ``kubectl.kubernetes.io/last-applied-configuration`` annotation (definitions read
  spec and status freely, so both stay);
* **owners in between** (a JobSet's Jobs, a Deployment's ReplicaSets, Grove's PodCliques):
  :data:`OWNER_FIELDS`, the identity and owner references an owner chain follows;
* **pods of a workload**: :data:`POD_FIELDS`, what describe, attribution, gang membership,
  the placement audit and the capacity a running pod takes read
  (:data:`workloadmap.topology.stream.POD_FIELDS` and :class:`workloadmap.live.PodView`);
* **nodes**: :data:`workloadmap.topology.stream.NODE_FIELDS`, what the cluster model reads;
* **Events**: :data:`EVENT_FIELDS`, what :func:`workloadmap.live.event_view` reads.

Cutting an object down is :func:`cut` (:func:`keep`, and the last-applied annotation dropped);
``tests/service/test_objects.py`` checks that describe and the cluster model answer the same from
the kept fields as from the whole objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..topology.stream import NODE_FIELDS
from ..topology.stream import POD_FIELDS as CAPACITY_POD_FIELDS

__all__ = [
    "Fields",
    "OWNER_FIELDS",
    "POD_FIELDS",
    "NODE_FIELDS",
    "EVENT_FIELDS",
    "keep",
    "cut",
    "workload_copy",
    "object_uid",
    "object_key",
]

Fields = Mapping[str, Any]
"""Keys of a mapping to keep: ``None`` keeps the value whole, a mapping cuts it down further (a list
under a mapping has each of its mappings cut down so); the topology reader's string markers (its
string-sharing modes) keep the value whole too."""

_METADATA_IDENTITY: dict[str, Any] = {
    "name": None,
    "namespace": None,
    "uid": None,
    "resourceVersion": None,
    "ownerReferences": None,
    "creationTimestamp": None,
}

OWNER_FIELDS: Fields = {"apiVersion": None, "kind": None, "metadata": _METADATA_IDENTITY}
"""An owner between a workload and its pods: what :class:`workloadmap.live.OwnerChains` follows."""

_CONDITION = {"type": None, "status": None, "reason": None, "message": None}
_CONTAINER_STATUS = {"restartCount": None, "state": None}


def _merged(first: Fields, second: Fields) -> dict[str, Any]:
    merged: dict[str, Any] = dict(first)
    for key, value in second.items():
        current = merged.get(key, value)
        if key in merged and isinstance(current, Mapping) and isinstance(value, Mapping):
            merged[key] = _merged(current, value)
        elif key in merged and (current is None or value is None):
            merged[key] = None
        else:
            merged[key] = value
    return merged


POD_FIELDS: Fields = _merged(
    CAPACITY_POD_FIELDS,
    {
        "metadata": {
            **_METADATA_IDENTITY,
            "labels": None,
            "annotations": None,
            "deletionTimestamp": None,
        },
        "spec": {"schedulerName": None},
        "status": {
            "conditions": _CONDITION,
            "containerStatuses": _CONTAINER_STATUS,
            "initContainerStatuses": _CONTAINER_STATUS,
            "reason": None,
            "message": None,
        },
    },
)
"""A workload's pod: identity, labels and annotations (attribution, gangs), node, requests,
phase, conditions (Ready, PodScheduled and its message), restarts and waiting reasons."""

EVENT_FIELDS: Fields = {
    "apiVersion": None,
    "kind": None,
    "metadata": {"name": None, "namespace": None, "uid": None, "resourceVersion": None},
    "type": None,
    "reason": None,
    "note": None,
    "message": None,
    "regarding": {"uid": None, "kind": None, "name": None, "namespace": None},
    "involvedObject": {"uid": None, "kind": None, "name": None, "namespace": None},
    "series": {"count": None, "lastObservedTime": None},
    "count": None,
    "deprecatedCount": None,
    "lastTimestamp": None,
    "deprecatedLastTimestamp": None,
    "eventTime": None,
}
"""An Event of either API: what :func:`workloadmap.live.event_view` reads."""

_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def keep(value: Any, fields: Fields) -> Any:
    """``value`` with only ``fields`` (see :data:`Fields`); values of another type stay as they are."""
    if value.__class__ is dict:
        kept = {}
        for key, inner in fields.items():
            if key in value:
                found = value[key]
                kept[key] = found if inner is None or inner.__class__ is str else keep(found, inner)
        return kept
    if value.__class__ is list:
        return [keep(entry, fields) if entry.__class__ is dict else entry for entry in value]
    return value


def cut(obj: dict[str, Any], fields: Fields) -> dict[str, Any]:
    """``obj`` with only ``fields``, and without the last-applied annotation (a copy of the whole object)."""
    kept: dict[str, Any] = keep(obj, fields)
    return workload_copy(kept)


def workload_copy(obj: dict[str, Any]) -> dict[str, Any]:
    """A workload as kept: everything but ``managedFields`` and the last-applied annotation (shallow copies)."""
    metadata = obj.get("metadata")
    if metadata.__class__ is not dict:
        return obj
    assert isinstance(metadata, dict)
    if "managedFields" not in metadata and _LAST_APPLIED not in (metadata.get("annotations") or {}):
        return obj
    trimmed = {key: value for key, value in metadata.items() if key != "managedFields"}
    annotations = trimmed.get("annotations")
    if isinstance(annotations, dict) and _LAST_APPLIED in annotations:
        trimmed["annotations"] = {key: value for key, value in annotations.items() if key != _LAST_APPLIED}
    return {**obj, "metadata": trimmed}


def object_uid(obj: Mapping[str, Any]) -> str:
    """The object's UID, else ``namespace/name`` (objects written by hand carry no UID)."""
    metadata = obj.get("metadata") or {}
    return str(metadata.get("uid") or f"{metadata.get('namespace') or ''}/{metadata.get('name') or ''}")


def object_key(obj: Mapping[str, Any]) -> tuple[str, str]:
    """``(namespace, name)`` ("" for cluster-scoped objects)."""
    metadata = obj.get("metadata") or {}
    return str(metadata.get("namespace") or ""), str(metadata.get("name") or "")
