"""``wmap place``: where each gang of a workload fits in a cluster, and scheduler exports."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, NamedTuple, Optional

import typer

from workloadmap.interpreter import ObjectIndex, inspect_file

from ..printing import output
from ..printing.deferred import deferred
from ..printing.escape import escaped
from ..printing.files import refuse_input_as_output
from ..printing.formats import Output
from ..printing.numbers import plural as _plural
from ..printing.terminal import progress
from ..printing.views import Text, View, Views, dump, human, stream, table, template
from ..render.placements import (
    render_joint_summary,
    render_placement,
    render_placement_table,
    render_rankings,
    render_rankings_table,
)
from .common import (
    Collected,
    catalog_option,
    default_preset,
    export_targets,
    gpu_device_class_option,
    gpu_resource_option,
    gpu_resources,
    load_catalog,
    located_error,
    no_headers_option,
    parse_levels,
    related_option,
    source_forms,
    stdin_once,
)
from .numa_options import NODE_TOPOLOGY, TM_POLICY, TM_POLICY_OPTIONS, TM_SCOPE, numa_load_options

if TYPE_CHECKING:  # heavy stages load inside the commands that use them
    from workloadmap.placement import (
        ClusterRanking,
        JointPlacement,
        Placement,
        PlacementReport,
        Verdict,
    )
    from workloadmap.topology import Cluster
    from workloadmap.tree import WorkloadTree

EXIT_UNFIT = 3
EXIT_UNKNOWN = 5
"""Exit code of ``--fail-unfit`` (and of a refused ``--emit``) when some gang's fit is unknown and none is unfit."""
_EXIT_CODES = {"DoesNotFit": EXIT_UNFIT, "Unknown": EXIT_UNKNOWN}  # by Verdict value: placement loads lazily
EMIT_HELP = deferred(
    lambda: f"Print scheduler objects instead of the report: {', '.join(export_targets())} (repeatable)."
)
POLICY_HELP = deferred(lambda: _policy_help())
TOPOLOGY_HELP = deferred(
    lambda: (
        f"The cluster SOURCE: {source_forms()}. Repeat to rank several clusters. "
        f"Default: the built-in example preset:{default_preset()} (`wmap topology presets` lists the others)."
    )
)


@dataclass(frozen=True)
class _Placed:
    """What the report views write: the reports, and the summary of workloads placed together."""

    reports: list[PlacementReport]
    joint: JointPlacement | None = None


def _and_joint(view: View) -> View:
    """``view`` of the reports, then the line that sums up the workloads placed together (human views)."""

    def write(chosen: Output, placed: _Placed) -> None:
        view(chosen, placed)
        if placed.joint is not None:
            output.human(render_joint_summary(escaped(placed.joint)))

    return write


def _reports(placed: _Placed) -> Any:
    return output.as_list([report.to_dict() for report in placed.reports])


def _report_trees(placed: _Placed) -> str:
    return "\n".join(render_placement(report) for report in escaped(placed.reports))


def _placement_table(*, wide: bool) -> Text:
    def render(chosen: Output, placed: _Placed) -> str:
        reports = escaped(placed.reports)
        return render_placement_table(reports, wide=wide, header=chosen.header)

    return Text(render, fit=False)


def _rankings(rankings: list[ClusterRanking]) -> Any:
    return output.as_list([ranking.to_dict() for ranking in rankings])


PLACEMENTS = Views(
    {
        "tree": _and_joint(human(_report_trees)),
        "table": _and_joint(_placement_table(wide=False)),
        "wide": _and_joint(_placement_table(wide=True)),
        "json": dump(_reports),
        "yaml": dump(_reports),
        "templates": template(_reports),
    }
)
"""The views of ``wmap place`` on one cluster (its ``-o`` values)."""
RANKINGS = Views(
    {
        "tree": human(lambda rankings: render_rankings(escaped(rankings))),
        "table": table(lambda rankings: render_rankings_table(escaped(rankings))),
        "wide": table(lambda rankings: render_rankings_table(escaped(rankings), wide=True)),
        "json": dump(_rankings),
        "yaml": dump(_rankings),
        "templates": template(_rankings),
    }
)
"""The same views of clusters ranked for each workload (several ``-t``); a test holds their names equal."""
EMITTED = Views({"yaml": stream(lambda objects: objects), "json": dump(output.as_list)})
"""The views of the scheduler objects ``--emit`` prints: Kubernetes objects, a YAML stream or a JSON List."""


def _clusters(
    sources: list[str], levels: Optional[str], pods: Optional[Path], topology_object: Optional[Path], **capacity: Any
) -> list[Cluster]:
    from workloadmap.topology import load_cluster

    level_list = parse_levels(levels)
    given = {name: value for name, value in capacity.items() if value is not None}
    clusters = []
    for source in sources:
        with progress(f"reading topology {source}"):
            cluster = load_cluster(source, levels=level_list, pods_file=pods, topology_object=topology_object, **given)
        for note in cluster.notes:
            output.warn(f"note: {cluster.name}: {note}")
        clusters.append(cluster)
    return clusters


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


def _policy_help() -> str:
    """``--policy``'s help: every policy of the library's table with how it chooses, and the default."""
    from workloadmap.placement import DEFAULT_POLICY, POLICIES

    names = [f"{name} ({policy.summary})" for name, policy in POLICIES.items()]
    listed = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else "".join(names)
    return f"Whose choice rule assigns the pods: {listed}. Default: {DEFAULT_POLICY}."


def _check_policy(value: str | None) -> str:
    from workloadmap.placement import DEFAULT_POLICY, POLICIES

    if value is None:
        return DEFAULT_POLICY
    if value not in POLICIES:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(POLICIES)}")
    return value


def _check_targets(values: Optional[List[str]]) -> Optional[List[str]]:
    targets = export_targets() if values else ()
    for target in values or []:
        if target not in targets:
            raise typer.BadParameter(f"{target!r} is not one of {', '.join(targets)}")
    return values


def _chosen(output_format: Optional[str], targets: list[str]) -> Output:
    """The -o view; with --emit one of the views of Kubernetes objects (yaml, the default, or json)."""
    if not targets:
        return PLACEMENTS.parse(output_format or PLACEMENTS.default)
    if output_format is not None and output_format not in EMITTED:
        accepted = " or ".join(f"-o {name}" for name in EMITTED.names)
        raise typer.BadParameter(
            f"--emit prints Kubernetes objects: use {accepted}, not {output_format!r}", param_hint="-o"
        )
    return EMITTED.parse(output_format or EMITTED.default)


def place(
    workload: List[str] = typer.Argument(..., metavar="FILE...", help="Workload FILE, DIR or - (standard input)."),
    topology: Optional[List[str]] = typer.Option(None, "-t", "--topology", metavar="SOURCE", help=TOPOLOGY_HELP),
    pods: Optional[Path] = typer.Option(
        None, "--pods", metavar="FILE", help="Pod/PodList file; running pods use node capacity."
    ),
    resource_slices: Optional[List[str]] = typer.Option(
        None,
        "--resource-slices",
        metavar="FILE",
        help="FILE or DIR of DRA ResourceSlices (with DeviceClasses and allocated ResourceClaims): each node's free "
        "devices (a -t NodeList file may carry them too); without them DRA requests are not checked (repeatable).",
    ),
    levels: Optional[str] = typer.Option(
        None, "--levels", metavar="KEY,KEY...", help="Comma-separated node-label keys, widest first."
    ),
    topology_object: Optional[Path] = typer.Option(
        None,
        "--topology-object",
        metavar="FILE",
        help="KAI or Kueue Topology (or Grove ClusterTopologyBinding) object whose levels and aliases to use.",
    ),
    gpus_per_node: Optional[int] = typer.Option(
        None, "--gpus-per-node", metavar="N", help="Node GPUs (Slurm files and models; default 8, with a note)."
    ),
    cpus_per_node: Optional[str] = typer.Option(
        None, "--cpus-per-node", metavar="CPU", help="Node cpu (Slurm files and models)."
    ),
    memory_per_node: Optional[str] = typer.Option(
        None, "--memory-per-node", metavar="MEMORY", help="Node memory, e.g. 1024Gi (Slurm files and models)."
    ),
    required: Optional[str] = typer.Option(
        None, "--required", metavar="LEVEL", help="Level every PodGroup must fit in (label key or its tail, e.g. rack)."
    ),
    preferred: Optional[str] = typer.Option(
        None, "--preferred", metavar="LEVEL", help="Preferred level to report and export."
    ),
    output_format: Optional[str] = PLACEMENTS.option(
        "place", f"Output format (default {PLACEMENTS.default}; with --emit {EMITTED.default})", optional=True
    ),
    emit: Optional[List[str]] = typer.Option(None, "--emit", metavar="TARGET", help=EMIT_HELP, callback=_check_targets),
    html: Optional[Path] = typer.Option(
        None, "--html", metavar="FILE", help="Also write the placement as a picture: self-contained HTML, no script."
    ),
    html_candidates: bool = typer.Option(
        False, "--html-candidates", help="In the --html picture, outline each gang's other candidate domains too."
    ),
    topology_name: Optional[str] = typer.Option(
        None, "--topology-name", metavar="NAME", help="Name of the emitted Topology objects (default: the cluster's)."
    ),
    queue: Optional[str] = typer.Option(
        None, "--queue", metavar="QUEUE", help="Queue for emitted KAI/Volcano PodGroups."
    ),
    api_version: Optional[str] = typer.Option(
        None,
        "--api-version",
        metavar="VERSION",
        help="Version of the emitted scheduling.k8s.io objects (--emit workload): v1beta1 (default), v1alpha3,"
        " v1alpha2 or v1alpha1.",
    ),
    no_auto: bool = typer.Option(
        False, "--no-auto", help="Do not require an accelerator (NVLink) domain for SubGroups that fit one."
    ),
    policy: str = typer.Option(
        None,
        "--policy",
        metavar="POLICY",
        callback=_check_policy,
        help=POLICY_HELP,
    ),
    balanced: bool = typer.Option(
        False, "--kueue-balanced", help="Kueue's balanced placement for preferred levels (TASBalancedPlacement)."
    ),
    each_alone: bool = typer.Option(
        False, "--each-alone", help="Place each workload on the empty cluster instead of one after another."
    ),
    fail_unfit: bool = typer.Option(
        False, "--fail-unfit", help="Exit 3 when some gang does not fit, else 5 when some gang's fit is unknown."
    ),
    allow_unfit: bool = typer.Option(
        False,
        "--allow-unfit",
        help="With --emit, print the objects even when some gang does not fit or its fit is unknown "
        "(a warning on stderr names each); without it --emit refuses (exit 3 or 5).",
    ),
    node_topology: Optional[Path] = NODE_TOPOLOGY,
    tm_policy: Optional[str] = TM_POLICY,
    tm_scope: Optional[str] = TM_SCOPE,
    tm_options: Optional[str] = TM_POLICY_OPTIONS,
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    related: Optional[List[str]] = related_option(),
    gpu_resource: Optional[List[str]] = gpu_resource_option(),
    gpu_device_class: Optional[List[str]] = gpu_device_class_option(),
    no_headers: bool = no_headers_option(),
) -> None:
    """Show where each gang of the workload fits (per topology level), or emit scheduler objects."""
    from workloadmap.placement import Verdict

    stdin_once(
        {"FILE": workload, "-t": topology, "--pods": pods, "--topology-object": topology_object,
         "--node-topology": node_topology, "--related": related}
    )  # fmt: skip
    targets = list(emit or [])
    chosen = replace(_chosen(output_format, targets), header=not no_headers)
    if html is not None:
        read = [pods, topology_object, node_topology, *(catalog_dirs or []), *(related or [])]
        refuse_input_as_output(html, [*workload, *(topology or []), *read], "--html")
    if not topology:
        output.warn(f"note: no --topology given; placing on the built-in example cluster preset:{default_preset()}")
    clusters = _clusters(
        list(topology or [f"preset:{default_preset()}"]), levels, pods, topology_object,
        gpus_per_node=gpus_per_node, cpus_per_node=cpus_per_node, memory_per_node=memory_per_node,
        resource_slices=resource_slices or None,
        **numa_load_options(node_topology, tm_policy, tm_scope, tm_options),
    )  # fmt: skip
    catalog = load_catalog(catalog_dirs)
    related_objects = ObjectIndex.from_paths(related or [])
    collected = Collected()
    for source in workload:
        collected.add(
            inspect_file(
                source,
                catalog=catalog,
                related=related_objects,
                gpu_resources=gpu_resources(gpu_resource, gpu_device_class),
            )
        )
    options: dict[str, Any] = {
        "required": required, "preferred": preferred, "auto": not no_auto, "policy": policy, "balanced": balanced,
    }  # fmt: skip
    with progress(f"placing {_plural(len(collected.trees), 'workload')} on {_plural(len(clusters), 'cluster')}"):
        joint, placed = _place_all(collected, clusters, options, together=not each_alone)
    verdict = Verdict.worst([placement.verdict for placement, _, _ in placed])
    if targets:
        _check_emit(placed, verdict, allow_unfit)
        exported = {"topology": topology_name, "queue": queue, "catalog": catalog, "api_version": api_version}
        EMITTED.write(chosen, _unique(_emit(placed, targets, collected, exported)))
    else:
        _report(placed, chosen, joint)
    if html is not None:
        from ..render.html import write_html_report  # drawing code loads only when a picture is asked for

        write_html_report(html, placed, clusters, candidates=html_candidates)
    if collected.exit_code:
        raise typer.Exit(collected.exit_code)
    if fail_unfit and verdict is not Verdict.FITS:
        raise typer.Exit(_EXIT_CODES[verdict.value])


def _not_fitting(placed: list[Placed]) -> list[str]:
    """``Kind/name group: verdict (reason)`` of every gang not known to fit."""
    from workloadmap.placement import Verdict

    found = []
    for placement, _, tree in placed:
        if placement.report is None:
            found.append(f"{tree.workload}: {placement.verdict.value} on every cluster")
            continue
        for group in placement.report.groups():
            if group.verdict is not Verdict.FITS and (group.parent is None or group.verdict is Verdict.UNKNOWN):
                found.append(f"{tree.workload} {group.name}: {group.verdict.value} ({group.reason or 'no reason'})")
    return found


def _emit(
    placed: list[Placed], targets: list[str], collected: Collected, exported: dict[str, Any]
) -> list[dict[str, Any]]:
    """The scheduler objects of every placed workload; one that fails is reported and left out."""
    from workloadmap.exporters import export

    objects: list[dict[str, Any]] = []
    notes: list[str] = []
    for placement, body, tree in placed:
        if placement.report is None:
            output.warn(f"warning: {tree.workload} fits none of the clusters: nothing emitted for it")
            continue
        if placement.ranking is not None:
            output.warn(f"note: {tree.workload}: emitted for cluster {placement.report.topology.name}, the best ranked")
        for target in targets:
            try:
                made = export(
                    target, tree, placement.report, cluster=placement.cluster, obj=body, notes=notes, **exported
                )
            except Exception as error:  # one workload's failure must not hide the others'
                located = located_error(error, file=tree.source)
                output.error(f"{tree.workload}: {located}")
                collected.codes.append(located.exit_code)
                continue
            objects.extend(made)
    for note in dict.fromkeys(notes):
        output.warn(f"note: {note}")
    return objects


def _check_emit(placed: list[Placed], verdict: Verdict, allow_unfit: bool) -> None:
    """Refuse to print scheduler objects for gangs that do not fit (or may not), unless told to."""
    from workloadmap.placement import Verdict

    if verdict is Verdict.FITS:
        return
    problems = _not_fitting(placed)
    if not allow_unfit:
        for problem in problems:
            output.error(problem)
        output.error(
            "refusing to --emit objects for gangs that do not fit or whose fit is unknown; "
            "pass --allow-unfit to print them anyway"
        )
        raise typer.Exit(_EXIT_CODES[verdict.value])
    for problem in problems:
        output.warn(f"WARNING: emitting objects for a gang that may never be scheduled: {problem}")


def _report(placed: list[Placed], chosen: Output, joint: JointPlacement | None) -> None:
    """The report views: clusters ranked when there were several, else the reports (none: nothing)."""
    rankings = [placement.ranking for placement, _, _ in placed if placement.ranking is not None]
    reports = [placement.report for placement, _, _ in placed if placement.report is not None]
    if rankings:
        RANKINGS.write(chosen, rankings)
    elif reports:
        PLACEMENTS.write(chosen, _Placed(reports, joint))


class Placed(NamedTuple):
    """A workload the library placed (or ranked), with the object it was read from (for ``--emit``)."""

    placement: Placement
    body: Any
    tree: WorkloadTree


def _place_all(
    collected: Collected, clusters: list[Cluster], options: dict[str, Any], *, together: bool
) -> tuple[JointPlacement | None, list[Placed]]:
    """Place every workload (the library's ``place_many``); say on stderr which failed and which fit no cluster.

    A workload whose request is invalid is reported (exit 1) and takes nothing; one that a ranking
    across clusters finds no room for gets a note per cluster.
    """
    from workloadmap.placement import FailedWorkload, place_many

    placements = place_many([tree for tree, _ in collected.trees], clusters, together=together, **options)
    placed = []
    for item, (tree, body) in zip(placements.workloads, collected.trees, strict=True):
        if isinstance(item, FailedWorkload):
            output.error(f"{tree.workload}: {item.error}")
            collected.codes.append(item.error.exit_code)
            continue
        ranking = item.placement.ranking
        if item.placement.report is None and ranking is not None:
            for unfit in ranking.unfit:
                output.warn(f"note: {tree.workload} does not fit {unfit.cluster}: {unfit.reason}")
        placed.append(Placed(item.placement, body, tree))
    return placements.joint, placed
