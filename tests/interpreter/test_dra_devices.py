"""DRA devices through the interpreter: NVIDIA's quickstart specs (fixtures/dra, written after them)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile

from helpers import FIXTURES_DIR
from workloadmap import inspect_file
from workloadmap.interpreter import ObjectIndex

DRA = FIXTURES_DIR / "dra"


def _trees(name, **options):
    return [result.tree for result in inspect_file(str(DRA / name), **options) if result.tree is not None]


def test_gpu_test1_one_gpu_per_pod_from_a_template():
    # demo/specs/quickstart/v1/gpu-test1.yaml: "Each container asking for 1 distinct GPU"
    trees = _trees("gpu-test1.yaml")
    assert [tree.totals.gpus for tree in trees] == [1, 1]
    assert [tree.totals.devices for tree in trees] == [{"gpu.nvidia.com": 1}] * 2
    assert trees[0].components[0].devices_per_pod == {"gpu.nvidia.com": 1}
    assert trees[0].components[0].gpus_per_pod == 1


def test_gpu_test3_a_named_claim_is_one_gpu_for_every_pod():
    # demo/specs/quickstart/v1/gpu-test3.yaml: "One shared, global claim providing access to a GPU";
    # KAI charges its queue once per referencing pod (dra_resource_utils.go CalcClaimsToPodsBaseMap).
    (tree,) = _trees("gpu-test3.yaml")
    assert tree.totals.pods == 2
    assert tree.totals.gpus == 1
    assert tree.totals.devices == {"gpu.nvidia.com": 1}
    (claim,) = tree.shared_claims
    assert (claim.name, claim.namespace, claim.pods, claim.gpus, claim.kai_queue_gpus) == (
        "single-gpu", "gpu-test3", 2, 1, 2,
    )  # fmt: skip
    assert tree.components[0].devices_per_pod == {}  # a shared claim is not the pod's own
    assert any("shared by 2 pods" in warning for warning in tree.warnings)
    data = tree.to_dict()
    assert data["sharedClaims"][0]["kaiQueueGpus"] == 2
    assert data["totals"]["devices"] == {"gpu.nvidia.com": 1}


def test_gpu_test4_mig_devices_are_not_gpus():
    # demo/specs/quickstart/v1/gpu-test4.yaml: 4 mig.nvidia.com requests per pod; KAI: 0 GPUs
    # (IsGPUDeviceClass minus MIG); two containers share the one pod claim: counted once.
    (tree,) = _trees("gpu-test4.yaml")
    assert tree.totals.gpus == 0
    assert tree.components[0].devices_per_pod == {"mig.nvidia.com": 4}
    assert tree.totals.devices == {"mig.nvidia.com": 16}


def test_gpu_test8_v1beta1_count_two():
    # demo/specs/quickstart/gpu-test8.yaml: "One pod, one container asking 2 GPUs"
    (tree,) = _trees("gpu-test8.yaml")
    assert tree.totals.gpus == 2
    assert tree.to_dict()["components"][0]["devicesPerPod"] == {"gpu.nvidia.com": 2}


def test_a_template_in_related_files_is_found(tmp_path):
    pod = tmp_path / "pod.yaml"
    text = (DRA / "gpu-test8.yaml").read_text()
    pod.write_text(
        text.split("---\napiVersion: v1\n", 1)[0].replace("---\napiVersion: resource", "apiVersion: resource")
    )
    workload = tmp_path / "w.yaml"
    workload.write_text("apiVersion: v1\n" + text.split("---\napiVersion: v1\n", 1)[1])
    alone = [r.tree for r in inspect_file(str(workload)) if r.tree][0]
    assert alone.totals.gpus == 0 and alone.totals.devices_unknown == ["ResourceClaimTemplate/double-gpu"]
    assert any("ResourceClaimTemplate/double-gpu is not in the input" in w for w in alone.warnings)
    related = [r.tree for r in inspect_file(str(workload), related=ObjectIndex.from_paths([str(pod)])) if r.tree][0]
    assert related.totals.gpus == 2 and related.totals.devices_unknown == []


def test_json_round_trip_keeps_the_devices():
    from workloadmap import WorkloadTree

    (tree,) = _trees("gpu-test3.yaml")
    again = WorkloadTree.from_dict(tree.to_dict())
    assert again.to_dict() == tree.to_dict()


def test_inspect_of_a_dra_manifest_without_device_classes_does_not_import_cel():
    code = (
        "import sys; from workloadmap import inspect_file;"
        f"inspect_file({str(DRA / 'gpu-test4.yaml')!r});"
        "print('celpy' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tempfile.gettempdir()
    )
    assert result.stdout.strip() == "False"


def test_cli_inspect_counts_dra_gpus_and_takes_gpu_device_class(tmp_path, wmap):
    manifest = tmp_path / "custom.yaml"
    manifest.write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: accel}\n"
        "spec:\n  spec:\n    devices:\n      requests:\n      - name: a\n"
        "        exactly: {deviceClassName: accelerator.example.com, count: 3}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n"
        "  resourceClaims: [{name: a, resourceClaimTemplateName: accel}]\n"
    )
    plain = wmap("inspect", str(manifest), "-o", "json")
    assert plain.exit_code == 0, plain.output
    assert json.loads(plain.stdout)["totals"]["gpus"] == 0
    assert json.loads(plain.stdout)["totals"]["devices"] == {"accelerator.example.com": 3}
    flagged = wmap("inspect", str(manifest), "--gpu-device-class", "accelerator.example.com", "-o", "json")
    assert json.loads(flagged.stdout)["totals"]["gpus"] == 3
    tree = wmap("inspect", str(DRA / "gpu-test3.yaml"))
    assert "DRA devices: gpu.nvidia.com 1" in tree.stdout
    assert "shared ResourceClaim/single-gpu: gpu.nvidia.com 1, once for 2 pods" in tree.stdout


def test_emit_demand_carries_devices(wmap):
    # on nodes.yaml with its ResourceSlices: node-a holds the 2 GPUs (gpu-1 of its 3 is taken)
    result = wmap(
        "place", str(DRA / "gpu-test8.yaml"), "-t", str(DRA / "nodes.yaml"),
        "--resource-slices", str(DRA / "slices.yaml"), "--emit", "demand", "-o", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    document = document["items"][0] if "items" in document else document
    assert document["gangs"][0]["devices"] == {"gpu.nvidia.com": 2}
    assert document["gangs"][0]["gpus"] == 2
    assert document["totals"]["devices"] == {"gpu.nvidia.com": 2}


def test_corpus_jobset_dra_example_names_its_missing_template(corpus_dir):
    # kubernetes-sigs/jobset site/static/examples/workload-aware-scheduling/dra/jobset.yaml: the
    # template gpu-claim-template is not in the file: its devices are unknown, never 0 silently
    results = inspect_file(str(corpus_dir / "jobset" / "dra-training-job.yaml"))
    (tree,) = [result.tree for result in results if result.tree]
    assert tree.totals.pods == 6
    assert tree.totals.devices_unknown == ["ResourceClaimTemplate/gpu-claim-template"]
    assert any("gpu-claim-template is not in the input" in warning for warning in tree.warnings)


def test_unreadable_claims_are_unknown_with_a_warning_naming_the_field(tmp_path):
    manifest = tmp_path / "bad.yaml"
    manifest.write_text(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\nspec: {spec: [1, 2]}\n---\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\n"
        "spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu.nvidia.com, count: two}}]}}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n"
        "  resourceClaims: [{name: a, resourceClaimTemplateName: t}, {name: b, resourceClaimName: c}]\n"
    )
    (tree,) = [result.tree for result in inspect_file(str(manifest)) if result.tree]
    assert tree.totals.devices_unknown == ["ResourceClaimTemplate/t", "ResourceClaim/c"]
    assert any("ResourceClaimTemplate/t: field spec.spec: expected a mapping" in text for text in tree.warnings)
    assert any("spec.devices.requests[0].exactly.count" in text for text in tree.warnings)


def test_podgroup_claims_are_one_claim_per_podgroup():
    # KEP-5729 README "Example" (fixtures/dra/podgroup-claims.yaml): each PodGroup declares pg-claim
    # from pg-claim-template and its Deployment's 2 pods reference the same name and template:
    # "All pods in the group ... share the same generated ResourceClaim" (PodResourceClaim comment,
    # k8s.io/api core/v1/types.go) -> 1 device of class example per PodGroup, not 2.
    first, second, own = _trees("podgroup-claims.yaml")[2:]
    for tree, group in ((first, "my-podgroup-1"), (second, "my-podgroup-2")):
        assert tree.totals.devices == {"example": 1}
        assert tree.components[0].devices_per_pod == {}
        (claim,) = tree.shared_claims
        assert (claim.name, claim.pod_group, claim.template, claim.pods, claim.kai_queue_gpus) == (
            "pg-claim", group, "pg-claim-template", 2, 0,
        )  # fmt: skip
    # "matched to a PodGroupResourceClaim if all of their fields are equal (Name, ...)": a claim of
    # another name is the pods' own, one per pod
    assert own.totals.devices == {"example": 2}
    assert own.components[0].devices_per_pod == {"example": 1}
    assert own.shared_claims == []


def test_podgroup_gpu_claim_counts_its_gpus_once_and_round_trips(tmp_path):
    from workloadmap.tree import WorkloadTree

    text = (DRA / "podgroup-claims.yaml").read_text()
    text = text.replace("deviceClassName: example", "deviceClassName: gpu.nvidia.com")
    manifest = tmp_path / "gpu.yaml"
    manifest.write_text(text)
    tree = [result.tree for result in inspect_file(str(manifest)) if result.tree is not None][2]
    assert tree.totals.gpus == 1 and tree.totals.devices == {"gpu.nvidia.com": 1}
    data = tree.to_dict()
    (claim,) = data["sharedClaims"]
    assert (claim["podGroup"], claim["template"], claim["gpus"], claim["kaiQueueGpus"]) == (
        "my-podgroup-1", "pg-claim-template", 1, 0,
    )  # fmt: skip
    assert WorkloadTree.from_dict(data).shared_claims == tree.shared_claims


def test_a_podgroup_claim_without_the_podgroup_is_per_pod(tmp_path):
    # the PodGroup not given: its declared claims are unknown, the pods' template claims stay per pod
    text = (DRA / "podgroup-claims.yaml").read_text()
    documents = [doc for doc in text.split("\n---\n") if "kind: PodGroup" not in doc]
    manifest = tmp_path / "no-group.yaml"
    manifest.write_text("\n---\n".join(documents))
    tree = [result.tree for result in inspect_file(str(manifest)) if result.tree is not None][0]
    assert tree.totals.devices == {"example": 2}
