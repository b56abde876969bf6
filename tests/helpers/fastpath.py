"""The fast command lines (cli/commands/fast.py) against the typer commands they stand in for."""

from __future__ import annotations

import subprocess
import sys
import tempfile

from typer.testing import CliRunner

from workloadmap.cli import entry


def through(path: str, command: str, arguments: list[str], stdin: str | None) -> tuple[str, str, int]:
    """Stdout, stderr and exit code of `wmap COMMAND ARGUMENTS`, by the console script or by the typer app."""
    with CliRunner().isolation(input=stdin, env={"WMAP_CATALOG": None, "COLUMNS": "120"}) as (out, err, _):
        argv, sys.argv = sys.argv, ["wmap", command, *arguments]
        try:
            entry.run() if path == "console" else entry.protected(entry.typer_app)
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 1
        finally:
            sys.argv = argv
        return out.getvalue().decode(), err.getvalue().decode(), code


def loaded_packages(argv: list[str]) -> tuple[set[str], str]:
    """The top-level packages a fresh `wmap ARGV` process loaded, and what it printed (it must exit 0)."""
    code = (
        f"import sys; sys.argv = ['wmap', *{argv!r}]\n"
        "from workloadmap.cli.entry import run\n"
        "try:\n    run()\nexcept SystemExit as stop:\n    assert not stop.code, stop.code\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )
    # outside the clone, whose workloadmap/ (without cli/) would shadow the installed package
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tempfile.gettempdir(), check=True
    )
    return {name.split(".")[0] for name in done.stderr.split()}, done.stdout
