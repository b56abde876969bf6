"""Standard output full (``> /dev/full``) or closed (``>&-``): one line and exit 1, never "internal error" (issue 26).

A reader that goes away (``| head``) still ends the command quietly (tests/cli/test_cli.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

from helpers import FIXTURES_DIR

ENTRY = "import sys; sys.argv[0] = 'wmap'; from workloadmap.cli.entry import run; run()"
WORKLOAD = str(FIXTURES_DIR / "jobset-leader-workers.yaml")
COMMANDS = [
    ["inspect", WORKLOAD],  # the fast path, without typer
    ["inspect", WORKLOAD, "-o", "json"],
    ["place", WORKLOAD],
    ["alter", WORKLOAD, "--queue", "q"],
]


def run(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    # Outside the clone: `python -c` puts the working directory first on sys.path, where the clone's
    # workloadmap/ (without cli/, which the install maps in) would shadow the installed package.
    return subprocess.run(
        [sys.executable, "-c", ENTRY, *args],
        stderr=subprocess.PIPE, text=True, timeout=120, check=False, cwd=tempfile.gettempdir(), **kwargs,
    )  # fmt: skip


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(args[:1] + args[2:]) for args in COMMANDS])
def test_a_full_stdout_is_one_line(args):
    with open("/dev/full", "w") as full:
        result = run(args, stdout=full)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == ["error: cannot write the output to standard output: No space left on device"], result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(args[:1] + args[2:]) for args in COMMANDS])
def test_a_closed_stdout_is_one_line(args):
    result = run(args, stdout=None, preexec_fn=lambda: os.close(1))
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == ["error: cannot write the output: standard output is closed"], result.stderr
