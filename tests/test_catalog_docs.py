"""Tests of the catalog documentation generator (workloadmap.catalog_docs) and docs/catalog.md."""

from __future__ import annotations

from helpers import REPO_ROOT
from workloadmap.catalog import Catalog, parse_definition
from workloadmap.catalog_docs import (
    REGENERATE_COMMAND,
    component_tree,
    gang_summary,
    render_catalog_document,
    render_catalog_table,
)

DOCS_PAGE = REPO_ROOT / "docs" / "catalog.md"

LWS_LIKE = """\
name: grouped
group: b.example.com
kind: Grouped
versions: [v1, v1beta1]
components:
  - name: group
    replicas: spec.replicas
    components:
      - {name: leader, podTemplate: spec.template}
      - {name: worker, podTemplate: spec.template}
gang:
  policy: "KAI pod-grouper leaderworkerset plugin: one PodGroup per group"
  podGroups:
    - perReplica: group
      subGroups: [{component: leader}, {component: worker}]
status:
  rules:
    Initializing:
      - conditions: [{type: Progressing, status: "True"}]
    Failed:
      - conditions: [{type: Failed, status: "True"}]
    Running:
      - conditions: [{type: Available, status: "True"}]
"""

JOBSET_LIKE = """\
name: sets
group: a.example.com
kind: Sets
versions: [v1]
components:
  - {name: replicatedJob, instances: spec.jobs, podTemplate: template}
  - {name: side, podTemplate: "spec.side | a", description: "x | y"}
gang:
  policy: "Operator's own a|b integration (minAvailable); see notes"
  podGroups:
    - {when: "spec.ordered", perInstance: replicatedJob}
    - {minMember: 1}
"""

PLAIN = """\
name: plain
group: a.example.com
kind: Alpha
versions: [v2]
components:
  - {name: main, podTemplate: spec.template}
"""


def _catalog() -> Catalog:
    return Catalog(
        parse_definition(text, f"{name}.yaml")
        for name, text in (("lws", LWS_LIKE), ("sets", JOBSET_LIKE), ("plain", PLAIN))
    )


def test_component_tree_nests_children_and_marks_instances():
    definitions = {definition.name: definition for definition in _catalog()}
    assert component_tree(definitions["grouped"].components) == "group(leader, worker)"
    assert component_tree(definitions["sets"].components) == "replicatedJob[], side"


def test_gang_summary_short_policy_and_rule_shapes():
    definitions = {definition.name: definition for definition in _catalog()}
    assert (
        gang_summary(definitions["grouped"])
        == "KAI pod-grouper leaderworkerset plugin: per replica of group +subgroups"
    )
    assert gang_summary(definitions["sets"]) == (
        "Operator's own a|b integration: per instance of replicatedJob (conditional), else one minMember 1"
    )
    assert gang_summary(definitions["plain"]) == "none"


def test_table_rows_sorted_by_group_then_kind_with_phases_in_precedence_order():
    table = render_catalog_table(_catalog())
    lines = table.splitlines()
    assert lines[0] == "| Kind | Group | Versions | Components | Gang | Phases |"
    kinds = [line.split("|")[1].strip() for line in lines[2:]]
    assert kinds == ["Alpha", "Sets", "Grouped"]  # a.example.com (Alpha < Sets), then b.example.com
    grouped = lines[4]
    assert grouped.startswith("| Grouped | b.example.com | v1, v1beta1 | `group(leader, worker)` |")
    assert grouped.endswith("| Failed, Running, Initializing |")
    assert lines[2].endswith("| — |")  # no status rules


def test_table_cells_stay_on_one_line_and_escape_pipes():
    table = render_catalog_table(_catalog())
    for line in table.splitlines():
        # Every row has exactly the 7 unescaped separators of 6 columns.
        assert line.replace("\\|", "").count("|") == 7, line
    assert "Operator's own a\\|b integration" in table


def test_rendering_is_deterministic_whatever_the_input_order():
    definitions = list(_catalog())
    assert render_catalog_table(reversed(definitions)) == render_catalog_table(definitions)


def test_docs_page_matches_the_builtin_catalog():
    expected = render_catalog_document(Catalog.load(use_env=False))
    actual = DOCS_PAGE.read_text(encoding="utf-8") if DOCS_PAGE.exists() else ""
    assert actual == expected, (
        f"docs/catalog.md is out of date with catalog/; regenerate it with `{REGENERATE_COMMAND}`"
    )
