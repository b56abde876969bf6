"""``wmap get``: workloads as kubectl lists them, one row each, from the cluster or from dumps (GET/LIST/WATCH only).

``get TYPE[,TYPE...] [NAME...]``, ``get TYPE/NAME ...`` or ``get all`` (every kind the catalog
covers that the server serves, top-level objects only). Rows: NAMESPACE (first, with ``-A``),
NAME (TYPE/NAME when several types are listed), PHASE, PODS ready/desired, GPUS (and a column per
other accelerator present), AGE; ``-o wide`` adds DEFINITION and GANGS; ``-o name`` prints
``kind.group/name``; ``-o json|yaml`` is always a ``List`` of inspect trees, each with the object's
``metadata`` and the ``live`` columns (ready pods, age); ``-o tree`` the inspect view. A summary
line follows several rows (``--summary``: by namespace and kind). ``-w`` prints the rows, then a
row whenever a workload's phase changes. ``--objects DUMP`` reads the same rows from ``kubectl get
-o yaml`` dumps instead of the cluster, AGE counted from the dump's newest time.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, List, Optional

import typer

from workloadmap.catalog import Catalog
from workloadmap.documents import Document, load_objects
from workloadmap.errors import ClusterError, NoDefinitionError, WorkloadMapError
from workloadmap.interpreter import ObjectIndex, inspect_documents
from workloadmap.runtime_definitions import Phase
from workloadmap.values import mapping_at

from ..printing import output
from ..printing.escape import escaped
from ..printing.formats import TEMPLATES, Output
from ..printing.sorting import parse_sort_by, sort_by
from ..printing.views import Text, Views, dump, plain, template
from ..render.workloads import age, render_rows, with_summary
from .common import (
    Collected,
    bounded,
    catalog_option,
    context_option,
    gpu_resource_option,
    gpu_resources,
    kubeconfig_option,
    labels_of,
    load_catalog,
    located_error,
    no_headers_option,
    parse_duration,
    parse_selector,
    sort_by_option,
    summary_option,
    worst_exit_code,
)
from .inspect import trees_text
from .live import add_cluster_kartas, client_for, reference


@dataclass(frozen=True)
class _Listing:
    """What the views of ``wmap get`` write: the rows, and how a table shows them.

    Attributes:
        namespaces: NAMESPACE first (``-A``, or a dump of several namespaces).
        typed: names in the TYPE/NAME form (several types listed).
        header: the header line (not in the rows a watch prints after the first).
        now: when AGE counts from (a dump's newest time); None: now.
        summarised: the summary line may follow (not while watching).
    """

    rows: list[Any]
    namespaces: bool = False
    typed: bool = False
    header: bool = True
    now: datetime | None = None
    summarised: bool = True


def json_item(row: Any, now: datetime | None = None) -> dict[str, Any]:
    """One item of ``-o json``: the inspect tree, the object's metadata, and the live columns of the table."""
    item: dict[str, Any] = row.tree.to_dict()
    item["metadata"] = row.metadata
    item["live"] = {
        "podsReady": row.pods_ready,
        "podsDesired": row.pods_desired,
        "age": age(row.created, now),
        "scheduled": row.scheduled,
    }
    return item


def _trees(listing: _Listing) -> Any:
    """What ``-o json`` prints: always a ``List``, as ``kubectl get`` prints a list."""
    return {"apiVersion": "v1", "kind": "List", "items": [json_item(row, listing.now) for row in listing.rows]}


def _summary(text: str, listing: _Listing, chosen: Output, gap: str = "") -> str:
    if not listing.summarised:
        return text
    trees = [row.tree for row in listing.rows]
    return with_summary(text, trees, header=chosen.header and listing.header, summary=chosen.summary, gap=gap)


def _table(*, wide: bool) -> Text:
    def render(chosen: Output, listing: _Listing) -> str:
        text = render_rows(
            escaped(listing.rows),
            wide=wide,
            namespaces=listing.namespaces,
            typed=listing.typed,
            header=chosen.header and listing.header,
            now=listing.now,
        )
        return _summary(text, listing, chosen)

    return Text(render, fit=False)


VIEWS = Views(
    {
        "table": _table(wide=False),
        "wide": _table(wide=True),
        "name": plain(lambda listing: "".join(f"{row.type_name}/{row.workload.name}\n" for row in listing.rows)),
        "json": dump(_trees),
        "yaml": dump(_trees),
        "tree": Text(
            lambda chosen, listing: _summary(trees_text([row.tree for row in listing.rows]), listing, chosen, "\n"),
            fit=True,
        ),
        "templates": template(_trees),
    }
)
"""The views of ``wmap get``, on the rows."""
WITH_PODS = ("table", "wide", "json", "yaml", *TEMPLATES)
"""The views that show ready pods (the tables and the ``live`` part of each item): the live pods are read for them."""


@dataclass
class _Target:
    resource: Any
    name: Optional[str] = None


def _parse(
    refs: list[str], all_namespaces: bool, selector: Optional[str]
) -> tuple[list[tuple[str, Optional[str]]], bool]:
    """The arguments as ``(type, name or None)`` pairs, and whether ``all`` was asked; misuse exits 2."""
    if all("/" in ref for ref in refs):
        pairs = [reference(ref, None, all_namespaces) for ref in refs]
    elif any("/" in ref for ref in refs):
        raise typer.BadParameter("use TYPE/NAME for every argument, or TYPE[,TYPE] NAME...", param_hint="TYPE")
    else:
        types, names = [token for token in refs[0].split(",") if token], refs[1:]
        if not types:
            raise typer.BadParameter("name a resource type", param_hint="TYPE")
        if names and len(types) > 1:
            raise typer.BadParameter("names go with one type: TYPE NAME...", param_hint="NAME")
        if names and all_namespaces:
            raise typer.BadParameter("a resource cannot be retrieved by name across all namespaces", param_hint="-A")
        if "all" in types and (names or len(types) > 1):
            raise typer.BadParameter("all takes no names and no other types", param_hint="TYPE")
        pairs = [(types[0], name) for name in names] if names else [(token, None) for token in types]
    if selector and any(name is not None for _, name in pairs):
        raise typer.BadParameter("a selector cannot go with names", param_hint="-l")
    return pairs, pairs == [("all", None)]


def _targets(client: Any, pairs: list[tuple[str, Optional[str]]], everything: bool, catalog: Catalog) -> list[_Target]:
    """The resource types (and names) to read; ``all``: every covered kind the server serves."""
    if not everything:
        targets = [_Target(client.resolve(token), name) for token, name in pairs]
        for target in targets:
            if catalog.lookup(target.resource.api_version, target.resource.kind) is None:
                # Refused once, before any list: every object would fail alike (`wmap get nodes`).
                raise NoDefinitionError(
                    f"no definition covers kind {target.resource.kind} ({target.resource.qualified_name}): it is not "
                    f"a workload wmap lists; see `wmap catalog list`{_elsewhere(target.resource.kind)}",
                    api_version=target.resource.api_version,
                    kind=target.resource.kind,
                )
        return targets
    resources = []
    for definition in catalog:
        api_version = f"{definition.group}/{definition.versions[0]}" if definition.group else "v1"
        resource = client.resolve_kind(api_version, definition.kind)
        if resource is not None and resource not in resources:
            resources.append(resource)
    return [_Target(resource) for resource in resources]


def _elsewhere(kind: str) -> str:
    """Where wmap shows a kind it does not list as a workload."""
    if kind == "Node":
        return " (nodes: `wmap topology show cluster:` or `wmap cluster nodes`)"
    return ""


def _fetch(client: Any, targets: list[_Target], namespace: Optional[str], options: dict[str, Any]) -> list[dict]:
    objects: list[dict] = []
    for target in targets:
        scope = client.scope(target.resource, namespace, options["all_namespaces"])
        if target.name is not None:
            obj = client.get(
                f"{target.resource.plural}.{target.resource.group}/{target.name}"
                if target.resource.group
                else f"{target.resource.plural}/{target.name}",
                scope,
            )
            objects.append(obj)
            continue
        items, _ = client.list_with_version(
            target.resource,
            scope,
            label_selector=options["selector"],
            field_selector=options["field_selector"],
            chunk_size=options["chunk_size"],
        )
        objects.extend(items)
    return objects


class _Rows:
    """Objects to rows: inspect, then (for tables) attribute the live pods for the ready count.

    From the cluster (``client``) the pods of a namespace are listed once when a row needs them;
    from dumps (``dumped``) they are the dump's.
    """

    def __init__(
        self,
        client: Any,
        catalog: Catalog,
        gpus: tuple[str, ...],
        options: dict[str, Any],
        dumped: Any = None,
        related: Any = None,
    ) -> None:
        self.client = client
        self.catalog = catalog
        self.gpus = gpus
        self.options = options
        self.dumped = dumped
        self.related = related
        self.source = f"cluster (context {client.context})" if client is not None else "dump"
        self.refresh()

    def refresh(self) -> None:
        """Forget the pods and owners read so far (a watch reads them again for each change)."""
        if self.client is None:
            self.chains = self.dumped.chains
            return
        from workloadmap.kube import ClusterObjects, OwnerCache
        from workloadmap.live import OwnerChains

        self.owners = OwnerCache(
            self.client, chunk_size=self.options["chunk_size"], cluster_wide=self.options["all_namespaces"]
        )
        self.chains = OwnerChains(self.owners)
        self.live: dict[Optional[str], Any] = {}
        self.related = ClusterObjects(self.client)  # a TrainJob's runtime, read from the cluster

    def pods_of(self, namespace: Optional[str]) -> Any:
        """The pods of ``namespace`` (of every namespace with -A), listed once."""
        if self.client is None:
            return self.dumped
        from workloadmap.live import LiveObjects

        key = None if self.options["all_namespaces"] else namespace
        if key not in self.live:
            pods, _ = self.client.list_with_version(
                self.client.resolve("pods"), key, chunk_size=self.options["chunk_size"]
            )
            self.owners.add(pods)
            self.live[key] = LiveObjects(pods=pods, owners=self.owners, chains=self.chains)
        return self.live[key]

    def rows(self, objects: list[dict], *, pods: bool, collected: Collected) -> list[Any]:
        from workloadmap.live import describe, workload_row

        documents = [Document(body=obj, file=self.source, index=index) for index, obj in enumerate(objects, 1)]
        start = len(collected.trees)
        # `wmap get jobsets,jobs` lists what was asked for, as kubectl does: nothing folded into its owner
        results = inspect_documents(
            documents, catalog=self.catalog, gpu_resources=self.gpus, related=self.related, fold_controlled=False
        )
        collected.add(results)
        rows = []
        for tree, obj in collected.trees[start:]:
            report = None
            if pods:
                live = self.pods_of(tree.workload.namespace)
                try:
                    report = describe(obj, live, catalog=self.catalog, gpu_resources=self.gpus, related=self.related)
                except ClusterError:
                    raise  # the cluster itself failed: no other row would do better
                except Exception as error:  # one object's failure must not hide the others'
                    located = located_error(error, file=self.source)
                    output.error(f"{tree.workload}: {located}")
                    collected.codes.append(located.exit_code)
            rows.append(workload_row(obj, tree, report))
        return rows


def _keep(rows: list[Any], phases: set[str]) -> list[Any]:
    return [row for row in rows if not phases or row.phase.value.lower() in phases]


def _print(rows: list[Any], chosen: Output, options: dict[str, Any], *, header: bool = True) -> None:
    listing = _Listing(
        rows,
        namespaces=options["namespaces"],
        typed=options["prefix_types"],
        header=header,
        now=options.get("now"),
        summarised=not options.get("watching", False),
    )
    VIEWS.write(chosen, listing)


def _phase_options(phases: Optional[List[str]]) -> set[str]:
    known = {phase.value.lower(): phase for phase in Phase}
    wanted = set()
    for text in phases or []:
        for part in text.split(","):
            if part.strip().lower() not in known:
                raise typer.BadParameter(
                    f"{part!r} is not a phase; one of {', '.join(p.value for p in Phase)}", param_hint="--phase"
                )
            wanted.add(part.strip().lower())
    return wanted


def get(
    refs: List[str] = typer.Argument(
        ...,
        metavar="TYPE[/NAME]...",
        help="TYPE[,TYPE...] [NAME...], TYPE/NAME..., or all: jobsets, jobset/train, lws,jobsets, all.",
    ),
    namespace: Optional[str] = typer.Option(
        None, "-n", "--namespace", metavar="NAMESPACE", help="Namespace (default: the context's; dumps: every one)."
    ),
    all_namespaces: bool = typer.Option(False, "-A", "--all-namespaces", help="List across all namespaces."),
    selector: Optional[str] = typer.Option(
        None, "-l", "--selector", metavar="SELECTOR", help="Label selector, e.g. team=ml,tier!=dev."
    ),
    field_selector: Optional[str] = typer.Option(
        None, "--field-selector", metavar="SELECTOR", help="Field selector, e.g. metadata.name=x (the cluster only)."
    ),
    phase: Optional[List[str]] = typer.Option(
        None, "--phase", metavar="PHASE", help="Keep workloads in this phase (repeatable)."
    ),
    watch: bool = typer.Option(False, "-w", "--watch", help="After the list, print a row whenever a phase changes."),
    timeout: Optional[str] = typer.Option(
        None,
        "--timeout",
        metavar="DURATION",
        help="Stop with an error when listing takes longer than this (30s, 5m, 1h); with -w, stop watching then.",
    ),
    chunk_size: int = typer.Option(
        500, "--chunk-size", metavar="N", min=0, help="Objects per page of a list (0: no paging)."
    ),
    objects: Optional[List[str]] = typer.Option(
        None,
        "--objects",
        metavar="DUMP",
        help="Read the workloads, their pods and owners from `kubectl get -o yaml` dumps (FILE, DIR or -; "
        "repeatable) instead of the cluster.",
    ),
    nodes: Optional[str] = typer.Option(
        None, "--nodes", metavar="NODES", help="With --objects: a NodeList dump (default: the Nodes the dumps hold)."
    ),
    output_format: str = VIEWS.option("get"),
    sort_by: Optional[str] = sort_by_option(),
    no_headers: bool = no_headers_option(),
    summary: bool = summary_option(),
    kubeconfig: Optional[Path] = kubeconfig_option(),
    context: Optional[str] = context_option(),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    gpu_resource: Optional[List[str]] = gpu_resource_option(),
) -> None:
    """List workloads with their phase, ready pods and GPUs, from the cluster (read-only) or from dumps."""
    chosen = replace(VIEWS.parse(output_format), header=not no_headers, summary=summary)
    phases = _phase_options(phase)
    seconds = parse_duration(timeout) if timeout is not None else None
    if sort_by is not None:
        parse_sort_by(sort_by)
    catalog = load_catalog(catalog_dirs)
    options = {
        "all_namespaces": all_namespaces,
        "namespaces": all_namespaces,
        "selector": selector,
        "field_selector": field_selector,
        "chunk_size": chunk_size,
        "prefix_types": False,
        "sort_by": sort_by,
    }
    pairs, top_only = _parse(list(refs), all_namespaces, selector)
    if watch and any(name is not None for _, name in pairs):
        raise typer.BadParameter("--watch lists types; use -l or --field-selector to narrow it", param_hint="-w")
    if nodes and not objects:
        raise typer.BadParameter("--nodes goes with --objects", param_hint="--nodes")
    if objects:
        for flag, given in (("-w", watch), ("--field-selector", field_selector), ("--kubeconfig", kubeconfig)):
            if given:
                raise typer.BadParameter(f"{flag} reads the cluster; --objects reads dumps", param_hint=flag)
        with bounded(seconds):
            code = _from_dumps(
                objects, nodes, pairs, top_only, namespace, phases, chosen, options, catalog, gpu_resource
            )
        raise typer.Exit(code)
    # Without -w, --timeout is the deadline of the whole command; a watch ends at it, normally.
    with bounded(None if watch else seconds), client_for(kubeconfig, context) as client:
        add_cluster_kartas(catalog, client)
        targets = _targets(client, pairs, top_only, catalog)
        options["prefix_types"] = len({target.resource for target in targets}) > 1
        rows_maker = _Rows(client, catalog, gpu_resources(gpu_resource), options)
        needs_pods = chosen.kind in WITH_PODS
        collected = Collected()
        if watch:
            options["top_only"] = top_only
            options["watching"] = True
            deadline = time.monotonic() + seconds if seconds is not None else None
            _watch(client, targets, namespace, rows_maker, phases, chosen, options, deadline, collected)
            raise typer.Exit(0)
        if chosen.kind == "name" and not top_only and options["sort_by"] is None:
            _names_by_page(client, targets, namespace, rows_maker, phases, options, collected)
            raise typer.Exit(collected.exit_code)
        objects_read = _fetch(client, targets, namespace, options)
        if top_only:
            objects_read = _top_level(objects_read, catalog, rows_maker.chains)
        rows = _keep(rows_maker.rows(objects_read, pods=needs_pods, collected=collected), phases)
        if not rows and collected.exit_code == 0:
            scope = "" if all_namespaces else f" in {namespace or client.default_namespace} namespace"
            output.warn(f"No resources found{scope}.")
            raise typer.Exit(0)
        _print(_sorted(rows, options), chosen, options)
    raise typer.Exit(collected.exit_code)


def _sorted(rows: list[Any], options: dict[str, Any]) -> list[Any]:
    """The rows in ``--sort-by`` order, by the items ``-o json`` prints (age from ``now`` too)."""
    if options["sort_by"] is None:
        return rows
    return sort_by(rows, lambda row: json_item(row, options.get("now")), options["sort_by"])


def _dumped(paths: list[str]) -> list[dict[str, Any]]:
    """Every object of the dumps (``List`` items flattened); a document that does not parse is an error."""
    found: list[dict[str, Any]] = []
    for path in paths:
        for document in load_objects(path, recursive=True):
            if isinstance(document, WorkloadMapError):
                raise document
            if isinstance(document.body, dict):
                found.append(document.body)
    return found


def _wanted(
    catalog: Catalog, pairs: list[tuple[str, Optional[str]]], everything: bool
) -> list[tuple[Any, Optional[str]]]:
    """The definitions (and names) the arguments name, as ``kubectl get`` reads TYPE; an unknown type exits 4."""
    if everything:
        return [(definition, None) for definition in catalog]
    wanted = []
    for token, name in pairs:
        definition = catalog.get(token)
        if definition is None:
            close = catalog.close_matches(token)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            raise NoDefinitionError(
                f"the server doesn't have a resource type {token!r} and no definition covers it{hint} "
                "(see `wmap catalog list`)"
            )
        wanted.append((definition, name))
    return wanted


def _of(definition: Any, obj: dict[str, Any]) -> bool:
    group, _, _version = str(obj.get("apiVersion") or "").rpartition("/")
    return obj.get("kind") == definition.kind and group == (definition.group or "")


def _from_dumps(
    paths: list[str],
    nodes: Optional[str],
    pairs: list[tuple[str, Optional[str]]],
    top_only: bool,
    namespace: Optional[str],
    phases: set[str],
    chosen: Output,
    options: dict[str, Any],
    catalog: Catalog,
    gpu_resource: Optional[List[str]],
) -> int:
    """``wmap get --objects DUMP``: the rows of the workloads the dumps hold; the exit code."""
    from workloadmap.live import from_dumps, newest_time

    everything = _dumped(paths)
    node_objects = _dumped([nodes]) if nodes else [obj for obj in everything if obj.get("kind") == "Node"] or None
    wanted = _wanted(catalog, pairs, top_only)
    chosen_selector = parse_selector(options["selector"])
    live = from_dumps(everything, node_objects)
    picked = []
    for obj in everything:
        metadata = mapping_at(obj, "metadata")
        if namespace is not None and metadata.get("namespace") != namespace:
            continue
        if chosen_selector is not None and not chosen_selector.matches(labels_of(obj)):
            continue
        if any(_of(definition, obj) and name in (None, metadata.get("name")) for definition, name in wanted):
            picked.append(obj)
    if top_only:
        picked = _top_level(picked, catalog, live.chains)
    options["prefix_types"] = len({(obj.get("apiVersion"), obj.get("kind")) for obj in picked}) > 1 or top_only
    options["namespaces"] = (
        options["all_namespaces"] or len({(obj.get("metadata") or {}).get("namespace") for obj in picked}) > 1
    )
    options["now"] = newest_time(everything + list(node_objects or []))
    rows_maker = _Rows(
        None, catalog, gpu_resources(gpu_resource), options, dumped=live, related=ObjectIndex(everything)
    )
    collected = Collected()
    rows = _keep(rows_maker.rows(picked, pods=chosen.kind in WITH_PODS, collected=collected), phases)
    if not rows and collected.exit_code == 0:
        scope = f" in {namespace} namespace" if namespace else ""
        output.warn(f"No resources found{scope} in {', '.join(paths)}.")
        return 0
    if rows:
        _print(_sorted(rows, options), chosen, options)
    return collected.exit_code


def _names_by_page(
    client: Any,
    targets: list[_Target],
    namespace: Optional[str],
    rows_maker: _Rows,
    phases: set[str],
    options: dict[str, Any],
    collected: Collected,
) -> None:
    """``-o name``: each page inspected, printed and let go, so memory follows a page, not the list."""
    printed = False
    for target in targets:
        scope = client.scope(target.resource, namespace, options["all_namespaces"])
        if target.name is not None:
            pages: Any = [_fetch(client, [target], namespace, options)]
        else:
            pages = client.list_pages(
                target.resource, scope, label_selector=options["selector"],
                field_selector=options["field_selector"], chunk_size=options["chunk_size"],
            )  # fmt: skip
        for page in pages:
            changed = Collected()
            rows = _keep(rows_maker.rows(page, pods=False, collected=changed), phases)
            collected.codes[:] = [worst_exit_code([*collected.codes, *changed.codes])]
            _print(rows, Output("name"), options)
            printed = printed or bool(rows)
    if not printed and collected.exit_code == 0:
        where = "" if options["all_namespaces"] else f" in {namespace or client.default_namespace} namespace"
        output.warn(f"No resources found{where}.")


def _top_level(objects: list[dict], catalog: Catalog, chains: Any) -> list[dict]:
    from workloadmap.live import top_level

    kept = top_level(objects, lambda api_version, kind: catalog.lookup(api_version, kind) is not None, chains)
    return [dict(obj) for obj in kept]


def _key(row: Any) -> tuple[str, Optional[str], str]:
    return (row.workload.kind, row.workload.namespace, row.workload.name)


def _watch(
    client: Any,
    targets: list[_Target],
    namespace: Optional[str],
    rows_maker: _Rows,
    phases: set[str],
    chosen: Output,
    options: dict[str, Any],
    deadline: Optional[float],
    collected: Collected,
) -> None:
    """The initial rows, then a row per added, deleted or phase-changed workload, until the deadline or Ctrl-C."""
    from workloadmap.kube import DELETED, SYNCED, ListWatch, watch_all

    stop = threading.Event()
    watches = [
        ListWatch(
            client,
            target.resource,
            client.scope(target.resource, namespace, options["all_namespaces"]),
            label_selector=options["selector"],
            field_selector=options["field_selector"],
            chunk_size=options["chunk_size"],
            deadline=deadline,
            stop=stop,
        )
        for target in targets
    ]
    needs_pods = chosen.kind in WITH_PODS
    initial: list[dict] = []
    synced, phase_of = 0, {}  # (kind, namespace, name) -> the phase last printed
    try:
        for _index, event in watch_all(watches, stop):
            if event.type == SYNCED:
                synced += 1
                if synced == len(watches):
                    rows = _keep(rows_maker.rows(initial, pods=needs_pods, collected=collected), phases)
                    phase_of.update({_key(row): row.phase for row in rows})
                    _print(rows, chosen, options)
                continue
            if event.object is None:
                continue
            if options["top_only"] and not _top_level([event.object], rows_maker.catalog, rows_maker.chains):
                continue
            if synced < len(watches):
                initial.append(event.object)
                continue
            rows_maker.refresh()  # pods and owners moved on: read them again for the new row
            # A tree per event, dropped once printed: memory follows the objects watched, not the events.
            changed = Collected()
            rows = rows_maker.rows([event.object], pods=needs_pods, collected=changed)
            collected.codes[:] = [worst_exit_code([*collected.codes, *changed.codes])]
            for row in _keep(rows, phases):
                key = _key(row)
                if event.type == DELETED:
                    phase_of.pop(key, None)
                elif phase_of.get(key) == row.phase:
                    continue
                else:
                    phase_of[key] = row.phase
                _print([row], chosen, options, header=False)
    except KeyboardInterrupt:
        stop.set()
