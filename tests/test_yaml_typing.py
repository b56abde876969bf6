"""What wmap writes as YAML reads back unchanged by kubectl (go-yaml v2) and go-yaml v3 (issue 26).

The reader is ``helpers.goyaml``, ported from go-yaml's ``resolve.go``; it is first held to go-yaml's
own unit tests (kubernetes-sigs/yaml ``goyaml.v2/decode_test.go``, the ``map[string]interface{}``
cases), then ``workloadmap.yaml_typing`` is held to it over every short text of the characters the
typing rules look at.
"""

from __future__ import annotations

import itertools
import json

import pytest
import yaml

from helpers import BAD_FIXTURES_DIR
from helpers.goyaml import differences, json_form, read_back, resolve
from workloadmap.cli.printing.output import dump, dump_manifests
from workloadmap.yaml_typing import UnreadableKey, kubectl_key, plain_reads_as_string, scalar_style

# goyaml.v2/decode_test.go, unmarshalTests decoded into map[string]interface{} (NaN aside: NaN != NaN).
GOYAML_V2_CASES = [
    ("v: hi", {"v": "hi"}), ("v: true", {"v": True}), ("v: 10", {"v": 10}), ("v: 0b10", {"v": 2}),
    ("v: 0xA", {"v": 10}), ("v: 0.1", {"v": 0.1}), ("v: .1", {"v": 0.1}), ("v: .Inf", {"v": float("inf")}),
    ("v: -.Inf", {"v": float("-inf")}), ("v: -10", {"v": -10}), ("v: -.1", {"v": -0.1}),
    ("canonical: 6.8523e+5", {"canonical": 6.8523e5}), ("expo: 685.230_15e+03", {"expo": 685.23015e3}),
    ("fixed: 685_230.15", {"fixed": 685230.15}), ("neginf: -.inf", {"neginf": float("-inf")}),
    ("canonical: y", {"canonical": True}), ("answer: NO", {"answer": False}), ("logical: True", {"logical": True}),
    ("option: on", {"option": True}), ("canonical: 685230", {"canonical": 685230}),
    ("decimal: +685_230", {"decimal": 685230}), ("octal: 02472256", {"octal": 685230}),
    ("hexa: 0x_0A_74_AE", {"hexa": 685230}), ("bin: 0b1010_0111_0100_1010_1110", {"bin": 685230}),
    ("bin: -0b101010", {"bin": -42}), ("empty:", {"empty": None}), ("canonical: ~", {"canonical": None}),
    ("english: null", {"english": None}), ("seq: [A,1,C]", {"seq": ["A", 1, "C"]}),
    ("'1': '\"2\"'", {"1": '"2"'}), ("v: !!float '1.1'", {"v": 1.1}), ("v: !!float 0", {"v": 0.0}),
    ("v: !!null ''", {"v": None}), ("v: ! test", {"v": "test"}), ("a: -b_c", {"a": "-b_c"}),
    ("a: +b_c", {"a": "+b_c"}), ("a: 50cent_of_dollar", {"a": "50cent_of_dollar"}), ("a: 1:1", {"a": "1:1"}),
    ("a: 2015-01-01", {"a": "2015-01-01"}), ("a: !!str 2015-01-01", {"a": "2015-01-01"}),
    ("a: 123456e1", {"a": 123456e1}), ("a: 123456E1", {"a": 123456e1}),
    ("First occurrence: &anchor Foo\nSecond occurrence: *anchor\nOverride anchor: &anchor Bar\nReuse anchor: *anchor\n",
     {"First occurrence": "Foo", "Second occurrence": "Foo", "Override anchor": "Bar", "Reuse anchor": "Bar"}),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), GOYAML_V2_CASES, ids=[text[:30] for text, _ in GOYAML_V2_CASES])
def test_the_reader_reads_as_go_yaml_v2_does(text, expected):
    [found] = read_back(text, "v2")
    assert found == expected and not differences(expected, found)


def test_the_reader_tells_v2_from_v3():
    # go-yaml v3 resolve.go: the YAML 1.2 words only; octals with 0o; no big integers.
    assert resolve("", "y", "v3") == ("!!str", "y") and resolve("", "y", "v2") == ("!!bool", True)
    assert resolve("", "0o17", "v3") == ("!!int", 15) == resolve("", "0o17", "v2")  # ParseInt base 0 reads 0o too
    assert resolve("", "0x" + "f" * 20, "v3")[0] == "!!str" and resolve("", "0x" + "f" * 20, "v2")[0] == "!!int"


# The texts of issue 26 and, exhaustively, every text of up to three characters that the typing
# rules look at (signs, digits, dots, exponent and base letters, the words' letters, ':', '~').
FINDINGS = ["y", "n", "Y", "N", "1e3", "1E3", "2e-3", "0o17", "08", "on", "off", "yes", "~", "<<", "1_000", ".5E3"]
ALPHABET = "+-.0189eEoObBxX_:yYnN~<"
TEXTS = FINDINGS + ["".join(chars) for size in (1, 2, 3) for chars in itertools.product(ALPHABET, repeat=size)]


def test_every_text_go_yaml_types_is_quoted():
    for text in TEXTS:
        typed = [version for version in ("v2", "v3") if resolve("", text, version)[0] != "!!str"]
        if typed:
            assert not plain_reads_as_string(text), (text, typed)
            assert scalar_style(text) == "'", text


def test_names_people_write_stay_plain():
    for text in ["train", "nvidia.com/gpu", "llm-train-leader-0-0", "v1.2.3", "1.2.3", "gpu-a100", "Yes please"]:
        assert plain_reads_as_string(text), text
        assert scalar_style(text) is None


def test_keys_are_read_as_kubectl_reads_them():
    for text in TEXTS:
        tag, value = resolve("", text, "v2")
        try:
            found = kubectl_key(text)
        except UnreadableKey:
            found = None
        if tag == "!!str":
            assert found == text, text
        elif tag == "!!bool":
            assert found == ("true" if value else "false"), text
        elif tag == "!!int" and -(2**63) <= value < 2**63:
            assert found == str(value), text  # convertToJSONableObject: strconv.Itoa
        else:
            assert found is None, text  # null and float keys: quoted, or kubectl changes them


class _PythonEmitterDumper(yaml.SafeDumper):
    """PyYAML's own emitter (the writers' fallback without libyaml), with the one rule."""


_PythonEmitterDumper.add_representer(
    str, lambda dumper, value: dumper.represent_scalar(
        "tag:yaml.org,2002:str", value, style=scalar_style(value, literal_blocks=True))
)  # fmt: skip


def test_nel_is_never_written_where_a_reader_turns_it_into_a_line_break():
    """PyYAML's emitter put NEL raw into a literal block, where YAML 1.1 readers read a line break."""
    assert scalar_style("a\nb\x85c", literal_blocks=True) == '"'
    data = {"script": "a\nb\x85c", "one": "a\x85"}
    for text in (dump_manifests([data]), yaml.dump(data, Dumper=_PythonEmitterDumper, allow_unicode=True)):
        assert read_back(text, "v2") == [data] == read_back(text, "v3")
        assert yaml.safe_load(text) == data


VALUES = [*FINDINGS, "a\nb\x85c", "line\nbreak\n", "\u2028x", "plain", "", " lead", "trail ", "#x", "- x", "x: y"]


@pytest.mark.parametrize("writer", ["dump", "dump_manifests"])
def test_dumps_read_back_unchanged(writer):
    data = {"labels": {value: value for value in VALUES}, "list": VALUES}
    text = dump(data, "yaml") if writer == "dump" else dump_manifests([data])
    for version in ("v2", "v3"):
        [found] = read_back(text, version)
        assert not differences(json_form(data), found), (version, differences(json_form(data), found)[:5])


def test_alter_output_reads_back_unchanged(wmap):
    """`wmap alter x.yaml --queue n --node-selector zone=Y | kubectl apply -f -` applies strings, not booleans."""
    path = BAD_FIXTURES_DIR / "job-yaml11-words.yaml"
    result = wmap("alter", str(path), "--queue", "n", "--node-selector", "zone=Y", "--label", "tier=0o17")
    assert result.exit_code == 0, result.stderr
    as_json = json.loads(wmap("alter", str(path), "--queue", "n", "--node-selector", "zone=Y",
                              "--label", "tier=0o17", "-o", "json").stdout)  # fmt: skip
    for version in ("v2", "v3"):
        [found] = read_back(result.stdout, version)
        assert not differences(as_json, found), differences(as_json, found)
    labels = as_json["metadata"]["labels"]
    assert labels["kai.scheduler/queue"] == "n" and labels["tier"] == "0o17" and labels["answer"] == "y"
    assert as_json["spec"]["template"]["spec"]["nodeSelector"] == {"zone": "Y"}
    assert as_json["metadata"]["annotations"]["script"] == "echo a\necho b\x85c\n"
