"""``wmap catalog``: list, show, validate, lint the workload definitions, and print their schema."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, List, Optional

import typer

from workloadmap.catalog import CatalogEntry, definition_files, load_definitions
from workloadmap.definitions import definition_json_schema
from workloadmap.errors import WorkloadMapError
from workloadmap.karta import KartaDefinition
from workloadmap.karta.export import export_karta
from workloadmap.lint import LintFinding, has_errors, lint_path, render_rules_table

from . import output
from .common import catalog_option, load_catalog
from .escape import escaped
from .output import DumpFormat, TableFormat
from .render import render_definition_table, render_lint_table


def _summary(definition: CatalogEntry) -> dict[str, Any]:
    if isinstance(definition, KartaDefinition):
        return {
            "name": definition.name,
            "group": definition.group,
            "kind": definition.kind,
            "versions": definition.versions,
            "components": definition.component_names(),
            "gang": "karta" if definition.gang_scheduled else "none",
            "phases": definition.mapped_statuses(),
            "source": definition.source,
            "description": definition.description,
            "format": "karta",
        }
    return {
        "name": definition.name,
        "group": definition.group,
        "kind": definition.kind,
        "versions": list(definition.versions),
        "components": [component.name for root in definition.components for component in root.walk()],
        "gang": definition.gang.policy or "none",
        "phases": [phase.value for phase in definition.status.rules],
        "source": definition.source,
        "description": definition.description,
        "format": "wmap",
    }


def catalog_list(
    output_format: TableFormat = typer.Option(TableFormat.table, "-o", "--output", help="table, json or yaml."),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
) -> None:
    """List the definitions: one per workload kind (Kartas: one per kind and version)."""
    items = [_summary(definition) for definition in load_catalog(catalog_dirs)]
    if output_format == TableFormat.table:
        output.write(render_definition_table(escaped(items)))
        return
    output.write(output.dump({"kind": "List", "apiVersion": "v1", "items": items}, output_format.value))


def catalog_show(
    name: str = typer.Argument(..., help="Definition name, kind, or kind.group."),
    output_format: DumpFormat = typer.Option(DumpFormat.yaml, "-o", "--output", help="yaml or json."),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
) -> None:
    """Print one definition."""
    definition = load_catalog(catalog_dirs).get(name)
    if definition is None:
        output.error(f"no definition named {name!r}; see `wmap catalog list`")
        raise typer.Exit(4)
    if isinstance(definition, KartaDefinition):
        data = definition.to_object()
    else:
        data = definition.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    output.write(output.dump(data, output_format.value))


def catalog_validate(files: List[Path] = typer.Argument(..., help="Definition files or directories to check.")) -> None:
    """Check definition files (or directories of them): wmap definitions and Kartas; expressions compile."""
    code = 0
    expanded: list[Path] = []
    for path in files:
        expanded.extend(definition_files(path) if path.is_dir() else [path])
    for path in expanded:
        try:
            definitions = load_definitions(path)
        except WorkloadMapError as error:
            output.error(str(error))
            code = 1
            continue
        for definition in definitions:
            what = "Karta" if isinstance(definition, KartaDefinition) else "definition"
            versions = ",".join(definition.versions)
            output.write(
                f"{path}: valid {what} {definition.name} for {definition.kind} "
                f"({definition.group or 'core'}/{versions})\n"
            )
    raise typer.Exit(code)


def catalog_schema(
    output_format: DumpFormat = typer.Option(DumpFormat.json, "-o", "--output", help="json or yaml."),
) -> None:
    """Print the JSON Schema of the definition format."""
    output.write(output.dump(definition_json_schema(), output_format.value))


def catalog_lint(
    paths: Optional[List[Path]] = typer.Argument(None, help="Definition files or directories of definitions."),
    samples: Optional[List[Path]] = typer.Option(
        None,
        "-s",
        "--samples",
        help="FILE or DIR of sample resources (read recursively; recorded flows unpacked) to evaluate the "
        "definitions on. Repeatable.",
    ),
    output_format: TableFormat = typer.Option(TableFormat.table, "-o", "--output", help="table, json or yaml."),
    rules: bool = typer.Option(False, "--rules", help="List the lint rules and exit."),
) -> None:
    """Lint definitions: beyond the schema, rules that catch wrong counts, dead gang and status rules.

    Exit code 1 when any finding is an error, 0 otherwise (warnings only).
    """
    if rules:
        output.write(render_rules_table())
        return
    if not paths:
        raise typer.BadParameter("give at least one definition FILE or DIR", param_hint="PATHS")
    findings: list[LintFinding] = []
    for path in paths:
        findings.extend(lint_path(path, [str(sample) for sample in samples or []]))
    if output_format == TableFormat.table:
        if findings:
            output.write(render_lint_table(escaped(findings)))
        errors = sum(finding.severity == "error" for finding in findings)
        output.warn(f"{errors} error(s), {len(findings) - errors} warning(s)")
    else:
        output.write(output.dump({"findings": [finding.to_dict() for finding in findings]}, output_format.value))
    raise typer.Exit(1 if has_errors(findings) else 0)


class ExportFormat(str, Enum):
    """--format for `catalog export`."""

    karta = "karta"


def catalog_export(
    names: Optional[List[str]] = typer.Argument(
        None, help="Definitions to export (name, kind or kind.group); all when omitted."
    ),
    export_format: ExportFormat = typer.Option(
        ExportFormat.karta, "--format", help="karta: Workload Map Karta objects."
    ),
    output_format: DumpFormat = typer.Option(
        DumpFormat.yaml, "-o", "--output", help="yaml (a stream) or json (a List)."
    ),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
) -> None:
    """Write wmap definitions as Karta objects (one per API version) for `kubectl apply` and KAI's Karta fallback.

    What a Karta cannot say is listed in each object's annotation and warned about on stderr.
    """
    catalog = load_catalog(catalog_dirs)
    chosen = [catalog.get(name) for name in names] if names else list(catalog)
    missing = [name for name, found in zip(names or [], chosen, strict=True) if found is None]
    if missing:
        output.error(f"no definition named {missing[0]!r}; see `wmap catalog list`")
        raise typer.Exit(4)
    objects = []
    for definition in chosen:
        if isinstance(definition, KartaDefinition):
            objects.append(definition.to_object())  # already a Karta: written back unchanged
            continue
        assert definition is not None
        for exported in export_karta(definition):
            for _, message in exported.losses:
                output.warn(f"warning: {exported.name}: {message}")
            objects.append(exported.karta)
    if output_format == DumpFormat.json:
        output.write(output.dump({"apiVersion": "v1", "kind": "List", "items": objects}, "json"))
    else:
        output.write("".join(f"---\n{output.dump(item, 'yaml')}" for item in objects))
