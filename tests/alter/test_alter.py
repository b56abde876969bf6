"""`alter` on pod templates that are part of the object: every component, merges, conflicts, targeting.

Merge rules follow Kubernetes' semantics: node-selector terms are ORed and the expressions of a term
ANDed (core/v1 NodeSelector), so a requirement is added to every term; an existing toleration with
operator Exists and no effect already tolerates every effect of its key (core/v1
Toleration.ToleratesTaint), so it is not duplicated.
"""

from __future__ import annotations

import copy
import json

import pytest

from helpers import load_fixture, yaml_doc
from workloadmap.alter import Changes, NodeRequirement, Toleration, alter
from workloadmap.errors import AlterError, InputError, NoDefinitionError

KAI = Changes(scheduler_name="kai-scheduler")
GPU_TAINT = Toleration.parse("nvidia.com/gpu:NoSchedule")

JOBSET = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: train, namespace: ml, labels: {team: a}}
spec:
  replicatedJobs:
    - name: leader
      template:
        spec:
          template:
            metadata: {labels: {role: leader}}
            spec:
              schedulerName: default-scheduler
              tolerations: [{key: nvidia.com/gpu, operator: Exists}]
              containers: [{name: c, image: x}]
    - name: workers
      replicas: 2
      template:
        spec:
          template:
            spec:
              affinity:
                nodeAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                      - matchExpressions: [{key: zone, operator: In, values: [a]}]
                      - matchExpressions: [{key: zone, operator: In, values: [b]}]
              containers: [{name: c, image: x}]
"""


def _template(obj, index):
    return obj["spec"]["replicatedJobs"][index]["template"]["spec"]["template"]


def test_every_template_gets_the_change_and_the_input_is_untouched():
    original = yaml_doc(JOBSET)
    frozen = copy.deepcopy(original)
    result = alter(original, KAI)
    assert original == frozen
    assert [_template(result.object, i)["spec"]["schedulerName"] for i in (0, 1)] == ["kai-scheduler"] * 2
    assert [component.component for component in result.components] == ["leader", "workers"]
    assert result.changed == [
        "spec.replicatedJobs[0].template.spec.template.spec.schedulerName",
        "spec.replicatedJobs[1].template.spec.template.spec.schedulerName",
    ]


def test_a_different_existing_value_is_replaced_with_a_warning():
    result = alter(yaml_doc(JOBSET), KAI)
    assert len(result.warnings) == 1
    assert "component leader: schedulerName default-scheduler replaced by kai-scheduler" in result.warnings[0]


def test_everything_else_keeps_its_value_and_order():
    original = yaml_doc(JOBSET)
    result = alter(original, KAI)
    altered = copy.deepcopy(result.object)
    del _template(altered, 1)["spec"]["schedulerName"]
    _template(altered, 0)["spec"]["schedulerName"] = "default-scheduler"
    # Same keys in the same order: the JSON texts are identical.
    assert json.dumps(altered) == json.dumps(original)


def test_tolerations_are_merged_keeping_existing_ones():
    result = alter(yaml_doc(JOBSET), Changes(tolerations=(GPU_TAINT, Toleration.parse("spot=true:NoExecute"))))
    leader = _template(result.object, 0)["spec"]["tolerations"]
    workers = _template(result.object, 1)["spec"]["tolerations"]
    # The leader's {nvidia.com/gpu Exists} already tolerates NoSchedule: only the spot toleration is added.
    assert leader == [
        {"key": "nvidia.com/gpu", "operator": "Exists"},
        {"key": "spot", "operator": "Equal", "value": "true", "effect": "NoExecute"},
    ]
    assert workers == [GPU_TAINT.to_pod(), {"key": "spot", "operator": "Equal", "value": "true", "effect": "NoExecute"}]


def test_labels_merge_and_a_conflicting_value_warns():
    result = alter(yaml_doc(JOBSET), Changes(pod_labels={"role": "trainer", "x": "1"}, labels={"team": "b"}))
    assert _template(result.object, 0)["metadata"]["labels"] == {"role": "trainer", "x": "1"}
    assert _template(result.object, 1)["metadata"]["labels"] == {"role": "trainer", "x": "1"}
    assert result.object["metadata"]["labels"] == {"team": "b"}
    assert any("pod label role=leader replaced by trainer" in warning for warning in result.warnings)
    assert any("label team=a replaced by b" in warning for warning in result.warnings)


def test_a_node_requirement_is_added_to_every_term():
    rack = NodeRequirement("rack", ("r1",))
    result = alter(yaml_doc(JOBSET), Changes(node_affinity=(rack,)))
    terms = _template(result.object, 1)["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert [term["matchExpressions"] for term in terms] == [
        [{"key": "zone", "operator": "In", "values": ["a"]}, rack.to_pod()],
        [{"key": "zone", "operator": "In", "values": ["b"]}, rack.to_pod()],
    ]
    leader = _template(result.object, 0)["spec"]["affinity"]
    assert leader == {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [rack.to_pod()]}]
            }
        }
    }


def test_a_requirement_on_the_same_key_is_replaced_with_a_warning():
    result = alter(yaml_doc(JOBSET), Changes(node_affinity=(NodeRequirement("zone", ("c",)),)))
    terms = _template(result.object, 1)["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"]
    assert all(term["matchExpressions"] == [{"key": "zone", "operator": "In", "values": ["c"]}] for term in terms)
    assert sum("node requirement zone In ['a'] replaced" in warning for warning in result.warnings) == 1


def test_a_change_already_in_effect_changes_nothing():
    once = alter(yaml_doc(JOBSET), Changes(scheduler_name="kai-scheduler", tolerations=(GPU_TAINT,)))
    twice = alter(once.object, Changes(scheduler_name="kai-scheduler", tolerations=(GPU_TAINT,)))
    assert twice.object == once.object
    assert twice.changed == [] and twice.warnings == [] and twice.patch() == {}


@pytest.mark.parametrize("name, expected", [("workers", ["workers"]), ("replicatedJob", ["leader", "workers"])])
def test_component_targeting(name, expected):
    result = alter(yaml_doc(JOBSET), KAI, component=name)
    assert [component.component for component in result.components] == expected
    untouched = {"leader": 0, "workers": 1}
    for component, index in untouched.items():
        spec = _template(result.object, index)["spec"]
        assert (spec.get("schedulerName") == "kai-scheduler") == (component in expected)


def test_an_unknown_component_is_an_input_error_listing_the_components():
    with pytest.raises(InputError, match="no pod-bearing component named 'master'.*leader, workers"):
        alter(yaml_doc(JOBSET), KAI, component="master")


LWS_ONE_TEMPLATE = """
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: vllm}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: 4
    workerTemplate:
      spec:
        containers: [{name: w, image: x}]
"""


def test_components_sharing_a_template_are_written_once():
    # Without a leaderTemplate the LWS leader runs the worker template (LWS API leaderTemplate doc).
    result = alter(yaml_doc(LWS_ONE_TEMPLATE), KAI)
    assert [component.component for component in result.components] == ["group/leader", "group/worker"]
    assert result.changed == ["spec.leaderWorkerTemplate.workerTemplate.spec.schedulerName"]
    assert result.components[0].fields == result.components[1].fields


def test_targeting_one_of_two_components_sharing_a_template_is_refused():
    with pytest.raises(AlterError, match="component group/leader shares its pods' schedulerName .* with group/worker"):
        alter(yaml_doc(LWS_ONE_TEMPLATE), KAI, component="leader")


def test_object_level_changes_do_not_need_pod_templates():
    result = alter(yaml_doc(LWS_ONE_TEMPLATE), Changes(queue="team-a", annotations={"owner": "ml"}))
    assert result.object["metadata"] == {
        "name": "vllm",
        "labels": {"kai.scheduler/queue": "team-a", "kueue.x-k8s.io/queue-name": "team-a"},
        "annotations": {"owner": "ml"},
    }
    assert result.components == []


def test_a_bare_pod_is_its_own_template():
    pod = load_fixture("pod-sidecar.yaml")
    result = alter(pod, Changes(scheduler_name="kai-scheduler", pod_labels={"a": "b"}))
    assert result.object["spec"]["schedulerName"] == "kai-scheduler"
    assert result.object["metadata"]["labels"]["a"] == "b"
    assert result.changed == ["metadata.labels", "spec.schedulerName"]


def test_an_unknown_kind_and_bad_arguments():
    with pytest.raises(NoDefinitionError):
        alter({"apiVersion": "example.com/v1", "kind": "Nope", "metadata": {"name": "x"}}, KAI)
    with pytest.raises(TypeError):
        alter("not an object", KAI)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        alter(yaml_doc(JOBSET), {"schedulerName": "x"})  # type: ignore[arg-type]


def test_the_merge_patch_names_only_what_changed():
    # RFC 7386: mappings merge key by key, so the existing label team=a is not repeated.
    result = alter(yaml_doc(JOBSET), Changes(queue="team-a"))
    assert result.patch() == {
        "metadata": {"labels": {"kai.scheduler/queue": "team-a", "kueue.x-k8s.io/queue-name": "team-a"}}
    }


def test_the_json_form_describes_the_change_without_the_objects():
    data = alter(yaml_doc(JOBSET), KAI, component="workers").to_dict()
    assert data == {
        "workload": {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train", "namespace": "ml"},
        "definition": "jobset",
        "components": [
            {
                "component": "workers",
                "role": "replicatedJob",
                "fields": ["spec.replicatedJobs[1].template.spec.template.spec.schedulerName"],
            }
        ],
        "changed": ["spec.replicatedJobs[1].template.spec.template.spec.schedulerName"],
        "removed": [],
        "warnings": [],
    }


def test_a_kind_defined_by_a_karta_is_refused_with_the_reason():
    from helpers import FIXTURES_DIR
    from workloadmap.catalog import Catalog, load_definitions

    catalog = Catalog(load_definitions(FIXTURES_DIR / "karta" / "trainer-karta.yaml"))
    trainer = yaml_doc((FIXTURES_DIR / "karta" / "trainer.yaml").read_text())
    with pytest.raises(AlterError, match="defined by Karta 'example-com-trainer-v1'"):
        alter(trainer, KAI, catalog=catalog)


def test_clique_affinity_keeps_the_workload_in_one_nvlink_clique():
    # The IMEX domain of a ComputeDomain forms per NVLink clique (dra-driver-nvidia-gpu issues #377,
    # #804); NVIDIA's docs add a required podAffinity with topologyKey nvidia.com/gpu.clique. A
    # required podAffinity term whose selector the pod itself matches lets the first pod schedule
    # (kube-scheduler pkg/scheduler/framework/plugins/interpodaffinity/filtering.go satisfyPodAffinity:
    # "This pod may be the first pod in a series that have affinity to themselves") and pins the
    # rest to its clique: every pod gets the label the term selects.
    result = alter(yaml_doc(JOBSET), Changes(clique_affinity="nvidia.com/gpu.clique"))
    term = {
        "labelSelector": {"matchLabels": {"wmap.dev/clique-group": "train"}},
        "topologyKey": "nvidia.com/gpu.clique",
    }
    for index in (0, 1):
        template = _template(result.object, index)
        assert template["metadata"]["labels"]["wmap.dev/clique-group"] == "train"
        assert template["spec"]["affinity"]["podAffinity"] == {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    # the workers' node affinity is kept as it was
    workers = _template(result.object, 1)["spec"]["affinity"]
    assert len(workers["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]) == 2
    again = alter(result.object, Changes(clique_affinity="nvidia.com/gpu.clique"))
    assert again.object == result.object and again.changed == []


def test_clique_affinity_with_a_node_requirement_writes_both():
    rack = NodeRequirement("rack", ("r1",))
    result = alter(yaml_doc(JOBSET), Changes(node_affinity=(rack,), clique_affinity="nvidia.com/gpu.clique"))
    affinity = _template(result.object, 0)["spec"]["affinity"]
    assert set(affinity) == {"nodeAffinity", "podAffinity"}
