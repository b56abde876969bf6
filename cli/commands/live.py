"""Live-cluster helpers and ``wmap cluster nodes|pods`` (GET requests only).

``wmap cluster nodes|pods`` dumps a NodeList/PodList for ``wmap topology show`` and ``wmap
place``; ``wmap get`` and ``wmap describe`` (their own modules) share the client and reference
helpers here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from workloadmap.catalog import Catalog
from workloadmap.errors import WorkloadMapError

from ..printing import output
from ..printing.views import Views, dump
from .common import context_option, kubeconfig_option

LISTS = Views({"yaml": dump(), "json": dump()})
"""The views of ``cluster nodes`` and ``cluster pods``, on the NodeList or PodList as the server sends it."""


def client_for(kubeconfig: Optional[Path], context: Optional[str]) -> Any:
    """A read-only client (the kubernetes package loads here, on live paths only)."""
    from workloadmap.kube import ClusterClient

    return ClusterClient(kubeconfig=kubeconfig, context=context)


def reference(ref: str, name: Optional[str], all_namespaces: bool) -> tuple[str, Optional[str]]:
    """TYPE/NAME, TYPE NAME or TYPE as ``(type, name)``; misuse is a usage error (exit 2)."""
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


def add_cluster_kartas(catalog: Catalog, client: Any) -> None:
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
        None, "-l", "--selector", metavar="SELECTOR", help="Label selector, e.g. nvidia.com/gpu.present=true."
    ),
    output_format: str = LISTS.option("cluster nodes"),
) -> None:
    """Print the cluster's nodes as a NodeList (then `wmap topology show nodes.yaml`)."""
    with client_for(kubeconfig, context) as client:
        node_list = client.nodes(label_selector=selector)
    LISTS.write(LISTS.parse(output_format), node_list)


def pods(
    kubeconfig: Optional[Path] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    output_format: str = LISTS.option("cluster pods"),
) -> None:
    """Print the unfinished pods of every namespace as a PodList (input for `--pods` of the topology commands)."""
    with client_for(kubeconfig, context) as client:
        pod_list = client.pods()
    LISTS.write(LISTS.parse(output_format), pod_list)
