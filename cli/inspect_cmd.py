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
from .formats import Output, chosen_output, output_option, write_template
from .render import render_inspect_table, render_tree

VIEWS = ("tree", "table", "wide", "name", "json", "yaml", "templates")


def resource_name(tree: WorkloadTree) -> str:
    """``kind.group/name`` as `kubectl get -o name` prints a resource (``pod/x`` for the core group)."""
    group = tree.workload.api_version.rpartition("/")[0]
    kind = tree.workload.kind.lower()
    return f"{kind}.{group}/{tree.workload.name}" if group else f"{kind}/{tree.workload.name}"


def write_trees(trees: list[WorkloadTree], chosen: Output) -> None:
    """Print trees as the chosen view: tree, table, wide, name, a json/yaml dump (a List for several), a template."""
    if not trees:
        return
    if chosen.machine:
        output.write(output.dump(output.as_list([tree.to_dict() for tree in trees]), chosen.kind))
    elif chosen.templated:
        write_template(chosen, output.as_list([tree.to_dict() for tree in trees]))
    elif chosen.kind == "name":
        output.write("".join(f"{resource_name(tree)}\n" for tree in escaped(trees)))
    elif chosen.kind in ("table", "wide"):
        output.human(render_inspect_table(escaped(trees), wide=chosen.kind == "wide"), fit=False)
    else:
        output.human("\n".join(render_tree(tree) for tree in escaped(trees)))


def inspect(
    files: Optional[List[str]] = typer.Argument(None, metavar="FILE...", help="FILE, DIR or - (standard input)."),
    filename: Optional[List[str]] = typer.Option(
        None, "-f", "--filename", metavar="FILE", help="FILE, DIR or -; repeatable."
    ),
    output_format: str = output_option("inspect", VIEWS, "tree"),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    recursive: bool = typer.Option(False, "-R", "--recursive", help="Read directories recursively."),
    gpu_resource: Optional[List[str]] = gpu_resource_option(),
    related: Optional[List[str]] = related_option(),
) -> None:
    """Expand workloads from files into component trees with pod, GPU and gang totals."""
    chosen = chosen_output("inspect", output_format)
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
    write_trees([tree for tree, _ in collected.trees], chosen)
    raise typer.Exit(collected.exit_code)
