"""`wmap place --emit workload`: the gangs as Kubernetes' Workload API objects, the workload joined to them.

The shapes are kubernetes/api's: v1alpha1 ``WorkloadSpec.podGroups[] {name, policy}`` (api@v0.35.0
``scheduling/v1alpha1/types.go``), v1alpha2 ``podGroupTemplates[] {name, schedulingPolicy, schedulingConstraints}``
and ``PodGroupSpec.podGroupTemplateRef.workload {workloadName, podGroupTemplateName}`` (api@v0.36.0), 1.37
``PodGroupSpec.workloadRef {workloadName, templateName}`` (api master ``scheduling/v1beta1/types.go``), the pod's
``spec.schedulingGroup.podGroupName`` (``core/v1/types.go``). The PodGroup copies its template's policy
and constraints as the Job controller's ``podGroupSpecFromTemplate`` does
(``pkg/controller/job/job_scheduling_manager.go``).
"""

from __future__ import annotations

import pytest
import yaml

from helpers import FIXTURES_DIR
from helpers.placement import HOST, node, pod_set, tree
from workloadmap import export, inspect, place
from workloadmap.errors import PlacementError
from workloadmap.interpreter import ObjectIndex
from workloadmap.topology import Cluster, load_cluster

NATIVE = FIXTURES_DIR / "native"
RACKS = NATIVE / "racks.yaml"
LEVELS = ["zone", "rack", HOST]


def _job():
    return list(yaml.safe_load_all((NATIVE / "job-podgroup.yaml").read_text()))[2]


def _plain_job():
    job = _job()
    del job["spec"]["template"]["spec"]["schedulingGroup"]
    job["metadata"]["annotations"] = {"kai.scheduler/batch-min-member": "4"}  # the Job's own gang: 4 of 4
    return job


def _emit(obj, **options):
    workload = inspect(obj)
    report = place(workload, load_cluster(str(RACKS), levels=LEVELS), policy="kube-scheduler", required="rack")
    notes = []
    return export("workload", workload, report, obj=obj, notes=notes, **options), notes


def test_a_gang_becomes_a_workload_a_podgroup_and_the_joined_workload():
    (workload, podgroup, job), _ = _emit(_plain_job())
    assert (workload["apiVersion"], workload["kind"]) == ("scheduling.k8s.io/v1beta1", "Workload")
    assert workload["spec"]["controllerRef"] == {"apiGroup": "batch", "kind": "Job", "name": "training"}
    (template,) = workload["spec"]["podGroupTemplates"]
    assert template["schedulingPolicy"] == {"gang": {"minCount": 4}}
    assert template["schedulingConstraints"] == {"topology": [{"key": "rack"}]}
    assert podgroup["kind"] == "PodGroup" and podgroup["metadata"]["namespace"] == "some-ns"
    assert podgroup["spec"]["workloadRef"] == {"workloadName": "training", "templateName": template["name"]}
    assert podgroup["spec"]["schedulingPolicy"] == template["schedulingPolicy"]
    assert job["spec"]["template"]["spec"]["schedulingGroup"] == {"podGroupName": podgroup["metadata"]["name"]}
    assert job["spec"]["template"]["spec"]["containers"] == _plain_job()["spec"]["template"]["spec"]["containers"]


def test_the_emitted_objects_read_back_as_the_same_gang():
    # Round trip: the joined Job, with the emitted PodGroup beside it, takes the native gang (interpreter.native),
    # and the emitted Workload passes the API server's rules the Workload definition checks.
    (workload, podgroup, job), _ = _emit(_plain_job())
    (group,) = inspect(job, related=ObjectIndex([podgroup])).pod_groups
    assert (group.min_member, group.topology_constraint.required_level) == (4, "rack")
    assert inspect(workload).warnings == []


def test_v1alpha2_names_its_template_by_podgrouptemplateref():
    (workload, podgroup, _), _ = _emit(_plain_job(), api_version="v1alpha2")
    assert workload["apiVersion"] == "scheduling.k8s.io/v1alpha2"
    name = workload["spec"]["podGroupTemplates"][0]["name"]
    assert podgroup["spec"]["podGroupTemplateRef"] == {
        "workload": {"workloadName": "training", "podGroupTemplateName": name}
    }


def test_v1alpha1_lists_pod_groups_and_joins_by_workload_ref():
    # 1.35: no PodGroup objects; pods name the Workload and its group (workload-reference.md's spec.workloadRef).
    (workload, job), notes = _emit(_plain_job(), api_version="v1alpha1")
    assert workload["spec"]["podGroups"] == [{"name": "training", "policy": {"gang": {"minCount": 4}}}]
    assert job["spec"]["template"]["spec"]["workloadRef"] == {"name": "training", "podGroup": "training"}
    assert any("v1alpha1 has no topology constraints" in note for note in notes)
    # Read back: the Job joined to the emitted Workload takes its gang.
    (group,) = inspect(job, related=ObjectIndex([workload])).pod_groups
    assert group.min_member == 4


def test_an_unknown_version_is_refused():
    with pytest.raises(ValueError, match="v1alpha9"):
        _emit(_plain_job(), api_version="v1alpha9")


def test_the_native_objects_themselves_emit_nothing():
    podgroup = list(yaml.safe_load_all((NATIVE / "job-podgroup.yaml").read_text()))[1]
    objects, _ = _emit(podgroup)
    assert objects == []


def test_a_template_feeding_two_gangs_is_refused():
    shared = tree(
        [
            {"name": "a", "minMember": 2, "pods": 2, "podSets": [pod_set("job", 2, 0, 1)]},
            {"name": "b", "minMember": 2, "pods": 2, "podSets": [pod_set("job", 2, 0, 1)]},
        ],
        kind="Job",
    )
    cluster = Cluster(name="c", nodes=[node(f"n{i}", gpus=0) for i in range(4)], levels=[HOST])
    report = place(shared, cluster, policy="kube-scheduler")
    with pytest.raises(PlacementError, match="feeds gangs a, b"):
        export("workload", shared, report, obj=_plain_job())


def test_wmap_place_emits_the_native_objects(tmp_path):
    from typer.testing import CliRunner

    from workloadmap.cli.main import app

    manifest = tmp_path / "job.yaml"
    manifest.write_text(yaml.safe_dump(_plain_job()))
    args = ["place", str(manifest), "-t", str(RACKS), "--levels", ",".join(LEVELS), "--policy", "kube-scheduler"]
    args += ["--required", "rack"]
    result = CliRunner().invoke(app, [*args, "--emit", "workload", "--api-version", "v1alpha2"])
    assert result.exit_code == 0, result.output
    kinds = [document["kind"] for document in yaml.safe_load_all(result.stdout)]
    assert kinds == ["Workload", "PodGroup", "Job"]


def test_wmap_alter_joins_pod_templates_to_a_podgroup(tmp_path):
    from typer.testing import CliRunner

    from workloadmap.cli.main import app

    manifest = tmp_path / "job.yaml"
    manifest.write_text(yaml.safe_dump(_plain_job()))
    result = CliRunner().invoke(app, ["alter", str(manifest), "--scheduling-group", "training-worker-0"])
    assert result.exit_code == 0, result.output
    (job,) = yaml.safe_load_all(result.stdout)
    assert job["spec"]["template"]["spec"]["schedulingGroup"] == {"podGroupName": "training-worker-0"}


def test_wmap_alter_joins_pod_templates_to_a_v1alpha1_workload(tmp_path):
    from typer.testing import CliRunner

    from workloadmap.cli.main import app

    manifest = tmp_path / "job.yaml"
    manifest.write_text(yaml.safe_dump(_plain_job()))
    result = CliRunner().invoke(app, ["alter", str(manifest), "--workload-ref", "training-job-workload/workers"])
    assert result.exit_code == 0, result.output
    (job,) = yaml.safe_load_all(result.stdout)
    assert job["spec"]["template"]["spec"]["workloadRef"] == {"name": "training-job-workload", "podGroup": "workers"}
    bad = CliRunner().invoke(app, ["alter", str(manifest), "--workload-ref", "no-slash"])
    assert bad.exit_code == 2 and "WORKLOAD/PODGROUP" in bad.output
