"""``wmap inspect``: expand workloads from files into component trees with pod, GPU and gang totals."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from workloadmap.documents import load_objects
from workloadmap.interpreter import ObjectIndex, inspect_documents
from workloadmap.tree import WorkloadTree

from . import output
from .common import Collected, catalog_option, gpu_resource_option, gpu_resources, load_catalog, related_option
from .escape import escaped
from .output import ViewFormat
from .render import render_inspect_table, render_tree


def write_trees(trees: list[WorkloadTree], output_format: ViewFormat) -> None:
    """Print trees as the chosen view: tree, table, or a json/yaml dump (a List for several)."""
    if not trees:
        return
    if output_format in (ViewFormat.json, ViewFormat.yaml):
        output.write(output.dump(output.as_list([tree.to_dict() for tree in trees]), output_format.value))
    elif output_format == ViewFormat.table:
        output.write(render_inspect_table(escaped(trees)))
    else:
        output.write("\n".join(render_tree(tree) for tree in escaped(trees)))


def inspect(
    files: Optional[List[str]] = typer.Argument(None, help="FILE, DIR or - (standard input)."),
    filename: Optional[List[str]] = typer.Option(None, "-f", "--filename", help="FILE, DIR or -; repeatable."),
    output_format: ViewFormat = typer.Option(ViewFormat.tree, "-o", "--output", help="tree, table, json or yaml."),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    recursive: bool = typer.Option(False, "-R", "--recursive", help="Read directories recursively."),
    gpu_resource: Optional[List[str]] = gpu_resource_option(),
    related: Optional[List[str]] = related_option(),
) -> None:
    """Expand workloads from files into component trees with pod, GPU and gang totals."""
    sources = list(files or []) + list(filename or [])
    if not sources:
        raise typer.BadParameter("give at least one FILE, DIR or - (standard input)", param_hint="FILE")
    catalog = load_catalog(catalog_dirs)
    related_objects = ObjectIndex.from_paths(related or [])
    collected = Collected()
    for source in sources:
        documents = load_objects(source, recursive=recursive)
        collected.add(
            inspect_documents(
                documents, catalog=catalog, gpu_resources=gpu_resources(gpu_resource), related=related_objects
            )
        )
    if not collected.codes:
        output.warn(f"note: no Kubernetes objects found in {', '.join(sources)}")
    write_trees([tree for tree, _ in collected.trees], output_format)
    raise typer.Exit(collected.exit_code)
