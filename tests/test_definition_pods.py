"""The `pods` section of the definition format: validation, the schema, and every built-in definition."""

from __future__ import annotations

import jsonschema
import pytest

from workloadmap.catalog import Catalog, parse_definition
from workloadmap.definitions import PodsDefinition, definition_json_schema
from workloadmap.errors import DefinitionError

HEADER = """\
name: widget
group: example.com
kind: Widget
versions: [v1]
"""


def _definition(components: str):
    return parse_definition(HEADER + components, "widget.yaml")


def test_a_pods_section_with_one_or_several_index_labels():
    definition = _definition(
        """\
components:
  - name: group
    replicas: spec.replicas
    components:
      - name: member
        podTemplate: spec.template
        pods:
          selector: "example.com/role=member,example.com/group={instance:group}"
          podIndex: example.com/index
    pods:
      replicaIndex: [example.com/group-index, example.com/legacy-group-index]
"""
    )
    group = definition.components[0]
    assert group.pods is not None and group.pods.replica_index == [
        "example.com/group-index",
        "example.com/legacy-group-index",
    ]
    member = group.components[0]
    assert member.pods is not None and member.pods.pod_index == ["example.com/index"]
    assert member.pods.parsed_selector is not None
    assert member.pods.parsed_selector.placeholders() == {"instance:group"}


@pytest.mark.parametrize(
    ("components", "needle"),
    [
        (
            "components: [{name: pod, podTemplate: spec.template, pods: {selector: 'a=b=c'}}]",
            "invalid selector 'a=b=c'",
        ),
        (
            "components: [{name: pod, podTemplate: spec.template, pods: {selector: 'app={team}'}}]",
            "unknown placeholder {team}",
        ),
        (
            "components: [{name: pod, podTemplate: spec.template, pods: {selector: 'app={instance:other}'}}]",
            "{instance:other} names no enclosing component",
        ),
        (
            "components: [{name: group, components: [{name: pod, podTemplate: spec.template}], pods: {selector: a}}]",
            "pods.selector goes with a pod template or pod spec",
        ),
        (
            "components: [{name: pod, podTemplate: spec.template, pods: {replicaIndex: 'Bad Key'}}]",
            "'Bad Key' is not a label key",
        ),
        (
            "components: [{name: pod, podTemplate: spec.template, pods: {selector: a, labels: {}}}]",
            "labels",
        ),
    ],
)
def test_invalid_pods_sections_are_rejected_naming_the_field(components, needle):
    with pytest.raises(DefinitionError) as raised:
        _definition(components)
    assert needle in str(raised.value)
    assert raised.value.file == "widget.yaml"


def test_the_schema_takes_one_key_or_a_list():
    schema = definition_json_schema()
    document = {
        "name": "widget",
        "group": "example.com",
        "kind": "Widget",
        "versions": ["v1"],
        "components": [
            {"name": "pod", "podTemplate": "spec.template", "pods": {"selector": "a=b", "replicaIndex": "x/y"}},
            {"name": "other", "podTemplate": "spec.other", "pods": {"selector": "a=c", "replicaIndex": ["x/y", "z"]}},
        ],
    }
    jsonschema.validate(document, schema)
    document["components"][0]["pods"]["replicaIndex"] = 3
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)


def _pod_bearing(components):
    for component in components:
        if component.pod_template or component.pod_spec:
            yield component
        yield from _pod_bearing(component.components)


def test_every_builtin_pod_bearing_component_says_how_its_pods_are_labelled():
    """Filled in for every built-in definition: describe can attribute the pods of every kind."""
    catalog = Catalog.load(use_env=False)
    missing = []
    for definition in catalog:
        for component in _pod_bearing(definition.components):
            if component.pods is None or component.pods.selector is None:
                missing.append(f"{definition.name}: {component.name}")
        if not any("Pods (describe)" in note for note in definition.notes):
            missing.append(f"{definition.name}: no note citing where the pod labels come from")
    assert not missing, missing


def test_pods_definition_is_reexported_by_definitions():
    assert PodsDefinition(selector="").parsed_selector is not None
