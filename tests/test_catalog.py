"""Tests for workloadmap.catalog: built-ins, user directories, lookup and version warnings."""

from __future__ import annotations

import os
from pathlib import Path

import jsonschema
import pytest
import yaml

from workloadmap.catalog import CATALOG_ENV, Catalog, builtin_catalog_dir, load_definition, parse_definition
from workloadmap.definitions import definition_json_schema
from workloadmap.errors import DefinitionError

# The kinds this test suite relies on; the catalog may hold more.
BUILTIN_KINDS = {
    ("", "Pod"),
    ("batch", "Job"),
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("jobset.x-k8s.io", "JobSet"),
    ("kubeflow.org", "PyTorchJob"),
    ("kubeflow.org", "MPIJob"),
    ("ray.io", "RayCluster"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
}

USER_JOB = """\
name: my-job
group: batch
kind: Job
versions: [v1]
components:
  - name: pod
    podTemplate: spec.template
    replicas: spec.completions
"""


@pytest.fixture(autouse=True)
def no_env_catalog(monkeypatch):
    monkeypatch.delenv(CATALOG_ENV, raising=False)


def builtin_files():
    return sorted(builtin_catalog_dir().glob("*.yaml"))


def test_builtin_dir_holds_the_shipped_definitions():
    assert {path.stem for path in builtin_files()} >= {
        "pod", "job", "deployment", "statefulset", "jobset", "pytorchjob", "mpijob", "raycluster", "leaderworkerset",
    }  # fmt: skip


@pytest.mark.parametrize("path", builtin_files(), ids=lambda path: path.name)
def test_every_builtin_loads(path):
    definition = load_definition(path)
    assert definition.source == str(path)


@pytest.mark.parametrize("path", builtin_files(), ids=lambda path: path.name)
def test_every_builtin_validates_against_generated_schema(path):
    jsonschema.Draft202012Validator(definition_json_schema()).validate(yaml.safe_load(path.read_text()))


def test_schema_rejects_unknown_field():
    data = yaml.safe_load(USER_JOB)
    data["components"][0]["replicaz"] = 2
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(definition_json_schema()).validate(data)


def test_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(definition_json_schema())


def test_builtin_catalog_covers_every_kind(builtin_catalog):
    assert {definition.api_group_kind for definition in builtin_catalog} >= BUILTIN_KINDS
    # one definition per file, no two files claiming one group and kind (that would fail the load)
    assert len(builtin_catalog) == len(builtin_files())
    assert builtin_catalog.notices == []


@pytest.mark.parametrize(
    ("api_version", "kind", "name"),
    [
        ("v1", "Pod", "pod"),
        ("batch/v1", "Job", "job"),
        ("apps/v1", "Deployment", "deployment"),
        ("jobset.x-k8s.io/v1alpha2", "JobSet", "jobset"),
        ("kubeflow.org/v1", "PyTorchJob", "pytorchjob"),
        ("kubeflow.org/v2beta1", "MPIJob", "mpijob"),
        ("ray.io/v1", "RayCluster", "raycluster"),
        ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "leaderworkerset"),
    ],
)
def test_lookup_known_versions(builtin_catalog, api_version, kind, name):
    lookup = builtin_catalog.lookup(api_version, kind)
    assert lookup is not None
    assert lookup.definition.name == name
    assert lookup.warning is None


def test_lookup_is_by_group_not_kind_alone(builtin_catalog):
    # Volcano's Job shares the kind name with batch/v1 Job but not the group
    volcano = builtin_catalog.lookup("batch.volcano.sh/v1alpha1", "Job")
    assert volcano is None or volcano.definition.group == "batch.volcano.sh"
    assert builtin_catalog.lookup("example.org/v1", "Job") is None
    assert builtin_catalog.lookup("v1", "Job") is None  # core group has no Job
    assert builtin_catalog.lookup("example.com/v1", "Widget") is None


def test_version_mismatch_matches_with_a_warning(builtin_catalog):
    lookup = builtin_catalog.lookup("jobset.x-k8s.io/v1alpha3", "JobSet")
    assert lookup is not None and lookup.definition.name == "jobset"
    assert "v1alpha3" in lookup.warning
    assert "v1alpha2" in lookup.warning  # says which versions it knows
    assert "\n" not in lookup.warning


def test_get_by_name_kind_or_kind_dot_group(builtin_catalog):
    assert builtin_catalog.get("jobset").kind == "JobSet"
    assert builtin_catalog.get("JobSet").kind == "JobSet"
    assert builtin_catalog.get("jobset.jobset.x-k8s.io").kind == "JobSet"
    assert builtin_catalog.get("no-such-workload") is None


def test_user_dir_replaces_builtin_with_notice(tmp_path):
    (tmp_path / "job.yaml").write_text(USER_JOB)
    catalog = Catalog.load([tmp_path], use_env=False)
    lookup = catalog.lookup("batch/v1", "Job")
    assert lookup.definition.name == "my-job"
    assert len(catalog) == len(builtin_files())  # replaced, not added
    assert len(catalog.notices) == 1
    notice = catalog.notices[0]
    assert "my-job" in notice and str(tmp_path / "job.yaml") in notice and "replaces job" in notice


def test_user_dir_adds_new_kind(tmp_path):
    (tmp_path / "widget.yaml").write_text(
        USER_JOB.replace("my-job", "widget")
        .replace("group: batch", "group: example.com")
        .replace("kind: Job", "kind: Widget")
    )
    catalog = Catalog.load([tmp_path], use_env=False)
    assert catalog.lookup("example.com/v1", "Widget").definition.name == "widget"
    assert catalog.notices == []


def test_two_user_definitions_for_one_kind_are_ambiguous(tmp_path):
    # Issue 11: as upstream's resolver (ErrAmbiguous for two cluster Kartas of one GVK), two user
    # definitions covering one group/version/kind are an error naming both files.
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "job.yaml").write_text(USER_JOB.replace("my-job", "first-job"))
    (second / "job.yaml").write_text(USER_JOB.replace("my-job", "second-job"))
    with pytest.raises(DefinitionError, match="ambiguous") as caught:
        Catalog.load([first, second], use_env=False)
    assert caught.value.file == str(second / "job.yaml")
    assert str(first / "job.yaml") in str(caught.value)


def test_env_variable_directories(tmp_path, monkeypatch):
    (tmp_path / "job.yaml").write_text(USER_JOB)
    monkeypatch.setenv(CATALOG_ENV, str(tmp_path))
    assert Catalog.load().lookup("batch/v1", "Job").definition.name == "my-job"
    assert Catalog.load(use_env=False).lookup("batch/v1", "Job").definition.name == "job"


def test_single_file_as_catalog_argument(tmp_path):
    path = tmp_path / "job.yml"
    path.write_text(USER_JOB)
    assert Catalog.load([path], use_env=False).lookup("batch/v1", "Job").definition.name == "my-job"


def test_non_yaml_and_hidden_files_ignored(tmp_path):
    (tmp_path / "README.md").write_text("not a definition")
    (tmp_path / ".job.yaml").write_text("{{{ broken")
    assert len(Catalog.load([tmp_path], use_env=False)) == len(builtin_files())


def test_missing_directory_is_an_error(tmp_path):
    with pytest.raises(DefinitionError, match="does not exist"):
        Catalog.load([tmp_path / "nope"], use_env=False)


def test_two_definitions_of_one_kind_in_one_source_conflict(tmp_path):
    catalog = Catalog([parse_definition(USER_JOB, "a.yaml")])
    with pytest.raises(DefinitionError, match="already defined"):
        catalog.add(parse_definition(USER_JOB.replace("my-job", "other"), "b.yaml"))


def test_broken_expression_fails_the_load_naming_file_and_field(tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text(USER_JOB.replace("replicas: spec.completions", "replicas: 'spec.completions ||'"))
    with pytest.raises(DefinitionError) as caught:
        Catalog.load([tmp_path], use_env=False)
    error = caught.value
    assert error.file == str(path)
    assert error.field == "components[0].replicas"
    text = str(error)
    assert str(path) in text and "components[0].replicas" in text and "\n" not in text


def test_unknown_field_rejected_naming_it(tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text(USER_JOB + "    replicaz: 3\n")
    with pytest.raises(DefinitionError) as caught:
        load_definition(path)
    assert caught.value.message == "unknown field"
    assert "replicaz" in caught.value.field
    assert caught.value.document == "my-job"


def test_wrong_type_in_definition(tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text(USER_JOB.replace("versions: [v1]", "versions: v1"))
    with pytest.raises(DefinitionError) as caught:
        load_definition(path)
    assert caught.value.field == "versions"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("name: [unclosed\n", "invalid YAML"),
        (USER_JOB + "---\n" + USER_JOB, "exactly one"),
        ("- a list\n", "mapping"),
        ("", "exactly one"),
    ],
)
def test_malformed_definition_files(text, needle):
    with pytest.raises(DefinitionError, match=needle) as caught:
        parse_definition(text, "defs/x.yaml")
    assert caught.value.file == "defs/x.yaml"


def test_unreadable_definition_file(tmp_path):
    with pytest.raises(DefinitionError, match="cannot read"):
        load_definition(tmp_path / "absent.yaml")


def test_load_without_builtins(tmp_path):
    (tmp_path / "job.yaml").write_text(USER_JOB)
    catalog = Catalog.load([tmp_path], use_env=False, builtin=False)
    assert [definition.name for definition in catalog] == ["my-job"]
    assert catalog.notices == []


def test_env_separator_is_pathsep(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (second / "job.yaml").write_text(USER_JOB)
    monkeypatch.setenv(CATALOG_ENV, f"{first}{os.pathsep}{second}{os.pathsep}")
    assert Catalog.load().lookup("batch/v1", "Job").definition.name == "my-job"
    assert isinstance(builtin_catalog_dir(), Path)


def test_lookup_answers_again_after_a_definition_is_added():
    # lookup() remembers its answers; add() must make it forget them, or a user definition added
    # after a lookup (a --catalog directory, a cluster Karta) would never be seen for that kind.
    text = (
        "name: {name}\ngroup: example.com\nkind: Thing\nversions: [{version}]\n"
        "components: [{{name: c, podTemplate: spec.template}}]\n"
    )
    catalog = Catalog([parse_definition(text.format(name="first", version="v1"))])
    assert catalog.lookup("example.com/v2", "Thing").definition.name == "first"  # with a version warning
    assert catalog.lookup("example.com/v2", "Thing").warning is not None
    catalog.add(parse_definition(text.format(name="second", version="v2")))
    found = catalog.lookup("example.com/v2", "Thing")
    assert (found.definition.name, found.warning) == ("second", None)
    assert catalog.lookup("example.com/v9", "Other") is None


def test_suggestions_answer_again_after_a_definition_is_added():
    # suggest() remembers its answers too (a cluster stream repeats its unknown kinds); a definition
    # added later must be offered for a kind it now spells close to.
    text = (
        "name: {name}\ngroup: example.com\nkind: {kind}\nversions: [v1]\n"
        "components: [{{name: c, podTemplate: spec.t}}]\n"
    )
    catalog = Catalog([parse_definition(text.format(name="thing", kind="Thing"))])
    assert catalog.suggest("other.io/v1", "Thing") == "; did you mean Thing (example.com/v1)?"
    assert catalog.suggest("v1", "Widgett") == ""
    catalog.add(parse_definition(text.format(name="widget", kind="Widget")))
    assert catalog.suggest("v1", "Widgett") == "; did you mean Widget (example.com/v1)?"
    assert catalog.suggest("other.io/v1", "Thing") == "; did you mean Thing (example.com/v1)?"
