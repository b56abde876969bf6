"""``wmap catalog lint``: find definitions that validate but are wrong (see :mod:`workloadmap.lint`)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from workloadmap.errors import WorkloadMapError
from workloadmap.lint import LintFinding, has_errors, lint_path

from . import output
from .output import TableFormat




def _render_table(findings: list[LintFinding]) -> str:
    """One row per finding; the message is last and keeps its spaces."""
    rows = [[f.severity, f.definition, f.field, f.rule, f.message] for f in findings]
    return output.table(["SEVERITY", "DEFINITION", "FIELD", "RULE", "MESSAGE"], rows, free_text_last=True)


def lint(
    paths: List[Path] = typer.Argument(..., help="Definition files or directories of definitions."),
    samples: Optional[List[Path]] = typer.Option(
        None,
        "-s",
        "--samples",
        help="FILE or DIR of sample resources (read recursively; recorded flows unpacked) to evaluate the "
        "definitions on. Repeatable.",
    ),
    output_format: TableFormat = typer.Option(TableFormat.table, "-o", "--output", help="table, json or yaml."),
) -> None:
    """Lint definitions: beyond the schema, rules that catch wrong counts, dead gang and status rules.

    Exit code 1 when any finding is an error, 0 otherwise (warnings only).
    """
    findings: list[LintFinding] = []
    try:
        for path in paths:
            findings.extend(lint_path(path, [str(sample) for sample in samples or []]))
    except WorkloadMapError as error:
        output.error(str(error))
        raise typer.Exit(1)
    if output_format == TableFormat.table:
        if findings:
            output.write(_render_table(findings))
        errors = sum(finding.severity == "error" for finding in findings)
        output.warn(f"{errors} error(s), {len(findings) - errors} warning(s)")
    else:
        output.write(output.dump({"findings": [finding.to_dict() for finding in findings]}, output_format.value))
    raise typer.Exit(1 if has_errors(findings) else 0)
