"""`wmap catalog lint` on Karta files: every broken upstream rule, nested scales, evidence from samples."""

from __future__ import annotations

import yaml

from helpers import CORPUS_DIR, FIXTURES_DIR, require_shared
from workloadmap.lint import has_errors, lint_path

KARTA = FIXTURES_DIR / "karta" / "trainer-karta.yaml"


def test_every_broken_rule_is_listed(tmp_path):
    data = yaml.safe_load(KARTA.read_text())
    children = data["spec"]["structureDefinition"]["childComponents"]
    children[0]["ownerRef"] = "nobody"  # rule 2
    children[1]["scaleDefinition"]["replicasPath"] = "[range(5)]"  # rule 8
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump(data))
    findings = lint_path(tmp_path / "broken.yaml")
    assert [(f.rule, f.severity) for f in findings] == [("karta-rules", "error")] * 2
    assert {f.field for f in findings} == {
        "spec.structureDefinition.childComponents[0].ownerRef",
        "spec.structureDefinition.childComponents[1].scaleDefinition.replicasPath",
    }
    assert has_errors(findings)


def test_samples_show_a_gang_that_cannot_be_admitted():
    findings = lint_path(KARTA, [FIXTURES_DIR / "karta" / "trainer.yaml"])
    assert [f.rule for f in findings] == ["karta-samples"]
    assert "minMember 5 is more than its 4 pods" in findings[0].message
    assert not has_errors(findings)


def test_nested_scales_of_the_upstream_lws_karta():
    path = require_shared(CORPUS_DIR / "karta" / "leaderworkerset-x-k8s-io-leaderworkerset-v1.yaml")
    [finding] = lint_path(path)
    assert (finding.rule, finding.field) == ("karta-nested-scale", "group")
