"""``wmap serve``: the catalog as a running, read-only service beside a cluster (GET/LIST/WATCH only).

It watches every kind the catalog covers that the API server serves, plus Pods, Nodes, Events and
the cluster's Kartas, interprets each workload as ``wmap describe`` does whenever it or one of its
pods changes, and serves ``/metrics`` (Prometheus), the JSON API (``/api/v1``: the ``get`` and
``describe`` contracts; with ``--enable-api`` the POST endpoints ``inspect``, ``demand``,
``place``), ``/healthz``, ``/readyz`` and a page at ``/``. It listens on 127.0.0.1 unless
``--listen`` says otherwise (the Deployment in ``deploy/`` passes ``--listen 0.0.0.0:8080``).
``--print-rbac`` prints the ClusterRole it needs, generated from the catalog.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from pathlib import Path
from typing import Any, List, Optional

import typer

from workloadmap.catalog import Catalog
from workloadmap.errors import ClusterError, WorkloadMapError

from ..printing import output
from .common import (
    catalog_option,
    context_option,
    gpu_resource_option,
    gpu_resources,
    kubeconfig_option,
    load_catalog,
    parse_duration,
)
from .live import client_for

DEFAULT_LISTEN = "127.0.0.1:8080"


def _listen(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6) as ``(host, port)``; misuse exits 2."""
    host, colon, port_text = value.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not colon or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise typer.BadParameter(
            f"{value!r} is not HOST:PORT (e.g. 127.0.0.1:8080 or 0.0.0.0:8080)", param_hint="--listen"
        )
    return host, int(port_text)


def _duration(value: str, flag: str) -> float:
    try:
        return parse_duration(value)
    except typer.BadParameter as error:
        raise typer.BadParameter(error.message.replace("--timeout", flag), param_hint=flag) from None


def _shard(client: Any, shard: Optional[str], total: Optional[str]) -> Any:
    """``--shard N|auto`` and ``--total-shards M|auto`` as a Shard; ``auto`` reads the StatefulSet (GET only)."""
    from workloadmap.service import UNSHARDED, Shard, statefulset_ordinal

    if shard is None and total is None:
        return UNSHARDED
    pod_name = os.environ.get("POD_NAME") or socket.gethostname()
    if shard == "auto" or shard is None:
        index = statefulset_ordinal(pod_name)
    elif shard.isdigit():
        index = int(shard)
    else:
        raise typer.BadParameter(f"{shard!r} is not a shard number or auto", param_hint="--shard")
    if total is None:
        raise typer.BadParameter("give --total-shards with --shard (a number, or auto)", param_hint="--total-shards")
    if total == "auto":
        count = _statefulset_replicas(client, pod_name)
    elif total.isdigit() and int(total) >= 1:
        count = int(total)
    else:
        raise typer.BadParameter(f"{total!r} is not a number of shards or auto", param_hint="--total-shards")
    return Shard(index, count)


def _statefulset_replicas(client: Any, pod_name: str) -> int:
    """The replicas of the StatefulSet that owns this pod (``$POD_NAMESPACE``, else the context's namespace)."""
    namespace = os.environ.get("POD_NAMESPACE") or client.default_namespace
    pod = client.get(f"pods/{pod_name}", namespace)
    owner = next(
        (ref for ref in pod.get("metadata", {}).get("ownerReferences") or [] if ref.get("kind") == "StatefulSet"), None
    )
    if owner is None:
        raise ClusterError(f"pod {namespace}/{pod_name} is not a StatefulSet's: --total-shards auto needs one")
    statefulset = client.get(f"statefulsets.apps/{owner.get('name')}", namespace)
    replicas = (statefulset.get("spec") or {}).get("replicas")
    if not isinstance(replicas, int) or replicas < 1:
        raise ClusterError(f"statefulset {namespace}/{owner.get('name')} has no replica count to shard by")
    return replicas


def _print_rbac(catalog_dirs: Optional[List[Path]]) -> None:
    from workloadmap.budgets import reference_kinds
    from workloadmap.service import cluster_role

    catalog = load_catalog(catalog_dirs)
    output.write(output.dump(cluster_role(catalog, reference_kinds=sorted(reference_kinds())), "yaml"))


def serve(
    namespace: Optional[str] = typer.Option(
        None, "-n", "--namespace", metavar="NAMESPACE", help="Watch this namespace (default: the context's)."
    ),
    all_namespaces: bool = typer.Option(False, "-A", "--all-namespaces", help="Watch every namespace."),
    listen: str = typer.Option(
        DEFAULT_LISTEN, "--listen", metavar="HOST:PORT", help="Address to serve on (port 0: any free port)."
    ),
    resync: str = typer.Option(
        "5m", "--resync", metavar="DURATION", help="Ask discovery again and re-interpret everything this often."
    ),
    shard: Optional[str] = typer.Option(
        None, "--shard", metavar="N", help="This process's shard (0 to M-1), or auto (a StatefulSet pod's ordinal)."
    ),
    total_shards: Optional[str] = typer.Option(
        None, "--total-shards", metavar="M", help="Shards in all, or auto (the StatefulSet's replicas)."
    ),
    enable_api: bool = typer.Option(
        False, "--enable-api", help="Serve POST /api/v1/inspect, /demand and /place (they run untrusted input)."
    ),
    max_body: int = typer.Option(
        4 * 1024 * 1024, "--max-body", metavar="BYTES", min=1, help="Largest POST body accepted (default 4 MiB)."
    ),
    request_timeout: str = typer.Option(
        "10s", "--request-timeout", metavar="DURATION", help="Deadline of one API request."
    ),
    print_rbac: bool = typer.Option(
        False, "--print-rbac", help="Print the ClusterRole the service needs (from the catalog) and exit."
    ),
    timeout: Optional[str] = typer.Option(
        None, "--timeout", metavar="DURATION", help="Stop serving after this long (default: until stopped)."
    ),
    chunk_size: int = typer.Option(
        500, "--chunk-size", metavar="N", min=0, help="Objects per page of a list (0: no paging)."
    ),
    kubeconfig: Optional[Path] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    gpu_resource: Optional[List[str]] = gpu_resource_option(),
) -> None:
    """Serve metrics, the JSON API and a page for the live cluster's workloads (read-only)."""
    if print_rbac:
        _print_rbac(catalog_dirs)
        raise typer.Exit(0)
    address = _listen(listen)
    seconds = _duration(timeout, "--timeout") if timeout is not None else None
    resync_seconds = _duration(resync, "--resync")
    request_seconds = _duration(request_timeout, "--request-timeout")
    if namespace and all_namespaces:
        raise typer.BadParameter("give -n NAMESPACE or -A, not both", param_hint="-A")
    first = load_catalog(catalog_dirs)  # notices printed once; the service makes it again when Kartas change
    dirs = [str(directory) for directory in catalog_dirs or []]
    loaded = [first]

    def catalog_loader() -> Catalog:
        return loaded.pop() if loaded else Catalog.load(dirs)

    with client_for(kubeconfig, context) as client:
        _run(client, catalog_loader, address, seconds, {
            "namespace": None if all_namespaces else (namespace or client.default_namespace),
            "resync": resync_seconds, "shard": _shard(client, shard, total_shards), "chunk_size": chunk_size,
            "gpu_resources": gpu_resources(gpu_resource), "enable_api": enable_api, "max_body": max_body,
            "request_seconds": request_seconds,
        })  # fmt: skip


def _run(client: Any, catalog_loader: Any, address: tuple[str, int], seconds: Optional[float], options: dict) -> None:
    from workloadmap.service import Api, ApiOptions, Pages, Service, ServiceOptions, ServiceServer

    from ..render.serve_page import index_page, workload_page

    service = Service(
        client,
        catalog_loader,
        ServiceOptions(
            namespace=options["namespace"], gpu_resources=options["gpu_resources"], resync=options["resync"],
            shard=options["shard"], chunk_size=options["chunk_size"], freeze_after_sync=True,
        ),
    )  # fmt: skip
    from .get import json_item

    api = Api(service, ApiOptions(options["enable_api"], options["max_body"], options["request_seconds"],
                                  options["gpu_resources"]), json_item)  # fmt: skip
    try:
        server = ServiceServer(address, service, api, Pages(index_page, workload_page))
    except OSError as error:
        raise WorkloadMapError(f"cannot listen on {address[0]}:{address[1]}: {error.strerror or error}") from None
    scope = f"namespace {options['namespace']}" if options["namespace"] else "all namespaces"
    shard = options["shard"]
    output.warn(
        f"wmap serve: {server.url} (/metrics, /api/v1, /healthz, /readyz, /) — read-only; context {client.context}, "
        f"{scope}{'' if shard.total == 1 else f', {shard}'}{', POST API on' if options['enable_api'] else ''}"
    )
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    service.start()
    thread.start()
    ends = time.monotonic() + seconds if seconds is not None else None
    try:
        while not stop.wait(0.2):
            if service.failure is not None:
                raise service.failure
            if ends is not None and time.monotonic() >= ends:
                break
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.shutdown()
        server.server_close()
        service.stop()
    output.warn("wmap serve: stopped")
