"""Live-cluster commands, GET requests only.

``wmap get`` inspects workloads read from the API server; ``wmap cluster nodes|pods`` dumps a
NodeList/PodList for ``wmap topology show`` and ``wmap place``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import typer

from workloadmap.catalog import Catalog
from workloadmap.documents import Document
from workloadmap.errors import WorkloadMapError
from workloadmap.interpreter import inspect_documents

from . import output
from .common import (
    Collected,
    catalog_option,
    context_option,
    gpu_resource_option,
    gpu_resources,
    kubeconfig_option,
    load_catalog,
)
from .inspect_cmd import write_trees
from .output import DumpFormat, ViewFormat


def _client(kubeconfig: Optional[Path], context: Optional[str]) -> Any:
    from workloadmap.kube import ClusterClient  # the kubernetes client loads on live paths only

    return ClusterClient(kubeconfig=kubeconfig, context=context)


def _reference(ref: str, name: Optional[str], all_namespaces: bool) -> tuple[str, Optional[str]]:
    from workloadmap.kube import parse_resource_ref

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
    return type_token, object_name


def get(
    ref: str = typer.Argument(
        ...,
        help="TYPE/NAME, or TYPE alone to inspect every object of that type: jobset/train, "
        "jobsets.jobset.x-k8s.io/train, JobSet.v1alpha2.jobset.x-k8s.io/train, jobsets.",
    ),
    name: Optional[str] = typer.Argument(None, help="NAME, when the first argument is TYPE (kubectl get TYPE NAME)."),
    namespace: Optional[str] = typer.Option(None, "-n", "--namespace", help="Namespace (default: the context's)."),
    all_namespaces: bool = typer.Option(False, "-A", "--all-namespaces", help="List across all namespaces."),
    kubeconfig: Optional[Path] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    output_format: ViewFormat = typer.Option(ViewFormat.tree, "-o", "--output", help="tree, table, json or yaml."),
    catalog: Optional[List[Path]] = catalog_option(),
    gpu_resource: Optional[List[str]] = gpu_resource_option(),
) -> None:
    """Read workloads from the cluster (read-only) and expand them like `wmap inspect`."""
    from workloadmap.kube import ClusterObjects

    type_token, object_name = _reference(ref, name, all_namespaces)
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
        _add_cluster_kartas(loaded_catalog, client)
        source = f"cluster (context {client.context})"
        documents = [Document(body=obj, file=source, index=index) for index, obj in enumerate(objects, 1)]
        results = list(
            inspect_documents(
                documents,
                catalog=loaded_catalog,
                gpu_resources=gpu_resources(gpu_resource),
                related=ClusterObjects(client),
            )
        )
    collected = Collected().add(results)
    write_trees([tree for tree, _ in collected.trees], output_format)
    raise typer.Exit(collected.exit_code)


def _add_cluster_kartas(catalog: Catalog, client: Any) -> None:
    """The cluster's Karta definitions join the catalog (over built-ins, under --catalog files)."""
    from workloadmap.kube import cluster_kartas

    objects, notice = cluster_kartas(client)
    before = len(catalog.notices)
    catalog.add_cluster_kartas(objects, f"cluster (context {client.context})")
    for message in [notice] if notice else []:
        output.warn(f"notice: {message}")
    for message in catalog.notices[before:]:
        output.warn(f"notice: {message}")


def nodes(
    kubeconfig: Optional[Path] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    selector: Optional[str] = typer.Option(
        None, "-l", "--selector", help="Label selector, e.g. nvidia.com/gpu.present=true."
    ),
    output_format: DumpFormat = typer.Option(DumpFormat.yaml, "-o", "--output", help="yaml or json."),
) -> None:
    """Print the cluster's nodes as a NodeList (then `wmap topology show nodes.yaml`)."""
    with _client(kubeconfig, context) as client:
        node_list = client.nodes(label_selector=selector)
    output.write(output.dump(node_list, output_format.value))


def pods(
    kubeconfig: Optional[Path] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    output_format: DumpFormat = typer.Option(DumpFormat.yaml, "-o", "--output", help="yaml or json."),
) -> None:
    """Print the unfinished pods of every namespace as a PodList (input for `--pods` of the topology commands)."""
    with _client(kubeconfig, context) as client:
        pod_list = client.pods()
    output.write(output.dump(pod_list, output_format.value))
