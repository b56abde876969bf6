"""Run order (a definition's ``run`` sections): the peak of pods that run at once, and the pods of the whole run.

The heaviest antichain is checked against every subset of small random orders (the definition of an
antichain: no element precedes another); the tree figures on a small synthetic definition whose
answers are worked out by hand in each case.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
import yaml

from workloadmap.catalog import Catalog
from workloadmap.definitions import Definition
from workloadmap.errors import InputError
from workloadmap.interpreter import inspect
from workloadmap.interpreter.runs import heaviest_antichain


def _closure(count, edges):
    reach = {index: set() for index in range(count)}
    for before, after in edges:
        reach[before].add(after)
    changed = True
    while changed:
        changed = False
        for index in range(count):
            more = set().union(*(reach[other] for other in reach[index])) - reach[index]
            if more:
                reach[index] |= more
                changed = True
    return reach


def _brute_force(weights, edges):
    reach = _closure(len(weights), edges)
    best = Fraction(0)
    for size in range(len(weights) + 1):
        for subset in itertools.combinations(range(len(weights)), size):
            if all(b not in reach[a] for a in subset for b in subset):
                best = max(best, sum((weights[i] for i in subset), Fraction(0)))
    return best


@pytest.mark.parametrize("seed", range(60))
def test_heaviest_antichain_is_the_heaviest_set_of_unordered_elements(seed):
    rng = random.Random(seed)
    count = rng.randint(1, 8)
    weights = [Fraction(rng.randint(0, 9), rng.choice([1, 1, 2])) for _ in range(count)]
    edges = {(a, b) for a in range(count) for b in range(a + 1, count) if rng.random() < 0.35}
    chosen = heaviest_antichain(weights, edges)
    reach = _closure(count, edges)
    assert all(b not in reach[a] for a in chosen for b in chosen)  # an antichain
    assert sum((weights[i] for i in chosen), Fraction(0)) == _brute_force(weights, edges)


_DEFINITION = """
name: staged
group: example.com
kind: Staged
versions: [v1]
components:
  - name: stage
    instances: spec.stages
    run: {sequential: true, maxConcurrent: parallelism}
    components:
      - name: task
        kind: Pod
        instances: tasks
        podTemplate: template
        replicas: "replicas || `1`"
        run: {after: after}
gang:
  podGroups: [{minMember: 1}]
"""


def _tree(stages):
    definition = Definition.model_validate(yaml.safe_load(_DEFINITION)).compile()
    resource = {"apiVersion": "example.com/v1", "kind": "Staged", "metadata": {"name": "s"}, "spec": {"stages": stages}}
    return inspect(resource, catalog=Catalog([definition]))


def _task(name, gpus=0, replicas=1, after=()):
    limits = {"nvidia.com/gpu": str(gpus)} if gpus else {}
    template = {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}, "limits": limits}}]}}
    return {"name": name, "replicas": replicas, "after": list(after), "template": template}


def test_stages_run_one_after_another_and_tasks_by_their_dependencies():
    # stage one: a (4 pods) then b and c side by side (1 and 2 pods); stage two: one task of 3 pods with 2 GPUs each.
    tree = _tree(
        [
            {
                "name": "one",
                "tasks": [_task("a", replicas=4), _task("b", after=["a"]), _task("c", replicas=2, after=["a"])],
            },
            {"name": "two", "tasks": [_task("train", gpus=2, replicas=3)]},
        ]
    )
    # at once: at most 4 pods (a), 6 GPUs (train); over the run 4 + 1 + 2 + 3 = 10 pods, 6 GPUs
    assert (tree.totals.pods, tree.totals.gpus) == (4, 6)
    assert (tree.over_run.pods, tree.over_run.gpus) == (10, 6)
    assert tree.totals.resources["cpu"] == 4 and tree.over_run.resources["cpu"] == 10
    # the moment placement checks: the most GPUs (train's 3 pods)
    peak = {component.name: component.pods_at_peak for component in tree.walk() if component.has_pod_template}
    assert peak == {"a": 0, "b": 0, "c": 0, "train": 3}
    # one PodGroup of the whole workload holds that moment
    [group] = tree.pod_groups
    assert (group.pods, [(s.component, s.count) for s in group.pod_sets]) == (3, [("two/train", 3)])
    data = tree.to_dict()
    assert data["overRun"]["pods"] == 10 and data["components"][1]["components"][0]["podsAtPeak"] == 3


def test_a_cap_limits_the_pods_of_an_instance_at_once():
    stages = [{"name": "one", "parallelism": 2, "tasks": [_task("a", replicas=5), _task("b", replicas=5)]}]
    tree = _tree(stages)
    assert (tree.totals.pods, tree.over_run.pods) == (2, 10)


def test_tasks_in_parallel_branches_can_all_run_at_once():
    # a -> b -> c and d -> e, f after b: c, e and f can run together (3 pods), though no level holds 3.
    tasks = [
        _task("a"),
        _task("b", after=["a"]),
        _task("c", after=["b"]),
        _task("d"),
        _task("e", after=["d"]),
        _task("f", after=["b"]),
    ]
    tree = _tree([{"name": "one", "tasks": tasks}])
    assert (tree.totals.pods, tree.over_run.pods) == (3, 6)


def test_a_workload_without_run_order_has_equal_figures():
    from helpers import load_fixture

    tree = inspect(load_fixture("jobset-leader-workers.yaml"))
    assert tree.over_run == tree.totals
    assert all(component.pods_at_peak is None for component in tree.walk())


def test_a_cycle_is_a_located_error():
    tasks = [_task("a", after=["b"]), _task("b", after=["a"])]
    with pytest.raises(InputError, match="waits for itself") as caught:
        _tree([{"name": "one", "tasks": tasks}])
    assert str(caught.value).startswith("field spec.stages[0].tasks[0].after: component one/a waits for itself")


_LIKE = """
name: calls
group: example.com
kind: Calls
versions: [v1]
components:
  - name: call
    instances: "[{name: spec.entry, uses: spec.entry}]"
    podSpec: "pick(root().spec.units, 'name', [uses])[0] | image && {containers: [{name: 'c', image: image}]} || `null`"
    components:
      - name: inner
        like: call
        instances: "pick(root().spec.units, 'name', [uses])[0] | calls"
        run: {sequential: true}
"""


def _calls(units, entry="top"):
    definition = Definition.model_validate(yaml.safe_load(_LIKE)).compile()
    resource = {"apiVersion": "example.com/v1", "kind": "Calls", "metadata": {"name": "c"}}
    resource["spec"] = {"entry": entry, "units": units}
    return inspect(resource, catalog=Catalog([definition]))


def test_a_like_component_runs_what_its_element_names_at_any_depth():
    # top runs a then mid in order; mid runs b then c: four pods over the run, one at a time.
    units = [
        {"name": "top", "calls": [{"name": "1", "uses": "a"}, {"name": "2", "uses": "mid"}]},
        {"name": "mid", "calls": [{"name": "1", "uses": "b"}, {"name": "2", "uses": "c"}]},
        {"name": "a", "image": "x"},
        {"name": "b", "image": "x"},
        {"name": "c", "image": "x"},
    ]
    tree = _calls(units)
    assert (tree.totals.pods, tree.over_run.pods) == (1, 3)
    assert [c.name for c in tree.walk() if c.has_pod_template] == ["1", "1", "2"]


def test_a_recursion_is_expanded_once_and_said():
    units = [
        {"name": "top", "calls": [{"name": "1", "uses": "a"}, {"name": "2", "uses": "top"}]},
        {"name": "a", "image": "x"},
    ]
    tree = _calls(units)
    assert tree.over_run.pods == 1
    assert any("recursion" in warning for warning in tree.warnings)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("like: call", "like: nowhere", "names no other component"),
        ("like: call", "like: call\n        podSpec: x", "cannot also set pod_spec"),
    ],
)
def test_like_is_validated(old, new, message):
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=message):
        Definition.model_validate(yaml.safe_load(_LIKE.replace(old, new)))
