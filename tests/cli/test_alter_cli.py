"""`wmap alter|suspend|resume` and `wmap place --emit pinned` from the command line."""

from __future__ import annotations

import json
import shlex

import yaml

from helpers import FIXTURES_DIR, load_fixture
from workloadmap.alter import Changes, Toleration, alter, apply_merge_patch
from workloadmap.documents import load_objects

MULTI = str(FIXTURES_DIR / "multi-doc-with-configmap.yaml")
JOBSET = str(FIXTURES_DIR / "jobset-leader-workers.yaml")


def _documents(text):
    return [document for document in yaml.safe_load_all(text) if document is not None]


def test_alter_prints_every_document_with_the_change(wmap):
    result = wmap("alter", MULTI, "--scheduler-name", "kai-scheduler", "--queue", "team-a")
    assert result.exit_code == 0, result.output
    configmap, job = _documents(result.stdout)
    original = [document.body for document in load_objects(MULTI)]
    assert configmap == original[0]  # passed through unchanged
    assert job == alter(original[1], Changes(scheduler_name="kai-scheduler", queue="team-a")).object
    # A multi-line string stays a literal block, as it was written.
    assert "config.yaml: |" in result.stdout


def test_alter_json_output(wmap):
    result = wmap("alter", JOBSET, "--pod-label", "team=a", "-o", "json")
    assert result.exit_code == 0, result.output
    obj = json.loads(result.stdout)
    assert obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]["labels"] == {"team": "a"}


def test_patch_prints_kubectl_patch_commands_that_give_the_altered_object(wmap):
    result = wmap("alter", JOBSET, "--toleration", "nvidia.com/gpu:NoSchedule", "--patch")
    assert result.exit_code == 0, result.output
    words = shlex.split(result.stdout)
    assert words[:7] == ["kubectl", "patch", "jobset.jobset.x-k8s.io", "llm-train", "-n", "research", "--type"]
    assert words[7:9] == ["merge", "-p"]
    original = load_fixture("jobset-leader-workers.yaml")
    expected = alter(original, Changes(tolerations=(Toleration.parse("nvidia.com/gpu:NoSchedule"),)))
    assert apply_merge_patch(original, json.loads(words[9])) == expected.object


def test_patch_as_data(wmap):
    result = wmap("suspend", JOBSET, "--patch", "-o", "yaml")
    assert result.exit_code == 0, result.output
    assert yaml.safe_load(result.stdout) == {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "namespace": "research",
        "name": "llm-train",
        "type": "merge",
        "patch": {"spec": {"suspend": True}},
    }


def test_a_replaced_value_is_warned_on_stderr(wmap):
    result = wmap("alter", JOBSET, "--scheduler-name", "kai-scheduler", "--component", "leader")
    assert result.exit_code == 0
    assert result.stderr == ""
    again = wmap("alter", "-", "--scheduler-name", "other", stdin=result.stdout)
    assert again.exit_code == 0
    assert "warning: JobSet/llm-train: component leader: schedulerName kai-scheduler replaced by other" in again.stderr


def test_a_document_that_cannot_take_the_change_is_left_unchanged_with_a_warning(wmap, tmp_path):
    both = tmp_path / "both.yaml"
    nimcache = (FIXTURES_DIR / "serving" / "nimcache.yaml").read_text()
    both.write_text((FIXTURES_DIR / "jobset-leader-workers.yaml").read_text() + "\n---\n" + nimcache)
    result = wmap("alter", str(both), "--scheduler-name", "kai-scheduler")
    assert result.exit_code == 0  # one document took the change (issue 25)
    jobset, cache = list(yaml.safe_load_all(result.stdout))
    assert (
        jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["schedulerName"] == "kai-scheduler"
    )
    assert cache == yaml.safe_load(nimcache)  # unchanged
    assert "warning: " in result.stderr and "document #2 (NIMCache/" in result.stderr
    assert "left unchanged: NIMCache component nimcache: no place for the pods' schedulerName" in result.stderr
    strict = wmap("alter", str(both), "--scheduler-name", "kai-scheduler", "--strict")  # all or nothing
    assert strict.exit_code == 1
    assert strict.stdout == ""
    assert "error: " in strict.stderr and "nothing printed" in strict.stderr
    alone = wmap("alter", str(FIXTURES_DIR / "serving" / "nimcache.yaml"), "--scheduler-name", "kai-scheduler")
    assert alone.exit_code == 1 and alone.stdout == ""  # none took it
    assert "no document could take the change" in alone.stderr


def test_usage_errors(wmap):
    assert wmap("alter", JOBSET).exit_code == 2  # nothing to change
    assert wmap("alter", JOBSET, "--label", "novalue").exit_code == 2
    assert wmap("alter", JOBSET, "--toleration", "gpu:Sometimes").exit_code == 2
    assert wmap("alter", JOBSET, "--scheduler-name", "Not A Name").exit_code == 2
    result = wmap("alter", JOBSET, "--scheduler-name", "x", "--component", "nope")
    assert result.exit_code == 1 and "no pod-bearing component named 'nope'" in result.stderr


def test_suspend_and_resume(wmap):
    stopped = wmap("suspend", JOBSET)
    assert stopped.exit_code == 0
    assert yaml.safe_load(stopped.stdout)["spec"]["suspend"] is True
    resumed = wmap("resume", "-", stdin=stopped.stdout)
    assert yaml.safe_load(resumed.stdout)["spec"]["suspend"] is False
    refused = wmap("suspend", str(FIXTURES_DIR / "deployment-inference.yaml"))
    assert refused.exit_code == 1
    assert "Deployment cannot be suspended" in refused.stderr


def test_resume_notes_a_removed_field(wmap, tmp_path):
    stopped = wmap("suspend", str(FIXTURES_DIR / "statefulset.yaml"))
    assert stopped.exit_code == 0 and "Kueue's admission gate" in stopped.stderr
    resumed = wmap("resume", "-", stdin=stopped.stdout)
    assert resumed.exit_code == 0
    assert "kubectl apply` removes a field only if it applied it before" in resumed.stderr


def test_place_emit_pinned(wmap):
    result = wmap("place", JOBSET, "--emit", "pinned")
    assert result.exit_code == 0, result.output
    pinned = yaml.safe_load(result.stdout)
    template = pinned["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]
    expression = template["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ][0]["matchExpressions"][0]
    assert expression["key"] == "accelerator.topograph.run/domain" and expression["operator"] == "In"


def test_printed_manifests_load_back_to_the_same_values():
    # Multi-line strings print as literal blocks when YAML allows it, quoted otherwise; either way
    # the printed manifest means the same.
    from workloadmap.cli.commands.alter import MANIFESTS, Printed

    objects = [
        {"script": "set -e\npython train.py\n", "spaced": "x \ny", "tab": "\tz\nw", "tail": "a\n\n", "n": "007"},
        {"kind": "ConfigMap", "data": {"true": "yes", "on": "1.0", "exp": "1e3", "oct": "0o17", "empty": ""}},
    ]
    text = MANIFESTS.text(MANIFESTS.parse(MANIFESTS.default), Printed(objects=objects))
    assert list(yaml.safe_load_all(text)) == objects
    # go-yaml v3 (YAML 1.2) reads a plain 1e3 as a number and 0o17 as 15: both quoted
    assert "exp: '1e3'" in text and "oct: '0o17'" in text
    assert json.loads(MANIFESTS.text(MANIFESTS.parse("json"), Printed(objects=objects)))["items"] == objects


def test_alter_clique_affinity(wmap, tmp_path):
    # a ComputeDomain workload (fixtures/companions/jobset-computedomain.yaml): the JobSet's pods get
    # the label and the required podAffinity on nvidia.com/gpu.clique; the companions are printed unchanged
    source = FIXTURES_DIR / "companions" / "jobset-computedomain.yaml"
    result = wmap("alter", str(source), "--clique-affinity")
    assert result.exit_code == 0, result.output
    documents = _documents(result.stdout)
    assert documents[:2] == _documents(source.read_text())[:2]
    pod = documents[2]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    assert pod["metadata"]["labels"] == {"wmap.dev/clique-group": "nvl-train"}
    assert pod["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [
        {
            "labelSelector": {"matchLabels": {"wmap.dev/clique-group": "nvl-train"}},
            "topologyKey": "nvidia.com/gpu.clique",
        }
    ]
