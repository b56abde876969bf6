"""The typer declarations of ``wmap alter`` (from its one option table, ``commands.alter.OPTIONS``), suspend, resume.

``fast.py`` reads the same table without typer; both run :func:`~.alter.prepare`'s command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import typer

from ..printing.options import typer_command
from .alter import FILES, MANIFESTS, OPTIONS, OUTPUT_HELP, PATCH_HELP, STRICT_HELP, prepare, run
from .common import catalog_option


def alter_command(**values: Any) -> None:
    """Set scheduler, queue, labels, tolerations, node selector or priority on every pod template of a workload."""
    files = values.pop(FILES.name)
    raise typer.Exit(prepare(files, values)())


typer_command(alter_command, [FILES], OPTIONS)


def _suspension(suspend: bool) -> Any:
    def command(
        files: List[str] = typer.Argument(..., metavar="FILE...", help="FILE, DIR or - (standard input)."),
        output_format: Optional[str] = MANIFESTS.option("suspend" if suspend else "resume", OUTPUT_HELP, optional=True),
        patch: bool = typer.Option(False, "--patch", help=PATCH_HELP),
        strict: bool = typer.Option(False, "--strict", help=STRICT_HELP),
        recursive: bool = typer.Option(False, "-R", "--recursive", help="Read directories recursively."),
        catalog_dirs: Optional[List[Path]] = catalog_option(),
    ) -> None:
        from workloadmap.alter import Changes

        run(
            files, Changes(suspend=suspend), component=None, output_format=output_format, patch=patch,
            recursive=recursive, catalog_dirs=catalog_dirs, related=None, strict=strict,
        )  # fmt: skip

    verb = "Suspend" if suspend else "Resume"
    command.__doc__ = f"{verb} workloads through the field their operator defines (see docs/alter.md)."
    return command


suspend_command = _suspension(True)
resume_command = _suspension(False)
