"""The definition format's fields for `wmap alter|suspend|resume`: podFields, suspend, exports.exclusiveTopology."""

from __future__ import annotations

import copy

import pytest
from pydantic import ValidationError

from workloadmap.catalog import parse_definition
from workloadmap.definitions import Definition, definition_json_schema
from workloadmap.errors import DefinitionError, ExpressionError
from workloadmap.expressions import compile_expression, field_path

BASE = {
    "name": "widget",
    "group": "example.com",
    "kind": "Widget",
    "versions": ["v1"],
    "components": [{"name": "pod", "podSpec": "merge(spec.pod, `{}`)"}],
}


def _definition(**changes):
    data = copy.deepcopy(BASE)
    data.update(changes)
    return Definition.model_validate(data)


@pytest.mark.parametrize(
    "text, keys",
    [
        ("spec.suspend", ("spec", "suspend")),
        (
            'metadata.annotations."kueue.x-k8s.io/admission-gated-by"',
            ("metadata", "annotations", "kueue.x-k8s.io/admission-gated-by"),
        ),
        ("extraPodSpec", ("extraPodSpec",)),
    ],
)
def test_field_paths_are_plain_jmespath_field_chains(text, keys):
    assert field_path(text) == keys


@pytest.mark.parametrize("text", ["spec.jobs[0]", "a || b", "@", "spec.*", "length(spec)"])
def test_anything_else_is_not_a_field_path(text):
    with pytest.raises(ExpressionError):
        field_path(text)


def test_reading_a_field_path_leaves_the_compiled_expression_intact():
    # field_path reads the cached JMESPath AST: the same text must still evaluate afterwards.
    expression = compile_expression("spec.replicas")
    field_path("spec.replicas")
    assert expression.search({"spec": {"replicas": 3}}) == 3


def test_pod_fields_and_suspend_validate():
    definition = _definition(
        components=[
            {
                "name": "pod",
                "podSpec": "merge(spec.pod, `{}`)",
                "podFields": {"spec": "spec.pod", "specFields": ["nodeSelector"], "labels": "spec.pod.labels"},
            }
        ],
        suspend={
            "suspendActions": [{"path": "spec.paused", "value": True, "when": "spec.mode == 'a'"}],
            "resumeActions": [{"path": "spec.paused", "remove": True}],
            "source": "widget operator api",
        },
        exports={"exclusiveTopology": 'metadata.annotations."example.com/exclusive"'},
    ).compile()
    fields = definition.components[0].pod_fields
    assert fields is not None and fields.spec_fields == ["nodeSelector"] and fields.annotations is None
    action = definition.suspend.suspend_actions[0]
    assert action.compiled("when").search({"spec": {"mode": "a"}}) is True
    assert ("suspend.suspendActions[0]", action, "when", "spec.mode == 'a'") in list(definition.expression_fields())


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"components": [{"name": "g", "podFields": {"labels": "x"}}]}, "podFields goes with podTemplate or podSpec"),
        ({"components": [{"name": "p", "podSpec": "spec", "podFields": {"spec": "a[0]"}}]}, "not a plain field path"),
        (
            {"components": [{"name": "p", "podSpec": "spec", "podFields": {"specFields": ["hostNetwork"]}}]},
            "specFields",
        ),
        (
            {"suspend": {"suspendActions": [{"path": "spec.x"}], "resumeActions": [{"path": "spec.x", "value": 1}]}},
            "exactly one",
        ),
        (
            {
                "suspend": {
                    "suspendActions": [{"path": "spec.x", "value": 1, "remove": True}],
                    "resumeActions": [{"path": "spec.x", "value": 0}],
                }
            },
            "exactly one",
        ),
        ({"suspend": {"suspendActions": [], "resumeActions": [{"path": "spec.x", "value": 0}]}}, "suspendActions"),
        ({"exports": {"exclusiveTopology": "metadata.annotations[0]"}}, "not a plain field path"),
    ],
)
def test_invalid_alter_fields_are_refused(changes, message):
    with pytest.raises(ValidationError, match=message):
        _definition(**changes)


def test_a_broken_when_expression_names_its_field():
    text = """
name: widget
group: example.com
kind: Widget
versions: [v1]
components: [{name: pod, podSpec: spec.pod}]
suspend:
  suspendActions: [{path: spec.paused, value: true, when: "spec.(("}]
  resumeActions: [{path: spec.paused, value: false}]
"""
    with pytest.raises(DefinitionError) as error:
        parse_definition(text, "widget.yaml")
    assert "suspend.suspendActions[0].when" in str(error.value)


def test_the_schema_documents_the_new_fields():
    schema = definition_json_schema()
    assert "suspend" in schema["properties"]
    assert "podFields" in schema["$defs"]["ComponentDefinition"]["properties"]
    assert "exclusiveTopology" in schema["$defs"]["ExportsDefinition"]["properties"]
    assert set(schema["$defs"]["SuspendAction"]["properties"]) == {
        "path",
        "value",
        "remove",
        "addItem",
        "removeItem",
        "when",
    }
