"""Defects a new user and outside test suites found (issue 25), each pinned by a test that failed before its fix."""

from __future__ import annotations

import json

import yaml

from helpers import FIXTURES_DIR

JOBSET = str(FIXTURES_DIR / "jobset-leader-workers.yaml")


# -- catalog export ----------------------------------------------------------------------------


def test_catalog_export_without_names_exports_every_definition(wmap, builtin_catalog):
    result = wmap("catalog", "export", "--format", "karta")
    assert result.exit_code == 0, result.output
    assert "internal error" not in result.output
    documents = [document for document in yaml.safe_load_all(result.stdout) if document]
    assert documents and all(document["kind"] == "Karta" for document in documents)
    # every built-in definition is in it (a definition gives one Karta per API version)
    assert len(documents) >= len(list(builtin_catalog))


# -- describe: the gang audit ------------------------------------------------------------------

LIVE = FIXTURES_DIR / "live"


def _objects_with_one_pod_pending(tmp_path) -> str:
    """The README's llm-train dump with the last worker unscheduled: 2 of minMember 3 pods bound."""
    documents = list(yaml.safe_load_all((LIVE / "llm-train-objects.yaml").read_text()))
    items = [item for document in documents for item in (document.get("items") or [document])]
    pending = next(i for i in items if i["kind"] == "Pod" and i["metadata"]["name"] == "llm-train-workers-0-1-klmnp")
    del pending["spec"]["nodeName"]
    pending["status"] = {"phase": "Pending"}
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(items))
    return str(path)


def test_describe_calls_a_gang_with_fewer_pods_than_min_member_incomplete(wmap, tmp_path):
    objects = _objects_with_one_pod_pending(tmp_path)
    args = ("describe", "-f", JOBSET, "--objects", objects, "--nodes", str(LIVE / "nvl72-nodes.yaml"))
    report = json.loads(wmap(*args, "-o", "json").stdout)
    gang = next(g for g in report["placement"]["podGroups"] if g["name"] == "llm-train" and not g["subGroup"])
    assert (gang["minMember"], gang["scheduledPods"]) == (3, 2)
    assert gang["incomplete"] is True and gang["satisfied"] is False
    assert gang["reason"].startswith("only 2 of minMember 3 pods scheduled")
    text = wmap(*args).stdout
    placement = " ".join(text[text.index("Placement") : text.index("Events")].split())
    # the two bound pods share one NVLink domain, which used to read "satisfied"
    assert "llm-train 2/3 scheduled in one accelerator.topograph.run/domain" in placement
    assert "INCOMPLETE: only 2 of minMember 3 pods scheduled" in placement
    assert "satisfied" not in placement
