"""``wmap serve`` in the test process, against the stand-in API server, on 127.0.0.1 only.

:func:`running_service` starts a :class:`~workloadmap.service.Service` and its HTTP server on a
free loopback port (the pages drawn by the command line's renderer), and stops both after the
block. :func:`get` and :func:`post` talk to it with the standard library; :func:`wait_until` polls
a condition (the service coalesces changes, so tests wait for the state they expect, with a
deadline, never a fixed sleep).
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workloadmap.catalog import Catalog
from workloadmap.kube import ClusterClient
from workloadmap.service import Api, ApiOptions, Pages, Service, ServiceOptions, ServiceServer


@dataclass
class Running:
    """A started service: the service, its HTTP server and its base URL."""

    service: Service
    server: ServiceServer
    url: str


@contextmanager
def running_service(
    kubeconfig: Path | None,
    *,
    options: ServiceOptions | None = None,
    api: ApiOptions | None = None,
    catalog_dirs: tuple[str, ...] = (),
    ready: bool = True,
    read_seconds: float = 30.0,
) -> Iterator[Running]:
    """A service over the cluster ``kubeconfig`` points at, its server on 127.0.0.1:<free port>.

    With ``kubeconfig`` None the client finds its configuration as ``wmap serve`` does: the
    kubeconfig of ``$KUBECONFIG`` or ``~/.kube/config``, else, in a pod, the service account.
    """
    from workloadmap.cli.commands.get import json_item
    from workloadmap.cli.render.serve_page import index_page, workload_page

    client = ClusterClient(kubeconfig=kubeconfig)
    options = options or ServiceOptions(coalesce=0.05, max_delay=0.3)
    service = Service(client, lambda: Catalog.load(list(catalog_dirs), use_env=False), options)
    pages = Pages(index_page, workload_page)
    server = ServiceServer(
        ("127.0.0.1", 0), service, Api(service, api or ApiOptions(), json_item), pages, read_seconds=read_seconds
    )
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    service.start()
    thread.start()
    try:
        if ready:
            assert service.wait_ready(60), f"not ready: {service.snapshot.unsynced()}"
            wait_until(lambda: service.snapshot.audits_pending == 0, 60, "the placement audits")
        yield Running(service, server, server.url)
    finally:
        server.shutdown()
        server.server_close()
        service.stop()
        client.close()


def get(url: str, *, accept_error: bool = True) -> tuple[int, str, dict[str, str]]:
    """``GET url``: the status, the body as text, the headers."""
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read().decode(), dict(answer.headers)
    except urllib.error.HTTPError as error:
        if not accept_error:
            raise
        return error.code, error.read().decode(), dict(error.headers)


def get_json(url: str) -> tuple[int, Any]:
    """``GET url`` and its JSON body."""
    status, text, _ = get(url)
    return status, json.loads(text)


def post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """``POST url`` with ``body``: the status and the JSON answer."""
    request = urllib.request.Request(
        url, data=body, method="POST", headers=headers or {"Content-Type": "application/yaml"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def wait_until(condition: Callable[[], Any], seconds: float = 30.0, what: str = "the condition") -> Any:
    """Poll ``condition`` until it returns something truthy (returned), or fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    last: Any = None
    while time.monotonic() < deadline:
        last = condition()
        if last:
            return last
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds:g} s waiting for {what} (last: {last!r})")


def samples(text: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    """The samples of metric ``name`` in an exposition text, by their sorted labels (parsed by prometheus_client)."""
    from prometheus_client.parser import text_string_to_metric_families

    found: dict[tuple[tuple[str, str], ...], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                found[tuple(sorted(sample.labels.items()))] = sample.value
    return found


WORKLOADS = {
    "jobset/llm-train": ("jobset-leader-workers.yaml", "run_jobset"),
    "lws/vllm-multihost": ("leaderworkerset.yaml", "run_lws"),
    "raycluster/ray-mixed": ("raycluster.yaml", "run_raycluster"),
    "pytorchjob/elastic-train": ("pytorchjob-elastic.yaml", "run_pytorchjob"),
    "pcs/scaled": ("grove/podcliqueset-scaling-group.yaml", "run_podcliqueset"),
}
"""The workloads of :func:`operator_cluster`: ``type/name`` -> (fixture, the operator that makes its objects)."""


def operator_cluster(*, pending: int = 1, namespace: str = "ml") -> Any:
    """Every workload of :data:`WORKLOADS` in ``namespace`` as its operator makes it, on two NVL72 racks.

    The first ``pending`` pods of each workload stay unscheduled; the namespace also holds another
    workload's pod and a bare pod, and Events about the workloads and a pod.
    """
    import yaml

    from helpers import FIXTURES_DIR
    from helpers.operators import LiveCluster, fill

    cluster = LiveCluster(namespace=namespace)
    nodes = cluster.nvl72_racks(2)
    for ref, (fixture, method) in WORKLOADS.items():
        text = (FIXTURES_DIR / fixture).read_text()
        manifest = next(doc for doc in yaml.safe_load_all(text) if doc and doc.get("spec"))
        manifest["metadata"] = {**manifest["metadata"], "name": ref.split("/")[1], "namespace": namespace}
        workload = cluster.workload(manifest)
        count = [0]

        def place(name: str, labels: dict, count: list[int] = count) -> str | None:
            count[0] += 1
            return None if count[0] <= pending else nodes[count[0] % len(nodes)]

        getattr(cluster, method)(workload, place)
        cluster.event(workload, "Created", "the operator created the workload's objects")
    other = cluster.workload({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "unrelated"}, "spec": {}})
    cluster.pod("unrelated-x", other, {}, None, fill(nodes))
    cluster.pod("debug", None, {}, None, fill(nodes))
    cluster.event(cluster.pods()[0], "FailedScheduling", "0/36 nodes are available", kind="Warning")
    return cluster


def serve_cluster(server: Any, cluster: Any) -> None:
    """Store a :class:`~helpers.operators.LiveCluster`'s nodes and objects in the stand-in API server."""
    server.add_all(cluster.nodes)
    server.add_all(cluster.objects)
