"""The Karta model and upstream's validation rules.

Rules and their order come from upstream's validator (``pkg/api/runai/v1alpha1/validation.go``,
reference workload-map.md section 2.10); the CEL rules of ComponentTypeSelector from its CRD.
"""

from __future__ import annotations

import copy

import pytest

from helpers import FIXTURES_DIR, yaml_doc
from workloadmap.errors import DefinitionError
from workloadmap.karta import is_karta, parse_karta

TRAINER = yaml_doc((FIXTURES_DIR / "karta" / "trainer-karta.yaml").read_text())


def _broken(change):
    data = copy.deepcopy(TRAINER)
    change(data)
    return data


def _children(data):
    return data["spec"]["structureDefinition"]["childComponents"]


def _root(data):
    return data["spec"]["structureDefinition"]["rootComponent"]


def test_the_fixture_is_a_valid_karta_and_round_trips_unchanged():
    definition = parse_karta(TRAINER, "trainer-karta.yaml")
    assert is_karta(TRAINER)
    assert (definition.name, definition.group, definition.kind, definition.versions) == (
        "example-com-trainer-v1",
        "example.com",
        "Trainer",
        ["v1"],
    )
    assert definition.to_object() == TRAINER  # CRD defaults are applied, never written back


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        # 1. names unique and non-empty
        (lambda d: _children(d)[1].update(name="launcher"), "spec.structureDefinition", "more than once"),
        # 2. every child has an ownerRef naming an existing component
        (lambda d: _children(d)[0].pop("ownerRef"), "childComponents[0].ownerRef", "needs an ownerRef"),
        (lambda d: _children(d)[0].update(ownerRef="nobody"), "childComponents[0].ownerRef", "names no component"),
        # 3. the root: full GVK (only Pod may omit the group), no ownerRef, a statusDefinition
        (lambda d: _root(d)["kind"].update(group=""), "rootComponent.kind.group", "needs a group"),
        (lambda d: _root(d)["kind"].update(version=""), "rootComponent.kind", "full kind"),
        (lambda d: _root(d).update(ownerRef="launcher"), "rootComponent.ownerRef", "cannot have an ownerRef"),
        (lambda d: _root(d).pop("statusDefinition"), "rootComponent.statusDefinition", "needs a statusDefinition"),
        # 4. at most one pod spec definition
        (
            lambda d: _children(d)[0]["specDefinition"].update(podSpecPath=".spec.x"),
            "childComponents[0].specDefinition",
            "multiple pod spec definitions",
        ),
        # 5. instanceIdPath <=> componentInstanceSelector
        (
            lambda d: _children(d)[1]["podSelector"].pop("componentInstanceSelector"),
            "childComponents[1].instanceIdPath",
            "go together",
        ),
        # 7. gang members name defined components
        (
            lambda d: d["spec"]["optimizationInstructions"]["gangScheduling"]["podGroups"][0]["members"][0].update(
                componentName="ghost"
            ),
            "podGroups[0].members[0].componentName",
            "names no component",
        ),
        # 8. every jq field compiles and passes the safety rules
        (lambda d: _children(d)[1]["scaleDefinition"].update(replicasPath="$ENV.N"), "replicasPath", "not allowed"),
        (lambda d: _children(d)[1].update(instanceIdPath=".spec.groups[].name |"), "instanceIdPath", "invalid jq"),
        (
            lambda d: d["spec"]["optimizationInstructions"]["gangScheduling"]["podGroups"][0]["members"][0][
                "filters"
            ].append("del(.spec)"),
            "filters[1]",
            "del is not allowed",
        ),
    ],
)
def test_each_rule_is_enforced_naming_the_field(change, field, message):
    with pytest.raises(DefinitionError, match=message) as caught:
        parse_karta(_broken(change), "broken.yaml")
    assert field in (caught.value.field or "")
    assert caught.value.file == "broken.yaml"


def test_an_ownership_cycle_is_refused():
    def cycle(data):
        _children(data)[0]["ownerRef"] = "workers"
        _children(data)[1]["ownerRef"] = "launcher"

    with pytest.raises(DefinitionError, match="cycle"):
        parse_karta(_broken(cycle))


@pytest.mark.parametrize(
    ("selector", "message"),
    [
        ({"value": "x"}, "at least one of keyPath or matchLabels"),
        ({"matchLabels": {"a": "b"}, "value": "x"}, "value requires keyPath"),
    ],
)
def test_component_type_selector_cel_rules(selector, message):
    with pytest.raises(DefinitionError, match=message):
        parse_karta(_broken(lambda d: _children(d)[0]["podSelector"].update(componentTypeSelector=selector)))


def test_unknown_fields_and_statuses_are_refused():
    with pytest.raises(DefinitionError, match="unknown field"):
        parse_karta(_broken(lambda d: _children(d)[0].update(replicas=3)))
    with pytest.raises(DefinitionError, match="unknown status 'paused'"):
        parse_karta(_broken(lambda d: _root(d)["statusDefinition"]["statusMappings"].update(paused=[{"byPhase": "X"}])))
