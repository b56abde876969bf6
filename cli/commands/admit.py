"""``wmap admit`` and ``wmap capacity``: would Kueue (or KAI) admit the workload now, and how many more fit.

Both read the queue objects from ``--queues`` files (``kubectl get clusterqueues,localqueues,...
-A -o yaml``) and the nodes from ``-t``; without them, from the live cluster (GET and LIST only).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional

import typer

from workloadmap.errors import WorkloadMapError
from workloadmap.interpreter import ObjectIndex, inspect_file

from ..printing import output
from ..printing.deferred import deferred
from ..printing.escape import escaped
from ..printing.views import Views, dump, human, table, template
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
    source_forms,
)

if TYPE_CHECKING:  # heavy stages load inside the commands that use them
    from workloadmap.admission import AdmissionReport, CapacityReport, QueueState
    from workloadmap.topology import Cluster

EXIT_PENDING = 3
EXIT_UNKNOWN = 5
_EXIT_CODES = {"pending": EXIT_PENDING, "inadmissible": EXIT_PENDING, "unknown": EXIT_UNKNOWN}


def _items(items: list[Any]) -> Any:
    """What ``-o json`` prints: always a ``List`` of the items (the contract), one item included."""
    return {"kind": "List", "apiVersion": "v1", "items": [item.to_dict() for item in items]}


def _admissions(report: AdmissionReport) -> Any:
    return _items(report.items)


def _admission_table(report: AdmissionReport, *, wide: bool) -> str:
    from ..render.admission import render_admission_table

    return render_admission_table(escaped(report), wide=wide)


def _capacity_text(reports: list[CapacityReport]) -> str:
    from ..render.admission import render_capacity

    return render_capacity(escaped(reports))


VIEWS = Views(
    {
        "table": table(lambda report: _admission_table(report, wide=False)),
        "wide": table(lambda report: _admission_table(report, wide=True)),
        "json": dump(_admissions),
        "yaml": dump(_admissions),
        "templates": template(_admissions),
    }
)
"""The views of ``wmap admit``, on the admission report."""
CAPACITY_VIEWS = Views(
    {"table": human(_capacity_text), "json": dump(_items), "yaml": dump(_items), "templates": template(_items)}
)
"""The views of ``wmap capacity``, on the capacity reports."""
QUEUES_HELP = (
    "Queue objects: what `kubectl get clusterqueues,localqueues,resourceflavors,cohorts,topologies,"
    "workloadpriorityclasses,workloads,namespaces -A -o yaml` prints (KAI: `kubectl get queues -o yaml`); "
    "FILE, DIR or -, repeatable. Default: read them from the live cluster."
)
TOPOLOGY_HELP = deferred(
    lambda: (
        f"The cluster's nodes for topology-aware flavors and fit: {source_forms()}. Default with no --queues: the "
        "live cluster."
    )
)


def _check_scheduler(value: str) -> str:
    from workloadmap.admission import SCHEDULERS

    if value not in SCHEDULERS:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(SCHEDULERS)}")
    return value


def _read_pods(path: Optional[Path]) -> list[dict[str, Any]]:
    from workloadmap.documents import load_objects
    from workloadmap.loader import TOPOLOGY_LIMITS

    pods = []
    for document in load_objects(str(path), limits=TOPOLOGY_LIMITS) if path is not None else []:
        if isinstance(document, WorkloadMapError):
            raise document
        if isinstance(document.body, dict) and document.body.get("kind", "Pod") == "Pod":
            pods.append(document.body)
    return pods


def _inputs(
    queues: Optional[List[str]],
    topology: Optional[str],
    pods: Optional[Path],
    live: tuple[bool, bool],
    kubeconfig: Any,
    context: Any,
) -> tuple[QueueState, Cluster | None, list[dict[str, Any]]]:
    """The queue objects, the cluster (None without one) and the running pods.

    From files; ``live`` says what to read from the live cluster instead (the queue objects, the
    nodes and pods), with GET and LIST requests only.
    """
    from workloadmap.admission import QueueState, load_queues, read_live_queues
    from workloadmap.topology import cluster_from_objects, load_cluster

    state = load_queues(queues) if queues else QueueState()
    cluster = load_cluster(topology, pods_file=pods) if topology else None
    pod_objects = _read_pods(pods)
    if any(live):
        from .live import client_for

        with client_for(kubeconfig, context) as client:
            if live[0]:
                state = read_live_queues(client)
                for kind in state.ignored:
                    if kind.endswith("(forbidden)"):
                        output.warn(f"note: may not list {kind.removesuffix(' (forbidden)')}: left out of the preview")
            if live[1]:
                nodes, listed = client.nodes(), client.pods()
                name = client.context or "cluster"
                cluster = cluster_from_objects([nodes], [listed], name=name, source=f"cluster:{client.context or ''}")
                pod_objects = [item for item in listed.get("items") or [] if isinstance(item, dict)]
    if cluster is not None:
        for note in cluster.notes:
            output.warn(f"note: {cluster.name}: {note}")
    return state, cluster, pod_objects


def _collect(workload: List[str], catalog_dirs: Any, related: Any, gpu_resource: Any) -> Collected:
    catalog = load_catalog(catalog_dirs)
    related_objects = ObjectIndex.from_paths(related or [])
    collected = Collected()
    for source in workload:
        found = inspect_file(
            source, catalog=catalog, related=related_objects, gpu_resources=gpu_resources(gpu_resource)
        )
        collected.add(found)
    return collected


def _admit_all(
    collected: Collected, state: QueueState, cluster: Cluster | None, pods: Any, scheduler: str
) -> AdmissionReport:
    """Every workload's verdict; one whose request Kueue would reject is reported on stderr and left out."""
    from workloadmap.admission import preview

    def reject(tree: Any, error: WorkloadMapError) -> None:
        located = located_error(error, file=tree.source)
        output.error(f"{tree.workload}: {located}")
        collected.codes.append(located.exit_code)

    return preview(collected.trees, state, cluster=cluster, pods=pods, scheduler=scheduler, on_error=reject)


def admit_command(
    workload: List[str] = typer.Argument(..., metavar="FILE...", help="Workload FILE, DIR or - (standard input)."),
    queues: Optional[List[str]] = typer.Option(None, "--queues", metavar="DUMP", help=QUEUES_HELP),
    topology: Optional[str] = typer.Option(None, "-t", "--topology", metavar="SOURCE", help=TOPOLOGY_HELP),
    pods: Optional[Path] = typer.Option(
        None, "--pods", metavar="FILE", help="Pod/PodList file; running pods use capacity."
    ),
    scheduler: str = typer.Option(
        "auto",
        "--scheduler",
        metavar="SCHEDULER",
        callback=_check_scheduler,
        help="kueue, kai, or auto: kai for workloads whose pods name kai-scheduler, else kueue.",
    ),  # fmt: skip
    output_format: str = VIEWS.option("admit"),
    fail_pending: bool = typer.Option(
        False, "--fail-pending", help="Exit 3 when a workload is pending or inadmissible, else 5 when one is unknown."
    ),
    kubeconfig: Optional[Path] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    related: Optional[List[str]] = related_option(),
    gpu_resource: Optional[List[str]] = gpu_resource_option(),
) -> None:
    """Would Kueue (or KAI) admit the workload now: the flavor of each resource, or Kueue's reason why not."""
    from workloadmap.admission import AdmissionVerdict

    chosen = VIEWS.parse(output_format)
    collected = _collect(workload, catalog_dirs, related, gpu_resource)
    live = (not queues, not queues and topology is None)
    state, cluster, pod_objects = _inputs(queues, topology, pods, live, kubeconfig, context)
    report = _admit_all(collected, state, cluster, pod_objects, scheduler)
    for note in dict.fromkeys(report.notes):
        output.warn(f"note: {note}")
    VIEWS.write(chosen, report)
    if collected.exit_code:
        raise typer.Exit(collected.exit_code)
    verdict = report.verdict
    if fail_pending and verdict is not AdmissionVerdict.ADMITTED:
        raise typer.Exit(_EXIT_CODES[verdict.value])


def _capacity_all(
    collected: Collected, state: QueueState, cluster: Cluster, pods: Any, policy: str, limit: int
) -> list[CapacityReport]:
    from workloadmap.admission import capacity, kai_quota, kueue_quota, uses_kai

    reports = []
    for tree, body in collected.trees:
        chosen = policy if policy != "auto" else "kai" if uses_kai(tree, body) else "kueue"
        quota = None
        if chosen == "kai" and state.kai_queues:
            quota = kai_quota(tree, state, pods)
        elif chosen == "kueue" and state.has_kueue:
            quota = kueue_quota(tree, body, state)
        try:
            reports.append(capacity(tree, cluster, policy=chosen, limit=limit, quota=quota))
        except Exception as error:  # one workload's failure must not hide the others'
            located = located_error(error, file=tree.source)
            output.error(f"{tree.workload}: {located}")
            collected.codes.append(located.exit_code)
    return reports


def capacity_command(
    workload: List[str] = typer.Argument(..., metavar="FILE...", help="Workload FILE, DIR or - (standard input)."),
    topology: Optional[str] = typer.Option(None, "-t", "--topology", metavar="SOURCE", help=TOPOLOGY_HELP),
    queues: Optional[List[str]] = typer.Option(
        None, "--queues", metavar="DUMP", help="Queue objects (as for `wmap admit`): also count what the quota allows."
    ),
    pods: Optional[Path] = typer.Option(
        None, "--pods", metavar="FILE", help="Pod/PodList file; running pods use capacity."
    ),
    policy: str = typer.Option(
        "auto",
        "--policy",
        metavar="POLICY",
        callback=_check_scheduler,
        help="Whose placement and quota: kueue, kai, or auto (kai for pods that name kai-scheduler).",
    ),  # fmt: skip
    max_copies: int = typer.Option(1000, "--max-copies", metavar="N", min=1, help="Most copies counted (then +)."),
    output_format: str = CAPACITY_VIEWS.option("capacity"),
    kubeconfig: Optional[Path] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    related: Optional[List[str]] = related_option(),
    gpu_resource: Optional[List[str]] = gpu_resource_option(),
) -> None:
    """How many more copies of the workload fit now, per domain of its gangs' level, in all and by quota."""
    chosen = CAPACITY_VIEWS.parse(output_format)
    collected = _collect(workload, catalog_dirs, related, gpu_resource)
    live = (not queues and topology is None, topology is None)
    state, cluster, pod_objects = _inputs(queues, topology, pods, live, kubeconfig, context)
    assert cluster is not None  # from -t, else from the live cluster
    reports = _capacity_all(collected, state, cluster, pod_objects, policy, max_copies)
    CAPACITY_VIEWS.write(chosen, reports)
    if collected.exit_code:
        raise typer.Exit(collected.exit_code)
