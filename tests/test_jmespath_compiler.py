"""The generated JMESPath functions against jmespath's own interpreter: same results, same errors, same steps.

The reference is ``jmespath.visitor.TreeInterpreter`` (through ``expressions.runtime._Bounded``, which adds
the step and size bounds): every expected value here is what it gives. The cases cover every node
type of jmespath's grammar (``jmespath/ast.py``) and the shapes of jmespath's compliance suite
(``tests/compliance/*.json`` of jmespath.py: basic, boolean, current, filters, functions, indices,
literal, multiselect, pipe, slice, wildcard; all 803 cases that parse were run through both paths
while the compiler was written, with identical results, errors and step counts), and then every
expression of every built-in definition on every corpus and fixture document. Both generated
functions are checked: the fast one (which hands any error to the precise one) and the precise one
on its own.
"""

from __future__ import annotations

import ast
import gc
import json
import re
import sys

import jmespath
import jmespath.functions
import pytest

from workloadmap.catalog import Catalog
from workloadmap.documents import load_objects
from workloadmap.errors import ExpressionLimitError
from workloadmap.expressions import expression as expressions
from workloadmap.expressions.compiler import _Writer, compile_tree, stateless
from workloadmap.expressions.expression import MAX_STEPS, MAX_VALUE_SIZE, _WmapFunctions, compile_expression
from workloadmap.expressions.runtime import _RUNTIME, State, _Bounded
from workloadmap.interpreter import inspect_documents

DATA = {
    "a": {"b": {"c": [1, 2, 3], "d": "text", "e": None, "f": False, "g": 0, "h": [], "i": {}}},
    "people": [
        {"name": "ann", "age": 31, "tags": ["x", "y"], "nested": [[1, 2], [3]]},
        {"name": "bob", "age": "40", "tags": [], "nested": [4, [5, [6]]]},
        {"name": "cy", "age": None},
        "not an object",
        7,
    ],
    "map": {"k1": {"v": 1}, "k2": {"v": 2}, "k3": "x"},
    "numbers": [3, 1.5, -2, 10],
    "strings": ["b", "a", "c"],
    "empty": [],
    "truthy": {"zero": 0, "one": 1, "t": True, "f": False, "s": "", "l": [0], "o": {"k": None}},
}

EXPRESSIONS = [
    # fields, subexpressions, identity, current
    "a", "a.b", "a.b.c", "a.b.d.x", "a.missing.x.y", "a.b.c.x", "@", "@.a.b.d", "a.b.c[0]", "a.b.c[-1]",
    "a.b.c[5]", "a.b.d[0]", '"a"."b"', "people[0].name", "a.b | c", "a.b | @ | c[1]",
    # projections: list, flatten, value, filter, slices
    "people[*].name", "people[].name", "people[*].tags[]", "people[].nested[]", "people[].nested[][]",
    "map.*.v", "map.*", "a.*.c", "numbers[1:3]", "numbers[::-1]", "numbers[::2]", "numbers[-2:]",
    "strings[1:]", "a.b.d[1:]", "people[?age > `30`].name", "people[?age == '40'].name",
    "people[?name == 'cy'] | [0].age", "people[?tags].name", "people[?!tags].name", "people[?age < `100`]",
    "people[?age >= `31` && name != 'x'].name", "people[?age || name].name", "numbers[?@ > `1`]",
    "people[*].tags[0]", "empty[*].x", "empty[]", "a.b.c[*]", "map.*[]", "people[0:2].name",
    # multi-selects
    "a.b.[d, e, c[0]]", "a.b.{d: d, first: c[0], none: e}", "people[*].{n: name, a: age}", "missing.[a]",
    "missing.{a: a}", "people[*].[name, age]",
    # boolean operators and comparisons on JMESPath's truth (0 is true, '' [] {} null false are false)
    "a.b.f || a.b.d", "a.b.e || a.b.h || a.b.i || 'last'", "a.b.g || 'zero is true'", "a.b.d && a.b.c",
    "a.b.h && 'no'", "!a.b.g", "!a.b.f", "!a.b.h", "!a.b.d", "truthy.zero == `false`", "truthy.one == `true`",
    "truthy.t == `true`", "a.b.c == `[1, 2, 3]`", "a.b.d < 'z'", "a.b.c < `1`", "truthy.o == `{\"k\": null}`",
    "`1` < `2`", "'a' < 'b'", "`null` == a.b.e", "a.b.g != `0`",
    # literals
    "`{\"x\": [1, 2]}`", "'raw'", "`\"json string\"`", "`[]`", "`0.5`",
    # built-in functions, exprefs
    "length(people)", "length(a.b.d)", "keys(map)", "values(map)", "sort(strings)", "sort(numbers)",
    "sort_by(people[:2], &name)[*].name", "max_by(people[:1], &age).name", "min_by(numbers[*].{n: @}, &n)",
    "map(&name, people[:3])", "to_string(a.b.c)", "to_number('12')", "to_array(a.b.d)", "type(a)",
    "contains(strings, 'a')", "join(', ', strings)", "starts_with(a.b.d, 'te')", "sum(numbers)", "avg(numbers)",
    "max(numbers)", "min(strings)", "abs(`-3`)", "floor(`1.5`)", "ceil(`1.5`)", "not_null(a.b.e, a.b.d)",
    "reverse(strings)", "merge(map, `{\"k4\": 4}`)", "length(`5`)", "sort_by(people, &age)", "abs('x')",
    "nope(`1`)", "join(',', numbers)",
    # wmap's functions
    "root().a.b.d", "ref('runtime').spec", "add(`1`, `2`)", "sub(`1`, `5`)", "mul(`3`, `4`)",
    "product(numbers[:2])", "ceil_div(`7`, `2`)", "ceil_div(`7`, `0`)", "items(map)[*].key", "int('3')",
    "int(a.b.d)", "jvm_mib('2g')", "pick(people[:3], 'name', `[\"ann\", \"cy\"]`)[*].name",
    "omit(people[:3], 'name', `[\"ann\"]`)[*].name", "object(a.b.d, `1`)", "image_tag('r:5000/x:1.2')",
    "semver('v1.2')", "lower('VllmDecodeWorker')", "lower(a.b.e)", "lower(a.b.c)", "lower(people[0].name)",
    "patch_pod_template(map, `{\"k1\": null, \"k9\": 9}`)", "patch_pod_template(map, a)",
    "join('-', [a.b.d, `1.0`, `true`])", "to_string(people)", "mul(`9223372036854775807`, `2`)",
]  # fmt: skip

REFS = {"runtime": {"spec": {"x": 1}}}


def _interpreted(parsed, data, root, steps=MAX_STEPS, limit=MAX_VALUE_SIZE):
    interpreter = _Bounded(jmespath.Options(custom_functions=_WmapFunctions(root, REFS)), MAX_STEPS, limit)
    interpreter._steps = steps
    try:
        outcome = ("value", json.dumps(interpreter.visit(parsed, data), sort_keys=True, default=repr))
    except Exception as error:  # every error class and message must match too
        outcome = ("error", f"{type(error).__name__}: {error}")
    return outcome, interpreter._steps


def _precise(parsed, limit=MAX_VALUE_SIZE):
    return _Writer(parsed, limit, _WmapFunctions, precise=True).build()["_run"]


def _compiled(parsed, data, root, steps=MAX_STEPS, limit=MAX_VALUE_SIZE, precise=False):
    state = State(steps, _WmapFunctions, root, REFS)
    state.budget = MAX_STEPS  # the message names the real budget, as _Bounded's does
    program = _precise(parsed, limit) if precise else compile_tree(parsed, limit, _WmapFunctions)
    try:
        outcome = ("value", json.dumps(program(data, state), sort_keys=True, default=repr))
    except Exception as error:
        outcome = ("error", f"{type(error).__name__}: {error}")
    return outcome, state.steps


@pytest.mark.parametrize("source", EXPRESSIONS)
def test_the_generated_functions_give_what_the_interpreter_gives(source):
    parsed = jmespath.compile(source).parsed
    for data in (DATA, DATA["people"], None, "text", 3):
        expected = _interpreted(parsed, data, DATA)
        assert _compiled(parsed, data, DATA) == expected, data
        assert _compiled(parsed, data, DATA, precise=True) == expected, data


@pytest.mark.parametrize(
    "source",
    [
        "a.b.c",
        "people[*].tags[]",
        "sort_by(people[:2], &name)[*].name",
        "a.b.{d: d, c: c[0]}",
        "people[?age > `30` || name == 'cy'].{n: name, t: tags[0]}",  # a filter whose branches count apart
        "a.b.f || a.b.e || a.b.d && a.b.c[?@ > `1`]",
        "max([min([`1`, a.b.c[0]]), length(map.*)]) || abs('x')",  # the budget or the type error first
        "map(&[name, age], people[:3])",  # steps counted inside an &expression the function evaluates
        "map.*.v | [0]",
    ],
)
def test_a_step_budget_runs_out_at_the_same_node(source):
    # Every budget from none to enough: both fail, or both succeed with the same steps left.
    parsed = jmespath.compile(source).parsed
    needed = MAX_STEPS - _interpreted(parsed, DATA, DATA)[1]
    for budget in range(needed + 2):
        expected = _interpreted(parsed, DATA, DATA, steps=budget)
        assert _compiled(parsed, DATA, DATA, steps=budget) == expected, budget
        assert _compiled(parsed, DATA, DATA, steps=budget, precise=True) == expected, budget


@pytest.mark.parametrize("source", [source for source in EXPRESSIONS if "(" not in source])
def test_a_tree_without_functions_runs_without_a_state(source):
    # What Expression.search does for most expressions: no State made; the budget is the one compiled in.
    parsed = jmespath.compile(source).parsed
    assert stateless(parsed)
    program = compile_tree(parsed, MAX_VALUE_SIZE, _WmapFunctions, budget=MAX_STEPS)
    for data in (DATA, DATA["people"], None, "text", 3):
        expected = _interpreted(parsed, data, DATA)
        try:
            outcome = ("value", json.dumps(program(data, None), sort_keys=True, default=repr))
        except Exception as error:
            outcome = ("error", f"{type(error).__name__}: {error}")
        assert outcome == expected[0], data
        assert _compiled(parsed, data, DATA) == expected, data  # and with a State, the steps left in it


@pytest.mark.parametrize(
    ("source", "calls"),
    [("a.b", False), ("people[?age > `1`].name", False), ("length(a)", True), ("a || root()", True),
     ("people[*].{n: to_string(name)}", True), ("sort_by(people, &name)", True)],
)  # fmt: skip
def test_stateless_is_a_tree_that_calls_no_function(source, calls):
    assert stateless(jmespath.compile(source).parsed) is not calls


def test_a_stateless_program_spends_the_budget_compiled_in():
    parsed = jmespath.compile("xs[*].a").parsed  # 1 + 1 + 2 per element (the projection's child, its field)
    data = {"xs": [{"a": 1}] * 10}
    needed = MAX_STEPS - _interpreted(parsed, data, data)[1]
    assert compile_tree(parsed, MAX_VALUE_SIZE, _WmapFunctions, budget=needed)(data, None) == [1] * 10
    with pytest.raises(ExpressionLimitError, match=f"more than {needed - 1} evaluation steps"):
        compile_tree(parsed, MAX_VALUE_SIZE, _WmapFunctions, budget=needed - 1)(data, None)
    calls = jmespath.compile("length(xs)").parsed  # a call needs the state's functions: the budget is not taken
    with pytest.raises(AttributeError):
        compile_tree(calls, MAX_VALUE_SIZE, _WmapFunctions, budget=needed)(data, None)


def test_the_size_bound_holds_on_the_compiled_path():
    data = {"xs": list(range(50)), "s": "y" * 50, "d": {str(key): {"k": key} for key in range(50)}}
    sources = ("xs", "xs[*]", "s", "[xs, xs]", "xs[?@ > `-1`]", "to_string(xs)", "d.k", 'd."1".k', "a || d.x")
    for source in sources:  # d.k: the field in the middle of a chain is measured too
        parsed = jmespath.compile(source).parsed
        expected = _interpreted(parsed, data, data, limit=10)
        assert expected[0][0] == "error"
        assert _compiled(parsed, data, data, limit=10)[0] == expected[0]
        assert _compiled(parsed, data, data, limit=10, precise=True)[0] == expected[0]


def test_search_interprets_first_then_compiles_and_keeps_the_limits(monkeypatch):
    def fresh(source):  # not the cached object other tests evaluated
        return expressions.Expression(source, "jmespath", jmespath.compile(source))

    monkeypatch.setattr(expressions, "COMPILE_AFTER", 14)
    expression = fresh("a.b.c[0]")  # 6 steps (+1 an evaluation): interpreted twice, compiled on the third
    for evaluation in range(4):
        assert expression.search(DATA) == 1
        assert (expression._program is not None) == (evaluation >= 2)
    crossing = fresh("people[*].[name, tags[0]]")  # 27 steps: past the allowance, run again compiled
    assert crossing.search(DATA) == expressions.interpret(crossing.parsed, DATA) and crossing._program is not None
    with pytest.raises(ExpressionLimitError, match="more than"):
        compile_expression("length(items(@)[].value[])").search({"x": [0] * (MAX_VALUE_SIZE + 1)})
    spent = compile_expression("[a[].a[], a[].a[]][][?@ == `1`]")  # the real budget: spent after compiling
    with pytest.raises(ExpressionLimitError, match=f"more than {MAX_STEPS} evaluation steps"):
        spent.search({"a": [{"a": [1] * 1000}] * 400})


@pytest.fixture
def default_recursion_limit():
    """Python's default recursion limit while the test runs, as a process has it (a library loaded by an
    earlier test may have raised it); restored after."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield
    sys.setrecursionlimit(limit)


@pytest.mark.usefixtures("default_recursion_limit")
def test_a_tree_the_generator_does_not_write_is_interpreted(monkeypatch):
    monkeypatch.setattr(expressions, "COMPILE_AFTER", 0)
    source = "|".join(["a"] * 600)  # a left-deep pipe: deeper than the generator writes
    with pytest.raises(ValueError, match="deeper"):
        compile_tree(jmespath.compile(source).parsed, MAX_VALUE_SIZE, _WmapFunctions)
    with pytest.raises(ExpressionLimitError, match="nested too deeply"):
        compile_expression(source).search({"a": None})
    loops = "a" + "[*].a" * 30  # shallow enough, but more nested loops than Python compiles
    with pytest.raises(ValueError, match="cannot compile"):
        compile_tree(jmespath.compile(loops).parsed, MAX_VALUE_SIZE, _WmapFunctions)
    data = {"a": [{"a": [{"a": [{"a": 1}]}]}]}
    assert compile_expression(loops).search(data) == expressions.interpret(jmespath.compile(loops).parsed, data)


HOSTILE = [
    "\"a'); __import__('os').system('exit 3'); ('\"",
    '"\\n\\r\\u2028\\u0085 x\\" \\\\"',
    "'\\'); import os #'",
    '"__builtins__".__class__',
    '`"\'\'\'\\"\\"\\"\\n"`',
    '{"\\"}; raise SystemExit #": a}',
    'join(`","`, ["exec", \'eval(1)\'])',
    "a.\"') or F.call_function('root', []) or ('\"",
]


@pytest.mark.parametrize("source", HOSTILE)
def test_text_of_an_expression_never_becomes_code(source):
    # Identifiers, raw strings, JSON literals and keys that close a Python string or open a new
    # statement stay data: the value is what the interpreter gives, and the generated source uses
    # nothing but the generator's own names (the text appears only inside repr() string constants).
    parsed = jmespath.compile(source).parsed
    data = {"a'); __import__('os').system('exit 3'); ('": 1, "a": {"x": 2}, "__builtins__": {"__class__": 3}}
    assert _compiled(parsed, data, data) == _interpreted(parsed, data, data)
    assert _compiled(parsed, data, data, precise=True) == _interpreted(parsed, data, data)
    for precise in (False, True):
        writer = _Writer(parsed, MAX_VALUE_SIZE, _WmapFunctions, precise=precise)
        writer.function("_run", parsed, main=True)
        tree = ast.parse("\n".join(line for body in writer.functions for line in body))
        names = set(_RUNTIME) | {"value", "state", "steps", "initial", "F", "cls", "_precise", "_run"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                assert node.id in names or re.fullmatch(r"(t|_c|_e)\d+", node.id), node.id
            elif isinstance(node, ast.Attribute):
                assert node.attr in {"get", "steps", "fn", "functions", "call_function", "append", "values"}
            elif isinstance(node, (ast.Import, ast.ImportFrom, ast.Lambda, ast.Global)):
                raise AssertionError(ast.dump(node))


@pytest.mark.parametrize(
    ("accepted", "refused"),
    [
        ("abs(`-3`)", "abs('x')"),  # the same function and arity, another argument class
        ("sum(numbers)", "sum(strings)"),  # element types (array-number) are checked on every call
        ("max(numbers)", "max(people)"),
        ("length(strings)", "length(`1`)"),
        ("not_null(a.b.e, a.b.d)", "not_null()"),  # variadic: the arity is part of what was accepted
    ],
)
def test_arguments_accepted_once_do_not_let_other_arguments_through(accepted, refused):
    # The compiled path remembers argument classes that passed jmespath's checks; what would fail
    # them must still fail, with the interpreter's error, after a call that passed.
    for source in (accepted, refused, accepted, refused):
        parsed = jmespath.compile(source).parsed
        assert _compiled(parsed, DATA, DATA) == _interpreted(parsed, DATA, DATA)
    assert _compiled(jmespath.compile(refused).parsed, DATA, DATA)[0][0] == "error"


def _documents(directory):
    documents = []
    for path in sorted(directory.rglob("*.yaml")):
        if "recorded" in path.parts or "karta" in path.parts or "bad" in path.parts:
            continue
        documents.extend(item for item in load_objects(str(path)) if not isinstance(item, Exception))
    return documents


def _expressions_of(catalog):
    for definition in catalog:
        if not hasattr(definition, "expression_fields"):
            continue
        for _path, model, field_name, _text in definition.expression_fields():
            expression = model.compiled(field_name)
            if expression is not None and expression.language == "jmespath":
                yield expression


def test_every_builtin_expression_on_every_corpus_document(corpus_dir, fixtures_dir):
    catalog = Catalog.load(use_env=False)
    documents = _documents(corpus_dir) + _documents(fixtures_dir)
    unique = {id(expression): expression for expression in _expressions_of(catalog)}
    assert len(unique) > 300 and len(documents) > 80
    for document in documents:
        for expression in unique.values():
            parsed = expression.parsed
            assert _compiled(parsed, document.body, document.body) == _interpreted(
                parsed, document.body, document.body
            ), (expression.source, document.file)


def test_every_corpus_document_gives_the_same_tree_as_through_the_interpreter(corpus_dir, fixtures_dir, monkeypatch):
    catalog = Catalog.load(use_env=False)
    documents = _documents(corpus_dir) + _documents(fixtures_dir)

    def trees():
        return [
            json.dumps(result.tree.to_dict() if result.tree is not None else str(result.error), sort_keys=True)
            for result in inspect_documents(documents, catalog=catalog)
        ]

    def forget_programs():
        for expression in gc.get_objects():
            if isinstance(expression, expressions.Expression) and expression.language == "jmespath":
                # the built-in catalog's shipped programs too: the runs below choose compiled or interpreted
                expression._program, expression._interpreted, expression._shipped = None, 0, None

    forget_programs()
    monkeypatch.setattr(expressions, "COMPILE_AFTER", 0)  # every expression compiled from its first evaluation
    compiled = trees()
    forget_programs()
    monkeypatch.setattr(expressions, "COMPILE_AFTER", MAX_STEPS * 1000)  # and never
    assert trees() == compiled
    forget_programs()


_VALUES = [0, 1, 2, 0.0, 1.0, 1.5, True, False, None, "", "a", "1", [], [1], {}, {"k": 1}]


@pytest.mark.parametrize("left", _VALUES, ids=repr)
def test_equality_and_ordering_helpers_agree_with_jmespath(left):
    # The runtime's ==, < and ! skip jmespath's Number check for JSON's plain classes; every pair of
    # JSON values must still give what jmespath's own helpers give (0 and 1 never equal false and true).
    from jmespath.visitor import _equals, _is_actual_number, _is_comparable

    from workloadmap.expressions.runtime import _equals_fast, _not, _ordered

    for right in _VALUES:
        assert _equals_fast(left, right) is bool(_equals(left, right)), (left, right)
        try:
            expected = (left < right) if _is_comparable(left) and _is_comparable(right) else None
        except TypeError:  # "a" < 1: jmespath raises, and so must the helper
            with pytest.raises(TypeError):
                _ordered(lambda a, b: a < b, left, right)
            continue
        assert _ordered(lambda a, b: a < b, left, right) == expected, (left, right)
    assert _not(left) is (False if _is_actual_number(left) and left == 0 else not left)
