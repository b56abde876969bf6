"""Budgets: products of fields are bounded before anything is built, with errors naming field and limit.

Each manifest is a few lines that ask for millions of pods, segments or gangs; before budgets,
each took minutes and gigabytes before failing (or, for the JobSet, reported 10^14 pods with
exit 0). The tests pass only when the refusal comes from the numbers, not from building: they run
under a low address-space limit would be flaky, so instead each checks the budget named and that
raising it moves the refusal to the next budget in line.
"""

from __future__ import annotations

import pytest

from helpers import yaml_doc
from workloadmap import BudgetError, Budgets, inspect
from workloadmap.budgets import applied
from workloadmap.catalog import Catalog

DYNAMO_REPLICAS = Catalog.load(use_env=False).get("dynamographdeployment").components[0].replicas

LWS = """
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: big
  annotations: {kai.scheduler/segment-size: "2"}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 10000000
    workerTemplate:
      spec:
        containers:
        - {name: w, image: x, resources: {limits: {nvidia.com/gpu: 1}}}
"""

PYTORCHJOB = """
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: many}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 10000000
      template:
        metadata: {annotations: {kai.scheduler/segment-size: "1"}}
        spec:
          containers: [{name: pytorch, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]
"""

GROVE = """
apiVersion: grove.io/v1alpha1
kind: PodCliqueSet
metadata: {name: g}
spec:
  replicas: 1
  template:
    cliques:
      - name: w
        spec: {roleName: w, replicas: 1, podSpec: {containers: [{name: w, image: x}]}}
    podCliqueScalingGroups:
      - {name: sg, cliqueNames: [w], replicas: 10000000, minAvailable: 1}
"""

DYNAMO = """
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: d}
spec:
  services:
    worker:
      replicas: 10000000
      multinode: {nodeCount: 2}
      extraPodSpec: {mainContainer: {image: x}}
"""

JOBSET = """
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: huge}
spec:
  replicatedJobs:
  - name: w
    replicas: 10000000
    template:
      spec:
        parallelism: 10000000
        template:
          spec:
            containers: [{name: c, image: x}]
"""

RAISED = Budgets(pods=100_000_000)


@pytest.mark.parametrize(
    "manifest, pods, field",
    [
        (LWS, 10_000_000, "sub(spec.leaderWorkerTemplate.size || `1`, `1`)"),
        (PYTORCHJOB, 10_000_000, "spec.pytorchReplicaSpecs.Worker.replicas"),
        (GROVE, 10_000_000, "spec.template.cliques[0]"),
        (DYNAMO, 20_000_000, DYNAMO_REPLICAS),  # its scaling adapter's replicas when it opts in, else its own
        (JOBSET, 10**14, "spec.replicatedJobs[0].replicas"),
    ],
    ids=["lws", "pytorchjob", "grove", "dynamo", "jobset"],
)
def test_total_pods_are_bounded_before_gangs_are_built(manifest, pods, field):
    with pytest.raises(BudgetError) as caught:
        inspect(yaml_doc(manifest))
    error = caught.value
    assert error.field == field
    assert f"{pods:,} pods" in error.message and "limit of 1,000,000 pods" in error.message
    assert "--max-pods" in error.message


@pytest.mark.parametrize(
    "manifest, budget, words",
    [
        (LWS, "sub_groups", "5,000,000 KAI segments (10,000,000 pods of subgroup workers in segments of 2)"),
        (PYTORCHJOB, "sub_groups", "10,000,000 KAI segments (10,000,000 pods of subgroup worker in segments of 1)"),
        (GROVE, "scaled_gangs", "9,999,999 scaled gangs (1 x 9,999,999 replicas of sg beyond its minimum)"),
        (DYNAMO, "scaled_gangs", "9,999,999 scaled gangs (1 x 9,999,999 replicas of worker beyond its minimum)"),
    ],
    ids=["lws-segments", "pytorchjob-segments", "grove-scaled", "dynamo-scaled"],
)
def test_with_more_pods_allowed_segments_and_scaled_gangs_are_bounded(manifest, budget, words):
    with applied(RAISED), pytest.raises(BudgetError) as caught:
        inspect(yaml_doc(manifest))
    limit = f"{getattr(Budgets(), budget):,} {'SubGroups' if budget == 'sub_groups' else 'scaled gangs'}"
    assert words in caught.value.message and f"limit of {limit}" in caught.value.message


def test_the_segment_budget_names_the_annotation_field():
    with applied(RAISED), pytest.raises(BudgetError) as caught:
        inspect(yaml_doc(PYTORCHJOB))
    assert "kai.scheduler/segment-size" in caught.value.field and "--max-sub-groups" in caught.value.message


def test_raising_a_budget_lets_a_large_but_real_workload_through():
    text = LWS.replace("10000000", "3000").replace('"2"', '"4"')
    tree = inspect(yaml_doc(text))
    assert tree.totals.pods == 3000
    with applied(Budgets(sub_groups=100)), pytest.raises(BudgetError, match="750 KAI segments"):
        inspect(yaml_doc(text))


def test_per_replica_pod_groups_are_bounded():
    text = LWS.replace("replicas: 1\n", "replicas: 200\n").replace("10000000", "2")
    assert len(inspect(yaml_doc(text)).pod_groups) == 200
    with applied(Budgets(pod_groups=150)), pytest.raises(BudgetError, match="200 PodGroups .* limit of 150"):
        inspect(yaml_doc(text))


def test_budgets_must_be_positive_whole_numbers():
    with pytest.raises(ValueError, match="pods"):
        Budgets(pods=0)
    with pytest.raises(TypeError):
        with applied({"pods": 3}):  # type: ignore[arg-type]
            pass


def test_the_sub_group_budget_counts_every_group_of_a_workload():
    """The SubGroups of all a workload's PodGroups count together (a running total, not one group's).

    KAI's leaderworkerset grouper (pkg/podgrouper/podgrouper/plugins/leaderworkerset/lws_grouper.go) gives each
    group a ``leader`` and a ``workers`` SubGroup: 300 groups make 600 SubGroups.
    """
    text = (
        LWS.replace('  annotations: {kai.scheduler/segment-size: "2"}\n', "")
        .replace("replicas: 1\n", "replicas: 300\n")
        .replace("10000000", "3")
    )
    tree = inspect(yaml_doc(text))
    assert sum(len(group.sub_groups) for group in tree.pod_groups) == 600
    with applied(Budgets(sub_groups=600)):
        assert len(inspect(yaml_doc(text)).pod_groups) == 300
    with applied(Budgets(sub_groups=599)), pytest.raises(BudgetError, match="600 SubGroups .* limit of 599"):
        inspect(yaml_doc(text))
