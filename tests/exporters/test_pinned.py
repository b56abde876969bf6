"""`wmap place --emit pinned`: each gang's pod templates required onto the domain placement chose.

A required node affinity holds a pod to nodes matching every expression of one term (core/v1
NodeSelectorTerm: expressions ANDed), so a domain whose label value repeats under several parents
is pinned with the whole path of values. LWS's exclusive-topology annotation gives each group a
domain of its own of the named topology key (LWS api ExclusiveKeyAnnotationKey, 1:1 group to
domain), the per-replica place used when groups sharing one template cannot share one domain.
"""

from __future__ import annotations

import copy

import pytest
import yaml

from helpers import REPO_ROOT, load_fixture, yaml_doc
from helpers.placement import BLOCK, RACK, rack_cluster
from workloadmap import Catalog, export, inspect, load_cluster, place
from workloadmap.catalog import parse_definition
from workloadmap.errors import AlterError, PlacementError
from workloadmap.exporters.pinned import chosen_domain, domain_requirements

DOMAIN = "accelerator.topograph.run/domain"
NVL72 = "preset:nvl72-4rack"  # 4 racks (NVLink domains) of 18 nodes x 4 GPUs


def _pin(obj, cluster=None, catalog=None, related=None, **options):
    cluster = cluster or load_cluster(NVL72)
    tree = inspect(obj, catalog=catalog, related=related)
    report = place(tree, cluster, **options)
    return report, export("pinned", tree, report, cluster=cluster, obj=obj, catalog=catalog)


def _terms(template):
    affinity = template["spec"]["affinity"]["nodeAffinity"]
    return affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]


def test_a_jobset_gang_is_pinned_to_its_first_candidate():
    jobset = load_fixture("jobset-leader-workers.yaml")
    frozen = copy.deepcopy(jobset)
    report, [pinned] = _pin(jobset)
    level, domain = chosen_domain(report.pod_groups[0])
    assert (level, domain) == (DOMAIN, report.pod_groups[0].candidates[0])
    for job in pinned["spec"]["replicatedJobs"]:
        assert _terms(job["template"]["spec"]["template"]) == [
            {"matchExpressions": [{"key": DOMAIN, "operator": "In", "values": [domain]}]}
        ]
    assert jobset == frozen
    assert "status" not in pinned  # printed for kubectl apply


def test_a_repeated_domain_name_is_pinned_with_its_parents():
    # rack_cluster names racks r0, r1 in every block: rack r0 alone would match two racks.
    levels = [BLOCK, RACK, "kubernetes.io/hostname"]
    requirements = domain_requirements(levels, RACK, "b1/r0")
    assert [requirement.to_pod() for requirement in requirements] == [
        {"key": BLOCK, "operator": "In", "values": ["b1"]},
        {"key": RACK, "operator": "In", "values": ["r0"]},
    ]
    cluster = rack_cluster()
    matching = [node.name for node in cluster.nodes if all(node.labels[r.key] in r.values for r in requirements)]
    assert matching == [f"b1-r0-h{h}" for h in range(4)]


def test_pinning_on_a_cluster_with_repeated_rack_names():
    job = yaml_doc(
        """
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata: {name: train}
        spec:
          pytorchReplicaSpecs:
            Master:
              replicas: 1
              template: {spec: {containers: [{name: m, image: x, resources: {limits: {nvidia.com/gpu: 8}}}]}}
            Worker:
              replicas: 3
              template: {spec: {containers: [{name: w, image: x, resources: {limits: {nvidia.com/gpu: 8}}}]}}
        """
    )
    report, [pinned] = _pin(job, cluster=rack_cluster(), preferred=RACK)
    domain = report.pod_groups[0].candidates[0]
    assert "/" in domain  # racks repeat, so placement shows b?/r?
    block, rack = domain.split("/")
    for role in ("Master", "Worker"):
        template = pinned["spec"]["pytorchReplicaSpecs"][role]["template"]
        assert _terms(template) == [
            {
                "matchExpressions": [
                    {"key": BLOCK, "operator": "In", "values": [block]},
                    {"key": RACK, "operator": "In", "values": [rack]},
                ]
            }
        ]


LWS = """
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: serve}
spec:
  replicas: 2
  leaderWorkerTemplate:
    size: {size}
    workerTemplate:
      spec:
        containers: [{name: w, image: x, resources: {limits: {nvidia.com/gpu: 4}}}]
"""


def test_lws_groups_that_fit_one_domain_together_share_the_pin():
    # 2 groups x 4 pods x 4 GPUs = 8 nodes: one 18-node NVLink domain holds both.
    report, [pinned] = _pin(yaml_doc(LWS.replace("{size}", "4")))
    assert {group.candidates[0] for group in report.pod_groups} == {"nvl-001"}
    template = pinned["spec"]["leaderWorkerTemplate"]["workerTemplate"]
    assert _terms(template) == [{"matchExpressions": [{"key": DOMAIN, "operator": "In", "values": ["nvl-001"]}]}]
    assert "annotations" not in pinned["metadata"]


def test_lws_groups_that_cannot_share_a_domain_get_one_each():
    # 2 groups x 12 pods: each fits an 18-node domain, both do not; the shared template cannot be
    # pinned to one domain, so LWS's exclusive-topology puts each group in a domain of its own.
    report, [pinned] = _pin(yaml_doc(LWS.replace("{size}", "12")))
    assert all(group.fits for group in report.pod_groups)
    assert pinned["metadata"]["annotations"] == {"leaderworkerset.sigs.k8s.io/exclusive-topology": DOMAIN}
    assert "affinity" not in pinned["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]


def test_a_kind_without_a_per_replica_place_is_refused():
    source = (REPO_ROOT / "catalog" / "leaderworkerset.yaml").read_text()
    source = source.replace("  exclusiveTopology:", "  # exclusiveTopology:")
    catalog = Catalog([parse_definition(source, "lws-without-exclusive.yaml")])
    with pytest.raises(AlterError, match="offers no per-replica place"):
        _pin(yaml_doc(LWS.replace("{size}", "12")), catalog=catalog)


def test_an_existing_different_exclusive_topology_is_not_overwritten():
    lws = yaml_doc(LWS.replace("{size}", "12"))
    lws["metadata"]["annotations"] = {"leaderworkerset.sigs.k8s.io/exclusive-topology": "kubernetes.io/hostname"}
    with pytest.raises(AlterError, match="already asks for exclusive topology"):
        _pin(lws)


def test_gangs_of_one_workload_are_pinned_where_the_scheduler_put_them_one_after_another():
    # JobSet InOrder that KAI grouped before v0.16 (its flat PodGroup pg-big-uid-a exists: KAI v0.17 keeps the
    # legacy shape, legacy_grouper_test.go TestLegacyDetection_InOrderPerReplicatedJobPodGroup): one PodGroup per
    # replicatedJob of 12 nodes. Each alone would pick the tightest domain nvl-001, but 24 nodes do not fit its
    # 18: placement assigns the gangs in turn (Kueue's BestFit on what the first left), so b lands in another
    # NVL72 rack and both pin.
    from workloadmap.interpreter import ObjectIndex

    legacy = {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "pg-big-uid-a"},
        "spec": {"minMember": 1},
    }
    jobset = yaml_doc(
        """
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: big, uid: uid}
        spec:
          startupPolicy: {startupPolicyOrder: InOrder}
          replicatedJobs:
            - name: a
              template:
                spec:
                  parallelism: 12
                  completions: 12
                  template: {spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 4}}}]}}
            - name: b
              template:
                spec:
                  parallelism: 12
                  completions: 12
                  template: {spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 4}}}]}}
        """
    )
    report, [pinned] = _pin(jobset, related=ObjectIndex([legacy]))
    assert [group.assignment.domain for group in report.pod_groups] == ["nvl-001", "nvl-002"]
    domains = [
        _terms(job["template"]["spec"]["template"])[0]["matchExpressions"][-1]["values"]
        for job in pinned["spec"]["replicatedJobs"]
    ]
    assert domains == [["nvl-001"], ["nvl-002"]]


def test_refusals():
    with pytest.raises(PlacementError, match="has no gang to pin"):
        _pin(load_fixture("deployment-inference.yaml"))
    with pytest.raises(PlacementError, match="cannot be pinned"):
        _pin(load_fixture("leaderworkerset.yaml"))  # 24 GPUs per worker: does not fit the example cluster


def test_the_scheduler_s_assignment_is_pinned_not_the_preferred_level_s_candidate():
    # Required in an NVLink domain, preferred at the leaf: the scheduler assigns a domain (its
    # choice rule at the required level), and that is the place pinned, not a whole leaf.
    report, [pinned] = _pin(
        load_fixture("jobset-leader-workers.yaml"), required=DOMAIN, preferred="fabric.topograph.run/tier-0"
    )
    assert report.pod_groups[0].assignment.level == DOMAIN
    templates = [job["template"]["spec"]["template"] for job in pinned["spec"]["replicatedJobs"]]
    assert {_terms(template)[0]["matchExpressions"][-1]["key"] for template in templates} == {DOMAIN}


def test_the_pinned_export_is_plain_yaml():
    _, objects = _pin(load_fixture("jobset-leader-workers.yaml"))
    assert yaml.safe_load(yaml.safe_dump_all(objects)) == objects[0]


def test_a_compute_domain_gang_is_pinned_with_the_clique_pod_affinity():
    # fixtures/companions/jobset-computedomain.yaml: the pods hold the ComputeDomain's channel, so the
    # gang is required to stay in one NVLink domain (requiredSource computeDomain, driver issues #377
    # and #804); pinned adds NVIDIA's required podAffinity on that level besides the node affinity.
    from helpers import FIXTURES_DIR
    from workloadmap.documents import load_objects
    from workloadmap.dra import read_node_devices
    from workloadmap.interpreter import ObjectIndex
    from workloadmap.placement import with_devices

    documents = [
        document.body for document in load_objects(str(FIXTURES_DIR / "companions" / "jobset-computedomain.yaml"))
    ]
    jobset = documents[2]
    cluster = load_cluster(NVL72)
    channels = [
        {"kind": "ResourceSlice", "metadata": {"name": f"{node.name}-cd"}, "spec": {
            "driver": "compute-domain.nvidia.com", "nodeName": node.name,
            "pool": {"name": node.name, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "channel-0", "attributes": {"type": {"string": "channel"}, "id": {"int": 0}}}]}}
        for node in cluster.nodes
    ]  # fmt: skip
    cluster = with_devices(cluster, read_node_devices(channels))
    report, [pinned] = _pin(jobset, cluster, related=ObjectIndex(documents[:2]))
    assert report.pod_groups[0].required_source == "computeDomain"
    template = pinned["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    assert template["metadata"]["labels"]["wmap.dev/clique-group"] == "nvl-train"
    assert template["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [
        {"labelSelector": {"matchLabels": {"wmap.dev/clique-group": "nvl-train"}}, "topologyKey": DOMAIN}
    ]
    assert _terms(template)[0]["matchExpressions"][0]["key"] == DOMAIN
