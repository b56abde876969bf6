"""Karta definitions read from a cluster (``kartas.run.ai``, GET only) for `wmap get`.

As upstream's CLI resolver (``cli/pkg/definitions/resolver.go``): a cluster Karta replaces the
built-in definition for its kind; two for one kind are ambiguous; no CRD means no cluster Kartas;
a user who may not list them keeps the other definitions, with a notice. wmap's user files
(``--catalog``) stay above cluster definitions: what the user names on the command line wins.
"""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from typer.testing import CliRunner

from helpers import FIXTURES_DIR, load_fixture
from helpers.apiserver import DEFAULT_RESOURCES, TEST_TOKEN, FakeApiServer, FakeResource
from workloadmap.catalog import Catalog
from workloadmap.errors import DefinitionError
from workloadmap.kube import ClusterClient, cluster_kartas

KARTA_RESOURCE = FakeResource("run.ai", "v1alpha1", "kartas", "karta", "Karta", namespaced=False, short_names=("krt",))
TRAINER_RESOURCE = FakeResource("example.com", "v1", "trainers", "trainer", "Trainer")
KARTA = yaml.safe_load((FIXTURES_DIR / "karta" / "trainer-karta.yaml").read_text())


@pytest.fixture
def server(tmp_path, monkeypatch):
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("WMAP_CATALOG", raising=False)
    fake = FakeApiServer([*DEFAULT_RESOURCES, KARTA_RESOURCE, TRAINER_RESOURCE], token=TEST_TOKEN).start()
    fake.kubeconfig = fake.write_kubeconfig(tmp_path / "kubeconfig")
    fake.add(load_fixture("karta/trainer.yaml"))
    yield fake
    fake.stop()


def _get(server, *extra):
    from workloadmap.cli.main import app

    args = ["get", "trainer/llm", "-n", "research", "--kubeconfig", str(server.kubeconfig), "-o", "json", *extra]
    return CliRunner().invoke(app, args)


def test_wmap_get_uses_the_clusters_karta(server):
    server.add(KARTA)
    result = _get(server)
    assert result.exit_code == 0, result.output
    tree = json.loads(result.stdout)["items"][0]  # `get -o json` is a List of trees
    assert tree["definition"] == "example-com-trainer-v1"
    assert tree["totals"]["pods"] == 8
    assert {method for method, _ in server.requests} == {"GET"}  # read-only


def test_without_the_crd_there_are_no_cluster_kartas(tmp_path, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    fake = FakeApiServer(token=TEST_TOKEN).start()
    try:
        kubeconfig = fake.write_kubeconfig(tmp_path / "kubeconfig")
        with ClusterClient(kubeconfig=str(kubeconfig)) as client:
            assert cluster_kartas(client) == ([], None)
    finally:
        fake.stop()


def test_forbidden_listing_is_a_notice(server):
    server.forbidden.add("kartas")
    with ClusterClient(kubeconfig=str(server.kubeconfig)) as client:
        objects, notice = cluster_kartas(client)
    assert objects == [] and "not allowed to list kartas.run.ai" in notice


def test_cluster_layer_rules():
    catalog = Catalog.load(use_env=False)
    statefulset = copy.deepcopy(KARTA)
    statefulset["metadata"]["name"] = "apps-statefulset-v1"
    statefulset["spec"]["structureDefinition"]["rootComponent"]["kind"] = {
        "group": "apps", "version": "v1", "kind": "StatefulSet"
    }  # fmt: skip
    catalog.add_cluster_kartas([statefulset])
    assert catalog.lookup("apps/v1", "StatefulSet").definition.name == "apps-statefulset-v1"  # replaces the built-in
    broken = copy.deepcopy(KARTA)
    broken["spec"]["structureDefinition"]["childComponents"][0]["ownerRef"] = "nobody"
    catalog.add_cluster_kartas([broken])
    assert any("skipped cluster Karta" in notice for notice in catalog.notices)
    twin = copy.deepcopy(statefulset)
    twin["metadata"]["name"] = "another-statefulset"
    with pytest.raises(DefinitionError, match="ambiguous"):
        catalog.add_cluster_kartas([twin])


def test_user_files_stay_above_cluster_kartas(server, tmp_path):
    server.add(KARTA)
    (tmp_path / "trainer.yaml").write_text(
        "name: trainer\ngroup: example.com\nkind: Trainer\nversions: [v1]\n"
        "components:\n  - name: launcher\n    podTemplate: spec.launcher.template\n"
    )
    result = _get(server, "--catalog", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["items"][0]["definition"] == "trainer"
