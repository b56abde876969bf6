"""The Grove PodCliqueSet and Dynamo DynamoGraphDeployment definitions.

Expected figures follow Grove's gang design (docs/designs/gang-scheduling-semantics.md: one base PodGang
per PodCliqueSet replica with every standalone PodClique at its minAvailable, default its replicas; scaling
group replicas 0..minAvailable-1 in the base PodGang, one scaled PodGang per further replica), KAI's grove
plugin (schedulers.md A.4.6: one PodGroup per PodGang, minMember = sum of its podgroups' minReplicas) and
Dynamo's Grove rendering (a single-node service is a PodClique with minAvailable 1 unless set; a multinode
service a scaling group of nodeCount pods per replica). Each fixture's header repeats the arithmetic.
"""

from __future__ import annotations

import pytest
import yaml

from helpers import DATA_DIR, REPO_ROOT, load_fixture
from workloadmap.definitions import Definition
from workloadmap.quantities import format_resources

CORPUS_EXPECTED = DATA_DIR / "corpus_expected.yaml"


def leaves(tree) -> dict[str, tuple[int, float]]:
    return {c.name: (c.pods, c.gpus_per_pod) for c in tree.walk() if c.has_pod_template}


def gangs(tree) -> list[tuple[str, int, int]]:
    return [(group.name, group.min_member, group.pods) for group in tree.pod_groups]


def subgroups(group) -> list[tuple[str, int]]:
    return [(sub.name, sub.min_member) for sub in group.sub_groups]


@pytest.mark.parametrize("name", ["podcliqueset", "dynamographdeployment"])
def test_definition_file_loads(builtin_catalog, name):
    path = REPO_ROOT / "catalog" / f"{name}.yaml"
    definition = Definition.model_validate(yaml.safe_load(path.read_text())).compile(str(path))
    assert definition.name == name


def test_dynamo_definition_covers_both_versions(builtin_catalog):
    for version in ("v1alpha1", "v1beta1"):
        lookup = builtin_catalog.lookup(f"nvidia.com/{version}", "DynamoGraphDeployment")
        assert lookup is not None and lookup.definition.name == "dynamographdeployment"
        assert not lookup.warning


# ------------------------------------------------------------------------------------ Grove


def test_podcliqueset_replicas_each_get_a_base_podgang(inspect_builtin):
    tree = inspect_builtin(load_fixture("grove/podcliqueset-two-replicas.yaml"))
    assert (tree.totals.pods, tree.totals.gpus) == (12, 16)
    assert leaves(tree) == {"router": (4, 0), "engine": (8, 2)}
    engine = next(c for c in tree.walk() if c.name == "engine")
    assert (engine.min_pods, engine.max_pods) == (8, 16)
    router = next(c for c in tree.walk() if c.name == "router")
    assert router.min_pods == 2  # minAvailable 1 per PodCliqueSet replica
    assert gangs(tree) == [("grove-two-0", 5, 6), ("grove-two-1", 5, 6)]
    # Subgroups carry Grove's PodClique names: <pcs>-<replica>-<clique>.
    assert subgroups(tree.pod_groups[0]) == [("grove-two-0-router", 1), ("grove-two-0-engine", 4)]
    assert tree.gang_policy.startswith("KAI pod-grouper grove plugin")


def test_podcliqueset_scaling_group_is_expanded(inspect_builtin):
    """A scaling group's cliques are multiplied by its replicas; replicas beyond minAvailable are scaled PodGangs."""
    tree = inspect_builtin(load_fixture("grove/podcliqueset-scaling-group.yaml"))
    assert (tree.totals.pods, tree.totals.gpus) == (14, 9)
    assert [(min_member, pods) for _, min_member, pods in gangs(tree)] == [(9, 10), (4, 4)]


def test_podcliqueset_scaling_group_default_replicas_counts_right(inspect_builtin):
    """With the scaling group at Grove's defaults (replicas 1, minAvailable 1) the flat model is exact."""
    resource = load_fixture("grove/podcliqueset-scaling-group.yaml")
    group = resource["spec"]["template"]["podCliqueScalingGroups"][0]
    del group["replicas"], group["minAvailable"]
    tree = inspect_builtin(resource)
    # frontend 2 + leader 1 + worker 3 = 6 pods; base PodGang 1 + 1 + 3 = 5.
    assert (tree.totals.pods, tree.totals.gpus) == (6, 3)
    assert gangs(tree) == [("grove-sg-0", 5, 6)]


@pytest.mark.parametrize(
    ("status", "phase"),
    [
        ({"availableReplicas": 0, "replicas": 2}, "Initializing"),
        ({"availableReplicas": 1, "replicas": 2}, "Initializing"),
        ({"availableReplicas": 2, "replicas": 2}, "Running"),
        (
            {
                "availableReplicas": 0,
                "conditions": [{"type": "TopologyLevelsUnavailable", "status": "True", "reason": "X"}],
            },
            "Failed",
        ),
        (
            {"availableReplicas": 0, "conditions": [{"type": "TopologyLevelsUnavailable", "status": "False"}]},
            "Initializing",
        ),
    ],
)
def test_podcliqueset_phase(inspect_builtin, status, phase):
    resource = load_fixture("grove/podcliqueset-two-replicas.yaml")
    resource["status"] = status
    assert inspect_builtin(resource).phase == phase


# ------------------------------------------------------------------------------------ Dynamo


def test_dynamo_v1alpha1_fragmented_pod_spec(inspect_builtin):
    tree = inspect_builtin(load_fixture("grove/dynamo-v1alpha1-fragmented.yaml"))
    assert (tree.totals.pods, tree.totals.gpus) == (10, 64)
    components = {c.name: c for c in tree.walk()}
    assert format_resources(components["Frontend"].pod_resources) == {"cpu": "1", "memory": "2Gi"}
    assert format_resources(components["worker"].pod_resources) == {
        "cpu": "8100m",
        "memory": "64Gi",
        "nvidia.com/gpu": "8",
        "rdma/ib": "1",
    }
    assert (components["worker"].replicas, components["worker"].pods_per_replica) == (2, 4)
    assert components["worker"].topology_annotations == {"kai.scheduler/topology": "gb200"}  # extraPodMetadata
    # The base PodGang holds Frontend (2 pods, minAvailable 1) and worker replica 0 (4 pods); worker replica 1
    # (beyond minAvailable 1) is a scaled PodGang of its own.
    assert [(min_member, pods) for _, min_member, pods in gangs(tree)] == [(5, 6), (4, 4)]
    assert subgroups(tree.pod_groups[0]) == [("dgd-frag-0-frontend", 1), ("dgd-frag-0-worker-0", 4)]


def test_dynamo_multinode_replicas_beyond_min_available_get_scaled_podgangs(inspect_builtin):
    tree = inspect_builtin(load_fixture("grove/dynamo-v1alpha1-fragmented.yaml"))
    assert [(min_member, pods) for _, min_member, pods in gangs(tree)] == [(5, 6), (4, 4)]


def test_dynamo_v1beta1_components_list(inspect_builtin):
    tree = inspect_builtin(load_fixture("grove/dynamo-v1beta1.yaml"))
    assert (tree.totals.pods, tree.totals.gpus) == (5, 8)
    assert leaves(tree) == {"frontend": (3, 0), "decode": (2, 4)}
    decode = next(c for c in tree.walk() if c.name == "decode")
    assert decode.topology_annotations == {"kai.scheduler/topology": "gb200"}
    assert decode.template_path == ["spec", "components", 1, "podTemplate"]
    # frontend: Dynamo's PodClique minAvailable 1 (not its 3 replicas); decode 1 x nodeCount 2.
    assert [(min_member, pods) for _, min_member, pods in gangs(tree)] == [(3, 5)]


@pytest.mark.parametrize(
    ("state", "phase"),
    [("", "Undefined"), ("pending", "Initializing"), ("successful", "Running"), ("failed", "Failed")],
)
def test_dynamo_phase(inspect_builtin, state, phase):
    resource = load_fixture("grove/dynamo-v1beta1.yaml")
    resource["status"] = {"state": state}
    assert inspect_builtin(resource).phase == phase


# ------------------------------------------------------------------------------------ corpus


def _corpus_cases() -> list:
    entries = yaml.safe_load(CORPUS_EXPECTED.read_text())
    cases = []
    for entry in entries:
        if not entry["file"].startswith(("podcliqueset/", "dynamographdeployment/")):
            continue
        cases.append(pytest.param(entry, id=entry["file"]))
    return cases


@pytest.mark.parametrize("entry", _corpus_cases())
def test_corpus_expected(corpus_dir, builtin_catalog, entry):
    from workloadmap.interpreter import inspect_file

    results = inspect_file(str(corpus_dir / entry["file"]), catalog=builtin_catalog)
    trees = [result.tree for result in results if result.tree]
    assert [str(result.error) for result in results if result.error] == []
    assert len(trees) == len(entry["documents"])
    for tree, expected in zip(trees, entry["documents"], strict=False):
        assert (tree.workload.kind, tree.workload.name) == (expected["kind"], expected["name"])
        assert (tree.totals.pods, tree.totals.gpus) == (expected["pods"], expected["gpus"])
        assert leaves(tree) == {
            name: (figures["pods"], figures["gpusPerPod"]) for name, figures in expected["components"].items()
        }
        assert [group.min_member for group in tree.pod_groups] == [
            group["minMember"] for group in expected["podGroups"]
        ]
        # Subgroup names differ by design (wmap: clique / service name; Grove: PodClique full name, Dynamo
        # splits multinode services into -ldr/-wkr); what each PodGroup's subgroups add up to must agree.
        for group, expected_group in zip(tree.pod_groups, expected["podGroups"], strict=False):
            assert sum(sub.min_member for sub in group.sub_groups) == sum(
                sub["minMember"] for sub in expected_group["subGroups"]
            )
