"""Definitions are untrusted input: what an expression or a reference may do is bounded.

Each case is one the issue found by hand: a ``sub(/(a+)+$/, ...)`` JSONPath taking seconds on a
short annotation, an exponential JMESPath chain exhausting memory, a thousand nested parentheses
raising RecursionError at validation, and a reference reading a Secret.
"""

from __future__ import annotations

import pytest

from workloadmap import Catalog, DefinitionError, ExpressionLimitError, inspect
from workloadmap.budgets import allowing_references
from workloadmap.catalog import parse_definition
from workloadmap.errors import ExpressionError
from workloadmap.expressions import MAX_EXPRESSION_NESTING, MAX_NUMBER, MAX_STEPS, MAX_VALUE_SIZE, compile_expression


@pytest.mark.parametrize("language", ["jmespath", "jsonpath"])
def test_a_thousand_nested_parentheses_are_a_clean_compile_error(language):
    source = "(" * 1000 + "a" + ")" * 1000 if language == "jmespath" else "$" + "[" * 1000 + "0" + "]" * 1000
    with pytest.raises(ExpressionError, match=f"nested 1000 deep; at most {MAX_EXPRESSION_NESTING}"):
        compile_expression(source, language)


def test_quoted_brackets_do_not_count_as_nesting():
    expression = compile_expression('metadata.annotations."a((((((((((((((((((((((((((((((((((b" || `"[[[["`')
    assert expression.search({"metadata": {"annotations": {}}}) == "[[[["


@pytest.mark.parametrize(
    "source",
    ["$.metadata.annotations.x.`sub(/(a+)+$/, b)`", "$.spec.`sub(/^(x+x+)+y$/, z)`", '$.a[?(@.b =~ "(a+)+$")]'],
)
def test_jsonpath_extensions_that_run_regular_expressions_are_refused(source):
    with pytest.raises(ExpressionError, match="not allowed"):
        compile_expression(source, "jsonpath")


def test_jsonpath_without_regular_expressions_still_compiles():
    expression = compile_expression("$.spec.items[?(@.name == 'a')].count", "jsonpath")
    assert expression.search({"spec": {"items": [{"name": "a", "count": 2}, {"name": "b", "count": 3}]}}) == 2


def test_an_exponential_jmespath_chain_stops_at_the_size_bound():
    """Each ``[@, @][]`` doubles the list: 2**40 items if nothing stops it."""
    expression = compile_expression("[`1`] | " + " | ".join(["[@, @][]"] * 40))
    with pytest.raises(ExpressionLimitError, match="more than"):  # the steps or the list size, first reached
        expression.search({})
    flattened = compile_expression("[][][]")
    with pytest.raises(ExpressionLimitError, match=f"a value of more than {MAX_VALUE_SIZE} items"):
        flattened.search([[[[0] * 40] * 40] * 40] * 40)  # 2.6 million items once flattened


def test_shared_sublists_cannot_be_printed_exponentially():
    """``[@, @]`` shares its halves, so 60 of them are tiny in memory; printing them would not be."""
    expression = compile_expression("`1` | " + " | ".join(["[@, @]"] * 60) + " | to_string(@)")
    with pytest.raises(ExpressionLimitError, match="larger than"):
        expression.search({})
    assert compile_expression("to_string(@)").search([1, {"a": "b"}]) == '[1,{"a":"b"}]'


def test_arithmetic_beyond_any_count_is_refused():
    expression = compile_expression("`3` | " + " | ".join(["mul(@, @)"] * 80))
    with pytest.raises(ExpressionLimitError, match=str(MAX_NUMBER)):
        expression.search({})
    assert compile_expression("mul(`4`, `8`)").search({}) == 32


def test_evaluation_steps_are_bounded():
    expression = compile_expression("[*][*][*][*]")
    wide = [[[[0] * 40] * 40] * 40] * 40  # 2.6 million visits
    with pytest.raises(ExpressionLimitError, match=f"more than {MAX_STEPS} evaluation steps"):
        expression.search(wide)


SECRET_DEFINITION = """
name: exfil
group: example.com
kind: Exfil
versions: [v1]
references:
  - name: secret
    kinds: [{apiVersion: v1, kind: Secret}]
    nameExpression: spec.secretName
components:
  - name: main
    kind: Pod
    podTemplate: spec.template
"""


@pytest.mark.parametrize(
    "kind, api_version", [("Secret", "v1"), ("ConfigMap", "v1"), ("Secret", "evil.example.com/v1")]
)
def test_a_reference_to_a_kind_outside_the_allowlist_is_refused(kind, api_version):
    text = SECRET_DEFINITION.replace("{apiVersion: v1, kind: Secret}", f"{{apiVersion: {api_version}, kind: {kind}}}")
    with pytest.raises(DefinitionError) as caught:
        parse_definition(text, "exfil.yaml")
    assert caught.value.field == "references[0].kinds[0]" and "--allow-reference-kind" in caught.value.message


def test_the_user_may_allow_a_kind_explicitly(tmp_path):
    (tmp_path / "exfil.yaml").write_text(SECRET_DEFINITION)
    with allowing_references([("", "Secret")]):
        catalog = Catalog.load([str(tmp_path)])
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "n"}}
    pod = {"spec": {"containers": [{"name": "c", "image": "x"}]}}
    workload = {"apiVersion": "example.com/v1", "kind": "Exfil", "metadata": {"name": "e", "namespace": "n"},
                "spec": {"secretName": "s", "template": pod}}  # fmt: skip
    from workloadmap.interpreter import ObjectIndex

    assert inspect(workload, catalog=catalog, related=ObjectIndex([secret])).totals.pods == 1


def test_the_builtin_catalog_references_only_allowed_kinds():
    catalog = Catalog.load(use_env=False)
    assert any(definition.name == "trainjob" for definition in catalog)
