"""Tests for workloadmap.interpreter: expanding resources into workload trees, and bad input.

Expected counts are worked out from each operator's semantics in the comments; fixtures are in
fixtures/ (each file's header repeats the arithmetic).
"""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from helpers import load_fixture
from workloadmap.catalog import Catalog, parse_definition
from workloadmap.errors import InputError, NoDefinitionError, QuantityError, WorkloadMapError
from workloadmap.interpreter import inspect_file
from workloadmap.quantities import format_resources


def by_name(tree):
    return {component.name: component for component in tree.walk()}


# ------------------------------------------------------------------------------- the JobSet scenario


def test_jobset_leader_workers(inspect_builtin):
    tree = inspect_builtin(load_fixture("jobset-leader-workers.yaml"), source="fixtures/jobset-leader-workers.yaml")
    # leader 1 x min(1, 1) = 1 pod; workers 1 x min(2, 2) = 2 pods
    assert tree.totals.pods == 3
    assert tree.totals.gpus == 12  # 3 pods x 4 GPUs
    # cpu 8 + 2 x 16 = 40; memory 64Gi + 2 x 128Gi = 320Gi
    assert format_resources(tree.totals.resources) == {"cpu": "40", "memory": "320Gi", "nvidia.com/gpu": "12"}
    components = by_name(tree)
    assert (components["leader"].pods, components["leader"].gpus_per_pod) == (1, 4)
    assert (components["workers"].pods, components["workers"].gpus_per_pod, components["workers"].gpus) == (2, 4, 8)
    assert components["workers"].replicas == 1 and components["workers"].pods_per_replica == 2
    assert components["workers"].kind == "Job" and components["workers"].instance == "workers"
    # AnyOrder: one PodGroup for the JobSet, minMember 1 + 2 = 3
    [group] = tree.pod_groups
    assert (group.min_member, group.pods) == (3, 3)
    assert tree.phase == "Running"
    assert tree.workload.namespace == "research"
    assert tree.source == "fixtures/jobset-leader-workers.yaml"


def test_jobset_tree_json_contract(inspect_builtin):
    data = inspect_builtin(load_fixture("jobset-leader-workers.yaml")).to_dict()
    json.dumps(data)  # plain JSON types only
    assert data["workload"] == {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "name": "llm-train",
        "namespace": "research",
    }
    assert data["totals"] == {
        "pods": 3,
        "gpus": 12,
        "resources": {"cpu": "40", "memory": "320Gi", "nvidia.com/gpu": "12"},
        # DRA (issue 28): no claims, no devices; the fields are always there (a stable contract)
        "devices": {},
        "devicesLowerBound": [],
        "devicesUnknown": [],
    }
    # KAI v0.17 jobset_grouper_test.go TestMultipleReplicatedJobsAnyOrder: AnyOrder gates the root by both
    # replicatedJobs (minSubGroup 2, no minMember), each replicatedJob by its one replica
    group = data["podGroups"][0]
    assert (group["minSubGroup"], "minMember" in group) == (2, False)
    assert [(sub["name"], sub.get("minSubGroup"), sub.get("minMember")) for sub in group["subGroups"]] == [
        ("leader", 1, None),
        ("workers", 1, None),
        ("leader-replica-0", None, 1),
        ("workers-replica-0", None, 2),
    ]
    leader = data["components"][0]
    assert leader["podResources"] == {"cpu": "8", "memory": "64Gi", "nvidia.com/gpu": "4"}
    assert leader["hasPodTemplate"] is True
    # templatePath points at the pod template inside the object
    assert leader["templatePath"] == ["spec", "replicatedJobs", 0, "template", "spec", "template"]


def test_jobset_defaults(inspect_builtin):
    jobset = yaml.safe_load(
        """
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: defaults}
        spec:
          replicatedJobs:
            - name: a
              template: {spec: {template: {spec: {containers: [{name: c, image: x}]}}}}
            - name: b
              replicas: 3
              template: {spec: {parallelism: 4, template: {spec: {containers: [{name: c, image: x}]}}}}
        """
    )
    tree = inspect_builtin(jobset)
    # a: replicas default 1 x parallelism default 1 = 1; b: 3 x parallelism 4 (completions unset) = 12
    assert by_name(tree)["a"].pods == 1
    assert by_name(tree)["b"].pods == 12
    assert tree.totals.pods == 13


# ---------------------------------------------------------------------------------------- Pod / Job


def test_pod_with_sidecar_and_overhead(inspect_builtin):
    tree = inspect_builtin(load_fixture("pod-sidecar.yaml"))
    # see fixtures/pod-sidecar.yaml: cpu max(2.5, 3.5) + 0.25 = 3.75; memory 4Gi+256Mi+128Mi = 4480Mi
    [pod] = tree.components
    assert format_resources(pod.pod_resources) == {"cpu": "3750m", "memory": "4480Mi", "nvidia.com/gpu": "1"}
    assert tree.totals.pods == 1 and tree.totals.gpus == 1
    # the bare Pod's own annotations are both the workload's and the pod template's
    assert tree.topology_annotations == {"kai.scheduler/topology": "cluster-topology"}
    assert pod.topology_annotations == {"kai.scheduler/topology": "cluster-topology"}
    assert tree.phase == "Running"


@pytest.mark.parametrize(
    ("parallelism", "completions", "pods"),
    [
        (4, 2, 2),  # completions caps parallelism
        (2, 8, 2),  # parallelism caps the pods running at once
        (None, None, 1),  # both default to 1
        (3, None, 3),  # work-queue Job: parallelism pods
        (None, 5, 1),  # parallelism defaults to 1
        (0, 4, 0),  # parallelism 0 runs nothing
    ],
)
def test_job_min_parallelism_completions(inspect_builtin, parallelism, completions, pods):
    job = load_fixture("job-parallel.yaml")
    job.pop("status")
    for key, value in (("parallelism", parallelism), ("completions", completions)):
        if value is None:
            job["spec"].pop(key, None)
        else:
            job["spec"][key] = value
    tree = inspect_builtin(job)
    assert tree.totals.pods == pods
    assert tree.totals.gpus == pods  # one amd.com/gpu per pod, counted as a GPU
    # KAI's job grouper (v0.15+): the Job's pods share one PodGroup of minMember 1
    # (job_grouper_test.go TestGetPodGroupMetadata_MultiPodJobSharesPodGroup); a Job running no pods has none.
    assert [(group.min_member, group.pods) for group in tree.pod_groups] == ([(1, pods)] if pods else [])
    assert tree.phase == "Undefined"


def test_job_fixture(inspect_builtin):
    tree = inspect_builtin(load_fixture("job-parallel.yaml"))
    # 2 pods x (cpu 1, memory 2Gi, amd.com/gpu 1)
    assert format_resources(tree.totals.resources) == {"amd.com/gpu": "2", "cpu": "2", "memory": "4Gi"}
    assert tree.phase == "Completed"


# ---------------------------------------------------------------------------- Deployment / StatefulSet


def test_deployment_no_gang(inspect_builtin):
    tree = inspect_builtin(load_fixture("deployment-inference.yaml"))
    assert (tree.totals.pods, tree.totals.gpus) == (3, 3)
    assert format_resources(tree.totals.resources) == {
        "cpu": "12",
        "memory": "72Gi",
        "nvidia.com/gpu": "3",
    }  # 3 x (4, 24Gi, 1)
    assert tree.pod_groups == []
    assert tree.phase == "Running"


def test_deployment_replicas_default_to_one(inspect_builtin):
    deployment = load_fixture("deployment-inference.yaml")
    del deployment["spec"]["replicas"]
    assert inspect_builtin(deployment).totals.pods == 1


def test_statefulset_one_podgroup_min_one(inspect_builtin):
    tree = inspect_builtin(load_fixture("statefulset.yaml"))
    assert (tree.totals.pods, tree.totals.gpus) == (4, 32)  # 4 x 8
    assert format_resources(tree.totals.resources)["memory"] == "1Ti"  # 4 x 256Gi
    [group] = tree.pod_groups
    assert (group.min_member, group.pods) == (1, 4)
    assert tree.phase == "Degraded"


# ------------------------------------------------------------------------------------ multi-document


def test_multi_document_file_with_configmap(builtin_catalog, fixtures_dir):
    results = inspect_file(str(fixtures_dir / "multi-doc-with-configmap.yaml"), catalog=builtin_catalog)
    assert len(results) == 2
    skipped, job = results
    assert skipped.tree is None and skipped.error is None
    assert "ConfigMap" in skipped.skipped and "train-config" in skipped.skipped
    assert job.error is None
    # Job: min(2, 2) = 2 pods x 2 GPUs
    assert (job.tree.totals.pods, job.tree.totals.gpus) == (2, 4)


def test_directory_of_fixtures_all_inspect(builtin_catalog, fixtures_dir):
    results = inspect_file(str(fixtures_dir), catalog=builtin_catalog)
    errors = [str(result.error) for result in results if result.error]
    assert errors == []
    kinds = {result.tree.workload.kind for result in results if result.tree}
    assert kinds >= {
        "Pod",
        "Job",
        "Deployment",
        "StatefulSet",
        "JobSet",
        "PyTorchJob",
        "MPIJob",
        "RayCluster",
        "LeaderWorkerSet",
    }


# ---------------------------------------------------------------------------------------- bad input


def test_unknown_kind_is_no_definition_error(inspect_builtin):
    with pytest.raises(NoDefinitionError) as caught:
        inspect_builtin({"apiVersion": "example.com/v1", "kind": "FrobnicatorJob", "metadata": {"name": "f"}})
    error = caught.value
    assert error.exit_code == 4
    assert error.kind == "FrobnicatorJob" and error.api_version == "example.com/v1"
    assert "FrobnicatorJob" in str(error)


def run_bad(builtin_catalog, bad_fixtures_dir, name):
    results = inspect_file(str(bad_fixtures_dir / name), catalog=builtin_catalog)
    errors = [result.error for result in results if result.error is not None]
    assert errors, f"{name} should fail"
    error = errors[0]
    text = str(error)
    assert "\n" not in text
    assert text.startswith(str(bad_fixtures_dir / name) + ", document #1")
    return error


def test_bad_unknown_kind_file(builtin_catalog, bad_fixtures_dir):
    error = run_bad(builtin_catalog, bad_fixtures_dir, "unknown-kind.yaml")
    assert isinstance(error, NoDefinitionError) and error.exit_code == 4
    assert "FrobnicatorJob" in str(error)


def test_bad_broken_yaml(builtin_catalog, bad_fixtures_dir):
    error = run_bad(builtin_catalog, bad_fixtures_dir, "broken-yaml.yaml")
    assert isinstance(error, InputError) and "invalid YAML" in str(error)


def test_bad_invalid_quantity(builtin_catalog, bad_fixtures_dir):
    error = run_bad(builtin_catalog, bad_fixtures_dir, "invalid-quantity.yaml")
    assert isinstance(error, QuantityError)
    assert error.field == "spec.template.spec.containers[0].resources.requests.cpu"
    assert "'2x'" in str(error)


def test_bad_replicas_not_a_number(builtin_catalog, bad_fixtures_dir):
    error = run_bad(builtin_catalog, bad_fixtures_dir, "replicas-not-a-number.yaml")
    assert isinstance(error, InputError)
    assert error.field == "spec.replicas" and "'abc'" in str(error)


def test_bad_containers_not_a_list(builtin_catalog, bad_fixtures_dir):
    error = run_bad(builtin_catalog, bad_fixtures_dir, "containers-not-a-list.yaml")
    assert isinstance(error, InputError)
    assert error.field == "spec.template.spec.containers"
    assert "(Job/bad-containers)" in str(error)


def test_bad_containers_in_instance_names_full_path(builtin_catalog, bad_fixtures_dir):
    # inside a multi-instance component the field is still the path from the document root
    error = run_bad(builtin_catalog, bad_fixtures_dir, "jobset-containers-not-a-list.yaml")
    assert error.field == "spec.replicatedJobs[0].template.spec.template.spec.containers"


def test_bad_missing_name(builtin_catalog, bad_fixtures_dir):
    error = run_bad(builtin_catalog, bad_fixtures_dir, "missing-name.yaml")
    assert isinstance(error, InputError) and error.field == "metadata.name"


def test_bad_template_without_spec(builtin_catalog, bad_fixtures_dir):
    error = run_bad(builtin_catalog, bad_fixtures_dir, "template-without-spec.yaml")
    assert isinstance(error, InputError) and error.field == "spec.template.spec"


def test_bad_files_never_raise(builtin_catalog, bad_fixtures_dir):
    # inspect_file reports problems per document; it never raises for bad input
    results = inspect_file(str(bad_fixtures_dir), catalog=builtin_catalog)
    assert all(isinstance(result.error, WorkloadMapError) or result.tree for result in results)


@pytest.mark.parametrize(
    ("resource", "field"),
    [
        ({"kind": "Pod", "metadata": {"name": "x"}}, "apiVersion"),
        ({"apiVersion": "v1", "metadata": {"name": "x"}}, "kind"),
        ({"apiVersion": "v1", "kind": "Pod"}, "metadata"),
        ({"apiVersion": "v1", "kind": "Pod", "metadata": "x"}, "metadata"),
        ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": 5}}, "metadata.name"),
        ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "namespace": 1}}, "metadata.namespace"),
    ],
)
def test_missing_identity_fields(inspect_builtin, resource, field):
    with pytest.raises(InputError) as caught:
        inspect_builtin(resource)
    assert caught.value.field == field


def test_not_a_mapping(inspect_builtin):
    with pytest.raises(InputError):
        inspect_builtin(["apiVersion", "v1"])


def test_generate_name_is_used_when_name_is_absent(inspect_builtin):
    job = load_fixture("job-parallel.yaml")
    job["metadata"] = {"generateName": "eval-"}
    assert inspect_builtin(job).workload.name == "eval-"


@pytest.mark.parametrize(
    ("replicas", "message"),
    [
        ("abc", "whole number"),
        (-1, "negative"),
        (2.5, "whole number"),
        (True, "number"),
        ([3], "whole number"),
        (10**9, "beyond"),
    ],
)
def test_bad_replica_counts(inspect_builtin, replicas, message):
    deployment = load_fixture("deployment-inference.yaml")
    deployment["spec"]["replicas"] = replicas
    with pytest.raises(InputError, match=message) as caught:
        inspect_builtin(deployment)
    assert caught.value.field == "spec.replicas"


@pytest.mark.parametrize(("replicas", "pods"), [("4", 4), (2.0, 2), (0, 0)])
def test_acceptable_replica_counts(inspect_builtin, replicas, pods):
    deployment = load_fixture("deployment-inference.yaml")
    deployment.pop("status")
    deployment["spec"]["replicas"] = replicas
    assert inspect_builtin(deployment).totals.pods == pods


def test_mixed_types_in_status_expressions_never_traceback(inspect_builtin):
    deployment = load_fixture("deployment-inference.yaml")  # has a status block
    deployment["spec"]["replicas"] = "4"
    try:
        tree = inspect_builtin(deployment)
    except WorkloadMapError:
        return  # refusing the input with a located error is fine too
    assert tree.totals.pods == 4


def test_duplicate_instance_names_refused(inspect_builtin):
    jobset = load_fixture("jobset-leader-workers.yaml")
    jobset["spec"]["replicatedJobs"][1]["name"] = "leader"
    with pytest.raises(InputError, match="more than once"):
        inspect_builtin(jobset)


def test_version_mismatch_is_a_warning_in_the_tree(inspect_builtin):
    jobset = load_fixture("jobset-leader-workers.yaml")
    jobset["apiVersion"] = "jobset.x-k8s.io/v1alpha3"
    tree = inspect_builtin(jobset)
    assert tree.totals.pods == 3
    assert any("v1alpha3" in warning for warning in tree.warnings)


def test_custom_gpu_resource_names(inspect_builtin):
    tree = inspect_builtin(load_fixture("raycluster.yaml"), gpu_resources=["google.com/tpu"])
    # tpu-group: 2 replicas x 2 hosts = 4 pods x 4 TPUs = 16
    assert tree.totals.gpus == 16


# ----------------------------------------------------------------- a user definition: generic features

WIDGET_DEFINITION = """\
name: widget
group: example.com
kind: Widget
versions: [v1]
components:
  - name: role
    instances: spec.roles
    replicas: replicas
    components:
      - name: member
        podTemplate: template
        replicas: members
        minReplicas: minMembers
        maxReplicas: maxMembers
gang:
  podGroups:
    - perInstance: role
"""

WIDGET = {
    "apiVersion": "example.com/v1",
    "kind": "Widget",
    "metadata": {"name": "w"},
    "spec": {
        "roles": {
            "prefill": {
                "replicas": 2,
                "members": 3,
                "minMembers": 2,
                "maxMembers": 5,
                "template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 2}}}]}},
            },
            "decode": {
                "replicas": 1,
                "members": 4,
                "template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}}]}},
            },
        }
    },
}


@pytest.fixture
def widget_catalog():
    return Catalog([parse_definition(WIDGET_DEFINITION, "widget.yaml")])


def test_map_instances_and_nested_replicas_multiply(widget_catalog):
    from workloadmap.interpreter import inspect

    tree = inspect(copy.deepcopy(WIDGET), catalog=widget_catalog)
    roles = {component.name: component for component in tree.components}
    assert list(roles) == ["prefill", "decode"]  # map keys, in document order
    prefill_member = roles["prefill"].components[0]
    # prefill: 2 role replicas x 3 members = 6 pods x 2 GPUs = 12; decode: 1 x 4 = 4 pods x 1 GPU = 4
    assert (prefill_member.pods, prefill_member.gpus, prefill_member.parent_replicas) == (6, 12, 2)
    assert prefill_member.min_pods == 4  # 2 role replicas x minMembers 2
    assert prefill_member.max_pods == 10  # 2 role replicas x maxMembers 5
    assert roles["prefill"].pods == 6 and roles["prefill"].has_pod_template is False
    assert (tree.totals.pods, tree.totals.gpus) == (10, 16)
    # one PodGroup per role instance; prefill gangs at minMembers: 2 x 2 = 4, decode 1 x 4 = 4
    assert [(group.name, group.min_member, group.pods) for group in tree.pod_groups] == [
        ("w-prefill", 4, 6),
        ("w-decode", 4, 4),
    ]


def test_no_definition_in_custom_catalog(widget_catalog):
    from workloadmap.interpreter import inspect

    with pytest.raises(NoDefinitionError):
        inspect(load_fixture("pod-sidecar.yaml"), catalog=widget_catalog)


@pytest.mark.parametrize(
    ("name", "phase"),
    [
        ("jobset-leader-workers.yaml", "Running"),  # both replicatedJobs have active pods
        ("jobset-inorder.yaml", "Completed"),  # Completed=True (AllJobsCompleted)
        ("pod-sidecar.yaml", "Running"),  # status.phase Running
        ("job-parallel.yaml", "Completed"),  # Complete=True
        ("deployment-inference.yaml", "Running"),  # 3/3 ready and updated at the observed generation
        ("statefulset.yaml", "Degraded"),  # 2/4 ready after a finished update
        ("pytorchjob-elastic.yaml", "Running"),  # Running=True
        ("mpijob.yaml", "Completed"),  # Succeeded=True
        ("raycluster.yaml", "Running"),  # state ready
        ("leaderworkerset.yaml", "Initializing"),  # Progressing=True, not yet Available
    ],
)
def test_fixture_phases(inspect_builtin, name, phase):
    assert inspect_builtin(load_fixture(name)).phase == phase


def test_documents_are_interpreted_in_batches_with_the_collector_paused_only_inside(monkeypatch):
    # inspect_documents pauses the cyclic collector while it interprets a batch and hands the
    # results out between batches with the collector as the caller had it (loader.paused_gc).
    import gc

    from workloadmap.documents import Document
    from workloadmap.interpreter import build

    body = load_fixture("jobset-leader-workers.yaml")
    documents = [Document(body=dict(body, metadata={"name": f"js-{i}"}), file="f", index=i) for i in range(5)]
    seen: list[tuple[str, bool]] = []
    real = build.inspect

    def recording(resource, **options):
        seen.append((resource["metadata"]["name"], gc.isenabled()))
        return real(resource, **options)

    monkeypatch.setattr(build, "_BATCH", 2)
    monkeypatch.setattr(build, "inspect", recording)
    assert gc.isenabled()
    handed = []
    for result in build.inspect_documents(documents):
        handed.append((result.tree.workload.name, gc.isenabled(), len(seen)))
    assert seen == [(f"js-{i}", False) for i in range(5)]
    # in order, the collector back on at every result, and each batch done before its first result
    assert handed == [("js-0", True, 2), ("js-1", True, 2), ("js-2", True, 4), ("js-3", True, 4), ("js-4", True, 5)]


def test_a_resource_changed_in_place_is_read_again(inspect_builtin):
    # The RayCluster definition reads the head group's KAI topology annotations through root() (one
    # value per resource, kept while the same resource is inspected); changing them in place and
    # inspecting the same dict again must give the head SubGroup the new constraint (KAI's ray
    # plugin takes it from the head group's pod template annotations).
    resource = load_fixture("raycluster.yaml")

    def head_constraint():
        tree = inspect_builtin(resource)
        return next(
            sub.topology_constraint for group in tree.pod_groups for sub in group.sub_groups if sub.name == "headgroup"
        )

    assert head_constraint().topology is None
    template = resource["spec"]["headGroupSpec"]["template"]
    annotations = template.setdefault("metadata", {}).setdefault("annotations", {})
    annotations["kai.scheduler/topology"] = "cluster-topology"
    annotations["kai.scheduler/topology-required-placement"] = "rack"
    constraint = head_constraint()
    assert (constraint.topology, constraint.required_level) == ("cluster-topology", "rack")
