"""What a pod asks of the kubelet's resource managers: QoS class, containers, exclusive CPUs.

The QoS class is the API's own rule (``ComputePodQOS`` in ``pkg/apis/core/v1/helper/qos/qos.go``):

* with pod-level resources (``spec.resources``, the ``PodLevelResources`` feature, on by default
  since Kubernetes 1.34) the class comes from them alone;
* otherwise every init container (sidecars included) and app container counts: only cpu and
  memory amounts above zero are looked at, requests defaulted from limits as the API server does;
* BestEffort when no container requests or limits cpu or memory; Guaranteed when every container
  has cpu and memory limits and the summed requests equal the summed limits; else Burstable.

Exclusive CPUs are the CPU manager's static policy (``guaranteedCPUs`` in
``pkg/kubelet/cm/cpumanager/policy_static.go``): a container of a Guaranteed pod whose cpu request
is a whole number gets that many CPUs of its own. A pod with pod-level resources gets none while
the kubelet's ``PodLevelResourceManagers`` feature gate is off, its default: the CPU and memory
managers then give it no NUMA hints and leave it in the shared pool.

The containers are read here (:func:`read_containers`, :func:`read_block`) for both views of a pod
spec: :func:`~workloadmap.resources.pod_demand` reads them once, checking them as the API server
does, and its :class:`PodResources` gives this module's :class:`PodNuma` without a second reading.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any

from .. import labels
from ..errors import InputError, QuantityError
from ..quantities import parse_quantity
from ..values import list_field, mapping_field

__all__ = ["QosClass", "ContainerKind", "ContainerDemand", "PodNuma", "pod_numa", "qos_class"]

_ZERO = Fraction(0)
_QOS_RESOURCES = ("cpu", "memory")
_POD_LEVEL_RESOURCES = ("cpu", "memory")

Amounts = tuple[tuple[str, Fraction], ...]
"""Resource amounts as sorted (name, amount) pairs: hashable, so a pod's demand can key caches."""


class QosClass(str, Enum):
    """A pod's quality-of-service class."""

    GUARANTEED = labels.QOS_GUARANTEED
    BURSTABLE = labels.QOS_BURSTABLE
    BEST_EFFORT = labels.QOS_BEST_EFFORT


class ContainerKind(str, Enum):
    """Where a container runs in the pod's life: an init container, a sidecar, an app container."""

    INIT = "init"
    SIDECAR = "sidecar"  # a restartable init container (restartPolicy: Always)
    APP = "app"


# Members bound once for the per-container paths: reading one off its Enum class costs ~70 ns on Python 3.11.
_APP, _SIDECAR, _INIT = ContainerKind.APP, ContainerKind.SIDECAR, ContainerKind.INIT
_GUARANTEED, _BURSTABLE, _BEST_EFFORT = QosClass.GUARANTEED, QosClass.BURSTABLE, QosClass.BEST_EFFORT


def _amount(pairs: Amounts, name: str) -> Fraction:
    for key, value in pairs:
        if key == name:
            return value
    return _ZERO


@dataclass(frozen=True, slots=True)
class ContainerDemand:
    """One container's resources, requests defaulted from limits.

    Attributes:
        name: the container name.
        kind: init container, sidecar or app container.
        requests: effective requests per resource.
        limits: limits per resource.
    """

    name: str
    kind: ContainerKind
    requests: Amounts = ()
    limits: Amounts = ()

    def request(self, name: str) -> Fraction:
        """The request of one resource (zero when absent)."""
        return _amount(self.requests, name)

    def limit(self, name: str) -> Fraction:
        """The limit of one resource (zero when absent)."""
        return _amount(self.limits, name)


@dataclass(frozen=True)
class PodNuma:
    """A pod template as the kubelet's resource managers see it.

    Attributes:
        containers: init containers (sidecars among them) in order, then app containers.
        pod_requests: pod-level requests (``spec.resources``), defaulted from its limits.
        pod_limits: pod-level limits.
        pod_resources_set: whether ``spec.resources`` is present at all (the QoS rule uses it then).
        qos: the QoS class.
    """

    containers: tuple[ContainerDemand, ...] = ()
    pod_requests: Amounts = ()
    pod_limits: Amounts = ()
    pod_resources_set: bool = False
    qos: QosClass = QosClass.BEST_EFFORT

    def __hash__(self) -> int:
        # The demand keys node-filter caches: hash the nested amounts once.
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:
            cached = hash((self.containers, self.pod_requests, self.pod_limits, self.pod_resources_set, self.qos))
            object.__setattr__(self, "_hash", cached)
        return cached

    @property
    def pod_level_resources(self) -> bool:
        """``IsPodLevelResourcesSet``: pod-level cpu or memory is requested or limited."""
        return any(is_pod_level_resource(name) for name, _ in self.pod_requests) or any(
            is_pod_level_resource(name) for name, _ in self.pod_limits
        )

    def guaranteed_cpus(self, container: ContainerDemand) -> int:
        """CPUs the static CPU manager pins for the container (0: it runs in the shared pool)."""
        if self.qos is not _GUARANTEED or self.pod_level_resources:
            return 0
        return _whole_cpus(container)

    def exclusive_cpus(self) -> dict[str, bool]:
        """Container name to whether it gets exclusive CPUs, init containers first."""
        if self.qos is not _GUARANTEED or self.pod_level_resources:  # asked once, not per container
            return {container.name: False for container in self.containers}
        return {container.name: _whole_cpus(container) > 0 for container in self.containers}


def _whole_cpus(container: ContainerDemand) -> int:
    cpu = container.request("cpu")
    return int(cpu) if cpu.denominator == 1 else 0


def _at(where: str, key: str | None, index: int) -> str:
    """The path of a container (``key`` None: of the pod spec itself); built only for an error."""
    return where if key is None else f"{where}.{key}[{index}]"


def _amounts(value: Any, where: str, key: str | None, index: int, part: str) -> dict[str, Fraction]:
    if value.__class__ is not dict:  # the exact type first: an ABC check costs five times more
        if value is None:
            return {}
        value = mapping_field(value, f"{_at(where, key, index)}.resources.{part}")
    found: dict[str, Fraction] = {}
    name = None
    try:
        for name, raw in value.items():
            found[name if name.__class__ is str else str(name)] = parse_quantity(raw)
    except QuantityError as error:
        raise error.located(field=f"{_at(where, key, index)}.resources.{part}.{name}") from None
    return found


Check = Callable[[Mapping[str, Fraction], Mapping[str, Fraction]], tuple[str, str] | None]
"""A rule over one resources block's ``(limits, requests)``: None, or ``(field under resources, message)``."""


def read_block(
    block: Any, where: str, key: str | None = None, index: int = 0, check: Check | None = None
) -> tuple[dict[str, Fraction], dict[str, Fraction]]:
    """A resources block's ``(limits, effective requests)``, requests defaulted from limits.

    The block is the ``resources`` of container ``key[index]`` of the pod spec at ``where``, or
    with ``key`` None the pod-level ``spec.resources``. ``check`` runs on the parsed amounts; what
    it reports is raised at its field. The dicts returned may be shared: never change them.

    Raises:
        InputError: the block or a part of it is not a mapping, a quantity is invalid, or
            ``check`` found a problem; the error names the field.
    """
    if block.__class__ is not dict:
        if block is None:
            nothing: dict[str, Fraction] = {}
            return nothing, nothing
        block = mapping_field(block, f"{_at(where, key, index)}.resources")
    limits = _amounts(block.get("limits"), where, key, index, "limits")
    requests = _amounts(block.get("requests"), where, key, index, "requests")
    if check is not None:
        problem = check(limits, requests)
        if problem is not None:
            raise InputError(problem[1], field=f"{_at(where, key, index)}.resources.{problem[0]}")
    if not requests:
        return limits, limits
    return limits, {**limits, **requests} if limits else requests


ReadContainer = tuple[str, ContainerKind, dict[str, Fraction], dict[str, Fraction]]
"""A container as read: ``(name, kind, limits, effective requests)``."""


def read_containers(items: Any, where: str, key: str, check: Check | None = None) -> list[ReadContainer]:
    """The containers of list ``key`` (``containers`` or ``initContainers``) of the pod spec at ``where``.

    Raises:
        InputError: not a list (None is none), an item not a mapping, or a resources block
            :func:`read_block` refuses; the error names the field.
    """
    if items.__class__ is not list:
        if items is None:  # most pods have no initContainers: no call for them
            return []
        items = list_field(items, f"{where}.{key}")
    init = key == "initContainers"
    found = []
    for index, item in enumerate(items):
        if item.__class__ is not dict:
            item = mapping_field(item, _at(where, key, index))
        limits, requests = read_block(item.get("resources"), where, key, index, check)
        kind = _APP
        if init:
            kind = _SIDECAR if item.get("restartPolicy") == "Always" else _INIT
        name = item.get("name")
        if name.__class__ is not str or not name:
            name = str(name or f"{key}[{index}]")
        found.append((name, kind, limits, requests))
    return found


def _pairs(amounts: dict[str, Fraction]) -> Amounts:
    return tuple(sorted(amounts.items())) if len(amounts) > 1 else tuple(amounts.items())


def is_pod_level_resource(name: str) -> bool:
    """Whether pod-level ``spec.resources`` may set ``name`` (cpu, memory and hugepages, as the API allows)."""
    return name in _POD_LEVEL_RESOURCES or name.startswith(labels.HUGEPAGES_PREFIX)


@dataclass(slots=True)
class PodResources:
    """A pod spec's resources as read, once, for both its demand and its NUMA view.

    Attributes:
        init: init containers (sidecars among them) in order.
        app: app containers in order.
        pod_limits: pod-level limits (``spec.resources``).
        pod_requests: pod-level effective requests, defaulted from its limits.
        pod_resources_set: whether ``spec.resources`` is present at all.
    """

    init: list[ReadContainer]
    app: list[ReadContainer]
    pod_limits: dict[str, Fraction]
    pod_requests: dict[str, Fraction]
    pod_resources_set: bool

    def numa(self) -> PodNuma:
        """The pod as the kubelet's resource managers see it."""
        read = self.init + self.app if self.init else self.app
        containers = []
        for name, kind, limits, requests in read:
            limit_pairs = _pairs(limits)
            # requests defaulted from limits alone are the limits' own dict: one sorting for both
            containers.append(
                ContainerDemand(name, kind, limit_pairs if requests is limits else _pairs(requests), limit_pairs)
            )
        if self.pod_resources_set:
            qos = _qos([(self.pod_requests, self.pod_limits)])
        else:
            qos = _qos([(requests, limits) for _, _, limits, requests in read])
        # most pods set no pod-level resources: nothing to sort or filter
        pod_requests = (
            tuple(item for item in _pairs(self.pod_requests) if is_pod_level_resource(item[0]))
            if self.pod_requests
            else ()
        )
        return PodNuma(
            containers=tuple(containers),
            pod_requests=pod_requests,
            pod_limits=_pairs(self.pod_limits) if self.pod_limits else (),
            pod_resources_set=self.pod_resources_set,
            qos=qos,
        )


def _plus(held: Fraction, amount: Fraction) -> Fraction:
    if held.denominator == 1 and amount.denominator == 1:  # whole: int arithmetic (Fraction's costs ~1 us)
        return Fraction(held.numerator + amount.numerator)
    return held + amount


def _qos(blocks: Iterable[tuple[Mapping[str, Fraction], Mapping[str, Fraction]]]) -> QosClass:
    """``ComputePodQOS`` over resources blocks given as ``(requests, limits)`` mappings.

    Only cpu and memory amounts above zero count (``_QOS_RESOURCES``); their sums are compared.
    """
    cpu_requests = memory_requests = cpu_limits = memory_limits = None
    guaranteed = True  # every block limits both cpu and memory
    for block_requests, block_limits in blocks:
        amount = block_requests.get("cpu")
        if amount is not None and amount.numerator > 0:  # a Fraction's sign is its numerator's
            cpu_requests = amount if cpu_requests is None else _plus(cpu_requests, amount)
        amount = block_requests.get("memory")
        if amount is not None and amount.numerator > 0:
            memory_requests = amount if memory_requests is None else _plus(memory_requests, amount)
        amount = block_limits.get("cpu")
        if amount is not None and amount.numerator > 0:
            cpu_limits = amount if cpu_limits is None else _plus(cpu_limits, amount)
        else:
            guaranteed = False
        amount = block_limits.get("memory")
        if amount is not None and amount.numerator > 0:
            memory_limits = amount if memory_limits is None else _plus(memory_limits, amount)
        else:
            guaranteed = False
    if cpu_requests is None and memory_requests is None and cpu_limits is None and memory_limits is None:
        return _BEST_EFFORT
    # Guaranteed: both limits summed (every block has them), both requests too, and equal to them.
    if guaranteed and _same(cpu_requests, cpu_limits) and _same(memory_requests, memory_limits):
        return _GUARANTEED
    return _BURSTABLE


def _same(request: Fraction | None, limit: Fraction | None) -> bool:
    return request is not None and (request is limit or request == limit)  # mostly the very same parsed amount


def qos_class(
    containers: tuple[ContainerDemand, ...],
    pod_requests: Amounts = (),
    pod_limits: Amounts = (),
    pod_resources_set: bool = False,
) -> QosClass:
    """``ComputePodQOS``: the class from pod-level resources when set, else from every container."""
    blocks = [(pod_requests, pod_limits)] if pod_resources_set else [(c.requests, c.limits) for c in containers]
    return _qos([(_positive(block_requests), _positive(block_limits)) for block_requests, block_limits in blocks])


def _positive(pairs: Amounts) -> dict[str, Fraction]:
    return {name: amount for name, amount in pairs if name in _QOS_RESOURCES and amount.numerator > 0}


def pod_numa(spec: Mapping[str, Any], where: str = "spec") -> PodNuma:
    """A pod spec's containers, pod-level resources and QoS class.

    Raises:
        InputError: a resources block of the wrong shape or an invalid quantity, naming the field.
    """
    if spec.__class__ is not dict:
        spec = mapping_field(spec, where)
    init = read_containers(spec.get("initContainers") or None, where, "initContainers")
    app = read_containers(spec.get("containers") or None, where, "containers")
    raw = spec.get("resources")
    limits, requests = read_block(raw, where)
    return PodResources(init, app, limits, requests, raw is not None).numa()
