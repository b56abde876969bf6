"""Per-pod resource demand, following Kubernetes' own effective-request rule.

The rule is the one ``k8s.io/component-helpers/resource.PodRequests`` implements (KEP-753):

* app containers are summed;
* init containers run one at a time; a restartable init container (``restartPolicy: Always``,
  a *sidecar*) keeps running, so it adds to the app sum *and* to every init container that
  starts after it;
* the pod needs the larger of the app sum and the init peak, per resource;
* pod-level ``spec.resources`` (cpu, memory, hugepages-*) replaces the container sum for those;
* ``spec.overhead`` is added last.

A container whose ``requests`` omit a resource listed in its ``limits`` requests the limit, as
the API server defaults it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from . import labels
from .errors import InputError
from .quantities import parse_quantity

__all__ = [
    "DEFAULT_GPU_RESOURCES",
    "PodDemand",
    "pod_demand",
    "add_resources",
    "scale_resources",
    "count_gpus",
    "is_extended_resource",
]

DEFAULT_GPU_RESOURCES: tuple[str, ...] = (labels.NVIDIA_GPU, labels.AMD_GPU)
"""Extended resources counted as GPUs unless the caller says otherwise (``--gpu-resource``)."""

_ZERO = Fraction(0)

# Pod-level resources may only set these (PodLevelResources feature).
_POD_LEVEL_RESOURCES = ("cpu", "memory")


@dataclass(frozen=True)
class PodDemand:
    """What one pod asks of its node.

    Attributes:
        requests: the effective request per resource name, exact.
        resource_claims: the pod's DRA claims, as ``{"name", "source"}`` dicts; they are listed,
            never guessed into GPU counts.
    """

    requests: dict[str, Fraction] = field(default_factory=dict)
    resource_claims: tuple[dict[str, str], ...] = ()

    def gpus(self, gpu_resources: Sequence[str] = DEFAULT_GPU_RESOURCES) -> Fraction:
        """The number of GPUs the pod requests, summed over the GPU resource names given."""
        return count_gpus(self.requests, gpu_resources)


def add_resources(total: dict[str, Fraction], more: Mapping[str, Fraction], times: int = 1) -> None:
    """Add ``times`` x ``more`` into ``total`` in place."""
    # Fraction arithmetic is slow: a first amount is taken as it is, and nothing is multiplied by one.
    for name, amount in more.items():
        if times != 1:
            amount = amount * times
        held = total.get(name)
        if held is not None:
            total[name] = held + amount
        else:
            total[name] = amount if amount.__class__ is Fraction else _ZERO + amount


def scale_resources(resources: Mapping[str, Fraction], times: int) -> dict[str, Fraction]:
    """Return ``resources`` multiplied by ``times``."""
    return {name: amount * times for name, amount in resources.items()}


def count_gpus(
    resources: Mapping[str, Fraction | int], gpu_resources: Sequence[str] = DEFAULT_GPU_RESOURCES
) -> Fraction:
    """The GPUs in a resource map: the sum over the resource names counted as GPUs."""
    total = _ZERO
    for name in gpu_resources:
        amount = resources.get(name)
        if amount:  # most pods ask for one GPU resource or none: no sum to make
            total = amount if total is _ZERO and isinstance(amount, Fraction) else total + amount
    return total


def _mapping(value: object, where: str) -> Mapping:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"expected a mapping, got {type(value).__name__}", field=where)
    return value


def _list(value: object, where: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"expected a list, got {type(value).__name__}", field=where)
    return value


def _quantities(value: object, where: str) -> dict[str, Fraction]:
    parsed: dict[str, Fraction] = {}
    for name, raw in _mapping(value, where).items():
        try:
            parsed[str(name)] = parse_quantity(raw)
        except InputError as error:
            raise error.located(field=f"{where}.{name}") from None
    return parsed


def is_extended_resource(name: str) -> bool:
    """Whether the API server treats ``name`` as an extended resource (``nvidia.com/gpu``).

    Native resources have no domain or the ``kubernetes.io`` domain (``cpu``, ``memory``,
    ``hugepages-2Mi``, ``kubernetes.io/...``); every other ``domain/name`` is extended.
    """
    if "/" not in name:
        return False
    domain = name.split("/", 1)[0]
    return not (domain == "kubernetes.io" or domain.endswith(".kubernetes.io"))


def _overcommitable(name: str) -> bool:
    return not (is_extended_resource(name) or name.startswith("hugepages-"))


def _check_amounts(limits: Mapping[str, Fraction], requests: Mapping[str, Fraction], where: str) -> None:
    """The API server's rules for one resources block (``ValidateResourceRequirements``)."""
    for kind, amounts in (("limits", limits), ("requests", requests)):
        for name, amount in amounts.items():
            if amount.numerator < 0:  # a Fraction's sign is its numerator's
                raise InputError("must be greater than or equal to 0", field=f"{where}.{kind}.{name}")
            if amount.denominator != 1 and is_extended_resource(name):
                raise InputError(
                    "must be an integer (an extended resource is counted in whole units)",
                    field=f"{where}.{kind}.{name}",
                )
    for name, request in requests.items():
        limit = limits.get(name)
        if limit is None and _overcommitable(name):
            continue
        field = f"{where}.requests.{name}"
        if request is limit:  # one parsed amount shared by both (same text): equal
            continue
        if limit is not None and request > limit:
            raise InputError(f"must be less than or equal to {name} limit", field=field)
        if not _overcommitable(name):
            if limit is None:
                raise InputError(f"a limit must be set for {name}: it cannot be overcommitted", field=field)
            if request != limit:
                raise InputError(f"must be equal to {name} limit: it cannot be overcommitted", field=field)


def _requests_of(resources: object, where: str) -> dict[str, Fraction]:
    """A resources block's effective requests: requests, defaulted from limits per resource.

    Raises:
        InputError: the block breaks a rule the API server enforces (negative amounts, fractional
            extended resources, requests above limits, extended requests that differ from limits).
    """
    resources = _mapping(resources, where)
    limits = _quantities(resources.get("limits"), f"{where}.limits")
    requests = _quantities(resources.get("requests"), f"{where}.requests")
    _check_amounts(limits, requests, where)
    return {**limits, **requests}


def _container_requests(container: object, where: str) -> dict[str, Fraction]:
    container = _mapping(container, where)
    return _requests_of(container.get("resources"), f"{where}.resources")


def pod_demand(pod_spec: object, where: str = "spec") -> PodDemand:
    """Compute the effective request of a pod spec (see the module docstring for the rule).

    Args:
        pod_spec: a PodSpec mapping (``containers``, ``initContainers``, ...).
        where: the dotted path of ``pod_spec`` in its document, used in error messages.

    Raises:
        InputError: a field has the wrong type or a quantity is invalid; the error names the field.
    """
    spec = _mapping(pod_spec, where)
    app_sum: dict[str, Fraction] = {}
    for index, container in enumerate(_list(spec.get("containers"), f"{where}.containers")):
        add_resources(app_sum, _container_requests(container, f"{where}.containers[{index}]"))

    sidecars: dict[str, Fraction] = {}
    init_peak: dict[str, Fraction] = {}
    init_path = f"{where}.initContainers"
    for index, container in enumerate(_list(spec.get("initContainers"), init_path)):
        path = f"{init_path}[{index}]"
        requests = _container_requests(container, path)
        if _mapping(container, path).get("restartPolicy") == "Always":
            add_resources(app_sum, requests)
            add_resources(sidecars, requests)
            in_use = dict(sidecars)
        else:
            in_use = dict(sidecars)
            add_resources(in_use, requests)
        for name, amount in in_use.items():
            if amount > init_peak.get(name, _ZERO):
                init_peak[name] = amount

    effective = dict(app_sum)
    for name, amount in init_peak.items():
        if amount > effective.get(name, _ZERO):
            effective[name] = amount

    pod_level = _requests_of(spec.get("resources"), f"{where}.resources")
    for name, amount in pod_level.items():
        if name in _POD_LEVEL_RESOURCES or name.startswith("hugepages-"):
            effective[name] = amount

    add_resources(effective, _quantities(spec.get("overhead"), f"{where}.overhead"))

    claims = []
    for index, claim in enumerate(_list(spec.get("resourceClaims"), f"{where}.resourceClaims")):
        claim = _mapping(claim, f"{where}.resourceClaims[{index}]")
        source = claim.get("resourceClaimTemplateName") or claim.get("resourceClaimName")
        kind = "template" if claim.get("resourceClaimTemplateName") else "claim"
        # Older API versions nest the reference under `source`.
        legacy = claim.get("source")
        if not source and isinstance(legacy, Mapping):
            source = legacy.get("resourceClaimTemplateName") or legacy.get("resourceClaimName")
            kind = "template" if legacy.get("resourceClaimTemplateName") else "claim"
        claims.append({"name": str(claim.get("name", "")), kind: str(source or "")})
    return PodDemand(requests=effective, resource_claims=tuple(claims))
