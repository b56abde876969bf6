"""Tests of the catalog lint (workloadmap.lint) and its command (`wmap catalog lint`)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import typer
import yaml
from typer.testing import CliRunner

from helpers import CORPUS_DIR
from workloadmap.catalog import builtin_catalog_dir, load_definition
from workloadmap.cli.main import app
from workloadmap.errors import DefinitionError
from workloadmap.lint import LintFinding, has_errors, lint_definition, lint_path, load_samples

CORPUS = CORPUS_DIR

HEADER = """\
name: {name}
group: example.com
kind: {kind}
versions: [v1]
"""

TEMPLATE = {"spec": {"containers": [{"name": "main", "image": "x"}]}}


def definition_from(tmp_path: Path, body: str, *, name: str = "widget", kind: str = "Widget"):
    path = tmp_path / f"{name}.yaml"
    path.write_text(HEADER.format(name=name, kind=kind) + textwrap.dedent(body))
    return load_definition(path)


def widget(spec: dict, status: dict | None = None, *, name: str = "w", kind: str = "Widget") -> dict:
    resource = {"apiVersion": "example.com/v1", "kind": kind, "metadata": {"name": name}, "spec": spec}
    if status is not None:
        resource["status"] = status
    return resource


def by_rule(findings: list[LintFinding], rule: str) -> list[LintFinding]:
    return [finding for finding in findings if finding.rule == rule]


def fields(findings: list[LintFinding], rule: str) -> list[str | None]:
    return [finding.field for finding in by_rule(findings, rule)]


# A correct LWS-like definition, the positive control for the replica rules.
GOOD_GROUPS = """\
components:
  - name: group
    replicas: spec.replicas
    podsPerReplica: spec.size
    components:
      - name: leader
        podTemplate: spec.template
        pods: {selector: "role=leader"}
      - name: worker
        podTemplate: spec.template
        replicas: "sub(spec.size, `1`)"
        pods: {selector: "role=worker"}
gang:
  podGroups:
    - perReplica: group
      subGroups:
        - component: leader
        - component: worker
status:
  rules:
    Running:
      - conditions: [{type: Available, status: "True"}]
"""


def test_correct_definition_has_no_findings(tmp_path):
    definition = definition_from(tmp_path, GOOD_GROUPS)
    samples = [
        widget(
            {"replicas": 2, "size": 4, "template": TEMPLATE},
            {"conditions": [{"type": "Available", "status": "True", "reason": "Ok"}]},
        )
    ]
    assert lint_definition(definition, samples) == []


# -- replica consistency (the LWS group bug) -----------------------------------------------------


def test_group_replicas_equal_to_child_size_is_an_error(tmp_path):
    # Workload Map's LWS bug: the group component counted `size` groups.
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: group
            replicas: spec.size
            components:
              - name: member
                podTemplate: spec.template
                podsPerReplica: spec.size
        """,
    )
    findings = lint_definition(definition)
    assert fields(findings, "replicas-is-size") == ["components[0].replicas"]
    assert by_rule(findings, "replicas-is-size")[0].severity == "error"


def test_sibling_replicas_equal_to_sibling_size(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: launcher
            podTemplate: spec.template
            replicas: spec.workers
          - name: worker
            podTemplate: spec.template
            podsPerReplica: spec.workers
        """,
    )
    assert fields(lint_definition(definition), "replicas-is-size") == ["components[0].replicas"]


def test_child_reading_its_parents_replica_field_is_counted_twice(tmp_path):
    # Karta's LWS, translated: group replicas is size; the worker multiplies by size again.
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: group
            replicas: spec.size
            components:
              - name: leader
                podTemplate: spec.template
                replicas: "spec.replicas || `1`"
              - name: worker
                podTemplate: spec.template
                replicas: "mul(spec.replicas || `1`, sub(spec.size || `1`, `1`))"
        """,
    )
    findings = lint_definition(definition)
    twice = by_rule(findings, "replicas-counted-twice")
    assert [finding.field for finding in twice] == ["components[0].components[1].replicas"]
    assert twice[0].severity == "warning"
    assert "spec.size" in twice[0].message


def test_shared_field_across_an_instances_boundary_is_not_compared(tmp_path):
    # `replicas` inside an instance is the element's own field, not the resource's.
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: group
            replicas: replicas
            components:
              - name: job
                instances: spec.jobs
                podTemplate: template
                replicas: replicas
        """,
    )
    assert by_rule(lint_definition(definition), "replicas-counted-twice") == []


def test_root_paths_are_compared_with_resource_scope_paths(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: group
            replicas: spec.groups
            components:
              - name: member
                podTemplate: spec.template
                replicas: "root().spec.groups"
        """,
    )
    assert fields(lint_definition(definition), "replicas-counted-twice") == ["components[0].components[0].replicas"]


def test_children_exceeding_the_declared_group_size(tmp_path):
    # Worker replicas should be size - 1: with size 4 the group runs 1 + 4 = 5 pods, not 4.
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: group
            replicas: spec.replicas
            podsPerReplica: spec.size
            components:
              - name: leader
                podTemplate: spec.template
              - name: worker
                podTemplate: spec.template
                replicas: spec.size
        """,
    )
    findings = lint_definition(definition, [widget({"replicas": 2, "size": 4, "template": TEMPLATE})])
    exceed = by_rule(findings, "children-exceed-size")
    assert [finding.field for finding in exceed] == ["components[0].podsPerReplica"]
    assert exceed[0].severity == "error"
    assert "5 pods" in exceed[0].message and "podsPerReplica 4" in exceed[0].message


def test_children_below_the_declared_group_size_is_a_warning(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: group
            podsPerReplica: spec.size
            components:
              - name: leader
                podTemplate: spec.template
        """,
    )
    findings = lint_definition(definition, [widget({"size": 3, "template": TEMPLATE})])
    assert [(f.rule, f.severity) for f in findings] == [("children-below-size", "warning")]


# -- never-matching expressions ------------------------------------------------------------------


def test_expression_null_on_every_sample(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: main
            podTemplate: spec.template
            replicas: spec.replica
        """,
    )
    samples = [widget({"replicas": 3, "template": TEMPLATE}), widget({"replicas": 1, "template": TEMPLATE})]
    findings = lint_definition(definition, samples)
    never = by_rule(findings, "never-matches")
    assert [finding.field for finding in never] == ["components[0].replicas"]
    assert never[0].severity == "warning"
    assert "2 sample(s)" in never[0].message


def test_optional_role_is_judged_only_on_samples_that_have_it(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: master
            podTemplate: spec.master.template
            replicas: spec.master.replicas
            pods: {selector: "role=master"}
          - name: worker
            podTemplate: spec.worker.template
            replicas: spec.worker.replicas
            pods: {selector: "role=worker"}
        """,
    )
    with_master = widget(
        {"master": {"template": TEMPLATE, "replicas": 1}, "worker": {"template": TEMPLATE, "replicas": 2}}
    )
    without_master = widget({"worker": {"template": TEMPLATE, "replicas": 2}})
    # The master role is absent from one sample: neither its template nor its replicas is reported.
    assert lint_definition(definition, [with_master, without_master]) == []
    # Absent from every sample: the pod source is reported, its replicas (never evaluated) is not.
    findings = lint_definition(definition, [without_master])
    assert fields(findings, "never-matches") == ["components[0].podTemplate"]


def test_expressions_inside_instances_evaluate_on_each_element(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: group
            instances: spec.groups
            podTemplate: template
            replicas: replicas
            podsPerReplica: hosts
        """,
    )
    sample = widget(
        {"groups": [{"name": "a", "template": TEMPLATE, "replicas": 2}, {"name": "b", "template": TEMPLATE}]}
    )
    # replicas is set on one instance, hosts on none.
    assert fields(lint_definition(definition, [sample]), "never-matches") == ["components[0].podsPerReplica"]


def test_samples_of_other_kinds_are_ignored(tmp_path):
    definition = definition_from(tmp_path, "components:\n  - name: main\n    podTemplate: spec.nothing\n")
    other = widget({"template": TEMPLATE}, kind="Gadget")
    assert lint_definition(definition, [other]) == []


def test_expression_failing_on_a_sample(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: main
            podTemplate: spec.template
            replicas: "sub(spec.size, `1`)"
        """,
    )
    findings = lint_definition(definition, [widget({"size": "3", "template": TEMPLATE})])
    failing = by_rule(findings, "expression-fails")
    assert [finding.field for finding in failing] == ["components[0].replicas"]
    assert failing[0].severity == "error"


def test_instances_yielding_a_scalar(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: group
            instances: spec.groups
            podTemplate: template
        """,
    )
    findings = lint_definition(definition, [widget({"groups": "three"})])
    assert fields(findings, "instances-not-a-list") == ["components[0].instances"]
    assert has_errors(findings)
    # A mapping is a valid instance source (one instance per key).
    assert lint_definition(definition, [widget({"groups": {"a": {"template": TEMPLATE}}})]) == []


def test_sample_that_cannot_be_expanded_is_a_warning(tmp_path):
    definition = definition_from(tmp_path, "components:\n  - name: main\n    podTemplate: spec.template\n")
    findings = lint_definition(definition, [widget({"template": {"metadata": {}}})])
    assert [(f.rule, f.severity) for f in findings] == [("sample-fails", "warning")]


def test_not_binding_tighter_than_dot(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: main
            podTemplate: spec.template
            active: "!spec.suspend"
          - name: side
            podTemplate: spec.template
            active: "!(spec.suspend)"
        """,
    )
    findings = lint_definition(definition)
    assert fields(findings, "jmespath-not-precedence") == ["components[0].active"]


# -- status mappings -----------------------------------------------------------------------------


def test_phase_matcher_without_phase_expression(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components: [{name: main, podTemplate: spec.template}]
        status:
          rules:
            Running:
              - phase: Running
        """,
    )
    assert fields(lint_definition(definition), "status-phase-unset") == ["status.rules.Running[0].phase"]
    fixed = definition_from(
        tmp_path,
        """\
        components: [{name: main, podTemplate: spec.template}]
        status:
          phase: status.phase
          rules:
            Running:
              - phase: Running
        """,
        name="fixed",
    )
    assert lint_definition(fixed) == []


def test_conditions_matcher_without_conditions_expression(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components: [{name: main, podTemplate: spec.template}]
        status:
          conditions: null
          rules:
            Running:
              - conditions: [{type: Ready, status: "True"}]
        """,
    )
    assert fields(lint_definition(definition), "status-conditions-unset") == ["status.rules.Running[0].conditions"]


def test_reason_check_without_reason_field(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components: [{name: main, podTemplate: spec.template}]
        status:
          conditionFields: {reason: ""}
          rules:
            Failed:
              - conditions: [{type: Ready, status: "False", reason: Crashed}]
        """,
    )
    assert fields(lint_definition(definition), "status-reason-unset") == ["status.rules.Failed[0].conditions[0].reason"]


def test_reason_check_when_sample_conditions_carry_no_reason(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components: [{name: main, podTemplate: spec.template}]
        status:
          rules:
            Failed:
              - conditions: [{type: Ready, status: "False", reason: Crashed}]
        """,
    )
    no_reason = widget({"template": TEMPLATE}, {"conditions": [{"type": "Ready", "status": "True"}]})
    findings = lint_definition(definition, [no_reason])
    absent = by_rule(findings, "status-reason-absent")
    assert [finding.field for finding in absent] == ["status.rules.Failed[0].conditions[0].reason"]
    assert absent[0].severity == "warning"
    with_reason = widget({"template": TEMPLATE}, {"conditions": [{"type": "Ready", "status": "True", "reason": "Up"}]})
    assert by_rule(lint_definition(definition, [no_reason, with_reason]), "status-reason-absent") == []


def test_matcher_duplicated_in_a_lower_precedence_phase(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components: [{name: main, podTemplate: spec.template}]
        status:
          rules:
            Initializing:
              - conditions: [{type: Ready, status: "True"}]
            Running:
              - conditions: [{type: Ready, status: "True"}]
        """,
    )
    shadowed = by_rule(lint_definition(definition), "status-shadowed")
    # Running takes precedence over Initializing, whatever the order in the file.
    assert [finding.field for finding in shadowed] == ["status.rules.Initializing[0]"]
    assert "Running" in shadowed[0].message


def test_matcher_implied_by_a_more_general_higher_one(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components: [{name: main, podTemplate: spec.template}]
        status:
          phase: status.phase
          rules:
            Failed:
              - conditions: [{type: Failed, status: "True"}]
            Running:
              - phase: [Running, Pending]
                conditions: [{type: Failed, status: "True"}, {type: Ready, status: "True"}]
              - phase: Running
        """,
    )
    assert fields(lint_definition(definition), "status-shadowed") == ["status.rules.Running[0]"]


def test_more_specific_higher_matcher_does_not_shadow(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components: [{name: main, podTemplate: spec.template}]
        status:
          rules:
            Failed:
              - conditions: [{type: Ready, status: "False", reason: Crashed}]
            Running:
              - conditions: [{type: Ready, status: "False"}]
        """,
    )
    assert by_rule(lint_definition(definition), "status-shadowed") == []


# -- unreachable components and gang rules -------------------------------------------------------


def test_component_without_pod_source_or_children(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: main
            podTemplate: spec.template
          - name: ghost
            replicas: spec.replicas
        """,
    )
    findings = lint_definition(definition)
    assert fields(findings, "no-pod-source") == ["components[1]"]
    assert by_rule(findings, "no-pod-source")[0].severity == "error"


def test_gang_naming_a_component_without_pods(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: main
            podTemplate: spec.template
          - name: shell
            components:
              - name: empty
        gang:
          podGroups:
            - perReplica: shell
            - subGroups:
                - component: main
                - component: empty
        """,
    )
    findings = lint_definition(definition)
    assert fields(findings, "gang-no-pods") == [
        "gang.podGroups[0].perReplica",
        "gang.podGroups[1].subGroups[1].component",
    ]
    assert fields(findings, "gang-rule-unreachable") == ["gang.podGroups[1]"]


def test_subgroup_outside_the_per_replica_scope(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: launcher
            podTemplate: spec.template
          - name: group
            components:
              - name: worker
                podTemplate: spec.template
        gang:
          podGroups:
            - perReplica: group
              subGroups:
                - component: worker
                - component: launcher
        """,
    )
    assert fields(lint_definition(definition), "gang-subgroup-out-of-scope") == [
        "gang.podGroups[0].subGroups[1].component"
    ]


def test_gang_rule_with_conditions_keeps_later_rules_reachable(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components: [{name: main, podTemplate: spec.template}]
        gang:
          podGroups:
            - when: spec.gang
              minMember: 1
            - {}
        """,
    )
    assert by_rule(lint_definition(definition), "gang-rule-unreachable") == []


def test_gang_component_without_pods_on_any_sample(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: main
            podTemplate: spec.template
          - name: extra
            podTemplate: spec.template
            active: spec.extra
        gang:
          podGroups:
            - subGroups:
                - component: main
                - component: extra
        """,
    )
    findings = lint_definition(definition, [widget({"template": TEMPLATE, "extra": False})])
    assert fields(findings, "component-never-has-pods") == ["components[1]"]


def test_pod_group_needing_more_members_than_pods(tmp_path):
    definition = definition_from(
        tmp_path,
        """\
        components: [{name: main, podTemplate: spec.template, replicas: spec.replicas}]
        gang:
          podGroups:
            - minMember: "add(spec.replicas, `1`)"
        """,
    )
    findings = lint_definition(definition, [widget({"replicas": 2, "template": TEMPLATE})])
    assert fields(findings, "gang-min-exceeds-pods") == ["gang.podGroups[0].minMember"]


# -- files, directories, samples -----------------------------------------------------------------


def test_lint_path_reports_schema_errors_and_lints_the_rest(tmp_path):
    (tmp_path / "broken.yaml").write_text(HEADER.format(name="broken", kind="Broken") + "components: []\n")
    (tmp_path / "ghost.yaml").write_text(HEADER.format(name="ghost", kind="Ghost") + "components: [{name: ghost}]\n")
    (tmp_path / "notes.txt").write_text("not a definition")
    findings = lint_path(tmp_path)
    assert [(f.rule, Path(f.file).name) for f in findings] == [
        ("schema", "broken.yaml"),
        ("no-pod-source", "ghost.yaml"),
    ]
    assert all(f.severity == "error" for f in findings)


def test_lint_path_missing(tmp_path):
    with pytest.raises(DefinitionError):
        lint_path(tmp_path / "absent.yaml")


def test_samples_from_files_and_recorded_flows(tmp_path):
    definition_from(
        tmp_path,
        """\
        components: [{name: main, podTemplate: spec.template, replicas: spec.typo}]
        """,
    )
    samples = tmp_path / "samples"
    (samples / "nested").mkdir(parents=True)
    (samples / "nested" / "w.yaml").write_text(yaml.safe_dump(widget({"template": TEMPLATE})))
    recorded = {
        "schemaVersion": 1,
        "events": [
            {
                "kind": "STATE",
                "object": widget({"template": TEMPLATE}, name="rec"),
                "phases": ["Undefined"],
                "state": "Undefined",
            },
            {"kind": "ACTION", "action": {"name": "Scale"}},
        ],
    }
    (samples / "flow.yaml").write_text(yaml.safe_dump(recorded))
    (samples / "broken.yaml").write_text("a: [\n")
    documents = load_samples([samples])
    assert sorted(document.body["metadata"]["name"] for document in documents) == ["rec", "w"]
    findings = lint_path(tmp_path / "widget.yaml", samples)
    never = by_rule(findings, "never-matches")
    assert [finding.field for finding in never] == ["components[0].replicas"]
    assert "2 sample(s)" in never[0].message


# -- the built-in catalog -------------------------------------------------------------------------


def _report(findings: list[LintFinding]) -> str:
    return "\n".join(str(finding) for finding in findings)


def test_builtin_catalog_has_no_static_errors():
    findings = lint_path(builtin_catalog_dir())
    errors = [finding for finding in findings if finding.severity == "error"]
    assert not errors, _report(errors)


def test_builtin_catalog_lints_without_errors_on_the_corpus():
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS} (the shared corpus is outside the repository)")
    findings = lint_path(builtin_catalog_dir(), CORPUS)
    errors = [finding for finding in findings if finding.severity == "error"]
    assert not errors, _report(errors)
    warnings = [finding for finding in findings if finding.severity == "warning"]
    print(f"\n{len(warnings)} lint warning(s) on the built-in catalog:\n{_report(warnings)}")


# -- the command ----------------------------------------------------------------------------------


def _app() -> typer.Typer:
    return app


def test_command_exit_codes_and_json(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "ghost.yaml").write_text(HEADER.format(name="ghost", kind="Ghost") + "components: [{name: ghost}]\n")
    runner = CliRunner()
    result = runner.invoke(_app(), ["catalog", "lint", str(bad), "-o", "json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert [(f["rule"], f["severity"], f["definition"], f["field"]) for f in data["findings"]] == [
        ("no-pod-source", "error", "ghost", "components[0]")
    ]


def test_command_warnings_only_exit_zero(tmp_path):
    definition_from(tmp_path, "components: [{name: main, podTemplate: spec.template, replicas: spec.typo}]\n")
    sample = tmp_path / "sample.yaml"
    sample.write_text(yaml.safe_dump(widget({"template": TEMPLATE})))
    result = CliRunner().invoke(
        _app(), ["catalog", "lint", str(tmp_path / "widget.yaml"), "--samples", str(sample), "-o", "yaml"]
    )
    assert result.exit_code == 0, result.output
    findings = yaml.safe_load(result.stdout)["findings"]
    assert [(f["rule"], f["severity"]) for f in findings] == [("never-matches", "warning")]


def test_command_prints_one_finding_per_line_compiler_style(tmp_path):
    definition_from(tmp_path, "components:\n  - name: main\n    podTemplate: spec.template\n  - name: ghost\n")
    result = CliRunner().invoke(_app(), ["catalog", "lint", str(tmp_path / "widget.yaml")], env={"COLUMNS": "40"})
    assert result.exit_code == 1
    # FILE:LINE: SEVERITY: DEFINITION: FIELD: RULE: message, the message whole however narrow the terminal;
    # line 8 is `  - name: ghost` (4 header lines, `components:`, main's two lines).
    [line] = result.stdout.splitlines()
    where, severity, definition, field, rule, message = line.split(": ", 5)
    assert (where, severity, definition, field, rule) == (
        f"{tmp_path / 'widget.yaml'}:8",
        "error",
        "widget",
        "components[1]",
        "no-pod-source",
    )
    assert message.endswith("it can never run a pod")
    assert "1 error(s), 0 warning(s)" in result.stderr


def test_command_table_output(tmp_path):
    definition_from(tmp_path, "components: [{name: main, podTemplate: spec.template}, {name: ghost}]\n")
    result = CliRunner().invoke(_app(), ["catalog", "lint", str(tmp_path / "widget.yaml"), "-o", "table"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["SEVERITY", "DEFINITION", "FIELD", "RULE", "MESSAGE"]
    assert lines[1].split()[:4] == ["error", "widget", "components[1]", "no-pod-source"]
    assert "can never run a pod" in lines[1]


def test_command_missing_path(tmp_path):
    result = CliRunner().invoke(_app(), ["catalog", "lint", str(tmp_path / "absent")])
    assert result.exit_code == 1
    assert "absent" in result.output and "Traceback" not in result.output


def test_replicas_is_size_inside_an_instance_scope(tmp_path):
    # Inside an instance, the component and its children read the same element.
    definition = definition_from(
        tmp_path,
        """\
        components:
          - name: group
            instances: spec.groups
            replicas: size
            components:
              - name: member
                podTemplate: template
                podsPerReplica: size
          - name: other
            podTemplate: spec.template
            podsPerReplica: size
        """,
    )
    # `other` reads the resource's `size`, not the instance's: only the child is reported.
    findings = by_rule(lint_definition(definition), "replicas-is-size")
    assert [finding.field for finding in findings] == ["components[0].replicas"]
    assert "descendant 'member'" in findings[0].message


def test_docs_lint_page_lists_every_rule_as_the_table_says():
    from helpers import REPO_ROOT
    from workloadmap.lint import RULES, render_rules_table

    page = (REPO_ROOT / "docs" / "lint.md").read_text()
    table = page[
        page.index("<!-- rules:begin -->\n") + len("<!-- rules:begin -->\n") : page.index("<!-- rules:end -->")
    ]
    assert table == render_rules_table(), "regenerate docs/lint.md from `wmap catalog lint --rules`"
    assert all(f"`{rule_id}`" in table for rule_id in RULES)


def test_command_lists_the_rules_as_text(wmap, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    result = wmap("catalog", "lint", "--rules")
    assert result.exit_code == 0
    rows = {line.split()[0]: line.split()[1:3] for line in result.stdout.splitlines() if not line.startswith(" ")}
    assert rows["RULE"] == ["SEVERITY", "NEEDS"]
    assert rows["no-pod-source"] == ["error", "static"] and rows["never-matches"] == ["warning", "samples"]
    assert "|" not in result.stdout and "---" not in result.stdout  # not the Markdown of docs/lint.md
    assert all(len(line) <= 80 for line in result.stdout.splitlines())


_INNER = """
name: inner
group: example.com
kind: Inner
versions: [v1]
components:
  - name: group
    replicas: spec.groups
    podsPerReplica: 2
    components:
      - name: member
        replicas: 3
        podTemplate: spec.template
"""

_OUTER = """
name: outer
group: example.com
kind: Outer
versions: [v1]
components:
  - name: wrapped
    resource: "spec.items[]"
"""


def test_size_rules_skip_the_components_of_an_embedded_kinds_definition():
    # An Outer embeds Inner objects: Inner's `group` declares 2 pods per replica and holds 3, but
    # that is Inner's own definition to lint (with its file and fields), not Outer's; whether the
    # catalog holds Inner as a validated model or precompiled makes no difference.
    from workloadmap.catalog import Catalog, parse_definition

    inner = parse_definition(_INNER, "inner.yaml")
    outer = parse_definition(_OUTER, "outer.yaml")
    pod = {"spec": {"containers": [{"name": "m", "image": "x"}]}}
    sample = {
        "apiVersion": "example.com/v1", "kind": "Outer", "metadata": {"name": "o"},
        "spec": {"items": [{"apiVersion": "example.com/v1", "kind": "Inner", "metadata": {"name": "i"},
                            "spec": {"groups": 1, "template": pod}}]},
    }  # fmt: skip
    findings = lint_definition(outer, [sample], catalog=Catalog([inner]))
    assert not [finding for finding in findings if finding.field and "podsPerReplica" in finding.field]
    assert not [finding for finding in findings if finding.severity == "error"]
