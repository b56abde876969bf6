"""Tests for workloadmap.documents: YAML/JSON streams, List flattening, hostile input."""

from __future__ import annotations

import json

import pytest

from workloadmap.documents import Document, iter_documents, iter_input_files, load_objects, load_yaml_text
from workloadmap.errors import InputError

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers: []\n"


def objects(path, **kwargs):
    return list(load_objects(str(path), **kwargs))


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_single_document():
    [document] = load_yaml_text(POD.format(name="a"), "a.yaml")
    assert document.body["metadata"]["name"] == "a"
    assert (document.file, document.index, document.item) == ("a.yaml", 1, None)
    assert document.label == "#1 (Pod/a)"


def test_multi_document_with_empty_documents_skipped(tmp_path):
    text = POD.format(name="a") + "---\n---\n# only a comment\n---\n" + POD.format(name="b") + "---\n"
    path = write(tmp_path, "multi.yaml", text)
    found = objects(path)
    assert [doc.body["metadata"]["name"] for doc in found] == ["a", "b"]
    assert all(isinstance(doc, Document) for doc in found)


def test_leading_document_marker_does_not_shift_numbering():
    # `---` at the top of a file opens the first document; it does not add one (yaml.safe_load_all agrees)
    documents = [
        doc for doc in load_yaml_text("---\n" + POD.format(name="a") + "---\n" + POD.format(name="b"), "f") if doc.body
    ]
    assert [doc.index for doc in documents] == [1, 2]


def test_kind_list_is_flattened(tmp_path):
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- {apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {containers: []}}\n"
        "- {apiVersion: v1, kind: Pod, metadata: {name: b}, spec: {containers: []}}\n"
    )
    found = objects(write(tmp_path, "list.yaml", text))
    assert [doc.body["metadata"]["name"] for doc in found] == ["a", "b"]
    assert [(doc.index, doc.item) for doc in found] == [(1, 1), (1, 2)]
    assert found[1].label == "#1 item 2 (Pod/b)"


def test_typed_list_is_flattened(tmp_path):
    text = json.dumps(
        {
            "apiVersion": "jobset.x-k8s.io/v1alpha2",
            "kind": "JobSetList",
            "metadata": {"resourceVersion": "1"},
            "items": [{"kind": "JobSet", "metadata": {"name": "x"}}],
        }
    )
    [document] = objects(write(tmp_path, "list.json", text))
    assert document.body["kind"] == "JobSet"


def test_empty_list_gives_nothing(tmp_path):
    assert objects(write(tmp_path, "empty.yaml", "apiVersion: v1\nkind: List\nitems: []\n")) == []


def test_list_items_not_a_list_is_an_error(tmp_path):
    [error] = objects(write(tmp_path, "bad.yaml", "apiVersion: v1\nkind: List\nitems: {a: 1}\n"))
    assert isinstance(error, InputError)
    assert error.field == "items"


def test_json_input(tmp_path):
    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j"}, "spec": {"containers": []}}
    [document] = objects(write(tmp_path, "pod.json", json.dumps(body, indent=2)))
    assert document.body == body


def test_invalid_json_reports_line_and_column():
    [error] = list(iter_documents('{\n  "kind": "Pod",\n  "spec": [1, 2}\n', "pod.json"))
    assert isinstance(error, InputError)
    assert error.file == "pod.json" and error.document == "#1"
    assert "line 3" in str(error)


def test_flow_style_yaml_starting_with_brace():
    [document] = list(iter_documents("{kind: Pod, metadata: {name: x}}\n", "flow.yaml"))
    assert document.body == {"kind": "Pod", "metadata": {"name": "x"}}


def test_broken_document_does_not_hide_the_next(bad_fixtures_dir):
    found = objects(bad_fixtures_dir / "broken-yaml.yaml")
    assert len(found) == 2
    assert isinstance(found[0], InputError)
    assert found[0].document == "#1"
    assert isinstance(found[1], Document)
    assert found[1].body["metadata"]["name"] == "fine"
    assert found[1].index == 2


def test_yaml_error_line_is_counted_from_the_file_start():
    # the broken line is line 4 of the file, the 2nd line of document #2
    text = "a: 1\nb: 2\n---\nc: [unclosed\nd: 3\n"
    results = list(iter_documents(text, "f.yaml"))
    error = results[1]
    assert isinstance(error, InputError) and error.document == "#2"
    assert "line " in error.message
    line = int(error.message.split("line ")[1].split()[0])
    assert 4 <= line <= 6  # reported where the parser noticed: on or after the unclosed bracket


def test_block_scalar_with_dashes_is_not_a_document_break():
    text = "kind: ConfigMap\ndata:\n  script: |\n    ---\n    echo hi\n"
    [document] = load_yaml_text(text, "cm.yaml")
    assert document.body["data"]["script"] == "---\necho hi\n"


def test_alias_bomb_refused():
    # billion laughs: 9 levels of 9 aliases expand to 9^9 (~387 million) strings
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 10):
        previous, current = chr(ord("a") + level - 1), chr(ord("a") + level)
        lines.append(f"{current}: &{current} [" + ",".join([f"*{previous}"] * 9) + "]")
    [error] = list(iter_documents("\n".join(lines) + "\n", "bomb.yaml"))
    assert isinstance(error, InputError)
    assert "refused" in str(error) and "bomb.yaml" in str(error)


@pytest.mark.parametrize("text", ["a: &x\n  b: *x\n", "- &x [*x]\n"])
def test_recursive_alias_refused(text):
    [error] = list(iter_documents(text, "loop.yaml"))
    assert isinstance(error, InputError)
    assert "refers to itself" in str(error)


def test_shared_alias_without_cycle_is_fine():
    text = "defaults: &d {cpu: 1}\na: *d\nb: *d\n"
    [document] = load_yaml_text(text, "ok.yaml")
    assert document.body["a"] == document.body["b"] == {"cpu": 1}


def test_deeply_nested_yaml_refused_without_traceback():
    text = "a:\n" + "".join("  " * depth + "b:\n" for depth in range(1, 400))
    [error] = list(iter_documents(text, "deep.yaml"))
    assert isinstance(error, InputError)


def test_deeply_nested_json_refused_without_traceback():
    results = list(iter_documents("[" * 100_000 + "]" * 100_000, "deep.json"))
    assert len(results) == 1 and isinstance(results[0], InputError)


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("a:\n" + "".join("  " * depth + "b:\n" for depth in range(1, 30)), "nested deeper than 20"),
        ("items: [1, 2, 3, 4, 5, 6]\n", "a list of 6 items is longer than 5"),
        ("a: [[[1, 2], {b: [3]}], {c: {d: [4, 5]}}]\n", None),
        ('{"a": [[1, 2, 3, 4, 5, 6, 7]]}', "a list of 7 items"),
    ],
    ids=["deep", "long-list", "fine", "json"],
)
def test_a_body_without_anchors_is_checked_as_the_full_walk_checks_it(text, refused):
    # Without an `&` anchor no node can be shared, so only depth and list lengths are walked: the
    # verdict (and the message) is the full walk's, for YAML without anchors and for JSON.
    from dataclasses import replace

    from workloadmap.loader import WORKLOAD_LIMITS, check_structure, parse_yaml

    limits = replace(WORKLOAD_LIMITS, max_depth=20, max_list_items=5)
    body = parse_yaml(text).body

    def verdict(aliases):
        try:
            check_structure(body, limits, len(text), aliases=aliases)
        except InputError as error:
            return str(error)
        return None

    assert verdict(False) == verdict(True)
    assert (verdict(False) is None) if refused is None else (refused in verdict(False))


def test_timestamps_stay_strings():
    text = "metadata:\n  creationTimestamp: 2025-03-01T10:00:00Z\nstatus:\n  day: 2025-03-01\n"
    [document] = load_yaml_text(text, "t.yaml")
    assert document.body["metadata"]["creationTimestamp"] == "2025-03-01T10:00:00Z"
    assert document.body["status"]["day"] == "2025-03-01"


def test_python_tags_refused():
    [error] = list(iter_documents("a: !!python/object/apply:os.system ['true']\n", "evil.yaml"))
    assert isinstance(error, InputError)


def test_error_messages_are_one_line_naming_file_and_document(tmp_path):
    path = write(tmp_path, "two.yaml", POD.format(name="a") + "---\nkind: Pod\nspec: {containers: [\n")
    error = [item for item in objects(path) if isinstance(item, InputError)][0]
    text = str(error)
    assert "\n" not in text
    assert text.startswith(f"{path}, document #2")


def test_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_bytes("\ufeff".encode() + POD.format(name="bom").encode())
    [document] = objects(path)
    assert document.body["metadata"]["name"] == "bom"


def test_not_utf8_is_an_error(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"name: caf\xe9\n")
    [error] = objects(path)
    assert isinstance(error, InputError) and "UTF-8" in str(error)


def test_missing_path_is_an_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        iter_input_files(str(tmp_path / "absent.yaml"))


def test_directory_gives_sorted_yaml_and_json(tmp_path):
    write(tmp_path, "b.yaml", POD.format(name="b"))
    write(tmp_path, "a.json", json.dumps({"kind": "Pod", "metadata": {"name": "a"}}))
    write(tmp_path, "c.txt", "ignored")
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub", "d.yml", POD.format(name="d"))
    assert [doc.body["metadata"]["name"] for doc in objects(tmp_path)] == ["a", "b"]
    assert [doc.body["metadata"]["name"] for doc in objects(tmp_path, recursive=True)] == ["a", "b", "d"]


def test_stdin_is_dash():
    assert iter_input_files("-") == ["-"]


def test_every_corpus_file_loads_without_traceback(corpus_dir):
    files = sorted(path for path in corpus_dir.rglob("*") if path.suffix in (".yaml", ".yml", ".json"))
    assert files, "corpus has no manifests"
    for path in files:
        found = objects(path)
        assert found, f"{path} gave no documents"
        for item in found:
            assert isinstance(item, (Document, InputError))
