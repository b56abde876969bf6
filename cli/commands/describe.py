"""``wmap describe``: workloads with their live pods, events and the placement audit (read-only).

From the cluster (``TYPE/NAME``, ``TYPE NAME``, or ``TYPE`` for every workload of the type, ``-l``
narrowing it), or from files: ``-f FILE|-`` alone gives the tree and gangs; with ``--objects
DUMP.yaml`` (``kubectl get pods,jobs,statefulsets,events -o yaml`` of the namespace) and ``--nodes
NODES.yaml`` the same attribution, events and audit run offline; ``TYPE[/NAME] --objects DUMP``
describes the workloads the dump itself holds. LAST SEEN of a dump's events counts from the
dump's newest time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from workloadmap.documents import load_objects
from workloadmap.errors import NoDefinitionError, WorkloadMapError
from workloadmap.interpreter import ObjectIndex, inspect_documents
from workloadmap.values import mapping_at

from ..printing import output
from ..printing.escape import escaped
from ..printing.formats import Output
from ..printing.options import ArgumentSpec, OptionSpec
from ..printing.usage import bad_parameter
from ..printing.views import Views, dump, human, template
from ..render.workloads import render_describe
from .common import (
    CATALOG,
    GPU_RESOURCE,
    RELATED,
    SELECTOR,
    Collected,
    Guard,
    gpu_resources,
    guard_options,
    labels_of,
    load_catalog,
    located_error,
    parse_selector,
    selected,
    stdin_once,
    worst_exit_code,
)

if TYPE_CHECKING:  # heavy stages load inside the commands that use them
    from workloadmap.live import DescribeReport, LiveObjects
    from workloadmap.selectors import Selector

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


@dataclass(frozen=True)
class _Described:
    """What the views of ``wmap describe`` write: the reports, and when their ages count from (a dump's newest time)."""

    reports: list[DescribeReport]
    now: datetime | None = None


def _reports(described: _Described) -> Any:
    """What ``-o json`` prints: the report, or a ``List`` of several."""
    return output.as_list([report.to_dict() for report in described.reports])


def _trees(described: _Described) -> str:
    return "\n".join(render_describe(report, now=described.now) for report in escaped(described.reports))


VIEWS = Views(
    {
        "tree": human(_trees),
        "json": dump(_reports),
        "yaml": dump(_reports),
        "templates": template(_reports),
    }
)
"""The views of ``wmap describe``, on the reports."""
LIMITED = ("tree",)
"""The views that show at most ``DEFAULT_POD_LIMIT`` pods per component unless ``--pod-limit`` says otherwise."""


def _live(objects: list[str], nodes: Optional[str]) -> tuple[LiveObjects, list[dict[str, Any]], datetime | None]:
    """The live objects of the dumps, every object read, and the dumps' newest time."""
    from workloadmap.live import from_dumps, newest_time

    everything = [obj for path in objects for obj in _objects(path)]
    node_objects = [obj for obj in everything if obj.get("kind") == "Node"] or None  # a dump of nodes too
    if nodes is not None:
        node_objects = [item for obj in _objects(nodes) for item in (obj.get("items") or [obj])]
    return from_dumps(everything, node_objects), everything, newest_time(everything + list(node_objects or []))


def _from_files(
    files: list[str], live: LiveObjects | None, selector: Selector | None, options: dict[str, Any]
) -> tuple[list[DescribeReport], int]:
    from workloadmap.live import describe

    collected = Collected()
    for source in files:
        documents = selected(load_objects(source), selector)
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


def _in_dump(
    everything: list[dict[str, Any]],
    type_token: str,
    name: Optional[str],
    namespace: Optional[str],
    selector: Selector | None,
    catalog: Any,
) -> list[dict[str, Any]]:
    """The workloads of the dump that ``TYPE[/NAME]`` names (TYPE as `kubectl get` reads it); unknown: exit 4."""
    definition = catalog.get(type_token)
    if definition is None:
        close = catalog.close_matches(type_token)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise NoDefinitionError(f"no definition covers the type {type_token!r}{hint} (see `wmap catalog list`)")
    found = []
    for obj in everything:
        metadata = mapping_at(obj, "metadata")
        group = str(obj.get("apiVersion") or "").rpartition("/")[0]
        if obj.get("kind") != definition.kind or group != (definition.group or ""):
            continue
        if name is not None and metadata.get("name") != name:
            continue
        if namespace is not None and metadata.get("namespace") != namespace:
            continue
        if selector is not None and not selector.matches(labels_of(obj)):
            continue
        found.append(obj)
    return found


REF = ArgumentSpec(
    "ref",
    "TYPE[/NAME]",
    "TYPE/NAME (or TYPE NAME) of a workload in the cluster; TYPE alone: every workload of the type.",
    single=True,
)
NAME = ArgumentSpec("name", "NAME", "NAME, when the first argument is TYPE.", single=True)
_OWN: tuple[OptionSpec, ...] = (
    OptionSpec("filename", ("-f", "--filename"), "FILE or - instead of the cluster.", metavar="FILE", multiple=True),
    OptionSpec(
        "objects",
        ("--objects",),
        "A `kubectl get -o yaml` dump of the namespace (pods, Jobs, StatefulSets ..., events; repeatable): "
        "with -f the live objects around the files' workloads; with TYPE[/NAME] the workloads too.",
        metavar="DUMP",
        multiple=True,
    ),
    OptionSpec(
        "nodes",
        ("--nodes",),
        "With --objects: a NodeList, for the placement audit (default: the Nodes the dumps hold).",
        metavar="NODES",
    ),
    OptionSpec(
        "namespace",
        ("-n", "--namespace"),
        "Namespace (default: the context's; dumps: every one).",
        metavar="NAMESPACE",
    ),
    OptionSpec("all_namespaces", ("-A", "--all-namespaces"), "TYPE across all namespaces.", value=bool, default=False),
    SELECTOR,
    OptionSpec(
        "pod_limit",
        ("--pod-limit",),
        "Pods shown per component, unhealthy first (tree default 10; 0 = all).",
        metavar="N",
        value=int,
        minimum=0,
    ),
    VIEWS.spec("describe"),
    OptionSpec(
        "kubeconfig",
        ("--kubeconfig",),
        "Path to the kubeconfig file (only that file is read).",
        metavar="KUBECONFIG",
        value=Path,
    ),
    OptionSpec("context", ("--context",), "The kubeconfig context to use.", metavar="CONTEXT"),
    OptionSpec(
        "chunk_size",
        ("--chunk-size",),
        "Objects per page of a list (0: no paging).",
        metavar="N",
        value=int,
        default=500,
        minimum=0,
    ),
    CATALOG,
    GPU_RESOURCE,
    RELATED,
)
OPTIONS: tuple[OptionSpec, ...] = (
    *_OWN,
    *guard_options([REF.name, NAME.name, *(o.name for o in _OWN)], budgets=True),
)
"""Every option of ``wmap describe`` but ``--help``, in the order ``--help`` lists them: its own, then the guard's."""
FAST_WORDS = False
"""The fast reader takes only the offline forms (``-f``, ``--objects``): TYPE[/NAME] reads the cluster through typer."""


def prepare(words: list[str] | None, values: Mapping[str, Any]) -> Callable[[], int]:
    """The command ``wmap describe [TYPE[/NAME] [NAME]]`` with option ``values`` (by name) runs; its exit code.

    Every usage error of the offline forms is checked here, before anything runs.

    Raises:
        typer.BadParameter: a usage error (exit 2, reported by typer under the usage line).
    """
    given = list(words or [])
    if len(given) > 2:
        raise bad_parameter(f"got unexpected extra argument ({given[2]})")
    ref, name = (given + [None, None])[:2]
    guard = Guard.from_options(dict(values))
    filename, objects, nodes, related = (
        list(values["filename"] or []), list(values["objects"] or []), values["nodes"], list(values["related"] or [])
    )  # fmt: skip
    chosen = VIEWS.parse(values["output_format"])
    stdin_once({"-f": filename, "--objects": objects, "--nodes": nodes, "--related": related})
    wanted = parse_selector(values["selector"])
    if ref is not None and filename:
        raise bad_parameter("give TYPE[/NAME] or -f FILE, not both", param_hint="TYPE/NAME")
    if ref is None and not filename:
        raise bad_parameter("give TYPE[/NAME] or -f FILE", param_hint="TYPE/NAME")
    if nodes and not objects:
        raise bad_parameter("--nodes goes with --objects", param_hint="--nodes")

    def command() -> int:
        _describe(ref, name, values, chosen, wanted)
        return 0

    return lambda: guard.call(command)


def _describe(ref: str | None, name: str | None, values: Mapping[str, Any], chosen: Output, wanted: Any) -> None:
    """Describe workloads: their components with their live pods, recent events, and where their gangs landed."""
    filename, objects, nodes, related = (
        list(values["filename"] or []), list(values["objects"] or []), values["nodes"], list(values["related"] or [])
    )  # fmt: skip
    namespace, all_namespaces, pod_limit = values["namespace"], values["all_namespaces"], values["pod_limit"]
    limit = pod_limit if pod_limit is not None else (DEFAULT_POD_LIMIT if chosen.kind in LIMITED else None)
    catalog = load_catalog(values["catalog_dirs"])
    options: dict[str, Any] = {
        "catalog": catalog,
        "gpu_resources": gpu_resources(values["gpu_resource"]),
        "pod_limit": limit,
    }
    type_token, object_name = "", None
    if ref is not None:  # the cluster's forms: typer's path (cli/commands/live.py declares typer commands)
        from .live import reference

        type_token, object_name = reference(ref, name, all_namespaces)
    if object_name is not None and wanted is not None:
        raise bad_parameter("a selector cannot go with a name", param_hint="-l")
    if filename or objects:
        options["related"] = ObjectIndex.from_paths(related or [])
        live, everything, now = _live(list(objects), nodes) if objects else (None, [], None)
        if filename:
            reports, code = _from_files(list(filename), live, wanted, options)
            if not reports and not code and wanted is not None:
                output.warn(f"No resources found matching {wanted} in {', '.join(filename)}.")
        else:
            picked = _in_dump(everything, type_token, object_name, namespace, wanted, catalog)
            options["related"] = ObjectIndex(everything)
            reports, code = _described(picked, live, "dump", options)
            if not picked:
                output.warn(f"No resources found in {', '.join(objects or [])}.")
        if reports:
            VIEWS.write(chosen, _Described(reports, now))
        raise SystemExit(code)
    listing = (type_token, object_name, namespace, all_namespaces, wanted)
    _from_cluster(listing, chosen, options, values["kubeconfig"], values["context"], values["chunk_size"])


def _described(
    bodies: list[dict[str, Any]], live: LiveObjects | None, source: str, options: dict[str, Any]
) -> tuple[list[DescribeReport], int]:
    """Each workload described (one that fails is reported and left out); the exit code."""
    from workloadmap.live import describe

    reports, collected = [], Collected()
    for body in bodies:
        try:
            reports.append(describe(body, live, source=source, **options))
            collected.codes.append(0)
        except Exception as error:
            located = located_error(error, file=source)
            output.error(f"{(body.get('metadata') or {}).get('name')}: {located}")
            collected.codes.append(located.exit_code)
    return reports, collected.exit_code


def _from_cluster(
    listing: tuple[str, Optional[str], Optional[str], bool, Selector | None],
    chosen: Output,
    options: dict[str, Any],
    kubeconfig: Optional[Path],
    context: Optional[str],
    chunk_size: int,
) -> None:
    """``describe TYPE/NAME`` or ``describe TYPE [-l SELECTOR]`` from the cluster (GET and LIST only).

    ``listing``: the type, the name (None: every one), the namespace, whether across all, the selector.
    """
    from workloadmap.kube import ClusterObjects
    from workloadmap.live import from_cluster

    from .live import add_cluster_kartas, client_for

    type_token, object_name, namespace, all_namespaces, selector = listing
    with client_for(kubeconfig, context) as client:
        add_cluster_kartas(catalog := options["catalog"], client)
        source = f"cluster (context {client.context})"
        options["related"] = ClusterObjects(client)
        if object_name is not None:
            bodies = [client.get(f"{type_token}/{object_name}", namespace)]
        else:
            resource = client.resolve(type_token)
            if catalog.lookup(resource.api_version, resource.kind) is None:
                raise NoDefinitionError(
                    f"no definition covers kind {resource.kind} ({resource.qualified_name}); see `wmap catalog list`",
                    api_version=resource.api_version,
                    kind=resource.kind,
                )
            scope = client.scope(resource, namespace, all_namespaces)
            label_selector = str(selector) if selector is not None else None
            bodies, _ = client.list_with_version(resource, scope, label_selector=label_selector, chunk_size=chunk_size)
            if not bodies:
                where = "" if all_namespaces else f" in {namespace or client.default_namespace} namespace"
                output.warn(f"No resources found{where}.")
                raise SystemExit(0)
        scopes = {(body.get("metadata") or {}).get("namespace") for body in bodies}
        lives = {scope: from_cluster(client, scope, chunk_size=chunk_size) for scope in scopes}
        reports, codes = [], []
        for body in bodies:
            live = lives[(body.get("metadata") or {}).get("namespace")]
            try:
                reports.append(describe_one(body, live, source, options))
            except Exception as error:  # one workload's failure must not hide the others'
                located = located_error(error, file=source)
                output.error(f"{(body.get('metadata') or {}).get('name')}: {located}")
                codes.append(located.exit_code)
    if reports:
        VIEWS.write(chosen, _Described(reports))
    raise SystemExit(worst_exit_code(codes))


def describe_one(body: dict[str, Any], live: LiveObjects, source: str, options: dict[str, Any]) -> DescribeReport:
    """One workload described against the live objects of its namespace."""
    from workloadmap.live import describe

    return describe(body, live, source=source, **options)
