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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any

from .. import labels
from ..errors import InputError, QuantityError
from ..quantities import parse_quantity

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


def _amount(pairs: Amounts, name: str) -> Fraction:
    for key, value in pairs:
        if key == name:
            return value
    return _ZERO


@dataclass(frozen=True)
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
        names = {name for name, _ in self.pod_requests} | {name for name, _ in self.pod_limits}
        return any(name in _POD_LEVEL_RESOURCES or name.startswith(labels.HUGEPAGES_PREFIX) for name in names)

    def guaranteed_cpus(self, container: ContainerDemand) -> int:
        """CPUs the static CPU manager pins for the container (0: it runs in the shared pool)."""
        if self.qos is not QosClass.GUARANTEED or self.pod_level_resources:
            return 0
        cpu = container.request("cpu")
        return int(cpu) if cpu.denominator == 1 else 0

    def exclusive_cpus(self) -> dict[str, bool]:
        """Container name to whether it gets exclusive CPUs, init containers first."""
        return {container.name: self.guaranteed_cpus(container) > 0 for container in self.containers}


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"expected a mapping, got {type(value).__name__}", field=where)
    return value


def _amounts(value: Any, where: str) -> dict[str, Fraction]:
    found: dict[str, Fraction] = {}
    for name, raw in _mapping(value, where).items():
        try:
            found[str(name)] = parse_quantity(raw)
        except QuantityError as error:
            raise error.located(field=f"{where}.{name}") from None
    return found


def _resources(block: Any, where: str) -> tuple[Amounts, Amounts]:
    block = _mapping(block, where)
    limits = _amounts(block.get("limits"), f"{where}.limits")
    requests = {**limits, **_amounts(block.get("requests"), f"{where}.requests")}
    return tuple(sorted(requests.items())), tuple(sorted(limits.items()))


def _containers(spec: Mapping[str, Any], where: str) -> tuple[ContainerDemand, ...]:
    found = []
    for key, default_kind in (("initContainers", ContainerKind.INIT), ("containers", ContainerKind.APP)):
        items = spec.get(key) or []
        if not isinstance(items, list):
            raise InputError(f"expected a list, got {type(items).__name__}", field=f"{where}.{key}")
        for index, item in enumerate(items):
            path = f"{where}.{key}[{index}]"
            item = _mapping(item, path)
            kind = default_kind
            if default_kind is ContainerKind.INIT and item.get("restartPolicy") == "Always":
                kind = ContainerKind.SIDECAR
            requests, limits = _resources(item.get("resources"), f"{path}.resources")
            found.append(ContainerDemand(str(item.get("name") or f"{key}[{index}]"), kind, requests, limits))
    return tuple(found)


def _positive(pairs: Amounts) -> dict[str, Fraction]:
    return {name: amount for name, amount in pairs if name in _QOS_RESOURCES and amount.numerator > 0}


def qos_class(
    containers: tuple[ContainerDemand, ...],
    pod_requests: Amounts = (),
    pod_limits: Amounts = (),
    pod_resources_set: bool = False,
) -> QosClass:
    """``ComputePodQOS``: the class from pod-level resources when set, else from every container."""
    blocks = [(pod_requests, pod_limits)] if pod_resources_set else [(c.requests, c.limits) for c in containers]
    requests: dict[str, Fraction] = {}
    limits: dict[str, Fraction] = {}
    guaranteed = True
    for block_requests, block_limits in blocks:
        for name, amount in _positive(block_requests).items():
            requests[name] = requests[name] + amount if name in requests else amount  # sums only compared
        found = _positive(block_limits)
        for name, amount in found.items():
            limits[name] = limits[name] + amount if name in limits else amount
        if not set(_QOS_RESOURCES) <= set(found):
            guaranteed = False
    if not requests and not limits:
        return QosClass.BEST_EFFORT
    if guaranteed and all(limits.get(name) == amount for name, amount in requests.items()):
        if len(requests) == len(limits):
            return QosClass.GUARANTEED
    return QosClass.BURSTABLE


def pod_numa(spec: Mapping[str, Any], where: str = "spec") -> PodNuma:
    """A pod spec's containers, pod-level resources and QoS class.

    Raises:
        InputError: a resources block of the wrong shape or an invalid quantity, naming the field.
    """
    spec = _mapping(spec, where)
    containers = _containers(spec, where)
    raw = spec.get("resources")
    pod_requests, pod_limits = _resources(raw, f"{where}.resources")
    pod_requests = tuple(
        item for item in pod_requests if item[0] in _POD_LEVEL_RESOURCES or item[0].startswith(labels.HUGEPAGES_PREFIX)
    )
    return PodNuma(
        containers=containers,
        pod_requests=pod_requests,
        pod_limits=pod_limits,
        pod_resources_set=raw is not None,
        qos=qos_class(containers, pod_requests, pod_limits, raw is not None),
    )
