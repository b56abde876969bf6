"""Defects a new user and outside test suites found (issue 25), each pinned by a test that failed before its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from helpers import FIXTURES_DIR

JOBSET = str(FIXTURES_DIR / "jobset-leader-workers.yaml")


# -- catalog export ----------------------------------------------------------------------------


def test_catalog_export_without_names_exports_every_definition(wmap, builtin_catalog):
    result = wmap("catalog", "export", "--format", "karta")
    assert result.exit_code == 0, result.output
    assert "internal error" not in result.output
    documents = [document for document in yaml.safe_load_all(result.stdout) if document]
    assert documents and all(document["kind"] == "Karta" for document in documents)
    # every built-in definition is in it (a definition gives one Karta per API version)
    assert len(documents) >= len(list(builtin_catalog))


# -- describe: the gang audit ------------------------------------------------------------------

LIVE = FIXTURES_DIR / "live"


def _objects_with_one_pod_pending(tmp_path) -> str:
    """The README's llm-train dump with the last worker unscheduled: 2 of minMember 3 pods bound."""
    documents = list(yaml.safe_load_all((LIVE / "llm-train-objects.yaml").read_text()))
    items = [item for document in documents for item in (document.get("items") or [document])]
    pending = next(i for i in items if i["kind"] == "Pod" and i["metadata"]["name"] == "llm-train-workers-0-1-klmnp")
    del pending["spec"]["nodeName"]
    pending["status"] = {"phase": "Pending"}
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(items))
    return str(path)


def test_describe_calls_a_gang_with_fewer_pods_than_min_member_incomplete(wmap, tmp_path):
    objects = _objects_with_one_pod_pending(tmp_path)
    args = ("describe", "-f", JOBSET, "--objects", objects, "--nodes", str(LIVE / "nvl72-nodes.yaml"))
    report = json.loads(wmap(*args, "-o", "json").stdout)
    gang = next(g for g in report["placement"]["podGroups"] if g["name"] == "llm-train" and not g["subGroup"])
    assert (gang["minMember"], gang["scheduledPods"]) == (3, 2)
    assert gang["incomplete"] is True and gang["satisfied"] is False
    assert gang["reason"].startswith("only 2 of minMember 3 pods scheduled")
    text = wmap(*args).stdout
    placement = " ".join(text[text.index("Placement") : text.index("Events")].split())
    # the two bound pods share one NVLink domain, which used to read "satisfied"
    assert "llm-train 2/3 scheduled in one accelerator.topograph.run/domain" in placement
    assert "INCOMPLETE: only 2 of minMember 3 pods scheduled" in placement
    # the PodGroup's own entry (up to its first SubGroup's) is never "satisfied"; a SubGroup whose pods all
    # run (the leader's, 1/1) may be
    own = placement[placement.index("llm-train 2/3") :].split(" llm-train/", 1)[0]
    assert "INCOMPLETE" in own and "satisfied" not in own


# -- namespace dumps ---------------------------------------------------------------------------


def _namespace_dump(tmp_path) -> str:
    """`kubectl get jobsets,jobs,pods,events -o yaml`: the JobSet, then its Jobs, pods and Events in one List."""
    jobset = yaml.safe_load(Path(JOBSET).read_text())
    jobset["metadata"]["uid"] = "00000000-0000-4000-8000-000000000009"  # the uid its Jobs' ownerReferences name
    objects = yaml.safe_load((LIVE / "llm-train-objects.yaml").read_text())
    objects["items"].insert(0, jobset)
    path = tmp_path / "namespace.yaml"
    path.write_text(yaml.safe_dump(objects))
    return str(path)


def test_a_namespace_dump_counts_each_pod_once_and_skips_events(wmap, tmp_path):
    result = wmap("inspect", _namespace_dump(tmp_path), "-o", "json")
    assert result.exit_code == 0, result.output  # Events are skipped, not "no definition" (exit 4)
    trees = json.loads(result.stdout)["items"]
    names = [f"{tree['workload']['kind']}/{tree['workload']['name']}" for tree in trees]
    assert names == ["JobSet/llm-train", "Job/nightly-eval"]  # the JobSet's Jobs and pods are part of it
    assert trees[0]["totals"]["gpus"] == 12  # 3 pods x 4 GPUs, not 24 with each pod counted again
    assert "note: " in result.stderr and "part of JobSet/llm-train of this input (its controller)" in result.stderr
    assert "Pod/llm-train-workers-0-1-klmnp): part of JobSet/llm-train" in result.stderr  # pod -> Job -> JobSet
    assert "Pod/nightly-eval-x7k2p): part of Job/nightly-eval" in result.stderr
    assert "skipped Event, not a workload" in result.stderr
    assert "no definition covers kind Event" not in result.stderr


def test_objects_made_by_a_workload_far_apart_in_a_stream_are_folded_in_either_order(wmap, tmp_path):
    """The input is read as it goes (128 documents at a time): an owner hundreds of documents before its
    Jobs and pods, or after them, still takes them in, and the workloads around them are unaffected."""
    dump = yaml.safe_load(Path(_namespace_dump(tmp_path)).read_text())
    jobset, rest = dump["items"][0], dump["items"][1:]
    padding = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"solo-{index}"},
            "spec": {"containers": [{"name": "c"}]},
        }
        for index in range(300)
    ]
    for items in ([jobset, *padding, *rest], [*rest, *padding, jobset]):
        path = tmp_path / "stream.yaml"
        path.write_text(yaml.safe_dump_all(items))
        result = wmap("inspect", str(path), "-o", "name")
        assert result.exit_code == 0, result.output
        names = result.stdout.splitlines()
        assert names.count("jobset.jobset.x-k8s.io/llm-train") == 1 and "job.batch/nightly-eval" in names
        assert len(names) == 302 and not any("llm-train-workers" in name for name in names)
        assert "Pod/llm-train-workers-0-1-klmnp): part of JobSet/llm-train" in result.stderr


def test_an_owner_outside_the_input_leaves_the_object_a_workload(wmap):
    """A pod whose Job is not in the input is read on its own, as before."""
    documents = yaml.safe_load((LIVE / "llm-train-objects.yaml").read_text())["items"]
    pod = next(item for item in documents if item["metadata"]["name"] == "llm-train-workers-0-0-bcdfg")
    result = wmap("inspect", "-", "-o", "name", stdin=yaml.safe_dump(pod))
    assert result.exit_code == 0 and result.stdout == "pod/llm-train-workers-0-0-bcdfg\n"


def test_a_nodelist_given_as_workloads_is_one_line(wmap, tmp_path):
    nodes = {
        "apiVersion": "v1",
        "kind": "List",  # what `kubectl get nodes -o yaml` writes
        "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}} for i in range(300)],
    }
    path = tmp_path / "nodes.yaml"
    path.write_text(yaml.safe_dump(nodes))
    for command in ("inspect", "place"):
        result = wmap(command, str(path))
        lines = [line for line in result.stderr.splitlines() if not line.startswith("note: no --topology")]
        assert lines == [f"error: {path}, document #1: this is a NodeList (300 nodes), not workloads; pass it with -t"]
        assert result.exit_code == 1


# -- standard input, read once -----------------------------------------------------------------

NODES = str(LIVE / "nvl72-nodes.yaml")


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        (("place", "-", "-t", "-"), "FILE and -t"),
        (("place", JOBSET, "-t", NODES, "--pods", "-", "--topology-object", "-"), "--pods and --topology-object"),
        (("inspect", "-", "-"), "FILE twice"),
        (("inspect", "-", "--related", "-"), "FILE and --related"),
        (("describe", "-f", "-", "--objects", "-"), "-f and --objects"),
        (("topology", "show", "-", "--pods", "-"), "SOURCE and --pods"),
        (("alter", "-", "--queue", "q", "--related", "-"), "FILE and --related"),
        (("suspend", "-", "-"), "FILE twice"),
        (("admit", "-", "--queues", "-"), "FILE and --queues"),
        (("capacity", JOBSET, "--queues", "-", "-t", "-"), "--queues and -t"),
    ],
)
def test_standard_input_given_twice_is_a_usage_error(wmap, arguments, named):
    """`cat nodes.yaml | wmap place - -t -` printed nothing and exited 0: the second reader found stdin empty."""
    result = wmap(*arguments, stdin=Path(NODES).read_text())
    assert result.exit_code == 2, result.output
    assert f"standard input (-) can be read only once; it is given for {named}" in result.output


def test_standard_input_once_still_works(wmap):
    result = wmap("place", "-", "-t", NODES, "-o", "json", stdin=Path(JOBSET).read_text())
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["workload"]["name"] == "llm-train"


# -- suspend --patch on a kind Kueue gates only at creation ------------------------------------

LWS = str(FIXTURES_DIR / "leaderworkerset.yaml")


def test_suspend_patch_refuses_a_kind_whose_gate_holds_only_new_objects(wmap):
    """Kueue refuses adding kueue.x-k8s.io/admission-gated-by to an existing object
    (pkg/util/webhook/validation_admissiongatedby.go): a patch adding it would be refused, so none is printed."""
    result = wmap("suspend", LWS, "--patch")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "an existing LeaderWorkerSet cannot be suspended by a patch" in result.stderr
    assert "kubectl scale leaderworkerset vllm-multihost --replicas=0" in result.stderr
    created = wmap("suspend", LWS)  # a manifest to create with the gate is still what it was
    assert created.exit_code == 0
    assert (
        "wmap.dev/suspend"
        in yaml.safe_load(created.stdout)["metadata"]["annotations"]["kueue.x-k8s.io/admission-gated-by"]
    )
    assert wmap("resume", LWS, "--patch").exit_code == 0  # removing the gate is allowed


# -- inspect -o table ----------------------------------------------------------------------------


def test_a_jobset_without_replicated_jobs_has_a_table_row(wmap):
    empty = "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: empty, namespace: ns}\nspec: {}\n"
    assert wmap("inspect", "-", "-o", "name", stdin=empty).stdout == "jobset.jobset.x-k8s.io/empty\n"
    for view, first in (("table", []), ("wide", ["ns"])):  # -o wide: NAMESPACE first, as kubectl get -A
        lines = wmap("inspect", "-", "-o", view, stdin=empty).stdout.splitlines()
        assert len(lines) == 2, lines  # the header and the workload's row
        assert lines[1].split()[:6] == [*first, "jobset/empty", "<none>", "Undefined", "0", "0", "0"][:6]


# -- a Karta among the workloads ---------------------------------------------------------------

KARTA = FIXTURES_DIR / "karta" / "trainer-karta.yaml"


def test_a_karta_in_an_inspected_directory_is_said_to_be_a_definition(wmap, tmp_path):
    (tmp_path / "karta.yaml").write_text(KARTA.read_text())
    (tmp_path / "jobset.yaml").write_text(Path(JOBSET).read_text())
    result = wmap("inspect", str(tmp_path), "-o", "name")
    assert result.stdout == "jobset.jobset.x-k8s.io/llm-train\n"
    assert result.exit_code == 1
    karta = tmp_path / "karta.yaml"
    assert result.stderr == (
        f"error: {karta}, document #1 (Karta/example-com-trainer-v1), field kind: this is a Karta, a definition "
        f"of how to read a workload kind, not a workload: pass it with --catalog {karta}\n"
    )
    assert "no definition covers kind Karta" not in result.stderr
    # as the error says: then the Karta is a definition, and the directory's workloads read with it
    followed = wmap("inspect", str(tmp_path), "-o", "name", "--catalog", str(karta))
    assert followed.exit_code == 0, followed.output
    assert "skipped Karta (a definition, read with --catalog)" in followed.stderr


# -- values the API server refuses are located errors --------------------------------------------


def _pod_requesting(cpu: str) -> str:
    container = {"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}
    return yaml.safe_dump(
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [container]}}
    )


def test_a_quantity_with_a_5000_digit_exponent_is_a_located_error(wmap):
    """Past Python's int-string limit (4,300 digits) int() raised ValueError: an "internal error"."""
    result = wmap("inspect", "-", stdin=_pod_requesting("1e" + "9" * 5000))
    assert result.exit_code == 1
    assert "internal error" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: -, document #1 (Pod/p), field spec.containers[0].resources.requests.cpu: ")
    assert line.endswith("exponent out of range") and len(line) < 200  # the value is shortened, not quoted whole


RAYJOB = """\
apiVersion: ray.io/v1
kind: RayJob
metadata: {name: neg}
spec:
  entrypoint: python train.py
  rayClusterSpec:
    headGroupSpec:
      template: {spec: {containers: [{name: head, image: ray}]}}
    workerGroupSpecs:
    - groupName: gpu
      replicas: REPLICAS
      minReplicas: 1
      maxReplicas: 4
      template: {spec: {containers: [{name: w, image: ray, resources: {limits: {nvidia.com/gpu: 1}}}]}}
"""


def test_a_rayjob_with_negative_worker_replicas_is_a_located_error(wmap):
    """Clamped into [minReplicas, maxReplicas], -3 used to read as 1 worker without a word."""
    result = wmap("inspect", "-", stdin=RAYJOB.replace("REPLICAS", "-3"))
    assert result.exit_code == 1
    assert result.stderr == (
        "error: -, document #1 (RayJob/neg), field spec.rayClusterSpec.workerGroupSpecs[0]: "
        "replicas of component workerGroup must not be negative, got -3\n"
    )
    minimum = wmap("inspect", "-", stdin=RAYJOB.replace("REPLICAS", "2").replace("minReplicas: 1", "minReplicas: -1"))
    assert (
        "workerGroupSpecs[0].minReplicas: minReplicas of component workerGroup must not be negative" in minimum.stderr
    )
    clamped = json.loads(wmap("inspect", "-", "-o", "json", stdin=RAYJOB.replace("REPLICAS", "9")).stdout)
    assert clamped["totals"]["gpus"] == 4  # above maxReplicas still clamped, as KubeRay does


# -- place --emit demand -------------------------------------------------------------------------


def test_every_demand_object_has_a_name_kubectl_apply_accepts(wmap, tmp_path):
    """`kubectl apply` refuses an object without metadata.name (generateName is for `kubectl create`)."""
    generated = tmp_path / "generated.yaml"
    generated.write_text(Path(JOBSET).read_text().replace("  name: llm-train\n", "  generateName: llm-train-\n"))
    result = wmap(
        "place", JOBSET, str(generated), str(FIXTURES_DIR / "leaderworkerset.yaml"), "--emit", "demand", "--allow-unfit"
    )
    assert result.exit_code == 0, result.output
    documents = [document for document in yaml.safe_load_all(result.stdout) if document]
    assert len(documents) == 3
    for document in documents:
        name = document["metadata"].get("name")
        assert name and "generateName" not in document["metadata"], document["metadata"]


# -- catalog validate and lint read standard input ----------------------------------------------


def test_exported_kartas_validate_and_lint_from_standard_input(wmap):
    """`wmap catalog export jobset | wmap catalog validate -`: "-" was read as a file named "-" (exit 1)."""
    exported = wmap("catalog", "export", "jobset")
    assert exported.exit_code == 0, exported.output
    validated = wmap("catalog", "validate", "-", stdin=exported.stdout)
    assert validated.exit_code == 0, validated.output
    assert validated.stdout.startswith("-: valid Karta jobset-x-k8s-io-jobset-v1alpha2 for JobSet")
    linted = wmap(
        "catalog", "lint", "-", "-o", "json", stdin=(FIXTURES_DIR.parent / "catalog" / "jobset.yaml").read_text()
    )
    assert linted.exit_code == 0, linted.output
    broken = wmap("catalog", "lint", "-", "-o", "json", stdin="kind: [\n")
    assert broken.exit_code == 1
    [finding] = json.loads(broken.stdout)["findings"]
    assert (finding["file"], finding["rule"]) == ("-", "schema")
    assert finding["message"].startswith("invalid YAML at line 2")
