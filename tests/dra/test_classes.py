"""Which classes give GPUs: the flag, the DeviceClass's CEL selectors on NVIDIA's device shapes, names."""

from __future__ import annotations

import pytest

from workloadmap.dra import DeviceClassInfo, DeviceKind, classify, gpu_class_resource

# NVIDIA dra-driver-nvidia-gpu deployments/helm/dra-driver-nvidia-gpu/templates/deviceclass-*.yaml (verbatim)
CHART = {
    "gpu.nvidia.com": "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
    "mig.nvidia.com": "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'",
    "vfio.gpu.nvidia.com": "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'vfio'",
    "compute-domain-default-channel.nvidia.com": (
        "device.driver == 'compute-domain.nvidia.com' && device.attributes['compute-domain.nvidia.com'].type == "
        "'channel' && device.attributes['compute-domain.nvidia.com'].id == 0"
    ),
}


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("gpu.nvidia.com", DeviceKind.GPU),
        ("mig.nvidia.com", DeviceKind.MIG),
        ("vfio.gpu.nvidia.com", DeviceKind.VFIO),
        ("compute-domain-default-channel.nvidia.com", DeviceKind.CHANNEL),
    ],
)
def test_chart_classes_by_their_selectors(name, kind):
    classes = {name: DeviceClassInfo(name, (CHART[name],))}
    assert classify(name, classes, ()) is kind
    assert classify(name, {}, ()) is kind  # and by their names when the objects are not given


def test_a_renamed_class_is_classified_by_its_selector_not_its_name():
    # a class named without "gpu" that selects NVIDIA's full GPUs is a GPU class
    classes = {"accelerators": DeviceClassInfo("accelerators", (CHART["gpu.nvidia.com"],))}
    assert classify("accelerators", classes, ()) is DeviceKind.GPU
    assert classify("accelerators", {}, ()) is DeviceKind.OTHER


def test_mig_profile_class_is_mig_though_its_name_holds_gpu():
    # NVIDIA demo/specs/extended-resources/mig-1g-12gb.yaml: the class selects a profile too, which
    # the bare MIG shape lacks (unknown, so still a candidate); no other shape passes type == 'mig'.
    expression = (
        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig' && "
        "device.attributes['gpu.nvidia.com'].profile == '1g.12gb'"
    )
    classes = {"mig-1g-12gb.gpu.nvidia.com": DeviceClassInfo("mig-1g-12gb.gpu.nvidia.com", (expression,))}
    assert classify("mig-1g-12gb.gpu.nvidia.com", classes, ()) is DeviceKind.MIG
    assert classify("mig-1g-12gb.gpu.nvidia.com", {}, ()) is DeviceKind.MIG  # "mig" in the name


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        # KAI pkg/common/resources/dra.go IsGPUDeviceClass: strings.Contains(lower(name), "gpu")
        ("nvidia.com/gpu", DeviceKind.GPU),
        ("gpu.example.com", DeviceKind.GPU),
        ("GPU.Example.com", DeviceKind.GPU),
        ("other-device-class", DeviceKind.OTHER),
    ],
)
def test_kai_name_rule(name, kind):
    assert classify(name, {}, ()) is kind


def test_the_flag_makes_any_class_a_gpu_class():
    assert classify("accelerator.example.com", {}, (gpu_class_resource("accelerator.example.com"),)) is DeviceKind.GPU


def test_selectors_that_cannot_be_evaluated_fall_back_to_the_name():
    # Kueue claims_test "Invalid CEL selector returns error": never a silent match
    classes = {"x-gpu": DeviceClassInfo("x-gpu", ("this is not valid CEL!!!",))}
    assert classify("x-gpu", classes, ()) is DeviceKind.GPU  # several shapes undecided: the name decides
