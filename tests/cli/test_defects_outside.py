"""Defects a new user and outside test suites found (issue 25), each pinned by a test that failed before its fix."""

from __future__ import annotations

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
