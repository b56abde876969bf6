"""Grove topology constraints and the PodGang hierarchy KAI builds from them.

Expected values come from Grove's PodGang construction (ai-dynamo/grove
operator/internal/controller/podcliqueset/components/podgang/syncflow.go, names from
operator/api/common/namegen.go) and KAI's grove plugin (kai-scheduler/KAI-Scheduler
pkg/podgrouper/podgrouper/plugins/grove/grove_grouper.go and grove_grouper_test.go).
"""

from __future__ import annotations

import copy

from helpers import load_fixture


def constraint(item):
    tc = item.topology_constraint
    return (tc.topology, tc.required_level, tc.preferred_level)


def hierarchy(group):
    return [(sub.name, sub.min_member, sub.parent, constraint(sub)) for sub in group.sub_groups]


def test_scaling_group_constraint_makes_a_parent_subgroup_per_replica(inspect_builtin):
    tree = inspect_builtin(load_fixture("grove/podcliqueset-topology.yaml"))
    base, scaled = tree.pod_groups
    # grove_grouper_test.go TestGetPodGroupMetadata_WithTopologyHierarchy: the PodGang's constraint on the
    # PodGroup, the group config as a parent SubGroup gated by minSubGroup 2 (its two cliques, #1642: the fewest
    # pods that satisfy it, 2 + 3), children with their own constraints, and minAvailable the sum of the
    # children's (2 + 3).
    assert (base.name, base.min_member, constraint(base)) == ("pcs-0", 5, ("test-topology", "zone", "rack"))
    assert base.sub_groups[0].min_sub_group == 2
    assert hierarchy(base) == [
        ("pcs-0-grp-0", 5, None, ("test-topology", "rack", "host")),
        ("pcs-0-grp-0-a", 2, "pcs-0-grp-0", ("test-topology", None, "host")),
        ("pcs-0-grp-0-b", 3, "pcs-0-grp-0", ("test-topology", "host", None)),  # deprecated packDomain = required
    ]
    # The scaled PodGang (doBuildExpectedScaledPodGangForPCSG): named <pcs>-<i>-<group>-<scaled index from 0>,
    # constrained by the scaling group's constraint, no group config so the cliques stand at the top level.
    assert (scaled.name, scaled.min_member, constraint(scaled)) == ("pcs-0-grp-0", 5, ("test-topology", "rack", "host"))
    assert hierarchy(scaled) == [
        ("pcs-0-grp-1-a", 2, None, ("test-topology", None, "host")),
        ("pcs-0-grp-1-b", 3, None, ("test-topology", "host", None)),
    ]
    assert tree.warnings == []


def test_scaling_group_without_constraint_has_no_parent_subgroup(inspect_builtin):
    # TestGetPodGroupMetadata_WithoutTopologyConstraintGroupConfigs: no group config, the cliques are top level.
    pcs = load_fixture("grove/podcliqueset-topology.yaml")
    del pcs["spec"]["template"]["podCliqueScalingGroups"][0]["topologyConstraint"]
    base, scaled = inspect_builtin(pcs).pod_groups
    assert [(sub.name, sub.parent) for sub in base.sub_groups] == [("pcs-0-grp-0-a", None), ("pcs-0-grp-0-b", None)]
    # A scaled PodGang falls back to the PodCliqueSet's constraint (syncflow.go doBuildExpectedScaledPodGangForPCSG).
    assert constraint(scaled) == ("test-topology", "zone", "rack")


def test_podgang_constraint_wins_over_annotations_which_fill_the_rest(inspect_builtin):
    pcs = load_fixture("grove/podcliqueset-topology.yaml")
    pcs["metadata"]["annotations"] = {
        "kai.scheduler/topology": "anno-topology",
        "kai.scheduler/topology-required-placement": "cluster",
        "kai.scheduler/topology-preferred-placement": "datacenter",
    }
    # TestGetPodGroupMetadata_SpecOverridesAnnotation: the spec's levels and grove.io/topology-name win.
    assert constraint(inspect_builtin(pcs).pod_groups[0]) == ("test-topology", "zone", "rack")
    # Without a PodCliqueSet constraint, parseMetadataFromTopOwner fills the levels from the annotations.
    bare = copy.deepcopy(pcs)
    del bare["spec"]["template"]["topologyConstraint"]
    bare["spec"]["template"]["podCliqueScalingGroups"][0]["topologyConstraint"]["topologyName"] = "test-topology"
    assert constraint(inspect_builtin(bare).pod_groups[0]) == ("test-topology", "cluster", "datacenter")


def test_constraint_without_topology_name_is_refused(inspect_builtin):
    # grove_grouper.go parseTopologyConstraint: "topology name cannot be empty when topology constraints are defined"
    pcs = load_fixture("grove/podcliqueset-topology.yaml")
    del pcs["spec"]["template"]["topologyConstraint"]["topologyName"]
    tree = inspect_builtin(pcs)
    assert any("topology name cannot be empty" in warning for warning in tree.warnings)


def test_podgang_priority_class_and_label_override(inspect_builtin):
    pcs = load_fixture("grove/podcliqueset-topology.yaml")
    assert inspect_builtin(pcs).pod_groups[0].priority_class == "train"  # the default grouper's default
    # podgang.go buildResource copies spec.template.priorityClassName to the PodGang; KAI takes it
    pcs["spec"]["template"]["priorityClassName"] = "inference"
    group = inspect_builtin(pcs).pod_groups[0]
    assert (group.priority_class, group.preemptibility) == ("inference", "non-preemptible")
    # parseMetadataFromTopOwner: a priorityClassName label on the PodCliqueSet wins over the PodGang's
    pcs["metadata"]["labels"] = {"priorityClassName": "build-preemptible"}
    group = inspect_builtin(pcs).pod_groups[0]
    assert (group.priority_class, group.preemptibility) == ("build-preemptible", "preemptible")


def test_existing_fixture_scaled_podgang_name(inspect_builtin):
    # fixtures/grove/podcliqueset-scaling-group.yaml: prefill replicas 3, minAvailable 2 -> the third replica is
    # the first scaled PodGang, grove-sg-0-prefill-0 (CreatePodGangNameFromPCSGFQN(pcsgFQN, 0)).
    tree = inspect_builtin(load_fixture("grove/podcliqueset-scaling-group.yaml"))
    assert [group.name for group in tree.pod_groups] == ["grove-sg-0", "grove-sg-0-prefill-0"]


def test_dynamo_constraints_reach_the_gangs(inspect_builtin):
    # Dynamo's DynamoGraphDeployment spec.topologyConstraint goes to the PodCliqueSet, a service's to its clique
    # (Dynamo design: DynamoGraphDeploymentSpec.TopologyConstraint, ServiceSpec.TopologyConstraint {packDomain}).
    dgd = load_fixture("grove/dynamo-v1beta1.yaml")
    dgd["spec"]["topologyConstraint"] = {"packDomain": "block"}
    services = dgd["spec"].get("components") or dgd["spec"].get("services")
    first = services[0] if isinstance(services, list) else next(iter(services.values()))
    first["topologyConstraint"] = {"packDomain": "rack"}
    tree = inspect_builtin(dgd)
    base = tree.pod_groups[0]
    assert constraint(base)[1] == "block"
    assert "rack" in [constraint(sub)[1] for sub in base.sub_groups]
