"""Tests for workloadmap.expressions: JMESPath with wmap's functions, JSONPath via jsonpath-ng."""

from __future__ import annotations

import pytest

from workloadmap.errors import ExpressionError
from workloadmap.expressions import MAX_EXPRESSION_LENGTH, compile_expression

RESOURCE = {
    "spec": {
        "replicas": 3,
        "size": "4",
        "replicatedJobs": [
            {"name": "leader", "replicas": 1, "template": {"spec": {"parallelism": 1}}},
            {"name": "workers", "replicas": 2, "template": {"spec": {"parallelism": 4}}},
        ],
        "labels": {"a": "1", "b": "2"},
    }
}


def search(text, data=RESOURCE, **kwargs):
    return compile_expression(text).search(data, **kwargs)


def test_plain_jmespath():
    assert search("spec.replicas") == 3
    assert search("spec.replicatedJobs[].name") == ["leader", "workers"]
    assert search("spec.missing") is None
    assert search("spec.missing || `7`") == 7


def test_root_reaches_the_resource_from_an_instance():
    worker = RESOURCE["spec"]["replicatedJobs"][1]
    expression = compile_expression("mul(replicas, root().spec.replicas)")
    # instance replicas 2 x resource replicas 3 = 6
    assert expression.search(worker, root=RESOURCE) == 6


def test_root_defaults_to_the_data():
    assert search("root().spec.replicas") == 3


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("add(`2`, `3`)", 5),
        ("sub(`2`, `3`)", -1),  # sub does not clamp; max() does
        ("max([sub(`2`, `3`), `0`])", 0),
        ("mul(`4`, `6`)", 24),
        ("product(`[2, 3, 4]`)", 24),
        ("product(`[]`)", 1),
        ("ceil_div(`7`, `2`)", 4),  # 3.5 rounds up
        ("ceil_div(`8`, `2`)", 4),
        ("ceil_div(`1`, `0`)", None),  # no division by zero
        ("int('3')", 3),
        ("int(' 12 ')", 12),
        ("int('2.0')", 2),
        ("int(`5`)", 5),
        ("int('abc')", None),
        ("int(`true`)", None),
        ("int(`null`)", None),
        ("int(`[1]`)", None),
    ],
)
def test_custom_functions(text, expected):
    assert search(text, {}) == expected


def test_items_keeps_document_order():
    assert search("items(spec.labels)") == [{"key": "a", "value": "1"}, {"key": "b", "value": "2"}]


def test_int_of_a_numeric_string_field():
    # LWS size arrives as a string here: int() makes it usable in arithmetic (4 - 1 = 3)
    assert search("sub(int(spec.size), `1`)") == 3


def test_function_type_error_raises_expression_error():
    with pytest.raises(ExpressionError) as caught:
        search("add(spec.replicatedJobs, `1`)")
    assert "add(" in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        "spec.[",  # syntax error
        "spec.replicas ==",  # incomplete
        "nosuchfunction(spec)",  # unknown function caught at compile time, not at search time
        "length(to_array(frobnicate(`1`)))",  # unknown function nested inside known ones
    ],
)
def test_compile_errors(text):
    with pytest.raises(ExpressionError) as caught:
        compile_expression(text)
    assert "\n" not in str(caught.value)


def test_unknown_function_is_named():
    with pytest.raises(ExpressionError, match=r"frobnicate\(\)"):
        compile_expression("frobnicate(spec)")


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_expression_refused(text):
    with pytest.raises(ExpressionError):
        compile_expression(text)


def test_overlong_expression_refused():
    with pytest.raises(ExpressionError):
        compile_expression("a." * (MAX_EXPRESSION_LENGTH // 2) + "b")


def test_unknown_language():
    with pytest.raises(ExpressionError, match="unknown expression language"):
        compile_expression("spec", "jq")


def test_compile_is_cached():
    assert compile_expression("spec.replicas") is compile_expression("spec.replicas")
    assert compile_expression("spec.replicas") is not compile_expression("$.spec.replicas", "jsonpath")


def test_jsonpath_single_and_several_and_none():
    single = compile_expression("$.spec.replicas", "jsonpath")
    assert single.search(RESOURCE) == 3
    several = compile_expression("$.spec.replicatedJobs[*].name", "jsonpath")
    assert several.search(RESOURCE) == ["leader", "workers"]
    assert several.values(RESOURCE) == ["leader", "workers"]
    none = compile_expression("$.spec.nothing", "jsonpath")
    assert none.search(RESOURCE) is None
    assert none.values(RESOURCE) == []


def test_jsonpath_filter():
    expression = compile_expression('$.spec.replicatedJobs[?(@.name == "workers")].replicas', "jsonpath")
    assert expression.search(RESOURCE) == 2


def test_jsonpath_regex_filter_refused():
    # regex filters can be made to backtrack for seconds per item: never compiled
    with pytest.raises(ExpressionError, match="regex"):
        compile_expression('$.spec.replicatedJobs[?(@.name =~ "w.*")]', "jsonpath")


def test_jsonpath_syntax_error():
    with pytest.raises(ExpressionError):
        compile_expression("$.spec[", "jsonpath")


def test_values_wraps_single_jmespath_results():
    assert compile_expression("spec.replicas").values(RESOURCE) == [3]
    assert compile_expression("spec.replicatedJobs[].replicas").values(RESOURCE) == [1, 2]
    assert compile_expression("spec.nothing").values(RESOURCE) == []


@pytest.mark.parametrize(
    ("size", "mib"),
    [
        ("512m", 512),
        ("2g", 2048),
        ("2G", 2048),
        ("1t", 1024 * 1024),
        ("1024k", 1),
        ("1000k", 1),
        ("768", 768),
        (None, None),
        ("2x", None),
        # apache/spark JavaUtils.byteStringAs: lower-cased, a whole number, suffixes b k kb m mb g gb t tb p pb;
        # "Invalid suffix" for 512Mi, "Fractional values are not supported" for 1.5g.
        ("2GB", 2048),
        ("512mb", 512),
        ("512Mi", None),
        ("1.5g", None),
        (4096, 4096),
    ],
)
def test_jvm_mib_reads_spark_sizes(size, mib):
    # JVM sizes are binary (k = KiB, m = MiB, g = GiB); Spark reads a bare number as MiB; partial MiB round up.
    assert compile_expression("jvm_mib(size)").search({"size": size}) == mib


def test_object_builds_a_computed_key():
    expression = compile_expression("object(gpu.name, gpu.quantity)")
    assert expression.search({"gpu": {"name": "amd.com/gpu", "quantity": 2}}) == {"amd.com/gpu": 2}


def test_pick_and_omit_join_two_lists():
    data = {"cliques": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "group": ["c", "a"]}
    assert compile_expression("pick(cliques, 'name', group)[].name").search(data) == ["a", "c"]
    assert compile_expression("omit(cliques, 'name', group)[].name").search(data) == ["b"]
    assert compile_expression("omit(cliques, 'name', missing)[].name").search(data) == ["a", "b", "c"]


def test_pick_reads_a_dotted_key_as_a_nested_field():
    # Related objects are named in metadata.name (a PipelineRun's Tasks); a key holding a dot is still read as written.
    tasks = [{"metadata": {"name": "t1"}, "n": 1}, {"metadata": {"name": "t2"}, "n": 2}, {"a.b": "t1", "n": 3}]
    data = {"tasks": tasks, "want": ["t2"]}
    assert compile_expression("pick(tasks, 'metadata.name', want)[].n").search(data) == [2]
    assert compile_expression("omit(tasks, 'metadata.name', want)[].n").search(data) == [1, 3]
    assert compile_expression("pick(tasks, 'a.b', ['t1'])[].n").search(data) == [3]


_EMPTY_TEMPLATE = {"t": {}, "s": {"spec": {}}, "l": []}


def _assert_not_a_container_of(found, data):
    """Nothing ``found`` is one of ``data``'s own containers (it was made by the evaluation)."""
    stack = [data]
    while stack:
        node = stack.pop()
        assert node is not found
        stack.extend(v for v in (node.values() if isinstance(node, dict) else node) if isinstance(v, (dict, list)))


@pytest.mark.parametrize(
    ("source", "builds"),
    [
        ("{metadata: s.metadata, spec: s.spec}", True),
        ("[s, t]", True),
        ("`{}`", True),
        ("merge(s, `{}`)", True),
        ("s.spec | {spec: @}", True),
        ("{spec: s} || merge(t, s)", True),
        # projections, filters and flattens collect into a new list; these functions return their own
        ("l[*]", True),
        ("l[?a]", True),
        ("l[].a", True),
        ("*.spec", True),
        ("values(t)", True),
        ("pick(l, 'a', `[1]`)", True),
        ("omit(l, 'a', `[]`)", True),
        ("items(t)", True),
        # either side may be the input's own object: an empty {} or [] is falsy and is what && gives
        ("t && {spec: s}", False),
        ("t || {spec: s}", False),
        ("{spec: s}.spec", False),
        ("not_null(t, s)", False),
        ("s", False),
        ("@", False),
        ("l[0]", False),
        ("l[?a] | [0]", False),
        ("to_array(l)", False),
        ("sort_by(e, &a)", False),  # jmespath gives an empty array back as itself
    ],
)
def test_builds_says_whether_a_value_can_be_part_of_the_input(source, builds):
    # The interpreter skips looking for a made pod template inside the resource; a wrong True
    # would lose the path of a template that is the resource's own.
    expression = compile_expression(source)
    assert expression.builds is builds
    if builds:
        _assert_not_a_container_of(expression.search(_EMPTY_TEMPLATE), _EMPTY_TEMPLATE)


_TRUTHY_INPUT = {"s": {"spec": {"containers": []}}, "t": {"x": 1}, "e": {}, "l": [{"a": 1}]}


@pytest.mark.parametrize(
    ("source", "made_when_true"),
    [
        # a && b gives a only when a is false: a true value comes from b
        ("t && {spec: s}", True),
        ("e && {spec: s}", True),
        ("(t.x == `1` && {spec: s}) || (t.x == `2` && merge(t, s))", True),
        ("!t", True),
        ("t == s", True),
        ("{spec: s} || merge(t, s)", True),
        # either side may give the input's own true object
        ("t || {spec: s}", False),
        ("{spec: s} && t", False),
        ("{spec: s} || t", False),
        ("s", False),
        ("l[*] | [0]", False),
        ("{spec: s}.spec", False),
    ],
)
def test_builds_when_truthy_says_whether_a_true_value_can_be_part_of_the_input(source, made_when_true):
    # The interpreter skips the search for a non-empty pod template such an expression gives (a
    # definition's `enabled && {containers: [...]}`); a wrong True would lose a template's path.
    expression = compile_expression(source)
    assert expression.builds_when_truthy is made_when_true
    found = expression.search(_TRUTHY_INPUT)
    if made_when_true and found:
        _assert_not_a_container_of(found, _TRUTHY_INPUT)


def test_a_stored_expression_that_no_longer_parses_says_so_in_one_error():
    # The precompiled catalog keeps an expression's text and parses it on first use; a text the
    # installed jmespath refuses must read as an invalid expression wherever it is first used.
    import pickle

    stored = pickle.loads(pickle.dumps(compile_expression("spec.template")))
    stored.source = "spec.[template"
    for use in (lambda: stored.builds, lambda: stored.search({"spec": {}})):
        with pytest.raises(ExpressionError, match=r"invalid JMESPath 'spec\.\[template'"):
            use()


def test_a_root_only_expression_is_evaluated_again_for_a_new_refs_mapping():
    # Kept per (root, refs) identity: the interpreter passes a new refs mapping for each resource,
    # so a resource changed in place and inspected again is read again.
    expression = compile_expression("root().metadata.name")
    resource = {"metadata": {"name": "a"}}
    refs: dict = {}
    assert expression.search({}, root=resource, refs=refs) == "a"
    resource["metadata"]["name"] = "b"
    assert expression.search({}, root=resource, refs=refs) == "a"  # the same objects: the last result
    assert expression.search({}, root=resource, refs={}) == "b"  # an equal but new mapping: evaluated


def test_a_root_only_expression_without_refs_is_never_kept():
    expression = compile_expression("root().metadata.name")
    resource = {"metadata": {"name": "a"}}
    assert expression.search({}, root=resource) == "a"
    resource["metadata"]["name"] = "b"
    assert expression.search({}, root=resource) == "b"


@pytest.mark.parametrize(
    ("source", "origins"),
    [
        ("spec.template", (("spec", "template"),)),
        ("@", ((),)),
        ("(spec.a).b", (("spec", "a", "b"),)),
        # a choice: either side may be what it gives (JMESPath's || and && give one of their operands)
        ("spec.a || spec.b", (("spec", "a"), ("spec", "b"))),
        ("spec.a && spec.b", (("spec", "a"), ("spec", "b"))),
        # a field or a made default (Dynamo's podTemplate, RayJob's submitter): only the field is the input's
        ("podTemplate || {spec: merge(extraPodSpec || `{}`, {containers: `[]`})}", (("podTemplate",),)),
        ("(mode || 'K8sJobMode') == 'K8sJobMode' && (submitter || {spec: `{}`})", (("submitter",),)),
        ("!(spec.a)", ()),  # a boolean
        ("!spec.a", None),  # (!spec).a: a field of a boolean, not read as such
        ("spec.jobs[*].template", ()),  # a projection collects into a new list
        # the input's containers from elsewhere: unknown
        ("spec.jobs[0].template", None),
        ("spec | template", None),
        ("root().spec.template", None),
        ("not_null(spec.a, spec.b)", None),
    ],
)
def test_origins_are_the_only_places_of_an_input_container_an_expression_gives(source, origins):
    assert compile_expression(source).origins == origins


def test_a_jsonpath_expression_has_origins_only_as_a_plain_chain_of_fields():
    assert compile_expression("spec.template", "jsonpath").origins == (("spec", "template"),)
    assert compile_expression("$.spec.template", "jsonpath").origins is None


# ai-dynamo/dynamo deploy/operator/internal/controller/dgd_scaling_adapters_reconciler.go generateAdapterName:
# fmt.Sprintf("%s-%s", dgdName, strings.ToLower(componentName)).
@pytest.mark.parametrize(
    ("text", "lowered"),
    [
        ("VllmDecodeWorker", "vllmdecodeworker"),
        ("Frontend", "frontend"),
        ("already-lower", "already-lower"),
        (None, None),
    ],
)
def test_lower_writes_go_strings_tolower(text, lowered):
    assert compile_expression("lower(text)").search({"text": text}) == lowered
    named = compile_expression("join('-', ['vllm-agg', lower(text)])")
    assert named.search({"text": "Frontend"}) == "vllm-agg-frontend"


def test_lower_of_a_number_is_a_type_error():
    with pytest.raises(ExpressionError):
        compile_expression("lower(n)").search({"n": 3})
