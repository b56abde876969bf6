"""Kartas in the catalog, next to wmap definitions (issue 11).

A user definition replaces the built-in one for its kind (as today); two user definitions, Karta or
wmap, for one group/version/kind are ambiguous, an error naming both files, as upstream's resolver
(``cli/pkg/definitions/resolver.go``, ``ErrAmbiguous``) says for two cluster Kartas.
"""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from helpers import FIXTURES_DIR
from workloadmap.catalog import CATALOG_ENV, Catalog
from workloadmap.errors import DefinitionError
from workloadmap.karta import KartaDefinition

KARTA = FIXTURES_DIR / "karta" / "trainer-karta.yaml"
TRAINER = FIXTURES_DIR / "karta" / "trainer.yaml"
WMAP_TRAINER = """\
name: trainer
group: example.com
kind: Trainer
versions: [v1]
components:
  - name: launcher
    podTemplate: spec.launcher.template
"""
STATEFULSET_KARTA = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: apps-statefulset-v1}
spec:
  structureDefinition:
    rootComponent:
      name: statefulset
      kind: {group: apps, version: v1, kind: StatefulSet}
      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {replicasPath: .spec.replicas // 1}
      statusDefinition: {statusMappings: {}}
"""


@pytest.fixture(autouse=True)
def no_env_catalog(monkeypatch):
    monkeypatch.delenv(CATALOG_ENV, raising=False)


def test_a_karta_file_sits_next_to_wmap_definitions(tmp_path):
    shutil.copy(KARTA, tmp_path)
    (tmp_path / "other.yaml").write_text(
        WMAP_TRAINER.replace("Trainer", "Other").replace("name: trainer", "name: other")
    )
    catalog = Catalog.load([tmp_path], use_env=False)
    lookup = catalog.lookup("example.com/v1", "Trainer")
    assert isinstance(lookup.definition, KartaDefinition)
    assert lookup.warning is None
    assert catalog.lookup("example.com/v1", "Other").definition.name == "other"


def test_a_karta_and_a_wmap_definition_of_one_kind_are_ambiguous(tmp_path):
    shutil.copy(KARTA, tmp_path / "a-karta.yaml")
    (tmp_path / "b-wmap.yaml").write_text(WMAP_TRAINER)
    with pytest.raises(DefinitionError, match="ambiguous") as caught:
        Catalog.load([tmp_path], use_env=False)
    assert caught.value.file == str(tmp_path / "b-wmap.yaml")
    assert str(tmp_path / "a-karta.yaml") in str(caught.value)


def test_kartas_for_two_versions_of_one_kind_sit_side_by_side(tmp_path):
    data = yaml.safe_load(KARTA.read_text())
    (tmp_path / "v1.yaml").write_text(yaml.safe_dump(data))
    data["metadata"]["name"] = "example-com-trainer-v2"
    data["spec"]["structureDefinition"]["rootComponent"]["kind"]["version"] = "v2"
    (tmp_path / "v2.yaml").write_text(yaml.safe_dump(data))
    catalog = Catalog.load([tmp_path], use_env=False)
    assert catalog.lookup("example.com/v2", "Trainer").definition.name == "example-com-trainer-v2"
    assert catalog.lookup("example.com/v1", "Trainer").definition.name == "example-com-trainer-v1"
    fallback = catalog.lookup("example.com/v3", "Trainer")
    assert fallback.warning and "v3" in fallback.warning


def test_a_karta_replaces_the_builtin_definition_with_a_notice(tmp_path):
    (tmp_path / "sts.yaml").write_text(STATEFULSET_KARTA)
    catalog = Catalog.load([tmp_path], use_env=False)
    assert catalog.lookup("apps/v1", "StatefulSet").definition.name == "apps-statefulset-v1"
    assert any("apps-statefulset-v1" in notice and "replaces statefulset" in notice for notice in catalog.notices)


def test_a_list_of_kartas_in_one_file(tmp_path):
    data = yaml.safe_load(KARTA.read_text())
    (tmp_path / "list.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [data]}))
    assert Catalog.load([tmp_path], use_env=False).get("example-com-trainer-v1") is not None


def test_cli_reads_kartas(wmap, tmp_path):
    shutil.copy(KARTA, tmp_path)
    result = wmap("catalog", "validate", str(KARTA))
    assert result.exit_code == 0, result.output
    assert "valid Karta example-com-trainer-v1 for Trainer (example.com/v1)" in result.stdout
    result = wmap("inspect", str(TRAINER), "--catalog", str(tmp_path), "-o", "json")
    assert result.exit_code == 0, result.output
    tree = json.loads(result.stdout)
    assert tree["definition"] == "example-com-trainer-v1"
    assert tree["totals"]["pods"] == 8
    listed = json.loads(wmap("catalog", "list", "--catalog", str(tmp_path), "-o", "json").stdout)
    [item] = [item for item in listed["items"] if item["format"] == "karta"]
    assert item["components"] == ["trainer", "launcher", "workers"]
    shown = yaml.safe_load(wmap("catalog", "show", "example-com-trainer-v1", "--catalog", str(tmp_path)).stdout)
    assert shown == yaml.safe_load(KARTA.read_text())


def test_cli_rejects_a_hostile_karta_in_one_line(wmap, tmp_path):
    data = yaml.safe_load(KARTA.read_text())
    data["spec"]["structureDefinition"]["childComponents"][1]["instanceIdPath"] = "$ENV | keys[]"
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(data))
    result = wmap("catalog", "validate", str(tmp_path / "bad.yaml"))
    assert result.exit_code == 1
    assert "$ENV reads the process environment is not allowed" in result.stderr
    assert "Traceback" not in result.output


def test_a_hostile_karta_ends_with_a_clean_error(wmap, tmp_path):
    # A self-recursive def passes the safety rules (upstream allows def) and compiles; evaluating it
    # must end at the time bound with a one-line error, never a hang or a traceback.
    data = yaml.safe_load(KARTA.read_text())
    data["spec"]["structureDefinition"]["childComponents"][0]["scaleDefinition"] = {"replicasPath": "def f: f; f"}
    (tmp_path / "hostile.yaml").write_text(yaml.safe_dump(data))
    result = wmap("inspect", str(TRAINER), "--catalog", str(tmp_path / "hostile.yaml"))
    assert result.exit_code == 1
    assert "time bound" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output
