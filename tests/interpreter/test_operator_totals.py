"""Totals the operators really create: webhook defaults, extra pods, loosely typed fields, companions."""

from __future__ import annotations

import copy

import pytest

from helpers import FIXTURES_DIR, load_fixture
from workloadmap import inspect_file


def milvus(**spec):
    return {
        "apiVersion": "milvus.io/v1beta1",
        "kind": "Milvus",
        "metadata": {"name": "m"},
        "spec": {"mode": "cluster", **spec},
    }


def leaf_pods(tree):
    return {component.name: component.pods for component in tree.walk() if component.has_pod_template}


def test_milvus_cluster_with_defaulted_components(inspect_builtin):
    # milvus-operator apis/milvus.io/v1beta1/milvus_webhook.go DefaultComponents + defaultComponentsReplicas with
    # the default image (pkg/config DefaultMilvusVersion v2.6.11): proxy, mixCoord (no coordinator written),
    # dataNode, queryNode, streamingNode (2.6+), no indexNode (2.6+), each 1 replica.
    tree = inspect_builtin(milvus())
    assert leaf_pods(tree) == {"proxy": 1, "mixcoord": 1, "datanode": 1, "querynode": 1, "streamingnode": 1}
    assert tree.totals.pods == 5
    assert any("operator's default Milvus image" in warning for warning in tree.warnings)


def test_milvus_cluster_before_2_6(inspect_builtin):
    # Milvus 2.5: indexNode defaulted, no streamingNode unless asked for (UseStreamingNode)
    tree = inspect_builtin(milvus(components={"image": "milvusdb/milvus:v2.5.4"}))
    assert leaf_pods(tree) == {"proxy": 1, "mixcoord": 1, "datanode": 1, "indexnode": 1, "querynode": 1}
    assert tree.warnings == []
    tree = inspect_builtin(milvus(components={"image": "milvusdb/milvus:v2.5.4", "streamingMode": True}))
    assert "streamingnode" in leaf_pods(tree)


def test_milvus_written_coordinators_get_their_siblings(inspect_builtin):
    # a coordinator written by the user: the four classic coordinators instead of mixCoord (pre-2.6 version)
    tree = inspect_builtin(milvus(components={"version": "2.5.0", "rootCoord": {"replicas": 2}}))
    pods = leaf_pods(tree)
    assert (pods["rootcoord"], pods["datacoord"], pods["querycoord"], pods["indexcoord"]) == (2, 1, 1, 1)
    assert "mixcoord" not in pods


def test_nimservice_epp_adds_a_pod(inspect_builtin):
    # k8s-nim-operator GetEPPDeploymentParams: one EPP Deployment (no replicas field: 1 pod, no resources)
    nim = load_fixture("serving/nimservice-multinode.yaml")
    before = inspect_builtin(nim).totals.pods
    nim = copy.deepcopy(nim)
    nim["spec"].setdefault("expose", {}).setdefault("router", {})["eppConfig"] = {
        "containerSpec": {"name": "epp", "image": {"repository": "example/epp", "tag": 1.8}},
        "configMapRef": {"name": "epp-config", "key": "config.yaml"},
    }
    tree = inspect_builtin(nim)
    assert tree.totals.pods == before + 1
    [epp] = [component for component in tree.walk() if component.name == "epp"]
    assert epp.pods == 1 and epp.gpus == 0


@pytest.mark.parametrize("tag", [1.8, 2, True])
def test_unquoted_numeric_tag_does_not_abort_the_document(inspect_builtin, tag):
    # `tag: 1.8` is a float in YAML but a string to the operator (Go's typed decoding of the CRD's string field)
    nim = load_fixture("serving/nimservice-multinode.yaml")
    nim["spec"]["image"]["tag"] = tag
    assert inspect_builtin(nim).totals.pods > 0


def test_expression_error_names_the_field_it_read(inspect_builtin):
    from workloadmap.errors import ExpressionError

    ray = load_fixture("raycluster.yaml")
    ray["spec"]["workerGroupSpecs"][1]["replicas"] = "three"  # min() of a string and a number fails
    with pytest.raises(ExpressionError) as raised:
        inspect_builtin(ray)
    # located at the instance element it read, not only at the expression text
    assert "spec.workerGroupSpecs[1]" in str(raised.value)


def test_dra_companions_are_skipped_with_a_note():
    results = inspect_file(str(FIXTURES_DIR / "companions" / "jobset-computedomain.yaml"))
    assert [result.error for result in results] == [None, None, None]
    skipped = [result.skipped for result in results if result.skipped]
    assert len(skipped) == 2 and "ComputeDomain" in skipped[0] and "ResourceClaimTemplate" in skipped[1]
    [tree] = [result.tree for result in results if result.tree]
    assert (tree.totals.pods, tree.totals.gpus) == (2, 8)


def test_cli_exit_code_is_zero_with_companions(wmap):
    result = wmap("inspect", str(FIXTURES_DIR / "companions" / "jobset-computedomain.yaml"))
    assert result.exit_code == 0, result.output
    assert "skipped ComputeDomain" in result.stderr


def test_llminferenceservice_base_refs_and_presets_are_merged_when_given():
    from workloadmap import ObjectIndex

    service = str(FIXTURES_DIR / "serving" / "llmisvc-baserefs" / "service.yaml")
    configs = str(FIXTURES_DIR / "serving" / "llmisvc-baserefs" / "configs.yaml")
    # Without the configs: the main pods' template is unknown (0 pods counted) and warnings say what is missing.
    [alone] = [result.tree for result in inspect_file(service)]
    assert any("LLMInferenceServiceConfig/vllm-gpu" in warning for warning in alone.warnings)
    assert "main" not in {component.name for component in alone.walk()}
    # With them (--related): KServe's merge gives the main template (2 replicas: the service's own wins over the
    # config's 1) and the scheduler preset's pod (cpu 256m).
    [tree] = [result.tree for result in inspect_file(service, related=ObjectIndex.from_paths([configs]))]
    components = {component.name: component for component in tree.walk()}
    assert (components["main"].pods, components["main"].gpus) == (2, 2)
    assert components["router-scheduler"].pods == 1
    assert str(components["router-scheduler"].pod_resources["cpu"]) == "32/125"  # 256m
    assert not any("LLMInferenceServiceConfig" in warning for warning in tree.warnings)


def test_strategic_merge_of_named_lists():
    from workloadmap.interpreter.merge import strategic_merge

    base = {"containers": [{"name": "main", "image": "a", "args": ["x"]}, {"name": "side", "image": "s"}], "n": 1}
    override = {"containers": [{"name": "main", "image": "b"}, {"name": "new", "image": "c"}], "n": 2}
    assert strategic_merge(base, override) == {
        "containers": [
            {"name": "main", "image": "b", "args": ["x"]},
            {"name": "side", "image": "s"},
            {"name": "new", "image": "c"},
        ],
        "n": 2,
    }
    assert strategic_merge({"args": ["a", "b"]}, {"args": ["c"]}) == {"args": ["c"]}  # unnamed lists are replaced
