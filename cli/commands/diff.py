"""``wmap diff OLD NEW``: what changes between two versions of workloads (files, directories, ``-``, the cluster).

``wmap diff OLD NEW`` compares the workloads of two sources (each a FILE, DIR or ``-``); ``wmap diff
--live NEW`` compares each workload of NEW with the object of the same kind, namespace and name in
the cluster (GET only), as ``kubectl diff -f`` does. With ``-t SOURCE`` each version is placed alone
on that cluster and the verdicts compared. Exit 0, or with ``--exit-code`` 1 when something differs
(as ``git diff --exit-code`` and ``kubectl diff``); a bad input keeps its own code.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional

import typer

from workloadmap.documents import Document, load_objects
from workloadmap.errors import ClusterApiError
from workloadmap.interpreter import ObjectIndex, inspect_documents

from ..printing import output
from ..printing.deferred import deferred
from ..printing.escape import escaped
from ..printing.views import Views, dump, human, template
from ..render.diff import render_diff
from .common import (
    Collected,
    catalog_option,
    context_option,
    gpu_resource_option,
    gpu_resources,
    kubeconfig_option,
    load_catalog,
    parse_levels,
    related_option,
    source_forms,
)

if TYPE_CHECKING:  # the diff stage loads with the command
    from workloadmap.diff import DiffReport

TOPOLOGY_HELP = deferred(
    lambda: f"Also place each version alone on this cluster and say whether the verdict changes: {source_forms()}."
)


def _document(report: DiffReport) -> Any:
    return report.to_dict()


VIEWS = Views(
    {
        "tree": human(lambda report: render_diff(escaped(report))),
        "json": dump(_document),
        "yaml": dump(_document),
        "templates": template(_document),
    }
)
"""The views of ``wmap diff``, on the diff report."""


def _trees(source: str, options: dict[str, Any], collected: Collected) -> list[Any]:
    """The workload trees of one source (errors reported, the rest kept)."""
    start = len(collected.trees)
    documents = load_objects(source, recursive=options["recursive"])
    collected.add(
        inspect_documents(
            documents, catalog=options["catalog"], gpu_resources=options["gpu_resources"], related=options["related"]
        )
    )
    return [tree for tree, _ in collected.trees[start:]]


def _live_objects(
    bodies: list[Any], namespace: Optional[str], kubeconfig: Optional[Path], context: Optional[str]
) -> list[Any]:
    """The cluster's objects of the same kind, namespace and name as ``bodies`` (absent ones: added workloads).

    Both sides are read with the local catalog, so that a difference is the objects', never the definitions'.
    """
    from .live import client_for

    found = []
    with client_for(kubeconfig, context) as client:
        for body in bodies:
            group, _, version = str(body.get("apiVersion") or "").rpartition("/")
            metadata = body.get("metadata") or {}
            kind, name = body.get("kind"), metadata.get("name")
            if not kind or not name:
                continue  # a generateName object has no counterpart to read
            resource = f"{kind}.{version}.{group}" if group else kind
            try:
                found.append(client.get(f"{resource}/{name}", metadata.get("namespace") or namespace))
            except ClusterApiError as error:
                if error.status_code != 404:
                    raise
    return found


def diff_command(
    first: str = typer.Argument(..., metavar="OLD", help="The old version: FILE, DIR or - (with --live: the new one)."),
    second: Optional[str] = typer.Argument(None, metavar="NEW", help="The new version: FILE, DIR or -."),
    live: bool = typer.Option(
        False, "--live", help="Compare NEW with the cluster's objects of the same kind, namespace and name (GET only)."
    ),
    topology: Optional[str] = typer.Option(
        None,
        "-t",
        "--topology",
        metavar="SOURCE",
        help=TOPOLOGY_HELP,
    ),
    policy: str = typer.Option("kueue", "--policy", metavar="POLICY", help="With -t: kueue or kai."),
    levels: Optional[str] = typer.Option(
        None, "--levels", metavar="KEY,KEY...", help="With -t: comma-separated node-label keys, widest first."
    ),
    pods: Optional[Path] = typer.Option(
        None, "--pods", metavar="FILE", help="With -t: a Pod/PodList file whose running pods use node capacity."
    ),
    exit_code: bool = typer.Option(
        False, "--exit-code", help="Exit 1 when something differs, 0 when nothing does (as git diff --exit-code)."
    ),
    output_format: str = VIEWS.option("diff"),
    namespace: Optional[str] = typer.Option(
        None, "-n", "--namespace", metavar="NAMESPACE", help="With --live: the namespace of objects that name none."
    ),
    recursive: bool = typer.Option(False, "-R", "--recursive", help="Read directories recursively."),
    kubeconfig: Optional[Path] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    gpu_resource: Optional[List[str]] = gpu_resource_option(),
    related: Optional[List[str]] = related_option(),
) -> None:
    """Show what changes between two versions of workloads: pods, GPUs, resources, gangs, topology, placement."""
    from workloadmap.diff import diff_workloads
    from workloadmap.placement import POLICIES

    chosen = VIEWS.parse(output_format)
    sources = [first] + ([second] if second is not None else [])
    if len(sources) != (1 if live else 2):
        hint = "--live compares the cluster with NEW alone" if live else "give OLD and NEW"
        raise typer.BadParameter(hint, param_hint="OLD NEW")
    if sources.count("-") > 1:
        raise typer.BadParameter("standard input (-) can be only one of OLD and NEW", param_hint="OLD NEW")
    if policy not in POLICIES:
        raise typer.BadParameter(f"{policy!r} is not one of {', '.join(POLICIES)}", param_hint="--policy")
    catalog = load_catalog(catalog_dirs)
    options: dict[str, Any] = {
        "catalog": catalog,
        "gpu_resources": gpu_resources(gpu_resource),
        "related": ObjectIndex.from_paths(related or []),
        "recursive": recursive,
    }
    collected = Collected()
    if live:
        new = _trees(sources[0], options, collected)
        bodies = [body for _, body in collected.trees]
        objects = _live_objects(bodies, namespace, kubeconfig, context)
        documents = [Document(body=obj, file="cluster", index=index) for index, obj in enumerate(objects, 1)]
        start = len(collected.trees)
        collected.add(inspect_documents(documents, catalog=catalog, gpu_resources=options["gpu_resources"]))
        old = [tree for tree, _ in collected.trees[start:]]
    else:
        old = _trees(sources[0], options, collected)
        new = _trees(sources[1], options, collected)
    cluster = None
    if topology is not None:
        from workloadmap.topology import load_cluster

        cluster = load_cluster(topology, levels=parse_levels(levels), pods_file=pods)
        for note in cluster.notes:
            output.warn(f"note: {cluster.name}: {note}")
    report = diff_workloads(old, new, cluster=cluster, policy=policy)
    VIEWS.write(chosen, report)
    code = collected.exit_code
    raise typer.Exit(code if code else (1 if exit_code and report.changed else 0))
