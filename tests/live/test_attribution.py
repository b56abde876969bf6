"""Pod attribution on the pods the operators really create, for every kind with an owner chain.

Each manifest (the repository's fixtures, and every manifest of the shared corpus for the kind)
is played through the operator's controller by :mod:`helpers.operators`: the objects, names,
labels and owner references that JobSet, LWS, KubeRay, the training-operator and Grove create.
The builder records which spec element each pod comes from (the operator's own knowledge), and
attribution must agree for every pod. The namespace also holds another workload's pods, a bare
pod, and a pod of the workload that no component claims (left over from a removed role).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from helpers import CORPUS_DIR, FIXTURES_DIR, shared_missing
from helpers.operators import LiveCluster, fill
from workloadmap.live import describe, from_dumps

# kind folder in the corpus, fixtures, and the builder method
KINDS = {
    "JobSet": ("jobset", ["jobset-leader-workers.yaml", "jobset-inorder.yaml"], "run_jobset"),
    "LeaderWorkerSet": ("leaderworkerset", ["leaderworkerset.yaml"], "run_lws"),
    "RayCluster": ("raycluster", ["raycluster.yaml"], "run_raycluster"),
    "PyTorchJob": ("pytorchjob", ["pytorchjob-elastic.yaml"], "run_pytorchjob"),
    "PodCliqueSet": (
        "podcliqueset",
        ["grove/podcliqueset-scaling-group.yaml", "grove/podcliqueset-two-replicas.yaml"],
        "run_podcliqueset",
    ),
}


def _manifests(path: Path, kind: str) -> list[dict]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if isinstance(doc, dict) and doc.get("kind") == kind]


def _cases():
    for kind, (folder, fixtures, method) in KINDS.items():
        for name in fixtures:
            yield pytest.param(kind, FIXTURES_DIR / name, method, id=f"fixture-{name}")
        if not CORPUS_DIR.is_dir():
            yield pytest.param(kind, None, method, marks=pytest.mark.skip(reason=shared_missing(CORPUS_DIR)))
            continue
        corpus = sorted((CORPUS_DIR / folder).glob("*.yaml")) if (CORPUS_DIR / folder).is_dir() else []
        for path in corpus:
            yield pytest.param(kind, path, method, id=f"corpus-{folder}-{path.name}")


def _scenario(manifest: dict, method: str) -> tuple[LiveCluster, dict]:
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(4)
    workload = cluster.workload({**manifest, "metadata": {**manifest["metadata"], "namespace": "ml"}})
    getattr(cluster, method)(workload, fill(nodes, per_node=8))
    # Another workload's pods in the same namespace, and a bare pod: never the workload's.
    other = cluster.workload({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "other"}, "spec": {}})
    cluster.pod("other-abcde", other, dict(next(iter(cluster.pods()))["metadata"]["labels"]), None, fill([]))
    cluster.pod("debug", None, {}, None, fill([]))
    # A pod owned by the workload that no component claims (a role removed from the spec).
    cluster.pod("leftover-0", workload, {"example.com/role": "removed"}, None, fill([]))
    return cluster, workload


@pytest.mark.parametrize(("kind", "path", "method"), list(_cases()))
def test_every_pod_goes_to_the_component_the_operator_made_it_for(kind, path, method):
    for manifest in _manifests(path, kind):
        cluster, workload = _scenario(manifest, method)
        report = describe(workload, from_dumps(cluster.objects, cluster.nodes))
        found = {pod.name: (status.role, status.instance) for status in _leaves(report) for pod in status.pods}
        assert cluster.expected, "the operator made pods"
        assert found == cluster.expected
        assert [pod.name for pod in report.unattributed_pods] == ["leftover-0"]


def _leaves(report):
    for component in report.components:
        for status in component.walk():
            if not status.components:
                yield status


@pytest.mark.parametrize(("kind", "path", "method"), list(_cases()))
def test_counts_and_gangs_agree_with_the_tree(kind, path, method):
    """Every pod exists: current = desired per component, and each PodGroup/SubGroup holds its pods."""
    for manifest in _manifests(path, kind):
        cluster, workload = _scenario(manifest, method)
        report = describe(workload, from_dumps(cluster.objects, cluster.nodes), pod_limit=None)
        for leaf in _leaves(report):
            assert leaf.replicas.current == leaf.replicas.desired, leaf.name
        members = Counter(pod.gang for leaf in _leaves(report) for pod in leaf.pods)
        assert members == Counter({group.name: group.pods for group in report.tree.pod_groups if group.pods})
        # Every pod is scheduled, so the audit's count of each gang's pods is its membership.
        assert report.placement is not None
        audited = {(gang.name, gang.sub_group): gang.scheduled_pods for gang in report.placement.pod_groups}
        for group in report.tree.pod_groups:
            assert audited[(group.name, None)] == group.pods, group.name
            for sub in group.sub_groups:
                assert audited[(group.name, sub.name)] == sub.pods, (group.name, sub.name)


def test_a_scheduled_run_named_by_its_operator_still_owns_its_pods():
    """A Volcano CronJob's run is the Job ``<name>-<minutes since epoch>`` (volcano
    pkg/controllers/cronjob/cronjob_controller_util.go getJobName), not the CronJob's name: with a
    single embedded object of its kind, any Job on the owner chain is the run."""
    manifest = yaml.safe_load((FIXTURES_DIR / "kinds" / "cronjob-volcano.yaml").read_text())
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(1)
    workload = cluster.workload(manifest)
    run = cluster.owned("batch.volcano.sh/v1alpha1", "Job", "nightly-tf-29412120", workload)
    # Volcano labels each task's pods volcano.sh/task-spec=<task> and volcano.sh/task-index
    # (pkg/controllers/job/job_controller_util.go createJobPod).
    for task, replicas in (("ps", 1), ("worker", 2)):
        for index in range(replicas):
            labels = {"volcano.sh/task-spec": task, "volcano.sh/task-index": str(index)}
            cluster.pod(f"nightly-tf-29412120-{task}-{index}", run, labels, None, fill(nodes))
    report = describe(workload, from_dumps(cluster.objects, cluster.nodes))
    found = {
        pod.name: status.instance
        for component in report.components
        for status in component.walk()
        for pod in status.pods
    }
    assert found == {
        "nightly-tf-29412120-ps-0": "ps",
        "nightly-tf-29412120-worker-0": "worker",
        "nightly-tf-29412120-worker-1": "worker",
    }
    assert report.unattributed_pods == []
