"""Every input limit and budget is set by a flag or an environment variable; a refusal names both.

docs/security.md lists them. The defaults are sized for real dumps: a stream of 10,001 documents
(refused before) is read.
"""

from __future__ import annotations

import pytest

from workloadmap.budgets import environment_name
from workloadmap.cli.commands.common import BUDGET_FLAGS, INPUT_LIMIT_FLAGS
from workloadmap.loader import LIMIT_FLAGS, WORKLOAD_LIMITS, Limits

JOB = """apiVersion: batch/v1
kind: Job
metadata: {{name: j{index}}}
spec:
  template:
    spec:
      containers: [{{name: c, image: x}}]
"""


def _stream(tmp_path, count):
    path = tmp_path / "stream.yaml"
    path.write_text("---\n".join(JOB.format(index=index) for index in range(count)))
    return str(path)


def test_every_limit_has_a_flag_and_an_environment_variable():
    assert {field for _, _, field, _ in INPUT_LIMIT_FLAGS} == set(LIMIT_FLAGS)
    assert set(LIMIT_FLAGS) == {item for item in Limits.__dataclass_fields__ if item != "check_json"}
    assert environment_name("--max-documents") == "WMAP_MAX_DOCUMENTS"
    assert environment_name("--search-budget") == "WMAP_SEARCH_BUDGET"
    assert {flag for _, flag, _, _ in BUDGET_FLAGS} >= {"--max-pods", "--max-nodes"}


def test_a_stream_of_more_than_ten_thousand_documents_is_read_by_default():
    assert WORKLOAD_LIMITS.max_documents >= 200_000
    assert WORKLOAD_LIMITS.max_bytes >= 150 * 1024 * 1024  # kubectl get pods -A -o yaml of 50,000 pods


@pytest.mark.parametrize("how", ["flag", "env"])
def test_the_document_limit_is_set_by_flag_or_environment_and_its_refusal_names_both(wmap, tmp_path, monkeypatch, how):
    path = _stream(tmp_path, 5)
    if how == "flag":
        result = wmap("inspect", path, "-o", "name", "--max-documents", "3")
    else:
        monkeypatch.setenv("WMAP_MAX_DOCUMENTS", "3")
        result = wmap("inspect", path, "-o", "name")
    assert result.exit_code != 0
    assert result.stdout.splitlines() == ["job.batch/j0", "job.batch/j1", "job.batch/j2"]
    assert "more than 3 documents (the rest refused; raise it with --max-documents or WMAP_MAX_DOCUMENTS)" in (
        result.stderr
    )


def test_the_flag_wins_over_the_environment(wmap, tmp_path, monkeypatch):
    monkeypatch.setenv("WMAP_MAX_DOCUMENTS", "1")
    result = wmap("inspect", _stream(tmp_path, 3), "-o", "name", "--max-documents", "10")
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 3


def test_the_size_limit_names_its_flag(wmap, tmp_path):
    path = _stream(tmp_path, 40)
    result = wmap("inspect", path, "--max-input-bytes", "1000")
    assert result.exit_code != 0
    assert "input larger than 1,000 bytes (refused; raise it with --max-input-bytes or WMAP_MAX_INPUT_BYTES)" in (
        result.stderr
    )


def test_a_budget_is_set_by_its_environment_variable(wmap, tmp_path, monkeypatch):
    # fixtures/leaderworkerset.yaml: 2 groups of 4 pods (8 pods, its header)
    from helpers import FIXTURES_DIR

    monkeypatch.setenv("WMAP_MAX_PODS", "7")
    result = wmap("inspect", str(FIXTURES_DIR / "leaderworkerset.yaml"))
    assert result.exit_code != 0
    assert "limit of 7 pods (raise it with --max-pods or WMAP_MAX_PODS)" in result.stderr


def test_a_malformed_environment_value_is_a_usage_error(wmap, tmp_path, monkeypatch):
    monkeypatch.setenv("WMAP_MAX_DOCUMENTS", "many")
    result = wmap("inspect", _stream(tmp_path, 1))
    assert result.exit_code == 2
    assert "WMAP_MAX_DOCUMENTS" in result.stderr
