"""Placement as Kueue and KAI decide it, end to end: manifests and NodeLists through ``place``.

The cluster is ``fixtures/placement/gpu-racks-tainted.yaml``: 2 blocks x 2 racks x 4 H100 nodes
(8 GPUs) tainted ``nvidia.com/gpu=present:NoSchedule``, one untainted CPU node in rack b0-r0,
and three nodes the schedulers leave out (one cordoned, one NotReady, one without a rack
label). Expected answers follow from the rules the cited Kueue and KAI code states; each test
says which.
"""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from helpers import FIXTURES_DIR
from helpers.placement import BLOCK, HOST, RACK, node, pod_set, tree
from workloadmap import inspect
from workloadmap.errors import PlacementError
from workloadmap.exporters import export
from workloadmap.placement import place, place_together, rank_clusters
from workloadmap.placement.kueue_requests import annotated_request
from workloadmap.topology import Cluster, load_cluster

LEVELS = [BLOCK, RACK, HOST]
PLACEMENT = FIXTURES_DIR / "placement"
GPU_TAINT = 'taint "nvidia.com/gpu=present:NoSchedule"'


@pytest.fixture
def gpu_cluster():
    return load_cluster(PLACEMENT / "gpu-racks-tainted.yaml", levels=LEVELS)


def manifest(name):
    return yaml.safe_load((PLACEMENT / name).read_text())


def template_of(obj):
    if obj["kind"] == "Job":
        return obj["spec"]["template"]
    return obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]


def nodes_of(group):
    return {entry.name: entry.pods for entry in group.assignment.nodes}


def rack_of(name):
    return name.rsplit("-", 1)[0].removeprefix("gpu-")


# ---------------------------------------------------------------- whole PodSets, node filters


def test_a_kueue_request_binds_the_whole_podset_of_a_plain_job(gpu_cluster):
    """Kueue places a PodSet's pods together (``findTopologyAssignment`` counts every pod of the PodSet).

    6 pods of 8 GPUs must share one rack; a rack holds 4. The CPU node has no GPU product label
    and fails the nodeSelector (Kueue's ``FindFeasibleNodes`` order: taints, selector, affinity).
    """
    report = place(inspect(manifest("job-rack-required.yaml")), gpu_cluster)
    (group,) = report.pod_groups
    # KAI >= v0.15 groups a Job's pods in one PodGroup of minMember 1 (job_grouper.go,
    # TestGetPodGroupMetadata_MultiPodJobSharesPodGroup); Kueue sees one PodSet either way.
    assert group.min_member == 1 and group.required_level == RACK and group.required_source == "annotation"
    assert not report.fits and not group.fits and group.assignment is None
    assert group.scheduler_reason == (
        'PodSet job: topology "gpu-racks-tainted" allows to fit only 4 out of 6 pod(s). '
        "Total nodes: 17; excluded: nodeSelector: 1"
    )
    assert group.reason == (
        "only 4 of its 6 job pods find room in one topology-rack (1 node does not match its nodeSelector, of 17)"
    )
    # 4 pods do fit one rack: BestFit takes the first of the equally tight racks (path order)
    obj = manifest("job-rack-required.yaml")
    obj["spec"]["parallelism"] = obj["spec"]["completions"] = 4
    report = place(inspect(obj), gpu_cluster)
    assert report.fits and report.pod_groups[0].assignment.domain == "b0-r0"
    assert nodes_of(report.pod_groups[0]) == {f"gpu-b0-r0-{i}": 1 for i in range(4)}


def test_kai_places_a_job_s_one_podgroup_under_its_whole_gang_requirement(gpu_cluster):
    """KAI >= v0.15 groups a batch Job's pods in one PodGroup of minMember 1 (job_grouper.go,
    TestGetPodGroupMetadata_MultiPodJobSharesPodGroup). The Kueue request covers that whole gang, so
    it becomes the PodGroup's constraint (as --emit kai writes it): 6 pods of 8 GPUs in one rack of 4
    nodes do not fit. wmap places a KAI PodGroup whole; KAI itself would start the 4 pods one rack
    holds and leave 2 pending (minMember 1): docs/placement.md lists this as not modelled."""
    report = place(inspect(manifest("job-rack-required.yaml")), gpu_cluster, policy="kai")
    (group,) = report.pod_groups
    assert group.min_member == 1 and group.required_level == RACK
    assert not report.fits and group.assignment is None and RACK in group.reason
    assert any("KAI does not read the Kueue podset annotations on job" in note for note in report.notes)
    # 4 pods fit one rack: KAI's binpacking fills the first of the equally free racks
    obj = manifest("job-rack-required.yaml")
    obj["spec"]["parallelism"] = obj["spec"]["completions"] = 4
    report = place(inspect(obj), gpu_cluster, policy="kai")
    assert report.fits and nodes_of(report.pod_groups[0]) == {f"gpu-b0-r0-{i}": 1 for i in range(4)}


def test_gpu_nodes_tainted_keep_pods_without_the_toleration_off(gpu_cluster):
    obj = manifest("job-rack-required.yaml")
    del template_of(obj)["spec"]["tolerations"]
    report = place(inspect(obj), gpu_cluster)
    (group,) = report.pod_groups
    assert not group.fits
    assert group.scheduler_reason.endswith(f"excluded: nodeSelector: 1, {GPU_TAINT}: 16")
    assert group.reason.endswith(
        "16 nodes have the taint nvidia.com/gpu=present:NoSchedule it does not tolerate, of 17)"
    )
    # the standalone analysis sees no node either
    assert all(fit.fitting == 0 for fit in group.levels) and group.candidates == []


def test_required_node_affinity_limits_the_nodes(gpu_cluster):
    obj = manifest("job-rack-required.yaml")
    obj["spec"]["parallelism"] = obj["spec"]["completions"] = 4
    spec = template_of(obj)["spec"]
    spec["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": BLOCK, "operator": "NotIn", "values": ["b0"]}]}]
            }
        }
    }
    report = place(inspect(obj), gpu_cluster)
    assert report.fits and report.pod_groups[0].assignment.domain == "b1-r0"
    obj["spec"]["parallelism"] = obj["spec"]["completions"] = 5
    report = place(inspect(obj), gpu_cluster)
    # a rack holds 4; the CPU node fails the selector first, then b0's 8 GPU nodes the affinity
    assert not report.fits and report.pod_groups[0].scheduler_reason.endswith(
        "allows to fit only 4 out of 5 pod(s). Total nodes: 17; excluded: affinity: 8, nodeSelector: 1"
    )
    assert report.pod_groups[0].reason == (
        "only 4 of its 5 job pods find room in one topology-rack (8 nodes fail its node affinity, 1 node does not"
        " match its nodeSelector, of 17)"
    )


def test_bound_pods_take_capacity_and_terminated_ones_do_not(gpu_cluster):
    """Kueue counts the requests of non-TAS pods bound to a node unless they terminated (``IsTerminated``)."""
    obj = manifest("job-rack-required.yaml")
    obj["spec"]["parallelism"] = obj["spec"]["completions"] = 4
    pods = yaml.safe_load((PLACEMENT / "pods-bound.yaml").read_text())["items"]
    report = place(inspect(obj), gpu_cluster, pods=pods)
    # b0-r0 keeps one GPU node (busy-0 Running, busy-2 Pending with a node; "done" Succeeded)
    assert report.fits and report.pod_groups[0].assignment.domain == "b0-r1"
    assert gpu_cluster.node("gpu-b0-r0-0").used == {}  # the caller's cluster is not modified
    loaded = load_cluster(PLACEMENT / "gpu-racks-tainted.yaml", levels=LEVELS, pods_file=PLACEMENT / "pods-bound.yaml")
    assert place(inspect(obj), loaded).pod_groups[0].assignment.domain == "b0-r1"


# ---------------------------------------------------------------- slices


def test_slices_each_land_in_their_own_domain(gpu_cluster):
    """``podset-slice-required-topology``: every ``podset-slice-size`` pods in one rack of the one block.

    BestFit over blocks: both hold 2 slices; equal slice and pod counts, so the path decides (b0).
    With 3 of b0-r0's nodes busy, b0 holds 1 slice (r1) and b1 is the only block that holds 2.
    """
    tree_ = inspect(manifest("jobset-slices.yaml"))
    report = place(tree_, gpu_cluster)
    (group,) = report.pod_groups
    assert group.assignment.domain == "b0" and group.assignment.pods == 8
    pods = yaml.safe_load((PLACEMENT / "pods-bound.yaml").read_text())["items"]
    report = place(tree_, gpu_cluster, pods=pods)
    (group,) = report.pod_groups
    per_rack: dict[str, int] = {}
    for name, count in nodes_of(group).items():
        per_rack[rack_of(name)] = per_rack.get(rack_of(name), 0) + count
    assert group.assignment.domain == "b1" and per_rack == {"b1-r0": 4, "b1-r1": 4}
    assert report.slices[0].required_level == RACK and report.slices[0].required_source == "annotation"


def test_slices_that_fit_no_block_leave_the_podset_out(gpu_cluster):
    obj = manifest("jobset-slices.yaml")
    obj["spec"]["replicatedJobs"][0]["replicas"] = 3  # 12 pods in one block: 3 slices of 4, a block holds 2
    report = place(inspect(obj), gpu_cluster)
    assert not report.fits
    assert report.pod_groups[0].scheduler_reason.startswith(
        'PodSet workers: topology "gpu-racks-tainted" allows to fit only 2 out of 3 slice(s)'
    )
    assert report.pod_groups[0].reason.startswith("only 2 of its 3 workers slices find room")


def jobset_with(annotations, pods=8):
    components = [
        {
            "name": "workers",
            "role": "workers",
            "replicas": pods,
            "pods": pods,
            "minPods": pods,
            "hasPodTemplate": True,
            "podResources": {"nvidia.com/gpu": "8"},
            "topologyAnnotations": annotations,
            "templatePath": ["spec", "template"],
        }
    ]
    return tree(
        [{"name": "g", "minMember": pods, "pods": pods, "podSets": [pod_set("workers", pods)]}], components=components
    )


REQ = "kueue.x-k8s.io/podset-required-topology"
PREF = "kueue.x-k8s.io/podset-preferred-topology"
UNCON = "kueue.x-k8s.io/podset-unconstrained-topology"
SLICE = "kueue.x-k8s.io/podset-slice-required-topology"
SIZE = "kueue.x-k8s.io/podset-slice-size"
LAYERS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
GROUP = "kueue.x-k8s.io/podset-group-name"


# (source, annotations, pods, error fragment); sources: kueue pkg/controller/jobframework
# tas_validation.go (ValidateTASPodSetRequest, ValidateSliceSizeAnnotationUpperBound) and its test
# TestValidateSliceRequiredTopologyConstraintsAnnotation; the scheduler's checks in
# tas_flavor_snapshot.go findTopologyAssignment; KEP-2724 for the slice size dividing the count.
INVALID = [
    ("webhook: more than one topology annotation", {REQ: BLOCK, PREF: RACK}, 8, "more than one topology annotation"),
    ("webhook: unconstrained must be a boolean", {UNCON: "yes"}, 8, "must be a boolean value"),
    ("webhook: slice level without a size", {REQ: BLOCK, SLICE: RACK}, 8, "must be set when"),
    ("webhook: slice size without a level", {REQ: BLOCK, SIZE: "4"}, 8, "may not be set when"),
    ("webhook: slice size must be numeric", {REQ: BLOCK, SLICE: RACK, SIZE: "four"}, 8, "must be a numeric value"),
    ("webhook: slice size at least 1", {REQ: BLOCK, SLICE: RACK, SIZE: "0"}, 8, "greater than or equal to 1"),
    (
        "upper bound: slice size exceeds pod count",
        {REQ: BLOCK, SLICE: RACK, SIZE: "16"},
        8,
        "not be greater than pod set count 8",
    ),
    (
        "KEP-2724: the slice size divides the count",
        {REQ: BLOCK, SLICE: RACK, SIZE: "3"},
        8,
        "evenly divide the pod set count 8",
    ),
    ("scheduler: no requested topology level", {REQ: "cloud.provider.com/topology-zone"}, 8, "is not a level"),
    (
        "scheduler: no requested topology level for slices",
        {REQ: BLOCK, SLICE: "rack", SIZE: "4"},
        8,
        "'rack' is not a level",
    ),
    (
        "scheduler: slice topology above the podset topology",
        {REQ: RACK, SLICE: BLOCK, SIZE: "4"},
        8,
        "is above the podset topology",
    ),
    ("webhook: group name must not be a number", {REQ: BLOCK, GROUP: "123"}, 8, "must not be a number"),
    ("webhook: group name needs required or preferred", {GROUP: "lws"}, 8, "neither"),
    (
        "webhook: group name not with slices",
        {REQ: BLOCK, GROUP: "lws", SLICE: RACK, SIZE: "4"},
        8,
        "together with slice",
    ),
    ("invalid: not valid JSON", {REQ: BLOCK, LAYERS: "invalid-json"}, 8, "valid JSON array"),
    ("invalid: empty array", {REQ: BLOCK, LAYERS: "[]"}, 8, "1 to 3"),
    (
        "invalid: more than 3 entries",
        {REQ: BLOCK, LAYERS: json.dumps([{"topology": RACK, "size": 4}] * 4)},
        8,
        "1 to 3",
    ),
    (
        "invalid: size less than 1",
        {REQ: BLOCK, LAYERS: json.dumps([{"topology": RACK, "size": 0}])},
        8,
        "greater than or equal to 1",
    ),
    (
        "invalid: size does not divide parent",
        {REQ: BLOCK, LAYERS: json.dumps([{"topology": RACK, "size": 8}, {"topology": HOST, "size": 3}])},
        8,
        "evenly divide the pod set count 8",
    ),
    (
        "invalid: mutual exclusivity with podset-slice-required-topology",
        {REQ: BLOCK, SLICE: RACK, SIZE: "4", LAYERS: json.dumps([{"topology": RACK, "size": 4}])},
        8,
        "may not be set when",
    ),
    (
        "invalid: duplicate topology labels",
        {REQ: BLOCK, LAYERS: json.dumps([{"topology": RACK, "size": 8}, {"topology": RACK, "size": 4}])},
        8,
        "listed twice",
    ),
]


@pytest.mark.parametrize(("source", "annotations", "pods", "fragment"), INVALID, ids=[case[0] for case in INVALID])
def test_kueue_requests_are_validated_as_kueue_does(source, annotations, pods, fragment):
    workload = jobset_with(annotations, pods)
    with pytest.raises(PlacementError) as raised:
        annotated_request(workload, workload.components[0], pods, LEVELS)
    assert fragment in str(raised.value), source
    key = next((k for k in annotations if k in str(raised.value.field)), None)
    assert raised.value.field is not None and str(raised.value.field).startswith("spec.template.metadata.annotations")
    assert key is not None or "annotations" in str(raised.value.field)


def test_valid_multi_layer_slices_are_read_in_order():
    """TestValidateSliceRequiredTopologyConstraintsAnnotation "valid: two constraint layers"."""
    layers = [{"topology": RACK, "size": 4}, {"topology": HOST, "size": 2}]
    workload = jobset_with({REQ: BLOCK, LAYERS: json.dumps(layers)})
    request = annotated_request(workload, workload.components[0], 8, LEVELS)
    assert request.required == BLOCK and [(layer.level, layer.size) for layer in request.slices] == [
        (RACK, 4),
        (HOST, 2),
    ]


def test_an_invalid_request_is_an_error_of_place_and_a_reason_in_a_ranking(gpu_cluster):
    bad = jobset_with({REQ: BLOCK, SLICE: RACK, SIZE: "3"})
    with pytest.raises(PlacementError, match="evenly divide"):
        place(bad, gpu_cluster)
    ranking = rank_clusters(bad, [gpu_cluster])
    assert not ranking.ranked and "evenly divide" in ranking.unfit[0].reason


# ---------------------------------------------------------------- preferred and unconstrained requests


def test_preferred_levels_are_read_from_kai_and_kueue_annotations(gpu_cluster):
    kai = inspect(manifest("jobset-slices.yaml"))
    kai.topology_annotations = {"kai.scheduler/topology-preferred-placement": RACK}
    (group,) = place(kai, gpu_cluster, policy="kai").pod_groups
    assert group.preferred_level == RACK and group.preferred_source == "annotation"
    obj = manifest("job-rack-required.yaml")
    annotations = template_of(obj)["metadata"]["annotations"]
    annotations[PREF] = annotations.pop(REQ)
    (group,) = place(inspect(obj), gpu_cluster).pod_groups
    assert group.preferred_level == RACK and group.preferred_source == "annotation"
    # Kueue: a preferred rack that no rack holds moves up a level (findLevelWithFitDomains): block b0
    assert group.fits and group.assignment.domain == "b0" and group.assignment.pods == 6


def test_unconstrained_requests_pack_the_least_free_nodes_first():
    """``podset-unconstrained-topology`` with TASProfileMixed: LeastFreeCapacity (``findLevelWithFitDomains``).

    Nodes sorted by free slots, fewest first: the first that holds the whole PodSet takes it;
    when none does, the pods spread over the nodes in that order.
    """
    nodes = [
        node("roomy", {BLOCK: "b", RACK: "r1"}),
        node("half", {BLOCK: "b", RACK: "r2"}, used={"nvidia.com/gpu": 4}),
    ]
    cluster = Cluster("c", nodes, LEVELS)
    for pods, expected in ((2, {"half": 2}), (3, {"roomy": 3}), (5, {"half": 2, "roomy": 3})):
        workload = jobset_with({UNCON: "true"}, pods=pods)
        workload.components[0].pod_resources = {"nvidia.com/gpu": 2}
        workload.pod_groups[0].pod_sets[0].pod_resources = {"nvidia.com/gpu": 2}
        (group,) = place(workload, cluster).pod_groups
        assert nodes_of(group) == expected, pods


# ---------------------------------------------------------------- joint placement


def test_workloads_given_together_take_capacity_in_turn(gpu_cluster):
    first, second, third = (copy.deepcopy(manifest("jobset-slices.yaml")) for _ in range(3))
    for index, obj in enumerate((first, second, third)):
        obj["metadata"]["name"] = f"sliced-{index}"
    trees = [inspect(obj) for obj in (first, second, third)]
    for policy in ("kueue", "kai"):
        joint = place_together(trees, gpu_cluster, policy=policy)
        assert (joint.groups, joint.fitting) == (3, 2), policy
        assert joint.unfit == ["JobSet/sliced-2 sliced-2"]
        domains = [report.pod_groups[0].assignment.domain for report in joint.reports[:2]]
        assert sorted(domains) == ["b0", "b1"], policy
        assert joint.reports[2].placed_before == [trees[0].workload, trees[1].workload]
        assert "it fits the cluster as given" in joint.reports[2].pod_groups[0].reason
        # ``before`` gives the same answer for one workload
        alone = place(trees[2], gpu_cluster, before=trees[:2], policy=policy)
        assert not alone.fits and alone.pod_groups[0].reason == joint.reports[2].pod_groups[0].reason


def test_a_rejected_workload_takes_nothing_and_the_others_are_placed(gpu_cluster):
    good = inspect(manifest("jobset-slices.yaml"))
    bad = jobset_with({REQ: BLOCK, SLICE: RACK, SIZE: "3"})
    errors = []
    joint = place_together([bad, good], gpu_cluster, on_error=lambda position, error: errors.append(position))
    assert errors == [0] and len(joint.reports) == 1 and joint.fits
    with pytest.raises(PlacementError):
        place_together([bad, good], gpu_cluster)


def test_ranking_takes_earlier_workloads_into_account():
    small = Cluster("small", [node(f"s{i}", {BLOCK: "b", RACK: "r"}) for i in range(4)], LEVELS)
    big = Cluster("big", [node(f"b{i}", {BLOCK: "b", RACK: f"r{i // 4}"}) for i in range(8)], LEVELS)
    workload = tree([{"name": "g", "minMember": 4, "pods": 4, "podSets": [pod_set("w", 4)]}])
    assert [fit.cluster for fit in rank_clusters(workload, [small, big]).ranked] == ["small", "big"]
    ranking = rank_clusters(workload, [small, big], before=[workload])
    # with the first copy on each cluster, only the big one still holds the second
    assert [fit.cluster for fit in ranking.ranked] == ["big"] and ranking.unfit[0].cluster == "small"


# ---------------------------------------------------------------- output and exports


def test_assignment_is_part_of_the_json_contract(gpu_cluster):
    report = place(inspect(manifest("jobset-slices.yaml")), gpu_cluster)
    data = report.to_dict()
    group = data["podGroups"][0]
    assert set(group["assignment"]) == {"domain", "level", "nodes"}
    assert group["assignment"]["domain"] == "b0" and group["assignment"]["level"] == BLOCK
    assert group["assignment"]["nodes"][0] == {"name": "gpu-b0-r0-0", "pods": 1}
    assert data["policy"] == "kueue" and data["placedBefore"] == [] and len(data["notes"]) == 3
    assert group["preferredSource"] == "fit"


def test_exports_carry_the_requests_written_on_the_templates(gpu_cluster):
    obj = manifest("jobset-slices.yaml")
    workload = inspect(obj)
    report = place(workload, gpu_cluster)
    _, annotated = export("kueue", workload, report, obj=obj)
    written = template_of(annotated)["metadata"]["annotations"]
    assert written == {REQ: BLOCK, SLICE: RACK, SIZE: "4"}
    layers = [{"topology": RACK, "size": 4}, {"topology": HOST, "size": 2}]
    annotations = template_of(obj)["metadata"]["annotations"]
    del annotations[SLICE], annotations[SIZE]
    annotations[LAYERS] = json.dumps(layers)
    workload = inspect(obj)
    _, annotated = export("kueue", workload, place(workload, gpu_cluster), obj=obj)
    written = template_of(annotated)["metadata"]["annotations"]
    assert written[REQ] == BLOCK and json.loads(written[LAYERS]) == layers and SLICE not in written


# ---------------------------------------------------------------- several gangs of one workload


def assigned(group):
    return {entry.name: entry.pods for entry in group.assignment.nodes}


def test_lws_groups_under_kueue_are_workloads_with_a_leader_podset_group():
    """Kueue's LWS integration makes one Workload per group, leader and workers one PodSet group.

    On small-16 (2 leaves of 8 nodes, 8 GPUs each) the worker PodSet (3 pods of 8 GPUs) is placed
    with its one-pod leader (``findTopologyAssignment`` with a leader): both leaves hold it, equal
    counts, so leaf-001. Going down, the first node that takes the leader takes a worker too, the
    last worker goes to the best fit. The second group sees leaf-001 with 5 free nodes and
    leaf-002 with 8: BestFit takes leaf-001 again (the fewest slices that still hold it).
    """
    from workloadmap.topology import load_cluster as load

    workload = inspect(yaml.safe_load((FIXTURES_DIR / "leaderworkerset.yaml").read_text()))
    report = place(workload, load("preset:small-16"))
    first, second = report.pod_groups
    assert assigned(first) == {"node-001-01": 2, "node-001-02": 1, "node-001-03": 1}
    assert assigned(second) == {"node-001-04": 2, "node-001-05": 1, "node-001-06": 1}
    assert first.assignment.domain == second.assignment.domain == "leaf-001"


def test_lws_groups_under_kai_place_subgroups_in_the_chosen_domain():
    """KAI allocates a PodGroup's SubGroups inside the domain chosen for it (``allocateSubGroupSet``).

    The leader SubGroup prefers a host: the most packed host of the leaf (equal ratios: the
    domain ID decides, node-001-01); the workers go by binpack. For the second group the leader
    lands on the most packed host, node-001-01 (the first group's leader and worker left it the
    least cpu), the workers on the first free hosts.
    """
    from workloadmap.topology import load_cluster as load

    workload = inspect(yaml.safe_load((FIXTURES_DIR / "leaderworkerset.yaml").read_text()))
    report = place(workload, load("preset:small-16"), policy="kai")
    first, second = report.pod_groups
    leader, workers = first.sub_groups
    assert assigned(leader) == {"node-001-01": 1} and leader.assignment.level == HOST
    assert assigned(workers) == {"node-001-01": 1, "node-001-02": 1, "node-001-03": 1}
    leader, workers = second.sub_groups
    assert assigned(leader) == {"node-001-01": 1}
    assert assigned(workers) == {"node-001-04": 1, "node-001-05": 1, "node-001-06": 1}


def test_inorder_jobset_gangs_are_placed_together_in_order():
    """An InOrder JobSet: one PodGroup gated by a replicatedJob with a SubGroup per replicatedJob (KAI v0.16+
    jobset_grouper_test.go TestStartupPolicyInOrderRootMinSubGroup), one Workload of two PodSets (Kueue)."""
    from workloadmap.topology import load_cluster as load

    obj = yaml.safe_load((FIXTURES_DIR / "jobset-inorder.yaml").read_text())
    # parallelism 2 = completions: KAI's leaves (minMember parallelism) can form (with 4 they never would)
    obj["spec"]["replicatedJobs"][1]["template"]["spec"]["parallelism"] = 2
    workload = inspect(obj)
    cluster = load("preset:small-16")
    for policy in ("kueue", "kai"):
        report = place(workload, cluster, policy=policy)
        (group,) = report.pod_groups
        assert report.fits and group.assignment.pods == 5, policy
    report = place(workload, cluster, policy="kai")
    subs = {sub.name: sub for sub in report.pod_groups[0].sub_groups}
    assert subs["driver"].assignment.pods == 1 and subs["workers"].assignment.pods == 4
    # Kueue: the workers' 4 pods of 2 GPUs fit one host (every host holds 4 of them, GPU-bound) beside the driver
    (group,) = place(workload, cluster).pod_groups
    assert sum(node.pods for node in group.assignment.nodes) == 5


def test_a_podset_group_wmap_cannot_write_consistently_is_not_written():
    """``ValidatePodSetGroupingTopology``: a group holds exactly two PodSets with the same level.

    An LWS whose worker template requires a leaf while the leader has no request of its own: the
    leader and the workers cannot share a group, so neither placement nor the export uses one.
    """
    from workloadmap.topology import load_cluster as load

    obj = yaml.safe_load((FIXTURES_DIR / "leaderworkerset.yaml").read_text())
    worker = obj["spec"]["leaderWorkerTemplate"]["workerTemplate"]
    worker.setdefault("metadata", {}).setdefault("annotations", {})[REQ] = "fabric.topograph.run/tier-0"
    workload = inspect(obj)
    report = place(workload, load("preset:small-16"))
    assert report.fits
    _, annotated = export("kueue", workload, report, obj=obj)
    templates = annotated["spec"]["leaderWorkerTemplate"]
    assert GROUP not in templates["leaderTemplate"]["metadata"]["annotations"]
    assert templates["workerTemplate"]["metadata"]["annotations"][REQ] == "fabric.topograph.run/tier-0"


def test_subgroups_of_a_podgroup_that_is_not_placed_are_not_placed_either():
    from workloadmap.topology import load_cluster as load

    obj = yaml.safe_load((FIXTURES_DIR / "leaderworkerset.yaml").read_text())
    obj["spec"]["replicas"] = 6  # 6 groups of 3 workers of 8 GPUs: 18 nodes, the cluster has 16
    for policy in ("kueue", "kai"):
        report = place(inspect(obj), load("preset:small-16"), policy=policy)
        unplaced = [group for group in report.pod_groups if not group.fits]
        assert unplaced, policy
        for group in unplaced:
            assert all(not sub.fits and sub.assignment is None for sub in group.sub_groups)
            assert all(sub.reason for sub in group.sub_groups)


def test_kueue_binds_a_gang_level_per_podset_and_says_so():
    """Kueue has no gang-wide domain except for a PodSet group: ``--required`` binds each PodSet."""
    group = {"name": "g", "minMember": 8, "pods": 8, "podSets": [pod_set("leader", 4), pod_set("worker", 4)]}
    from helpers.placement import rack_cluster

    report = place(tree([group]), rack_cluster(), required=RACK)
    assert report.fits
    assert report.notes == [
        f"Kueue binds {RACK} per PodSet: the PodSets of g (leader, worker) may each land in"
        " a different domain of that level"
    ]
    # each PodSet fills a rack of 4 nodes: BestFit takes the first two in path order
    assert report.pod_groups[0].assignment.domain == "b0"
