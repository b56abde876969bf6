"""jq under the safety rules, in a bounded child process.

The forbidden constructs are upstream's (skill cheatsheet "jq safety rules", enforced by
``pkg/jq/validation.go`` ``validatedParsedJQ``; reference workload-map.md section 2.10) plus wmap's
own (issue 11): the environment, further inputs, modules, halting. Hostile programs must end with
a clean ExpressionLimitError, never a hang or an exhausted process.
"""

from __future__ import annotations

import time

import pytest

from workloadmap.errors import ExpressionError, ExpressionLimitError
from workloadmap.karta import JqEngine, JqLimits, check_safety, compile_jq


@pytest.mark.parametrize(
    "program",
    [
        ".a = 1",  # upstream: OpAssign
        ".a |= 1",  # OpModify
        ".a += 1",
        ".a -= 1",
        ".a *= 2",
        ".a /= 2",
        ".a %= 2",
        ".a //= 1",  # OpUpdateAlt
        "del(.a)",
        "..",
        "[..]",
        "[range(10)]",
        "[paths]",
        "recurse",
        "walk(.)",
        "[limit(3; repeat(1))]",
        # wmap's own
        "$ENV.HOME",
        "env.HOME",
        "input",
        "[inputs]",
        'import "x" as y; .',
        'include "x"; .',
        "halt",
        'halt_error("x")',
        "debug",
        "input_filename",
        'setpath(["a"]; 1)',
        'delpaths([["a"]])',
        # inside a def body and a string interpolation, which upstream's AST walk never enters
        "def f: env; f",
        '"\\(env.HOME)"',
        '"a" + "\\("x" + ("\\(del(.a))"))"',
    ],
)
def test_unsafe_programs_are_refused(program):
    with pytest.raises(ExpressionError, match="not allowed|module"):
        check_safety(program)


@pytest.mark.parametrize(
    "program",
    [
        ".spec.replicatedJobs[] | .replicas * .template.spec.parallelism",  # upstream JobSet
        "(.spec.replicas // 1) * ((.spec.leaderWorkerTemplate.size // 1) - 1)",  # upstream LWS worker
        '.metadata.labels["leaderworkerset.sigs.k8s.io/group-index"] // "0"',
        ".status.replicas == .spec.replicas and .a != 1 and .b <= 2 and .c >= 3",
        ".range",  # a field named like a forbidden function
        '.["del"]',
        "{range: 1, env: 2}",  # object keys
        "$__loc__",
        "def double: . * 2; .x | double",
        '"range(3) is text"',
        "[.spec.services | to_entries[] | .key] | map(ascii_downcase)",
        ".a[1:2]",
        "1.5e3 + .5",
    ],
)
def test_safe_programs_pass(program):
    check_safety(program)
    compile_jq(program)


def test_a_syntax_error_is_an_expression_error_naming_the_program():
    with pytest.raises(ExpressionError, match=r"invalid jq '\.a \+'"):
        compile_jq(".a +")


@pytest.fixture()
def quick():
    engine = JqEngine(JqLimits(timeout=0.5, memory=512 * 1024 * 1024, max_results=1000, max_bytes=1 << 20))
    yield engine
    engine.close()


def test_streams_and_errors(quick):
    program = compile_jq(".spec.items[] | .n")
    assert program.stream({"spec": {"items": [{"n": 1}, {"n": "2"}, {}]}}, engine=quick) == [1, "2", None]
    with pytest.raises(ExpressionError, match="Cannot iterate over null"):
        program.stream({"spec": {}}, engine=quick)


def test_object_keys_stream_in_sorted_order_as_gojq(quick):
    # gojq (upstream's engine) iterates object keys sorted; wmap hands libjq sorted objects.
    program = compile_jq(".spec.services | keys_unsorted[]")
    data = {"spec": {"services": {"Worker": {}, "Frontend": {}, "Decode": {}}}}
    assert program.stream(data, engine=quick) == ["Decode", "Frontend", "Worker"]


@pytest.mark.parametrize(
    "program",
    [
        "def f: f; f",  # a self-recursive def: loops forever
        "def f: [., f]; f",  # recursion that also grows
        "[limit(20000000; def r: ., (. + 1 | r); 0 | r)] | length",  # a 20M-item stream collected
    ],
)
def test_runaway_programs_end_at_the_time_bound(quick, program):
    started = time.monotonic()
    with pytest.raises(ExpressionLimitError, match="time bound"):
        compile_jq(program).stream(None, engine=quick)
    assert time.monotonic() - started < 5


def test_a_huge_stream_ends_at_the_output_bound(quick):
    with pytest.raises(ExpressionLimitError, match="output bound"):
        compile_jq("def r: ., (. + 1 | r); 0 | r").stream(None, engine=quick)


def test_a_huge_value_ends_at_the_memory_bound(quick):
    with pytest.raises(ExpressionLimitError, match="memory bound|output bound"):
        compile_jq('"x" * 1000000000').stream(None, engine=quick)


def test_constant_folding_at_compile_time_is_bounded_too():
    # libjq folds `"x" * N` while compiling; the parent process must not build the string.
    with pytest.raises(ExpressionLimitError):
        compile_jq('"y" * 2000000000')


def test_the_engine_recovers_after_a_bound(quick):
    with pytest.raises(ExpressionLimitError):
        compile_jq("def f: f; f").stream(None, engine=quick)
    assert compile_jq(".a").stream({"a": 7}, engine=quick) == [7]
