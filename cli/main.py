"""The ``wmap`` (and ``kubectl-wmap``) command line.

Exit codes: 0 success; 1 invalid input or runtime error; 2 usage error; 3 placement does not fit
(only with ``--fail-unfit``); 4 no definition covers a kind. With several documents every one is
processed and the exit code reports the worst (1 before 4).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

from workloadmap import __version__
from workloadmap.catalog import load_definition
from workloadmap.definitions import Definition, definition_json_schema
from workloadmap.errors import WorkloadMapError
from workloadmap.interpreter import InspectResult, RelatedObjects, inspect_documents
from workloadmap.documents import load_objects
from workloadmap.resources import DEFAULT_GPU_RESOURCES
from workloadmap.tree import WorkloadTree

from . import output
from .options import catalog_option, load_catalog, worst_exit_code
from .output import TableFormat, ViewFormat
from .render import render_definition_table, render_inspect_table, render_tree

app = typer.Typer(
    name="wmap",
    help="Expand AI workload custom resources into pod/GPU trees, gangs and topology placement.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)
catalog_app = typer.Typer(help="List, show, validate and lint workload definitions.", no_args_is_help=True)
app.add_typer(catalog_app, name="catalog")


@app.command()
def inspect(
    files: Optional[List[str]] = typer.Argument(None, help="FILE, DIR or - (standard input)."),
    filename: Optional[List[str]] = typer.Option(None, "-f", "--filename", help="FILE, DIR or -; repeatable."),
    output_format: ViewFormat = typer.Option(ViewFormat.tree, "-o", "--output", help="tree, table, json or yaml."),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    recursive: bool = typer.Option(False, "-R", "--recursive", help="Read directories recursively."),
    gpu_resource: Optional[List[str]] = typer.Option(
        None, "--gpu-resource", help="Resource name counted as a GPU (repeatable; default nvidia.com/gpu, amd.com/gpu)."
    ),
    related: Optional[List[str]] = typer.Option(
        None,
        "--related",
        "--runtimes",
        help="FILE or DIR of objects workloads reference (e.g. TrainingRuntimes / ClusterTrainingRuntimes for "
        "TrainJobs); repeatable.",
    ),
) -> None:
    """Expand workloads from files into component trees with pod, GPU and gang totals."""
    sources = list(files or []) + list(filename or [])
    if not sources:
        raise typer.BadParameter("give at least one FILE, DIR or - (standard input)", param_hint="FILE")
    catalog = load_catalog(catalog_dirs)
    gpu_resources = tuple(gpu_resource) if gpu_resource else DEFAULT_GPU_RESOURCES
    trees: list[WorkloadTree] = []
    codes: list[int] = []
    related_objects = RelatedObjects.from_paths(related or [])
    for source in sources:
        documents = load_objects(source, recursive=recursive)
        results = inspect_documents(documents, catalog=catalog, gpu_resources=gpu_resources, related=related_objects)
        for result in results:
            codes.append(_report(result, trees))
    if not codes:
        output.warn(f"note: no Kubernetes objects found in {', '.join(sources)}")
    if trees:
        if output_format in (ViewFormat.json, ViewFormat.yaml):
            output.write(output.dump(output.as_list([tree.to_dict() for tree in trees]), output_format.value))
        elif output_format == ViewFormat.table:
            output.write(render_inspect_table(trees))
        else:
            output.write("\n".join(render_tree(tree) for tree in trees))
    raise typer.Exit(worst_exit_code(codes))


def _report(result: InspectResult, trees: list[WorkloadTree]) -> int:
    if result.skipped:
        output.warn(f"note: {result.skipped}")
        return 0
    if result.error is not None:
        output.error(str(result.error))
        return result.error.exit_code
    assert result.tree is not None
    for warning in result.tree.warnings:
        output.warn(f"warning: {result.tree.workload.kind}/{result.tree.workload.name}: {warning}")
    trees.append(result.tree)
    return 0


@catalog_app.command("list")
def catalog_list(
    output_format: TableFormat = typer.Option(TableFormat.table, "-o", "--output", help="table, json or yaml."),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
) -> None:
    """List the definitions: one per workload kind."""
    catalog = load_catalog(catalog_dirs)
    definitions = list(catalog)
    if output_format == TableFormat.table:
        output.write(render_definition_table(definitions))
        return
    items = [_definition_summary(definition) for definition in definitions]
    output.write(output.dump({"kind": "List", "apiVersion": "v1", "items": items}, output_format.value))


def _definition_summary(definition: Definition) -> dict:
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
    }


@catalog_app.command("show")
def catalog_show(
    name: str = typer.Argument(..., help="Definition name, kind, or kind.group."),
    output_format: str = typer.Option("yaml", "-o", "--output", help="yaml or json."),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
) -> None:
    """Print one definition."""
    if output_format not in ("yaml", "json"):
        raise typer.BadParameter("must be yaml or json", param_hint="-o")
    catalog = load_catalog(catalog_dirs)
    definition = catalog.get(name)
    if definition is None:
        output.error(f"no definition named {name!r}; see `wmap catalog list`")
        raise typer.Exit(4)
    data = definition.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    output.write(output.dump(data, output_format))


@catalog_app.command("validate")
def catalog_validate(files: List[Path] = typer.Argument(..., help="Definition files or directories to check.")) -> None:
    """Check definition files (or directories of them) against the schema and compile their expressions."""
    code = 0
    expanded: list[Path] = []
    for path in files:
        if path.is_dir():
            expanded.extend(sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file()))
        else:
            expanded.append(path)
    for path in expanded:
        try:
            definition = load_definition(path)
        except WorkloadMapError as error:
            output.error(str(error))
            code = 1
            continue
        output.write(f"{path}: valid definition {definition.name} for {definition.kind} ({definition.group or 'core'})\n")
    raise typer.Exit(code)


@catalog_app.command("schema")
def catalog_schema(output_format: str = typer.Option("json", "-o", "--output", help="json or yaml.")) -> None:
    """Print the JSON Schema of the definition format."""
    if output_format not in ("yaml", "json"):
        raise typer.BadParameter("must be yaml or json", param_hint="-o")
    output.write(output.dump(definition_json_schema(), output_format))


@app.command()
def version() -> None:
    """Print the wmap version."""
    output.write(f"wmap {__version__}\n")


from .cluster_cmd import get_command, nodes_command, pods_command  # noqa: E402
from .lint_cmd import lint  # noqa: E402
from .topology_cmd import app as topology_app  # noqa: E402

cluster_app = typer.Typer(help="Read-only live-cluster data: nodes and active pods for topology.", no_args_is_help=True)
cluster_app.command("nodes", help="Print the cluster's NodeList (feeds `wmap topology show` and `wmap place -t`).")(nodes_command)
cluster_app.command("pods", help="Print the active PodList (feeds --pods).")(pods_command)
app.add_typer(cluster_app, name="cluster")
app.command("get", help="Read workloads from a live cluster (read-only) and expand them like `wmap inspect`.")(get_command)
catalog_app.command("lint", help="Find definitions that validate but cannot be right (optionally against sample resources).")(lint)

app.add_typer(topology_app, name="topology", help="Read, show and generate cluster topologies.")

from .place_cmd import place  # noqa: E402

app.command(name="place", help="Which topology level each gang fits, and the scheduler objects that require it.")(place)


def run() -> None:
    """Console-script entry point: library errors become one-line messages, never tracebacks."""
    try:
        app(standalone_mode=True)
    except WorkloadMapError as error:
        output.error(str(error))
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # `wmap ... | head`: the reader went away; nothing more to say.
        sys.exit(0)
    except Exception as error:  # a bug: say so in one line unless asked for the traceback
        if os.environ.get("WMAP_DEBUG"):
            raise
        output.error(f"internal error: {type(error).__name__}: {error} (set WMAP_DEBUG=1 for a traceback)")
        sys.exit(1)
