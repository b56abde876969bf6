"""``wmap place``: where each gang of a workload fits in a cluster, and scheduler exports."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import typer
import yaml

from workloadmap.exporters import export, export_targets
from workloadmap.interpreter import ObjectIndex, inspect_file
from workloadmap.placement import ClusterRanking, Placement, PlacementReport, place_on
from workloadmap.topology import DEFAULT_PRESET, Cluster, load_cluster

from . import output
from .common import (
    Collected,
    catalog_option,
    gpu_resource_option,
    gpu_resources,
    load_catalog,
    parse_levels,
    related_option,
)
from .output import ViewFormat
from .render import render_placement, render_placement_table, render_rankings, render_rankings_table

EXIT_UNFIT = 3
EMIT_HELP = f"Print scheduler objects instead of the report: {', '.join(export_targets())} (repeatable)."

TOPOLOGY_HELP = (
    "Cluster SOURCE: NodeList, Slurm topology.conf/.yaml, Topograph model, preset:NAME or cluster:[CONTEXT]. "
    f"Repeat to rank several clusters. Default: the built-in example preset:{DEFAULT_PRESET}."
)


def _clusters(
    sources: list[str], levels: Optional[str], pods: Optional[Path], topology_object: Optional[Path], **capacity: Any
) -> list[Cluster]:
    level_list = parse_levels(levels)
    given = {name: value for name, value in capacity.items() if value is not None}
    return [
        load_cluster(source, levels=level_list, pods_file=pods, topology_object=topology_object, **given)
        for source in sources
    ]


def _unique(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop repeated cluster-scoped objects (the same Topology emitted for several workloads)."""
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for obj in objects:
        metadata = obj.get("metadata") or {}
        key = (obj.get("apiVersion"), obj.get("kind"), metadata.get("namespace"), metadata.get("name"))
        if key in seen and obj.get("kind") in ("Topology", "HyperNode"):
            continue
        seen.add(key)
        kept.append(obj)
    return kept


def _write_objects(objects: list[dict[str, Any]], output_format: ViewFormat) -> None:
    if output_format is ViewFormat.json:
        output.write(output.dump(output.as_list(objects), "json"))
        return
    output.write(yaml.safe_dump_all(objects, sort_keys=False, default_flow_style=False))


def _write_reports(reports: list[PlacementReport], output_format: ViewFormat) -> None:
    if not reports:
        return
    if output_format in (ViewFormat.json, ViewFormat.yaml):
        output.write(output.dump(output.as_list([report.to_dict() for report in reports]), output_format.value))
    elif output_format is ViewFormat.table:
        output.write(render_placement_table(reports))
    else:
        output.write("\n".join(render_placement(report) for report in reports))


def _write_rankings(rankings: list[ClusterRanking], output_format: ViewFormat) -> None:
    if output_format in (ViewFormat.json, ViewFormat.yaml):
        output.write(output.dump(output.as_list([ranking.to_dict() for ranking in rankings]), output_format.value))
    elif output_format is ViewFormat.table:
        output.write(render_rankings_table(rankings))
    else:
        output.write(render_rankings(rankings))


def place(
    workload: List[str] = typer.Argument(..., help="Workload FILE, DIR or - (standard input)."),
    topology: Optional[List[str]] = typer.Option(None, "-t", "--topology", help=TOPOLOGY_HELP),
    pods: Optional[Path] = typer.Option(None, "--pods", help="Pod/PodList file; running pods use node capacity."),
    levels: Optional[str] = typer.Option(None, "--levels", help="Comma-separated node-label keys, widest first."),
    topology_object: Optional[Path] = typer.Option(
        None, "--topology-object", help="KAI or Kueue Topology object whose levels to use."
    ),
    gpus_per_node: Optional[int] = typer.Option(None, "--gpus-per-node", help="Node GPUs (Slurm files and models)."),
    cpus_per_node: Optional[str] = typer.Option(None, "--cpus-per-node", help="Node cpu (Slurm files and models)."),
    memory_per_node: Optional[str] = typer.Option(
        None, "--memory-per-node", help="Node memory (Slurm files and models)."
    ),
    required: Optional[str] = typer.Option(
        None, "--required", help="Level every PodGroup must fit in (label key or its tail, e.g. rack)."
    ),
    preferred: Optional[str] = typer.Option(None, "--preferred", help="Preferred level to report and export."),
    output_format: ViewFormat = typer.Option(ViewFormat.tree, "-o", "--output", help="tree, table, json or yaml."),
    emit: Optional[List[str]] = typer.Option(
        None,
        "--emit",
        help=EMIT_HELP,
    ),
    topology_name: Optional[str] = typer.Option(
        None, "--topology-name", help="Name of the emitted Topology objects (default: from the cluster name)."
    ),
    queue: Optional[str] = typer.Option(None, "--queue", help="Queue for emitted KAI/Volcano PodGroups."),
    no_auto: bool = typer.Option(
        False, "--no-auto", help="Do not require an accelerator (NVLink) domain for SubGroups that fit one."
    ),
    fail_unfit: bool = typer.Option(False, "--fail-unfit", help="Exit 3 when some gang does not fit."),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    related: Optional[List[str]] = related_option(),
    gpu_resource: Optional[List[str]] = gpu_resource_option(),
) -> None:
    """Show where each gang of the workload fits (per topology level), or emit scheduler objects."""
    targets = list(emit or [])
    for target in targets:
        if target not in export_targets():
            raise typer.BadParameter(f"{target!r} is not one of {', '.join(export_targets())}", param_hint="--emit")
    sources = list(topology or [f"preset:{DEFAULT_PRESET}"])
    if not topology:
        output.warn(f"note: no --topology given; placing on the built-in example cluster preset:{DEFAULT_PRESET}")
    clusters = _clusters(
        sources, levels, pods, topology_object,
        gpus_per_node=gpus_per_node, cpus_per_node=cpus_per_node, memory_per_node=memory_per_node,
    )  # fmt: skip
    catalog = load_catalog(catalog_dirs)
    related_objects = ObjectIndex.from_paths(related or [])
    collected = Collected()
    for source in workload:
        collected.add(
            inspect_file(source, catalog=catalog, related=related_objects, gpu_resources=gpu_resources(gpu_resource))
        )
    options = {"required": required, "preferred": preferred, "auto": not no_auto}
    placed: list[tuple[Placement, Any]] = []
    for tree, body in collected.trees:
        placement = place_on(tree, clusters, **options)
        placed.append((placement, body))
        if placement.report is None and placement.ranking is not None:
            for unfit in placement.ranking.unfit:
                output.warn(f"note: {tree.workload} does not fit {unfit.cluster}: {unfit.reason}")
    reports = [placement.report for placement, _ in placed if placement.report is not None]
    rankings = [placement.ranking for placement, _ in placed if placement.ranking is not None]
    if targets:
        objects: list[dict[str, Any]] = []
        notes: list[str] = []
        for (placement, body), (tree, _) in zip(placed, collected.trees, strict=True):
            if placement.report is None:
                continue
            for target in targets:
                objects.extend(
                    export(
                        target,
                        tree,
                        placement.report,
                        cluster=placement.cluster,
                        obj=body,
                        topology=topology_name,
                        queue=queue,
                        notes=notes,
                    )  # fmt: skip
                )
        for note in dict.fromkeys(notes):
            output.warn(f"note: {note}")
        _write_objects(_unique(objects), output_format)
    elif rankings:
        _write_rankings(rankings, output_format)
    else:
        _write_reports(reports, output_format)
    if collected.exit_code:
        raise typer.Exit(collected.exit_code)
    if fail_unfit and not all(placement.fits for placement, _ in placed):
        raise typer.Exit(EXIT_UNFIT)
