"""The lint rules on `pods` selectors: pods synthesized as the operator labels them must find their own component."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from workloadmap.catalog import load_definition
from workloadmap.lint import lint_definition

HEADER = "name: widget\ngroup: example.com\nkind: Widget\nversions: [v1]\n"
TEMPLATE = {"metadata": {"labels": {"app": "w"}}, "spec": {"containers": [{"name": "main", "image": "x"}]}}


def _lint(tmp_path: Path, body: str, spec: dict, *, name: str = "w"):
    path = tmp_path / "widget.yaml"
    path.write_text(HEADER + textwrap.dedent(body))
    sample = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": spec}
    return [finding for finding in lint_definition(load_definition(path), [sample]) if finding.rule.startswith("pods")]


ROLES = """\
components:
  - name: leader
    podTemplate: spec.template
    pods: {{selector: "{leader}"}}
  - name: worker
    podTemplate: spec.template
    replicas: spec.workers
    pods: {{selector: "{worker}", podIndex: example.com/worker-index}}
"""


@pytest.mark.parametrize(
    ("leader", "worker", "expected"),
    [
        # Told apart: no finding.
        ("example.com/worker-index=0", "example.com/worker-index,example.com/worker-index!=0", []),
        # The worker's pods carry worker-index 1.. and the leader claims every pod with the key: caught.
        ("example.com/worker-index", "example.com/worker-index!=0", ["pods of worker would be attributed to leader"]),
        # A selector its own pods can never meet.
        ("role=leader", "role=worker,role!=worker", ["the selector of worker cannot match its own pods"]),
        # The template's own label makes both selectors match the leader's pods first.
        ("app=w", "app=w,role=worker", ["pods of worker would be attributed to leader"]),
    ],
)
def test_overlapping_selectors_are_errors(tmp_path, leader, worker, expected):
    findings = _lint(tmp_path, ROLES.format(leader=leader, worker=worker), {"template": TEMPLATE, "workers": 2})
    assert [finding.message.split(" (sample")[0] for finding in findings] == expected
    assert all(finding.severity == "error" and finding.rule == "pods-overlap" for finding in findings)
    assert all(finding.field == "components[1].pods.selector" for finding in findings)


def test_instances_need_their_instance_in_the_selector(tmp_path):
    body = """\
    components:
      - name: group
        instances: spec.groups
        podTemplate: template
        pods: {selector: "example.com/group"}
    """
    spec = {"groups": [{"name": "a", "template": TEMPLATE}, {"name": "b", "template": TEMPLATE}]}
    findings = _lint(tmp_path, body, spec)
    # Not an overlap error: describe leaves such pods unattributed (they are alike), and says so.
    assert [(finding.rule, finding.severity, finding.message.split(" (sample")[0]) for finding in findings] == [
        ("pods-instances-alike", "warning", "group[a] and group[b] claim pods alike"),  # once per selector field
    ]
    fixed = _lint(tmp_path, body.replace('"example.com/group"', '"example.com/group={instance}"'), spec)
    assert fixed == []


def test_a_value_longer_than_a_label_value_is_a_warning(tmp_path):
    body = """\
    components:
      - name: pod
        podTemplate: spec.template
        pods: {selector: "example.com/owner={workload}-{index}"}
    """
    findings = _lint(tmp_path, body, {"template": TEMPLATE}, name="x" * 62)
    assert [(finding.rule, finding.severity) for finding in findings] == [("pods-label-value", "warning")]
    assert "is not a label value" in findings[0].message
    assert _lint(tmp_path, body, {"template": TEMPLATE}, name="short") == []


def test_several_pod_bearing_components_each_need_a_selector(tmp_path):
    body = """\
    components:
      - name: a
        podTemplate: spec.template
      - name: b
        podTemplate: spec.template
        pods: {selector: "role=b"}
    """
    findings = _lint(tmp_path, body, {"template": TEMPLATE})
    assert [(f.rule, f.field, f.severity) for f in findings] == [
        ("pods-selector-missing", "components[0].pods", "warning"),
        ("pods-overlap", "components[1].pods.selector", "error"),  # a claims b's pods too: it comes first
    ]
    single = "components:\n  - name: a\n    podTemplate: spec.template\n"
    assert _lint(tmp_path, single, {"template": TEMPLATE}) == []  # one component claims every pod: fine
