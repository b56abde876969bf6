"""Kubernetes' strategic merge patch of a pod template, as the operators that patch templates apply it.

Cases: sgl-project/rbg pkg/reconciler/pod_reconciler_test.go Test_applyStrategicMergePatch (the rbg controller's
own use of strategicpatch.StrategicMergePatch with a PodTemplateSpec), and the merge keys and directives of
k8s.io/apimachinery/pkg/util/strategicpatch/patch.go with the patchStrategy/patchMergeKey tags of
k8s.io/api/core/v1/types.go.
"""

from __future__ import annotations

import copy

from workloadmap.expressions import compile_expression
from workloadmap.expressions.patches import patch_pod_template

BASE = {"spec": {"containers": [{"name": "app", "image": "nginx:1.20"}]}}


def test_no_patch_gives_the_base():
    # "nil or empty patch returns base unchanged"
    assert patch_pod_template(BASE, None) == BASE
    assert patch_pod_template(BASE, {}) == BASE


def test_a_patch_adds_and_overrides_fields():
    # "patch adds new field", "patch overrides existing field"
    patched = patch_pod_template(BASE, {"spec": {"restartPolicy": "Always"}})
    assert patched == {"spec": {"containers": [{"name": "app", "image": "nginx:1.20"}], "restartPolicy": "Always"}}
    base = copy.deepcopy(BASE)
    base["spec"]["restartPolicy"] = "Never"
    assert patch_pod_template(base, {"spec": {"restartPolicy": "Always"}})["spec"]["restartPolicy"] == "Always"
    assert base["spec"]["restartPolicy"] == "Never"  # the base is not changed


def test_containers_merge_by_name():
    # "patch modifies container": the image kept, the command added; a new name is a new container
    patched = patch_pod_template(
        BASE, {"spec": {"containers": [{"name": "app", "command": ["sh", "-c", "echo hello"]}]}}
    )
    assert patched["spec"]["containers"] == [
        {"name": "app", "image": "nginx:1.20", "command": ["sh", "-c", "echo hello"]}
    ]
    added = patch_pod_template(BASE, {"spec": {"containers": [{"name": "sidecar", "image": "busybox"}]}})
    assert [c["name"] for c in added["spec"]["containers"]] == ["app", "sidecar"]


def test_resources_merge_key_by_key_and_null_deletes():
    base = {"spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}
    patch = {"spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": None, "nvidia.com/gpu": "1"}}}]}}
    [container] = patch_pod_template(base, patch)["spec"]["containers"]
    assert container["resources"] == {"requests": {"memory": "1Gi", "nvidia.com/gpu": "1"}}


def test_env_merges_by_name_ports_by_container_port_and_tolerations_are_replaced():
    # types.go: Env patchMergeKey name, Ports patchMergeKey containerPort; Tolerations has no patchStrategy
    base = {
        "spec": {
            "containers": [
                {"name": "app", "env": [{"name": "A", "value": "1"}], "ports": [{"containerPort": 80, "name": "http"}]}
            ],
            "tolerations": [{"key": "a", "operator": "Exists"}],
        }
    }
    patch = {
        "spec": {
            "containers": [
                {
                    "name": "app",
                    "env": [{"name": "B", "value": "2"}],
                    "ports": [{"containerPort": 80, "protocol": "TCP"}],
                }
            ],
            "tolerations": [{"key": "b", "operator": "Exists"}],
        }
    }
    patched = patch_pod_template(base, patch)
    [container] = patched["spec"]["containers"]
    assert container["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    assert container["ports"] == [{"containerPort": 80, "name": "http", "protocol": "TCP"}]
    assert patched["spec"]["tolerations"] == [{"key": "b", "operator": "Exists"}]


def test_patch_directives():
    two = {"spec": {"containers": [{"name": "app", "image": "a"}, {"name": "side", "image": "b"}]}}
    # $patch: delete on a list element removes the element of that merge key
    deleted = patch_pod_template(two, {"spec": {"containers": [{"name": "side", "$patch": "delete"}]}})
    assert deleted["spec"]["containers"] == [{"name": "app", "image": "a"}]
    # $patch: replace as a list element replaces the whole list
    replaced = patch_pod_template(
        two, {"spec": {"containers": [{"name": "only", "image": "c"}, {"$patch": "replace"}]}}
    )
    assert replaced["spec"]["containers"] == [{"name": "only", "image": "c"}]
    # $patch: replace in an object replaces it; $patch: delete removes it
    with_selector = {"spec": {"nodeSelector": {"a": "1", "b": "2"}, "containers": []}}
    assert patch_pod_template(with_selector, {"spec": {"nodeSelector": {"c": "3", "$patch": "replace"}}})["spec"][
        "nodeSelector"
    ] == {"c": "3"}
    assert (
        "nodeSelector"
        not in patch_pod_template(with_selector, {"spec": {"nodeSelector": {"$patch": "delete"}}})["spec"]
    )
    # $deleteFromPrimitiveList removes scalars; $setElementOrder is dropped
    finalizers = {"metadata": {"finalizers": ["x", "y"]}}
    assert patch_pod_template(finalizers, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["x"]}}) == {
        "metadata": {"finalizers": ["y"]}
    }
    ordered = patch_pod_template(two, {"spec": {"$setElementOrder/containers": [{"name": "side"}, {"name": "app"}]}})
    assert ordered == two


def test_the_expression_function_gives_the_same():
    expression = compile_expression("patch_pod_template(base, patch)")
    patch = {"spec": {"containers": [{"name": "app", "image": "nginx:1.21"}]}}
    assert expression.search({"base": BASE, "patch": patch}) == {
        "spec": {"containers": [{"name": "app", "image": "nginx:1.21"}]}
    }
    assert expression.search({"base": BASE}) == BASE
