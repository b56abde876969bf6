"""Every bug the fuzz suite found, kept as a fixture under ``fixtures/bad/`` with its expected one line.

Expected messages follow the API server where it has a rule: extended resources are whole,
non-negative numbers (k8s.io/kubernetes pkg/apis/core/validation ValidateResourceRequirements:
"must be an integer", "must be greater than or equal to 0"); a key given twice is a warning and the
last value wins (field validation "duplicate field", strict decoding off by default); everything else
must name the file, the document and the field, and never be an internal error.
"""

from __future__ import annotations

import json

import pytest

from helpers import BAD_FIXTURES_DIR, FIXTURES_DIR
from helpers.goyaml import read_back
from workloadmap.catalog import load_definitions
from workloadmap.errors import DefinitionError, InputError
from workloadmap.interpreter import inspect_file

QUANTITY_FIELD = "field spec.template.spec.containers[0].resources.limits.nvidia.com/gpu"
JOB_REPLICAS = "field min([spec.parallelism || `1`, spec.completions || spec.parallelism || `1`])"
TRAINJOB_POD = (
    "field ref('runtime') == null && {containers: [{name: 'node', image: spec.trainer.image, "
    "resources: spec.trainer.resourcesPerNode || `{}`}]} || null"
)

INSPECT_CASES = [
    ("job-parallelism-huge-integer.yaml", "document #1: invalid YAML at line 7 column 16: an integer of more than 4300 digits (refused)"),  # noqa: E501
    ("job-int-tag-not-a-number.yaml", "document #1: invalid YAML at line 7 column 16: not an integer: 'abc'"),
    ("job-float-tag-not-a-number.yaml", "document #1: invalid YAML at line 7 column 16: not a number: 'abc'"),
    ("job-parallelism-unicode-digit.yaml", f"document #1 (Job/fuzzed), {JOB_REPLICAS}: replicas of component job must be a whole number, got '²'"),  # noqa: E501
    ("job-parallelism-arabic-indic.yaml", f"document #1 (Job/fuzzed), {JOB_REPLICAS}: replicas of component job must be a whole number, got '٣'"),  # noqa: E501
    ("job-timestamp-tag.yaml", f"document #1 (Job/fuzzed), {JOB_REPLICAS}: replicas of component job must be a whole number, got '2001-12-14'"),  # noqa: E501
    ("job-gpu-negative.yaml", f"document #1 (Job/fuzzed), {QUANTITY_FIELD}: must be greater than or equal to 0"),
    ("job-gpu-fractional.yaml", f"document #1 (Job/fuzzed), {QUANTITY_FIELD}: must be an integer (an extended resource is counted in whole units)"),  # noqa: E501
    ("job-gpu-astronomic.yaml", f"document #1 (Job/fuzzed), {QUANTITY_FIELD}: invalid quantity '1e308': exponent out of range"),  # noqa: E501
    ("job-gpu-not-a-quantity.yaml", f"document #1 (Job/fuzzed), {QUANTITY_FIELD}: invalid quantity [1, 2]: expected a number or a quantity string, got list"),  # noqa: E501
    ("trainjob-resources-not-a-mapping.yaml", f"document #1 (TrainJob/orphan), {TRAINJOB_POD}.containers[0].resources: expected a mapping, got str"),  # noqa: E501
    ("trainjob-gpu-nan.yaml", f"document #1 (TrainJob/nan-gpus), {TRAINJOB_POD}.containers[0].resources.requests.nvidia.com/gpu: invalid quantity nan"),  # noqa: E501
    # Issue 26: base 60 is text for kubectl (go-yaml), refused where it is counted, as the API server refuses it.
    ("job-parallelism-base-60.yaml", f"document #1 (Job/fuzzed), {JOB_REPLICAS}: replicas of component job must be a whole number, got '1:30'"),  # noqa: E501
    ("job-gpu-base-60.yaml", f"document #1 (Job/fuzzed), {QUANTITY_FIELD}: invalid quantity '1:00'"),
    ("job-int-tag-base-60.yaml", "document #1: invalid YAML at line 7 column 16: a base-60 integer '1:30' (YAML 1.1; kubectl reads it as text): refused"),  # noqa: E501
    ("job-labels-on-and-true.yaml", "document #1: invalid YAML at line 8 column 5: the keys 'on' and 'true' are the same key 'true' for kubectl (YAML 1.1 booleans and numbers); keep one"),  # noqa: E501
]  # fmt: skip


@pytest.mark.parametrize(("name", "expected"), INSPECT_CASES, ids=[name for name, _ in INSPECT_CASES])
def test_fuzz_finding_is_one_located_line(name, expected, builtin_catalog):
    path = BAD_FIXTURES_DIR / name
    [result] = inspect_file(str(path), catalog=builtin_catalog)
    assert isinstance(result.error, InputError)
    assert str(result.error) == f"{path}, {expected}"


def test_duplicate_key_is_a_warning_and_the_last_value_wins(builtin_catalog):
    [result] = inspect_file(str(BAD_FIXTURES_DIR / "job-duplicate-key.yaml"), catalog=builtin_catalog)
    assert result.tree is not None
    assert result.tree.totals.pods == 3
    assert result.tree.warnings == [
        "key 'parallelism' is given twice (line 9); the last value is used, as the API server does"
    ]


def test_karta_metadata_not_a_mapping_is_a_definition_error():
    path = BAD_FIXTURES_DIR / "karta-metadata-not-a-mapping.yaml"
    with pytest.raises(DefinitionError) as caught:
        load_definitions(path)
    assert str(caught.value) == f"{path}, document #1, field metadata: Input should be a valid dictionary"


def test_karta_metadata_not_a_mapping_is_a_lint_finding():
    from workloadmap.lint import lint_path

    path = BAD_FIXTURES_DIR / "karta-metadata-not-a-mapping.yaml"
    findings = lint_path(path)
    assert [(finding.severity, finding.field, finding.message) for finding in findings] == [
        ("error", "metadata", "Input should be a valid dictionary")
    ]


def test_subgroup_naming_the_empty_component_is_refused():
    from workloadmap.catalog import load_definition
    from workloadmap.lint import lint_path

    path = BAD_FIXTURES_DIR / "definition-subgroup-empty-component.yaml"
    with pytest.raises(DefinitionError) as caught:
        load_definition(path)
    assert str(caught.value) == (
        f"{path}, document emptycomponent: gang.podGroups[0].subGroups[0] names unknown component ''"
    )
    assert [(finding.rule, finding.severity) for finding in lint_path(path)] == [("schema", "error")]


def test_condition_checked_with_and_without_status_lints():
    from workloadmap.lint import lint_path

    path = BAD_FIXTURES_DIR / "definition-condition-with-and-without-status.yaml"
    # The two matchers hold the same checks (AND), in another order: the second can never decide.
    assert [(finding.rule, finding.field) for finding in lint_path(path)] == [
        ("status-shadowed", "status.rules.Running[1]")
    ]


def test_topology_kind_not_a_string_is_one_located_line():
    from workloadmap.errors import TopologyError
    from workloadmap.topology import load_cluster

    path = BAD_FIXTURES_DIR / "nodelist-kind-not-a-string.yaml"
    with pytest.raises(TopologyError) as caught:
        load_cluster(path)
    assert str(caught.value) == (
        f"{path}, document #1, field kind: expected kind Node or NodeList/List, got [{{'k': [1]}}]"
    )


def test_topology_list_items_not_a_list_names_the_field(tmp_path):
    from workloadmap.errors import TopologyError
    from workloadmap.topology import load_cluster

    path = tmp_path / "nodes.yaml"
    path.write_text("apiVersion: v1\nkind: List\nitems: 5\n")
    with pytest.raises(TopologyError) as caught:
        load_cluster(path)
    assert str(caught.value) == f"{path}, document #1, field items: expected a list"


def test_keys_on_and_1_are_the_keys_kubectl_reads(wmap):
    """`on` and `1` were one Python key (True == 1): -o json printed a key twice, YAML dropped one (issue 26)."""
    path = BAD_FIXTURES_DIR / "job-labels-on-and-1.yaml"
    result = wmap("alter", str(path), "--label", "team=a", "-o", "json")
    assert result.exit_code == 0, result.stderr
    pairs: list[list[tuple[str, object]]] = []
    json.loads(result.stdout, object_pairs_hook=lambda items: pairs.append(items) or dict(items))
    assert all(len({key for key, _ in items}) == len(items) for items in pairs)  # no key printed twice
    labels = json.loads(result.stdout)["metadata"]["labels"]
    assert labels == {"true": "first", "1": "second", "team": "a"}
    [read] = read_back(wmap("alter", str(path), "--label", "team=a").stdout, "v2")
    assert read["metadata"]["labels"] == labels


NEVER_FORMS = "minMember {} is more than its 2 pods: the gang can never form, so no scheduler starts it"


@pytest.mark.parametrize(
    ("name", "min_member"),
    [("volcano-minavailable-above-pods.yaml", 10), ("pytorchjob-minavailable-above-pods.yaml", 9)],
)
@pytest.mark.parametrize("policy", ["kueue", "kai"])
def test_a_gang_that_can_never_form_does_not_fit(wmap, name, min_member, policy):
    """minMember above the pods was warned about, yet place said fits, --fail-unfit exited 0 and --emit emitted."""
    path = str(BAD_FIXTURES_DIR / name)
    report = json.loads(wmap("place", path, "--policy", policy, "-o", "json").stdout)
    [group] = report["podGroups"]
    assert (group["verdict"], group["fits"], group["reason"]) == ("DoesNotFit", False, NEVER_FORMS.format(min_member))
    assert report["verdict"] == "DoesNotFit" and group.get("assignment") is None
    assert wmap("place", path, "--policy", policy, "--fail-unfit").exit_code == 3
    emitted = wmap("place", path, "--policy", policy, "--emit", "volcano")
    assert emitted.exit_code == 3 and emitted.stdout == ""


def test_a_node_name_that_is_not_a_node_name_is_refused_never_counted(wmap):
    """A twin of node-001-01 named "node-001-01 " gave five 8-GPU pods room on four 8-GPU nodes."""
    from workloadmap.errors import TopologyError
    from workloadmap.topology import load_cluster

    path = BAD_FIXTURES_DIR / "nodelist-name-trailing-space.yaml"
    with pytest.raises(TopologyError) as caught:
        load_cluster(path)
    assert str(caught.value) == (
        f"{path}, document Node/node-001-01, field metadata.name: 'node-001-01 ' is not a valid node name: not a "
        "DNS-1123 subdomain (lowercase letters, digits and '-' or '.', alphanumeric at both ends)"
    )
    result = wmap("place", str(FIXTURES_DIR / "job-parallel.yaml"), "-t", str(path))
    assert result.exit_code == 1 and "is not a valid node name" in result.stderr


# Issue 26: crashes ("internal error") where a located error belongs.


@pytest.mark.parametrize("command", [["alter", "--label", "team=a"], ["suspend"], ["resume"]])
def test_list_items_that_are_not_objects_are_located_errors(wmap, command):
    path = BAD_FIXTURES_DIR / "list-items-not-objects.yaml"
    result = wmap(command[0], str(path), *command[1:])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines()[:2] == [
        f"error: {path}, document #1 item 1: expected a Kubernetes object (a mapping), got int",
        f"error: {path}, document #1 item 2: expected a Kubernetes object (a mapping), got list",
    ]


def test_a_lone_surrogate_is_refused_where_it_is_read(wmap):
    """A JSON \\ud800 reached the YAML emitter, which cannot encode it (UnicodeEncodeError)."""
    path = BAD_FIXTURES_DIR / "job-lone-surrogate.json"
    for args in (["inspect", str(path), "-o", "yaml"], ["alter", str(path), "--label", "x=y"]):
        result = wmap(*args)
        assert result.exit_code == 1
        assert result.stderr.splitlines()[0] == (
            f"error: {path}, document #1: a string holds a lone surrogate (\\ud800), not Unicode text (refused)"
        )


@pytest.mark.parametrize(
    ("name", "target", "field"),
    [
        ("jobset-annotations-not-a-mapping.yaml", "kai", "metadata.annotations"),
        ("jobset-annotations-not-a-mapping.yaml", "kai-annotations", "metadata.annotations"),
        (
            "jobset-template-annotations-not-a-mapping.yaml",
            "kueue",
            "spec.replicatedJobs[0].template.spec.template.metadata.annotations",
        ),
    ],  # fmt: skip
)
def test_annotations_of_the_wrong_type_are_located_errors(wmap, name, target, field):
    path = BAD_FIXTURES_DIR / name
    result = wmap("place", str(path), "--emit", target)
    assert result.exit_code == 1 and "internal error" not in result.stderr
    assert f"error: JobSet/llm-train: {path}, field {field}: expected a mapping of strings, got list" in result.stderr


def test_slurm_block_sizes_inf_is_a_located_error():
    from workloadmap.errors import TopologyError
    from workloadmap.topology import load_cluster

    path = BAD_FIXTURES_DIR / "slurm-block-sizes-inf.yaml"
    with pytest.raises(TopologyError) as caught:
        load_cluster(path)
    assert str(caught.value) == (
        f"{path}, document topology nvlink, field [0].block.block_sizes: block size inf is not an integer between 1 "
        "and 65536"
    )


def test_a_karta_with_an_empty_path_is_refused_by_validate_and_by_inspect(wmap, tmp_path):
    path = BAD_FIXTURES_DIR / "karta-empty-path.yaml"
    field = "spec.structureDefinition.childComponents[1].scaleDefinition.minReplicasPath"
    message = (
        f"{path}, document example-com-trainer-v1, field {field}: an empty jq expression; leave the field out instead"
    )
    result = wmap("catalog", "validate", str(path))
    assert result.exit_code == 1 and message in result.stderr
    result = wmap("inspect", str(FIXTURES_DIR / "karta" / "trainer.yaml"), "--catalog", str(path))
    assert result.exit_code == 1 and result.stderr.strip() == f"error: {message}"


# Issue 26: kubeconfigs the Python client read differently from kubectl.


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "kubeconfig-insecure-skip-tls-verify-string.yaml",
            "insecure-skip-tls-verify is 'false', not a boolean; kubectl refuses it too (write true or false)",
        ),
        (
            "kubeconfig-auth-provider-gcp.yaml",
            "uses the gcp auth-provider, which kubectl removed in 1.26 (wmap never runs its command)",
        ),
    ],  # fmt: skip
)
def test_kubeconfigs_kubectl_refuses_are_refused(name, expected, tmp_path, monkeypatch):
    from workloadmap.errors import ClusterError
    from workloadmap.kube import ClusterClient

    monkeypatch.chdir(tmp_path)
    with pytest.raises(ClusterError) as caught:
        ClusterClient(BAD_FIXTURES_DIR / name)
    assert expected in str(caught.value) and "\n" not in str(caught.value)
