"""``wmap place``: where each gang of a workload fits in a cluster, and scheduler exports."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import typer

from workloadmap.errors import WorkloadMapError
from workloadmap.exporters import EXPORT_TARGETS, export
from workloadmap.catalog import Catalog
from workloadmap.interpreter import RelatedObjects, inspect_file
from workloadmap.placement import GroupPlacement, PlacementReport, place as place_workload, rank_clusters
from workloadmap.topology import Cluster
from workloadmap.simulation import DEFAULT_PRESET
from workloadmap.topology_sources import load_cluster
from workloadmap.tree import WorkloadTree

from . import output
from .options import catalog_option, load_catalog, parse_levels, worst_exit_code
from .output import ViewFormat

EXIT_UNFIT = 3




def _short(level: Optional[str]) -> str:
    return "cluster" if level is None else level


def _group_label(group: GroupPlacement) -> str:
    status = "fits" if group.fits else "DOES NOT FIT"
    parts = [f"{group.name} ({group.pods} pods, min {group.min_member}{'' if group.gang else ', no gang'}): {status}"]
    if group.required_level:
        parts.append(f"required {group.required_level} ({group.required_source})")
    fit_levels = {fit.level: fit for fit in group.levels}
    preferred = group.preferred_level
    if preferred in fit_levels:
        fit = fit_levels[preferred]
        parts.append(f"preferred {preferred} ({fit.fitting} of {fit.domains} domains)")
    else:
        parts.append("preferred: whole cluster")
    if group.candidates:
        parts.append("candidates " + " ".join(group.candidates[:5]) + (" ..." if len(group.candidates) > 5 else ""))
    if group.reason:
        parts.append(group.reason)
    if group.approximate:
        parts.append("(search budget exhausted: fit assumed)")
    return "; ".join(parts)


def _render_tree(report: PlacementReport) -> str:
    workload = report.workload
    head = (
        f"{workload['kind']}/{workload['name']} on {report.topology['name']}: "
        f"{'fits' if report.fits else 'DOES NOT FIT'}"
    )
    if report.reason:
        head += f" ({report.reason})"
    lines = [head]
    for group in report.pod_groups:
        # SubGroups hang under their parent SubGroup, as KAI nests them.
        children: dict[str | None, list[GroupPlacement]] = {}
        for sub in group.sub_groups:
            children.setdefault(sub.parent, []).append(sub)
        lines.extend(
            output.tree_lines(
                [group],
                _group_label,
                lambda node, root=group, children=children: children.get(None if node is root else node.name, []),
            )
        )
    for fit in report.slices:
        where = "fits nowhere" if not fit.fits else f"preferred {_short(fit.preferred_level)}"
        if fit.required_level:
            where += f"; required {_short(fit.required_level)} ({fit.required_source})"
        lines.append(f"slices: {fit.count} x {fit.component} of {fit.size} pods each: {where}")
    return "\n".join(lines) + "\n"


def _table_rows(report: PlacementReport) -> list[list[Any]]:
    rows = []
    workload = f"{report.workload['kind']}/{report.workload['name']}"
    for group in report.pod_groups:
        for entry, name in [(group, group.name)] + [(sub, f"{group.name}/{sub.name}") for sub in group.sub_groups]:
            rows.append(
                [
                    workload,
                    report.topology["name"],
                    name,
                    entry.pods,
                    entry.min_member,
                    "yes" if entry.fits else "no",
                    entry.required_level,
                    _short(entry.preferred_level),
                    ",".join(entry.candidates[:3]),
                    entry.reason,
                ]
            )
    return rows


_HEADERS = ["WORKLOAD", "CLUSTER", "GROUP", "PODS", "MIN", "FITS", "REQUIRED", "PREFERRED", "CANDIDATES", "REASON"]


def _load_workloads(sources: List[str], catalog: Catalog, related: RelatedObjects) -> tuple[list[tuple[WorkloadTree, Any]], int]:
    found: list[tuple[WorkloadTree, Any]] = []
    codes: list[int] = []
    for source in sources:
        for result in inspect_file(source, catalog=catalog, related=related):
            if result.skipped:
                output.warn(f"note: {result.skipped}")
            elif result.error is not None:
                output.error(str(result.error))
                codes.append(result.error.exit_code)
            elif result.tree is not None:
                body = result.document.body if result.document is not None else None
                found.append((result.tree, body))
    return found, worst_exit_code(codes)


def place(
    workload: List[str] = typer.Argument(..., help="Workload FILE, DIR or - (standard input)."),
    topology: Optional[List[str]] = typer.Option(
        None,
        "-t",
        "--topology",
        help="Cluster SOURCE: NodeList, Slurm topology.conf/.yaml, Topograph model or preset:NAME. "
        f"Repeat to rank several clusters. Default: the built-in example preset:{DEFAULT_PRESET}.",
    ),
    pods: Optional[Path] = typer.Option(None, "--pods", help="Pod/PodList file; running pods use node capacity."),
    levels: Optional[str] = typer.Option(None, "--levels", help="Comma-separated node-label keys, widest first."),
    topology_object: Optional[Path] = typer.Option(
        None, "--topology-object", help="KAI or Kueue Topology object whose levels to use."
    ),
    gpus_per_node: Optional[int] = typer.Option(None, "--gpus-per-node", help="Node GPUs (Slurm files and models)."),
    cpus_per_node: Optional[str] = typer.Option(None, "--cpus-per-node", help="Node cpu (Slurm files and models)."),
    memory_per_node: Optional[str] = typer.Option(None, "--memory-per-node", help="Node memory (Slurm files and models)."),
    required: Optional[str] = typer.Option(
        None, "--required", help="Level every PodGroup must fit in (label key or its tail, e.g. rack)."
    ),
    preferred: Optional[str] = typer.Option(None, "--preferred", help="Preferred level to report and export."),
    output_format: ViewFormat = typer.Option(ViewFormat.tree, "-o", "--output", help="tree, table, json or yaml."),
    emit: Optional[List[str]] = typer.Option(
        None,
        "--emit",
        help=f"Print scheduler objects instead of the report: {', '.join(EXPORT_TARGETS)} (repeatable).",
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
    related: Optional[List[str]] = typer.Option(
        None, "--related", "--runtimes", help="FILE or DIR of objects workloads reference (e.g. TrainJob runtimes)."
    ),
) -> None:
    """Show where each gang of the workload fits (per topology level), or emit scheduler objects."""
    targets = list(emit or [])
    for target in targets:
        if target not in EXPORT_TARGETS:
            raise typer.BadParameter(f"{target!r} is not one of {', '.join(EXPORT_TARGETS)}", param_hint="--emit")
    level_list = parse_levels(levels)
    try:
        sources = list(topology or [f"preset:{DEFAULT_PRESET}"])
        if not topology:
            output.warn(f"note: no --topology given; placing on the built-in example cluster preset:{DEFAULT_PRESET}")
        capacity = {
            name: value
            for name, value in (
                ("gpus_per_node", gpus_per_node),
                ("cpus_per_node", cpus_per_node),
                ("memory_per_node", memory_per_node),
            )
            if value is not None
        }
        clusters: list[Cluster] = [
            load_cluster(source, levels=level_list, pods_file=pods, topology_object=topology_object, **capacity)
            for source in sources
        ]
        related_objects = RelatedObjects.from_paths(related or [])
        workloads, code = _load_workloads(workload, load_catalog(catalog_dirs), related_objects)
        options = {"required": required, "preferred": preferred, "auto": not no_auto}
        reports: list[tuple[WorkloadTree, Any, PlacementReport, Cluster]] = []
        rankings = []
        for tree, body in workloads:
            if len(clusters) == 1:
                reports.append((tree, body, place_workload(tree, clusters[0], **options), clusters[0]))
                continue
            ranking = rank_clusters(tree, clusters, **options)
            rankings.append(ranking)
            if ranking.ranked:
                best = ranking.ranked[0]
                cluster = next(cluster for cluster in clusters if cluster.name == best.cluster)
                reports.append((tree, body, best.report, cluster))
            else:
                for entry in ranking.unfit:
                    output.warn(f"note: {tree.workload.kind}/{tree.workload.name} does not fit {entry['cluster']}: "
                                f"{entry['reason']}")
        if targets:
            objects: list[dict] = []
            for tree, body, report, cluster in reports:
                for target in targets:
                    objects.extend(
                        export(target, tree, report, cluster=cluster, obj=body, topology=topology_name, queue=queue)
                    )
            _write_objects(_unique(objects), output_format)
        elif rankings:
            _write_rankings(rankings, output_format)
        else:
            _write_reports([report for _, _, report, _ in reports], output_format)
    except WorkloadMapError as error:
        output.error(str(error))
        raise typer.Exit(error.exit_code) from None
    unfit = any(not report.fits for _, _, report, _ in reports) or any(not ranking.ranked for ranking in rankings)
    if code:
        raise typer.Exit(code)
    if fail_unfit and unfit:
        raise typer.Exit(EXIT_UNFIT)


def _unique(objects: list[dict]) -> list[dict]:
    """Drop repeated cluster-scoped objects (the same Topology emitted for several workloads)."""
    seen: set[tuple] = set()
    kept = []
    for obj in objects:
        metadata = obj.get("metadata") or {}
        key = (obj.get("apiVersion"), obj.get("kind"), metadata.get("namespace"), metadata.get("name"))
        if key in seen and obj.get("kind") in ("Topology", "HyperNode"):
            continue
        seen.add(key)
        kept.append(obj)
    return kept


def _write_objects(objects: list[dict], output_format: ViewFormat) -> None:
    if output_format is ViewFormat.json:
        output.write(output.dump(output.as_list(objects), "json"))
        return
    import yaml

    output.write(yaml.safe_dump_all(objects, sort_keys=False, default_flow_style=False))


def _write_reports(reports: list[PlacementReport], output_format: ViewFormat) -> None:
    if not reports:
        return
    if output_format in (ViewFormat.json, ViewFormat.yaml):
        output.write(output.dump(output.as_list([report.to_dict() for report in reports]), output_format.value))
    elif output_format is ViewFormat.table:
        rows = [row for report in reports for row in _table_rows(report)]
        output.write(output.table(_HEADERS, rows, free_text_last=True))
    else:
        output.write("\n".join(_render_tree(report) for report in reports))


def _write_rankings(rankings: list, output_format: ViewFormat) -> None:
    if output_format in (ViewFormat.json, ViewFormat.yaml):
        output.write(output.dump(output.as_list([ranking.to_dict() for ranking in rankings]), output_format.value))
        return
    if output_format is ViewFormat.table:
        rows = []
        for ranking in rankings:
            workload = f"{ranking.workload['kind']}/{ranking.workload['name']}"
            for rank, fit in enumerate(ranking.ranked, start=1):
                rows.append([workload, rank, fit.cluster, _short(fit.preferred_level), fit.leftover_gpus, None])
            for entry in ranking.unfit:
                rows.append([workload, None, entry["cluster"], None, None, entry["reason"]])
        output.write(output.table(["WORKLOAD", "RANK", "CLUSTER", "PREFERRED", "LEFTOVER-GPUS", "REASON"], rows, free_text_last=True))
        return
    blocks = []
    for ranking in rankings:
        lines = [f"{ranking.workload['kind']}/{ranking.workload['name']}:"]
        for rank, fit in enumerate(ranking.ranked, start=1):
            lines.append(
                f"  {rank}. {fit.cluster}: preferred {_short(fit.preferred_level)}, {fit.leftover_gpus} GPUs left over"
            )
        for entry in ranking.unfit:
            lines.append(f"  -  {entry['cluster']}: does not fit ({entry['reason']})")
        if ranking.ranked:
            lines.append("")
            lines.append(_render_tree(ranking.ranked[0].report).rstrip("\n"))
        blocks.append("\n".join(lines))
    output.write("\n\n".join(blocks) + "\n")
