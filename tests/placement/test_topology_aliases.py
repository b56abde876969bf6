"""Topology level aliases (KAI v0.17, #1788) and levels KAI cannot resolve (issue 32).

KAI resolves a constraint's level through the aliases of the Topology it names
(``pkg/scheduler/api/topology_info/topology_info.go`` ``ResolveAliases``) and then needs it to be
one of that Topology's node labels (``pkg/scheduler/plugins/topology/job_filtering.go``
``calculateRelevantDomainLevels``); anything else refuses the job. A level wmap cannot resolve is
therefore never a fit under ``--policy kai``.
"""

from __future__ import annotations

import json

import pytest

from helpers import FIXTURES_DIR
from helpers.placement import HOST, pod_set, rack_cluster, tree
from workloadmap.errors import TopologyError
from workloadmap.placement import place
from workloadmap.placement.policy import constraint_level
from workloadmap.topology import load_cluster, stated_topology

ALIASES = FIXTURES_DIR / "topology" / "aliases"
RACK_KEY = "accelerator.nvidia.com/rack"


def _topology(levels, name="network"):
    return {
        "apiVersion": "kai.scheduler/v1alpha1",
        "kind": "Topology",
        "metadata": {"name": name},
        "spec": {"levels": levels},
    }


def test_a_kai_topology_states_its_aliases():
    # KAI examples/topology-aliases/topology-aliases.yaml: levels rack and node by alias.
    stated = load_cluster(str(ALIASES / "nodes.yaml"), topology_object=str(ALIASES / "topology-network.yaml"))
    assert stated.levels == [RACK_KEY, "kubernetes.io/hostname"]
    assert stated.topology == "network"
    assert stated.aliases == {"rack": RACK_KEY, "node": "kubernetes.io/hostname"}


def test_constraint_levels_resolve_as_kai_resolves_them():
    aliases = {"rack": RACK_KEY, "node": "kubernetes.io/hostname"}
    levels = [RACK_KEY, "kubernetes.io/hostname"]
    # topology_info_test.go TestResolveAliases: (network, required rack, preferred node) -> the node labels
    assert constraint_level("rack", levels, aliases) == RACK_KEY
    assert constraint_level("node", levels, aliases) == "kubernetes.io/hostname"
    # TestResolveAliases_PassThroughAndPartial: a raw label stays
    assert constraint_level(RACK_KEY, levels, aliases) == RACK_KEY
    # TestResolveAliases_NilSafeAndNoAliases: no aliases configured -> unchanged "rack" (then no level of the tree)
    assert constraint_level("rack", levels, None) == "rack"
    # Grove domain names, without a ClusterTopologyBinding, fall back to the one key ending in the name
    assert constraint_level("rack", levels, None, domains=True) == RACK_KEY


@pytest.mark.parametrize(
    ("levels", "message"),
    [
        # topology_validator_test.go "should reject duplicate aliases"
        (
            [{"nodeLabel": "example.com/rack", "alias": "rack"}, {"nodeLabel": "example.com/row", "alias": "rack"}],
            "invalid topology aliases: aliases must be unique within the topology; duplicated: [rack]",
        ),
        # "should reject an alias that collides with a nodeLabel"
        (
            [
                {"nodeLabel": "example.com/rack", "alias": "kubernetes.io/hostname"},
                {"nodeLabel": "kubernetes.io/hostname"},
            ],
            "invalid topology aliases: an alias must not equal a nodeLabel; conflicting: [kubernetes.io/hostname]",
        ),
    ],
)
def test_aliases_kai_refuses_are_refused(levels, message):
    with pytest.raises(TopologyError) as raised:
        stated_topology([_topology(levels)], file="t.yaml")
    assert message in str(raised.value)
    assert "t.yaml" in str(raised.value) and "spec.levels" in str(raised.value)


def test_levels_without_aliases_and_unique_aliases_are_accepted():
    # "should allow levels without aliases", "should allow unique aliases"
    assert stated_topology([_topology([{"nodeLabel": "example.com/rack"}])]).aliases == {}
    stated = stated_topology([_topology([{"nodeLabel": "example.com/rack", "alias": "rack"}])])
    assert stated.aliases == {"rack": "example.com/rack"}


def test_a_grove_binding_states_domains_as_aliases():
    # grove operator/api/core/v1alpha1/clustertopologybinding.go: levels[] {domain, key}
    stated = load_cluster(str(ALIASES / "nodes.yaml"), topology_object=str(ALIASES / "grove-binding.yaml"))
    assert (stated.topology, stated.levels) == ("grove-topology", [RACK_KEY, "kubernetes.io/hostname"])
    assert stated.aliases == {"rack": RACK_KEY, "host": "kubernetes.io/hostname"}


def _place(wmap, topology_file):
    result = wmap(
        "place",
        str(ALIASES / "job-rack-alias.yaml"),
        "-t",
        str(ALIASES / "nodes.yaml"),
        "--topology-object",
        str(topology_file),
        "--policy",
        "kai",
        "-o",
        "json",
    )
    assert result.exit_code == 0, result.output
    (group,) = json.loads(result.stdout)["podGroups"]
    return group


def test_an_aliased_required_level_binds_placement(wmap):
    group = _place(wmap, ALIASES / "topology-network.yaml")
    assert (group["requiredLevel"], group["verdict"]) == (RACK_KEY, "Fits")
    assert len({node["name"].split("-")[0] for node in group["assignment"]["nodes"]}) == 1  # one rack


def test_an_alias_the_topology_lacks_is_never_a_fit(wmap):
    # Without the alias, KAI refuses: job_filtering_test.go TestTopologyPlugin_calculateRelevantDomainLevels
    # "required placement not found in topology" ("... does not contain a level with this name").
    group = _place(wmap, ALIASES / "topology-network-plain.yaml")
    assert (group["requiredLevel"], group["verdict"]) == ("rack", "DoesNotFit")
    assert group["reason"] == "required level 'rack' (annotation) is not a level of topology 'network'"


def test_aliases_of_another_topology_do_not_apply():
    # job_info_test.go TestPodGroupInfo_ResolveTopologyAliases_PassThroughAndOtherTopology: a constraint of
    # topology zone-topology keeps "rack" ("unknown topology => unchanged").
    cluster = rack_cluster()
    cluster.topology, cluster.aliases = "network", {"rack": cluster.levels[1]}
    group = {"name": "g", "minMember": 2, "pods": 2, "podSets": [pod_set("w", 2)]}
    other = tree([{**group, "topologyConstraint": {"topology": "zone-topology", "requiredLevel": "rack"}}])
    (placed,) = place(other, cluster, policy="kai").pod_groups
    assert (placed.required_level, placed.fits) == ("rack", False)
    same = tree([{**group, "topologyConstraint": {"topology": "network", "requiredLevel": "rack"}}])
    (placed,) = place(same, cluster, policy="kai").pod_groups
    assert (placed.required_level, placed.fits) == (cluster.levels[1], True)
    assert HOST in cluster.levels
