"""The typer declaration of ``wmap inspect``: its arguments and options; the work is ``commands.inspect``'s.

``inspect_fast.py`` reads the same options without typer (a test holds its table to this one).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .common import catalog_option, gpu_resource_option, related_option
from .inspect import VIEWS, inspect_files, inspect_output, inspect_sources


def inspect(
    files: Optional[List[str]] = typer.Argument(None, metavar="FILE...", help="FILE, DIR or - (standard input)."),
    filename: Optional[List[str]] = typer.Option(
        None, "-f", "--filename", metavar="FILE", help="FILE, DIR or -; repeatable."
    ),
    output_format: str = VIEWS.option("inspect"),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    recursive: bool = typer.Option(False, "-R", "--recursive", help="Read directories recursively."),
    gpu_resource: Optional[List[str]] = gpu_resource_option(),
    related: Optional[List[str]] = related_option(),
) -> None:
    """Expand workloads from files into component trees with pod, GPU and gang totals."""
    chosen = inspect_output(output_format)
    sources = inspect_sources(files, filename, related)
    code = inspect_files(
        sources, chosen, catalog_dirs=catalog_dirs, recursive=recursive, gpu_resource=gpu_resource, related=related
    )
    raise typer.Exit(code)
