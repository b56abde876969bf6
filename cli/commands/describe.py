"""``wmap describe``: a workload with its live pods, events and the placement audit (read-only).

From the cluster (``TYPE/NAME`` or ``TYPE NAME``), or from files: ``-f FILE|-`` alone gives the
tree and gangs; with ``--objects DUMP.yaml`` (``kubectl get pods,jobs,statefulsets,events -o
yaml`` of the namespace) and ``--nodes NODES.yaml`` the same attribution, events and audit run
offline.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional

import typer

from workloadmap.documents import load_objects
from workloadmap.errors import WorkloadMapError
from workloadmap.interpreter import ObjectIndex, inspect_documents

from ..printing import output
from ..printing.escape import escaped
from ..printing.views import Views, dump, human, template
from ..render.workloads import render_describe
from .common import (
    Collected,
    catalog_option,
    context_option,
    gpu_resource_option,
    gpu_resources,
    kubeconfig_option,
    load_catalog,
    located_error,
    related_option,
)

if TYPE_CHECKING:  # heavy stages load inside the commands that use them
    from workloadmap.live import DescribeReport, LiveObjects

DEFAULT_POD_LIMIT = 10
"""Pods shown per component in the tree view unless --pod-limit says otherwise."""


def _objects(path: Optional[str]) -> list[dict[str, Any]]:
    """Every object of a dump (``List`` items flattened); a document that does not parse is an error."""
    objects = []
    for document in load_objects(path) if path is not None else []:
        if isinstance(document, WorkloadMapError):
            raise document
        if isinstance(document.body, dict):
            objects.append(document.body)
    return objects


def _reports(reports: list[DescribeReport]) -> Any:
    """What ``-o json`` prints: the report, or a ``List`` of several."""
    return output.as_list([report.to_dict() for report in reports])


VIEWS = Views(
    {
        "tree": human(lambda reports: "\n".join(render_describe(report) for report in escaped(reports))),
        "json": dump(_reports),
        "yaml": dump(_reports),
        "templates": template(_reports),
    }
)
"""The views of ``wmap describe``, on the reports."""
LIMITED = ("tree",)
"""The views that show at most ``DEFAULT_POD_LIMIT`` pods per component unless ``--pod-limit`` says otherwise."""


def _from_files(
    files: list[str], objects: Optional[str], nodes: Optional[str], options: dict[str, Any]
) -> tuple[list[DescribeReport], int]:
    from workloadmap.live import describe, from_dumps

    live: LiveObjects | None = None
    if objects is not None:
        node_objects = None
        if nodes is not None:
            node_objects = [item for obj in _objects(nodes) for item in (obj.get("items") or [obj])]
        live = from_dumps(_objects(objects), node_objects)
    collected = Collected()
    for source in files:
        documents = load_objects(source)
        collected.add(
            inspect_documents(
                documents,
                catalog=options["catalog"],
                gpu_resources=options["gpu_resources"],
                related=options["related"],
            )
        )
    reports = []
    for tree, body in collected.trees:
        try:
            reports.append(describe(body, live, source=tree.source, **options))
        except Exception as error:  # inspect succeeded, so this is rare (a broken gang expression, a bug)
            located = located_error(error, file=tree.source)
            output.error(f"{tree.workload}: {located}")
            collected.codes.append(located.exit_code)
    return reports, collected.exit_code


def describe_command(
    ref: Optional[str] = typer.Argument(
        None, metavar="TYPE/NAME", help="TYPE/NAME (or TYPE NAME) of a workload in the cluster."
    ),
    name: Optional[str] = typer.Argument(None, metavar="NAME", help="NAME, when the first argument is TYPE."),
    filename: Optional[List[str]] = typer.Option(
        None, "-f", "--filename", metavar="FILE", help="FILE or - instead of the cluster."
    ),
    objects: Optional[str] = typer.Option(
        None,
        "--objects",
        metavar="DUMP",
        help="With -f: a `kubectl get -o yaml` dump of the namespace (pods, Jobs, StatefulSets ..., events).",
    ),
    nodes: Optional[str] = typer.Option(
        None, "--nodes", metavar="NODES", help="With --objects: a NodeList, for the placement audit."
    ),
    namespace: Optional[str] = typer.Option(
        None, "-n", "--namespace", metavar="NAMESPACE", help="Namespace (default: the context's)."
    ),
    pod_limit: Optional[int] = typer.Option(
        None,
        "--pod-limit",
        metavar="N",
        min=0,
        help="Pods shown per component, unhealthy first (tree default 10; 0 = all).",
    ),
    output_format: str = VIEWS.option("describe"),
    kubeconfig: Optional[Path] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    chunk_size: int = typer.Option(
        500, "--chunk-size", metavar="N", min=0, help="Objects per page of a list (0: no paging)."
    ),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    gpu_resource: Optional[List[str]] = gpu_resource_option(),
    related: Optional[List[str]] = related_option(),
) -> None:
    """Describe a workload: its components with their live pods, recent events, and where its gangs landed."""
    from workloadmap.live import describe, from_cluster

    chosen = VIEWS.parse(output_format)
    if (ref is None) == (not filename):
        raise typer.BadParameter("give TYPE/NAME or -f FILE (one of them)", param_hint="TYPE/NAME")
    if (objects or nodes) and not filename:
        raise typer.BadParameter("--objects and --nodes go with -f FILE", param_hint="--objects")
    if nodes and not objects:
        raise typer.BadParameter("--nodes goes with --objects", param_hint="--nodes")
    limit = pod_limit if pod_limit is not None else (DEFAULT_POD_LIMIT if chosen.kind in LIMITED else None)
    catalog = load_catalog(catalog_dirs)
    options: dict[str, Any] = {"catalog": catalog, "gpu_resources": gpu_resources(gpu_resource), "pod_limit": limit}
    if filename:
        options["related"] = ObjectIndex.from_paths(related or [])
        reports, code = _from_files(list(filename), objects, nodes, options)
        if reports:
            VIEWS.write(chosen, reports)
        raise typer.Exit(code)
    from .live import add_cluster_kartas, client_for, reference

    type_token, object_name = reference(ref or "", name, False)
    if object_name is None:
        raise typer.BadParameter("describe needs a name: TYPE/NAME or TYPE NAME", param_hint="TYPE/NAME")
    with client_for(kubeconfig, context) as client:
        from workloadmap.kube import ClusterObjects

        add_cluster_kartas(catalog, client)
        obj = client.get(f"{type_token}/{object_name}", namespace)
        scope = obj.get("metadata", {}).get("namespace")
        live = from_cluster(client, scope, chunk_size=chunk_size)
        source = f"cluster (context {client.context})"
        report = describe(obj, live, source=source, related=ClusterObjects(client), **options)
    VIEWS.write(chosen, [report])
