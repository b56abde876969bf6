"""Dynamic Resource Allocation: pods' device claims counted, DeviceClasses classified, selectors evaluated.

``requests`` reads claims, templates and DeviceClasses (v1, v1beta2, v1beta1 shapes, defaulted as the
API server defaults them); ``cel`` evaluates DRA's CEL selectors with cel-python, imported only when
a selector is evaluated; ``classes`` decides which classes give GPUs, MIG slices, VFIO GPUs or
ComputeDomain channels; ``counting`` counts a pod's devices as the scheduler allocates them;
``slices`` reads ResourceSlices into per-node device capacity. See docs/dra.md.
"""

from .classes import GPU_KINDS, DeviceKind, classify, gpu_class_resource
from .counting import ClaimDevices, DeviceCounter, PodDevices, count_claim, has_dra
from .requests import (
    AllocationMode,
    ClaimSpec,
    DeviceClassInfo,
    DeviceRequest,
    ExactRequest,
    read_claim_spec,
    read_device_class,
)
from .slices import (
    DRA_OBJECT_KINDS,
    Availability,
    NodeDevices,
    SharedDevices,
    device_resource,
    is_dra_object,
    read_node_devices,
)

__all__ = [
    "AllocationMode",
    "ClaimSpec",
    "DeviceClassInfo",
    "DeviceRequest",
    "ExactRequest",
    "read_claim_spec",
    "read_device_class",
    "DeviceKind",
    "GPU_KINDS",
    "classify",
    "gpu_class_resource",
    "ClaimDevices",
    "PodDevices",
    "DeviceCounter",
    "count_claim",
    "has_dra",
    "NodeDevices",
    "Availability",
    "SharedDevices",
    "DRA_OBJECT_KINDS",
    "is_dra_object",
    "device_resource",
    "read_node_devices",
]
