"""ResourceSlices as per-node device capacity: how many free devices of each DeviceClass a node holds.

As the structured allocator reads them (``k8s.io/dynamic-resource-allocation/structured``,
``GatherPools``/``addSlice``): per ``(driver, pool)`` only the slices of the highest
``pool.generation`` count, and a pool is usable once all its ``pool.resourceSliceCount`` slices are
seen (an incomplete pool is left out, with a note); device identity is ``driver/pool/device``.
Slices of v1 and v1beta2 list devices flat, v1beta1 under ``basic``. A device is of a class when
every selector of the class matches it (CEL, :mod:`.cel`); a selector that cannot be evaluated
counts the device for no class and says so. Devices in the ``status.allocation.devices.results`` of
the ResourceClaims given (but admin-access ones) are taken.

Only node-local slices (``spec.nodeName``) are attached to nodes; ``nodeSelector``, ``allNodes``
and per-device node selection (network-attached devices) are named in a note, not modelled. A
device matching several classes counts for each: the capacity of one class is exact, that of
several classes together an upper bound.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .. import labels
from ..errors import InputError
from ..quantities import parse_quantity
from ..values import mapping_at
from .cel import Device, evaluate
from .requests import DeviceClassInfo, read_device_class

__all__ = ["SliceDevice", "NodeDevices", "read_node_devices", "device_resource", "CHART_DEVICE_CLASSES"]

CHART_DEVICE_CLASSES = (
    DeviceClassInfo(
        labels.NVIDIA_GPU_DRIVER,
        ("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",),
    ),
    DeviceClassInfo(
        labels.NVIDIA_MIG_CLASS,
        ("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'",),
    ),
    DeviceClassInfo(
        labels.NVIDIA_VFIO_CLASS,
        ("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'vfio'",),
    ),
    DeviceClassInfo(
        labels.NVIDIA_CHANNEL_CLASS,
        (
            "device.driver == 'compute-domain.nvidia.com' && "
            "device.attributes['compute-domain.nvidia.com'].type == 'channel' && "
            "device.attributes['compute-domain.nvidia.com'].id == 0",
        ),
    ),
)
"""NVIDIA's chart's DeviceClasses (deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-*.yaml),
assumed when the input gives no DeviceClass of that name."""


def device_resource(device_class: str) -> str:
    """The resource name placement counts a class's devices under (KEP-5004's quota name)."""
    return device_class + labels.DRA_DEVICES_RESOURCE_SUFFIX


@dataclass(frozen=True, slots=True)
class SliceDevice:
    """One device of a ResourceSlice: its identity and what selectors see of it."""

    pool: str
    name: str
    device: Device

    @property
    def key(self) -> tuple[str, str, str]:
        """``(driver, pool, device)``, the allocator's device identity."""
        return (self.device.driver, self.pool, self.name)


@dataclass
class NodeDevices:
    """Free devices per node and class, read from ResourceSlices, DeviceClasses and allocated claims.

    Attributes:
        capacity: node name -> resource name (:func:`device_resource`) -> free devices; every
            node with a slice lists every class (0 included), so that a class is known checked.
        classes: the classes counted.
        notes: what was left out (incomplete pools, network-attached slices, selectors that
            cannot be evaluated).
    """

    capacity: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    classes: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)


def _attribute(raw: Any) -> int | bool | str | None:
    if not isinstance(raw, Mapping):
        return None
    for key in ("int", "bool", "string", "version"):
        if key in raw:
            value = raw[key]
            return value if isinstance(value, (int, bool, str)) else None
    return None


def _device(body: Mapping[str, Any], driver: str, pool: str, where: str) -> SliceDevice:
    basic = body.get("basic")
    shape = basic if isinstance(basic, Mapping) else body  # v1beta1 nests the device under `basic`
    attributes = []
    for name, raw in mapping_at(shape, "attributes").items():
        value = _attribute(raw)
        if value is not None:
            attributes.append((str(name), value))
    capacity = []
    for name, raw in mapping_at(shape, "capacity").items():
        amount = raw.get("value") if isinstance(raw, Mapping) else raw
        try:
            capacity.append((str(name), parse_quantity(amount)))
        except InputError as error:
            raise error.located(field=f"{where}.capacity.{name}") from None
    device_name = body.get("name")
    if not isinstance(device_name, str) or not device_name:
        raise InputError("a device needs a name", field=f"{where}.name")
    return SliceDevice(pool, device_name, Device(driver, tuple(attributes), tuple(capacity)))


def _pools(slices: list[Mapping[str, Any]], notes: list[str]) -> dict[str, list[SliceDevice]]:
    """Node name -> devices of the complete, newest pools of node-local slices."""
    newest: dict[tuple[str, str], tuple[int, int, list[Mapping[str, Any]]]] = {}
    for obj in slices:
        spec = mapping_at(obj, "spec")
        pool_spec = mapping_at(spec, "pool")
        key = (str(spec.get("driver") or ""), str(pool_spec.get("name") or ""))
        raw_generation, raw_count = pool_spec.get("generation"), pool_spec.get("resourceSliceCount")
        generation = raw_generation if isinstance(raw_generation, int) else 0
        count = raw_count if isinstance(raw_count, int) else 1
        held = newest.get(key)
        if held is None or generation > held[0]:
            newest[key] = (generation, count, [obj])
        elif generation == held[0]:
            held[2].append(obj)
    by_node: dict[str, list[SliceDevice]] = {}
    for (driver, pool), (_, count, members) in sorted(newest.items()):
        if len(members) < count:
            notes.append(
                f"ResourceSlice pool {driver}/{pool}: {len(members)} of {count} slices given; the pool is "
                "incomplete (being updated) and its devices are left out"
            )
            continue
        for obj in members:
            spec = mapping_at(obj, "spec")
            node = spec.get("nodeName")
            metadata = mapping_at(obj, "metadata")
            where = "spec.devices"
            label = f"ResourceSlice/{metadata.get('name', '?')}"
            if not isinstance(node, str) or not node:
                if spec.get("devices"):
                    notes.append(
                        f"{label}: devices not bound to one node (nodeSelector, allNodes or per-device "
                        "selection) are not modelled"
                    )
                continue
            devices = spec.get("devices")
            devices = devices if isinstance(devices, list) else []
            by_node.setdefault(node, []).extend(
                _device(device, driver, pool, f"{where}[{index}]")
                for index, device in enumerate(devices)
                if isinstance(device, Mapping)
            )
    return by_node


def _taken(claims: Iterable[Mapping[str, Any]]) -> set[tuple[str, str, str]]:
    taken = set()
    for claim in claims:
        devices = mapping_at(mapping_at(mapping_at(claim, "status"), "allocation"), "devices")
        results = devices.get("results")
        for result in results if isinstance(results, list) else []:
            if isinstance(result, Mapping) and result.get("adminAccess") is not True:
                taken.add((str(result.get("driver")), str(result.get("pool")), str(result.get("device"))))
    return taken


def read_node_devices(objects: Iterable[Mapping[str, Any]]) -> NodeDevices:
    """Free devices per node and class from ResourceSlices, DeviceClasses and ResourceClaims among ``objects``.

    Other objects are ignored. NVIDIA's chart classes are counted unless a DeviceClass of that name is given.

    Raises:
        InputError: a device's name or capacity, or a DeviceClass's selectors, are malformed.
    """
    slices, claims = [], []
    classes: dict[str, DeviceClassInfo] = {}
    for obj in objects:
        kind = obj.get("kind")
        if kind == labels.DRA_SLICE_KIND:
            slices.append(obj)
        elif kind == labels.DRA_CLAIM_KIND:
            claims.append(obj)
        elif kind == labels.DRA_DEVICE_CLASS_KIND:
            found = read_device_class(obj)
            classes[found.name] = found
    for chart in CHART_DEVICE_CLASSES:
        classes.setdefault(chart.name, chart)
    notes: list[str] = []
    by_node = _pools(slices, notes)
    taken = _taken(claims)
    capacity: dict[str, dict[str, Fraction]] = {}
    unknown: dict[str, str] = {}
    for node, devices in by_node.items():
        free = [device for device in devices if device.key not in taken]
        counts: dict[str, Fraction] = {}
        for device_class in classes.values():
            matching = 0
            for device in free:
                verdicts = [evaluate(selector, device.device) for selector in device_class.selectors]
                if all(verdict.matches for verdict in verdicts):
                    matching += 1
                elif any(verdict.matches is None for verdict in verdicts) and not any(
                    verdict.matches is False for verdict in verdicts
                ):
                    reason = next(verdict.reason for verdict in verdicts if verdict.matches is None)
                    unknown.setdefault(device_class.name, reason)
            counts[device_resource(device_class.name)] = Fraction(matching)
        capacity[node] = counts
    for name, reason in unknown.items():
        notes.append(f"DeviceClass/{name}: some devices were counted for no class: {reason}")
    return NodeDevices(capacity, tuple(classes), notes)
