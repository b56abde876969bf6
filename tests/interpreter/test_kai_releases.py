"""Gangs as older KAI Scheduler releases form them (``--kai-version``; kai-scheduler/KAI-Scheduler tags).

Every expected value comes from the pod-grouper's unit tests at the tag named beside each case
(``pkg/podgrouper/podgrouper/plugins/<plugin>/<file>_test.go``); which release has which change comes
from the plugins' code at each tag (docs/kai-releases.md lists them). The default, the newest release,
is what every other test of the suite checks.
"""

from __future__ import annotations

import copy
import json

import pytest

from helpers import FIXTURES_DIR
from helpers.fastpath import through
from workloadmap.documents import load_yaml_text
from workloadmap.interpreter import ObjectIndex
from workloadmap.kai_releases import (
    DEFAULT_KAI_RELEASE,
    KAI_CHANGES,
    KAI_RELEASES,
    kai_has,
    parse_kai_version,
    with_kai_release,
)

POD = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}


def replicated_job(name, replicas, parallelism, completions=None):
    """jobset_grouper_test.go's replicatedJob(name, replicas, parallelism) helper (v0.14.0 .. v0.15.3)."""
    spec = {"parallelism": parallelism, "template": copy.deepcopy(POD)}
    if completions is not None:
        spec["completions"] = completions
    return {"name": name, "replicas": replicas, "template": {"spec": spec}}


def jobset(name, *replicated_jobs, order=None, annotations=None):
    """baseJobSet(name, "default", uid, ...), with the startupPolicy a test sets."""
    metadata = {"name": name, "namespace": "default", "uid": f"uid-{name}"}
    if annotations:
        metadata["annotations"] = annotations
    spec = {"replicatedJobs": list(replicated_jobs)}
    if order:
        spec["startupPolicy"] = {"startupPolicyOrder": order}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": metadata, "spec": spec}


def batch_job(parallelism):
    """job_grouper_test.go's owner: a Job of spec.parallelism pods."""
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "test-name", "namespace": "default", "uid": "1234-5678"},
        "spec": {"parallelism": parallelism, "template": copy.deepcopy(POD)},
    }


def groups_at(inspect_builtin, version, resource, **kwargs):
    """The tree of ``resource`` as KAI ``version`` makes it, and its PodGroups as (name, minMember, SubGroups)."""
    with with_kai_release(version):
        tree = inspect_builtin(resource, **kwargs)
    return tree, [(group.name, group.min_member, len(group.sub_groups)) for group in tree.pod_groups]


# ------------------------------------------------------------------------------------- the release table


def test_a_line_stands_for_its_newest_patch():
    # The tags of kai-scheduler/KAI-Scheduler: v0.14.7, v0.15.3, v0.16.8 and v0.17.0 end their lines.
    assert [KAI_RELEASES[line].tag for line in KAI_RELEASES] == ["v0.14.7", "v0.15.3", "v0.16.8", "v0.17.0"]
    assert DEFAULT_KAI_RELEASE == "0.17"
    assert parse_kai_version("0.16").tag == "v0.16.8"
    assert parse_kai_version("v0.16.3").tag == "v0.16.3"
    assert parse_kai_version("0.14.0").version == (0, 14, 0)


@pytest.mark.parametrize("text", ["0.13", "0.14.8", "0.18", "1", "latest", ""])
def test_an_unknown_version_is_refused(text):
    with pytest.raises(ValueError, match="unknown KAI version"):
        parse_kai_version(text)


@pytest.mark.parametrize(
    ("change", "version", "has"),
    [
        # job_grouper.go: pg-<pod>-<uid> at v0.14.0, pg-<job>-<uid> from v0.14.1 (#1444, the backport of #1443)
        ("job-podgroup", "0.14.0", False),
        ("job-podgroup", "0.14.1", True),
        ("job-podgroup", "0.15.0", True),
        # jobset_grouper.go: replicas x min(parallelism, completions) to v0.14.7, 1 from v0.15.0
        ("jobset-min-member-one", "0.14.7", False),
        ("jobset-min-member-one", "0.15.0", True),
        # grove_grouper.go parseGroupTopologyConfig: MinSubGroup from v0.15.2 (#1676, backport of #1642) and v0.16.0
        ("grove-parent-min-subgroup", "0.15.1", False),
        ("grove-parent-min-subgroup", "0.15.2", True),
        ("grove-parent-min-subgroup", "0.14.7", False),
        ("grove-parent-min-subgroup", "0.16.0", True),
        # jobset/legacy_grouper.go appears at v0.16.0 (#1617)
        ("jobset-subgroups", "0.15.3", False),
        ("jobset-subgroups", "0.16.0", True),
        # pod_controller.go shouldSkipPodGrouper appears at v0.15.0 (#1552)
        ("skip-podgrouper", "0.14.7", False),
        ("skip-podgrouper", "0.15.0", True),
        # #1989 (minMember 0) is on main after v0.17.0, in no tag
        ("min-member-zero", "0.17.0", False),
    ],
)
def test_which_release_has_which_change(change, version, has):
    with with_kai_release(version):
        assert kai_has(change) is has


def test_every_change_names_its_pull_request():
    assert all(change.pull.startswith(("#", "v0.")) for change in KAI_CHANGES.values())


def test_an_unknown_change_in_a_definition_is_refused():
    from pydantic import ValidationError

    from workloadmap.definitions import PodGroupRule

    with pytest.raises(ValidationError, match="unknown KAI change 'jobset-levels'"):
        PodGroupRule.model_validate({"kaiBefore": "jobset-levels"})


# ------------------------------------------------------------------------------------- batch Job


def test_a_job_at_v0_14_0_is_one_podgroup_per_pod(inspect_builtin):
    # v0.14.0 job_grouper_test.go TestGetPodGroupMetadata_Hpo: a Job of parallelism 2, two pods, two PodGroups
    # (pg-test_name-4kgrb-1234-5678 and pg-test_name-77t4m-1234-5678), each of the default grouper's minMember 1.
    tree, groups = groups_at(inspect_builtin, "0.14.0", batch_job(2))
    assert (tree.grouping.value, tree.pod_group_count, groups) == ("perPod", 2, [])
    assert tree.kai_version == "0.14.0"


@pytest.mark.parametrize("version", ["0.14.1", "0.14", "0.15", "0.16", "0.17"])
def test_a_job_from_v0_14_1_is_one_podgroup(inspect_builtin, version):
    # v0.14.1 job_grouper_test.go TestGetPodGroupMetadata_MultiPodJobSharesPodGroup: both pods share
    # pg-test_name-1234-5678, minMember 1 (the same test at v0.15.3, v0.16.8 and v0.17.0).
    tree, groups = groups_at(inspect_builtin, version, batch_job(2))
    assert (tree.grouping.value, tree.pod_group_count, groups) == ("gang", 1, [("test-name", 1, 0)])


# ------------------------------------------------------------------------------------- JobSet


LEADER_WORKERS = (replicated_job("leader", 1, 1), replicated_job("worker", 2, 4))


@pytest.mark.parametrize(
    ("version", "resource", "expected", "test"),
    [
        # v0.14.0 jobset_grouper_test.go: InOrder, a PodGroup per replicatedJob of replicas x parallelism
        (
            "0.14.0",
            jobset("inorder-jobset", *LEADER_WORKERS, order="InOrder"),
            [("inorder-jobset-leader", 1, 0), ("inorder-jobset-worker", 8, 0)],
            "TestGetPodGroupMetadata_StartupPolicyOrderInOrder",
        ),
        (
            "0.14.0",
            jobset("anyorder-jobset", *LEADER_WORKERS, order="AnyOrder"),
            [("anyorder-jobset", 9, 0)],
            "TestGetPodGroupMetadata_StartupPolicyOrderNotInOrder",
        ),
        (
            # KAI's test gives no startupPolicy, which KAI v0.14 reads as InOrder: InOrder said here
            "0.14.0",
            jobset(
                "multi-role-jobset", replicated_job("leader", 1, 1), replicated_job("worker", 3, 8), order="InOrder"
            ),
            [("multi-role-jobset-leader", 1, 0), ("multi-role-jobset-worker", 24, 0)],
            "TestGetPodGroupMetadata_MultipleReplicatedJobs",
        ),
        (
            "0.14.0",
            jobset("completions-test", replicated_job("worker", 2, 4, completions=3), order="InOrder"),
            [("completions-test-worker", 6, 0)],
            "TestGetPodGroupMetadata_CompletionsLessThanParallelism",
        ),
        (
            "0.14.0",
            jobset("completions-gt", replicated_job("worker", 3, 2, completions=5), order="InOrder"),
            [("completions-gt-worker", 6, 0)],
            "TestGetPodGroupMetadata_CompletionsGreaterThanParallelism",
        ),
        # v0.14.1 (the line's newest patch too): kai.scheduler/batch-min-member replaces the count
        (
            "0.14",
            jobset(
                "override-jobset",
                replicated_job("worker", 2, 4),
                order="InOrder",
                annotations={"kai.scheduler/batch-min-member": "3"},
            ),
            [("override-jobset-worker", 3, 0)],
            "TestGetPodGroupMetadata_MinMemberOverride",
        ),
        (
            "0.14.1",
            jobset(
                "override-anyorder",
                *LEADER_WORKERS,
                order="AnyOrder",
                annotations={"kai.scheduler/batch-min-member": "5"},
            ),
            [("override-anyorder", 5, 0)],
            "TestGetPodGroupMetadata_MinMemberOverrideAnyOrder",
        ),
        (
            "0.14",
            jobset("anyorder-jobset", *LEADER_WORKERS, order="AnyOrder"),
            [("anyorder-jobset", 9, 0)],
            "TestGetPodGroupMetadata_StartupPolicyOrderNotInOrder",
        ),
        # v0.15.3 jobset_grouper_test.go: minMember 1 unless batch-min-member says otherwise
        (
            "0.15",
            jobset("inorder-jobset", *LEADER_WORKERS, order="InOrder"),
            [("inorder-jobset-leader", 1, 0), ("inorder-jobset-worker", 1, 0)],
            "TestGetPodGroupMetadata_StartupPolicyOrderInOrder",
        ),
        (
            "0.15",
            jobset("anyorder-jobset", *LEADER_WORKERS, order="AnyOrder"),
            [("anyorder-jobset", 1, 0)],
            "TestGetPodGroupMetadata_StartupPolicyOrderNotInOrder",
        ),
        (
            "0.15.0",
            jobset(
                "override-anyorder",
                *LEADER_WORKERS,
                order="AnyOrder",
                annotations={"kai.scheduler/batch-min-member": "5"},
            ),
            [("override-anyorder", 5, 0)],
            "TestGetPodGroupMetadata_MinMemberOverrideAnyOrder",
        ),
    ],
)
def test_a_jobset_before_v0_16_is_flat(inspect_builtin, version, resource, expected, test):
    _, groups = groups_at(inspect_builtin, version, resource)
    assert groups == expected, test


def test_an_unparseable_batch_min_member_before_v0_16_is_refused(inspect_builtin):
    # v0.15.3 jobset_grouper_test.go TestGetPodGroupMetadata_MinMemberOverrideInvalid: GetPodGroupMetadata errs
    resource = jobset(
        "invalid-override",
        replicated_job("worker", 1, 2),
        order="AnyOrder",
        annotations={"kai.scheduler/batch-min-member": "not-a-number"},
    )
    with with_kai_release("0.15"):
        tree = inspect_builtin(resource)
    assert any("refuses the JobSet" in warning for warning in tree.warnings)


@pytest.mark.parametrize("version", ["0.16.0", "0.16", "0.17"])
def test_a_jobset_from_v0_16_is_one_podgroup_with_subgroups(inspect_builtin, version):
    # v0.16.0 jobset_grouper_test.go TestMultipleReplicatedJobsAnyOrder (the same at v0.17.0): one PodGroup of
    # root minSubGroup 2 (the replicatedJobs), a parent per replicatedJob and a leaf per replica
    with with_kai_release(version):
        (group,) = inspect_builtin(jobset("js", *LEADER_WORKERS, order="AnyOrder")).pod_groups
    data = group.to_dict()
    assert (data["minSubGroup"], "minMember" in data) == (2, False)
    # (in any order: wmap lists the parents first, a kept difference the catalog notes say)
    assert sorted(sub["name"] for sub in data["subGroups"]) == [
        "leader", "leader-replica-0", "worker", "worker-replica-0", "worker-replica-1"
    ]  # fmt: skip


# ------------------------------------------------------------------------------------- skip-podgrouper


def _skip_documents():
    fixture = FIXTURES_DIR / "kai" / "skip-podgrouper-job.yaml"
    podgroup, job = (doc.body for doc in load_yaml_text(fixture.read_text(), str(fixture)))
    return podgroup, job


def test_skip_podgrouper_is_not_read_before_v0_15(inspect_builtin):
    # kai.scheduler/skip-podgrouper arrives with #1552 in v0.15.0 (pod_controller.go shouldSkipPodGrouper; no such
    # code at v0.14.7): there the Job grouper makes its PodGroup (v0.14.1 job_grouper_test.go
    # TestGetPodGroupMetadata_MultiPodJobSharesPodGroup: one PodGroup of minMember 1).
    podgroup, job = _skip_documents()
    _, groups = groups_at(inspect_builtin, "0.14", job, related=ObjectIndex([podgroup]))
    assert groups == [(job["metadata"]["name"], 1, 0)]
    _, groups = groups_at(inspect_builtin, "0.15", job, related=ObjectIndex([podgroup]))
    assert groups == [("aliased-topology-job", 3, 0)]  # the user's PodGroup (TestReconcileSkipsAnnotatedOwner)


# ------------------------------------------------------------------------------------- command line


JOBSET_TEXT = json.dumps(jobset("anyorder-jobset", *LEADER_WORKERS, order="AnyOrder"))


@pytest.mark.parametrize("path", ["console", "typer"])
def test_the_command_line_says_which_model_made_the_gangs(path):
    out, err, code = through(path, "inspect", ["-", "--kai-version", "0.15", "-o", "json"], JOBSET_TEXT)
    data = json.loads(out)
    assert (code, err, data["kaiVersion"]) == (0, "", "0.15.3")
    assert [(group["name"], group["minMember"]) for group in data["podGroups"]] == [("anyorder-jobset", 1)]
    out, _, code = through(path, "inspect", ["-", "-o", "json"], JOBSET_TEXT)
    assert (code, json.loads(out)["kaiVersion"]) == (0, "0.17.0")


def test_the_environment_variable_sets_the_release(monkeypatch):
    monkeypatch.setenv("WMAP_KAI_VERSION", "0.14.0")
    out, _, code = through("console", "inspect", ["-", "-o", "json"], JOBSET_TEXT)
    data = json.loads(out)
    assert (code, data["kaiVersion"], data["podGroups"][0]["minMember"]) == (0, "0.14.0", 9)


@pytest.mark.parametrize("path", ["console", "typer"])
@pytest.mark.parametrize("command", ["inspect", "place"])
def test_an_unknown_release_is_a_usage_error(path, command):
    arguments = ["-", "--kai-version", "0.13"] + (["-t", "preset:nvl72-4rack"] if command == "place" else [])
    _, err, code = through(path, command, arguments, JOBSET_TEXT)
    assert code == 2
    (line,) = [line for line in err.splitlines() if "KAI version" in line]
    assert "unknown KAI version '0.13': wmap models 0.14" in line


def test_place_models_the_release(wmap, tmp_path):
    path = tmp_path / "jobset.yaml"
    path.write_text(JOBSET_TEXT)
    # v0.14.7 jobset_grouper.go (as v0.14.1's TestGetPodGroupMetadata_StartupPolicyOrderNotInOrder): minMember 9
    arguments = ["-t", "preset:nvl72-4rack", "--policy", "kai", "--kai-version", "0.14", "-o", "json"]
    done = wmap("place", str(path), *arguments)
    assert done.exit_code == 0, done.output
    report = json.loads(done.output)
    assert [(group["name"], group["minMember"]) for group in report["podGroups"]] == [("anyorder-jobset", 9)]


@pytest.mark.parametrize("command", ["inspect", "describe", "get", "place"])
def test_help_lists_the_releases(wmap, command):
    done = wmap(command, "--help")
    assert "--kai-version" in done.output and "0.14" in done.output and "0.17" in done.output
