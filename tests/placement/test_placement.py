"""Tests for workloadmap.placement: packing against brute force, domains, levels, policies."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from helpers import FIXTURES_DIR
from helpers.placement import (  # noqa: E402
    BLOCK,
    CLIQUE,
    GPU,
    HOST,
    RACK,
    brute_force_fits,
    clique_cluster,
    node,
    pod_set,
    rack_cluster,
    random_free,
    random_request,
    tree,
)
from workloadmap.errors import PlacementError  # noqa: E402
from workloadmap.placement import UNLIMITED, node_capacity, pack_pods, place, pods_fit, rank_clusters
from workloadmap.topology import Cluster, Node, accelerator_level, resolve_level

F = Fraction


# ---------------------------------------------------------------- packing


def test_node_capacity_is_minimum_over_resources_and_pod_slots():
    free = {GPU: F(8), "cpu": F(64), "memory": F(100), "pods": F(3)}
    assert node_capacity(free, {GPU: F(2), "cpu": F(10)}) == 3  # slots bind (gpu 4, cpu 6)
    assert node_capacity(free, {GPU: F(2), "cpu": F(30)}) == 2  # cpu binds
    assert node_capacity(free, {"amd.com/gpu": F(1)}) == 0  # a resource the node lacks
    assert node_capacity({"cpu": F(4)}, {}) == UNLIMITED  # no pods allocatable: unlimited slots
    assert node_capacity({"cpu": F(4), "pods": F(0)}, {}) == 0
    assert node_capacity({"cpu": F(1)}, {"cpu": F(1, 10)}) == 10  # exact fractions (100m)


def test_pod_never_splits_across_nodes():
    # 16 GPUs free in total, but no node has 16.
    assert not pods_fit([({GPU: F(16)}, 1)], [{GPU: F(8)}, {GPU: F(8)}])
    assert pods_fit([({GPU: F(8)}, 2)], [{GPU: F(8)}, {GPU: F(8)}])


def test_every_resource_must_fit_on_the_same_node():
    nodes = [{GPU: F(8), "cpu": F(4)}, {GPU: F(0), "cpu": F(64)}]
    assert not pods_fit([({GPU: F(8), "cpu": F(8)}, 1)], nodes)


@pytest.mark.parametrize("seed", range(8))
def test_identical_pods_match_brute_force(seed):
    rng = random.Random(seed)
    for _ in range(60):
        request = random_request(rng)
        count = rng.randint(1, 6)
        nodes = [random_free(rng) for _ in range(rng.randint(1, 4))]
        expected = brute_force_fits([(request, count)], nodes)
        assert pack_pods([(request, count)], nodes) is expected, (request, count, nodes)


@pytest.mark.parametrize("seed", range(20))
def test_mixed_shapes_match_brute_force(seed):
    rng = random.Random(1000 + seed)
    for _ in range(50):
        pods = [(random_request(rng), rng.randint(1, 3)) for _ in range(rng.randint(2, 3))]
        while sum(count for _, count in pods) > 7:
            pods.pop()
        nodes = [random_free(rng) for _ in range(rng.randint(1, 4))]
        expected = brute_force_fits(pods, nodes)
        answer = pack_pods(pods, nodes)
        assert answer is not None, "small cases must be decided exactly"
        assert answer is expected, (pods, nodes)


def test_mixed_shapes_where_greedy_order_fails_are_still_found():
    # Largest-first puts a 4-GPU pod on each node, stranding the 6-GPU pod: 6+2 / 4+4 works.
    nodes = [{GPU: F(8)}, {GPU: F(8)}]
    pods = [({GPU: F(6)}, 1), ({GPU: F(4)}, 2), ({GPU: F(2)}, 1)]
    assert brute_force_fits(pods, nodes)
    assert pack_pods(pods, nodes) is True
    assert pack_pods([({GPU: F(6)}, 1), ({GPU: F(4)}, 2), ({GPU: F(3)}, 1)], nodes) is False


@pytest.mark.parametrize("seed", range(5))
def test_an_exhausted_budget_is_never_a_wrong_answer(seed):
    """With a budget of one step, an answer is either right or unknown (None); pods_fit counts unknown as no."""
    rng = random.Random(5000 + seed)
    for _ in range(60):
        pods = [(random_request(rng), rng.randint(1, 3)) for _ in range(3)]
        nodes = [random_free(rng) for _ in range(rng.randint(1, 4))]
        answer = pack_pods(pods, nodes, budget=1)
        assert answer in (brute_force_fits(pods, nodes), None), (pods, nodes)
        assert pods_fit(pods, nodes, budget=1) is (answer is True)


def test_identical_pods_many_nodes_is_exact_sum():
    nodes = [{GPU: F(8), "cpu": F(100), "pods": F(110)}] * 1000 + [{GPU: F(3), "cpu": F(100)}] * 10
    # capacity per node: 8//2 = 4 (first kind), 3//2 = 1 (second) -> 4010
    assert pods_fit([({GPU: F(2), "cpu": F(1)}, 4010)], nodes)
    assert not pods_fit([({GPU: F(2), "cpu": F(1)}, 4011)], nodes)


# ---------------------------------------------------------------- levels and domains


def test_resolve_level_accepts_key_or_unique_tail():
    levels = [BLOCK, RACK, HOST]
    assert resolve_level(RACK, levels) == RACK
    assert resolve_level("topology-rack", levels) == RACK
    assert resolve_level("rack", levels) == RACK
    with pytest.raises(PlacementError, match="not a topology level"):
        resolve_level("zone", levels)


def test_accelerator_level_detection():
    assert accelerator_level([BLOCK, CLIQUE, HOST]) == CLIQUE
    assert accelerator_level(["accelerator.topograph.run/domain", "accelerator.topograph.run/sub-domain", HOST]) == (
        "accelerator.topograph.run/domain"
    )
    assert accelerator_level(["example.com/spine", "example.com/nvlink-domain", HOST]) == "example.com/nvlink-domain"
    assert accelerator_level([BLOCK, RACK, HOST]) is None


def test_domains_are_nested_within_parent_and_rack_values_repeat():
    # 2 blocks x 2 racks x 4 hosts of 8 GPUs; racks "r0"/"r1" exist in both blocks: 4 rack domains.
    report = place(tree([{"name": "g", "minMember": 4, "pods": 4, "podSets": [pod_set("w", 4)]}]), rack_cluster())
    (group,) = report.pod_groups
    assert [(fit.level, fit.domains, fit.fitting) for fit in group.levels] == [
        (BLOCK, 2, 2),
        (RACK, 4, 4),
        (HOST, 16, 0),
    ]
    assert group.preferred_level == RACK and group.fits and report.fits
    # repeated values are shown with their parent path
    assert sorted(group.candidates) == ["b0/r0", "b0/r1", "b1/r0", "b1/r1"]


def test_nodes_missing_a_label_or_unready_belong_to_no_domain():
    cluster = rack_cluster(blocks=1, racks=1, hosts=2)
    cluster.nodes.append(node("loose", {RACK: "r0"}))  # no block label: left out of the topology
    cluster.nodes.append(node("down", {BLOCK: "b0", RACK: "r0"}, ready=False))
    cluster.nodes.append(Node("cordoned", {BLOCK: "b0", RACK: "r0", HOST: "cordoned"}, unschedulable=True))
    report = place(tree([{"name": "g", "minMember": 3, "pods": 3, "podSets": [pod_set("w", 3)]}]), cluster)
    (group,) = report.pod_groups
    assert [(fit.domains, fit.fitting) for fit in group.levels] == [(1, 0), (1, 0), (2, 0)]
    # Kueue (NodeMatchesFlavor) and KAI (isNodePartOfTopology) leave out a node without every
    # level label, so only 2 nodes are left: 3 pods of 8 GPUs do not fit
    assert not group.fits and group.preferred_level is None and group.candidates == []
    assert report.notes == [
        "1 NotReady node(s) hold nothing",
        "1 cordoned (unschedulable) node(s) take no pods",
        f"1 node(s) lack the level label {BLOCK} and are left out of the topology, as Kueue and KAI do",
    ]


def test_used_resources_reduce_capacity_and_candidates_are_best_fit_first():
    nodes = [
        node("a", {RACK: "ra"}, used={GPU: 2}),  # rack ra: 6 free
        node("b", {RACK: "rb"}),  # rack rb: 8 free
        node("c", {RACK: "rc"}, used={GPU: 3}),  # rack rc: 5 free -> cannot hold 6
        node("d", {RACK: "rd"}, used={GPU: 1}),  # rack rd: 7 free
    ]
    cluster = Cluster(name="c", nodes=nodes, levels=[RACK, HOST])
    report = place(
        tree([{"name": "g", "minMember": 3, "pods": 3, "podSets": [pod_set("w", 3, gpus=2, cpu=1)]}]), cluster
    )
    (group,) = report.pod_groups
    assert group.preferred_level == HOST
    assert group.candidates == ["a", "d", "b"]  # leftover 0, 1, 2 GPUs


def test_unfit_group_has_reason():
    report = place(tree([{"name": "big", "minMember": 20, "pods": 20, "podSets": [pod_set("w", 20)]}]), rack_cluster())
    (group,) = report.pod_groups
    assert not group.fits and not report.fits
    assert "16" in group.reason and "20" in group.reason
    missing = place(
        tree(
            [
                {
                    "name": "amd",
                    "minMember": 1,
                    "pods": 1,
                    "podSets": [{"component": "w", "count": 1, "podResources": {"amd.com/gpu": "1"}}],
                }
            ]
        ),
        rack_cluster(),
    )
    assert missing.pod_groups[0].reason == "each w pod needs 1 amd.com/gpu; no node has any"
    assert "amd.com/gpu" in missing.pod_groups[0].scheduler_reason


def test_required_option_and_unknown_level():
    workload = tree([{"name": "g", "minMember": 6, "pods": 6, "podSets": [pod_set("w", 6)]}])
    report = place(workload, rack_cluster(), required="rack")
    (group,) = report.pod_groups
    assert group.required_level == RACK and group.required_source == "option"
    assert not group.fits  # a rack holds 4 pods of 8 GPUs
    assert place(workload, rack_cluster(), required=BLOCK).pod_groups[0].fits
    with pytest.raises(PlacementError, match="zone"):
        place(workload, rack_cluster(), required="zone")


def test_required_from_workload_annotations():
    components = [
        {
            "name": "w",
            "role": "w",
            "replicas": 6,
            "pods": 6,
            "minPods": 6,
            "hasPodTemplate": True,
            "podResources": {"nvidia.com/gpu": "8", "cpu": "32"},
        },
    ]
    group = {"name": "g", "minMember": 6, "pods": 6, "podSets": [pod_set("w", 6)]}
    workload = tree([group], components=components)
    workload.topology_annotations = {"kai.scheduler/topology-required-placement": BLOCK}
    (placed,) = place(workload, rack_cluster()).pod_groups
    assert placed.required_level == BLOCK and placed.required_source == "annotation" and placed.fits
    # KAI reads the annotation from the top owner only: on a pod template it does not bind the PodGroup
    components[0]["topologyAnnotations"] = {"kai.scheduler/topology-required-placement": RACK}
    (placed,) = place(tree([group], components=components), rack_cluster()).pod_groups
    assert placed.required_level is None
    # Kueue reads it from the pod template, and rejects a level its Topology does not have
    components[0]["topologyAnnotations"] = {"kueue.x-k8s.io/podset-required-topology": "example.com/zone"}
    with pytest.raises(PlacementError, match="example.com/zone"):
        place(tree([group], components=components), rack_cluster())
    # KAI does not read Kueue's annotations: the gang shows the requirement, KAI ignores it (with a note)
    report = place(tree([group], components=components), rack_cluster(), policy="kai")
    assert not report.pod_groups[0].fits and "example.com/zone" in report.pod_groups[0].reason


def lws_like_group():
    return {
        "name": "pg",
        "minMember": 8,
        "pods": 8,
        "podSets": [pod_set("leader", 1, gpus=4, cpu=8), pod_set("worker", 7, gpus=4, cpu=8)],
        "subGroups": [
            {
                "name": "segment-0",
                "minMember": 4,
                "pods": 4,
                "podSets": [pod_set("leader", 1, gpus=4, cpu=8), pod_set("worker", 3, gpus=4, cpu=8)],
            },
            {"name": "segment-1", "minMember": 4, "pods": 4, "podSets": [pod_set("worker", 4, gpus=4, cpu=8)]},
        ],
    }


def test_auto_policy_requires_accelerator_domain_for_subgroups():
    report = place(tree([lws_like_group()]), clique_cluster())
    (group,) = report.pod_groups
    assert group.required_level is None  # roots are not auto-constrained
    assert group.preferred_level == RACK and group.fits
    for sub in group.sub_groups:
        assert sub.required_level == CLIQUE and sub.required_source == "auto" and sub.fits
        assert sub.preferred_level == CLIQUE
        assert [fit.fitting for fit in sub.levels] == [2, 4, 0]
    off = place(tree([lws_like_group()]), clique_cluster(), auto=False)
    assert all(sub.required_level is None for sub in off.pod_groups[0].sub_groups)


def test_auto_policy_skips_subgroups_that_do_not_fit_a_clique():
    group = lws_like_group()
    group["subGroups"][1] = {
        "name": "segment-1",
        "minMember": 5,
        "pods": 5,
        "podSets": [pod_set("worker", 5, gpus=4, cpu=8)],
    }
    report = place(tree([group]), clique_cluster())
    sub = report.pod_groups[0].sub_groups[1]
    assert sub.required_level is None and sub.preferred_level == RACK


def test_subgroup_pods_from_children_and_parent_recorded():
    group = {
        "name": "pg",
        "minMember": 8,
        "pods": 8,
        "subGroups": [
            {"name": "workers", "minMember": 0, "pods": 8},
            {"name": "w0", "minMember": 4, "parent": "workers", "pods": 4, "podSets": [pod_set("worker", 4, gpus=4)]},
            {"name": "w1", "minMember": 4, "parent": "workers", "pods": 4, "podSets": [pod_set("worker", 4, gpus=4)]},
        ],
    }
    report = place(tree([group]), clique_cluster())
    root = report.pod_groups[0]
    assert root.pods == 8 and root.preferred_level == RACK  # 8 x 4 GPUs = 32 = one rack
    workers = root.sub_groups[0]
    assert workers.name == "workers" and workers.preferred_level == RACK
    assert [sub.parent for sub in root.sub_groups] == [None, "workers", "workers"]


def test_each_group_fits_alone_but_not_together():
    groups = [{"name": f"g{i}", "minMember": 10, "pods": 10, "podSets": [pod_set(f"w{i}", 10)]} for i in range(2)]
    # KAI schedules PodGroups one by one: g0 takes 10 of the 16 nodes (1 pod each), g1 finds 6
    report = place(tree(groups), rack_cluster(), policy="kai")
    first, second = report.pod_groups
    assert first.fits and first.assignment.pods == 10
    assert not second.fits and second.assignment is None
    assert "fits the cluster as given" in second.reason
    assert not report.fits and report.reason.startswith("1 of 2 groups fit; g1 does not: ")
    assert second.reason in report.reason  # the first unfit group's own reason
    # Kueue admits a Workload whole (FindTopologyAssignmentsForFlavor stops at the first PodSet
    # that does not fit): neither gets its pods
    report = place(tree(groups), rack_cluster(), policy="kueue")
    first, second = report.pod_groups
    assert not first.fits and "admits JobSet/train whole" in first.reason and first.assignment is None
    assert not second.fits and second.scheduler_reason.startswith("PodSet w1: topology")
    assert second.reason.startswith("only 6 of its 10 w1 pods find room")
    assert report.reason == f"0 of 2 groups fit; g0 does not: {first.reason}"


def test_workload_without_gangs_places_independent_pods():
    components = [
        {
            "name": "web",
            "role": "web",
            "replicas": 20,
            "pods": 20,
            "minPods": 20,
            "hasPodTemplate": True,
            "podResources": {"nvidia.com/gpu": "4"},
        },
    ]
    workload = tree([], components=components, kind="Deployment")
    report = place(workload, rack_cluster())  # 16 nodes x 2 pods of 4 GPUs = 32
    (entry,) = report.pod_groups
    assert entry.gang is False and entry.name == "web" and entry.pods == 20 and entry.fits
    assert entry.preferred_level == HOST
    components[0]["pods"] = 33
    report = place(tree([], components=components, kind="Deployment"), rack_cluster())
    assert not report.pod_groups[0].fits and not report.fits


def in_topology(n, cluster):
    """Kueue's and KAI's node rule: Ready, not cordoned, with the label of every level."""
    return n.ready and not n.unschedulable and all(key in n.labels for key in cluster.levels)


def naive_domains(cluster, depth):
    """Group the topology's nodes by the tuple of label values of levels 0..depth (reference semantics)."""
    domains = {}
    for n in cluster.nodes:
        if in_topology(n, cluster):
            key = tuple(n.labels[level] for level in cluster.levels[: depth + 1])
            domains.setdefault(key, []).append(n.free())
    return domains


@pytest.mark.parametrize("seed", range(10))
def test_level_counts_match_naive_grouping_and_brute_force(seed):
    rng = random.Random(9000 + seed)
    for _ in range(6):
        nodes = []
        for i in range(rng.randint(1, 6)):
            labels = {}
            if rng.random() < 0.9:
                labels[BLOCK] = rng.choice(["a", "b"])
            if rng.random() < 0.9:
                labels[RACK] = rng.choice(["r1", "r2"])
            if rng.random() < 0.95:
                labels[HOST] = f"n{i}"
            nodes.append(
                Node(
                    name=f"n{i}",
                    labels=labels,
                    allocatable=random_free(rng),
                    ready=rng.random() < 0.9,
                    used={GPU: F(rng.choice([0, 0, 1, 2]))},
                    unschedulable=rng.random() < 0.1,
                )
            )
        cluster = Cluster(name="rand", nodes=nodes, levels=[BLOCK, RACK, HOST])
        sets = []
        for component in ("x", "y")[: rng.randint(1, 2)]:
            request = random_request(rng)
            sets.append(
                {
                    "component": component,
                    "count": rng.randint(1, 3),
                    "podResources": {
                        k: str(v) if v.denominator == 1 else f"{int(v * 1000)}m" for k, v in request.items()
                    },
                }
            )
        group = {"name": "g", "minMember": 1, "pods": sum(s["count"] for s in sets), "podSets": sets}
        (result,) = place(tree([group]), cluster).pod_groups
        pods = [
            ({k: F(v[:-1]) / 1000 if v.endswith("m") else F(v) for k, v in s["podResources"].items()}, s["count"])
            for s in sets
        ]
        narrowest = None
        for depth, fit in enumerate(result.levels):
            domains = naive_domains(cluster, depth)
            fitting = sum(1 for members in domains.values() if brute_force_fits(pods, members))
            assert (fit.domains, fit.fitting) == (len(domains), fitting), (depth, nodes, pods)
            if fitting:
                narrowest = cluster.levels[depth]
        assert result.preferred_level == narrowest
        whole = [n.free() for n in cluster.nodes if in_topology(n, cluster)]
        if result.fits:  # the scheduler's greedy choice is a real placement, so brute force agrees
            assert brute_force_fits(pods, whole)


# ---------------------------------------------------------------- several clusters


def test_rank_clusters_tightest_first_with_reasons():
    workload = tree([{"name": "g", "minMember": 4, "pods": 4, "podSets": [pod_set("w", 4)]}])
    roomy = rack_cluster(name="roomy")  # a rack holds it: 1 level above hostname
    tight = rack_cluster(blocks=1, racks=1, hosts=4, name="tight")  # same level, fewer leftover GPUs
    spread = rack_cluster(blocks=2, racks=4, hosts=1, name="spread")  # needs a whole block
    small = rack_cluster(blocks=1, racks=1, hosts=2, name="small")
    ranking = rank_clusters(workload, [roomy, spread, small, tight])
    assert [fit.cluster for fit in ranking.ranked] == ["tight", "roomy", "spread"]
    assert [fit.leftover_gpus for fit in ranking.ranked] == [0, 96, 32]
    assert ranking.ranked[2].preferred_level == BLOCK
    assert [entry.cluster for entry in ranking.unfit] == ["small"]
    assert "4" in ranking.unfit[0].reason or "groups" in ranking.unfit[0].reason


# ---------------------------------------------------------------- command line


JOBSET = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: train
  namespace: ml
spec:
  startupPolicy: {startupPolicyOrder: AnyOrder}
  replicatedJobs:
  - name: workers
    replicas: 1
    template:
      spec:
        parallelism: WORKERS
        completions: WORKERS
        template:
          spec:
            containers:
            - name: trainer
              image: example/trainer
              resources:
                limits: {nvidia.com/gpu: 8}
"""

NODELIST = """
apiVersion: v1
kind: NodeList
items:
"""


def _write_cluster(path, racks=2, hosts=2):
    lines = [NODELIST]
    for r in range(racks):
        for h in range(hosts):
            name = f"r{r}-h{h}"
            lines.append(f"""- metadata:
    name: {name}
    labels: {{kubernetes.io/hostname: {name}, {RACK}: r{r}}}
  status:
    allocatable: {{cpu: "64", memory: 512Gi, pods: "110", nvidia.com/gpu: "8"}}
    conditions: [{{type: Ready, status: "True"}}]
""")
    path.write_text("".join(lines))
    return str(path)


@pytest.fixture
def place_cli():
    pytest.importorskip("typer")
    from typer.testing import CliRunner

    from workloadmap.cli.main import app

    runner = CliRunner()

    def run(*args):
        return runner.invoke(app, ["place", *args])

    return run


def test_cli_reports_and_exit_codes(place_cli, tmp_path):
    nodes = _write_cluster(tmp_path / "nodes.yaml")
    small = tmp_path / "small.yaml"
    small.write_text(JOBSET.replace("WORKERS", "2"))
    big = tmp_path / "big.yaml"
    big.write_text(JOBSET.replace("WORKERS", "5"))

    result = place_cli(str(small), "-t", nodes, "--levels", f"{RACK},{HOST}", "-o", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    (group,) = report["podGroups"]
    assert group["fits"] and group["preferredLevel"] == RACK and group["pods"] == 2

    assert place_cli(str(big), "-t", nodes, "--levels", f"{RACK},{HOST}").exit_code == 0
    unfit = place_cli(str(big), "-t", nodes, "--levels", f"{RACK},{HOST}", "--fail-unfit")
    assert unfit.exit_code == 3 and "DOES NOT FIT" in unfit.stdout

    bad = place_cli(str(small), "-t", nodes, "--levels", f"{RACK},{HOST}", "--required", "zone")
    assert bad.exit_code == 1 and bad.stderr.startswith("error: ") and "zone" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_cli_emit_and_ranking(place_cli, tmp_path):
    import yaml as yaml_module

    two_racks = _write_cluster(tmp_path / "two.yaml", racks=2, hosts=2)
    one_rack = _write_cluster(tmp_path / "one.yaml", racks=1, hosts=2)
    small = tmp_path / "small.yaml"
    small.write_text(JOBSET.replace("WORKERS", "2"))
    result = place_cli(str(small), "-t", two_racks, "--levels", f"{RACK},{HOST}", "--emit", "kai", "--emit", "demand")
    assert result.exit_code == 0, result.output
    kinds = [obj["kind"] for obj in yaml_module.safe_load_all(result.stdout)]
    # A JobSet's pods have an owner: KAI's pod-grouper builds their PodGroup itself, so --emit kai gives the
    # annotated JobSet (exporters/kai.py; KAI pod_controller.go) and says why on stderr.
    assert kinds == ["Topology", "JobSet", "WorkloadDemand"]
    assert "no PodGroup is emitted" in result.stderr
    ranked = place_cli(str(small), "-t", two_racks, "-t", one_rack, "--levels", f"{RACK},{HOST}", "-o", "json")
    assert ranked.exit_code == 0, ranked.output
    data = json.loads(ranked.stdout)
    assert [fit["cluster"] for fit in data["ranked"]] == ["one", "two"]  # same level, fewer GPUs left


def test_pods_asking_for_local_disk_fit_simulated_nodes():
    # Simulated and Slurm-derived nodes report ephemeral-storage like real nodes do; a pod asking for
    # 800Gi of scratch fits one of them (3500Gi each), and nine such pods cannot share one node.
    from fractions import Fraction

    from workloadmap.placement import node_capacity
    from workloadmap.topology import NodeCapacity

    free = NodeCapacity().allocatable()
    request = {"cpu": Fraction(8), "ephemeral-storage": Fraction(800 * 2**30), "nvidia.com/gpu": Fraction(1)}
    assert node_capacity(free, request) == 4  # floor(3500 / 800) = 4, below 8 GPUs and 12 cpu-slots


def test_cli_places_on_a_slurm_tree_with_capacity_flags(place_cli, tmp_path):
    # A 3-pod JobSet of 4 GPUs per pod on a Slurm tree whose nodes get 4 GPUs each from the flag:
    # one pod per node, so a leaf switch with at least 3 nodes holds the gang.
    topology = tmp_path / "topology.conf"
    topology.write_text(
        "SwitchName=spine Switches=leaf[1-2]\nSwitchName=leaf1 Nodes=n[1-3]\nSwitchName=leaf2 Nodes=n[4-5]\n"
    )
    workload = FIXTURES_DIR / "jobset-leader-workers.yaml"
    result = place_cli(str(workload), "-t", str(topology), "--gpus-per-node", "4", "-o", "json")
    assert result.exit_code == 0, result.output
    (group,) = json.loads(result.stdout)["podGroups"]
    assert group["fits"] and group["preferredLevel"] == "slurm.wmap.dev/switch-tier-0"
    assert group["candidates"] == ["leaf1"]  # leaf2 has only 2 nodes
    # Without the flag the nodes have Topograph's default 8 GPUs: two pods share a node, leaf2 fits too.
    result = place_cli(str(workload), "-t", str(topology), "-o", "json")
    (group,) = json.loads(result.stdout)["podGroups"]
    assert sorted(group["candidates"]) == ["leaf1", "leaf2"]
