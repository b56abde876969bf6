"""A Karta interpreted with upstream Workload Map's semantics.

Expected values follow upstream's code, worked by hand on fixtures/karta/trainer.yaml:
extraction and zipping (``pkg/resource/accessor.go`` ``ExtractScale``/``extractReplicas``,
``pkg/resource/component.go`` ``zipWithInstanceIds``), the desired count (``replicasOf`` in
``cli/pkg/workload/describe.go``: replicas, else minReplicas, else 1), status matching
(``accessor.go`` ``matchStatus``: order, AND within a matcher, ``(expr) | tostring``), and
``CalculateSubtreeScale`` (``pkg/instructions/gang_scheduling.go``; its test "when parent has scale,
should multiply parent scale by children sum" gives 2 * (4 + 1) = 10).
"""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from helpers import FIXTURES_DIR, load_fixture, yaml_doc
from workloadmap.catalog import Catalog
from workloadmap.definitions import Phase
from workloadmap.errors import InputError
from workloadmap.interpreter import inspect
from workloadmap.interpreter.karta_gangs import subtree_scale
from workloadmap.interpreter.karta_instances import karta_instances
from workloadmap.karta import parse_karta

KARTA = yaml_doc((FIXTURES_DIR / "karta" / "trainer-karta.yaml").read_text())


@pytest.fixture(scope="module")
def catalog():
    return Catalog([parse_karta(KARTA, "trainer-karta.yaml")])


@pytest.fixture()
def trainer():
    return copy.deepcopy(load_fixture("karta/trainer.yaml"))


def test_tree_counts_pods_per_instance_without_parent_multiplication(catalog, trainer):
    tree = inspect(trainer, catalog=catalog)
    assert tree.definition == "example-com-trainer-v1"  # the Karta's metadata.name
    shape = [(c.name, c.role, c.instance, c.kind, c.replicas, c.min_replicas, c.pods) for c in tree.components]
    assert shape == [
        ("launcher", "launcher", None, "Pod", 1, None, 1),  # no scale: replicasOf falls back to 1
        ("gpu", "workers", "gpu", "Job", 4, 2, 4),  # 2 replicas * 2 hosts, zipped by position
        ("cpu", "workers", "cpu", "Job", 3, None, 3),  # "3" is a numeric string (ParseInt)
    ]
    assert tree.totals.pods == 8
    assert tree.totals.gpus == Fraction(32)  # nvidia.com/gpu limits default the requests: 4 x 8
    assert tree.totals.resources["cpu"] == Fraction(1 + 4 * 16 + 3 * 4)


def test_status_matchers_and_phase_precedence(catalog, trainer):
    tree = inspect(trainer, catalog=catalog)
    # running byPhase holds; failed byConditions (type, status and reason: the CRD defaults
    # reasonFieldName to "reason") holds; suspended's (.spec.suspend) | tostring is "null".
    assert tree.phases == [Phase.FAILED, Phase.RUNNING]
    assert tree.phase == Phase.FAILED
    trainer["status"] = {"state": "Unknown", "ready": 2}
    assert inspect(trainer, catalog=catalog).phases == [Phase.RUNNING]  # byExpression "true"
    trainer["status"] = {"state": "Unknown"}
    tree = inspect(trainer, catalog=catalog)
    assert (tree.phase, tree.phases) == (Phase.UNDEFINED, [])
    trainer["spec"]["suspend"] = True
    assert inspect(trainer, catalog=catalog).phases == [Phase.SUSPENDED]


def test_a_condition_reason_must_match(catalog, trainer):
    trainer["status"]["conditions"][0]["reason"] = "Evicted"
    assert Phase.FAILED not in inspect(trainer, catalog=catalog).phases


def test_subtree_scale_as_upstream():
    karta = parse_karta(
        yaml_doc(
            """
            apiVersion: run.ai/v1alpha1
            kind: Karta
            metadata: {name: job}
            spec:
              structureDefinition:
                rootComponent:
                  name: pytorch-job
                  kind: {group: example.com, version: v1, kind: Job}
                  scaleDefinition: {replicasPath: .spec.replicas}
                  statusDefinition: {statusMappings: {}}
                childComponents:
                  - {name: worker, ownerRef: pytorch-job, specDefinition: {podTemplateSpecPath: .spec.worker.template},
                     scaleDefinition: {replicasPath: .spec.worker.replicas}}
                  - {name: master, ownerRef: pytorch-job, specDefinition: {podTemplateSpecPath: .spec.master.template},
                     scaleDefinition: {replicasPath: .spec.master.replicas}}
            """
        )
    ).karta
    resource = {"spec": {"replicas": 2, "worker": {"replicas": 4}, "master": {"replicas": 1}}}
    roots = karta_instances(karta, resource)
    assert subtree_scale(karta, roots, "pytorch-job") == 10  # upstream test: 2 * (4 + 1)
    assert subtree_scale(karta, roots, "worker") == 4
    del resource["spec"]["replicas"]
    assert subtree_scale(karta, karta_instances(karta, resource), "pytorch-job") == 5  # no parent scale: the sum


def test_gangs_from_representative_pods(catalog, trainer):
    tree = inspect(trainer, catalog=catalog)
    groups = {group.name: (group.min_member, group.pods) for group in tree.pod_groups}
    # gpu workers pass the GPU filter: their own member, keyed by the instance label -> llm-gpu,
    # minMember = the gpu instance's minReplicas (2). cpu workers fail it and fall back, with the
    # launcher, to the ancestor member: keyed by a run-time label only -> one group, minMember =
    # CalculateSubtreeScale(trainer) = gpu 2 + cpu 3 (the launcher has no scale).
    assert groups == {"llm-gpu": (2, 4), "llm": (5, 4)}
    assert any("minMember 5 is more than its 4 pods" in warning for warning in tree.warnings)


def test_absent_pod_definition_runs_no_pods(catalog, trainer):
    # Upstream counts replicasOf = 1 pod for the launcher even without its template; the operator runs none.
    del trainer["spec"]["launcher"]
    tree = inspect(trainer, catalog=catalog)
    assert [c.name for c in tree.components if c.pods] == ["gpu", "cpu"]
    assert tree.totals.pods == 7


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # null becomes "" when upstream converts ids to strings, then "contained empty string values"
        (lambda t: t["spec"]["groups"][1].pop("name"), "empty id"),
        (lambda t: t["spec"]["groups"][1].update(name=""), "empty id"),
        (lambda t: t["spec"]["groups"][1].update(replicas="three"), "'three' is not a number"),
        (lambda t: t["spec"]["groups"][1].update(replicas=-1), "out of range"),
    ],
)
def test_malformed_resources_are_clean_errors(catalog, trainer, change, message):
    change(trainer)
    with pytest.raises(InputError, match=message):
        inspect(trainer, catalog=catalog)


def test_zipped_streams_of_different_lengths_are_an_error(trainer):
    karta = copy.deepcopy(KARTA)
    workers = karta["spec"]["structureDefinition"]["childComponents"][1]
    # Scales are zipped over the longest of their three streams (ExtractScale); pod definitions are not.
    workers["specDefinition"]["podTemplateSpecPath"] = ".spec.groups[] | select(.hosts) | .template"
    with pytest.raises(InputError, match="instance ids count \\(2\\) does not match results count \\(1\\)"):
        inspect(trainer, catalog=Catalog([parse_karta(karta)]))


def test_gpu_resource_names_follow_upstream_unless_asked(catalog, trainer):
    trainer["spec"]["groups"][0]["template"]["spec"]["containers"][0]["resources"]["limits"] = {"amd.com/gpu": "8"}
    assert inspect(trainer, catalog=catalog).totals.gpus == 0  # upstream counts nvidia.com/gpu only
    assert inspect(trainer, catalog=catalog, gpu_resources=["amd.com/gpu"]).totals.gpus == 32


FRAGMENTED = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: example-com-service-v1}
spec:
  structureDefinition:
    rootComponent:
      name: service
      kind: {group: example.com, version: v1, kind: Service}
      statusDefinition: {statusMappings: {}}
    childComponents:
      - name: server
        ownerRef: service
        instanceIdPath: .spec.servers | keys[]
        specDefinition:
          fragmentedPodSpecDefinition:
            resourcesPath: .spec.servers[].resources
            labelsPath: .spec.servers[].labels
        scaleDefinition:
          replicasPath: .spec.servers[].replicas
        podSelector:
          componentInstanceSelector: {idPath: '.metadata.labels["example.com/server"]'}
      - name: router
        ownerRef: service
        specDefinition:
          podSpecPath: .spec.router.podSpec
          metadataPath: .spec.router.metadata
"""


def test_fragmented_and_split_pod_definitions():
    # Fragments are zipped by index with the instance ids (map keys, sorted as gojq iterates them);
    # with no containers path the operator's container requests what resourcesPath says.
    catalog = Catalog([parse_karta(yaml_doc(FRAGMENTED))])
    resource = {
        "apiVersion": "example.com/v1",
        "kind": "Service",
        "metadata": {"name": "svc"},
        "spec": {
            "servers": {
                "decode": {"replicas": 2, "resources": {"limits": {"nvidia.com/gpu": 4}}, "labels": {"a": "b"}},
                "prefill": {"replicas": "1", "resources": {"requests": {"cpu": "2"}}},
            },
            "router": {
                "podSpec": {"containers": [{"name": "r", "resources": {"requests": {"cpu": "1"}}}]},
                "metadata": {"annotations": {"kai.scheduler/topology-preferred-placement": "rack"}},
            },
        },
    }
    tree = inspect(resource, catalog=catalog)
    assert [(c.name, c.pods, c.gpus_per_pod) for c in tree.components] == [
        ("decode", 2, 4),
        ("prefill", 1, 0),
        ("router", 1, 0),
    ]
    assert tree.components[2].topology_annotations == {"kai.scheduler/topology-preferred-placement": "rack"}
    assert tree.totals.gpus == 8
    # No gang instructions: KAI's default grouper, one PodGroup of every pod, minMember 1.
    assert [(group.min_member, group.pods) for group in tree.pod_groups] == [(1, 4)]
