"""The defects a new user found (issue 14), each pinned by a test, and placement text that explains itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import FIXTURES_DIR

JOBSET = str(FIXTURES_DIR / "jobset-leader-workers.yaml")
TOPOLOGY = FIXTURES_DIR / "topology"
PLACEMENT = FIXTURES_DIR / "placement"
RACKS = str(PLACEMENT / "gpu-racks-tainted.yaml")
LEVELS = "cloud.provider.com/topology-block,cloud.provider.com/topology-rack,kubernetes.io/hostname"


def _lws(tmp_path: Path, replicas: int, size: int = 4, gpus: int = 4) -> str:
    manifest = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "big", "namespace": "x"},
        "spec": {
            "replicas": replicas,
            "leaderWorkerTemplate": {
                "size": size,
                "workerTemplate": {
                    "spec": {
                        "containers": [{"name": "w", "image": "x", "resources": {"limits": {"nvidia.com/gpu": gpus}}}]
                    }
                },
            },
        },
    }
    path = tmp_path / f"lws-{replicas}.yaml"
    path.write_text(yaml.safe_dump(manifest))
    return str(path)


# -- place -----------------------------------------------------------------------------------


def test_place_table_says_how_many_candidates_it_leaves_out(wmap, tmp_path):
    path = _lws(tmp_path, 1)
    candidates = json.loads(wmap("place", path, "-o", "json").stdout)["podGroups"][0]["subGroups"][0]["candidates"]
    assert len(candidates) > 3
    table = wmap("place", path, "-o", "table").stdout
    leader = next(line for line in table.splitlines() if line.startswith("big-group-0/leader"))
    assert f"{candidates[0]},+{len(candidates) - 1}" in leader  # never silently the first three
    wide = wmap("place", path, "-o", "wide").stdout
    leader = next(line for line in wide.splitlines() if "big-group-0/leader" in line)
    assert ",".join(candidates) in leader


def test_sibling_podgroups_are_drawn_as_siblings(wmap):
    lines = wmap("place", str(FIXTURES_DIR / "grove" / "podcliqueset-scaling-group.yaml")).stdout.splitlines()
    groups = [line for line in lines if line.startswith(("├── ", "└── "))]
    assert [line[:4] for line in groups] == ["├── ", "└── "]


def test_minmember_1_groups_are_not_called_gangs(wmap):
    text = wmap("inspect", str(FIXTURES_DIR / "statefulset.yaml")).stdout
    assert "gang-scheduled" not in text and "minMember 1: no gang" in text
    assert "gang-scheduled together" in wmap("inspect", JOBSET).stdout


def test_identical_groups_collapse_with_the_domains_they_went_to(wmap, tmp_path):
    path = _lws(tmp_path, 20)
    placed = wmap("place", path).stdout
    assert "big-group-0..big-group-15 (16 alike, each 4 pods, min 4): fits" in placed
    assert "assigned to nvl-001, nvl-002, nvl-003, nvl-004" in placed
    # The next two find no rack with 4 free nodes left: Kueue spreads each over two (issue 33 says so).
    assert "big-group-16..big-group-17 (2 alike, each 4 pods, min 4): fits" in placed
    assert "assigned to leaf-001, leaf-002; split across NVLink domains\n" in placed
    assert "big-group-18..big-group-19 (2 alike, each 4 pods, min 4): DOES NOT FIT" in placed
    inspected = wmap("inspect", path).stdout
    assert "big-group-0..big-group-19 (20 alike)  minMember 4 of 4 pods" in inspected


def test_an_unfit_verdict_counts_the_groups_and_gives_the_first_reason(wmap, tmp_path):
    head = wmap("place", _lws(tmp_path, 20), "-o", "json").stdout
    report = json.loads(head)
    first_unfit = next(group for group in report["podGroups"] if not group["fits"])
    assert report["reason"].startswith("18 of 20 groups fit; big-group-18 does not: ")
    assert report["reason"].endswith(first_unfit["reason"])


def test_a_ranking_keeps_each_clusters_reason(wmap, tmp_path):
    path = _lws(tmp_path, 20)
    text = wmap("place", path, "-t", "preset:small-16", "-t", "preset:h100-2spine").stdout
    line = next(line for line in text.splitlines() if "small-16: does not fit" in line)
    assert "8 of 20 groups fit; big-group-8 does not: " in line and "nvidia.com/gpu" in line


def test_emit_for_an_unfit_workload_is_never_silent(wmap, tmp_path):
    # Issue 14 asked for a warning; issue 16 (fail safe) makes --emit refuse outright, exit 3, unless
    # --allow-unfit, which prints the objects with a warning naming each gang that does not fit.
    path = _lws(tmp_path, 20)
    refused = wmap("place", path, "--emit", "kai")
    assert refused.exit_code == 3 and refused.stdout == ""
    assert "LeaderWorkerSet/big big-group-18: DoesNotFit" in refused.stderr
    allowed = wmap("place", path, "--emit", "kai", "--allow-unfit")
    assert allowed.exit_code == 0 and "kind: LeaderWorkerSet" in allowed.stdout
    assert "WARNING: emitting objects for a gang that may never be scheduled: LeaderWorkerSet/big" in allowed.stderr
    assert wmap("place", path, "--emit", "kai", "--allow-unfit", "--fail-unfit").exit_code == 3


def test_emit_with_several_clusters_says_which_it_emitted_for(wmap):
    result = wmap("place", JOBSET, "-t", "preset:small-16", "-t", "preset:nvl72-4rack", "--emit", "kueue")
    assert result.exit_code == 0
    assert "note: JobSet/llm-train: emitted for cluster" in result.stderr
    chosen = result.stderr.split("emitted for cluster ")[1].split(",")[0]
    assert chosen in ("small-16", "nvl72-4rack")


def test_emit_takes_only_yaml_or_json(wmap):
    result = wmap("place", JOBSET, "--emit", "kai", "-o", "table")
    assert result.exit_code == 2 and result.stdout == ""
    assert "--emit prints Kubernetes objects" in result.stderr
    assert yaml.safe_load_all(wmap("place", JOBSET, "--emit", "kai").stdout)
    assert json.loads(wmap("place", JOBSET, "--emit", "kai", "-o", "json").stdout)


@pytest.mark.parametrize("args", [["--policy", "bogus"], ["-o", "bogus"], ["--emit", "bogus"]])
def test_no_note_before_a_usage_error(wmap, args):
    result = wmap("place", JOBSET, *args)  # no -t: a valid run would note the example cluster
    assert result.exit_code == 2
    assert "note:" not in result.stderr


# -- topology --------------------------------------------------------------------------------


def test_a_cordoned_ready_node_is_ready_and_schedulingdisabled(wmap):
    text = wmap("topology", "show", str(TOPOLOGY / "nodes-topograph.yaml"), "--hosts").stdout
    assert "node" not in text or "gpu-6" in text
    assert "kubernetes.io/hostname=gpu-6: 1 node (1 ready, 1 cordoned)" in text
    data = json.loads(wmap("topology", "show", str(TOPOLOGY / "nodes-topograph.yaml"), "-o", "json").stdout)
    assert (data["domains"]["readyNodes"], data["domains"]["cordonedNodes"]) == (5, 1)
    listed = wmap("topology", "show", str(TOPOLOGY / "nodes-topograph.yaml"), "--levels",
                  "topology.kubernetes.io/zone", "--hosts").stdout  # fmt: skip
    assert "node gpu-6 (Ready,SchedulingDisabled)" in listed and "node gpu-5 (NotReady)" in listed


def test_topology_json_counts_are_numbers(wmap):
    data = json.loads(wmap("topology", "show", "preset:nvl72-16rack", "-o", "json").stdout)
    assert data["domains"]["gpus"] == {"total": 1152, "free": 1152}  # 1152 would be "1152", and 1024 "1Ki"


def test_generate_name_is_the_name_show_reads_back(wmap, tmp_path):
    target = tmp_path / "nodes.yaml"
    assert wmap("topology", "generate", "--name", "lab", "--racks", "2", "--file", str(target)).exit_code == 0
    assert wmap("topology", "show", str(target)).stdout.splitlines()[1].startswith("cluster lab (")
    alone = wmap("topology", "generate", "--name", "solo").stdout
    assert {item["metadata"]["labels"]["wmap.dev/cluster"] for item in yaml.safe_load(alone)["items"]} == {"solo"}


def test_a_topology_from_stdin_is_not_called_dash(wmap):
    nodes = (TOPOLOGY / "nodes-topograph.yaml").read_text()
    line = wmap("topology", "show", "-", stdin=nodes).stdout.splitlines()[1]
    assert line.startswith("cluster stdin (stdin): ")


def test_pods_bound_to_unknown_nodes_are_noted(wmap):
    result = wmap("topology", "show", str(TOPOLOGY / "nodes-topograph.yaml"), "--pods", str(TOPOLOGY / "pods.yaml"))
    assert (
        "pod of" in result.stderr and "bound to nodes the cluster does not have (cpu-99) not counted" in result.stderr
    )


def test_slurm_capacity_defaults_are_noted(wmap):
    result = wmap("topology", "show", str(TOPOLOGY / "topology-tree.conf"))
    assert "each node is taken to have 8 GPUs" in result.stderr
    assert "taken to have" not in wmap("topology", "show", str(TOPOLOGY / "topology-tree.conf"), "--gpus-per-node",
                                       "4").stderr  # fmt: skip


# -- names and messages ----------------------------------------------------------------------


def test_generate_name_objects_are_not_shown_as_name_dash(wmap, tmp_path):
    path = tmp_path / "generated.yaml"
    path.write_text(Path(JOBSET).read_text().replace("  name: llm-train\n", "  generateName: llm-train-\n"))
    assert wmap("inspect", str(path)).stdout.startswith("JobSet/llm-train-<generated>  namespace research")
    assert json.loads(wmap("inspect", str(path), "-o", "json").stdout)["workload"]["name"] == "llm-train-"
    demand = yaml.safe_load(wmap("place", str(path), "--emit", "demand").stdout)
    # named by the prefix: `kubectl apply` refuses an object without metadata.name (issue 25)
    assert demand["metadata"] == {"name": "llm-train", "namespace": "research"}


def test_the_demand_export_has_a_name(wmap):
    demand = yaml.safe_load(wmap("place", JOBSET, "--emit", "demand").stdout)
    assert demand["metadata"] == {"name": "llm-train", "namespace": "research"}


def _definition(tmp_path: Path, **component: object) -> str:
    body = {"name": "x", "group": "example.com", "kind": "X", "versions": ["v1"],
            "components": [{"name": "a", "podTemplate": "spec.template", "replicas": 1} | component]}  # fmt: skip
    path = tmp_path / "x.yaml"
    path.write_text(yaml.safe_dump(body))
    return str(path)


def test_definition_errors_speak_wmap_not_pydantic(wmap, tmp_path):
    result = wmap("catalog", "validate", _definition(tmp_path, replicas=-3))
    assert result.exit_code == 1
    assert "field components[0].replicas: a count must not be negative, got -3" in result.stderr
    assert "Value error" not in result.stderr


def test_a_jmespath_error_is_one_whole_line(wmap, tmp_path):
    result = wmap("catalog", "validate", _definition(tmp_path, podTemplate="spec.template[?"))
    assert result.stderr.strip().endswith(
        "invalid JMESPath 'spec.template[?': the expression ends too early at column 16"
    )
    assert len(result.stderr.strip().splitlines()) == 1


def test_generate_errors_name_the_option(wmap):
    result = wmap("topology", "generate", "--nodes-per-rack", "0")
    assert result.exit_code == 2
    assert "--nodes-per-rack" in result.stderr and "nodes_per_rack" not in result.stderr


def test_catalog_validate_says_a_manifest_is_not_a_definition(wmap):
    result = wmap("catalog", "validate", JOBSET)
    assert result.exit_code == 1
    assert "document JobSet/llm-train: not a definition: this is a Kubernetes JobSet manifest" in result.stderr


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("apiVersion: v1\nkind: Config\ncontexts: []\n", "sets no current context; pass --context (contexts: none)"),
        (
            "contexts:\n- name: a\n  context: {cluster: gone, user: u}\ncurrent-context: a\n",
            "context 'a' names cluster 'gone', which kubeconfig",
        ),  # fmt: skip
        ("foo: [\n", "is not a kubeconfig: invalid YAML at line 2"),
        ("- a\n- b\n", "is not a kubeconfig: expected a mapping"),
    ],
)
def test_kubeconfig_problems_in_wmaps_words(wmap, tmp_path, config, message):
    path = tmp_path / "kubeconfig"
    path.write_text(config)
    result = wmap("get", "jobsets", "--kubeconfig", str(path))
    assert result.exit_code == 1
    assert message in result.stderr and "Invalid kube-config" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_unknown_context_lists_the_known_ones(wmap, fake_cluster):
    result = wmap("get", "jobsets", "--kubeconfig", str(fake_cluster.kubeconfig), "--context", "nope")
    assert result.exit_code == 1
    assert "context 'nope' is not in kubeconfig" in result.stderr and "(contexts: " in result.stderr


def test_get_nodes_is_refused_once_before_any_list(wmap, fake_cluster):
    for name in ("n1", "n2", "n3"):
        fake_cluster.server.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
    result = wmap("get", "nodes", "--kubeconfig", str(fake_cluster.kubeconfig))
    assert result.exit_code == 4
    assert len(result.stderr.strip().splitlines()) == 1
    assert "no definition covers kind Node" in result.stderr and "wmap topology show cluster:" in result.stderr
    assert not any(path.startswith("/api/v1/nodes") for _, path in fake_cluster.server.requests)


def test_jsonschema_loads_only_when_a_karta_is_exported(tmp_path):
    # A runtime dependency for one job (checking exported Kartas against upstream's CRD), kept off start-up.
    code = "import sys, workloadmap.cli.main; print('jsonschema' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert result.stdout == "False\n"


def test_an_unknown_resource_type_gets_the_closest_suggested(wmap, fake_cluster):
    result = wmap("get", "jobsetz", "--kubeconfig", str(fake_cluster.kubeconfig))
    assert result.exit_code == 1
    assert 'the server doesn\'t have a resource type "jobsetz"; did you mean jobset or jobsets?' in result.stderr
