"""loader.paused_gc: the collector paused inside a block, restored after, and (asked) one young collection."""

import gc

import pytest

from workloadmap.loader import paused_gc


class _Built:
    """A tracked object, as the interpreter's results are."""


@pytest.fixture
def explicit_collections():
    """Generations of the collections run while the collector was off, that is, asked for explicitly."""
    generations: list[int] = []

    def record(phase: str, info: dict) -> None:
        if phase == "start" and not gc.isenabled():
            generations.append(info["generation"])

    gc.callbacks.append(record)
    try:
        yield generations
    finally:
        gc.callbacks.remove(record)


@pytest.mark.parametrize(
    ("promote", "caller_enabled", "collections"),
    [
        (False, True, []),  # only paused
        (True, True, [1]),  # one collection of generations 0 and 1 together
        (True, False, []),  # the caller turned the collector off: nothing is collected
    ],
)
def test_paused_gc_collects_once_only_when_asked_and_the_collector_was_on(
    explicit_collections, promote, caller_enabled, collections
):
    if not caller_enabled:
        gc.disable()
    try:
        with paused_gc(promote=promote):
            assert not gc.isenabled()
            built = [_Built() for _ in range(10)]
        assert gc.isenabled() is caller_enabled
    finally:
        gc.enable()
    assert explicit_collections == collections
    assert len(built) == 10


def test_promoted_survivors_leave_the_young_generations():
    with paused_gc(promote=True):
        built = _Built()
    young = gc.get_objects(generation=0) + gc.get_objects(generation=1)
    assert not any(candidate is built for candidate in young)


def test_a_failing_block_collects_nothing_and_restores_the_collector(explicit_collections):
    with pytest.raises(RuntimeError), paused_gc(promote=True):
        raise RuntimeError("stop")
    assert gc.isenabled()
    assert explicit_collections == []


# Keys as kubectl reads them (issue 26): go-yaml v2 types a plain key (goyaml.v2/resolve.go), then
# sigs.k8s.io/yaml's convertToJSONableObject writes booleans as "true"/"false" and integers in decimal.
KEY_CASES = [
    ("on: a", {"true": "a"}), ("y: a", {"true": "a"}), ("No: a", {"false": "a"}), ("1: a", {"1": "a"}),
    ("0x10: a", {"16": "a"}), ("0o17: a", {"15": "a"}), ("017: a", {"15": "a"}), ("1_000: a", {"1000": "a"}),
    ("'on': a", {"on": "a"}), ('"1": a', {"1": "a"}), ("2001-12-14: a", {"2001-12-14": "a"}),
    ("1:30: a", {"1:30": "a"}), ("on: a\n1: b", {"true": "a", "1": "b"}),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), KEY_CASES, ids=[text for text, _ in KEY_CASES])
def test_plain_keys_are_the_strings_kubectl_reads(text, expected):
    from workloadmap.loader import parse_yaml

    assert parse_yaml(text).body == expected


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("~: a", "the key '~' is null for kubectl (YAML), which has no JSON form; quote it"),
        ("1.5: a", "the key '1.5' is a number for kubectl, written back rounded; quote it"),
        ("on: a\ntrue: b", "the keys 'on' and 'true' are the same key 'true' for kubectl"),
        ("1: a\n'1': b", "the keys '1' and '1' are the same key"),
        ("9223372036854775808: a", "is an integer beyond 64 bits for kubectl; quote it"),
    ],
)
def test_keys_kubectl_cannot_read_or_reads_as_one_are_located_errors(text, problem):
    from workloadmap.errors import InputError
    from workloadmap.loader import parse_yaml

    with pytest.raises(InputError, match="invalid YAML at line") as caught:
        parse_yaml(text)
    assert problem in str(caught.value)


def test_a_key_repeated_in_one_spelling_stays_a_warning_and_merged_keys_are_overridden_silently():
    from workloadmap.loader import parse_yaml

    parsed = parse_yaml("a: 1\na: 2\n")
    assert parsed.body == {"a": 2} and parsed.duplicates == [(1, "a")]
    parsed = parse_yaml("base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  x: 3\n")
    assert parsed.body["use"] == {"x": 3, "true": 2} and parsed.duplicates == []


def test_base_60_is_text_as_kubectl_reads_it_and_refused_with_an_explicit_tag():
    from workloadmap.errors import InputError
    from workloadmap.loader import parse_yaml

    assert parse_yaml("a: 1:30\nb: 1:30.5\nc: -2:00\n").body == {"a": "1:30", "b": "1:30.5", "c": "-2:00"}
    for text in ("a: !!int 1:30", "a: !!float 1:30.5"):
        with pytest.raises(InputError, match="base-60"):
            parse_yaml(text)


def test_a_lone_surrogate_escape_is_refused_and_a_pair_is_one_character():
    from workloadmap.errors import InputError
    from workloadmap.loader import parse_json

    assert parse_json('{"a": "\\ud83d\\ude00"}') == {"a": "\U0001f600"}
    for text in ('{"a": "x\\ud800"}', '{"\\udfff": 1}', '[{"a": ["\\uDC00"]}]'):
        with pytest.raises(InputError, match="lone surrogate"):
            parse_json(text)
