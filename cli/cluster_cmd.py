"""Live-cluster commands: ``wmap get`` (inspect workloads read from the API server) and
``wmap cluster nodes|pods`` (dump a NodeList/PodList for ``wmap topology show``).

These are plain typer-annotated functions; the main app registers them. Only GET requests are
sent to the cluster.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from workloadmap.documents import Document
from workloadmap.errors import WorkloadMapError
from workloadmap.interpreter import inspect_documents
from workloadmap.resources import DEFAULT_GPU_RESOURCES
from workloadmap.tree import WorkloadTree

from . import output
from .options import catalog_option, load_catalog
from .output import DumpFormat, ViewFormat
from .render import render_inspect_table, render_tree






def _kubeconfig_option() -> Optional[Path]:
    return typer.Option(None, "--kubeconfig", help="Path to the kubeconfig file (only that file is read).")


def _context_option() -> Optional[str]:
    return typer.Option(None, "--context", help="The kubeconfig context to use.")


def _client(kubeconfig: Optional[Path], context: Optional[str]):
    from workloadmap.cluster import ClusterClient

    return ClusterClient(kubeconfig=kubeconfig, context=context)


def _fail(error: WorkloadMapError) -> typer.Exit:
    output.error(str(error))
    return typer.Exit(error.exit_code)


def get_command(
    ref: str = typer.Argument(
        ...,
        help="TYPE/NAME, or TYPE alone to inspect every object of that type: jobset/train, "
        "jobsets.jobset.x-k8s.io/train, JobSet.v1alpha2.jobset.x-k8s.io/train, jobsets.",
    ),
    name: Optional[str] = typer.Argument(None, help="NAME, when the first argument is TYPE (kubectl get TYPE NAME)."),
    namespace: Optional[str] = typer.Option(None, "-n", "--namespace", help="Namespace (default: the context's)."),
    all_namespaces: bool = typer.Option(False, "-A", "--all-namespaces", help="List across all namespaces."),
    kubeconfig: Optional[Path] = _kubeconfig_option(),
    context: Optional[str] = _context_option(),
    output_format: ViewFormat = typer.Option(ViewFormat.tree, "-o", "--output", help="tree, table, json or yaml."),
    catalog: Optional[List[Path]] = catalog_option(),
    gpu_resource: Optional[List[str]] = typer.Option(
        None, "--gpu-resource", help="Resource name counted as a GPU (repeatable; default nvidia.com/gpu, amd.com/gpu)."
    ),
) -> None:
    """Read workloads from the cluster (read-only) and expand them like `wmap inspect`."""
    from workloadmap.cluster import ClusterRelatedObjects, parse_resource_ref

    try:
        type_token, object_name = parse_resource_ref(ref)
    except WorkloadMapError as error:
        raise typer.BadParameter(str(error), param_hint="TYPE/NAME") from None
    if name is not None:
        if object_name is not None:
            raise typer.BadParameter("give the name once: TYPE/NAME or TYPE NAME", param_hint="NAME")
        object_name = name
    if object_name is not None and all_namespaces:
        raise typer.BadParameter("a resource cannot be retrieved by name across all namespaces", param_hint="-A")
    try:
        loaded_catalog = load_catalog(catalog)
        with _client(kubeconfig, context) as client:
            if object_name is not None:
                objects = [client.get(f"{type_token}/{object_name}", namespace)]
            else:
                objects = client.list(type_token, namespace, all_namespaces=all_namespaces)
            if not objects:
                scope = "" if all_namespaces else f" in {namespace or client.default_namespace} namespace"
                output.warn(f"No resources found{scope}.")
                raise typer.Exit(0)
            source = f"cluster (context {client.context})"
            documents = [Document(body=obj, file=source, index=index) for index, obj in enumerate(objects, 1)]
            gpu_resources = tuple(gpu_resource) if gpu_resource else DEFAULT_GPU_RESOURCES
            results = list(
                inspect_documents(
                    documents, catalog=loaded_catalog, gpu_resources=gpu_resources, related=ClusterRelatedObjects(client)
                )
            )
    except WorkloadMapError as error:
        raise _fail(error) from None
    trees: list[WorkloadTree] = []
    codes: list[int] = []
    for result in results:
        if result.skipped:
            output.warn(f"note: {result.skipped}")
        elif result.error is not None:
            output.error(str(result.error))
            codes.append(result.error.exit_code)
        elif result.tree is not None:
            for warning in result.tree.warnings:
                output.warn(f"warning: {result.tree.workload.kind}/{result.tree.workload.name}: {warning}")
            trees.append(result.tree)
    if trees:
        if output_format in (ViewFormat.json, ViewFormat.yaml):
            output.write(output.dump(output.as_list([tree.to_dict() for tree in trees]), output_format.value))
        elif output_format == ViewFormat.table:
            output.write(render_inspect_table(trees))
        else:
            output.write("\n".join(render_tree(tree) for tree in trees))
    raise typer.Exit(1 if 1 in codes else max(codes, default=0))


def nodes_command(
    kubeconfig: Optional[Path] = _kubeconfig_option(),
    context: Optional[str] = _context_option(),
    selector: Optional[str] = typer.Option(None, "-l", "--selector", help="Label selector, e.g. nvidia.com/gpu.present=true."),
    output_format: DumpFormat = typer.Option(DumpFormat.yaml, "-o", "--output", help="yaml or json."),
) -> None:
    """Print the cluster's nodes as a NodeList (`wmap cluster nodes > nodes.yaml`, then `wmap topology show nodes.yaml`)."""
    try:
        with _client(kubeconfig, context) as client:
            node_list = client.nodes(label_selector=selector)
    except WorkloadMapError as error:
        raise _fail(error) from None
    output.write(output.dump(node_list, output_format.value))


def pods_command(
    kubeconfig: Optional[Path] = _kubeconfig_option(),
    context: Optional[str] = _context_option(),
    output_format: DumpFormat = typer.Option(DumpFormat.yaml, "-o", "--output", help="yaml or json."),
) -> None:
    """Print the unfinished pods of every namespace as a PodList (input for `--pods` of the topology commands)."""
    try:
        with _client(kubeconfig, context) as client:
            pod_list = client.pods()
    except WorkloadMapError as error:
        raise _fail(error) from None
    output.write(output.dump(pod_list, output_format.value))
