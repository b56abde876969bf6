"""``-o FORMAT`` as kubectl reads it: named views plus ``jsonpath=``, ``custom-columns=`` and their file forms.

Each command declares the views it has (``views.Views``); the template formats work on
exactly what ``-o json`` prints, as kubectl's do: ``jsonpath`` on the whole document,
``custom-columns`` one row per item of a ``List`` (or one row for a single object).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import output
from .escape import shown
from .usage import bad_parameter

__all__ = ["Output", "parse_output", "template_text", "TEMPLATES"]

TEMPLATES = ("jsonpath", "jsonpath-file", "jsonpath-as-json", "custom-columns", "custom-columns-file")
"""Formats that carry a template after ``=`` (kubectl's names)."""


@dataclass(frozen=True)
class Output:
    """A parsed ``-o`` value.

    Attributes:
        kind: the view (``tree``, ``table``, ``wide``, ``name``, ``json``, ``yaml``) or template format.
        template: for ``jsonpath*``: the parsed template; for ``custom-columns*``: the columns.
        header: tables and custom columns print their header line (False: ``--no-headers``),
            and a listing its summary line under them.
        summary: ``--summary``: a listing ends with its totals by kind and namespace.
    """

    kind: str
    template: Any = None
    header: bool = True
    summary: bool = False


def _read(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise bad_parameter(f"{what} {path}: cannot read: {getattr(error, 'strerror', None) or error}") from None


def _columns(spec: str) -> list[tuple[str, Any]]:
    """``NAME:.path,OTHER:.path`` as (header, template) pairs, as kubectl's custom-columns reads them."""
    from . import jsonpath

    columns = []
    for part in spec.split(","):
        header, colon, path = part.partition(":")
        if not colon or not header:
            raise bad_parameter(f"expected <header>:<json-path-expr>, got {part!r}")
        columns.append((header, jsonpath.parse(jsonpath.relaxed(path))))
    return columns


def _columns_file(text: str) -> str:
    """A custom-columns file: a line of headers, a line of paths (kubectl's custom-columns-file)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != 2:
        raise bad_parameter("a custom-columns file holds two lines: the headers, then the paths")
    headers, paths = lines[0].split(), lines[1].split()
    if len(headers) != len(paths):
        raise bad_parameter(f"{len(headers)} headers but {len(paths)} paths in the custom-columns file")
    return ",".join(f"{header}:{path}" for header, path in zip(headers, paths, strict=True))


def parse_output(value: str, kinds: Sequence[str]) -> Output:
    """Read an ``-o`` value against the views a command has.

    Raises:
        typer.BadParameter: an unknown format, a missing or malformed template (a usage error, exit 2).
    """
    name, equals, template = value.partition("=")
    accepted = ", ".join(f"{kind}=..." if kind in TEMPLATES else kind for kind in kinds)
    if name not in kinds or (name in TEMPLATES) != bool(equals):
        hint = f" (did you mean {name}=...?)" if name in TEMPLATES and not equals else ""
        raise bad_parameter(f"{value!r} is not one of {accepted}{hint}")
    if name not in TEMPLATES:
        return Output(name)
    from . import jsonpath  # the template language loads only for a template

    try:
        if name.startswith("jsonpath"):
            text = _read(template, "jsonpath file") if name == "jsonpath-file" else template
            return Output(name, jsonpath.parse(text))
        spec = _columns_file(_read(template, "custom-columns file")) if name.endswith("-file") else template
        return Output(name, _columns(spec))
    except jsonpath.JsonPathError as error:
        raise bad_parameter(f"{name} template: {error}") from None


def template_text(chosen: Output, document: Any) -> str:
    """``document`` (what ``-o json`` prints) through a jsonpath or custom-columns template.

    Raises:
        SystemExit: the template fails on this data (exit 1, with the reason on stderr).
    """
    from . import jsonpath

    try:
        if chosen.kind.startswith("custom-columns"):
            items = document.get("items") if isinstance(document, dict) and document.get("kind") == "List" else None
            # Cells are human output: control characters from the server shown as escapes, as in tables.
            rows = [[shown(jsonpath.column(path, item)) for _, path in chosen.template] for item in items or [document]]
            return _columns_table([header for header, _ in chosen.template], rows)
        if chosen.kind == "jsonpath-as-json":
            return jsonpath.render_json(chosen.template, document)
        return jsonpath.render(chosen.template, document)
    except jsonpath.JsonPathError as error:
        output.error(f"{chosen.kind}: {error}")
        raise SystemExit(1) from None


def _columns_table(headers: list[str], rows: list[list[str]]) -> str:
    """Kubectl's custom-columns layout: cells as they are, columns padded with three spaces."""
    widths = [max([len(header)] + [len(row[index]) for row in rows]) for index, header in enumerate(headers)]
    lines = [
        "   ".join(cell.ljust(widths[index]) for index, cell in enumerate(row)).rstrip() for row in [headers, *rows]
    ]
    return "\n".join(lines) + "\n"
