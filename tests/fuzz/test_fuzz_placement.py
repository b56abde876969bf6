"""Fuzzing ``wmap place`` and ``wmap topology show`` with adversarial clusters.

Clusters are real shapes (the repo's NodeLists and a generated NVL72 cluster) with nodes in two
racks, labels dropped, zero, negative, fractional and absurd GPU counts, plus the generic mutations
of :mod:`helpers.fuzz`; the workload is one of the repo's fixtures, often asking for 10^6 GPUs per
container. Every case must end with a report (exit 0, or 3 with ``--fail-unfit``) or one-line
errors and exit 1: never a traceback. ``WMAP_FUZZ_CASES`` runs the long mode (see test_fuzz_inspect).
"""

from __future__ import annotations

import json

import pytest
import yaml

from helpers import FIXTURES_DIR
from helpers.fuzz import corpus_documents, fuzz_plan, make_cluster_case
from workloadmap.topology import PRESETS, generate_nodelist

PLAN = fuzz_plan(ci_cases=240)
BATCHES = PLAN.batches(3)
CLUSTER_FILES = [
    "topology/nodes-topograph.yaml", "live/nvl72-nodes.yaml", "placement/gpu-racks-tainted.yaml",
    "topology/topology.yaml",  # a Slurm topology.yaml: its block_sizes and hostlists under the generic mutations
]  # fmt: skip


def clusters() -> list:
    found = [yaml.safe_load((FIXTURES_DIR / name).read_text()) for name in CLUSTER_FILES]
    return [*found, generate_nodelist(PRESETS["nvl72-4rack"])]


def workloads() -> list:
    found = corpus_documents(FIXTURES_DIR)
    return [(source, body) for source, body in found if "/" not in source or source.startswith("volcano/")]


def check_run(result, allowed: tuple[int, ...]) -> str | None:
    """None when the command ended as the contract says, else what went wrong."""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return f"{type(result.exception).__name__}: {result.exception}"
    if result.exit_code not in allowed:
        return f"exit {result.exit_code}: {result.stderr[-300:]}"
    for line in result.stderr.splitlines():
        if line.startswith("error: ") and ("internal error" in line or "Traceback" in line):
            return line[:300]
    if result.exit_code == 1 and not any(line.startswith("error: ") for line in result.stderr.splitlines()):
        return f"exit 1 without an error line: {result.stderr[-300:]}"
    return None


def fail_open(args: tuple[str, ...], result) -> str | None:
    """A fit claimed for a gang that can never form (minMember above its pods), in the JSON report."""
    if args[0] != "place" or "-o" not in args or result.exit_code not in (0, 3) or not result.stdout.strip():
        return None
    reports = json.loads(result.stdout)
    for report in reports.get("items", [reports]):
        for group in report.get("podGroups", []):
            for gang in (group, *group.get("subGroups", [])):
                if gang.get("fits") and gang.get("gang", True) and gang["minMember"] > gang["pods"]:
                    return f"{gang['name']}: minMember {gang['minMember']} above {gang['pods']} pods, yet fits"
    return None


@pytest.mark.parametrize("seeds", BATCHES, ids=[f"{r.start}-{r.stop - 1}" for r in BATCHES])
def test_adversarial_clusters_fail_cleanly(seeds, wmap, tmp_path):
    shapes, inputs = clusters(), workloads()
    failures = []
    for seed in seeds:
        case = make_cluster_case(shapes, inputs, seed, budget=PLAN.budget)
        nodes, workload = tmp_path / "nodes.yaml", tmp_path / "workload.yaml"
        nodes.write_text(case.nodes_text)
        workload.write_text(case.workload_text)
        runs = [
            (("topology", "show", str(nodes), "-o", "json" if seed % 2 else "tree"), (0, 1)),
            (
                ("place", str(workload), "-t", str(nodes), "--policy", case.policy, "--fail-unfit", "-o", "json"),
                (0, 1, 3),
            ),
        ]
        if seed % 3 == 0 or any(what.startswith("metadata.") for what in case.mutations):
            emit = ("place", str(workload), "-t", str(nodes), "--emit", "kai", "--emit", "volcano", "--emit", "kueue")
            runs.append((emit, (0, 1, 3, 5)))  # 3 and 5: --emit refuses gangs that do not (or may not) fit
        invalid_name = any(what.startswith("invalid node name") for what in case.mutations)
        for args, allowed in runs:
            result = wmap(*args)
            problem = check_run(result, (1,) if invalid_name else allowed) or fail_open(args, result)
            if problem:
                failures.append(f"seed {seed} {case.mutations} `wmap {' '.join(args[:2])}`: {problem}")
    assert not failures, "\n".join(failures[:20])
