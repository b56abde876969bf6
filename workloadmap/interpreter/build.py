"""Inspect: one resource through the whole interpreter, from lookup to the finished tree.

The steps, in order: look the group and kind up in the catalog, resolve the references the
definition declares, expand the components (:mod:`.expand`), total pods, GPUs and resources, map
the status to a phase (:mod:`.phases`) and form the gangs (:mod:`.gangs`). :func:`inspect_documents`
runs this over every document of an input, never stopping at a bad one.
"""

from __future__ import annotations

import itertools
import marshal
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import labels
from ..budgets import active as active_budgets
from ..budgets import check as check_budget
from ..budgets import check_deadline
from ..catalog import NON_WORKLOAD_KINDS, Catalog
from ..documents import Document, load_objects
from ..errors import DeadlineError, InputError, WorkloadMapError, format_path, internal_error
from ..kai_releases import kai_has
from ..loader import paused_gc
from ..resources import DEFAULT_GPU_RESOURCES, add_resources, asks_for_dra
from ..runtime_definitions import Definition
from ..scheduling import pod_scheduling
from ..tree import Component, ExportHints, PodGroup, SharedClaim, Totals, WorkloadRef, WorkloadTree
from ..values import name_problem
from .checks import check_values
from .context import EvaluationContext
from .expand import ExpandedComponent, Expander
from .external import skips_podgrouper, user_pod_groups
from .gangs import form_pod_groups
from .job_controller import job_controller_gangs
from .kueue_groups import GroupKey, GroupMember, decide_groups, group_key
from .merge import merge_bases
from .native import NATIVE_POLICY, native_gangs
from .native_validation import validate_native
from .owned import controlled_notes, node_lists
from .phases import evaluate_phase
from .references import ChainedObjects, ObjectIndex, RelatedObjects, resolve_references
from .runs import has_run_order, run_figures
from .scheduling import apply_kai_metadata, gang_warnings, grouping

if TYPE_CHECKING:  # the DRA counting is imported only for pods that ask for devices through DRA
    from ..dra import DeviceCounter

__all__ = ["inspect", "inspect_documents", "inspect_file", "InspectResult", "default_catalog"]

_NO_RELATED = ObjectIndex()


def topology_annotations(metadata: Any) -> dict[str, str]:
    """The KAI/Kueue topology annotations of an object's or a pod template's metadata."""
    if metadata.__class__ is not dict and (metadata is None or not isinstance(metadata, Mapping)):  # cheaper first
        return {}
    annotations = metadata.get("annotations")
    if annotations is None or (annotations.__class__ is not dict and not isinstance(annotations, Mapping)):
        return {}
    return {
        str(key): str(value)
        for key, value in annotations.items()
        if str(key).startswith(labels.TOPOLOGY_ANNOTATION_PREFIXES)
    }


def _component(
    node: ExpandedComponent,
    gpu_resources: Sequence[str],
    at_peak: Mapping[int, int] | None = None,
    dra: DeviceCounter | None = None,
) -> Component:
    children = [_component(child, gpu_resources, at_peak, dra) for child in node.children]
    template = node.template or _NO_TEMPLATE
    pods = node.pods()
    # Built in one call: a Component made first and filled in after pays for defaults (an empty
    # PodScheduling among them) that a pod template replaces at once.
    pod_fields = (
        _pod_fields(node, template, pods, gpu_resources, dra)
        if node.demand is not None
        else {
            "min_pods": sum(child.min_pods for child in children),
            "gpus": sum((child.gpus for child in children), _ZERO) if children else _ZERO,
        }
    )
    if dra is not None and node.demand is None:
        pod_fields["devices"] = _summed(child.devices for child in children)
    return Component(
        name=node.name,
        role=node.definition.name,
        instance=node.instance,
        kind=node.kind,
        replicas=node.replicas,
        min_replicas=node.min_replicas,
        max_replicas=node.max_replicas,
        pods_per_replica=node.pods_per_replica,
        parent_replicas=node.parent_replicas,
        pods=pods,
        has_pod_template=node.demand is not None,
        per_node=node.definition.per_node,
        topology_annotations=topology_annotations(template.get("metadata")),
        template_path=node.template_path,
        components=children,
        pods_at_peak=None if at_peak is None else _peak_pods(node, children, at_peak),
        **pod_fields,
    )


def _summed(counts: Iterable[Mapping[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for each in counts:
        for name, count in each.items():
            total[name] = total.get(name, 0) + count
    return total


def _peak_pods(node: ExpandedComponent, children: Sequence[Component], at_peak: Mapping[int, int]) -> int:
    """A component's pods at the peak moment (a grouping's: its children's)."""
    if node.demand is not None:
        return at_peak.get(id(node), 0)
    return sum(child.pods_at_peak or 0 for child in children)


def _pod_fields(
    node: ExpandedComponent,
    template: Mapping[str, Any],
    pods: int,
    gpu_resources: Sequence[str],
    dra: DeviceCounter | None = None,
) -> dict[str, Any]:
    """The fields of a component with a pod template: its pod's demand, filters and QoS."""
    demand = node.demand
    assert demand is not None  # only pod-bearing nodes come here
    min_factor = node.min_replicas if node.min_replicas is not None else node.replicas
    max_pods = None
    if node.max_replicas is not None or node.parent_max_replicas is not None:
        parent_max = node.parent_max_replicas if node.parent_max_replicas is not None else node.parent_replicas
        own_max = node.max_replicas if node.max_replicas is not None else node.replicas
        max_pods = parent_max * own_max * node.pods_per_replica
    gpus = demand.gpus(gpu_resources)
    devices: dict[str, int] = {}
    if dra is not None:
        from .devices import pod_devices

        found, _ = pod_devices(dra, node)
        devices = found.per_pod
        if found.gpus_per_pod:
            gpus += found.gpus_per_pod
    spec = template.get("spec") or {}
    # The template's spec is the one the demand was read from: its NUMA view reuses that reading.
    numa_view = demand.numa()
    try:
        scheduling = pod_scheduling(spec, numa=numa_view)
    except InputError:  # read again at the spec's place (written for an error only), which the error names
        scheduling = pod_scheduling(spec, f"{format_path(node.template_path or [])}.spec".lstrip("."), numa=numa_view)
    numa = scheduling.numa
    return {
        "min_pods": node.parent_gang_replicas * min_factor * node.pods_per_replica,
        "max_pods": max_pods,
        "pod_resources": dict(demand.requests),
        "gpus_per_pod": gpus,
        "gpus": _times(gpus, pods),
        "resource_claims": [dict(claim) for claim in demand.resource_claims],
        "devices_per_pod": dict(devices),
        "devices": {name: count * pods for name, count in devices.items()},
        "scheduling": scheduling,
        "qos_class": numa.qos if numa is not None else None,
        "exclusive_cpus": numa.exclusive_cpus() if numa is not None else {},
    }


_NO_TEMPLATE: Mapping[str, Any] = {}
_ZERO = Fraction(0)


def _times(amount: Fraction, count: int) -> Fraction:
    """``amount * count``, without Fraction arithmetic (~1 us) for the usual zero, one and whole cases."""
    if not amount:
        return _ZERO
    if count == 1:
        return amount
    return Fraction(amount.numerator * count) if amount.denominator == 1 else amount * count


def _identity(resource: Mapping[str, Any]) -> WorkloadRef:
    api_version = resource.get("apiVersion")
    kind = resource.get("kind")
    if not isinstance(api_version, str) or not api_version:
        raise InputError("missing or invalid apiVersion", field="apiVersion")
    if not isinstance(kind, str) or not kind:
        raise InputError("missing or invalid kind", field="kind")
    metadata = resource.get("metadata")
    if metadata.__class__ is not dict and not isinstance(metadata, Mapping):
        raise InputError("missing metadata", field="metadata")
    name = metadata.get("name") or metadata.get("generateName")
    if not isinstance(name, str) or not name:
        raise InputError("missing metadata.name", field="metadata.name")
    namespace = metadata.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        raise InputError("metadata.namespace must be a string", field="metadata.namespace")
    generated = not metadata.get("name")
    return WorkloadRef(api_version=api_version, kind=kind, name=name, namespace=namespace, generate_name=generated)


def _name_warnings(resource: Mapping[str, Any], workload: WorkloadRef) -> list[str]:
    """Names Kubernetes would refuse: the API server never holds such an object, and output escapes them."""
    metadata = resource["metadata"]
    name = metadata.get("name") or f"{metadata.get('generateName')}x"  # a generateName is a prefix
    found = []
    if isinstance(name, str) and (problem := name_problem(name)) is not None:
        found.append(f"metadata.name {name!r} is not a valid Kubernetes name: {problem}")
    namespace = workload.namespace  # a string or None (checked by _identity)
    if namespace is not None and (problem := name_problem(namespace, label=True)) is not None:
        found.append(f"metadata.namespace {namespace!r} is not a valid Kubernetes name: {problem}")
    return found


def _export_hints(definition: Definition) -> ExportHints:
    exports = definition.exports
    return _hints(
        bool(exports.kueue_pod_set_group), exports.volcano_network_topology, bool(definition.gang.standalone_pod_groups)
    )


@lru_cache(maxsize=256)
def _hints(kueue_pod_set_group: bool, volcano_network_topology: str | None, kai_pod_groups: bool) -> ExportHints:
    # ExportHints is frozen: trees of one kind share one, made once (not one per document).
    path = tuple(volcano_network_topology.split(".")) if volcano_network_topology else None
    return ExportHints(
        kueue_pod_set_group=kueue_pod_set_group, volcano_network_topology=path, kai_pod_groups=kai_pod_groups
    )


def _totals(leaves: Sequence[ExpandedComponent], gpu_resources: Sequence[str]) -> Totals:
    """The workload's pods, GPUs and resources, over its pod-bearing components (the pod budget checked first)."""
    counts = [leaf.pods() for leaf in leaves]
    pods = sum(counts)
    if pods > active_budgets().pods:
        _refuse_pods(leaves, pods)
    gpus = _ZERO
    resources: dict[str, Fraction] = {}
    for leaf, count in zip(leaves, counts, strict=True):
        assert leaf.demand is not None  # leaves() yields pod-bearing nodes only
        more = _times(leaf.demand.gpus(gpu_resources), count)
        if more:
            gpus = more if gpus is _ZERO else gpus + more
        add_resources(resources, leaf.demand.requests, count)
    return Totals(pods=pods, gpus=gpus, resources=resources)


def _refuse_pods(leaves: Sequence[ExpandedComponent], total: int) -> None:
    """Refuse a workload of ``total`` pods, more than the budget, naming the component that holds the most.

    The field named is the larger of that component's two factors (its replicas or its pods per
    replica), as the definition read it.
    """
    leaf = max(leaves, key=lambda node: node.pods())
    how = f"{leaf.replicas:,} replicas x {leaf.pods_per_replica:,} pods per replica"
    if leaf.parent_replicas != 1:
        how += f" x {leaf.parent_replicas:,} parent replicas"
    factor = "replicas" if leaf.replicas >= leaf.pods_per_replica else "pods_per_replica"
    check_budget("pods", total, f"pods (component {leaf.path}: {how})", field=leaf.count_field(factor))


def _no_definition(catalog: Catalog, workload: WorkloadRef, source: str | None) -> WorkloadMapError:
    """Why no definition reads ``workload``: a Karta is itself a definition (pass it with --catalog)."""
    if workload.kind == labels.KARTA_KIND and workload.api_version.rpartition("/")[0] == labels.KARTA_GROUP:
        return InputError(
            f"this is a Karta, a definition of how to read a workload kind, not a workload: pass it with "
            f"--catalog {source if source and source != '-' else 'FILE'}",
            field="kind",
        )
    return catalog.no_definition(workload.api_version, workload.kind)


def inspect(
    resource: Mapping[str, Any],
    *,
    catalog: Catalog | None = None,
    gpu_resources: Iterable[str] = DEFAULT_GPU_RESOURCES,
    source: str | None = None,
    related: RelatedObjects | None = None,
) -> WorkloadTree:
    """Expand one Kubernetes object into a normalized :class:`~workloadmap.tree.WorkloadTree`.

    Args:
        resource: the object (a parsed manifest or an object read from a cluster).
        catalog: definitions to use; the built-in catalog when omitted.
        gpu_resources: extended-resource names counted as GPUs.
        source: the file it came from, recorded in the tree.
        related: where to find objects the workload references (a TrainJob's runtime).

    Raises:
        NoDefinitionError: no definition covers the kind.
        InputError: a field has the wrong type, is missing, or holds an invalid quantity.
        ExpressionError: a definition expression failed on this resource.
    """
    if resource.__class__ is not dict and not isinstance(resource, Mapping):
        raise InputError(f"expected a Kubernetes object (a mapping), got {type(resource).__name__}")
    catalog = catalog if catalog is not None else default_catalog()
    gpu_resources = tuple(gpu_resources)
    workload = _identity(resource)
    lookup = catalog.lookup(workload.api_version, workload.kind)
    if lookup is None:
        raise _no_definition(catalog, workload, source)
    definition = lookup.definition
    warnings = [lookup.warning] if lookup.warning else []
    warnings.extend(_name_warnings(resource, workload))
    if not isinstance(definition, Definition):  # a Karta: jq, in its own module (imported when needed)
        from .karta import interpret_karta

        return interpret_karta(
            definition, resource, workload, gpu_resources=gpu_resources, source=source, warnings=warnings
        )
    refs = resolve_references(definition, resource, related or _NO_RELATED, workload.namespace, warnings)
    context = EvaluationContext(definition, resource, refs)
    merged = merge_bases(context)
    if merged is not resource:  # root() is the merged resource from here on
        resource = merged
        context = EvaluationContext(definition, resource, refs)
    _refused(definition, resource, refs, workload)  # before any expression reads a refused value
    expander = Expander(context, catalog=catalog)
    nodes = expander.expand()
    warnings.extend(expander.warnings)
    leaves = [leaf for root in nodes for leaf in root.leaves()]
    totals = _totals(leaves, gpu_resources)  # refuses too many pods before any gang is built from these numbers
    dra, totals, shared_claims = _devices(leaves, related, workload.namespace, gpu_resources, totals, warnings)
    over_run, at_peak = totals, None
    if has_run_order(nodes):  # pods that run one after another: the peaks are what runs at once
        figures = run_figures(nodes, leaves, totals, gpu_resources)
        totals, at_peak = figures.peak, figures.at_peak
    if any(leaf.definition.per_node for leaf in leaves):
        warnings.append(_PER_NODE_WARNING)
    phase, phases = evaluate_phase(definition.status, resource)
    pod_groups, gang_policy = _gangs(context, workload, nodes, at_peak, related or _NO_RELATED, warnings)
    apply_kai_metadata(pod_groups, context, nodes)
    warnings.extend(gang_warnings(context, pod_groups))
    how, count = grouping(definition, pod_groups, totals.pods)
    return WorkloadTree(
        workload=workload,
        definition=definition.name,
        phase=phase,
        phases=phases,
        totals=totals,
        components=[_component(node, gpu_resources, at_peak, dra) for node in nodes],
        pod_groups=pod_groups,
        gang_policy=gang_policy,
        topology_annotations=topology_annotations(resource.get("metadata")),
        warnings=warnings,
        source=source,
        gpu_resources=gpu_resources,
        export_hints=_export_hints(definition),
        grouping=how,
        pod_group_count=count,
        shared_claims=shared_claims,
        over_run=over_run,
    )


def _devices(
    leaves: Sequence[ExpandedComponent],
    related: RelatedObjects | None,
    namespace: str | None,
    gpu_resources: tuple[str, ...],
    totals: Totals,
    warnings: list[str],
) -> tuple[DeviceCounter | None, Totals, list[SharedClaim]]:
    """The DRA counter, the totals with the devices and the shared claims, when some pod asks through DRA.

    A pod asks with claims or with a class's KEP-5004 resource; the counting's warnings join ``warnings``.
    Without such pods: no counter, the totals as they are.
    """
    if not any(leaf.demand and asks_for_dra(leaf.demand.requests, leaf.demand.resource_claims) for leaf in leaves):
        return None, totals, []
    from ..dra import DeviceCounter
    from .devices import count_devices

    counter = DeviceCounter(related or _NO_RELATED, namespace, gpu_resources)
    counted = count_devices(counter, leaves, totals)
    warnings.extend(counted.warnings)
    return counter, counted.totals, counted.shared_claims


def _refused(
    definition: Definition, resource: Mapping[str, Any], refs: Mapping[str, Any], workload: WorkloadRef
) -> None:
    """Raise for a value the operator refuses, or a Workload API object the API server refuses."""
    if workload.api_version.split("/")[0] == labels.SCHEDULING_GROUP:
        validate_native(resource)
    check_values(definition, resource, refs)


_PER_NODE_WARNING = "per-node components (DaemonSet) are counted as one pod; the real count is one per eligible node"


def _gangs(
    context: EvaluationContext,
    workload: WorkloadRef,
    nodes: list[ExpandedComponent],
    at_peak: Mapping[int, int] | None,
    related: RelatedObjects,
    warnings: list[str],
) -> tuple[list[PodGroup], str]:
    """The PodGroups and whose policy they follow: the definition's, or the native ones the pods join."""
    definition = context.definition
    # The user's PodGroups, not the grouper's (KAI #1552, since v0.15: before it, the annotation is not read).
    if kai_has("skip-podgrouper") and skips_podgrouper(context.resource, nodes):
        pod_groups = user_pod_groups(nodes, related, workload.namespace, warnings)
    else:
        pod_groups = form_pod_groups(context, workload.name, nodes, at_peak)
    gang_policy = definition.gang.policy or ("none" if not definition.gang.pod_groups else "")
    native = native_gangs(nodes, related, workload.namespace, context.resource, pod_groups, gang_policy)
    if native is None and workload.kind == labels.JOB_KIND and workload.api_version.split("/")[0] == labels.BATCH_GROUP:
        native, gang_policy = job_controller_gangs(
            context.resource, nodes, related, workload.namespace, pod_groups, gang_policy
        ) or (None, gang_policy)
        if native is not None and native.pod_groups:
            warnings.extend(native.warnings)
            return native.pod_groups, gang_policy
    if native is None:
        return pod_groups, gang_policy
    warnings.extend(native.warnings)
    if native.pod_groups:  # kube-scheduler gangs by the native PodGroups the pods join
        return native.pod_groups, NATIVE_POLICY
    return pod_groups, gang_policy


_DEFAULT_CATALOG: Catalog | None = None


def default_catalog() -> Catalog:
    """The built-in catalog plus ``WMAP_CATALOG`` directories, loaded once per process."""
    global _DEFAULT_CATALOG
    if _DEFAULT_CATALOG is None:
        _DEFAULT_CATALOG = Catalog.load()
    return _DEFAULT_CATALOG


@dataclass
class InspectResult:
    """What happened to one document: a tree, a skip note, or an error (each with its location)."""

    document: Document | None
    tree: WorkloadTree | None = None
    skipped: str | None = None
    error: WorkloadMapError | None = None


def _skipped_kind(body: Any, catalog: Catalog) -> str | None:
    """The kind of a document that travels with workloads but runs no pods, if it is one.

    A Karta the catalog already holds (the input's directory given with ``--catalog`` too) is one:
    a definition, read as such; any other Karta is an error saying to pass it with ``--catalog``.
    """
    if body.__class__ is not dict and not isinstance(body, Mapping):
        return None
    kind, api_version = body.get("kind"), body.get("apiVersion")
    if kind == labels.KARTA_KIND and api_version.__class__ is str and api_version.startswith(labels.KARTA_GROUP + "/"):
        metadata = body.get("metadata")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        return "Karta (a definition, read with --catalog)" if isinstance(name, str) and catalog.get(name) else None
    if (
        isinstance(kind, str)
        and kind in NON_WORKLOAD_KINDS
        and isinstance(api_version, str)
        and catalog.lookup(api_version, kind) is None
    ):
        return kind
    return None


def inspect_documents(
    documents: Iterable[Document | WorkloadMapError],
    *,
    catalog: Catalog | None = None,
    gpu_resources: Iterable[str] = DEFAULT_GPU_RESOURCES,
    related: RelatedObjects | None = None,
    fold_controlled: bool = True,
) -> Iterator[InspectResult]:
    """Inspect each document, never stopping at a bad one; non-workload kinds are skipped with a note.

    With ``fold_controlled`` (the default), an object whose controller (an ``ownerReference`` with
    ``controller: true``) is a workload of the same input is part of it, skipped with a note: a
    namespace dump's Jobs and pods are not counted beside their JobSet (see :mod:`.owned`). A list
    of Nodes is one error (they are a topology, read with ``-t``), not one note per node.

    An unexpected exception (a bug, memory or recursion exhausted) in one document becomes an
    :class:`~workloadmap.errors.InternalError` located at that document; only the command's
    deadline stops the loop.

    Objects of the input can reference each other (a TrainJob and its runtime in one file); more
    related objects come through ``related``, which is asked after the input's own objects.

    Documents are read as they are interpreted, 128 at a time with the cyclic collector paused, and
    the batch's results handed out after it (and after one young collection, see
    ``loader.paused_gc``): a caller that stops early has paid for the rest of its batch, and a
    deadline inside a batch drops that batch's results with the command. Nothing of a document is
    kept after its result but its body when it is of a kind a reference can name (see
    :class:`_Stream`), so memory does not grow with the stream.
    """
    catalog = catalog if catalog is not None else default_catalog()
    gpu_resources = tuple(gpu_resources)
    stream = _Stream(documents, catalog.referenced_kinds() | _DRA_KINDS, fold=catalog if fold_controlled else None)
    own = ObjectIndex.deferred(stream.referable(), kinds=stream.kinds)
    sources = ChainedObjects(own, related) if related is not None else own
    while True:
        # The collector runs between batches, not every few hundred allocations: each full collection
        # walks every object alive. A batch's results are examined once, at its end, not again in
        # the middle generation.
        with paused_gc(promote=True):
            batch = [
                _skipped(document, note)
                if note is not None
                else _inspect_one(document, catalog, gpu_resources, sources)
                for document, note in stream.next_batch(_BATCH)
            ]
        if not batch:
            return
        yield from (result for result in batch if result.skipped != "")


class _Stream:
    """An input's documents, read one batch at a time, with the objects other documents may reference.

    A workload can reference an object anywhere in the input, after it too (a TrainJob before its
    runtime). The bodies of referable kinds are kept as their documents go by; when a workload
    first asks for one, :meth:`referable` reads the rest of the input ahead, so the index sees every
    object of the input, in order, as when the whole input was read first. What it reads ahead waits
    for its turn as ``marshal`` bytes (a parsed document holds only JSON values: a few times smaller
    than the objects, and read back several times faster than YAML is parsed), so even then memory
    stays near the size of the input's text.

    With ``fold`` (the catalog), objects whose controller is a workload of the same input, and the
    Nodes of a NodeList, are skipped with a note (:mod:`.owned`), and the pods of a Kueue pod group
    are one workload, made in the first member's place (:mod:`.kueue_groups`). That needs the whole input, but
    only once such an object turns up: until then each document leaves only its identity (kind,
    name, namespace, uid: what an owner reference names); at the first one the rest is read ahead
    and the notes are decided for every document at once.
    """

    def __init__(
        self, documents: Iterable[Document | WorkloadMapError], kinds: frozenset[str], *, fold: Catalog | None = None
    ) -> None:
        self.kinds = kinds
        self._rest: Iterator[Document | WorkloadMapError] = iter(documents)
        self._ahead: deque[Document | WorkloadMapError | _Marshalled] = deque()
        self._kept: list[Any] | None = []  # None once the index has read everything
        self._fold = fold
        self._identities: list[_Identity | None] | None = [] if fold is not None else None  # None once decided
        self._notes: dict[int, str] = {}
        self._replaced: dict[int, Document | WorkloadMapError] = {}
        self._position = 0

    def next_batch(self, size: int) -> list[tuple[Document | WorkloadMapError, str | None]]:
        """The next ``size`` documents (fewer at the end, none after it), each with its skip note or None."""
        batch: list[Document | WorkloadMapError] = []
        ahead = self._ahead
        while ahead and len(batch) < size:
            waiting = ahead.popleft()
            batch.append(waiting.restored() if isinstance(waiting, _Marshalled) else waiting)
        if len(batch) < size:
            for document in itertools.islice(self._rest, size - len(batch)):
                self._read(document)
                batch.append(document)
        if self._identities is not None and any(_folded(document) for document in batch):
            self._decide(batch, self._position)
        start, self._position = self._position, self._position + len(batch)
        notes, replaced = self._notes, self._replaced
        return [
            (replaced.get(position, document), notes.get(position)) for position, document in enumerate(batch, start)
        ]

    def _read(self, document: Document | WorkloadMapError) -> None:
        """What a document read from the input leaves behind: its body if referable, its identity for folding."""
        if self._kept is not None and isinstance(document, Document) and self._referable(document.body):
            self._kept.append(document.body)
        if self._identities is not None:
            self._identities.append(_identity_of(document))

    def _decide(self, batch: Sequence[Document | WorkloadMapError], start: int) -> None:
        """Read the rest of the input ahead and decide every document's note (once).

        ``batch`` holds the documents from position ``start`` on, the ones read ahead follow it: every
        document that can fold is among them (an earlier one would have decided before).
        """
        for document in self._rest:
            self._read(document)
            self._wait(document)
        kept = self._identities or []
        identities = [identity.document() if identity is not None else None for identity in kept]
        self._identities = None
        assert self._fold is not None
        self._notes = controlled_notes(identities, self._fold)
        self._group(kept, batch, start)
        for nodes in node_lists(identities):
            first = identities[nodes[0]]
            assert first is not None
            self._notes.update(dict.fromkeys(nodes[1:], ""))  # said once, at the first node
            self._replaced[nodes[0]] = InputError(
                f"this is a NodeList ({len(nodes)} nodes), not workloads; pass it with -t", file=first.file
            ).located(document=f"#{first.index}")

    def _group(
        self, kept: Sequence[_Identity | None], batch: Sequence[Document | WorkloadMapError], start: int
    ) -> None:
        """Kueue's plain-pod groups of the input (those not folded into a controller): one workload each."""
        groups: dict[GroupKey, list[GroupMember]] = {}
        for position, identity in enumerate(kept):
            if identity is None or identity.group is None or position in self._notes:
                continue
            offset = position - start
            found = batch[offset] if offset < len(batch) else self._ahead[offset - len(batch)]
            document = found.restored() if isinstance(found, _Marshalled) else found
            if isinstance(document, Document):
                groups.setdefault(identity.group, []).append(GroupMember(position, document))
        if groups:
            decision = decide_groups(groups)
            self._notes.update(decision.notes)
            self._replaced.update(decision.replaced)

    def _referable(self, body: Any) -> bool:
        # what the index keeps: objects of the kinds a reference names (anything else not a dict it judges itself)
        if body.__class__ is not dict:
            return True
        kind = body.get("kind")
        return kind.__class__ is str and kind in self.kinds

    def referable(self) -> Iterator[Any]:
        """Every body of the input, those read so far then the rest, read ahead (once, for the index)."""
        kept, self._kept = self._kept or [], None
        yield from kept
        for document in self._rest:
            self._read(document)  # its identity, for folding (nothing is kept aside any more)
            if self._wait(document):
                assert isinstance(document, Document)
                yield document.body

    def _wait(self, document: Document | WorkloadMapError) -> bool:
        """Hold a document read ahead until its turn; whether its body is referable (held as it is).

        A body the index passes by waits as ``marshal`` bytes, small until its turn.
        """
        if not isinstance(document, Document):
            self._ahead.append(document)
            return False
        if self._referable(document.body):
            self._ahead.append(document)
            return True
        self._ahead.append(_Marshalled.of(document))
        return False


def _folded(document: Document | WorkloadMapError) -> bool:
    """Whether a document may be skipped as part of another (it names a controller) or is a listed Node."""
    if document.__class__ is not Document:
        return False
    assert isinstance(document, Document)
    body = document.body
    if body.__class__ is not dict:
        return False
    if document.item is not None and body.get("kind") == "Node":
        return True
    metadata = body.get("metadata")
    return metadata.__class__ is dict and bool(metadata.get("ownerReferences")) or group_key(body) is not None


class _Identity(NamedTuple):
    """What folding reads of a document, held for each until the first that may fold: a tuple, small.

    Its kind and apiVersion and the metadata an owner reference names (``metadata`` None for a
    body that is no mapping), made a light :class:`Document` again when the notes are decided.
    """

    file: str
    number: int
    item: int | None
    api_version: Any
    kind: Any
    metadata: dict[str, Any] | None
    group: GroupKey | None = None  # the Kueue pod group a Pod names

    def document(self) -> Document:
        if self.metadata is None:
            return Document(None, self.file, self.number, self.item)
        body = {"apiVersion": self.api_version, "kind": self.kind, "metadata": self.metadata}
        return Document(body, self.file, self.number, self.item)


_IDENTITY_FIELDS = ("name", "namespace", "uid", "ownerReferences")


def _identity_of(document: Document | WorkloadMapError) -> _Identity | None:
    """A document's :class:`_Identity` (None for an error in its place)."""
    if document.__class__ is not Document:
        return None
    assert isinstance(document, Document)
    body = document.body
    if body.__class__ is not dict:
        return _Identity(document.file, document.index, document.item, None, None, None)
    metadata = body.get("metadata")
    kept = {key: metadata[key] for key in _IDENTITY_FIELDS if key in metadata} if metadata.__class__ is dict else {}
    return _Identity(
        document.file, document.index, document.item, body.get("apiVersion"), body.get("kind"), kept, group_key(body)
    )


class _Marshalled(NamedTuple):
    """A document read ahead, its body as ``marshal`` bytes."""

    data: bytes
    file: str
    number: int
    item: int | None
    warnings: list[str]

    @classmethod
    def of(cls, document: Document) -> _Marshalled | Document:
        try:
            data = marshal.dumps(document.body)
        except ValueError:  # not a plain value after all (or nested past marshal's depth): kept as it is
            return document
        return cls(data, document.file, document.index, document.item, document.warnings)

    def restored(self) -> Document:
        return Document(marshal.loads(self.data), self.file, self.number, self.item, self.warnings)


_BATCH = 128


def _skipped(document: Document | WorkloadMapError, note: str) -> InspectResult:
    """A document folded into its controller's workload (or a Node after a NodeList's first): its note."""
    return InspectResult(document if isinstance(document, Document) else None, skipped=note)


_DRA_KINDS = frozenset(labels.DRA_KINDS)  # what pods' DRA claims are resolved through
"""Documents interpreted between two chances for the cyclic garbage collector to run."""


def _inspect_one(
    document: Document | WorkloadMapError, catalog: Catalog, gpu_resources: tuple[str, ...], sources: RelatedObjects
) -> InspectResult:
    check_deadline("interpreting the documents")
    if isinstance(document, WorkloadMapError):
        return InspectResult(None, error=document)
    kind = _skipped_kind(document.body, catalog)
    if kind is not None:
        return InspectResult(
            document, skipped=f"{document.file}: document {document.label}: skipped {kind}, not a workload"
        )
    try:
        tree = inspect(
            document.body, catalog=catalog, gpu_resources=gpu_resources, source=document.file, related=sources
        )
    except DeadlineError:
        raise  # the whole command stops, not this document
    except WorkloadMapError as error:
        return InspectResult(document, error=error.located(file=document.file, document=document.label))
    except Exception as error:  # a bug or exhaustion in one document must not hide the others
        return InspectResult(document, error=internal_error(error).located(file=document.file, document=document.label))
    tree.warnings.extend(document.warnings)
    return InspectResult(document, tree=tree)


def inspect_file(
    path: str,
    *,
    catalog: Catalog | None = None,
    gpu_resources: Iterable[str] = DEFAULT_GPU_RESOURCES,
    recursive: bool = False,
    related: RelatedObjects | None = None,
) -> list[InspectResult]:
    """Inspect every object in FILE|DIR|- (see :func:`inspect_documents`)."""
    documents = load_objects(path, recursive=recursive)
    return list(inspect_documents(documents, catalog=catalog, gpu_resources=gpu_resources, related=related))
