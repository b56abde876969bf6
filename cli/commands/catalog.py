"""``wmap catalog``: list, show, validate, lint the workload definitions, and print their schema."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional

import typer

from workloadmap.catalog import CatalogEntry, definition_files, load_definitions, validated_definition
from workloadmap.definitions import definition_json_schema
from workloadmap.errors import WorkloadMapError

from ..printing import output
from ..printing.escape import escaped
from ..printing.formats import Output
from ..printing.views import Views, dump, plain, table, template
from ..render.workloads import render_definition_table, render_lint_lines, render_lint_table, render_rules
from .common import catalog_option, load_catalog

if TYPE_CHECKING:  # heavy stages load inside the commands that use them
    from workloadmap.lint import LintFinding


def _definitions(items: list[dict[str, Any]]) -> Any:
    return {"kind": "List", "apiVersion": "v1", "items": items}


def _lint_text(chosen: Output, findings: list[LintFinding]) -> None:
    """The findings one per line, compiler style (or ``-o table`` a table), then how many are errors and warnings."""
    if findings:
        if chosen.kind == "table":
            output.human(render_lint_table(escaped(findings)), fit=False)
        else:
            output.write(render_lint_lines(escaped(findings)))
    errors = sum(finding.severity == "error" for finding in findings)
    output.warn(f"{errors} error(s), {len(findings) - errors} warning(s)")


def _findings(findings: list[LintFinding]) -> Any:
    return {"findings": [finding.to_dict() for finding in findings]}


def _kartas(objects: list[dict[str, Any]]) -> Any:
    return {"apiVersion": "v1", "kind": "List", "items": objects}


LIST_VIEWS = Views(
    {
        "table": table(lambda items: render_definition_table(escaped(items))),
        "wide": table(lambda items: render_definition_table(escaped(items), wide=True)),
        "name": plain(lambda items: "".join(f"{item['name']}\n" for item in escaped(items))),
        "json": dump(_definitions),
        "yaml": dump(_definitions),
        "templates": template(_definitions),
    }
)
"""The views of ``catalog list``, on the definitions' summaries."""
SHOW_VIEWS = Views({"yaml": dump(), "json": dump(), "templates": template()})
"""The views of ``catalog show``, on the definition as its file holds it."""
SCHEMA_VIEWS = Views({"json": dump(), "yaml": dump()})
"""The views of ``catalog schema``, on the JSON Schema."""
LINT_VIEWS = Views({"text": _lint_text, "table": _lint_text, "json": dump(_findings), "yaml": dump(_findings)})
"""The views of ``catalog lint``, on the findings."""
EXPORT_VIEWS = Views(
    {
        "yaml": plain(lambda objects: "".join(f"---\n{output.dump(item, 'yaml')}" for item in objects)),
        "json": dump(_kartas),
    }
)
"""The views of ``catalog export``, on the Karta objects: a YAML stream, or a JSON ``List``."""


def _unknown(catalog: Any, name: str) -> None:
    """Say that no definition has ``name`` (with the closest ones), and exit 4."""
    close = catalog.close_matches(name)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    output.error(f"no definition named {name!r}{hint} (see `wmap catalog list`)")
    raise typer.Exit(4)


def _summary(definition: CatalogEntry) -> dict[str, Any]:
    from workloadmap.karta import KartaDefinition

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
    output_format: str = LIST_VIEWS.option("catalog list"),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
) -> None:
    """List the definitions: one per workload kind (Kartas: one per kind and version)."""
    chosen = LIST_VIEWS.parse(output_format)
    LIST_VIEWS.write(chosen, [_summary(definition) for definition in load_catalog(catalog_dirs)])


def catalog_show(
    name: str = typer.Argument(
        ..., metavar="DEFINITION", help="Definition name, kind, plural or short name (as kubectl get takes them)."
    ),
    output_format: str = SHOW_VIEWS.option("catalog show"),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
) -> None:
    """Print one definition."""
    from workloadmap.karta import KartaDefinition

    chosen = SHOW_VIEWS.parse(output_format)
    catalog = load_catalog(catalog_dirs)
    definition = catalog.get(name)
    if definition is None:
        _unknown(catalog, name)
    if isinstance(definition, KartaDefinition):
        data = definition.to_object()
    else:
        assert definition is not None
        data = validated_definition(definition).model_dump(mode="json", by_alias=True, exclude_defaults=True)
    SHOW_VIEWS.write(chosen, data)


def catalog_validate(
    files: List[Path] = typer.Argument(..., metavar="PATH...", help="Definition files or directories to check."),
) -> None:
    """Check definition files (or directories of them): wmap definitions and Kartas; expressions compile."""
    from workloadmap.karta import KartaDefinition

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
    output_format: str = SCHEMA_VIEWS.option("catalog schema"),
) -> None:
    """Print the JSON Schema of the definition format."""
    SCHEMA_VIEWS.write(SCHEMA_VIEWS.parse(output_format), definition_json_schema())


def catalog_lint(
    paths: Optional[List[Path]] = typer.Argument(
        None, metavar="PATH...", help="Definition files or directories of definitions."
    ),
    samples: Optional[List[Path]] = typer.Option(
        None,
        "-s",
        "--samples",
        metavar="PATH",
        help="FILE or DIR of sample resources (read recursively; recorded flows unpacked) to evaluate the "
        "definitions on. Repeatable.",
    ),
    output_format: str = LINT_VIEWS.option("catalog lint"),
    rules: bool = typer.Option(False, "--rules", help="List the lint rules and exit."),
) -> None:
    """Lint definitions: beyond the schema, rules that catch wrong counts, dead gang and status rules.

    Exit code 1 when any finding is an error, 0 otherwise (warnings only).
    """
    from workloadmap.lint import has_errors, lint_path, rule_rows

    if rules:
        output.human(render_rules(rule_rows()), fit=False)
        return
    if not paths:
        raise typer.BadParameter("give at least one definition FILE or DIR", param_hint="PATHS")
    findings: list[LintFinding] = []
    for path in paths:
        findings.extend(lint_path(path, [str(sample) for sample in samples or []]))
    LINT_VIEWS.write(LINT_VIEWS.parse(output_format), findings)
    raise typer.Exit(1 if has_errors(findings) else 0)


class ExportFormat(str, Enum):
    """--format for `catalog export`."""

    karta = "karta"


def catalog_export(
    names: Optional[List[str]] = typer.Argument(
        None, metavar="DEFINITION...", help="Definitions to export (name, kind or kind.group); all when omitted."
    ),
    export_format: ExportFormat = typer.Option(
        ExportFormat.karta, "--format", metavar="FORMAT", help="karta: Workload Map Karta objects."
    ),
    output_format: str = EXPORT_VIEWS.option("catalog export", "Output format (yaml a stream, json a List)"),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
) -> None:
    """Write wmap definitions as Karta objects (one per API version) for `kubectl apply` and KAI's Karta fallback.

    What a Karta cannot say is listed in each object's annotation and warned about on stderr.
    """
    from workloadmap.karta import KartaDefinition
    from workloadmap.karta.export import export_karta

    catalog = load_catalog(catalog_dirs)
    chosen = [catalog.get(name) for name in names] if names else list(catalog)
    missing = [name for name, found in zip(names, chosen, strict=True) if found is None] if names else []
    if missing:
        _unknown(catalog, missing[0])
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
    EXPORT_VIEWS.write(EXPORT_VIEWS.parse(output_format), objects)
