"""Devices a pod's DRA claims ask for, counted as the scheduler allocates them.

* A pod claim naming a ResourceClaimTemplate is one claim per pod; one naming a ResourceClaim is
  one allocation shared by every pod that references it (counted once; KAI's queues charge it per
  referencing pod: ``pkg/scheduler/api/resource_info/dra_resource_utils.go`` maps a named claim to
  every pod that lists it). A claim several containers of one pod use is one claim (the pod's
  ``resourceClaims`` are walked, not the containers; Kueue's ``pkg/dra/claims_test.go`` "Two
  containers sharing one claim template").
* A request's devices: ``ExactCount`` -> ``count`` (1 by default); the requests of a claim add
  up; ``All`` is every matching device of the node's pools, unknown offline: at least 1 is counted
  ("At least one device must exist on the node", the API's comment) as a lower bound;
  ``firstAvailable`` -> its first alternative, with a warning (the scheduler takes the first that
  fits on the node); ``adminAccess`` requests allocate nothing to the workload (Kueue's "AdminAccess
  request is skipped with zero quota").
* KEP-5004: a container request of ``deviceclass.resource.kubernetes.io/<class>`` is that many
  devices of the class (the pod's effective request, the KEP-753 rule the scheduler's
  ``createRequestsAndMappings`` follows); GPUs among them are counted unless that name is already
  one of the GPU resource names (never twice).
* KEP-5729: a pod claim naming a template that the pod's PodGroup declares too (the same name and
  template in ``PodGroup.spec.resourceClaims``) is one claim for the whole PodGroup, shared by its
  pods ("All pods in the group ... share the same generated ResourceClaim", the
  ``PodResourceClaim`` comment in ``k8s.io/api/core/v1/types.go``): counted once per PodGroup, in
  ``group_claims``, not per pod. A matched named claim is a named claim, counted once as any.
* A claim or template that cannot be found or read makes the pod's devices unknown (named in a
  warning and in ``unknown``), never 0.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

from .. import labels
from ..errors import InputError
from ..resources import asks_for_dra as has_dra
from ..values import mapping_at
from .classes import GPU_KINDS, DeviceKind, classify
from .requests import AllocationMode, ClaimSpec, DeviceClassInfo, read_claim_spec, read_device_class

__all__ = ["ClaimDevices", "PodDevices", "DeviceCounter", "count_claim", "ObjectSource", "has_dra"]


class ObjectSource(Protocol):
    """Where claims, templates and DeviceClasses are found (the interpreter's ``RelatedObjects``)."""

    def find(self, kind: str, name: str, namespace: str | None, namespaced: bool) -> Mapping[str, Any] | None:
        """The object of that kind and name, or None."""
        ...


@dataclass(frozen=True, slots=True)
class ClaimDevices:
    """The devices one claim allocates, per class; ``lower_bound`` names classes counted at least."""

    devices: dict[str, int] = field(default_factory=dict)
    lower_bound: frozenset[str] = frozenset()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PodDevices:
    """What one pod of a component asks through DRA.

    Attributes:
        per_pod: devices per class of the pod's own claims (templates, KEP-5004 requests).
        gpus_per_pod: GPUs among ``per_pod``.
        shared: the named ResourceClaims the pod references (namespace, name) -> their devices.
        group_claims: the pod's template claims its PodGroup declares (KEP-5729), (claim name,
            template) -> their devices: one claim per PodGroup.
        lower_bound: classes whose count is a minimum (``All`` requests).
        unknown: claims or templates that could not be resolved (``ResourceClaimTemplate/name``).
        warnings: what the counting could not know, in words.
    """

    per_pod: dict[str, int] = field(default_factory=dict)
    gpus_per_pod: int = 0
    shared: dict[tuple[str | None, str], ClaimDevices] = field(default_factory=dict)
    lower_bound: frozenset[str] = frozenset()
    unknown: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    group_claims: dict[tuple[str, str], ClaimDevices] = field(default_factory=dict)


_NOTHING = PodDevices()


def count_claim(spec: ClaimSpec, claim: str) -> ClaimDevices:
    """The devices a claim spec allocates (``claim`` names it in warnings)."""
    devices: dict[str, int] = {}
    lower: set[str] = set()
    warnings: list[str] = []
    for request in spec.requests:
        chosen = request.chosen
        if request.exactly is None:
            warnings.append(
                f"{claim}: request {request.name!r} lists {len(request.first_available)} alternatives "
                f"(firstAvailable); counted as the first ({chosen.device_class}), the scheduler takes the "
                "first that fits on the node"
            )
        if chosen.admin_access:
            continue  # admin access shares devices for monitoring: nothing is allocated to the workload
        if chosen.mode is AllocationMode.ALL:
            lower.add(chosen.device_class)
            devices[chosen.device_class] = devices.get(chosen.device_class, 0) + 1
            warnings.append(
                f"{claim}: request {request.name!r} asks for all matching {chosen.device_class} devices of the "
                "node (allocationMode All); counted as at least 1, a lower bound"
            )
            continue
        devices[chosen.device_class] = devices.get(chosen.device_class, 0) + chosen.count
    return ClaimDevices(devices, frozenset(lower), tuple(warnings))


class DeviceCounter:
    """Counts pods' DRA devices, resolving claims, templates and classes once each through ``source``.

    Claims resolve in the pod's namespace only, as the API server resolves them.
    """

    def __init__(self, source: ObjectSource, namespace: str | None, gpu_resources: tuple[str, ...]) -> None:
        self.source = source
        self.namespace = namespace
        self.gpu_resources = gpu_resources
        self._claims: dict[tuple[str, str], ClaimDevices | str | None] = {}
        self._classes: dict[str, DeviceKind] = {}
        self._class_infos: dict[str, DeviceClassInfo] = {}
        self.class_warnings: list[str] = []

    def kind(self, device_class: str) -> DeviceKind:
        """What the class's devices are (its DeviceClass object read once, when the source has it)."""
        kind = self._classes.get(device_class)
        if kind is None:
            found = self.source.find(labels.DRA_DEVICE_CLASS_KIND, device_class, None, False)
            if found is not None:
                try:
                    self._class_infos[device_class] = read_device_class(found)
                except InputError as error:
                    self.class_warnings.append(f"DeviceClass/{device_class}: {error}; classified by its name")
            kind = self._classes[device_class] = classify(device_class, self._class_infos, self.gpu_resources)
        return kind

    def gpus(self, devices: Mapping[str, int]) -> int:
        """GPUs among per-class device counts."""
        return sum(count for name, count in devices.items() if self.kind(name) in GPU_KINDS)

    def _claim(self, kind: str, name: str) -> ClaimDevices | str | None:
        """A claim's devices; a warning text when it cannot be read; None for a synthetic KEP-5004 claim."""
        key = (kind, name)
        if key in self._claims:
            return self._claims[key]
        found = self.source.find(kind, name, self.namespace, True)
        result: ClaimDevices | str | None
        if found is None:
            result = f"{kind}/{name} is not in the input; pass it with --related FILE|DIR (its devices are unknown)"
        else:
            metadata = mapping_at(found, "metadata")
            annotations = metadata.get("annotations")
            spec: Any = found.get("spec")
            where = "spec"
            if kind == labels.DRA_CLAIM_TEMPLATE_KIND:  # a template's claim spec is its spec.spec
                spec, where = (spec.get("spec") if isinstance(spec, Mapping) else None), "spec.spec"
            if isinstance(annotations, Mapping) and annotations.get(labels.DRA_EXTENDED_RESOURCE_CLAIM) == "true":
                result = None  # its devices are the pod's extended resources, counted from the pod spec
            else:
                try:
                    result = count_claim(read_claim_spec(spec, where), f"{kind}/{name}")
                except InputError as error:
                    result = f"{kind}/{name}: {error} (its devices are unknown)"
        self._claims[key] = result
        return result

    def pod(
        self,
        requests: Mapping[str, Fraction],
        claims: Sequence[Mapping[str, str]],
        group_templates: Collection[tuple[str, str]] = (),
    ) -> PodDevices:
        """The DRA devices of one pod, from its effective requests and its ``resourceClaims``.

        ``group_templates``: the (claim name, template) pairs the pod's PodGroup declares (KEP-5729).
        """
        if not has_dra(requests, claims):
            return _NOTHING
        per_pod: dict[str, int] = {}
        shared: dict[tuple[str | None, str], ClaimDevices] = {}
        group_claims: dict[tuple[str, str], ClaimDevices] = {}
        lower: set[str] = set()
        unknown: list[str] = []
        warnings: list[str] = []
        extra_gpus = 0
        for name, amount in requests.items():
            if name.startswith(labels.DRA_DEVICE_CLASS_RESOURCE_PREFIX) and amount > 0:
                device_class = name[len(labels.DRA_DEVICE_CLASS_RESOURCE_PREFIX) :]
                count = int(amount)  # extended resources are whole (checked when the pod was read)
                per_pod[device_class] = per_pod.get(device_class, 0) + count
                if name not in self.gpu_resources and self.kind(device_class) in GPU_KINDS:
                    extra_gpus += count
        for claim in claims:
            template, named = claim.get("template"), claim.get("claim")
            kind = labels.DRA_CLAIM_TEMPLATE_KIND if template else labels.DRA_CLAIM_KIND
            target = template or named
            if not target:
                continue
            result = self._claim(kind, target)
            if result is None:
                continue
            if isinstance(result, str):
                unknown.append(f"{kind}/{target}")
                warnings.append(result)
                continue
            warnings.extend(result.warnings)
            lower.update(result.lower_bound)
            if named:
                shared[(self.namespace, target)] = result
                continue
            if (claim.get("name", ""), target) in group_templates:
                group_claims[(claim.get("name", ""), target)] = result
                continue
            for device_class, count in result.devices.items():
                per_pod[device_class] = per_pod.get(device_class, 0) + count
                if self.kind(device_class) in GPU_KINDS:
                    extra_gpus += count
        warnings.extend(self.class_warnings)
        self.class_warnings.clear()
        return PodDevices(per_pod, extra_gpus, shared, frozenset(lower), tuple(unknown), tuple(warnings), group_claims)
