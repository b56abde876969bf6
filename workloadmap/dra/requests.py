"""DRA objects as wmap reads them: device requests, claim specs and DeviceClasses, typed and defaulted.

The shapes are ``k8s.io/api/resource/v1/types.go`` (``DeviceRequest`` with ``exactly`` or
``firstAvailable``), the same in v1beta2, and v1beta1's flat request (``deviceClassName``,
``count``, ``allocationMode`` ... on the request itself). Objects read from a cluster carry the API
server's defaults; files do not, so the reader applies them as ``pkg/apis/resource/v1/defaults.go``
does (``SetDefaults_ExactDeviceRequest``: no mode is ``ExactCount``, ``ExactCount`` without a count
is 1; v1beta1's ``SetDefaults_DeviceRequest`` only when ``deviceClassName`` is set).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .. import labels
from ..errors import InputError
from ..values import list_field, mapping_field

__all__ = [
    "AllocationMode",
    "ExactRequest",
    "DeviceRequest",
    "ClaimSpec",
    "DeviceClassInfo",
    "read_claim_spec",
    "read_device_class",
]

MAX_REQUESTS = 32
"""``DeviceRequestsMaxSize``: requests in one claim (and devices allocated to it, ``AllocationResultsMaxSize``)."""
MAX_SUBREQUESTS = 8
"""``FirstAvailableDeviceRequestMaxSize``."""
MAX_SELECTORS = 32


class AllocationMode(str, Enum):
    """How a request asks for devices (``DeviceAllocationMode``)."""

    EXACT_COUNT = labels.DRA_EXACT_COUNT
    ALL = labels.DRA_ALL


@dataclass(frozen=True, slots=True)
class ExactRequest:
    """One way to satisfy a request: ``count`` devices of ``device_class`` (or all that match).

    Attributes:
        device_class: the DeviceClass name.
        mode: ``ExactCount`` or ``All``.
        count: devices asked for in ``ExactCount`` mode (1 by default); 0 in ``All`` mode.
        admin_access: the request reaches devices for monitoring; it allocates nothing to the workload.
        selectors: the request's CEL selectors, as written.
    """

    device_class: str
    mode: AllocationMode = AllocationMode.EXACT_COUNT
    count: int = 1
    admin_access: bool = False
    selectors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    """A request of a claim: ``exactly`` one way, or the ``first_available`` of several (KEP-4816)."""

    name: str
    exactly: ExactRequest | None = None
    first_available: tuple[ExactRequest, ...] = ()

    @property
    def chosen(self) -> ExactRequest:
        """The alternative counted offline: ``exactly``, else the first of ``first_available``."""
        return self.exactly if self.exactly is not None else self.first_available[0]


@dataclass(frozen=True, slots=True)
class ClaimSpec:
    """A ``ResourceClaimSpec``'s device requests (constraints and config do not change the count)."""

    requests: tuple[DeviceRequest, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceClassInfo:
    """A DeviceClass: its CEL selectors and KEP-5004 extended resource name."""

    name: str
    selectors: tuple[str, ...] = ()
    extended_resource_name: str | None = None
    created: str = ""


def _selectors(value: Any, where: str) -> tuple[str, ...]:
    found = []
    items = list_field(value, where)
    if len(items) > MAX_SELECTORS:
        raise InputError(f"at most {MAX_SELECTORS} selectors are allowed, got {len(items)}", field=where)
    for index, selector in enumerate(items):
        cel = mapping_field(mapping_field(selector, f"{where}[{index}]").get("cel"), f"{where}[{index}].cel")
        expression = cel.get("expression")
        if not isinstance(expression, str) or not expression:
            # the allocator's "CEL expression empty (unsupported selector type?)"
            raise InputError("only CEL selectors are supported (cel.expression)", field=f"{where}[{index}]")
        found.append(expression)
    return tuple(found)


def _exact(body: Mapping[str, Any], where: str, *, admin: bool = True) -> ExactRequest:
    device_class = body.get("deviceClassName")
    if not isinstance(device_class, str) or not device_class:
        raise InputError("deviceClassName is required", field=f"{where}.deviceClassName")
    mode_text = body.get("allocationMode") or labels.DRA_EXACT_COUNT
    try:
        mode = AllocationMode(mode_text)
    except ValueError:
        # "Clients must refuse to handle requests with unknown modes" (the API's comment)
        raise InputError(f"unknown allocationMode {mode_text!r}", field=f"{where}.allocationMode") from None
    count = body.get("count")
    if count is None or count == 0:
        count = 1 if mode is AllocationMode.EXACT_COUNT else 0
    elif count.__class__ is not int or count < 0:
        raise InputError(f"count must be a positive integer, got {count!r}", field=f"{where}.count")
    elif mode is AllocationMode.ALL:
        raise InputError("count must not be set with allocationMode All", field=f"{where}.count")
    admin_access = body.get("adminAccess") is True if admin else False
    selectors = _selectors(body.get("selectors"), f"{where}.selectors")
    return ExactRequest(device_class, mode, count, admin_access, selectors)


def _request(body: Any, where: str) -> DeviceRequest:
    body = mapping_field(body, where)
    name = str(body.get("name") or "")
    if "exactly" in body and body.get("exactly") is not None:  # v1, v1beta2
        exactly = mapping_field(body["exactly"], f"{where}.exactly")
        return DeviceRequest(name, exactly=_exact(exactly, f"{where}.exactly"))
    subrequests = list_field(body.get("firstAvailable"), f"{where}.firstAvailable")
    if subrequests:
        if len(subrequests) > MAX_SUBREQUESTS:
            raise InputError(f"at most {MAX_SUBREQUESTS} subrequests are allowed", field=f"{where}.firstAvailable")
        places = [f"{where}.firstAvailable[{index}]" for index in range(len(subrequests))]
        alternatives = tuple(
            _exact(mapping_field(sub, place), place, admin=False)
            for sub, place in zip(subrequests, places, strict=True)
        )
        return DeviceRequest(name, first_available=alternatives)
    if body.get("deviceClassName"):  # v1beta1: the request's fields on the request itself
        return DeviceRequest(name, exactly=_exact(body, where))
    raise InputError("one of exactly or firstAvailable must be set", field=where)


def read_claim_spec(spec: Any, where: str = "spec") -> ClaimSpec:
    """A ``ResourceClaimSpec`` (``{devices: {requests: [...]}}``), defaulted as the API server does.

    Raises:
        InputError: a request is malformed; the error names the field under ``where``.
    """
    devices = mapping_field(mapping_field(spec, where).get("devices"), f"{where}.devices")
    requests = list_field(devices.get("requests"), f"{where}.devices.requests")
    if len(requests) > MAX_REQUESTS:
        raise InputError(f"at most {MAX_REQUESTS} requests are allowed", field=f"{where}.devices.requests")
    return ClaimSpec(
        tuple(_request(request, f"{where}.devices.requests[{index}]") for index, request in enumerate(requests))
    )


def read_device_class(obj: Mapping[str, Any]) -> DeviceClassInfo:
    """A DeviceClass object.

    Raises:
        InputError: its selectors are malformed (the error names the field).
    """
    metadata = mapping_field(obj.get("metadata"), "metadata")
    spec = mapping_field(obj.get("spec"), "spec")
    extended = spec.get("extendedResourceName")
    return DeviceClassInfo(
        name=str(metadata.get("name") or ""),
        selectors=_selectors(spec.get("selectors"), "spec.selectors"),
        extended_resource_name=extended if isinstance(extended, str) and extended else None,
        created=str(metadata.get("creationTimestamp") or ""),
    )
