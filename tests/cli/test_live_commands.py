"""`wmap describe` and `wmap get` against the stand-in API server, with objects as the operators make them.

Every workload is played through its operator (:mod:`helpers.operators`): JobSet -> Jobs -> pods,
LWS -> StatefulSets -> pods, RayCluster -> pods, PyTorchJob -> pods, PodCliqueSet -> PodCliques
-> pods, with nodes, events, pending pods, another workload's pods and a bare pod in the same
namespace. The ``fake_cluster`` fixture fails any test whose client sent anything but GET.
"""

from __future__ import annotations

import json
import threading
import time
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from typer.testing import CliRunner

from helpers import FIXTURES_DIR
from helpers.operators import LiveCluster, fill
from workloadmap.cli.main import app

runner = CliRunner()

WORKLOADS = {
    "jobset/llm-train": ("jobset-leader-workers.yaml", "run_jobset"),
    "lws/vllm-multihost": ("leaderworkerset.yaml", "run_lws"),
    "raycluster/ray-mixed": ("raycluster.yaml", "run_raycluster"),
    "pytorchjob/elastic-train": ("pytorchjob-elastic.yaml", "run_pytorchjob"),
    "pcs/scaled": ("grove/podcliqueset-scaling-group.yaml", "run_podcliqueset"),
}


def _run(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def _manifest(fixture: str) -> dict:
    return next(doc for doc in yaml.safe_load_all((FIXTURES_DIR / fixture).read_text()) if doc and doc.get("spec"))


def _cluster(ref: str, *, pending: int = 1) -> tuple[LiveCluster, dict]:
    fixture, method = WORKLOADS[ref]
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(2)
    manifest = _manifest(fixture)
    manifest["metadata"] = {**manifest["metadata"], "name": ref.split("/")[1], "namespace": "ml"}
    workload = cluster.workload(manifest)
    count = [0]

    def place(name: str, labels: dict) -> str | None:
        count[0] += 1
        return None if count[0] <= pending else nodes[count[0] % len(nodes)]

    getattr(cluster, method)(workload, place)
    other = cluster.workload({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "unrelated"}, "spec": {}})
    cluster.pod("unrelated-x", other, {}, None, fill(nodes))
    cluster.pod("debug", None, {}, None, fill(nodes))
    cluster.event(workload, "Created", "the operator created the workload's objects")
    cluster.event(cluster.pods()[0], "FailedScheduling", "0/36 nodes are available", kind="Warning")
    return cluster, workload


def _serve(server, cluster: LiveCluster) -> None:
    server.add_all(cluster.objects)
    server.add_all(cluster.nodes)


@pytest.mark.parametrize("ref", sorted(WORKLOADS))
def test_describe_from_the_cluster(fake_cluster, ref):
    cluster, _ = _cluster(ref)
    _serve(fake_cluster.server, cluster)
    kubeconfig = str(fake_cluster.kubeconfig)
    result = _run("describe", ref, "-n", "ml", "--kubeconfig", kubeconfig, "-o", "json", "--chunk-size", "3")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    for key in (
        "workload",
        "definition",
        "phase",
        "phases",
        "totals",
        "podGroups",
        "components",
        "unattributedPods",
        "events",
        "placement",
    ):
        assert key in report, key
    names = set()

    def walk(components):
        for component in components:
            assert set(component) >= {"name", "replicas", "gpus", "nodes", "pods", "components"}
            assert set(component["replicas"]) == {"desired", "current", "ready"}
            names.update(pod["name"] for pod in component["pods"])
            walk(component["components"])

    walk(report["components"])
    assert names == set(cluster.expected)  # every pod the operator made, none of the others
    assert report["unattributedPods"] == []
    pending = [pod for c in report["components"] for s in [c, *c["components"]] for pod in s["pods"] if not pod["node"]]
    assert [(pod["phase"], pod["reason"]) for pod in pending] == [("Pending", "Unschedulable")]
    assert report["events"][0]["reason"] == "FailedScheduling"  # the newest first
    assert report["placement"]["levels"][-1] == "kubernetes.io/hostname"
    pod_lists = [
        parse_qs(urlsplit(path).query)
        for _, path in fake_cluster.server.requests
        if urlsplit(path).path == "/api/v1/namespaces/ml/pods"
    ]
    assert pod_lists[0]["limit"] == ["3"] and "continue" in pod_lists[1]  # paged by --chunk-size


def test_describe_tree_view_shows_pods_reasons_audit_and_events(fake_cluster):
    cluster, _ = _cluster("lws/vllm-multihost")
    _serve(fake_cluster.server, cluster)
    result = _run("describe", "lws", "vllm-multihost", "-n", "ml", "--kubeconfig", str(fake_cluster.kubeconfig))
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert text.startswith("LeaderWorkerSet/vllm-multihost  namespace ml")
    assert "Unschedulable: 0/8 nodes are available" in text
    assert "Placement (levels " in text and "Events (newest first):" in text
    assert "FailedScheduling" in text


def test_describe_offline_matches_the_cluster(fake_cluster, tmp_path):
    cluster, workload = _cluster("jobset/llm-train")
    _serve(fake_cluster.server, cluster)
    live = json.loads(
        _run(
            "describe", "jobset/llm-train", "-n", "ml", "--kubeconfig", str(fake_cluster.kubeconfig), "-o", "json"
        ).stdout
    )
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(workload))
    others = [obj for obj in cluster.objects if obj is not workload]
    (tmp_path / "objects.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": others}))
    (tmp_path / "nodes.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "kind": "NodeList", "items": cluster.nodes})
    )
    files = [str(tmp_path / name) for name in ("w.yaml", "objects.yaml", "nodes.yaml")]
    offline = _run("describe", "-f", files[0], "--objects", files[1], "--nodes", files[2], "-o", "json")
    assert offline.exit_code == 0, offline.stderr
    report = json.loads(offline.stdout)
    for key in ("components", "unattributedPods", "events", "placement", "podGroups"):
        assert report[key] == live[key], key


def test_describe_a_file_alone_has_no_pods():
    result = _run("describe", "-f", str(FIXTURES_DIR / "jobset-leader-workers.yaml"), "-o", "yaml")
    assert result.exit_code == 0, result.stderr
    report = yaml.safe_load(result.stdout)
    assert report["podsRead"] is False and report["placement"] is None and report["events"] == []
    assert [c["replicas"] for c in report["components"]] == [
        {"desired": 1, "current": None, "ready": None},
        {"desired": 2, "current": None, "ready": None},
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["describe"],
        ["describe", "jobset/x", "-f", "x.yaml"],
        ["describe", "-f", "x.yaml", "--nodes", "n.yaml"],
        ["describe", "jobset/x", "-l", "team=ml"],
        ["describe", "jobsets", "-l", "team in"],
    ],
)
def test_describe_usage_errors_exit_2(args):
    assert _run(*args).exit_code == 2


def test_describe_not_found_is_one_line(fake_cluster):
    result = _run("describe", "jobset/missing", "-n", "ml", "--kubeconfig", str(fake_cluster.kubeconfig))
    assert result.exit_code == 1
    assert result.stderr == 'error: jobsets.jobset.x-k8s.io "missing" not found in namespace ml\n'


# -- wmap get -----------------------------------------------------------------------------------------


def _rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def test_get_counts_ready_pods_as_describe_attributes_them(fake_cluster):
    cluster, _ = _cluster("jobset/llm-train")  # 3 pods, the first one pending
    _serve(fake_cluster.server, cluster)
    result = _run("get", "jobsets", "-n", "ml", "--kubeconfig", str(fake_cluster.kubeconfig), "-o", "wide")
    assert result.exit_code == 0, result.stderr
    header, row = _rows(result.stdout)
    assert header == ["NAME", "PHASE", "PODS", "GPUS", "AGE", "DEFINITION", "SCHEDULED", "GANGS"]
    assert row[:4] == ["llm-train", "Running", "2/3", "12"]
    # one PodGroup of 3 pods with a SubGroup per replicatedJob and a leaf per replica (KAI v0.16+ jobset grouper);
    # no native PodGroup, so no PodGroupScheduled
    assert row[5:] == ["jobset", "-", "1", "PodGroup", "min", "3", "(4", "subgroups)"]


def test_get_all_lists_top_level_workloads_only(fake_cluster):
    cluster, _ = _cluster("jobset/llm-train")
    deployment = cluster.workload(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "w", "image": "x"}]}}},
        }
    )
    replicaset = cluster.owned("apps/v1", "ReplicaSet", "web-5d8f", deployment)
    cluster.pod("web-5d8f-abcde", replicaset, {}, None, fill(["gb-r0-n00"]))
    _serve(fake_cluster.server, cluster)
    result = _run("get", "all", "-n", "ml", "--kubeconfig", str(fake_cluster.kubeconfig), "-o", "name")
    assert result.exit_code == 0, result.stderr
    # Not the Jobs (a JobSet owns them), the ReplicaSet (a Deployment) or any owned pod; the ownerless
    # pod and the uncovered owner's (a Job named unrelated is itself a workload) are listed.
    assert sorted(result.stdout.split()) == [
        "deployment.apps/web",
        "job.batch/unrelated",
        "jobset.jobset.x-k8s.io/llm-train",
        "pod/debug",
    ]


def test_get_selectors_phases_and_several_types(fake_cluster):
    server = fake_cluster.server
    for name, phase, team in [("a", "Running", "ml"), ("b", "Failed", "ml"), ("c", "Running", "infra")]:
        manifest = _manifest("jobset-leader-workers.yaml")
        manifest["metadata"] = {"name": name, "namespace": "ml", "labels": {"team": team}}
        manifest["status"] = {
            "conditions": [{"type": phase if phase == "Failed" else "Completed", "status": "False"}],
            "replicatedJobsStatus": [{"name": "leader", "active": 1}],
        }
        if phase == "Failed":
            manifest["status"]["conditions"] = [{"type": "Failed", "status": "True"}]
        server.add(manifest)
    lws = _manifest("leaderworkerset.yaml") | {"metadata": {"name": "l", "namespace": "ml", "labels": {"team": "ml"}}}
    server.add(lws)
    kubeconfig = str(fake_cluster.kubeconfig)
    by_label = _run("get", "jobsets", "-n", "ml", "-l", "team=ml", "--kubeconfig", kubeconfig, "-o", "name")
    assert by_label.stdout.split() == ["jobset.jobset.x-k8s.io/a", "jobset.jobset.x-k8s.io/b"]
    assert parse_qs(urlsplit(server.requests[-2][1]).query).get("labelSelector") == ["team=ml"] or any(
        "labelSelector=team%3Dml" in path for _, path in server.requests
    )
    by_field = _run(
        "get", "jobsets", "-n", "ml", "--field-selector", "metadata.name=c", "--kubeconfig", kubeconfig, "-o", "name"
    )
    assert by_field.stdout.split() == ["jobset.jobset.x-k8s.io/c"]
    failed = _run("get", "jobsets", "-n", "ml", "--phase", "failed", "--kubeconfig", kubeconfig, "-o", "name")
    assert failed.stdout.split() == ["jobset.jobset.x-k8s.io/b"]
    several = _run("get", "jobsets,lws", "-n", "ml", "-l", "team=ml", "--kubeconfig", kubeconfig)
    *rows, summary = _rows(several.stdout)[1:]
    # kubectl's TYPE/NAME form, the group left out while no two kinds share a name (issue 33)
    assert [row[0] for row in rows] == ["jobset/a", "jobset/b", "leaderworkerset/l"]
    assert " ".join(summary) == "3 workloads: 14 pods, 72 GPUs"  # 3 + 3 pods of the JobSets, 8 of the LWS
    listed = json.loads(_run("get", "jobset/a", "-n", "ml", "--kubeconfig", kubeconfig, "-o", "json").stdout)
    assert listed["kind"] == "List" and [item["workload"]["name"] for item in listed["items"]] == ["a"]
    everywhere = _run("get", "jobsets", "-A", "--kubeconfig", kubeconfig)
    assert _rows(everywhere.stdout)[0][:2] == ["NAMESPACE", "NAME"]  # as kubectl get -A puts them


@pytest.mark.parametrize(
    "args", [["--phase", "Sleeping"], ["--timeout", "0s"], ["-w", "--timeout", "soon"], ["-l", "a=b", "x"]]
)
def test_get_usage_errors_exit_2_before_any_request(fake_cluster, args):
    assert _run("get", "jobsets", *args, "--kubeconfig", str(fake_cluster.kubeconfig)).exit_code == 2
    assert fake_cluster.server.requests == []


def _jobset(name: str, condition: str | None) -> dict:
    manifest = _manifest("jobset-leader-workers.yaml")
    manifest["metadata"] = {"name": name, "namespace": "ml", "uid": f"uid-{name}"}
    manifest["status"] = {"conditions": [{"type": condition, "status": "True"}]} if condition else {}
    return manifest


def test_get_watch_prints_phase_changes_until_the_timeout(fake_cluster):
    server = fake_cluster.server
    server.add(_jobset("a", None))

    def changes():
        # Change the object only once the command has listed it and watches (on a loaded machine
        # loading the catalog alone can take longer than a fixed sleep).
        deadline = time.monotonic() + 10
        while not server.watch_requests and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        server.update(_jobset("a", "Suspended"))
        time.sleep(0.3)
        server.update(_jobset("a", "Suspended"))  # no phase change: no row
        server.cut_watches()
        time.sleep(0.3)
        server.compact()
        server.update(_jobset("a", "Completed"))
        server.cut_watches()

    thread = threading.Thread(target=changes, daemon=True)
    thread.start()
    started = time.monotonic()
    result = _run("get", "jobsets", "-n", "ml", "-w", "--timeout", "3s", "--kubeconfig", str(fake_cluster.kubeconfig))
    assert result.exit_code == 0, result.stderr
    assert 2.5 < time.monotonic() - started < 15
    phases = [row[1] for row in _rows(result.stdout)]
    assert phases == ["PHASE", "Undefined", "Suspended", "Completed"]
    watches = fake_cluster.server.watch_requests
    assert len(watches) >= 2 and all("resourceVersion=" in path for path in watches)


CORPUS_KINDS = {
    "jobset": ("JobSet", "jobsets", "run_jobset"),
    "leaderworkerset": ("LeaderWorkerSet", "lws", "run_lws"),
    "raycluster": ("RayCluster", "rayclusters", "run_raycluster"),
    "pytorchjob": ("PyTorchJob", "pytorchjobs", "run_pytorchjob"),
    "podcliqueset": ("PodCliqueSet", "pcs", "run_podcliqueset"),
}


@pytest.mark.parametrize("folder", sorted(CORPUS_KINDS))
def test_describe_every_corpus_manifest_served_by_the_api_server(fake_cluster, corpus_dir, folder):
    """Upstream manifests, their pods and owners as the operator creates them, read back over HTTP."""
    kind, plural, method = CORPUS_KINDS[folder]
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(4)
    workloads = []
    for path in sorted((corpus_dir / folder).glob("*.yaml")):
        for manifest in yaml.safe_load_all(path.read_text()):
            if isinstance(manifest, dict) and manifest.get("kind") == kind:
                manifest["metadata"] = {**manifest["metadata"], "namespace": "ml"}
                workload = cluster.workload(manifest)
                getattr(cluster, method)(workload, fill(nodes, per_node=8))
                workloads.append(workload)
    _serve(fake_cluster.server, cluster)
    by_uid = {obj["metadata"]["uid"]: obj for obj in cluster.objects}
    pods = {obj["metadata"]["name"]: obj for obj in cluster.pods()}
    for workload in workloads:
        name = workload["metadata"]["name"]
        result = _run(
            "describe", f"{plural}/{name}", "-n", "ml", "--kubeconfig", str(fake_cluster.kubeconfig), "-o", "json"
        )
        assert result.exit_code == 0, result.stderr
        report = json.loads(result.stdout)
        found = set()
        stack = list(report["components"])
        while stack:
            component = stack.pop()
            found.update(pod["name"] for pod in component["pods"])
            stack.extend(component["components"])
        mine = {pod for pod in cluster.expected if _owned_by(by_uid, pods[pod], workload)}
        assert found == mine and mine, name
        assert report["unattributedPods"] == [] and report["placement"] is not None


def _owned_by(objects: dict, obj: dict, workload: dict) -> bool:
    """Whether the operator made ``obj`` for ``workload`` (its owner chain, as the test built it)."""
    for _ in range(8):
        references = obj["metadata"].get("ownerReferences") or []
        if not references:
            return False
        if references[0]["uid"] == workload["metadata"]["uid"]:
            return True
        obj = objects.get(references[0]["uid"], {"metadata": {}})
    return False
