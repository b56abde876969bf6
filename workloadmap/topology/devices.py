"""DRA devices as node capacity: ResourceSlices (and the DeviceClasses and allocated claims with them) on a cluster.

A topology file (``kubectl get nodes,resourceslices,deviceclasses,resourceclaims -A -o yaml``)
may carry these objects beside its Nodes: :func:`split_device_objects` takes them out of the
documents (Lists opened) so the Node reader sees Nodes only, and the loader reads them once,
together with any ``resource_slices`` files given, as ``place --resource-slices`` does.
:func:`with_devices` gives each node its free devices per DeviceClass under the class's KEP-5004
quota name (``<class>.deviceclass.resource.k8s.io/devices``): its node-local devices and the
network-attached ones whose ``nodeSelector``/``allNodes`` select it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from ..documents import Document
from ..dra.slices import NodeDevices, device_resource, is_dra_object, read_node_devices
from ..errors import WorkloadMapError
from .model import Cluster

__all__ = ["with_devices", "split_device_objects", "read_located_devices"]


def with_devices(cluster: Cluster, devices: NodeDevices) -> Cluster:
    """A copy of ``cluster`` whose nodes hold their free DRA devices (every class, 0 included) as allocatable."""
    zero = {device_resource(name): Fraction(0) for name in devices.classes}
    nodes = [
        replace(node, allocatable={**node.allocatable, **zero, **devices.for_node(node.name, node.labels)})
        for node in cluster.nodes
    ]
    missing = sorted(set(devices.capacity) - {node.name for node in cluster.nodes})
    notes = list(devices.notes)
    if missing:
        shown = ", ".join(missing[:5])
        notes.append(f"ResourceSlices of {len(missing)} node(s) the cluster lacks are ignored: {shown}")
    return replace(cluster, nodes=nodes, notes=[*cluster.notes, *notes])


def split_device_objects(documents: Sequence[Any], file: str) -> tuple[list[Any], list[Document]]:
    """Documents without their DRA objects (ResourceSlice, DeviceClass, ResourceClaim), and those objects.

    ``List``s are opened: a List that held only DRA objects is dropped, one that held others keeps
    them. Each object found is a :class:`~workloadmap.documents.Document` of ``file``, so an error
    in it names its document.
    """
    others: list[Any] = []
    found: list[Document] = []
    for number, document in enumerate(documents, start=1):
        if is_dra_object(document):
            found.append(Document(document, file, number))
        elif isinstance(document, Mapping) and str(document.get("kind", "")).endswith("List"):
            items = document.get("items")
            if isinstance(items, list) and any(is_dra_object(item) for item in items):
                found += [
                    Document(item, file, number, index) for index, item in enumerate(items, 1) if is_dra_object(item)
                ]
                rest = [item for item in items if not is_dra_object(item)]
                if rest:
                    others.append({**document, "items": rest})
                continue
            others.append(document)
        else:
            others.append(document)
    return others, found


def read_located_devices(documents: Sequence[Document]) -> NodeDevices:
    """Free devices per node from the DRA objects of ``documents``, read together once.

    Raises:
        WorkloadMapError: a malformed object, located at its file and document.
    """
    try:
        return read_node_devices([document.body for document in documents])
    except WorkloadMapError:
        for document in documents:  # find the document at fault, to name it
            try:
                read_node_devices([document.body])
            except WorkloadMapError as error:
                raise error.located(file=document.file, document=document.label) from None
        raise
