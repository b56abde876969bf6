"""Node filters of a pod, checked against Kubernetes' own tests.

Sources (kubernetes/kubernetes):
* ``staging/src/k8s.io/api/core/v1/toleration_test.go``, ``TestTolerationToleratesTaint``;
* ``staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity_test.go``,
  ``TestPodMatchesNodeSelectorAndAffinityTerms`` and ``TestNodeSelectorMatch``;
* ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go``: the filter looks at
  ``NoSchedule`` and ``NoExecute`` taints only (``PreferNoSchedule`` is scored, not filtered).
"""

from __future__ import annotations

import pytest

from workloadmap.errors import InputError
from workloadmap.resources import pod_demand
from workloadmap.scheduling import Taint, parse_taints, pod_scheduling

# (TestTolerationToleratesTaint description, toleration, taint, tolerated)
TOLERATIONS = [
    (
        "same key and effect, operator Exists, taint without value",
        {"key": "foo", "operator": "Exists", "effect": "NoSchedule"},
        Taint("foo", "", "NoSchedule"),
        True,
    ),
    (
        "same key and effect, operator Exists, taint with a value",
        {"key": "foo", "operator": "Exists", "effect": "NoSchedule"},
        Taint("foo", "bar", "NoSchedule"),
        True,
    ),
    (
        "same effect, empty key and operator Exists: matches all taints",
        {"operator": "Exists", "effect": "NoSchedule"},
        Taint("foo", "bar", "NoSchedule"),
        True,
    ),
    (
        "same key, effect and value, operator Equal",
        {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"},
        Taint("foo", "bar", "NoSchedule"),
        True,
    ),
    (
        "same key and effect, different values, operator Equal",
        {"key": "foo", "operator": "Equal", "value": "value1", "effect": "NoSchedule"},
        Taint("foo", "value2", "NoSchedule"),
        False,
    ),
    (
        "same key and value, different effects, operator Equal",
        {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"},
        Taint("foo", "bar", "NoExecute"),
        False,
    ),
    (
        "Gt - taint value less than toleration value",
        {"key": "node.kubernetes.io/sla", "operator": "Gt", "value": "950", "effect": "NoSchedule"},
        Taint("node.kubernetes.io/sla", "800", "NoSchedule"),
        False,
    ),
    (
        "Gt - taint value greater than toleration value",
        {"key": "node.kubernetes.io/sla", "operator": "Gt", "value": "750", "effect": "NoSchedule"},
        Taint("node.kubernetes.io/sla", "950", "NoSchedule"),
        True,
    ),
    (
        "Lt - taint value less than toleration value",
        {"key": "node.kubernetes.io/sla", "operator": "Lt", "value": "950", "effect": "NoSchedule"},
        Taint("node.kubernetes.io/sla", "800", "NoSchedule"),
        True,
    ),
    (
        "Gt and an equal numeric value",
        {"key": "node.kubernetes.io/sla", "operator": "Gt", "value": "950", "effect": "NoSchedule"},
        Taint("node.kubernetes.io/sla", "950", "NoSchedule"),
        False,
    ),
    (
        "Gt and a non-numeric taint value",
        {"key": "node.kubernetes.io/sla", "operator": "Gt", "value": "950", "effect": "NoSchedule"},
        Taint("node.kubernetes.io/sla", "high", "NoSchedule"),
        False,
    ),
    (
        "Gt and negative values - taint value less than threshold",
        {"key": "test-key", "operator": "Gt", "value": "-100", "effect": "NoSchedule"},
        Taint("test-key", "-200", "NoSchedule"),
        False,
    ),
]


@pytest.mark.parametrize(("description", "toleration", "taint", "tolerated"), TOLERATIONS)
def test_toleration_tolerates_taint(description, toleration, taint, tolerated):
    (parsed,) = pod_scheduling({"tolerations": [toleration]}).tolerations
    assert parsed.tolerates(taint) is tolerated, description


def test_only_no_schedule_and_no_execute_taints_keep_pods_off():
    scheduling = pod_scheduling({})
    assert scheduling.untolerated([Taint("a", "", "PreferNoSchedule")]) is None
    gpu = Taint("nvidia.com/gpu", "present", "NoSchedule")
    assert scheduling.untolerated([Taint("a", "", "PreferNoSchedule"), gpu]) == gpu
    assert str(gpu) == "nvidia.com/gpu=present:NoSchedule" and str(Taint("k", "", "NoExecute")) == "k:NoExecute"
    tolerant = pod_scheduling({"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]})
    assert tolerant.untolerated([gpu, Taint("nvidia.com/gpu", "", "NoExecute")]) is None


def _term(*expressions, fields=()):
    term = {}
    if expressions:
        term["matchExpressions"] = [dict(zip(("key", "operator", "values"), e, strict=False)) for e in expressions]
    if fields:
        term["matchFields"] = [dict(zip(("key", "operator", "values"), f, strict=False)) for f in fields]
    return term


def _affinity(*terms):
    return {
        "affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}
        }
    }


# (TestPodMatchesNodeSelectorAndAffinityTerms name, pod spec, node labels, node name, match)
AFFINITY = [
    ("no selector", {}, {}, "", True),
    ("missing labels", {"nodeSelector": {"foo": "bar"}}, {}, "", False),
    ("same labels", {"nodeSelector": {"foo": "bar"}}, {"foo": "bar"}, "", True),
    ("node labels are superset", {"nodeSelector": {"foo": "bar"}}, {"foo": "bar", "baz": "blah"}, "", True),
    ("node labels are subset", {"nodeSelector": {"foo": "bar", "baz": "blah"}}, {"foo": "bar"}, "", False),
    ("matchExpressions In", _affinity(_term(("foo", "In", ["bar", "value2"]))), {"foo": "bar"}, "", True),
    ("matchExpressions Gt", _affinity(_term(("kernel-version", "Gt", ["0204"]))), {"kernel-version": "0206"}, "", True),
    (
        "matchExpressions NotIn",
        _affinity(_term(("mem-type", "NotIn", ["DDR", "DDR2"]))),
        {"mem-type": "DDR3"},
        "",
        True,
    ),
    ("matchExpressions Exists", _affinity(_term(("GPU", "Exists"))), {"GPU": "NVIDIA-GRID-K1"}, "", True),
    ("affinity that doesn't match", _affinity(_term(("foo", "In", ["value1", "value2"]))), {"foo": "bar"}, "", False),
    ("an empty []NodeSelectorTerm", _affinity(), {"foo": "bar"}, "", False),
    ("empty MatchExpressions matches no objects", _affinity({"matchExpressions": []}), {"foo": "bar"}, "", False),
    ("no Affinity", {}, {"foo": "bar"}, "", True),
    (
        "Affinity but nil NodeSelector",
        {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": None}}},
        {"foo": "bar"},
        "",
        True,
    ),
    (
        "multiple matchExpressions ANDed that match",
        _affinity(_term(("GPU", "Exists"), ("GPU", "NotIn", ["AMD", "INTER"]))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        True,
    ),
    (
        "multiple matchExpressions ANDed that don't match",
        _affinity(_term(("GPU", "Exists"), ("GPU", "In", ["AMD", "INTER"]))),
        {"GPU": "NVIDIA-GRID-K1"},
        "",
        False,
    ),
    (
        "multiple NodeSelectorTerms ORed",
        _affinity(_term(("foo", "In", ["bar", "value2"])), _term(("diffkey", "In", ["wrong", "value2"]))),
        {"foo": "bar"},
        "",
        True,
    ),
    (
        "Affinity and NodeSelector both satisfied",
        {"nodeSelector": {"foo": "bar"}, **_affinity(_term(("foo", "Exists")))},
        {"foo": "bar"},
        "",
        True,
    ),
    (
        "Affinity matches but NodeSelector is not satisfied",
        {"nodeSelector": {"foo": "bar"}, **_affinity(_term(("foo", "Exists")))},
        {"foo": "barrrrrr"},
        "",
        False,
    ),
    (
        "an invalid value in Affinity term",
        _affinity(_term(("foo", "NotIn", ["invalid value: ___@#$%^"]))),
        {"foo": "bar"},
        "",
        False,
    ),
    ("matchFields In that matches", _affinity(_term(fields=[("metadata.name", "In", ["node_1"])])), {}, "node_1", True),
    (
        "matchFields In that does not match",
        _affinity(_term(fields=[("metadata.name", "In", ["node_1"])])),
        {},
        "node_2",
        False,
    ),
    (
        "two terms: matchFields does not match, but matchExpressions matches",
        _affinity(_term(fields=[("metadata.name", "In", ["node_1"])]), _term(("foo", "In", ["bar"]))),
        {"foo": "bar"},
        "node_2",
        True,
    ),
    (
        "one term: matchFields does not match, but matchExpressions matches",
        _affinity(_term(("foo", "In", ["bar"]), fields=[("metadata.name", "In", ["node_1"])])),
        {"foo": "bar"},
        "node_2",
        False,
    ),
    (
        "one term: both matchFields and matchExpressions match",
        _affinity(_term(("foo", "In", ["bar"]), fields=[("metadata.name", "In", ["node_1"])])),
        {"foo": "bar"},
        "node_1",
        True,
    ),
    (
        "(TestNodeSelectorMatch) matchFields In with two values is invalid: no match",
        _affinity(_term(fields=[("metadata.name", "In", ["host_1", "host_2"])])),
        {},
        "host_1",
        False,
    ),
    (
        "(TestNodeSelectorMatch) second term matches",
        _affinity(_term(("label_1", "In", ["label_1_val"])), _term(fields=[("metadata.name", "In", ["host_1"])])),
        {},
        "host_1",
        True,
    ),
]


@pytest.mark.parametrize(("name", "spec", "labels", "node_name", "match"), AFFINITY, ids=[case[0] for case in AFFINITY])
def test_pod_matches_node_selector_and_affinity_terms(name, spec, labels, node_name, match):
    scheduling = pod_scheduling(spec)
    assert (scheduling.selector_matches(labels) and scheduling.affinity_matches(labels, node_name)) is match


def test_label_keys_name_what_the_filters_read():
    scheduling = pod_scheduling(
        {
            "nodeSelector": {"pool": "gpu"},
            **_affinity(_term(("zone", "In", ["a"])), _term(fields=[("metadata.name", "In", ["n"])])),
        }
    )
    assert scheduling.label_keys == {"pool", "zone"} and scheduling.uses_name


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"tolerations": {"key": "a"}}, "spec.tolerations"),
        ({"tolerations": [{"key": "a", "operator": "Like"}]}, "spec.tolerations[0].operator"),
        ({"tolerations": [{"key": "a", "operator": "Exists", "value": "x"}]}, "spec.tolerations[0].value"),
        ({"tolerations": [{"operator": "Equal", "value": "x"}]}, "spec.tolerations[0].operator"),
        ({"tolerations": [{"key": "a", "effect": "Sometimes"}]}, "spec.tolerations[0].effect"),
        ({"tolerations": ["a"]}, "spec.tolerations[0]"),
        ({"tolerations": [{"key": ["a"], "operator": "Exists"}]}, "spec.tolerations[0].key"),
        ({"tolerations": [{"key": "a", "value": {"b": 1}}]}, "spec.tolerations[0].value"),
        ({"nodeSelector": ["a"]}, "spec.nodeSelector"),
        ({"nodeSelector": {"pool": ["gpu"]}}, "spec.nodeSelector.pool"),
        ({"affinity": "gpu"}, "spec.affinity"),
        (
            {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": []}}},
            "spec.affinity.nodeAffinity",
        ),
    ],
)
def test_malformed_filters_are_located_errors(spec, field):
    with pytest.raises(InputError) as raised:
        pod_scheduling(spec, "spec")
    assert raised.value.field is not None and raised.value.field.startswith(field)


def test_node_taints_are_parsed_and_checked():
    assert parse_taints([{"key": "a", "value": "b", "effect": "NoExecute"}, {"key": "c", "effect": "NoSchedule"}]) == (
        Taint("a", "b", "NoExecute"),
        Taint("c", "", "NoSchedule"),
    )
    with pytest.raises(InputError, match="is not one of"):
        parse_taints([{"key": "a", "effect": "Never"}])
    with pytest.raises(InputError, match="needs a key"):
        parse_taints([{"effect": "NoSchedule"}])


def test_a_numa_view_given_is_taken_as_it_is():
    spec = {"containers": [{"name": "c", "resources": {"limits": {"cpu": "2", "memory": "1Gi"}}}]}
    demand = pod_demand(spec)
    numa = demand.numa()
    scheduling = pod_scheduling(spec, numa=numa)
    assert scheduling.numa is numa
    assert scheduling == pod_scheduling(spec)
