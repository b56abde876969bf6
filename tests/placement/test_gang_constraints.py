"""Placement honours each gang's own topologyConstraint (what KAI's pod-grouper sets on the PodGroup or
SubGroup: the workload's annotations, Grove's fields, a Ray template's or a segment's annotations)."""

from __future__ import annotations

from helpers.placement import BLOCK, HOST, RACK, pod_set, rack_cluster, tree
from workloadmap.placement import place
from workloadmap.placement.policy import annotation_required, constraint_preferred
from workloadmap.tree import TopologyConstraint

COMPONENTS = [
    {
        "name": "w",
        "role": "w",
        "replicas": 4,
        "pods": 4,
        "minPods": 4,
        "hasPodTemplate": True,
        "podResources": {"nvidia.com/gpu": "8", "cpu": "32"},
    },
]


def gang(constraint=None, sub_constraint=None):
    group = {"name": "g", "minMember": 4, "pods": 4, "podSets": [pod_set("w", 4)]}
    if constraint:
        group["topologyConstraint"] = constraint
    if sub_constraint:
        group["subGroups"] = [
            {"name": "s", "minMember": 2, "pods": 2, "podSets": [pod_set("w", 2)], "topologyConstraint": sub_constraint}
        ]
    return tree([group], components=COMPONENTS)


def test_podgroup_required_level_binds_placement():
    # 4 pods of 8 GPUs: a rack (4 hosts x 8 GPUs) holds them; the constraint makes the rack required.
    (placed,) = place(gang({"topology": "t", "requiredLevel": RACK}), rack_cluster()).pod_groups
    assert (placed.required_level, placed.required_source, placed.fits) == (RACK, "annotation", True)
    # required at host level: no host holds 4 pods of 8 GPUs
    (placed,) = place(gang({"topology": "t", "requiredLevel": HOST}), rack_cluster()).pod_groups
    assert placed.required_level == HOST and not placed.fits


def test_grove_domain_names_resolve_to_cluster_levels():
    # Grove constraints name domains (rack, block); without the ClusterTopologyBinding that translates them
    # they match the cluster's level keys by their tail.
    constraint = {"requiredLevel": "rack", "preferredLevel": "block", "domains": True}
    (placed,) = place(gang(constraint), rack_cluster()).pod_groups
    assert (placed.required_level, placed.preferred_level) == (RACK, BLOCK)


def test_kai_levels_are_keys_not_tails():
    # KAI reads a level as a Topology nodeLabel (or alias) and nothing else (KAI pkg/scheduler/plugins/topology/
    # job_filtering_test.go TestTopologyPlugin_calculateRelevantDomainLevels "required placement not found in
    # topology"): "rack" is no level of a cluster whose rack key is cloud.provider.com/topology-rack.
    (placed,) = place(gang({"topology": "t", "requiredLevel": "rack"}), rack_cluster(), policy="kai").pod_groups
    assert (placed.required_level, placed.fits) == ("rack", False)
    assert "'rack' (annotation) is not a level of topology" in placed.reason
    # Kueue reads its own podset annotations, not KAI's PodGroup constraint: the gang is Kueue's to admit.
    (placed,) = place(gang({"topology": "t", "requiredLevel": "rack"}), rack_cluster(), policy="kueue").pod_groups
    assert placed.fits


def test_subgroup_constraint_binds_the_subgroup():
    (placed,) = place(gang(sub_constraint={"topology": "t", "requiredLevel": HOST}), rack_cluster()).pod_groups
    (sub,) = placed.sub_groups
    assert (sub.required_level, sub.fits) == (HOST, False)  # 2 pods of 8 GPUs do not fit one 8-GPU host


def test_option_still_wins_over_the_constraint():
    (placed,) = place(gang({"requiredLevel": HOST}), rack_cluster(), required=BLOCK).pod_groups
    assert (placed.required_level, placed.required_source) == (BLOCK, "option")


def test_policy_helpers_without_constraint_keep_the_annotation_rules():
    workload = gang()
    assert annotation_required(workload, [], {}, root=True, constraint=TopologyConstraint()) is None
    assert constraint_preferred(None) is None
    # a preferred level the cluster lacks stays as written: KAI refuses the job (job_filtering_test.go
    # TestTopologyPlugin_calculateRelevantDomainLevels "preferred placement not found in topology")
    assert constraint_preferred(TopologyConstraint(preferred_level="unknown-level"), [RACK]) == "unknown-level"
