"""Text formatting for the command line: kubectl-style tables, trees, machine dumps."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from typing import Any

import typer
import yaml

from .escape import shown


class ViewFormat(str, Enum):
    """-o for commands that show workloads: a tree, a table, or a machine dump."""

    tree = "tree"
    table = "table"
    json = "json"
    yaml = "yaml"


class TableFormat(str, Enum):
    """-o for listings."""

    table = "table"
    json = "json"
    yaml = "yaml"


class TreeFormat(str, Enum):
    """-o for trees that have no table form."""

    tree = "tree"
    json = "json"
    yaml = "yaml"


class DumpFormat(str, Enum):
    """-o for commands that print Kubernetes objects."""

    yaml = "yaml"
    json = "json"


def dump(data: Any, output: str) -> str:
    """Plain json/yaml dumps: what `-o json|yaml` prints, byte for byte."""
    if output == "json":
        return json.dumps(data, indent=2) + "\n"
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False)


def as_list(items: list[dict[str, Any]]) -> Any:
    """One object stays an object; several become a kubectl-style List."""
    if len(items) == 1:
        return items[0]
    return {"kind": "List", "apiVersion": "v1", "items": items}


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, free_text_last: bool = False) -> str:
    """A borderless kubectl table: upper-case headers, columns padded with three spaces.

    Values get ``-`` for spaces, except in a last free-text column (a REASON or MESSAGE, as
    `kubectl get events` prints it) when ``free_text_last`` is set.
    """

    def cell(value: Any, last: bool) -> str:
        if value in (None, ""):
            return "<none>"
        return str(value) if last and free_text_last else str(value).replace(" ", "-")

    rows = [[cell(value, index == len(row) - 1) for index, value in enumerate(row)] for row in rows]
    widths = [len(header) for header in headers]
    for row in rows:
        for index, value in enumerate(row):
            widths[index] = max(widths[index], len(value))
    lines = []
    for row in [list(headers)] + rows:
        lines.append("   ".join(value.ljust(widths[index]) for index, value in enumerate(row)).rstrip())
    return "\n".join(lines) + "\n"


def tree_lines(
    nodes: Sequence[Any],
    label: Callable[[Any], str],
    children: Callable[[Any], Sequence[Any]],
    prefix: str = "",
) -> list[str]:
    """Render a tree with box-drawing branches; ``label(node)`` and ``children(node)`` describe it."""
    lines = []
    for index, node in enumerate(nodes):
        last = index == len(nodes) - 1
        lines.append(f"{prefix}{'└── ' if last else '├── '}{label(node)}")
        lines.extend(tree_lines(children(node), label, children, prefix + ("    " if last else "│   ")))
    return lines


def error(message: str) -> None:
    """An error line on stderr (control characters from inputs shown as escapes)."""
    typer.echo(f"error: {shown(message)}", err=True)


def warn(message: str) -> None:
    """A warning or note on stderr (control characters from inputs shown as escapes)."""
    typer.echo(shown(message), err=True)


def write(text: str) -> None:
    """Text on stdout, flushed (so a reader sees each block as it is written)."""
    sys.stdout.write(text)
    sys.stdout.flush()
