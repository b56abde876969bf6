"""Reading claims as the API server holds them: both request shapes, defaults, refusals."""

from __future__ import annotations

import pytest

from workloadmap.dra import AllocationMode, read_claim_spec, read_device_class
from workloadmap.errors import InputError


def _spec(*requests):
    return {"devices": {"requests": list(requests)}}


def test_v1_request_without_mode_or_count_is_exact_count_one():
    # kubernetes pkg/apis/resource/v1/defaults.go SetDefaults_ExactDeviceRequest: no mode is
    # ExactCount; ExactCount without a count is 1 (NVIDIA demo/specs/quickstart/v1/gpu-test1.yaml).
    spec = read_claim_spec(_spec({"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}))
    (request,) = spec.requests
    assert request.chosen.device_class == "gpu.nvidia.com"
    assert request.chosen.mode is AllocationMode.EXACT_COUNT
    assert request.chosen.count == 1


def test_v1beta1_flat_request_with_count():
    # NVIDIA demo/specs/quickstart/gpu-test8.yaml (resource.k8s.io/v1beta1): deviceClassName and
    # count on the request itself.
    spec = read_claim_spec(_spec({"name": "gpu", "deviceClassName": "gpu.nvidia.com", "count": 2}))
    assert spec.requests[0].chosen.count == 2


def test_first_available_keeps_every_alternative_in_order():
    # k8s.io/api resource/v1 DeviceRequest.firstAvailable (KEP-4816); the allocator's
    # "prioritized-list-first-unavailable" case lists subReq-0 (class-b) before subReq-1 (class-a).
    spec = read_claim_spec(
        _spec(
            {
                "name": "req-0",
                "firstAvailable": [
                    {"name": "subReq-0", "deviceClassName": "class-b"},
                    {"name": "subReq-1", "deviceClassName": "class-a", "count": 2},
                ],
            }
        )
    )
    request = spec.requests[0]
    assert request.exactly is None
    assert [alt.device_class for alt in request.first_available] == ["class-b", "class-a"]
    assert request.chosen.device_class == "class-b"


def test_all_mode_has_no_count():
    spec = read_claim_spec(_spec({"name": "r", "exactly": {"deviceClassName": "c", "allocationMode": "All"}}))
    assert spec.requests[0].chosen.mode is AllocationMode.ALL
    assert spec.requests[0].chosen.count == 0


@pytest.mark.parametrize(
    ("request_body", "field"),
    [
        # Kueue pkg/dra/claims_test.go "Exactly and FirstAvailable are nil returns error"
        ({"name": "req"}, "spec.devices.requests[0]"),
        # "Clients must refuse to handle requests with unknown modes" (the API's comment); KAI's
        # dra_gpu_test.go "should skip unknown allocation modes" uses mode UnknownMode
        ({"name": "r", "exactly": {"deviceClassName": "c", "allocationMode": "UnknownMode", "count": 5}},
         "spec.devices.requests[0].exactly.allocationMode"),
        ({"name": "r", "exactly": {"deviceClassName": "c", "count": -1}}, "spec.devices.requests[0].exactly.count"),
        ({"name": "r", "exactly": {"deviceClassName": ""}}, "spec.devices.requests[0].exactly.deviceClassName"),
        # the allocator's "CEL expression empty (unsupported selector type?)"
        ({"name": "r", "exactly": {"deviceClassName": "c", "selectors": [{}]}},
         "spec.devices.requests[0].exactly.selectors[0]"),
    ],
)  # fmt: skip
def test_malformed_requests_are_refused_naming_the_field(request_body, field):
    with pytest.raises(InputError) as caught:
        read_claim_spec(_spec(request_body))
    assert caught.value.field == field


def test_device_class_reads_selectors_and_extended_resource_name():
    # NVIDIA demo/specs/extended-resources/mig-1g-12gb.yaml (the DeviceClass, verbatim)
    expression = (
        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig' && "
        "device.attributes['gpu.nvidia.com'].profile == '1g.12gb'"
    )
    found = read_device_class(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "mig-1g-12gb.gpu.nvidia.com"},
            "spec": {
                "selectors": [{"cel": {"expression": expression}}],
                "extendedResourceName": "nvidia.com/mig-1g.12gb",
            },
        }
    )
    assert found.selectors == (expression,)
    assert found.extended_resource_name == "nvidia.com/mig-1g.12gb"
