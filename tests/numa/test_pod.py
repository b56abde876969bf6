"""QoS class and exclusive CPUs of a pod spec.

QoS cases follow ``pkg/apis/core/v1/helper/qos/qos_test.go`` (``TestComputePodQOS``: best-effort
without cpu/memory, guaranteed when every container sets equal cpu and memory limits, burstable
otherwise, init containers counted, pod-level resources deciding alone when set). Exclusive CPUs
follow ``pkg/kubelet/cm/cpumanager/policy_static.go`` ``guaranteedCPUs`` (Guaranteed pod and a
whole cpu request) and the ``GetTopologyHints`` early return for pods with pod-level resources
while ``PodLevelResourceManagers`` is off.
"""

from __future__ import annotations

import pytest

from workloadmap.errors import InputError
from workloadmap.numa import ContainerKind, QosClass, pod_numa, qos_class
from workloadmap.resources import PodDemand, pod_demand


def container(name: str, limits: dict | None = None, requests: dict | None = None, **extra) -> dict:
    resources = {}
    if limits is not None:
        resources["limits"] = limits
    if requests is not None:
        resources["requests"] = requests
    return {"name": name, "resources": resources, **extra}


G = {"cpu": "4", "memory": "8Gi"}
CASES = [
    ("no cpu or memory anywhere", {"containers": [container("a")]}, QosClass.BEST_EFFORT),
    ("a GPU alone is not a QoS resource", {"containers": [container("a", {"nvidia.com/gpu": 1})]},
     QosClass.BEST_EFFORT),
    ("limits only: requests default to them", {"containers": [container("a", G)]}, QosClass.GUARANTEED),
    ("equal requests and limits, GPUs too", {"containers": [container("a", {**G, "nvidia.com/gpu": 2}, G)]},
     QosClass.GUARANTEED),
    ("cpu request below its limit", {"containers": [container("a", G, {"cpu": "2", "memory": "8Gi"})]},
     QosClass.BURSTABLE),
    ("memory limit missing", {"containers": [container("a", {"cpu": "4"})]}, QosClass.BURSTABLE),
    ("one guaranteed, one best-effort container", {"containers": [container("a", G), container("b")]},
     QosClass.BURSTABLE),
    ("an init container without limits makes the pod burstable",
     {"initContainers": [container("init", requests={"cpu": "1"})], "containers": [container("a", G)]},
     QosClass.BURSTABLE),
    ("a sidecar with equal limits keeps it guaranteed",
     {"initContainers": [container("proxy", {"cpu": "1", "memory": "1Gi"}, restartPolicy="Always")],
      "containers": [container("a", G)]}, QosClass.GUARANTEED),
    ("pod-level resources decide alone (containers without any)",
     {"resources": {"limits": G}, "containers": [container("a"), container("b")]}, QosClass.GUARANTEED),
    ("pod-level requests below limits", {"resources": {"requests": {"cpu": "1", "memory": "8Gi"}, "limits": G},
                                         "containers": [container("a", G)]}, QosClass.BURSTABLE),
    ("pod-level cpu only", {"resources": {"limits": {"cpu": "2"}}, "containers": [container("a", G)]},
     QosClass.BURSTABLE),
]  # fmt: skip


@pytest.mark.parametrize(("name", "spec", "qos"), CASES, ids=[case[0] for case in CASES])
def test_qos_class_follows_the_api_rule(name, spec, qos):
    numa = pod_numa(spec)
    assert numa.qos is qos
    # the public rule over containers already read gives the same class
    assert qos_class(numa.containers, numa.pod_requests, numa.pod_limits, numa.pod_resources_set) is qos


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"containers": [container("train", {"cpu": "16", "memory": "64Gi"})]}, {"train": True}),
        ({"containers": [container("train", {"cpu": "15500m", "memory": "64Gi"})]}, {"train": False}),
        ({"containers": [container("train", {"cpu": "16", "memory": "64Gi"}, {"cpu": "8", "memory": "64Gi"})]},
         {"train": False}),  # Burstable
        ({"initContainers": [container("fetch", {"cpu": "2", "memory": "1Gi"})],
          "containers": [container("train", {"cpu": "16", "memory": "64Gi"}),
                         container("log", {"cpu": "500m", "memory": "1Gi"})]},
         {"fetch": True, "train": True, "log": False}),
        ({"resources": {"limits": {"cpu": "16", "memory": "64Gi"}}, "containers": [container("train")]},
         {"train": False}),  # pod-level resources: PodLevelResourceManagers is off by default
    ],
)  # fmt: skip
def test_exclusive_cpus_need_a_guaranteed_pod_and_whole_cpus(spec, expected):
    assert pod_numa(spec).exclusive_cpus() == expected


def test_containers_keep_their_kind_and_order():
    spec = {
        "initContainers": [container("init"), container("proxy", restartPolicy="Always")],
        "containers": [container("main")],
    }
    kinds = [(c.name, c.kind) for c in pod_numa(spec).containers]
    assert kinds == [("init", ContainerKind.INIT), ("proxy", ContainerKind.SIDECAR), ("main", ContainerKind.APP)]


def test_a_bad_quantity_names_its_field():
    with pytest.raises(InputError) as caught:
        pod_numa({"containers": [container("a", {"cpu": "2x"})]})
    assert "containers[0].resources.limits.cpu" in str(caught.value)


@pytest.mark.parametrize(("name", "spec", "qos"), CASES, ids=[case[0] for case in CASES])
def test_a_demand_gives_the_same_pod_without_reading_it_again(name, spec, qos):
    # pod_demand reads the containers once; its NUMA view is what pod_numa reads from the spec.
    numa = pod_demand(spec).numa()
    assert numa == pod_numa(spec)
    assert numa is not None and numa.qos is qos
    assert numa.exclusive_cpus() == pod_numa(spec).exclusive_cpus()


def test_a_demand_not_read_from_a_spec_has_no_numa_view():
    assert PodDemand(requests={}).numa() is None
