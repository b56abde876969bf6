"""The fast path of `wmap alter` (cli/commands/fast.py) against the typer command it stands in for.

Both readers are built from one option table (commands/alter.py's OPTIONS), as `wmap inspect`'s are
(tests/cli/test_inspect_fast.py): typer's command has exactly the table's options; every command
line below prints the same stdout and stderr and exits with the same code through the console
script (fast path where it applies) as through the typer app; the fast path loads no typer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.main import get_command

from helpers import BAD_FIXTURES_DIR, FIXTURES_DIR
from helpers.fastpath import loaded_packages, through
from workloadmap.cli.commands.alter import OPTIONS
from workloadmap.cli.commands.fast import fast_command
from workloadmap.cli.main import app

JOBSET = str(FIXTURES_DIR / "jobset-leader-workers.yaml")
RAY = str(FIXTURES_DIR / "raycluster.yaml")
APPS = str(FIXTURES_DIR / "apps")


def _alter_command():
    return get_command(app).commands["alter"]  # type: ignore[attr-defined]


def test_the_fast_path_reads_exactly_the_options_typer_declares():
    params = [param for param in _alter_command().params if param.param_type_name == "option"]
    assert [param.name for param in params] == [option.name for option in OPTIONS]
    assert [flag for option in OPTIONS for flag in option.flags] == [flag for param in params for flag in param.opts]
    for param, option in zip(params, OPTIONS, strict=True):
        assert (param.multiple, param.is_flag, param.help, param.metavar) == (
            option.multiple,
            option.is_flag,
            option.help,
            option.metavar,
        )
    arguments = [param for param in _alter_command().params if param.param_type_name == "argument"]
    assert [(param.name, param.nargs, param.required) for param in arguments] == [("files", -1, True)]


# (command line after `alter`, standard input, does the fast path run it?)
CASES = [
    ([JOBSET, "--scheduler-name", "kai-scheduler"], None, True),
    ([JOBSET, RAY, "--queue", "team-a", "-o", "json"], None, True),
    (
        [JOBSET, "--label", "a=b", "--label=c=d", "--pod-label", "x=y", "--toleration", "nvidia.com/gpu:NoSchedule"],
        None,
        True,
    ),
    ([JOBSET, "--queue", "q", "--patch"], None, True),
    ([JOBSET, "--queue", "q", "--patch", "-o", "json"], None, True),
    ([JOBSET, "--queue", "q", "--strict", "--component", "workers"], None, True),
    (["-", "--priority-class", "high"], Path(JOBSET).read_text(), True),
    ([APPS, "-R", "--queue", "q"], None, True),
    ([JOBSET, "--workload-ref", "w/pg"], None, True),
    ([JOBSET, "--clique-affinity"], None, True),
    ([JOBSET, "--scheduling-group", "pg", "--timeout", "1m", "--max-pods", "2"], None, True),
    ([str(BAD_FIXTURES_DIR / "broken-yaml.yaml"), JOBSET, "--queue", "q"], None, True),
    ([str(FIXTURES_DIR / "no-such-file.yaml"), "--queue", "q"], None, True),
    ([JOBSET], None, False),  # nothing to change: typer's usage error
    (["--queue", "q"], None, False),  # no FILE
    ([JOBSET, "--label", "novalue"], None, False),
    ([JOBSET, "--workload-ref", "w"], None, False),
    ([JOBSET, "--toleration", "a:Bad"], None, False),
    ([JOBSET, "--queue", "q", "-o", "bogus"], None, False),
    (["-", "-", "--queue", "q"], "", False),  # standard input twice
    ([JOBSET, "--queue", "q", "--timeout", "soon"], None, False),
    ([JOBSET, "--help"], None, False),
    ([JOBSET, "--bogus"], None, False),
]


@pytest.mark.parametrize(("arguments", "stdin", "fast"), CASES, ids=lambda value: str(value)[:60])
def test_the_fast_path_and_typer_print_and_exit_alike(arguments, stdin, fast):
    assert (fast_command(["alter", *arguments], {}) is not None) == fast
    console = through("console", "alter", arguments, stdin)
    assert console == through("typer", "alter", arguments, stdin)
    assert console[0] or console[1]


def test_wmap_alter_loads_neither_typer_nor_click():
    loaded, printed = loaded_packages(["alter", JOBSET, "--scheduler-name", "kai-scheduler"])
    assert not loaded & {"typer", "click", "rich", "shellingham", "pydantic"}
    assert "schedulerName: kai-scheduler" in printed
