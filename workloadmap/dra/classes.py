"""Which DeviceClasses hand out GPUs, MIG slices, VFIO GPUs or ComputeDomain channels.

In this order:

1. a class the user names with ``--gpu-device-class`` (carried in the tree's GPU resource names as
   its KEP-5004 implicit name ``deviceclass.resource.kubernetes.io/<class>``) is a GPU class;
2. a DeviceClass object given (input, ``--related``, cluster): its CEL selectors are evaluated on
   the device shapes NVIDIA's kubelet plugins publish (``type`` ``gpu``, ``mig``, ``vfio`` of driver
   ``gpu.nvidia.com``; ``channel``, ``daemon`` of ``compute-domain.nvidia.com``; their
   ``deployments/helm`` DeviceClasses select on exactly that attribute). A shape the selectors
   accept, or cannot decide because the shape lacks an attribute they read (a MIG ``profile``),
   is a candidate; one candidate decides;
3. NVIDIA's chart class names (``gpu.nvidia.com``, ``mig.nvidia.com`` ...);
4. KAI's rule (``pkg/common/resources/dra.go`` ``IsGPUDeviceClass``: the name contains ``gpu``),
   minus MIG classes (the name contains ``mig``): a MIG slice is never a whole GPU.

GPUs are the devices of ``gpu`` and ``vfio`` classes (a VFIO device is a whole GPU passed to a VM).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

from .. import labels
from .requests import DeviceClassInfo

__all__ = ["DeviceKind", "classify", "GPU_KINDS", "gpu_class_resource"]


class DeviceKind(str, Enum):
    """What a class's devices are."""

    GPU = "gpu"
    MIG = "mig"
    VFIO = "vfio"
    CHANNEL = "channel"
    DAEMON = "daemon"
    OTHER = "other"


GPU_KINDS = frozenset((DeviceKind.GPU, DeviceKind.VFIO))

_CHART_CLASSES = {
    labels.NVIDIA_GPU_DRIVER: DeviceKind.GPU,
    labels.NVIDIA_MIG_CLASS: DeviceKind.MIG,
    labels.NVIDIA_VFIO_CLASS: DeviceKind.VFIO,
    labels.NVIDIA_CHANNEL_CLASS: DeviceKind.CHANNEL,
    labels.NVIDIA_DAEMON_CLASS: DeviceKind.DAEMON,
}


def gpu_class_resource(device_class: str) -> str:
    """The implicit extended resource name of a class (KEP-5004), how ``--gpu-device-class`` travels."""
    return labels.DRA_DEVICE_CLASS_RESOURCE_PREFIX + device_class


def _by_selectors(device_class: DeviceClassInfo) -> DeviceKind | None:
    from .cel import Device, evaluate  # cel-python only when a DeviceClass with selectors is read

    candidates = []
    for kind, driver in labels.NVIDIA_DEVICE_TYPES.items():
        shape = Device(driver, ((labels.NVIDIA_DEVICE_TYPE_ATTRIBUTE, kind),))
        verdicts = [evaluate(selector, shape).matches for selector in device_class.selectors]
        if all(verdict is not False for verdict in verdicts):
            candidates.append(DeviceKind(kind))
    return candidates[0] if len(candidates) == 1 else None


def classify(name: str, classes: Mapping[str, DeviceClassInfo], gpu_resources: tuple[str, ...]) -> DeviceKind:
    """The kind of devices class ``name`` gives (see the module docstring for the order)."""
    if gpu_class_resource(name) in gpu_resources:
        return DeviceKind.GPU
    device_class = classes.get(name)
    if device_class is not None and device_class.selectors:
        kind = _by_selectors(device_class)
        if kind is not None:
            return kind
    known = _CHART_CLASSES.get(name)
    if known is not None:
        return known
    lowered = name.lower()
    if labels.MIG_CLASS_MARK in lowered:
        return DeviceKind.MIG
    if labels.KAI_GPU_CLASS_MARK in lowered:
        return DeviceKind.GPU
    return DeviceKind.OTHER
