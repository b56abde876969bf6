"""Workload, PodGroup and CompositePodGroup the API server refuses are located errors, as it words them.

Cases, each by its upstream name: kubernetes ``pkg/registry/scheduling/workload/declarative_validation_test.go``
``TestDeclarativeValidate`` (the v1alpha1 revision, base ``mkValidWorkload``: ``spec.podGroups: [{name: main,
policy: {gang: {minCount: 1}}}]``; the v1alpha2 revision, base ``podGroupTemplates`` with ``schedulingPolicy``;
the 1.37 revision for composite templates), ``pkg/registry/scheduling/podgroup/declarative_validation_test.go``,
``pkg/registry/scheduling/compositepodgroup/declarative_validation_test.go`` and
``pkg/apis/scheduling/validation/validation_test.go`` ``TestValidateWorkload``. The expected path is the
test's ``field.NewPath``; the words are apimachinery ``field/errors.go``'s.
"""

from __future__ import annotations

import copy

import pytest

from workloadmap import inspect
from workloadmap.errors import InputError, format_path
from workloadmap.interpreter import inspect_file

V1ALPHA1 = {
    "apiVersion": "scheduling.k8s.io/v1alpha1",
    "kind": "Workload",
    "metadata": {"name": "valid-workload", "namespace": "default"},
    "spec": {"podGroups": [{"name": "main", "policy": {"gang": {"minCount": 1}}}]},
}
V1ALPHA2 = {
    "apiVersion": "scheduling.k8s.io/v1alpha2",
    "kind": "Workload",
    "metadata": {"name": "valid-workload", "namespace": "default"},
    "spec": {"podGroupTemplates": [{"name": "main", "schedulingPolicy": {"gang": {"minCount": 1}}}]},
}


def refused(obj):
    with pytest.raises(InputError) as caught:
        inspect(obj)
    return caught.value


def changed(base, change):
    obj = copy.deepcopy(base)
    change(obj["spec"])
    return obj


def _many(key, policy):
    return lambda spec: spec.update({key: [{"name": f"group-{i}", policy: {"basic": {}}} for i in range(9)]})


def _first(key, **values):
    return lambda spec: spec[key][0].update(values)


def _ref(**values):
    return lambda spec: spec.update(controllerRef={"apiGroup": "apps", "kind": "Deployment", "name": "d", **values})


V1ALPHA1_CASES = [
    ("empty podGroups", lambda spec: spec.pop("podGroups"), "spec.podGroups", "Required value"),
    ("too many podGroups", _many("podGroups", "policy"), "spec.podGroups", "Too many: 9: must have at most 8 items"),
    ("empty podGroup name", _first("podGroups", name=""), "spec.podGroups[0].name", "Required value"),
    ("invalid podGroup name", _first("podGroups", name="Invalid_Name"), "spec.podGroups[0].name", "Invalid value"),
    (
        "duplicate podGroup names",
        lambda spec: spec["podGroups"].append({"name": "main", "policy": {"basic": {}}}),
        "spec.podGroups[1].name",
        'Duplicate value: "main"',
    ),
    (
        "gang minCount zero",
        _first("podGroups", policy={"gang": {"minCount": 0}}),
        "spec.podGroups[0].policy.gang.minCount",
        "Required value",
    ),
    (
        "gang minCount negative",
        _first("podGroups", policy={"gang": {"minCount": -1}}),
        "spec.podGroups[0].policy.gang.minCount",
        "must be greater than or equal to 1",
    ),
    (
        "controllerRef invalid APIGroup",
        _ref(apiGroup="invalid_api_group"),
        "spec.controllerRef.apiGroup",
        "Invalid value",
    ),
    ("controllerRef missing kind", _ref(kind=""), "spec.controllerRef.kind", "Required value"),
    ("controllerRef missing name", _ref(name=""), "spec.controllerRef.name", "Required value"),
    ("controllerRef invalid kind with slash", _ref(kind="Deploy/ment"), "spec.controllerRef.kind", "Invalid value"),
    ("controllerRef invalid kind with percent", _ref(kind="Deploy%ment"), "spec.controllerRef.kind", "Invalid value"),
    ("controllerRef invalid name", _ref(name="/invalid-name"), "spec.controllerRef.name", "Invalid value"),
    ("controllerRef invalid name with percent", _ref(name="my%deployment"), "spec.controllerRef.name", "Invalid value"),
    (
        "policy with neither basic nor gang",
        _first("podGroups", policy={}),
        "spec.podGroups[0].policy",
        "must specify one of: `basic`, `gang`",
    ),
    (
        "policy with both basic and gang",
        _first("podGroups", policy={"basic": {}, "gang": {"minCount": 1}}),
        "spec.podGroups[0].policy",
        "must specify exactly one of: `basic`, `gang`",
    ),
]


@pytest.mark.parametrize(("case", "change", "path", "words"), V1ALPHA1_CASES, ids=[c[0] for c in V1ALPHA1_CASES])
def test_v1alpha1_workload(case, change, path, words):
    error = refused(changed(V1ALPHA1, change))
    assert format_path(error.location.path) == path, str(error)
    assert words in str(error) and "the API server rejects this Workload" in str(error)


def test_valid_objects_are_not_refused():
    assert inspect(V1ALPHA1).warnings == []
    # "controllerRef with empty APIGroup" ("", Pod, my-pod) is valid
    inspect(changed(V1ALPHA1, lambda spec: spec.update(controllerRef={"apiGroup": "", "kind": "Pod", "name": "p"})))
    inspect(V1ALPHA2)


TOPOLOGY = "spec.podGroupTemplates[0].schedulingConstraints.topology"


def _key(key):
    return _first("podGroupTemplates", schedulingConstraints={"topology": [{"key": key}]})


V1ALPHA2_CASES = [
    ("empty podGroupTemplates", lambda spec: spec.pop("podGroupTemplates"), "spec.podGroupTemplates", "Required"),
    (
        "too many podGroupTemplates",
        _many("podGroupTemplates", "schedulingPolicy"),
        "spec.podGroupTemplates",
        "Too many",
    ),
    (
        "duplicate podGroupTemplate names",
        lambda spec: spec["podGroupTemplates"].append({"name": "main", "schedulingPolicy": {"basic": {}}}),
        "spec.podGroupTemplates[1].name",
        "Duplicate value",
    ),
    (
        "with multiple topology constraints",
        _first("podGroupTemplates", schedulingConstraints={"topology": [{"key": "foo"}, {"key": "bar"}]}),
        TOPOLOGY,
        "Too many: 2: must have at most 1 item",
    ),
    ("with empty topology key", _key(""), f"{TOPOLOGY}[0].key", "Required value"),
    (
        "with topology key with prefix exceeding max prefix length",
        _key("a" * 254 + "/foo"),
        f"{TOPOLOGY}[0].key",
        "Invalid",
    ),
    (
        "with topology key with prefix exceeding max name length",
        _key("foo/" + "b" * 64),
        f"{TOPOLOGY}[0].key",
        "Invalid",
    ),
    ("with topology key without prefix exceeding max length", _key("b" * 64), f"{TOPOLOGY}[0].key", "Invalid"),
    ("with topology key with invalid characters", _key("Example.com/Foo"), f"{TOPOLOGY}[0].key", "Invalid"),
    (
        "too high priority",
        _first("podGroupTemplates", priority=1000000001),
        "spec.podGroupTemplates[0].priority",
        "must be less than or equal to 1000000000",
    ),
    (
        "invalid priorityClassName",
        _first("podGroupTemplates", priorityClassName="high/priority"),
        "spec.podGroupTemplates[0].priorityClassName",
        "Invalid value",
    ),
]


@pytest.mark.parametrize(("case", "change", "path", "words"), V1ALPHA2_CASES, ids=[c[0] for c in V1ALPHA2_CASES])
def test_v1alpha2_workload(case, change, path, words):
    error = refused(changed(V1ALPHA2, change))
    assert format_path(error.location.path) == path, str(error)
    assert words in str(error)


@pytest.mark.parametrize(
    "key",
    ["example.com/Foo", "a" * 253 + "/" + "b" * 63, "topology.kubernetes.io/zone"],
    ids=["valid with topology key with DNS prefix", "valid with topology key with prefix with max length", "zone"],
)
def test_valid_topology_keys(key):
    inspect(changed(V1ALPHA2, _key(key)))
    inspect(changed(V1ALPHA2, _first("podGroupTemplates", schedulingConstraints={})))  # valid with empty constraints
    inspect(changed(V1ALPHA2, _first("podGroupTemplates", priority=-2147483648)))  # valid negative priority


def _v1alpha3(spec):
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha3",
        "kind": "Workload",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": spec,
    }


def _cpg(name, *children, groups=()):
    return {
        "name": name,
        "schedulingPolicy": {"gang": {"minGroupCount": 1}},
        **({"compositePodGroupTemplates": list(children)} if children else {}),
        **({"podGroupTemplates": [{"name": g, "schedulingPolicy": {"basic": {}}} for g in groups]} if groups else {}),
    }


COMPOSITE_CASES = [
    # TestValidateWorkload (validation_test.go)
    (
        "composite pod group template has no children",
        {"compositePodGroupTemplates": [_cpg("main")]},
        "spec.compositePodGroupTemplates[0]",
        "must have at least one child PodGroupTemplate or CompositePodGroupTemplate",
    ),
    (
        "composite pod group template nested child has no children",
        {"compositePodGroupTemplates": [_cpg("main", _cpg("sub"))]},
        "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0]",
        "must have at least one child",
    ),
    (
        "duplicate names deep in tree",
        {"compositePodGroupTemplates": [_cpg("main", _cpg("main", groups=["leaf"]))]},
        "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].name",
        'Duplicate value: "main"',
    ),
    (
        "duplicate names in tree",
        {"compositePodGroupTemplates": [_cpg("cpg1", _cpg("cpg2", groups=["group1"]), groups=["group1"])]},
        "spec.compositePodGroupTemplates[0].podGroupTemplates[0].name",
        'Duplicate value: "group1"',
    ),
    (
        "exceeds max tree height",
        {"compositePodGroupTemplates": [_cpg("cpg1", _cpg("cpg2", _cpg("cpg3", _cpg("cpg4", groups=["leaf"]))))]},
        "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].compositePodGroupTemplates[0]"
        ".compositePodGroupTemplates[0]",
        "maximum template hierarchy depth is 4",
    ),
    # TestDeclarativeValidate, 1.37 revision
    ("empty podGroupTemplates", {}, "spec", "must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`"),
    (
        "cpg policy missing gang minGroupCount",
        {"compositePodGroupTemplates": [{**_cpg("main", groups=["a"]), "schedulingPolicy": {"gang": {}}}]},
        "spec.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount",
        "Required value",
    ),
    (
        "cpg policy missing gang",
        {"compositePodGroupTemplates": [{**_cpg("main", groups=["a"]), "schedulingPolicy": {}}]},
        "spec.compositePodGroupTemplates[0].schedulingPolicy",
        "must specify one of",
    ),
    (
        "too many nested podGroupTemplates",
        {"compositePodGroupTemplates": [_cpg("main", groups=[f"sub-pg-{i}" for i in range(9)])]},
        "spec.compositePodGroupTemplates[0].podGroupTemplates",
        "Too many: 9",
    ),
    (
        "nested pg schedulingConstraints topology invalid key",
        {
            "compositePodGroupTemplates": [
                {
                    **_cpg("main"),
                    "podGroupTemplates": [
                        {
                            "name": "a",
                            "schedulingPolicy": {"basic": {}},
                            "schedulingConstraints": {"topology": [{"key": "invalid/key/slash/format"}]},
                        }
                    ],
                }
            ]
        },
        "spec.compositePodGroupTemplates[0].podGroupTemplates[0].schedulingConstraints.topology[0].key",
        "Invalid value",
    ),
    (
        "mismatched PriorityClassName in root podGroupTemplates",
        {
            "podGroupTemplates": [
                {"name": "a", "schedulingPolicy": {"basic": {}}, "priorityClassName": "high"},
                {"name": "b", "schedulingPolicy": {"basic": {}}, "priorityClassName": "low"},
            ]
        },
        "spec",
        "detected multiple priority configurations",
    ),
]


@pytest.mark.parametrize(("case", "spec", "path", "words"), COMPOSITE_CASES, ids=[c[0] for c in COMPOSITE_CASES])
def test_v1alpha3_workload(case, spec, path, words):
    error = refused(_v1alpha3(spec))
    assert format_path(error.location.path) == path, str(error)
    assert words in str(error)


def test_a_three_level_tree_is_the_deepest_valid():
    # Depth 4 counts the PodGroupTemplates: CPG -> CPG -> CPG -> PodGroupTemplate is accepted.
    inspect(_v1alpha3({"compositePodGroupTemplates": [_cpg("c1", _cpg("c2", _cpg("c3", groups=["leaf"])))]}))


def _pod_group(version, spec):
    return {
        "apiVersion": f"scheduling.k8s.io/{version}",
        "kind": "PodGroup",
        "metadata": {"name": "pg", "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}, **spec},
    }


POD_GROUP_CASES = [
    # podgroup/declarative_validation_test.go (v1alpha2)
    ("v1alpha2", "empty podGroupTemplateRef", {"podGroupTemplateRef": {}}, "spec.podGroupTemplateRef", "one of"),
    (
        "v1alpha2",
        "podGroupTemplateRef with empty template name",
        {"podGroupTemplateRef": {"workload": {"workloadName": "w", "podGroupTemplateName": ""}}},
        "spec.podGroupTemplateRef.workload.podGroupTemplateName",
        "Required value",
    ),
    (
        "v1alpha2",
        "podGroupTemplateRef with invalid template name",
        {"podGroupTemplateRef": {"workload": {"workloadName": "w", "podGroupTemplateName": "temp/late"}}},
        "spec.podGroupTemplateRef.workload.podGroupTemplateName",
        "Invalid value",
    ),
    (
        "v1alpha2",
        "podGroupTemplateRef with invalid workload name",
        {"podGroupTemplateRef": {"workload": {"workloadName": "work/load", "podGroupTemplateName": "t"}}},
        "spec.podGroupTemplateRef.workload.workloadName",
        "Invalid value",
    ),
    (
        "v1alpha2",
        "podGroupTemplateRef with too long workload name",
        {"podGroupTemplateRef": {"workload": {"workloadName": "a" * 254, "podGroupTemplateName": "t"}}},
        "spec.podGroupTemplateRef.workload.workloadName",
        "Invalid value",
    ),
    # 1.37 Validate_PodGroupSpec: DependentRequired(workloadRef) when parentCompositePodGroupName is set
    (
        "v1beta1",
        "parentCompositePodGroupName without workloadRef",
        {"parentCompositePodGroupName": "root"},
        "spec.workloadRef",
        "must be set when parentCompositePodGroupName is set",
    ),
]


@pytest.mark.parametrize(
    ("version", "case", "spec", "path", "words"), POD_GROUP_CASES, ids=[c[1] for c in POD_GROUP_CASES]
)
def test_pod_group(version, case, spec, path, words):
    error = refused(_pod_group(version, spec))
    assert format_path(error.location.path) == path, str(error)
    assert words in str(error) and "the API server rejects this PodGroup" in str(error)


def test_standalone_pod_group_is_valid():
    inspect(_pod_group("v1alpha2", {}))  # "no podGroupTemplateRef": a standalone PodGroup


def _composite(**spec):
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha3",
        "kind": "CompositePodGroup",
        "metadata": {"name": "root-group-0", "namespace": "default"},
        "spec": {
            "workloadRef": {"workloadName": "hierarchical-workload", "templateName": "root"},
            "schedulingPolicy": {"gang": {"minGroupCount": 2}},
            **spec,
        },
    }


COMPOSITE_OBJECT_CASES = [
    # compositepodgroup/declarative_validation_test.go
    (
        "parentCompositePodGroupName invalid",
        {"parentCompositePodGroupName": "invalid/name"},
        "spec.parentCompositePodGroupName",
    ),
    ("priority too high", {"priority": 1000000001}, "spec.priority"),
    (
        "schedulingPolicy gang minGroupCount zero",
        {"schedulingPolicy": {"gang": {"minGroupCount": 0}}},
        "spec.schedulingPolicy.gang.minGroupCount",
    ),
    (
        "schedulingPolicy gang minGroupCount negative",
        {"schedulingPolicy": {"gang": {"minGroupCount": -1}}},
        "spec.schedulingPolicy.gang.minGroupCount",
    ),
    ("no workloadRef", {"workloadRef": None}, "spec.workloadRef"),
    (
        "workloadRef empty templateName",
        {"workloadRef": {"workloadName": "w", "templateName": ""}},
        "spec.workloadRef.templateName",
    ),
    (
        "workloadRef empty workloadName",
        {"workloadRef": {"workloadName": "", "templateName": "t"}},
        "spec.workloadRef.workloadName",
    ),
    (
        "invalid templateName",
        {"workloadRef": {"workloadName": "w", "templateName": "invalid/template"}},
        "spec.workloadRef.templateName",
    ),
    (
        "invalid workloadName",
        {"workloadRef": {"workloadName": "invalid/workload", "templateName": "t"}},
        "spec.workloadRef.workloadName",
    ),
]


@pytest.mark.parametrize(("case", "spec", "path"), COMPOSITE_OBJECT_CASES, ids=[c[0] for c in COMPOSITE_OBJECT_CASES])
def test_composite_pod_group(case, spec, path):
    obj = _composite(**spec)
    if spec.get("workloadRef", "") is None:
        del obj["spec"]["workloadRef"]
    assert format_path(refused(obj).location.path) == path


def test_the_concept_pages_examples_are_valid():
    # fixtures/native: the kubernetes.io examples (podgroup-api, compositepodgroup-api, workload-reference pages).
    from helpers import FIXTURES_DIR

    for name in ("job-podgroup.yaml", "job-workloadref.yaml", "jobset-composite.yaml"):
        assert all(result.error is None for result in inspect_file(str(FIXTURES_DIR / "native" / name))), name


def test_the_command_exits_non_zero_naming_file_document_and_field(tmp_path):
    import yaml
    from typer.testing import CliRunner

    from workloadmap.cli.main import app

    path = tmp_path / "wl.yaml"
    path.write_text(yaml.safe_dump(changed(V1ALPHA2, _first("podGroupTemplates", schedulingPolicy={}))))
    result = CliRunner().invoke(app, ["inspect", str(path)])
    assert result.exit_code != 0
    (line,) = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert f"{path}, document #1 (Workload/valid-workload), field spec.podGroupTemplates[0].schedulingPolicy" in line
