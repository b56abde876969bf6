"""The shape of placement: scheduler rules from a table, each result built once, modules without cycles.

The rules' answers themselves are checked against Kueue's and KAI's own tests elsewhere
(test_kueue_tas.py, test_kai_tas.py, test_policies.py); here: that a rule is a row of
``POLICIES`` and nothing else, that a rule's decisions are what the report shows, that every
``GroupPlacement`` and ``PlacementReport`` is constructed once and never changed, that
``place_many`` keeps the cluster a ranking chose, and that no module of ``workloadmap/placement``
imports another that imports it back (lazy and type-only imports included).
"""

from __future__ import annotations

import ast
import dataclasses

import pytest

from helpers import FIXTURES_DIR, REPO_ROOT, load_fixture
from helpers.placement import HOST, RACK, node, pod_set, rack_cluster, tree
from workloadmap import inspect
from workloadmap.errors import PlacementError
from workloadmap.placement import (
    DEFAULT_POLICY,
    POLICIES,
    Decision,
    Decisions,
    FailedWorkload,
    GroupPlacement,
    PlacedWorkload,
    PlacementReport,
    SchedulerPolicy,
    Verdict,
    place,
    place_many,
    place_on,
    place_together,
)
from workloadmap.placement.rules import assignment_at
from workloadmap.placement.schedule import Options
from workloadmap.topology import Cluster, load_cluster

PLACEMENT_DIR = REPO_ROOT / "workloadmap" / "placement"
NUMA = FIXTURES_DIR / "numa"


def one_node_rule(nodes, tree, analysis, options):
    """A test-only rule: every PodGroup on the first node of the tree, except one named ``refused``."""
    decisions = {}
    for group in analysis.pod_groups:
        if group.name == "refused":
            decisions[group.name] = Decision(reason="the test rule refuses it")
        else:
            decisions[group.name] = Decision(assignment_at(nodes, {0: group.pods}, None))
    return Decisions(decisions, ("placed by the test rule",))


@pytest.fixture
def test_rule(monkeypatch):
    """The test rule registered as ``one-node`` for the test, removed after it."""
    monkeypatch.setitem(POLICIES, "one-node", SchedulerPolicy("everything on the first node", one_node_rule))
    yield "one-node"


def two_groups():
    return tree(
        [
            {"name": "kept", "minMember": 2, "pods": 2, "podSets": [pod_set("a", 2, 1)]},
            {"name": "refused", "minMember": 1, "pods": 1, "podSets": [pod_set("b", 1, 1)]},
        ]
    )


# ---------------------------------------------------------------- the table


def test_the_table_holds_kueue_kai_and_kube_scheduler_kueue_first():
    assert list(POLICIES) == ["kueue", "kai", "kube-scheduler"] and DEFAULT_POLICY == next(iter(POLICIES))
    assert all(policy.summary and callable(policy.assign) for policy in POLICIES.values())


def test_a_rule_registered_in_the_table_places_and_its_decisions_are_the_report(test_rule):
    report = place(two_groups(), rack_cluster(), policy=test_rule)
    assert report.policy == "one-node" and report.notes == ["placed by the test rule"]
    kept, refused = report.pod_groups
    assert kept.verdict is Verdict.FITS and kept.fits and kept.reason is None
    assert [(entry.name, entry.pods) for entry in kept.assignment.nodes] == [("b0-r0-h0", 2)]
    assert refused.verdict is Verdict.DOES_NOT_FIT and refused.assignment is None
    assert refused.reason == "the test rule refuses it"
    assert report.verdict is Verdict.DOES_NOT_FIT
    assert report.reason == "1 of 2 groups fit; refused does not: the test rule refuses it"
    # the standalone analysis is the same whatever the rule
    kueue = place(two_groups(), rack_cluster(), policy="kueue")
    assert [group.levels for group in report.pod_groups] == [group.levels for group in kueue.pod_groups]


def test_a_rule_removed_from_the_table_is_refused():
    assert "one-node" not in POLICIES  # the fixture's row is gone after its test
    with pytest.raises(ValueError, match="policy must be one of kueue, kai, kube-scheduler, got 'one-node'"):
        place(two_groups(), rack_cluster(), policy="one-node")
    with pytest.raises(ValueError, match="policy must be one of"):
        Options(policy="volcano")


def test_a_gang_the_rule_does_not_decide_keeps_the_analysis_verdict(monkeypatch):
    # Kueue places PodSets, not SubGroups: a SubGroup gets no decision and keeps the analysis' verdict.
    monkeypatch.setitem(POLICIES, "none", SchedulerPolicy("decides nothing", lambda *_: Decisions({})))
    report = place(two_groups(), rack_cluster(), policy="none")
    assert [group.verdict for group in report.pod_groups] == [Verdict.FITS, Verdict.FITS]
    assert all(group.assignment is None for group in report.pod_groups)


# ---------------------------------------------------------------- results built once


@pytest.fixture
def constructed(monkeypatch):
    """The ids of the GroupPlacement objects constructed while the test runs, in order."""
    made: list[int] = []
    original = GroupPlacement.__init__

    def counted(self, *args, **kwargs):
        made.append(id(self))
        original(self, *args, **kwargs)

    monkeypatch.setattr(GroupPlacement, "__init__", counted)
    return made


def test_every_group_placement_and_report_is_constructed_once_and_frozen(constructed):
    made = constructed
    workload = tree(
        [
            {
                "name": "serve",
                "minMember": 4,
                "pods": 4,
                "podSets": [pod_set("serve/worker", 4, 8)],
                "subGroups": [
                    {"name": "s0", "minMember": 2, "pods": 2, "podSets": [pod_set("serve/worker", 2, 8)]},
                    {"name": "s1", "minMember": 2, "pods": 2, "podSets": [pod_set("serve/worker", 2, 8)]},
                ],
            }
        ]
    )
    for policy in POLICIES:
        made.clear()
        report = place(workload, rack_cluster(), policy=policy)
        kept = [id(group) for group in report.groups()]
        assert sorted(made) == sorted(kept), policy  # each placement built once, none built and dropped
        group = report.pod_groups[0]
        with pytest.raises(dataclasses.FrozenInstanceError):
            group.reason = "changed"  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            report.verdict = Verdict.FITS  # type: ignore[misc]


def test_fits_is_derived_from_the_verdict_not_given():
    for cls in (GroupPlacement, PlacementReport):
        fits = next(field for field in dataclasses.fields(cls) if field.name == "fits")
        assert not fits.init and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]


@pytest.mark.parametrize("policy", ["kueue", "kai"])
def test_a_numa_rejection_is_settled_into_the_placement_built_once(policy, constructed):
    # test_numa_placement.py's case: the scheduler puts 3 pods on gpu-a, its kubelet admits 2.
    from workloadmap.numa import TopologyManager, TopologyManagerPolicy, TopologyManagerScope

    manager = TopologyManager(TopologyManagerPolicy("none"), TopologyManagerScope("container"))
    cluster = load_cluster(
        NUMA / "nodes.yaml", node_topology=NUMA / "node-topology.yaml", pods_file=NUMA / "pods.yaml",
        topology_manager=manager,
    )  # fmt: skip
    report = place(inspect(load_fixture("numa/three-workers.yaml")), cluster, policy=policy)
    group = report.pod_groups[0]
    assert group.verdict is Verdict.DOES_NOT_FIT and group.assignment is None
    assert "its kubelet admits 2" in group.reason
    assert sorted(constructed) == sorted(id(member) for member in report.groups())


# ---------------------------------------------------------------- several workloads


def small(name: str, gpus: int = 8, pods: int = 4):
    return tree([{"name": name, "minMember": pods, "pods": pods, "podSets": [pod_set(name, pods, gpus)]}], name=name)


def test_place_many_on_one_cluster_together_is_place_together():
    trees = [small("a"), small("b"), small("c")]
    many = place_many(trees, [rack_cluster(blocks=1, racks=2)], required=RACK)
    joint = place_together(trees, rack_cluster(blocks=1, racks=2), required=RACK)
    assert many.joint is not None and many.joint.to_dict() == joint.to_dict()
    assert [item.placement.report.to_dict() for item in many.workloads] == [r.to_dict() for r in joint.reports]
    assert many.verdict is Verdict.DOES_NOT_FIT  # two racks, three rack-sized gangs


def test_place_many_each_alone_places_on_the_empty_cluster():
    many = place_many([small("a"), small("b"), small("c")], [rack_cluster(blocks=1, racks=2)], together=False)
    assert many.joint is None and many.verdict is Verdict.FITS
    assert all(item.placement.report.placed_before == [] for item in many.workloads)


def test_a_workload_with_a_bad_request_fails_alone_located_in_its_file():
    # Its template asks Kueue for a rack, a level the flat cluster lacks: Kueue's webhook would reject it.
    trees = [small("a"), inspect(load_fixture("placement/job-rack-required.yaml"), source="job.yaml"), small("b")]
    many = place_many(trees, [Cluster("flat", [node("n0"), node("n1"), node("n2")], [HOST])], together=False)
    assert [type(item) for item in many.workloads] == [PlacedWorkload, FailedWorkload, PlacedWorkload]
    failed = many.workloads[1]
    assert isinstance(failed, FailedWorkload) and isinstance(failed.error, PlacementError)
    assert failed.error.location.file == "job.yaml" and "is not a level of the topology" in str(failed.error)
    # Ranked across clusters, the same request makes each cluster unfit instead.
    flat = [Cluster(name, [node("n0")], [HOST]) for name in ("one", "two")]
    ranked = place_many(trees[1:2], flat).workloads[0]
    assert isinstance(ranked, PlacedWorkload) and ranked.placement.report is None
    assert [unfit.cluster for unfit in ranked.placement.ranking.unfit] == ["one", "two"]


def test_a_ranking_keeps_the_cluster_it_chose_even_when_names_repeat():
    # Two clusters of one name: the second is the tighter fit (fewer leftover GPUs), so it is
    # chosen, and it is that cluster object (not the first of the same name) that takes the pods.
    roomy = Cluster("same", [node(f"n{i}") for i in range(4)], [HOST])
    tight = Cluster("same", [node(f"m{i}") for i in range(2)], [HOST])
    placement = place_on(small("a", pods=1), [roomy, tight])
    assert placement.cluster is tight and placement.report.pod_groups[0].assignment.nodes[0].name == "m0"
    many = place_many([small("a", pods=2), small("b", pods=1)], [roomy, tight])
    first, second = (item.placement for item in many.workloads)
    assert first.cluster is tight
    assert second.cluster is roomy  # tight is full after the first: the second is ranked after it
    assert [unfit.cluster for unfit in second.ranking.unfit] == ["same"]
    assert second.report.placed_before == []  # nothing was placed on roomy before


def test_place_many_refuses_misuse_up_front():
    with pytest.raises(ValueError):
        place_many([small("a")], [])
    with pytest.raises(ValueError, match="policy must be one of"):
        place_many([small("a")], [rack_cluster()], policy="volcano")


# ---------------------------------------------------------------- modules


def _imports(path) -> set[str]:
    """Placement modules a module imports, at any depth: lazy and TYPE_CHECKING imports count."""
    found = set()
    for item in ast.walk(ast.parse(path.read_text())):
        if isinstance(item, ast.ImportFrom) and item.level == 1:
            if item.module:
                found.add(item.module.split(".")[0])
            else:
                found.update(alias.name for alias in item.names)
        elif isinstance(item, ast.ImportFrom) and (item.module or "").startswith("workloadmap.placement."):
            found.add(item.module.split(".")[2])
    return found


def test_no_module_of_placement_imports_one_that_imports_it_back():
    graph = {path.stem: _imports(path) for path in PLACEMENT_DIR.glob("*.py") if path.stem != "__init__"}
    cycles: set[str] = set()
    done: set[str] = set()

    def visit(module, trail):  # depth first; a module met again on the current trail closes a cycle
        for imported in sorted(graph.get(module, ())):
            if imported in trail:
                cycles.add(" -> ".join([*trail[trail.index(imported) :], imported]))
            elif imported in graph and imported not in done:
                visit(imported, [*trail, imported])
        done.add(module)

    for module in sorted(graph):
        if module not in done:
            visit(module, [module])
    assert not cycles, sorted(cycles)


def test_private_names_do_not_cross_placement_modules():
    crossing = []
    for path in PLACEMENT_DIR.glob("*.py"):
        for item in ast.walk(ast.parse(path.read_text())):
            if isinstance(item, ast.ImportFrom) and item.level == 1:
                crossing += [
                    f"{path.stem} imports {item.module}.{a.name}" for a in item.names if a.name.startswith("_")
                ]
    assert not crossing, crossing
