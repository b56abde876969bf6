"""The fast path of `wmap describe -f` (cli/commands/fast.py) against the typer command it stands in for.

As for `wmap inspect` and `wmap alter` (tests/cli/test_inspect_fast.py, test_alter_fast.py): one option
table (commands/describe.py's OPTIONS) makes typer's declaration and the fast reader; the offline
forms print and exit alike either way and load no typer; TYPE[/NAME] (the cluster's forms) is typer's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.main import get_command

from helpers import FIXTURES_DIR
from helpers.fastpath import loaded_packages, through
from workloadmap.cli.commands.describe import OPTIONS
from workloadmap.cli.commands.fast import fast_command
from workloadmap.cli.main import app

JOBSET = str(FIXTURES_DIR / "jobset-leader-workers.yaml")
LIVE = FIXTURES_DIR / "live"
WORKLOADS, OBJECTS, NODES = (
    str(LIVE / name) for name in ("research-workloads.yaml", "llm-train-objects.yaml", "nvl72-nodes.yaml")
)


def _describe_command():
    return get_command(app).commands["describe"]  # type: ignore[attr-defined]


def test_the_fast_path_reads_exactly_the_options_typer_declares():
    params = [param for param in _describe_command().params if param.param_type_name == "option"]
    assert [param.name for param in params] == [option.name for option in OPTIONS]
    assert [flag for option in OPTIONS for flag in option.flags] == [flag for param in params for flag in param.opts]
    for param, option in zip(params, OPTIONS, strict=True):
        assert (param.multiple, param.is_flag, param.help, param.metavar, param.min) == (
            option.multiple,
            option.is_flag,
            option.help,
            option.metavar,
            option.minimum,
        )
        if not option.multiple:
            assert param.default == option.default
    arguments = [param for param in _describe_command().params if param.param_type_name == "argument"]
    assert [(param.name, param.nargs, param.required) for param in arguments] == [("ref", 1, False), ("name", 1, False)]


# (command line after `describe`, standard input, does the fast path run it?)
CASES = [
    (["-f", JOBSET], None, True),
    (["-f", JOBSET, "-o", "json"], None, True),
    (["--filename", JOBSET, "--pod-limit", "0", "-l", "a=b"], None, True),
    (["-f", WORKLOADS, "--objects", OBJECTS, "--nodes", NODES], None, True),
    (["-f", WORKLOADS, "--objects", OBJECTS, "-o", "yaml", "--chunk-size", "5"], None, True),
    (["-f", "-"], Path(JOBSET).read_text(), True),
    (["-f", str(FIXTURES_DIR / "no-such-file.yaml")], None, True),
    (["jobset", "--objects", OBJECTS], None, False),  # TYPE: the cluster's form, typer's
    (["jobset/llm-train", "--objects", OBJECTS], None, False),
    ([], None, False),  # neither TYPE nor -f
    (["-f", JOBSET, "--nodes", NODES], None, False),  # --nodes without --objects
    (["-f", JOBSET, "-o", "bogus"], None, False),
    (["-f", JOBSET, "--pod-limit", "-1"], None, False),
    (["-f", "-", "--objects", "-"], "", False),
    (["-f", JOBSET, "--timeout", "soon"], None, False),
    (["-f", JOBSET, "--help"], None, False),
]


@pytest.mark.parametrize(("arguments", "stdin", "fast"), CASES, ids=lambda value: str(value)[:60])
def test_the_fast_path_and_typer_print_and_exit_alike(arguments, stdin, fast):
    assert (fast_command(["describe", *arguments], {}) is not None) == fast
    console = through("console", "describe", arguments, stdin)
    assert console == through("typer", "describe", arguments, stdin)
    assert console[0] or console[1]


def test_wmap_describe_of_a_file_loads_neither_typer_nor_click():
    loaded, printed = loaded_packages(["describe", "-f", JOBSET])
    assert not loaded & {"typer", "click", "rich", "shellingham", "pydantic", "kubernetes"}
    assert "llm-train" in printed
