"""Tests for workloadmap.resources: the effective pod request (KEP-753, schedulers.md F)."""

from __future__ import annotations

from fractions import Fraction
from types import MappingProxyType

import pytest

from workloadmap.errors import InputError, QuantityError
from workloadmap.quantities import format_resources, is_binary_resource
from workloadmap.quantities import parse_quantity as q
from workloadmap.resources import add_resources, pod_demand, scale_resources

F = Fraction
GPU = "nvidia.com/gpu"


def container(name="c", requests=None, limits=None, **extra):
    resources = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    return {"name": name, "image": "busybox", "resources": resources, **extra}


def sidecar(name="side", requests=None, limits=None):
    return container(name, requests, limits, restartPolicy="Always")


def test_app_containers_are_summed():
    spec = {"containers": [container(requests={"cpu": "1", "memory": "1Gi"}), container(requests={"cpu": "500m"})]}
    # cpu 1 + 0.5 = 1.5; memory 1Gi + 0
    assert pod_demand(spec).requests == {"cpu": F(3, 2), "memory": q("1Gi")}


def test_sidecar_before_init_container_adds_to_it():
    # initContainers: sidecar (cpu 1) then init (cpu 2); app container cpu 1.
    # app sum  = app 1 + sidecar 1 = 2
    # init use = sidecar alone 1; init 2 + sidecar started before it 1 = 3 -> init peak 3
    # pod      = max(2, 3) = 3
    spec = {
        "initContainers": [sidecar(requests={"cpu": "1"}), container("init", requests={"cpu": "2"})],
        "containers": [container(requests={"cpu": "1"})],
    }
    assert pod_demand(spec).requests["cpu"] == 3


def test_sidecar_after_init_container_does_not_add_to_it():
    # init (cpu 2) runs before the sidecar starts: init peak = max(2, sidecar 1) = 2
    # app sum = app 1 + sidecar 1 = 2 -> pod = max(2, 2) = 2
    spec = {
        "initContainers": [container("init", requests={"cpu": "2"}), sidecar(requests={"cpu": "1"})],
        "containers": [container(requests={"cpu": "1"})],
    }
    assert pod_demand(spec).requests["cpu"] == 2


def test_two_sidecars_accumulate_for_later_init_containers():
    # sidecars 1 and 2 before init 4: init use = 4 + 1 + 2 = 7; app = 1 + 1 + 2 = 4 -> 7
    spec = {
        "initContainers": [
            sidecar("s1", requests={"cpu": "1"}),
            sidecar("s2", requests={"cpu": "2"}),
            container("init", requests={"cpu": "4"}),
        ],
        "containers": [container(requests={"cpu": "1"})],
    }
    assert pod_demand(spec).requests["cpu"] == 7


def test_init_peak_larger_than_app_sum_wins_per_resource():
    # init: cpu 4, memory 1Gi; apps: cpu 1 + 1 = 2, memory 2Gi + 2Gi = 4Gi
    # cpu = max(2, 4) = 4 (init); memory = max(4Gi, 1Gi) = 4Gi (apps): chosen per resource
    spec = {
        "initContainers": [container("init", requests={"cpu": "4", "memory": "1Gi"})],
        "containers": [
            container("a", requests={"cpu": "1", "memory": "2Gi"}),
            container("b", requests={"cpu": "1", "memory": "2Gi"}),
        ],
    }
    assert pod_demand(spec).requests == {"cpu": F(4), "memory": q("4Gi")}


def test_init_containers_take_the_max_not_the_sum():
    # two regular init containers of cpu 3 each run one after the other: peak 3, not 6
    spec = {
        "initContainers": [container("i1", requests={"cpu": "3"}), container("i2", requests={"cpu": "3"})],
        "containers": [container(requests={"cpu": "1"})],
    }
    assert pod_demand(spec).requests["cpu"] == 3


def test_pod_level_resources_override_cpu_and_memory_only():
    # containers: cpu 1 + 2 = 3, memory 2Gi, 1 GPU; pod-level requests cpu 8, memory 16Gi
    # -> cpu 8, memory 16Gi from the pod level; the GPU still comes from the containers
    spec = {
        "resources": {"requests": {"cpu": "8", "memory": "16Gi"}},
        "containers": [
            container("a", requests={"cpu": "1", "memory": "2Gi"}, limits={GPU: 1}),
            container("b", requests={"cpu": "2"}),
        ],
    }
    assert pod_demand(spec).requests == {"cpu": F(8), "memory": q("16Gi"), GPU: F(1)}


def test_pod_level_memory_only_leaves_cpu_to_containers():
    spec = {
        "resources": {"requests": {"memory": "8Gi"}},
        "containers": [container(requests={"cpu": "1", "memory": "1Gi"}), container(requests={"cpu": "1"})],
    }
    # cpu from containers: 1 + 1 = 2; memory from the pod level: 8Gi
    assert pod_demand(spec).requests == {"cpu": F(2), "memory": q("8Gi")}


def test_overhead_is_added_last():
    # app cpu 1 memory 1Gi; pod-level cpu 2; overhead cpu 250m memory 120Mi
    # cpu = pod-level 2 + 250m = 2.25; memory = 1Gi + 120Mi = 1144Mi
    spec = {
        "resources": {"requests": {"cpu": "2"}},
        "overhead": {"cpu": "250m", "memory": "120Mi"},
        "containers": [container(requests={"cpu": "1", "memory": "1Gi"})],
    }
    assert pod_demand(spec).requests == {"cpu": F(9, 4), "memory": q("1144Mi")}


def test_limits_only_become_requests():
    # the API server defaults a missing request to the limit, per resource
    spec = {"containers": [container(limits={GPU: 4, "cpu": "2", "memory": "8Gi"})]}
    assert pod_demand(spec).requests == {GPU: F(4), "cpu": F(2), "memory": q("8Gi")}


def test_request_below_limit_is_the_request():
    spec = {"containers": [container(requests={"cpu": "1"}, limits={"cpu": "4", "memory": "2Gi"})]}
    # cpu request 1 (not the limit 4); memory has only a limit -> 2Gi
    assert pod_demand(spec).requests == {"cpu": F(1), "memory": q("2Gi")}


def test_extended_resources_are_reported_by_name_not_counted_as_gpus():
    spec = {
        "containers": [
            container(
                limits={
                    "google.com/tpu": 4,
                    "nvidia.com/mig-1g.10gb": 2,
                    "rdma/hca_shared_devices_a": 1,
                }
            )
        ]
    }
    demand = pod_demand(spec)
    assert demand.requests == {
        "google.com/tpu": F(4),
        "nvidia.com/mig-1g.10gb": F(2),
        "rdma/hca_shared_devices_a": F(1),
    }
    assert demand.gpus() == 0


def test_amd_and_nvidia_gpus_are_counted():
    spec = {"containers": [container("a", limits={"amd.com/gpu": 2}), container("b", limits={GPU: 1})]}
    assert pod_demand(spec).gpus() == 3  # 2 AMD + 1 NVIDIA


def test_custom_gpu_resource_names():
    spec = {"containers": [container(limits={"nvidia.com/mig-1g.10gb": 2, GPU: 1})]}
    assert pod_demand(spec).gpus(("nvidia.com/mig-1g.10gb",)) == 2


def test_gpu_in_init_container_counts_at_peak():
    # init container uses 2 GPUs, app 1: the pod needs max(1, 2) = 2 at scheduling time
    spec = {
        "initContainers": [container("warmup", limits={GPU: 2})],
        "containers": [container(limits={GPU: 1})],
    }
    assert pod_demand(spec).gpus() == 2


def test_dra_claims_are_listed_not_counted():
    spec = {
        "resourceClaims": [
            {"name": "gpu", "resourceClaimTemplateName": "single-gpu"},
            {"name": "shared", "resourceClaimName": "shared-gpus"},
        ],
        "containers": [
            {"name": "c", "image": "x", "resources": {"claims": [{"name": "gpu"}, {"name": "shared"}]}},
        ],
    }
    demand = pod_demand(spec)
    assert demand.gpus() == 0
    assert demand.requests == {}
    assert list(demand.resource_claims) == [
        {"name": "gpu", "template": "single-gpu"},
        {"name": "shared", "claim": "shared-gpus"},
    ]


def test_legacy_dra_claim_source():
    # resource.k8s.io v1alpha2-era pods nest the reference under `source`
    spec = {"resourceClaims": [{"name": "gpu", "source": {"resourceClaimTemplateName": "tmpl"}}], "containers": []}
    assert list(pod_demand(spec).resource_claims) == [{"name": "gpu", "template": "tmpl"}]


def test_empty_spec_requests_nothing():
    assert pod_demand({"containers": [{"name": "c", "image": "x"}]}).requests == {}


def test_zero_requests_are_dropped_when_formatted():
    assert format_resources({"cpu": F(0), GPU: F(2)}) == {GPU: "2"}


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"containers": "main"}, "spec.containers"),
        ({"containers": {"name": "main"}}, "spec.containers"),
        ({"containers": ["main"]}, "spec.containers[0]"),
        ({"containers": [{"name": "c", "resources": []}]}, "spec.containers[0].resources"),
        ({"containers": [{"name": "c", "resources": {"requests": ["cpu"]}}]}, "spec.containers[0].resources.requests"),
        ({"containers": [], "initContainers": {"a": 1}}, "spec.initContainers"),
        ({"containers": [], "initContainers": [5]}, "spec.initContainers[0]"),
        ({"containers": [], "overhead": "lots"}, "spec.overhead"),
        ({"containers": [], "resourceClaims": "gpu"}, "spec.resourceClaims"),
    ],
)
def test_wrong_types_name_the_field(spec, field):
    with pytest.raises(InputError) as caught:
        pod_demand(spec)
    assert caught.value.field == field
    assert field in str(caught.value)
    assert "\n" not in str(caught.value)


def test_invalid_quantity_names_the_field_path():
    spec = {"containers": [{"name": "a"}, {"name": "b", "resources": {"limits": {"cpu": "2x"}}}]}
    with pytest.raises(QuantityError) as caught:
        pod_demand(spec, "spec.template.spec")
    assert caught.value.field == "spec.template.spec.containers[1].resources.limits.cpu"
    assert "'2x'" in str(caught.value)


def test_pod_spec_not_a_mapping():
    with pytest.raises(InputError) as caught:
        pod_demand(["containers"], "spec")
    assert caught.value.field == "spec"


def test_is_binary_resource():
    assert is_binary_resource("memory")
    assert is_binary_resource("ephemeral-storage")
    assert is_binary_resource("hugepages-2Mi")
    assert not is_binary_resource("cpu")
    assert not is_binary_resource(GPU)


def test_format_resources_sorted_and_suffixed():
    # memory uses binary suffixes, cpu decimal/milli
    formatted = format_resources({"memory": q("16Gi"), "cpu": F(5, 2), GPU: F(8)})
    assert list(formatted) == ["cpu", "memory", GPU]
    assert formatted == {"cpu": "2500m", "memory": "16Gi", GPU: "8"}


def test_add_and_scale():
    total = {"cpu": F(1)}
    add_resources(total, {"cpu": F(1, 2), GPU: F(1)}, times=4)
    # 1 + 4 x 0.5 = 3 cpu; 4 GPUs
    assert total == {"cpu": F(3), GPU: F(4)}
    assert scale_resources({"cpu": F(1, 10)}, 3) == {"cpu": F(3, 10)}


def test_whole_and_fractional_amounts_stay_exact_fractions():
    total = {"cpu": F(2), "memory": q("1Gi")}
    add_resources(total, {"cpu": F(3), "memory": q("512Mi"), GPU: F(8)}, times=3)
    add_resources(total, {"cpu": F(1, 3)})
    assert total == {"cpu": F(34, 3), "memory": q("2560Mi"), GPU: F(24)}
    assert all(type(amount) is Fraction for amount in total.values())


def test_a_mapping_that_is_not_a_dict_reads_alike():
    # Objects from other loaders are Mappings without being dicts: read like the same dicts.
    spec = {
        "initContainers": [sidecar(requests={"cpu": "1"})],
        "containers": [container(requests={"cpu": "2"}, limits={GPU: 1}), container()],
        "overhead": {"cpu": "250m"},
    }

    def frozen(value):
        if isinstance(value, dict):
            return MappingProxyType({key: frozen(item) for key, item in value.items()})
        return [frozen(item) for item in value] if isinstance(value, list) else value

    demand = pod_demand(frozen(spec))
    assert demand.requests == pod_demand(spec).requests == {"cpu": F(13, 4), GPU: F(1)}
    assert demand.numa() == pod_demand(spec).numa()


# The API server's ValidateResourceRequirements (pkg/apis/core/validation/validation.go) names the
# offending amount under the container's (or the pod's) resources, wherever the block sits.
@pytest.mark.parametrize(
    ("spec", "field", "message"),
    [
        ({"containers": [container(), container(requests={GPU: 1})]},
         "spec.containers[1].resources.requests.nvidia.com/gpu", "a limit must be set"),
        ({"initContainers": [container(limits={"cpu": "-1"})], "containers": []},
         "spec.initContainers[0].resources.limits.cpu", "greater than or equal to 0"),
        ({"initContainers": [container(), sidecar(requests={"cpu": "2"}, limits={"cpu": "1"})], "containers": []},
         "spec.initContainers[1].resources.requests.cpu", "less than or equal to cpu limit"),
        ({"containers": [container(limits={GPU: "500m"})]},
         "spec.containers[0].resources.limits.nvidia.com/gpu", "must be an integer"),
        ({"containers": [], "resources": {"requests": {"memory": "2Gi"}, "limits": {"memory": "1Gi"}}},
         "spec.resources.requests.memory", "less than or equal to memory limit"),
    ],
)  # fmt: skip
def test_amounts_the_api_server_refuses_name_their_field(spec, field, message):
    with pytest.raises(InputError) as caught:
        pod_demand(spec)
    assert caught.value.field == field
    assert message in str(caught.value)
