"""Label selectors (workloadmap.selectors) behave as Kubernetes' ``labels.Parse`` selectors do.

The match and parse cases are those of ``k8s.io/apimachinery/pkg/labels/selector_test.go``
(``TestSelectorMatches``, ``TestSelectorParse``'s good and bad strings); the template cases are
wmap's extension for definitions (``{placeholder}`` values, ``{index}`` matching a number).
"""

from __future__ import annotations

import pytest

from workloadmap.selectors import Selector, SelectorSyntaxError, is_label_key, is_label_value, parse_selectors

# (selector, labels, matches) from TestSelectorMatches.
MATCHES = [
    ("", {"x": "y"}, True),
    ("x=y", {"x": "y"}, True),
    ("x=y,z=w", {"x": "y", "z": "w"}, True),
    ("x!=y,z!=w", {"x": "z", "z": "a"}, True),
    ("notin=in", {"notin": "in"}, True),  # in and notin as plain words in an exact match
    ("x", {"x": "z"}, True),
    ("!x", {"y": "z"}, True),
    ("x>1", {"x": "2"}, True),
    ("x<1", {"x": "0"}, True),
    ("x=z", {}, False),
    ("x=y", {"x": "z"}, False),
    ("x=y,z=w", {"x": "w", "z": "w"}, False),
    ("x!=y,z!=w", {"x": "z", "z": "w"}, False),
    ("x", {"y": "z"}, False),
    ("!x", {"x": "z"}, False),
    ("x>1", {"x": "0"}, False),
    ("x<1", {"x": "2"}, False),
    ("x in (z)", {"x": "z"}, True),
    ("x in (a,b,z)", {"x": "z"}, True),
    ("x in (z)", {"x": "d"}, False),
    ("x in (a,b,z)", {"x": "d"}, False),
    ("foo=bar,baz=blah", {"foo": "bar", "baz": "blah"}, True),
    ("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False),
    # != and notin also hold when the key is absent (labels.Requirement.Matches).
    ("x!=y", {}, True),
    ("x notin (a,b)", {}, True),
    ("x notin (a,b)", {"x": "a"}, False),
    ("x>1", {"x": "two"}, False),
]


@pytest.mark.parametrize(("text", "labels", "expected"), MATCHES, ids=[f"{t!r}-{e}" for t, _, e in MATCHES])
def test_matches_as_kubernetes_does(text, labels, expected):
    assert Selector.parse(text).matches(labels) is expected


# Good strings of TestSelectorParse (the canonical form kubectl would print) ...
GOOD = [
    ("", ""),
    ("x=a", "x=a"),
    ("y==b", "y=b"),
    ("x=a,y!=b", "x=a,y!=b"),
    ("x in (a),y notin (b)", "x in (a),y notin (b)"),
    ("x=,z= ", "x=,z="),
    ("x= ,z= ", "x=,z="),
    ("!x", "!x"),
    ("x>1", "x>1"),
    ("x>1,z<5", "x>1,z<5"),
    ("example.com/team in (a, b),tier", "example.com/team in (a,b),tier"),
]
# ... and bad ones, plus keys and values Kubernetes rejects.
BAD = ["x=a||y=b", "x==a==b", "!x=a", "x<a", "x,", "x in a", "x in (a", "=a", "Example.com/x=a", "x=a b", "x=-a"]


@pytest.mark.parametrize(("text", "canonical"), GOOD)
def test_parses_the_good_strings(text, canonical):
    assert str(Selector.parse(text)) == canonical


@pytest.mark.parametrize("text", BAD)
def test_rejects_the_bad_strings_with_the_text_named(text):
    with pytest.raises(SelectorSyntaxError) as raised:
        Selector.parse(text)
    assert repr(text) in str(raised.value)
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize(
    ("key", "valid"),
    [
        ("app", True),
        ("jobset.sigs.k8s.io/replicatedjob-name", True),
        ("a" * 63, True),
        ("a" * 64, False),
        ("Example.com/x", False),
        ("/x", False),
        ("x/", False),
        ("-x", False),
    ],
)
def test_label_keys(key, valid):
    assert is_label_key(key) is valid


@pytest.mark.parametrize(
    ("value", "valid"), [("", True), ("a-b.c_d", True), ("a" * 63, True), ("a" * 64, False), ("-a", False)]
)
def test_label_values(value, valid):
    assert is_label_value(value) is valid


def test_templates_render_and_index_matches_any_number():
    template = Selector.parse(
        "grove.io/podclique={workload}-{index}-{instance},!grove.io/podcliquescalinggroup", templates=True
    )
    assert template.placeholders() == {"workload", "index", "instance"}
    rendered = template.render({"workload": "pcs", "instance": "prefill"})
    assert rendered.matches({"grove.io/podclique": "pcs-0-prefill"})
    assert rendered.matches({"grove.io/podclique": "pcs-12-prefill"})
    assert not rendered.matches({"grove.io/podclique": "pcs-x-prefill"})
    assert not rendered.matches({"grove.io/podclique": "pcs-0-sg-0-prefill"})  # a scaling-group clique
    assert not rendered.matches({"grove.io/podclique": "pcs-0-prefill", "grove.io/podcliquescalinggroup": "pcs-0-sg"})
    with pytest.raises(ValueError, match="no value for placeholder"):
        template.render({"workload": "pcs"})


def test_placeholders_need_templates():
    with pytest.raises(SelectorSyntaxError):
        Selector.parse("ray.io/group={instance}")


def test_example_labels_describe_a_matching_pod():
    selector = Selector.parse("a=x,b in (y,z),c,!d,e!=f,g>2")
    labels = selector.example_labels()
    assert labels == {"a": "x", "b": "y", "c": "x", "g": "3"}
    assert selector.matches(labels)


def test_several_selectors_join_with_and():
    joined = parse_selectors(["team=ml", "", "tier!=dev"])
    assert joined.matches({"team": "ml"}) and not joined.matches({"team": "ml", "tier": "dev"})
