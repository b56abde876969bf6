"""ResourceSlices as per-node device capacity: how many free devices of each DeviceClass a node holds.

As the structured allocator reads them (``k8s.io/dynamic-resource-allocation/structured``,
``GatherPools``/``addSlice``): per ``(driver, pool)`` only the slices of the highest
``pool.generation`` count, and a pool is usable once all its ``pool.resourceSliceCount`` slices are
seen (an incomplete pool is left out, with a note); device identity is ``driver/pool/device``.
Slices of v1 and v1beta2 list devices flat, v1beta1 under ``basic``. A device is of a class when
every selector of the class matches it (CEL, :mod:`.cel`); a selector that cannot be evaluated
counts the device for no class and says so. Devices in the ``status.allocation.devices.results`` of
the ResourceClaims given (but admin-access ones) are taken.

Where a device is available, as ``GatherPools`` attaches slices to a node: a slice's
``spec.nodeName`` (node-local), ``spec.nodeSelector`` (a core/v1 NodeSelector: the nodes it
selects), ``spec.allNodes`` (every node) or ``spec.perDeviceNodeSelection`` (each device's own
``nodeName``/``nodeSelector``/``allNodes``). A network-attached device (selector or all nodes)
counts on every node it is available to, so nodes that share it each see it: their capacity
together is an upper bound (a note says so). A device matching several classes counts for each:
the capacity of one class is exact, that of several classes together an upper bound.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .. import labels
from ..errors import InputError
from ..quantities import parse_quantity
from ..scheduling import SelectorTerm, node_selector_terms
from ..values import mapping_at
from .cel import Device, evaluate
from .requests import DeviceClassInfo, read_device_class

__all__ = [
    "SliceDevice",
    "Availability",
    "SharedDevices",
    "NodeDevices",
    "read_node_devices",
    "device_resource",
    "CHART_DEVICE_CLASSES",
    "DRA_OBJECT_KINDS",
    "is_dra_object",
]

DRA_OBJECT_KINDS = frozenset({labels.DRA_SLICE_KIND, labels.DRA_DEVICE_CLASS_KIND, labels.DRA_CLAIM_KIND})
"""The kinds :func:`read_node_devices` reads: slices, the classes that select their devices, allocated claims."""


def is_dra_object(document: Any) -> bool:
    """Whether ``document`` is a ResourceSlice, DeviceClass or ResourceClaim of ``resource.k8s.io``."""
    if not isinstance(document, Mapping):
        return False
    kind = document.get("kind")
    if not isinstance(kind, str) or kind not in DRA_OBJECT_KINDS:  # a list or a mapping is no kind (and unhashable)
        return False
    api_version = document.get("apiVersion")
    return not isinstance(api_version, str) or api_version.partition("/")[0] == labels.DRA_GROUP


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


@dataclass(frozen=True, slots=True)
class Availability:
    """Where a device can be used: one node (``node``), the nodes ``terms`` selects, or every node.

    ``terms`` is a core/v1 NodeSelector's terms (a node matching any one has the device); neither
    ``node`` nor ``terms``: every node (``allNodes``).
    """

    node: str | None = None
    terms: tuple[SelectorTerm, ...] | None = None

    def includes(self, name: str, node_labels: Mapping[str, str]) -> bool:
        """Whether the node called ``name`` with ``node_labels`` can use the device."""
        if self.node is not None:
            return self.node == name
        if self.terms is None:
            return True
        return any(term.matches(node_labels, name) for term in self.terms)


@dataclass(frozen=True, slots=True)
class SharedDevices:
    """Network-attached devices of one availability: the free devices per class of the nodes it selects."""

    availability: Availability
    counts: dict[str, Fraction]
    source: str


@dataclass
class NodeDevices:
    """Free devices per node and class, read from ResourceSlices, DeviceClasses and allocated claims.

    Attributes:
        capacity: node name -> resource name (:func:`device_resource`) -> free node-local devices;
            every node with a slice lists every class (0 included), so that a class is known checked.
        shared: network-attached devices (``nodeSelector``, ``allNodes``, per-device selection):
            each group counts on every node it selects (:meth:`for_node`).
        classes: the classes counted.
        notes: what was left out or is an upper bound (incomplete pools, shared devices,
            selectors that cannot be evaluated).
    """

    capacity: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    classes: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    shared: tuple[SharedDevices, ...] = ()
    _by_label: dict[tuple[str, str], list[SharedDevices]] = field(default_factory=dict, init=False, repr=False)
    _others: list[SharedDevices] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        # A selector of one `key In [values]` (a rack's, a zone's) is looked up by the node's label
        # value; the others (allNodes, several terms or expressions) are asked node by node.
        for group in self.shared:
            terms = group.availability.terms
            single = terms[0].expressions if terms is not None and len(terms) == 1 and not terms[0].fields else ()
            if len(single) == 1 and single[0].operator == "In" and single[0].valid:
                for value in single[0].values:
                    self._by_label.setdefault((single[0].key, value), []).append(group)
            else:
                self._others.append(group)

    def for_node(self, name: str, node_labels: Mapping[str, str]) -> dict[str, Fraction]:
        """The free devices per resource name the node can use: its own and the network-attached it is given."""
        found = dict(self.capacity.get(name, {}))
        groups = [group for group in self._others if group.availability.includes(name, node_labels)]
        if self._by_label:
            for key, value in node_labels.items():
                groups += self._by_label.get((key, value), ())
        for group in groups:
            for resource, count in group.counts.items():
                found[resource] = found.get(resource, Fraction(0)) + count
        return found


def _is_mapping(value: Any) -> bool:
    # dict first: parsed documents are dicts, and the Mapping check costs several times more
    return value.__class__ is dict or isinstance(value, Mapping)


def _attribute(raw: Any) -> int | bool | str | None:
    if not _is_mapping(raw):
        return None
    for key in ("int", "bool", "string", "version"):
        if key in raw:
            value = raw[key]
            return value if value.__class__ in (int, bool, str) or isinstance(value, (int, bool, str)) else None
    return None


_AMOUNTS: dict[Any, Fraction] = {}
"""Capacity amounts read, by their text: a cluster's devices repeat a few (``80Gi``)."""


def _amount(raw: Any) -> Fraction:
    key = (raw.__class__, raw) if raw.__class__ in (str, int) else None
    if key is not None and key in _AMOUNTS:
        return _AMOUNTS[key]
    amount = parse_quantity(raw)
    if key is not None and len(_AMOUNTS) < 4096:
        _AMOUNTS[key] = amount
    return amount


def _device(
    body: Mapping[str, Any], driver: str, pool: str, where: str, alike: dict[Device, Device] | None = None
) -> SliceDevice:
    """One device of a slice; ``alike`` interns equal devices, so that they are one object (compared by identity)."""
    basic = body.get("basic")
    shape = basic if basic is not None and _is_mapping(basic) else body  # v1beta1 nests the device under `basic`
    attributes = []
    for name, raw in mapping_at(shape, "attributes").items():
        value = _attribute(raw)
        if value is not None:
            attributes.append((str(name), value))
    capacity = []
    for name, raw in mapping_at(shape, "capacity").items():
        amount = raw.get("value") if _is_mapping(raw) else raw
        try:
            capacity.append((str(name), _amount(amount)))
        except InputError as error:
            raise error.located(field=f"{where}.capacity.{name}") from None
    device_name = body.get("name")
    if not isinstance(device_name, str) or not device_name:
        raise InputError("a device needs a name", field=f"{where}.name")
    device = Device(driver, tuple(attributes), tuple(capacity))
    if alike is not None:
        device = alike.setdefault(device, device)
    return SliceDevice(pool, device_name, device)


def _availability(shape: Mapping[str, Any], where: str) -> Availability | None:
    """Where the slice (or, with per-device selection, the device) is available; None when it says nothing."""
    node = shape.get("nodeName")
    if isinstance(node, str) and node:
        return Availability(node=node)
    selector = shape.get("nodeSelector")
    if selector is not None:
        return Availability(terms=node_selector_terms(selector, f"{where}.nodeSelector"))
    if shape.get("allNodes") is True:
        return Availability()
    return None


def _pools(slices: list[Mapping[str, Any]], notes: list[str]) -> dict[Availability, list[SliceDevice]]:
    """Availability -> devices of the complete, newest pools (node-local, selected nodes, all nodes)."""
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
    found: dict[Availability, list[SliceDevice]] = {}
    alike: dict[Device, Device] = {}
    for (driver, pool), (_, count, members) in sorted(newest.items()):
        if len(members) < count:
            notes.append(
                f"ResourceSlice pool {driver}/{pool}: {len(members)} of {count} slices given; the pool is "
                "incomplete (being updated) and its devices are left out"
            )
            continue
        for obj in members:
            spec = mapping_at(obj, "spec")
            label = f"ResourceSlice/{mapping_at(obj, 'metadata').get('name', '?')}"
            devices = spec.get("devices")
            devices = devices if isinstance(devices, list) else []
            per_device = spec.get("perDeviceNodeSelection") is True
            whole = None if per_device else _availability(spec, "spec")
            if whole is None and not per_device:
                if devices:
                    notes.append(f"{label}: names no node (nodeName, nodeSelector, allNodes); its devices are left out")
                continue
            for index, raw in enumerate(devices):
                if not isinstance(raw, Mapping):
                    continue
                where = f"spec.devices[{index}]"
                available = whole
                if available is None:  # perDeviceNodeSelection: v1 flat, v1beta1 under `basic`
                    basic = raw.get("basic")
                    available = _availability(basic if isinstance(basic, Mapping) else raw, where)
                    if available is None:
                        notes.append(f"{label}: device {raw.get('name')!r} names no node; it is left out")
                        continue
                found.setdefault(available, []).append(_device(raw, driver, pool, where, alike))
    return found


def _taken(claims: Iterable[Mapping[str, Any]]) -> set[tuple[str, str, str]]:
    taken = set()
    for claim in claims:
        devices = mapping_at(mapping_at(mapping_at(claim, "status"), "allocation"), "devices")
        results = devices.get("results")
        for result in results if isinstance(results, list) else []:
            if isinstance(result, Mapping) and result.get("adminAccess") is not True:
                taken.add((str(result.get("driver")), str(result.get("pool")), str(result.get("device"))))
    return taken


class _Counter:
    """Free devices per class of a set of devices, judged by the classes' selectors.

    Devices alike (most of a cluster's are) are one interned object, judged once: selectors see
    attributes and capacity only; sets with the same free devices share the answer.
    """

    def __init__(self, classes: Mapping[str, DeviceClassInfo], taken: set[tuple[str, str, str]]) -> None:
        self.classes = classes
        self.taken = taken
        self.unknown: dict[str, str] = {}
        self._judged: dict[frozenset[tuple[int, int]], dict[str, Fraction]] = {}

    def __call__(self, devices: list[SliceDevice]) -> dict[str, Fraction]:
        by_id = {id(device.device): device.device for device in devices}
        free_ids = Counter(id(device.device) for device in devices if device.key not in self.taken)
        signature = frozenset(free_ids.items())
        if signature not in self._judged:
            free = {by_id[key]: alike for key, alike in free_ids.items()}
            self._judged[signature] = {
                device_resource(device_class.name): Fraction(self._matching(device_class, free))
                for device_class in self.classes.values()
            }
        return dict(self._judged[signature])

    def _matching(self, device_class: DeviceClassInfo, free: Mapping[Device, int]) -> int:
        matching = 0
        for device, alike in free.items():
            verdicts = [evaluate(selector, device) for selector in device_class.selectors]
            if all(verdict.matches for verdict in verdicts):
                matching += alike
            elif any(verdict.matches is None for verdict in verdicts) and not any(
                verdict.matches is False for verdict in verdicts
            ):
                reason = next(verdict.reason for verdict in verdicts if verdict.matches is None)
                self.unknown.setdefault(device_class.name, reason)
        return matching


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
    pools = _pools(slices, notes)
    counted = _Counter(classes, _taken(claims))
    capacity: dict[str, dict[str, Fraction]] = {}
    shared: list[SharedDevices] = []
    for available, devices in pools.items():
        if available.node is not None:
            capacity[available.node] = counted(devices)
        else:
            pools_named = sorted({f"{device.device.driver}/{device.pool}" for device in devices})
            shared.append(SharedDevices(available, counted(devices), ", ".join(pools_named)))
    if shared:
        notes.append(
            f"{sum(len(pools[group.availability]) for group in shared)} network-attached device(s) "
            f"(pools {'; '.join(group.source for group in shared)}) count on every node they are available to: "
            "nodes that share them compete for them, so their capacity together is an upper bound"
        )
    for name, reason in counted.unknown.items():
        notes.append(f"DeviceClass/{name}: some devices were counted for no class: {reason}")
    return NodeDevices(capacity, tuple(classes), notes, tuple(shared))
