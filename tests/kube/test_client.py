"""Live-cluster access (workloadmap.cluster, cli/cluster_cmd.py) against a loopback fake API server.

Nothing here contacts anything but 127.0.0.1: the fake server binds there, the kubeconfig points
there, and proxy variables are cleared by the ``fake_cluster`` fixture.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import typer
import yaml
from typer.testing import CliRunner

from helpers import FIXTURES_DIR, load_fixture
from helpers.apiserver import TEST_TOKEN, FakeApiServer, FakeResource
from workloadmap.budgets import allowing_references
from workloadmap.cli.main import app as wmap_app
from workloadmap.errors import ClusterApiError, ClusterError, UnknownResourceTypeError
from workloadmap.interpreter import inspect_file
from workloadmap.kube import ClusterClient, ClusterObjects, parse_resource_ref
from workloadmap.kube import client as cluster_module
from workloadmap.topology import load_cluster, nodes_from_documents

JOBSET_FIXTURE = "jobset-leader-workers.yaml"  # llm-train in namespace research: 3 pods, 12 GPUs (see the file)


def _items(path: Path) -> list[dict]:
    return [item for item in yaml.safe_load(path.read_text())["items"]]


def _jobset(name: str, namespace: str | None) -> dict:
    obj = load_fixture(JOBSET_FIXTURE)
    obj["metadata"]["name"] = name
    if namespace is None:
        del obj["metadata"]["namespace"]
    else:
        obj["metadata"]["namespace"] = namespace
    return obj


def _query(path: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(path).query)


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _unreachable_kubeconfig(tmp_path: Path) -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "gone", "cluster": {"server": f"http://127.0.0.1:{_closed_port()}"}}],
        "users": [{"name": "u", "user": {"token": TEST_TOKEN}}],
        "contexts": [{"name": "gone", "context": {"cluster": "gone", "user": "u"}}],
        "current-context": "gone",
    }
    path = tmp_path / "gone-kubeconfig"
    path.write_text(yaml.safe_dump(config))
    return path


# -- resource references --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("jobset/train", ("jobset", "train")),
        ("jobsets.jobset.x-k8s.io/train", ("jobsets.jobset.x-k8s.io", "train")),
        ("JobSet.v1alpha2.jobset.x-k8s.io/train", ("JobSet.v1alpha2.jobset.x-k8s.io", "train")),
        ("pytorchjob train", ("pytorchjob", "train")),
        ("jobsets", ("jobsets", None)),
    ],
)
def test_parse_resource_ref(ref, expected):
    assert parse_resource_ref(ref) == expected


@pytest.mark.parametrize("ref", ["", "jobset/", "/train", "jobset/a/b", "a b c", "jobset/x y"])
def test_parse_resource_ref_rejects_malformed(ref):
    with pytest.raises(ClusterError):
        parse_resource_ref(ref)


# -- discovery and get ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ref",
    [
        "jobset/llm-train",
        "jobsets/llm-train",
        "JobSet/llm-train",
        "jobsets.jobset.x-k8s.io/llm-train",
        "JobSet.v1alpha2.jobset.x-k8s.io/llm-train",
        "jobset llm-train",
    ],
)
def test_get_resolves_kubectl_style_references(fake_cluster, ref):
    stored = fake_cluster.server.add(load_fixture(JOBSET_FIXTURE))
    with ClusterClient(fake_cluster.kubeconfig) as client:
        obj = client.get(ref, "research")
    assert obj == stored
    assert (obj["kind"], obj["apiVersion"]) == ("JobSet", "jobset.x-k8s.io/v1alpha2")
    assert fake_cluster.server.requests[-1] == (
        "GET",
        "/apis/jobset.x-k8s.io/v1alpha2/namespaces/research/jobsets/llm-train",
    )


@pytest.mark.parametrize(
    ("ref", "kind"),
    [
        ("lws/x", "LeaderWorkerSet"),
        ("deploy/x", "Deployment"),
        ("sts/x", "StatefulSet"),
        ("PyTorchJob/x", "PyTorchJob"),
        ("job/x", "Job"),
    ],
)
def test_short_names_and_kinds_resolve(fake_cluster, ref, kind):
    resource = fake_cluster.server.resource_for(
        {
            "LeaderWorkerSet": "leaderworkerset.x-k8s.io/v1",
            "Deployment": "apps/v1",
            "StatefulSet": "apps/v1",
            "PyTorchJob": "kubeflow.org/v1",
            "Job": "batch/v1",
        }[kind],
        kind,
    )
    fake_cluster.server.add({"apiVersion": resource.api_version, "kind": kind, "metadata": {"name": "x"}})
    with ClusterClient(fake_cluster.kubeconfig) as client:
        assert client.get(ref)["kind"] == kind


def test_core_group_wins_over_a_crd_with_the_same_name(tmp_path, monkeypatch):
    resources = [FakeResource("example.com", "v1", "pods", "pod", "Pod"), *FakeApiServer().resources]
    with FakeApiServer(resources, token=TEST_TOKEN) as server:
        kubeconfig = server.write_kubeconfig(tmp_path / "kc")
        server.add({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}})
        with ClusterClient(kubeconfig) as client:
            assert client.get("pod/p")["apiVersion"] == "v1"
            with pytest.raises(ClusterApiError):  # the example.com pod does not exist
                client.get("pods.example.com/p")


def test_group_qualified_reference_reads_only_that_groups_discovery(fake_cluster):
    fake_cluster.server.add(load_fixture(JOBSET_FIXTURE))
    with ClusterClient(fake_cluster.kubeconfig) as client:
        client.get("jobsets.jobset.x-k8s.io/llm-train", "research")
    paths = [path for _, path in fake_cluster.server.requests]
    assert "/apis/jobset.x-k8s.io/v1alpha2" in paths
    assert not any(path in paths for path in ("/api/v1", "/apis/apps/v1", "/apis/batch/v1", "/apis/kubeflow.org/v1"))


def test_discovery_is_cached_per_client(fake_cluster):
    fake_cluster.server.add(_jobset("a", "default"))
    fake_cluster.server.add(_jobset("b", "default"))
    with ClusterClient(fake_cluster.kubeconfig) as client:
        client.get("jobset/a")
        client.get("jobset/b")
        client.list("jobsets")
    paths = [path for _, path in fake_cluster.server.requests]
    assert paths.count("/apis") == 1
    assert paths.count("/apis/jobset.x-k8s.io/v1alpha2") == 1


def test_unknown_version_or_type_is_an_unknown_resource_type(fake_cluster):
    with ClusterClient(fake_cluster.kubeconfig) as client:
        with pytest.raises(UnknownResourceTypeError) as raised:
            client.get("frobnicator/x")
        assert str(raised.value) == 'the server doesn\'t have a resource type "frobnicator"'
        with pytest.raises(UnknownResourceTypeError):
            client.get("JobSet.v9.jobset.x-k8s.io/x")


def test_broken_aggregated_api_is_skipped(fake_cluster):
    fake_cluster.server.broken_groups.add("batch/v1")
    fake_cluster.server.add(load_fixture(JOBSET_FIXTURE))
    with ClusterClient(fake_cluster.kubeconfig) as client:
        assert client.get("jobset/llm-train", "research")["kind"] == "JobSet"
        with pytest.raises(UnknownResourceTypeError, match="discovery failed for batch/v1"):
            client.get("job/x")


def test_namespace_defaults_to_the_context_namespace_then_default(fake_cluster, tmp_path):
    fake_cluster.server.add(_jobset("a", "default"))
    fake_cluster.server.add(_jobset("b", "team"))
    with ClusterClient(fake_cluster.kubeconfig) as client:
        assert client.default_namespace == "default"
        assert client.get("jobset/a")["metadata"]["namespace"] == "default"
    team_config = fake_cluster.server.write_kubeconfig(tmp_path / "team", namespace="team")
    with ClusterClient(team_config) as client:
        assert client.get("jobset/b")["metadata"]["namespace"] == "team"
        assert [obj["metadata"]["name"] for obj in client.list("jobsets")] == ["b"]


def test_cluster_scoped_get_ignores_namespace(fake_cluster):
    fake_cluster.server.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    with ClusterClient(fake_cluster.kubeconfig) as client:
        assert client.get("node/n1", "whatever")["metadata"]["name"] == "n1"
    assert fake_cluster.server.requests[-1] == ("GET", "/api/v1/nodes/n1")


# -- errors ----------------------------------------------------------------------------------------


def test_not_found_is_one_line_exit_code_1(fake_cluster):
    with ClusterClient(fake_cluster.kubeconfig) as client:
        with pytest.raises(ClusterApiError) as raised:
            client.get("jobset/train")
    error = raised.value
    assert str(error) == 'jobsets.jobset.x-k8s.io "train" not found in namespace default'
    assert (error.exit_code, error.status_code, error.reason) == (1, 404, "NotFound")


def test_wrong_token_is_unauthorized_and_never_shows_a_token(fake_cluster, tmp_path):
    kubeconfig = fake_cluster.server.write_kubeconfig(tmp_path / "bad", token="wrong-token-xyz")
    with ClusterClient(kubeconfig) as client:
        with pytest.raises(ClusterApiError) as raised:
            client.get("jobset/train")
    message = str(raised.value)
    assert raised.value.status_code == 401
    assert message.startswith("Unauthorized (401)")
    assert "\n" not in message
    assert "wrong-token-xyz" not in message and TEST_TOKEN not in message


def test_forbidden_carries_the_server_message(fake_cluster):
    fake_cluster.server.forbidden.add("jobsets")
    with ClusterClient(fake_cluster.kubeconfig) as client:
        with pytest.raises(ClusterApiError) as raised:
            client.get("jobset/train", "ml")
    assert raised.value.status_code == 403
    assert str(raised.value) == (
        'Forbidden (403): jobsets.jobset.x-k8s.io is forbidden: User "tester" cannot get resource "jobsets" '
        'in API group "jobset.x-k8s.io" in the namespace "ml"'
    )


def test_unreachable_server_is_one_line(tmp_path):
    with ClusterClient(_unreachable_kubeconfig(tmp_path), timeout=2) as client:
        with pytest.raises(ClusterError) as raised:
            client.get("jobset/train")
    message = str(raised.value)
    assert message.startswith("cannot reach the Kubernetes API server at http://127.0.0.1:")
    assert "connection refused" in message
    assert "\n" not in message and TEST_TOKEN not in message


def test_read_timeout_is_reported(fake_cluster):
    fake_cluster.server.add(load_fixture(JOBSET_FIXTURE))
    with ClusterClient(fake_cluster.kubeconfig, timeout=0.3) as client:
        client.resolve("jobset")  # discovery answers at once
        fake_cluster.server.delay = 1.0
        with pytest.raises(ClusterError, match=r"did not answer GET .* within 0.3 s"):
            client.get("jobset/llm-train", "research")


def test_kubeconfig_problems(fake_cluster, tmp_path, monkeypatch):
    with pytest.raises(ClusterError, match="does not exist"):
        ClusterClient(tmp_path / "missing")
    with pytest.raises(ClusterError, match="nope"):
        ClusterClient(fake_cluster.kubeconfig, context="nope")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing-too"))
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(ClusterError, match="no kubeconfig found"):
        ClusterClient()


def test_kubeconfig_env_is_read_at_call_time(fake_cluster, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(fake_cluster.kubeconfig))
    fake_cluster.server.add(load_fixture(JOBSET_FIXTURE))
    with ClusterClient() as client:
        assert client.context == "fake"
        assert client.get("jobset/llm-train", "research")["metadata"]["name"] == "llm-train"


def test_kubeconfig_is_never_written(fake_cluster):
    before = fake_cluster.kubeconfig.read_bytes()
    with ClusterClient(fake_cluster.kubeconfig) as client:
        client.list("jobsets", all_namespaces=True)
    assert fake_cluster.kubeconfig.read_bytes() == before


# -- lists, nodes, pods ----------------------------------------------------------------------------


def test_list_fills_kind_and_follows_pages(fake_cluster, monkeypatch):
    monkeypatch.setattr(cluster_module, "PAGE_SIZE", 2)
    for name, namespace in [("a", "x"), ("b", "x"), ("c", "x"), ("d", "y")]:
        fake_cluster.server.add(_jobset(name, namespace))
    with ClusterClient(fake_cluster.kubeconfig) as client:
        in_x = client.list("jobsets", "x")
        everywhere = client.list("jobset", all_namespaces=True)
    assert [obj["metadata"]["name"] for obj in in_x] == ["a", "b", "c"]
    assert [obj["metadata"]["name"] for obj in everywhere] == ["a", "b", "c", "d"]
    assert all((obj["kind"], obj["apiVersion"]) == ("JobSet", "jobset.x-k8s.io/v1alpha2") for obj in everywhere)
    list_requests = [
        path
        for _, path in fake_cluster.server.requests
        if path.startswith("/apis/jobset.x-k8s.io/v1alpha2/namespaces/x/jobsets")
    ]
    assert len(list_requests) == 2 and "continue=2" in list_requests[1]


def test_empty_list_is_empty(fake_cluster):
    with ClusterClient(fake_cluster.kubeconfig) as client:
        assert client.list("pytorchjobs", all_namespaces=True) == []


def test_nodes_feed_topology_sources(fake_cluster):
    nodes_file = FIXTURES_DIR / "topology" / "nodes-topograph.yaml"
    for node in _items(nodes_file):
        fake_cluster.server.add(node)
    with ClusterClient(fake_cluster.kubeconfig) as client:
        node_list = client.nodes()
    assert node_list["kind"] == "NodeList"
    live = nodes_from_documents([node_list], file="cluster")
    from_file = load_cluster(str(nodes_file)).nodes
    assert (
        sorted(node.name for node in live)
        == sorted(node.name for node in from_file)
        == [f"gpu-{i}" for i in range(1, 7)]
    )
    assert {node.name: node.labels for node in live} == {node.name: node.labels for node in from_file}


def test_pods_skip_finished_pods(fake_cluster):
    for pod in _items(FIXTURES_DIR / "topology" / "pods.yaml"):
        pod.setdefault("apiVersion", "v1")
        pod.setdefault("kind", "Pod")
        fake_cluster.server.add(pod)
    with ClusterClient(fake_cluster.kubeconfig) as client:
        pod_list = client.pods()
    names = {pod["metadata"]["name"] for pod in pod_list["items"]}
    assert pod_list["kind"] == "PodList"
    assert {"done", "failed"}.isdisjoint(names) and {"train-0", "train-1"} <= names
    assert all(pod["kind"] == "Pod" for pod in pod_list["items"])
    assert _query(fake_cluster.server.requests[-1][1])["fieldSelector"] == [
        "status.phase!=Succeeded,status.phase!=Failed"
    ]


def test_related_objects_are_fetched_on_demand(fake_cluster):
    fake_cluster.server.add({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "ml"}})
    with ClusterClient(fake_cluster.kubeconfig) as client:
        sent = len(fake_cluster.server.requests)
        assert ClusterObjects(client).find("ConfigMap", "cfg", "ml", True) is None  # not a kind to reference
        assert len(fake_cluster.server.requests) == sent  # never asked for
    with ClusterClient(fake_cluster.kubeconfig) as client, allowing_references([("", "ConfigMap")]):
        related = ClusterObjects(client)
        assert related.find("ConfigMap", "cfg", "ml", True)["metadata"]["name"] == "cfg"
        assert related.find("ConfigMap", "cfg", "other", True) is None
        assert related.find("TrainingRuntime", "torch", "ml", True) is None  # not served at all
        requests_before = len(fake_cluster.server.requests)
        related.find("ConfigMap", "cfg", "ml", True)
        assert len(fake_cluster.server.requests) == requests_before  # remembered


# -- read-only and lazy import ---------------------------------------------------------------------


def test_fake_server_records_every_method(fake_cluster):
    """The GET-only assertions below are meaningful: a write would be recorded (and refused)."""
    request = urllib.request.Request(
        fake_cluster.server.url + "/api/v1/namespaces/default/pods", data=b"{}", method="POST"
    )
    import ssl

    from helpers.apiserver import TLS_DIR

    trusted = ssl.create_default_context(cafile=str(TLS_DIR / "server.crt"))
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=5, context=trusted)
    raised.value.close()  # the error holds the response (and its socket) open
    assert raised.value.code == 405
    assert fake_cluster.server.methods == {"POST"}
    fake_cluster.server.writes_expected = True


def test_client_only_sends_get(fake_cluster, monkeypatch):
    monkeypatch.setattr(cluster_module, "PAGE_SIZE", 1)
    fake_cluster.server.add(load_fixture(JOBSET_FIXTURE))
    fake_cluster.server.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    fake_cluster.server.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}})
    with ClusterClient(fake_cluster.kubeconfig) as client:
        client.get("jobset/llm-train", "research")
        client.list("jobsets", all_namespaces=True)
        client.nodes()
        client.pods()
        with pytest.raises(ClusterError):
            client.get("jobset/missing")
    assert len(fake_cluster.server.requests) > 5
    assert fake_cluster.server.methods == {"GET"}


def test_kubernetes_package_is_imported_lazily(tmp_path):
    code = "import sys, workloadmap, workloadmap.kube, workloadmap.cli.main\nprint('kubernetes' in sys.modules)"
    # Run outside the checkout: `python -c` puts the working directory first on sys.path, and the
    # checkout's source tree is not the installed package (cli/ installs as workloadmap.cli).
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


# -- command line ----------------------------------------------------------------------------------


def _app() -> typer.Typer:
    return wmap_app


runner = CliRunner()


def _run(*args: str):
    return runner.invoke(_app(), list(args), catch_exceptions=False)


def test_cli_get_live_jobset_matches_the_file(fake_cluster, builtin_catalog, monkeypatch):
    monkeypatch.delenv("WMAP_CATALOG", raising=False)
    fake_cluster.server.add(load_fixture(JOBSET_FIXTURE))
    result = _run(
        "get", "jobset/llm-train", "-n", "research", "--kubeconfig", str(fake_cluster.kubeconfig), "-o", "json"
    )
    assert result.exit_code == 0, result.stderr
    listed = json.loads(result.stdout)
    assert (listed["kind"], len(listed["items"])) == ("List", 1)  # -o json is always a List, as kubectl's
    live = listed["items"][0]
    [from_file] = [r.tree for r in inspect_file(str(FIXTURES_DIR / JOBSET_FIXTURE), catalog=builtin_catalog)]
    # The fixture documents 3 pods (1 leader + 2 workers) and 3 x 4 = 12 GPUs.
    assert (live["totals"]["pods"], live["totals"]["gpus"]) == (3, 12)
    assert live["totals"] == from_file.to_dict()["totals"]
    expected = from_file.to_dict()
    assert live["components"] == expected["components"]
    assert live["podGroups"] == expected["podGroups"]
    # AnyOrder: one gang gated by both replicatedJobs
    # (KAI v0.17 jobset_grouper_test.go TestMultipleReplicatedJobsAnyOrder)
    assert [group["minSubGroup"] for group in live["podGroups"]] == [2]
    tree = _run(
        "get", "jobset", "llm-train", "-n", "research", "--kubeconfig", str(fake_cluster.kubeconfig), "-o", "tree"
    )
    assert tree.exit_code == 0
    assert tree.stdout.startswith("JobSet/llm-train  namespace research")
    assert "Totals: 3 pods, 12 GPUs" in tree.stdout
    assert fake_cluster.server.methods == {"GET"}


def test_cli_get_lists_every_object_of_a_type(fake_cluster):
    fake_cluster.server.add(_jobset("one", "a"))
    fake_cluster.server.add(_jobset("two", "b"))
    kubeconfig = str(fake_cluster.kubeconfig)
    result = _run("get", "jobsets", "-A", "--kubeconfig", kubeconfig, "-o", "yaml")
    assert result.exit_code == 0, result.stderr
    listed = yaml.safe_load(result.stdout)
    assert listed["kind"] == "List"
    assert [(item["workload"]["namespace"], item["workload"]["name"]) for item in listed["items"]] == [
        ("a", "one"),
        ("b", "two"),
    ]
    table = _run("get", "jobsets", "-n", "a", "--kubeconfig", kubeconfig)
    assert table.exit_code == 0, table.stderr
    header, *rows = table.stdout.splitlines()
    assert header.split() == ["NAME", "PHASE", "PODS", "GPUS", "AGE"]
    # The fixture's status says Running; no pod exists on the fake server: 0 of its 3 pods ready, 12 GPUs.
    assert [row.split()[:4] for row in rows] == [["one", "Running", "0/3", "12"]]


def test_cli_get_nothing_found_is_success(fake_cluster):
    result = _run("get", "pytorchjobs", "--kubeconfig", str(fake_cluster.kubeconfig))
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr.strip() == "No resources found in default namespace."


def test_cli_get_not_found_exits_1_with_one_line(fake_cluster):
    result = _run("get", "jobset/train", "--kubeconfig", str(fake_cluster.kubeconfig))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == 'error: jobsets.jobset.x-k8s.io "train" not found in namespace default\n'


def test_cli_get_unreachable_exits_1_with_one_line(tmp_path):
    result = _run("get", "jobset/train", "--kubeconfig", str(_unreachable_kubeconfig(tmp_path)))
    assert result.exit_code == 1
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("error: cannot reach the Kubernetes API server at http://127.0.0.1:")
    assert "Traceback" not in result.output and TEST_TOKEN not in result.output


def test_cli_get_unauthorized_never_prints_the_token(fake_cluster, tmp_path):
    kubeconfig = fake_cluster.server.write_kubeconfig(tmp_path / "bad", token="leaky-token-123")
    result = _run("get", "jobset/train", "--kubeconfig", str(kubeconfig), "-o", "json")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: Unauthorized (401)")
    assert "leaky-token-123" not in result.output


def test_cli_get_usage_errors_exit_2(fake_cluster):
    kubeconfig = str(fake_cluster.kubeconfig)
    assert _run("get", "jobset/train", "-A", "--kubeconfig", kubeconfig).exit_code == 2
    assert _run("get", "jobset/train", "again", "--kubeconfig", kubeconfig).exit_code == 2
    assert _run("get", "jobset/a/b", "--kubeconfig", kubeconfig).exit_code == 2
    assert fake_cluster.server.requests == []


def test_cli_get_kind_without_definition_exits_4(fake_cluster):
    fake_cluster.server.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})
    result = _run("get", "node/n1", "--kubeconfig", str(fake_cluster.kubeconfig))
    assert result.exit_code == 4
    assert "no definition covers kind Node" in result.stderr


def test_cli_cluster_nodes_feeds_topology_show(fake_cluster, tmp_path):
    nodes_file = FIXTURES_DIR / "topology" / "nodes-topograph.yaml"
    for node in _items(nodes_file):
        fake_cluster.server.add(node)
    result = _run("cluster", "nodes", "--kubeconfig", str(fake_cluster.kubeconfig))
    assert result.exit_code == 0, result.stderr
    dumped = tmp_path / "nodes.yaml"
    dumped.write_text(result.stdout)
    live, from_file = load_cluster(str(dumped)), load_cluster(str(nodes_file))
    assert live.levels == from_file.levels
    assert sorted(node.name for node in live.nodes) == sorted(node.name for node in from_file.nodes)
    as_json = _run("cluster", "nodes", "--kubeconfig", str(fake_cluster.kubeconfig), "-o", "json")
    assert json.loads(as_json.stdout)["kind"] == "NodeList"
    selected = _run(
        "cluster", "nodes", "-l", "fabric.topograph.run/tier-1=s-b", "--kubeconfig", str(fake_cluster.kubeconfig)
    )
    assert selected.exit_code == 0
    assert _query(fake_cluster.server.requests[-1][1])["labelSelector"] == ["fabric.topograph.run/tier-1=s-b"]
    assert fake_cluster.server.methods == {"GET"}


def test_cli_cluster_nodes_error(tmp_path):
    result = _run("cluster", "nodes", "--kubeconfig", str(tmp_path / "missing"))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: kubeconfig ") and len(result.stderr.splitlines()) == 1


def test_live_cluster_is_a_topology_source(fake_cluster, monkeypatch):
    # `--topology cluster:` reads nodes and the pods using them from the kubeconfig's cluster, with GETs only;
    # the result equals the same nodes and pods read from files.
    nodes_file = FIXTURES_DIR / "topology" / "nodes-topograph.yaml"
    pods_file = FIXTURES_DIR / "topology" / "pods.yaml"
    for node in _items(nodes_file):
        fake_cluster.server.add(node)
    for pod in _items(pods_file):
        pod.setdefault("apiVersion", "v1")
        pod.setdefault("kind", "Pod")
        fake_cluster.server.add(pod)
    monkeypatch.setenv("KUBECONFIG", str(fake_cluster.kubeconfig))
    live = load_cluster("cluster:")
    from_files = load_cluster(str(nodes_file), pods_file=pods_file)
    assert live.levels == from_files.levels
    assert {node.name: (node.labels, node.free()) for node in live.nodes} == {
        node.name: (node.labels, node.free()) for node in from_files.nodes
    }
    assert fake_cluster.server.methods == {"GET"}


def test_live_cluster_unreachable_is_one_line(tmp_path, monkeypatch):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "dead",
                "clusters": [{"name": "dead", "cluster": {"server": "http://127.0.0.1:1"}}],
                "contexts": [{"name": "dead", "context": {"cluster": "dead", "user": "u"}}],
                "users": [{"name": "u", "user": {"token": "x"}}],
            }
        )
    )
    monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
    with pytest.raises(ClusterError) as raised:
        load_cluster("cluster:")
    assert "cannot reach" in str(raised.value) and "\n" not in str(raised.value)


def test_dra_claims_and_templates_are_fetched_in_the_pods_namespace(fake_cluster):
    # issue 28: a pod's claims resolve from the live cluster with GET, in the pod's namespace only
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "single-gpu", "namespace": "gpu-test1"},
        "spec": {
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}}
        },
    }
    fake_cluster.server.add(template)
    with ClusterClient(fake_cluster.kubeconfig) as client:
        related = ClusterObjects(client)
        assert (
            related.find("ResourceClaimTemplate", "single-gpu", "gpu-test1", True)["metadata"]["name"] == "single-gpu"
        )
        assert related.find("ResourceClaimTemplate", "single-gpu", "other", True) is None
    assert fake_cluster.server.methods <= {"GET"}
