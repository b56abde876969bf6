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
from .numa.pod import (
    ContainerKind,
    PodNuma,
    PodResources,
    ReadContainer,
    is_pod_level_resource,
    read_block,
    read_containers,
)
from .quantities import parse_quantity
from .values import list_field, mapping_field

__all__ = [
    "DEFAULT_GPU_RESOURCES",
    "PodDemand",
    "pod_demand",
    "add_resources",
    "scale_resources",
    "count_gpus",
    "is_extended_resource",
    "is_accelerator",
]

DEFAULT_GPU_RESOURCES: tuple[str, ...] = (labels.NVIDIA_GPU, labels.AMD_GPU)
"""Extended resources counted as GPUs unless the caller says otherwise (``--gpu-resource``)."""


def is_accelerator(name: str) -> bool:
    """Whether resource ``name`` is an accelerator (GPUs, TPUs, Neuron, Gaudi, MIG slices ...), a GPU or not."""
    return name in labels.ACCELERATORS or name.startswith(labels.NVIDIA_MIG_PREFIX)


_ZERO = Fraction(0)

# Pod-level resources may only set these (PodLevelResources feature).


@dataclass(frozen=True, slots=True)
class PodDemand:
    """What one pod asks of its node.

    Attributes:
        requests: the effective request per resource name, exact.
        resource_claims: the pod's DRA claims, as ``{"name", "source"}`` dicts; they are listed,
            never guessed into GPU counts.
        parsed: the pod spec's containers and pod-level resources as read, so that its NUMA view
            needs no second reading; None for a demand not read from a pod spec.
    """

    requests: dict[str, Fraction] = field(default_factory=dict)
    resource_claims: tuple[dict[str, str], ...] = ()
    parsed: PodResources | None = field(default=None, compare=False, repr=False)

    def gpus(self, gpu_resources: Sequence[str] = DEFAULT_GPU_RESOURCES) -> Fraction:
        """The number of GPUs the pod requests, summed over the GPU resource names given."""
        return count_gpus(self.requests, gpu_resources)

    def numa(self) -> PodNuma | None:
        """The pod as the kubelet's resource managers see it (what ``pod_numa`` of its spec gives).

        None for a demand not read from a pod spec.
        """
        return self.parsed.numa() if self.parsed is not None else None


def add_resources(total: dict[str, Fraction], more: Mapping[str, Fraction], times: int = 1) -> None:
    """Add ``times`` x ``more`` into ``total`` in place."""
    # Fraction arithmetic is slow (~1 us an operation): a first amount is taken as it is, nothing is
    # multiplied by one, and whole amounts (nearly all of them) are summed and scaled as ints.
    for name, amount in more.items():
        if times != 1:
            amount = (
                Fraction(amount.numerator * times)
                if amount.__class__ is Fraction and amount.denominator == 1
                else amount * times
            )
        held = total.get(name)
        if held is None:
            total[name] = amount if amount.__class__ is Fraction else _ZERO + amount
        elif held.__class__ is amount.__class__ is Fraction and held.denominator == amount.denominator == 1:
            total[name] = Fraction(held.numerator + amount.numerator)
        else:
            total[name] = held + amount


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


def _quantities(value: object, where: str) -> dict[str, Fraction]:
    parsed: dict[str, Fraction] = {}
    for name, raw in mapping_field(value, where).items():
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
    return not (is_extended_resource(name) or name.startswith(labels.HUGEPAGES_PREFIX))


def _problem(limits: Mapping[str, Fraction], requests: Mapping[str, Fraction]) -> tuple[str, str] | None:
    """The API server's rules for one resources block (``ValidateResourceRequirements``).

    Returns:
        None, or the offending field under the block (``requests.cpu``) and what is wrong.
    """
    for name, amount in limits.items():
        if amount.numerator < 0 or (amount.denominator != 1 and is_extended_resource(name)):
            return _refused("limits", name, amount)
    for name, request in requests.items():
        if request.numerator < 0 or (request.denominator != 1 and is_extended_resource(name)):
            return _refused("requests", name, request)
    for name, request in requests.items():
        limit = limits.get(name)
        if request is limit:  # one parsed amount shared by both (same text): equal
            continue
        if limit is None and (name in _OVERCOMMITTED or _overcommitable(name)):
            continue
        field = f"requests.{name}"
        if limit is not None and request > limit:
            return field, f"must be less than or equal to {name} limit"
        if not _overcommitable(name):
            if limit is None:
                return field, f"a limit must be set for {name}: it cannot be overcommitted"
            if request != limit:
                return field, f"must be equal to {name} limit: it cannot be overcommitted"
    return None


_OVERCOMMITTED = frozenset(("cpu", "memory", "ephemeral-storage"))
"""The usual requests without a limit, known overcommitable without looking at their names' parts."""


def _refused(kind: str, name: str, amount: Fraction) -> tuple[str, str]:
    if amount.numerator < 0:  # a Fraction's sign is its numerator's
        return f"{kind}.{name}", "must be greater than or equal to 0"
    return f"{kind}.{name}", "must be an integer (an extended resource is counted in whole units)"


def _effective(app: list[ReadContainer], init: list[ReadContainer]) -> dict[str, Fraction]:
    """The larger of the app containers' sum (sidecars included) and the init containers' peak."""
    if not init and len(app) == 1:  # the usual pod: one app container, its requests as they are
        return dict(app[0][3])
    app_sum: dict[str, Fraction] = {}
    for _, _, _, requests in app:
        add_resources(app_sum, requests)
    if not init:
        return app_sum
    sidecars: dict[str, Fraction] = {}
    init_peak: dict[str, Fraction] = {}
    for _, kind, _, requests in init:
        if kind is ContainerKind.SIDECAR:
            add_resources(app_sum, requests)
            add_resources(sidecars, requests)
            in_use = sidecars
        else:
            in_use = dict(sidecars)
            add_resources(in_use, requests)
        for name, amount in in_use.items():
            if amount > init_peak.get(name, _ZERO):
                init_peak[name] = amount
    for name, amount in init_peak.items():
        if amount > app_sum.get(name, _ZERO):
            app_sum[name] = amount
    return app_sum


def _claims(value: object, where: str) -> tuple[dict[str, str], ...]:
    claims = []
    for index, claim in enumerate(list_field(value, f"{where}.resourceClaims")):
        claim = mapping_field(claim, f"{where}.resourceClaims[{index}]")
        source = claim.get("resourceClaimTemplateName") or claim.get("resourceClaimName")
        kind = "template" if claim.get("resourceClaimTemplateName") else "claim"
        # Older API versions nest the reference under `source`.
        legacy = claim.get("source")
        if not source and isinstance(legacy, Mapping):
            source = legacy.get("resourceClaimTemplateName") or legacy.get("resourceClaimName")
            kind = "template" if legacy.get("resourceClaimTemplateName") else "claim"
        claims.append({"name": str(claim.get("name", "")), kind: str(source or "")})
    return tuple(claims)


def pod_demand(pod_spec: object, where: str = "spec") -> PodDemand:
    """Compute the effective request of a pod spec (see the module docstring for the rule).

    Args:
        pod_spec: a PodSpec mapping (``containers``, ``initContainers``, ...).
        where: the dotted path of ``pod_spec`` in its document, used in error messages.

    Raises:
        InputError: a field has the wrong type or a quantity is invalid; the error names the field.
    """
    spec = pod_spec if pod_spec.__class__ is dict else mapping_field(pod_spec, where)
    # Each container is read once (quantities parsed and checked); its NUMA view reuses the reading.
    app = read_containers(spec.get("containers"), where, "containers", _problem)
    init = read_containers(spec.get("initContainers"), where, "initContainers", _problem)
    effective = _effective(app, init)

    raw = spec.get("resources")
    pod_limits, pod_requests = read_block(raw, where, check=_problem)
    for name, amount in pod_requests.items():
        if is_pod_level_resource(name):
            effective[name] = amount

    overhead = spec.get("overhead")
    if overhead is not None:
        add_resources(effective, _quantities(overhead, f"{where}.overhead"))
    claims = spec.get("resourceClaims")
    return PodDemand(
        requests=effective,
        resource_claims=_claims(claims, where) if claims is not None else (),
        parsed=PodResources(init, app, pod_limits, pod_requests, raw is not None),
    )
