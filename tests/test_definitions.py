"""Tests for workloadmap.definitions: the definition format's validation and compilation."""

from __future__ import annotations

import copy
import json

import pytest
from pydantic import ValidationError

from workloadmap.definitions import PHASE_PRECEDENCE, Definition, Phase, definition_json_schema
from workloadmap.errors import DefinitionError

MINIMAL = {
    "name": "widget",
    "group": "example.com",
    "kind": "Widget",
    "versions": ["v1"],
    "components": [{"name": "pod", "podTemplate": "spec.template", "replicas": "spec.replicas"}],
}


def with_changes(**changes):
    data = copy.deepcopy(MINIMAL)
    data.update(changes)
    return data


def test_minimal_definition_validates_and_compiles():
    definition = Definition.model_validate(MINIMAL).compile("widget.yaml")
    assert definition.api_group_kind == ("example.com", "Widget")
    assert definition.source == "widget.yaml"
    component = definition.components[0]
    assert component.compiled("pod_template").source == "spec.template"
    assert component.compiled("replicas").search({"spec": {"replicas": 5}}) == 5
    assert component.pods_per_replica == 1  # default


def test_constant_counts_are_not_compiled():
    definition = Definition.model_validate(
        with_changes(components=[{"name": "pod", "podTemplate": "spec.template", "replicas": 2}])
    ).compile()
    assert definition.components[0].compiled("replicas") is None
    assert definition.components[0].replicas == 2


def test_aliases_and_field_names_both_accepted():
    by_alias = Definition.model_validate(
        with_changes(components=[{"name": "p", "podSpec": "spec", "podMetadata": "metadata"}])
    )
    by_name = Definition.model_validate(
        with_changes(components=[{"name": "p", "pod_spec": "spec", "pod_metadata": "metadata"}])
    )
    assert by_alias.components[0].pod_spec == by_name.components[0].pod_spec == "spec"


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (with_changes(components=[]), "components"),
        (with_changes(versions=[]), "versions"),
        (with_changes(name="Bad Name"), "name"),
        (with_changes(extra_field=1), "extra_field"),
        (with_changes(components=[{"name": "p", "podTemplate": "a", "podSpec": "b"}]), "several pod sources"),
        (
            with_changes(components=[{"name": "p", "podTemplate": "a", "podMetadata": "m"}]),
            "podMetadata goes with podSpec",
        ),
        (
            with_changes(components=[{"name": "p", "podTemplate": "a", "instanceName": "n"}]),
            "instanceName goes with instances",
        ),
        (
            with_changes(components=[{"name": "p", "podTemplate": "a"}, {"name": "p", "podTemplate": "b"}]),
            "unique",
        ),
        (
            with_changes(
                components=[{"name": "g", "components": [{"name": "g", "podTemplate": "a"}]}],
            ),
            "unique",
        ),
        (with_changes(gang={"podGroups": [{"perInstance": "nope"}]}), "unknown component"),
        (with_changes(gang={"podGroups": [{"perInstance": "pod"}]}), "has no instances"),
        (with_changes(gang={"podGroups": [{"perReplica": "pod", "perInstance": "pod"}]}), "not both"),
        (with_changes(gang={"podGroups": [{"subGroups": [{"component": "ghost"}]}]}), "unknown component"),
        (
            with_changes(gang={"podGroups": [{"subGroups": [{"component": "pod", "parent": "ghost"}]}]}),
            "unknown subgroup",
        ),
        (with_changes(status={"rules": {"Undefined": [{"phase": "x"}]}}), "Undefined"),
        (with_changes(status={"rules": {"Running": [{}]}}), "at least one"),
        (with_changes(status={"rules": {"Sleeping": [{"phase": "x"}]}}), "rules"),
    ],
)
def test_invalid_definitions_rejected(data, needle):
    with pytest.raises(ValidationError) as caught:
        Definition.model_validate(data)
    assert needle in str(caught.value)


def test_broken_expression_names_field_and_file():
    data = with_changes(components=[{"name": "pod", "podTemplate": "spec.template", "replicas": "spec.[replicas"}])
    with pytest.raises(DefinitionError) as caught:
        Definition.model_validate(data).compile("defs/widget.yaml")
    error = caught.value
    assert error.file == "defs/widget.yaml"
    assert error.document == "widget"
    assert error.field == "components[0].replicas"
    assert "\n" not in str(error)


def test_broken_expression_in_nested_gang_and_status_fields():
    data = with_changes(
        components=[
            {"name": "grp", "replicas": 2, "components": [{"name": "pod", "podTemplate": "t", "podsPerReplica": "x.("}]}
        ]
    )
    with pytest.raises(DefinitionError) as caught:
        Definition.model_validate(data).compile("f.yaml")
    assert caught.value.field == "components[0].components[0].podsPerReplica"

    data = with_changes(gang={"podGroups": [{"subGroups": [{"component": "pod", "minMember": "nosuch(`1`)"}]}]})
    with pytest.raises(DefinitionError) as caught:
        Definition.model_validate(data).compile("f.yaml")
    assert caught.value.field == "gang.podGroups[0].subGroups[0].minMember"

    data = with_changes(status={"rules": {"Running": [{"expression": "status.["}]}})
    with pytest.raises(DefinitionError) as caught:
        Definition.model_validate(data).compile("f.yaml")
    assert caught.value.field == "status.rules.Running[0].expression"


def test_remainder_is_a_keyword_not_an_expression():
    data = with_changes(gang={"podGroups": [{"subGroups": [{"component": "pod", "minMember": "remainder"}]}]})
    definition = Definition.model_validate(data).compile()
    sub = definition.gang.pod_groups[0].sub_groups[0]
    assert sub.min_member == "remainder"
    assert sub.compiled("min_member") is None


def test_jsonpath_definition_compiles_jsonpath():
    data = with_changes(language="jsonpath", components=[{"name": "pod", "podTemplate": "$.spec.template"}])
    definition = Definition.model_validate(data).compile()
    assert definition.components[0].compiled("pod_template").language == "jsonpath"


def test_phase_enum_and_precedence():
    assert {phase.value for phase in Phase} == {
        "Initializing", "Running", "Completed", "Failed", "Degraded",
        "Suspended", "Suspending", "Resuming", "Undefined",
    }  # fmt: skip
    # terminal phases outrank everything; Initializing is the weakest; Undefined is never matched
    assert PHASE_PRECEDENCE[0] == Phase.FAILED
    assert PHASE_PRECEDENCE[-1] == Phase.INITIALIZING
    assert Phase.UNDEFINED not in PHASE_PRECEDENCE
    assert PHASE_PRECEDENCE.index(Phase.SUSPENDED) < PHASE_PRECEDENCE.index(Phase.RUNNING)
    assert PHASE_PRECEDENCE.index(Phase.DEGRADED) < PHASE_PRECEDENCE.index(Phase.RUNNING)


def test_json_schema_has_aliases_and_forbids_extras():
    schema = definition_json_schema()
    assert schema["$schema"].endswith("2020-12/schema")
    assert set(schema["required"]) >= {"name", "group", "kind", "versions", "components"}
    assert schema.get("additionalProperties") is False
    component = schema["$defs"]["ComponentDefinition"]["properties"]
    assert "podTemplate" in component and "pod_template" not in component


# docs/definitions.md: "an integer is accepted wherever a count is expected", and a numeric string
# such as "3" is a count too (issue 7: it used to fail validation as "invalid JMESPath '3'").
@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("replicas", "3", 3),
        ("replicas", " 12 ", 12),
        ("podsPerReplica", "4", 4),
        ("minReplicas", "0", 0),
        ("replicas", 7, 7),
    ],
)
def test_numeric_string_counts_are_constants(field, value, expected):
    definition = Definition.model_validate(
        with_changes(components=[{"name": "pod", "podTemplate": "spec.template", field: value}])
    ).compile("widget.yaml")
    component = definition.components[0]
    snake = {"replicas": "replicas", "podsPerReplica": "pods_per_replica", "minReplicas": "min_replicas"}[field]
    assert getattr(component, snake) == expected
    assert component.compiled(snake) is None  # a constant, not an expression


@pytest.mark.parametrize("value", [True, -1, "-1", "3.5", "²"])
def test_counts_that_are_not_whole_numbers_are_refused(value):
    with pytest.raises((ValidationError, DefinitionError)):
        Definition.model_validate(
            with_changes(components=[{"name": "pod", "podTemplate": "spec.template", "replicas": value}])
        ).compile("widget.yaml")


def test_numeric_string_replicas_validate_and_count(tmp_path, wmap):
    definition = tmp_path / "widget.yaml"
    definition.write_text(
        "name: widget\ngroup: example.com\nkind: Widget\nversions: [v1]\n"
        'components:\n  - {name: pod, podTemplate: spec.template, replicas: "3"}\n'
    )
    assert wmap("catalog", "validate", str(definition)).exit_code == 0
    widget = tmp_path / "widget-object.yaml"
    widget.write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"
        "spec: {template: {spec: {containers: [{name: c, image: x}]}}}\n"
    )
    result = wmap("inspect", str(widget), "--catalog", str(definition), "-o", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["totals"]["pods"] == 3
