"""DRA's CEL environment: device attributes and capacity, unknown domains, quantities, bounds."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from fractions import Fraction

from workloadmap.dra.cel import STEP_BUDGET, Device, evaluate

GI = Fraction(2**30)
A100 = Device(
    "gpu.nvidia.com",
    (("type", "gpu"), ("productName", "NVIDIA A100-SXM4-40GB"), ("resource.kubernetes.io/pcieRoot", "pci0000:00")),
    (("memory", 40 * GI),),
)


def test_chart_selector_matches_a_full_gpu():
    expression = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"
    assert evaluate(expression, A100).matches is True
    mig = Device("gpu.nvidia.com", (("type", "mig"), ("profile", "1g.5gb")))
    assert evaluate(expression, mig).matches is False


def test_unknown_domain_is_an_empty_map_unknown_name_an_error():
    # k8s.io/api resource/v1 CELDeviceSelector: "If an unknown prefix is used as a lookup in either
    # device.attributes or device.capacity, an empty map will be returned. Any reference to an
    # unknown field will cause an evaluation error and allocation to abort"
    assert evaluate("device.attributes['dra.example.com'].size() == 0", A100).matches is True
    verdict = evaluate("device.attributes['gpu.nvidia.com'].profile == '1g.5gb'", A100)
    assert verdict.matches is None and "runtime error" in verdict.reason
    assert evaluate("has(device.attributes['gpu.nvidia.com'].profile)", A100).matches is False


def test_qualified_attribute_names_keep_their_domain():
    # resourceslice-attributes.md: PCI attributes are stored fully qualified
    expression = "device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0000:00'"
    assert evaluate(expression, A100).matches is True


def test_quantities():
    # structured allocator_testing.go "small-and-large": memory.compareTo(quantity("1Gi")) >= 0;
    # NVIDIA's docs: device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity("40Gi"))
    assert evaluate("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('1Gi')) >= 0", A100).matches
    assert evaluate("device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('40Gi'))", A100).matches is False
    assert evaluate("device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('80Gi'))", A100).matches is True


def test_what_cannot_be_evaluated_is_unknown():
    for expression in ("this is not valid CEL!!!", "semver('1.2.3').major() == 1", "1 + 1", "x" * (10 * 1024 + 1)):
        assert evaluate(expression, A100).matches is None, expression


def test_an_expensive_expression_stops_at_the_step_budget():
    ten = "[" + ",".join(str(i) for i in range(10)) + "]"
    expression = f"{ten}.all(a, {ten}.all(b, {ten}.all(c, {ten}.all(d, a + b + c + d >= 0))))"
    verdict = evaluate(expression, A100)
    assert verdict.matches is None and f"{STEP_BUDGET:,} steps" in verdict.reason


def test_cel_is_imported_only_when_a_selector_is_evaluated():
    code = "import sys, workloadmap.dra, workloadmap.interpreter;print('celpy' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tempfile.gettempdir()
    )
    assert result.stdout.strip() == "False"
