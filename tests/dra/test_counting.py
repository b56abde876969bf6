"""A claim's devices and a pod's, as the scheduler allocates them; expected values from KAI's and Kueue's tests."""

from __future__ import annotations

from fractions import Fraction

import pytest

from workloadmap.dra import DeviceCounter, count_claim, read_claim_spec
from workloadmap.interpreter import ObjectIndex

GPU = "nvidia.com/gpu"  # KAI's tests use constants.NvidiaGpuResource as the class name


def _claim(*requests):
    return count_claim(read_claim_spec({"devices": {"requests": list(requests)}}), "ResourceClaim/test")


def _exact(name, device_class, count=None, **more):
    body = {"deviceClassName": device_class, **more}
    if count is not None:
        body["count"] = count
    return {"name": name, "exactly": body}


# KAI pkg/common/resources/dra_gpu_test.go, Describe("countGPUDevicesFromClaim")
def test_kai_exact_count_with_explicit_count():
    assert _claim(_exact("r", GPU, 2)).devices == {GPU: 2}


def test_kai_exact_count_without_count_defaults_to_one():
    assert _claim(_exact("r", GPU, 0, allocationMode="ExactCount")).devices == {GPU: 1}


def test_kai_sums_multiple_gpu_requests():
    # "should sum multiple GPU device requests": 2 + 3 -> 5 (also TestExtractDRAGPUResourcesFromClaims
    # _saturatesOnOverflow's baseline)
    assert _claim(_exact("a", GPU, 2), _exact("b", GPU, 3)).devices == {GPU: 5}


def test_kai_empty_claim_is_nothing():
    # "should return 0 for empty claim"; the API: "If empty, nothing needs to be allocated"
    assert _claim().devices == {}


def test_all_mode_is_a_lower_bound_of_one():
    # KAI counts All as 1 ("should count devices with AllocationModeAll"); the API: "At least one
    # device must exist on the node"; the exact count needs the node's ResourceSlices.
    found = _claim({"name": "r", "exactly": {"deviceClassName": GPU, "allocationMode": "All"}})
    assert found.devices == {GPU: 1}
    assert found.lower_bound == {GPU}
    assert "lower bound" in found.warnings[0]


# Kueue pkg/dra/claims_test.go, Test_GetResourceRequests
def test_kueue_admin_access_is_skipped():
    # "AdminAccess request is skipped with zero quota"
    assert _claim(_exact("r", "test-deviceclass-1", 1, adminAccess=True)).devices == {}


def test_kueue_mixed_admin_access_counts_only_normal():
    # "Mixed AdminAccess and normal requests counts only normal": normal x2 + admin x1 -> 2
    found = _claim(_exact("n", "test-deviceclass-1", 2), _exact("a", "test-deviceclass-1", 1, adminAccess=True))
    assert found.devices == {"test-deviceclass-1": 2}


def test_kueue_constraints_do_not_change_the_count():
    # "Device constraints are pass-through and counted correctly": 2 requests x1 + matchAttribute -> 2
    spec = read_claim_spec(
        {
            "devices": {
                "requests": [_exact("a", "test-deviceclass-1", 1), _exact("b", "test-deviceclass-1", 1)],
                "constraints": [{"requests": [], "matchAttribute": "gpu.nvidia.com/parentUUID"}],
            }
        }
    )
    assert count_claim(spec, "x").devices == {"test-deviceclass-1": 2}


def test_first_available_counts_the_first_alternative_with_a_warning():
    # The allocator tries subrequests in order (allocator_stable.go); which one fits is the node's.
    found = _claim(
        {
            "name": "req-0",
            "firstAvailable": [
                {"name": "big", "deviceClassName": "gpu.nvidia.com", "count": 2},
                {"name": "small", "deviceClassName": "gpu.nvidia.com"},
            ],
        }
    )
    assert found.devices == {"gpu.nvidia.com": 2}
    assert "firstAvailable" in found.warnings[0]


def _objects():
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "claim-tmpl-1", "namespace": "ns"},
        "spec": {"spec": {"devices": {"requests": [_exact("r", "test-deviceclass-1", 2)]}}},
    }
    named = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "claim-2", "namespace": "ns"},
        "spec": {"devices": {"requests": [_exact("r", "gpu.nvidia.com", 1)]}},
    }
    other_namespace = dict(named, metadata={"name": "elsewhere", "namespace": "other"})
    return ObjectIndex([template, named, other_namespace])


def test_kueue_base_workload_template_per_pod_named_claim_shared():
    # Kueue's base workload: req-1 -> template claim-tmpl-1 (test-deviceclass-1 x2), req-2 -> named claim-2.
    counter = DeviceCounter(_objects(), "ns", (GPU,))
    pod = counter.pod({}, [{"name": "req-1", "template": "claim-tmpl-1"}, {"name": "req-2", "claim": "claim-2"}])
    assert pod.per_pod == {"test-deviceclass-1": 2}
    assert pod.gpus_per_pod == 0  # test-deviceclass-1 is no GPU class (KAI's rule: no "gpu" in its name)
    assert pod.shared[("ns", "claim-2")].devices == {"gpu.nvidia.com": 1}


def test_claims_resolve_in_the_pods_namespace_only():
    counter = DeviceCounter(_objects(), "ns", (GPU,))
    pod = counter.pod({}, [{"name": "x", "claim": "elsewhere"}])
    assert pod.unknown == ("ResourceClaim/elsewhere",)
    assert "not in the input" in pod.warnings[0]


def test_a_missing_template_is_unknown_not_zero():
    counter = DeviceCounter(ObjectIndex(), "ns", (GPU,))
    pod = counter.pod({}, [{"name": "gpu", "template": "single-gpu"}])
    assert pod.unknown == ("ResourceClaimTemplate/single-gpu",)
    assert pod.per_pod == {}


def test_implicit_class_resource_counts_devices_of_the_class_once():
    # KEP-5004 "Implicit Extended Resource Name": deviceclass.resource.kubernetes.io/<class>.
    counter = DeviceCounter(ObjectIndex(), None, (GPU,))
    pod = counter.pod({"deviceclass.resource.kubernetes.io/gpu.nvidia.com": Fraction(2)}, [])
    assert pod.per_pod == {"gpu.nvidia.com": 2}
    assert pod.gpus_per_pod == 2
    # named by --gpu-device-class, the name is a GPU resource already: counted there, not twice
    named = DeviceCounter(ObjectIndex(), None, (GPU, "deviceclass.resource.kubernetes.io/gpu.nvidia.com"))
    assert named.pod({"deviceclass.resource.kubernetes.io/gpu.nvidia.com": Fraction(2)}, []).gpus_per_pod == 0


def test_synthetic_extended_resource_claim_is_not_counted_again():
    # KAI dra.go ExtractDRAGPUResourcesFromClaims skips claims annotated
    # resource.kubernetes.io/extended-resource-claim: "true" ("their GPU count is already in pod.Spec").
    synthetic = {
        "kind": "ResourceClaim",
        "metadata": {
            "name": "gpu-full-pod-extended-resources-abc",
            "namespace": "ns",
            "annotations": {"resource.kubernetes.io/extended-resource-claim": "true"},
        },
        "spec": {"devices": {"requests": [_exact("container-0-request-0", "gpu.nvidia.com", 1)]}},
    }
    counter = DeviceCounter(ObjectIndex([synthetic]), "ns", (GPU,))
    pod = counter.pod({}, [{"name": "x", "claim": "gpu-full-pod-extended-resources-abc"}])
    assert pod.shared == {} and pod.unknown == ()


@pytest.mark.parametrize(
    ("device_class", "gpus"),
    [
        ("gpu.nvidia.com", 2),  # NVIDIA's chart class
        ("mig.nvidia.com", 0),  # MIG slices are never whole GPUs (KAI's dra_gpu_test: a mig claim counts 0 GPUs)
        ("other-device-class", 0),  # KAI "should ignore non-GPU device requests"
        (GPU, 2),  # KAI's rule: the class name contains "gpu"
    ],
)
def test_gpus_of_a_pods_claims_by_class(device_class, gpus):
    template = {
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "t", "namespace": "ns"},
        "spec": {"spec": {"devices": {"requests": [_exact("r", device_class, 2)]}}},
    }
    counter = DeviceCounter(ObjectIndex([template]), "ns", (GPU,))
    assert counter.pod({}, [{"name": "c", "template": "t"}]).gpus_per_pod == gpus
