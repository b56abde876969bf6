"""Loading a cluster from any topology source; the reader is chosen from a table, by content.

Sources, as :func:`load_cluster` accepts them:

* ``preset:NAME``, a named example cluster (:mod:`.simulation`), and ``cluster:[CONTEXT]``, the
  nodes, running pods and DRA ResourceSlices of a live cluster (read-only, :mod:`workloadmap.kube`): chosen by prefix
  from :data:`PREFIX_READERS`;
* a file (``-`` for standard input), whose format is recognised by content from
  :data:`FILE_FORMATS`, in order: a Slurm ``topology.conf`` (tree or block plugin), a Slurm
  ``topology.yaml``, a Topograph simulation model, a Kubernetes ``NodeList`` / ``List`` of Nodes
  / ``Node`` objects in YAML or JSON.

Levels come from, in this order: an explicit ``levels`` list, a KAI or Kueue ``Topology`` object,
the source itself (Slurm files and presets state their levels), or
:func:`~workloadmap.topology.levels.detect_levels` over the node labels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..documents import Document, iter_documents, load_objects
from ..errors import BudgetError, InputError, TopologyError
from ..labels import CLUSTER_NAME
from ..loader import TOPOLOGY_LIMITS, paused_gc
from ..numa import TopologyManager
from .devices import read_located_devices, split_device_objects, with_devices
from .kubernetes import (
    StatedTopology,
    apply_pods,
    cluster_from_objects,
    nodes_from_documents,
    set_levels,
    stated_topology,
)
from .levels import detect_levels
from .model import Cluster, NodeCapacity, validate_levels
from .noderesourcetopology import (
    apply_topology_manager,
    attach_node_topologies,
    read_node_topologies,
    split_topology_objects,
)
from .simulation import example_cluster
from .slurm import cluster_from_slurm, looks_like_topology_conf, parse_topology_conf, parse_topology_yaml
from .stream import TopologyInput, read_topology_input
from .topograph import cluster_from_model, is_model

__all__ = [
    "PRESET_PREFIX",
    "LIVE_PREFIX",
    "MAX_TOPOLOGY_BYTES",
    "SourceFormat",
    "SourcePrefix",
    "FILE_FORMATS",
    "PREFIX_READERS",
    "source_forms",
    "read_topology_documents",
    "read_topology_object",
    "read_stated_topology",
    "detect_format",
    "load_cluster",
]

PRESET_PREFIX = "preset:"
LIVE_PREFIX = "cluster:"
"""``cluster:`` reads the current kubeconfig context's cluster, ``cluster:NAME`` another context."""

MAX_TOPOLOGY_BYTES = TOPOLOGY_LIMITS.max_bytes
"""A NodeList of 100,000 nodes is a few hundred MiB of JSON; workload files stay under a smaller limit."""


def _display_name(source: str | Path) -> str:
    return "-" if str(source) == "-" else str(source)


def _stem(source: str | Path) -> str:
    if str(source) == "-":
        return "stdin"
    name = Path(str(source)).name
    for suffix in (".yaml", ".yml", ".json", ".conf"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name or "cluster"


def _read_input(source: str | Path) -> TopologyInput:
    """The file's text, or its one JSON object read item by item (:mod:`.stream`)."""
    name = _display_name(source)
    try:
        return read_topology_input(name, limits=TOPOLOGY_LIMITS)
    except BudgetError:
        raise  # located already, and a budget error stays one
    except InputError as error:
        raise TopologyError(error.message, file=name) from None


def _parse_documents(text: str, file: str) -> list[Any]:
    """YAML or JSON documents (empty documents dropped), through wmap's one safe loader."""
    bodies = []
    for item in iter_documents(text, file, limits=TOPOLOGY_LIMITS):
        if isinstance(item, InputError):
            raise TopologyError(item.message, file=file, document=item.document) from None
        if item.body is not None:
            bodies.append(item.body)
    return bodies


def read_topology_documents(source: str | Path) -> list[Any]:
    """The non-empty documents of a topology-side file (NodeList, PodList, Topology object).

    Raises:
        TopologyError: the file is missing, unreadable, not UTF-8, or not valid YAML/JSON.
    """
    read = _read_input(source)
    if read.text is None:
        return [read.document]
    return _parse_documents(read.text, _display_name(source))


def read_topology_object(source: str | Path) -> list[str]:
    """Read a KAI/Kueue ``Topology`` object file and return its levels."""
    return read_stated_topology(source).levels


def read_stated_topology(source: str | Path) -> StatedTopology:
    """Read a KAI/Kueue ``Topology`` (or Grove ClusterTopologyBinding) file: its name, levels and aliases."""
    return stated_topology(read_topology_documents(source), file=_display_name(source))


@dataclass
class _Source:
    """One file being read: its text (None when streamed), its documents (parsed when a format needs them)."""

    name: str
    stem: str
    text: str | None
    capacity: NodeCapacity | None = None
    slurm_topology: str | None = None
    devices: list[Document] = field(default_factory=list)
    _documents: list[Any] | None = field(default=None, repr=False)

    @classmethod
    def read(cls, source: str | Path, slurm_topology: str | None = None) -> _Source:
        read = _read_input(source)
        documents = None if read.text is not None else [read.document]
        return cls(_display_name(source), _stem(source), read.text, slurm_topology=slurm_topology, _documents=documents)

    @property
    def documents(self) -> list[Any]:
        if self._documents is None:
            assert self.text is not None  # streamed sources come with their document
            self._documents = _parse_documents(self.text, self.name)
            if not self._documents:
                raise TopologyError("the file holds no documents", file=self.name)
        return self._documents

    def node_capacity(self) -> NodeCapacity:
        return self.capacity or NodeCapacity()


def _is_slurm_yaml(source: _Source) -> bool:
    documents = source.documents
    first = documents[0]
    return (
        len(documents) == 1
        and isinstance(first, list)
        and bool(first)
        and all(isinstance(item, dict) and "topology" in item for item in first)
    )


def _kinds(documents: list[Any]) -> set[str]:
    """The kinds the documents name (a kind that is not a string names none: the reader says what is wrong)."""
    return {
        kind for document in documents if isinstance(document, dict) and isinstance(kind := document.get("kind"), str)
    }


def _is_nodelist(source: _Source) -> bool:
    documents = [document for document in source.documents if isinstance(document, dict)]
    kinds = _kinds(documents)
    lists = [document.get("items") for document in documents if document.get("kind") == "List"]
    return bool(kinds & {"Node", "NodeList"}) or any(
        # A List whose items are not a list is read as one, so the reader names the field.
        (items is not None and not isinstance(items, list))
        or any(isinstance(item, dict) and item.get("kind", "Node") == "Node" for item in items or [])
        for items in lists
    )


def _read_slurm_conf(source: _Source) -> Cluster:
    if source.slurm_topology not in (None, "default"):
        raise TopologyError(
            f"a topology.conf holds only the topology 'default', not {source.slurm_topology!r}", file=source.name
        )
    parsed = parse_topology_conf(source.text or "", file=source.name)
    return cluster_from_slurm(parsed, source.node_capacity(), name=source.stem, file=source.name)


def _read_slurm_yaml(source: _Source) -> Cluster:
    parsed = parse_topology_yaml(source.documents[0], file=source.name, topology=source.slurm_topology)
    return cluster_from_slurm(parsed, source.node_capacity(), name=source.stem, file=source.name)


def _read_model(source: _Source) -> Cluster:
    return cluster_from_model(source.documents[0], source.node_capacity(), name=source.stem, file=source.name)


def _read_nodelist(source: _Source) -> Cluster:
    documents, topologies = split_topology_objects(source.documents)
    # `kubectl get nodes,resourceslices,deviceclasses,resourceclaims -o yaml`: the DRA objects are
    # kept for the loader, which reads them with any --resource-slices files, once.
    documents, source.devices = split_device_objects(documents, source.name)
    nodes = nodes_from_documents(documents, file=source.name)
    # A generated cluster keeps the name it was given (`topology generate --name`) on its nodes.
    names = {node.labels.get(CLUSTER_NAME) for node in nodes}
    name = names.pop() if len(names) == 1 and None not in names else source.stem
    cluster = Cluster(name=str(name), nodes=nodes, levels=detect_levels(nodes), source=source.name)
    if topologies:  # `kubectl get nodes,noderesourcetopologies -o yaml` in one file
        attach_node_topologies(cluster, read_node_topologies(topologies, file=source.name))
    return cluster


@dataclass(frozen=True)
class SourceFormat:
    """A topology file format: how to recognise it and how to read it.

    Attributes:
        name: the format's name (``slurm-conf``, ``nodelist`` ...).
        described: the format in words, for messages and help (``a Slurm topology.conf``).
        matches: whether a file is of this format (may parse its documents, once).
        read: the reader.
        states_capacity: the format states each node's capacity (per-node options are refused).
        slurm: the format holds Slurm topologies (``slurm_topology`` applies).
    """

    name: str
    described: str
    matches: Callable[[_Source], bool]
    read: Callable[[_Source], Cluster]
    states_capacity: bool = False
    slurm: bool = False


FILE_FORMATS: tuple[SourceFormat, ...] = (
    SourceFormat(
        "slurm-conf",
        "a Slurm topology.conf (tree or block plugin)",
        lambda source: source.text is not None and looks_like_topology_conf(source.text),
        _read_slurm_conf,
        slurm=True,
    ),
    SourceFormat("slurm-yaml", "a Slurm topology.yaml", _is_slurm_yaml, _read_slurm_yaml, slurm=True),
    SourceFormat(
        "model",
        "a Topograph simulation model (switches/blocks)",
        lambda source: len(source.documents) == 1 and is_model(source.documents[0]),
        _read_model,
    ),
    SourceFormat(
        "nodelist",
        "a Kubernetes NodeList or Node objects (YAML or JSON, as `kubectl get nodes -o json` prints them)",
        _is_nodelist,
        _read_nodelist,
        states_capacity=True,
    ),
)
"""File formats, in the order they are tried."""


def _not_a_source(source: _Source) -> TopologyError:
    kinds = _kinds(source.documents)
    if "Topology" in kinds:
        return TopologyError(
            "this is a Topology object (levels only); pass it as the topology object, not the source", file=source.name
        )
    if kinds & {"Pod", "PodList"}:
        return TopologyError("this holds Pods; pass it as the pods file, not the source", file=source.name)
    expected = [file_format.described for file_format in FILE_FORMATS]
    return TopologyError(
        f"not a recognised topology source: expected {', '.join(expected[:-1])} or {expected[-1]}", file=source.name
    )


def _format_of(source: _Source) -> SourceFormat:
    if source.text is not None and not source.text.strip():
        raise TopologyError("the file is empty", file=source.name)
    for candidate in FILE_FORMATS:
        if candidate.matches(source):
            return candidate
    raise _not_a_source(source)


def detect_format(source: str | Path) -> str:
    """The kind of a topology source: ``preset``, ``cluster`` or a :data:`FILE_FORMATS` name.

    Raises:
        TopologyError: unreadable, or none of these (the message lists what is accepted).
    """
    for prefix in PREFIX_READERS:
        if str(source).startswith(prefix):
            return prefix.rstrip(":")
    name = _display_name(source)
    return _format_of(_Source.read(name)).name


def _read_preset(name: str, with_pods: bool) -> tuple[Cluster, list[Document]]:
    return example_cluster(name), []


def _read_live(context: str, with_pods: bool) -> tuple[Cluster, list[Document]]:
    """Nodes (and the pods using them, their DRA ResourceSlices) read from a live API server, with GET only."""
    from ..kube import ClusterClient  # the kubernetes client is imported on live paths only

    source = f"{LIVE_PREFIX}{context}"
    with ClusterClient(context=context or None) as client:
        nodes = client.nodes()
        pods = client.pods() if with_pods else None
        topologies = client.node_topologies()
        devices = client.dra_objects()
        name = client.context or "cluster"
    cluster = cluster_from_objects([nodes], [pods] if pods is not None else None, name=name, source=source)
    if topologies is not None:
        attach_node_topologies(cluster, read_node_topologies([topologies], file=source))
    return cluster, [Document(obj, source, number) for number, obj in enumerate(devices, start=1)]


@dataclass(frozen=True)
class SourcePrefix:
    """A source named by a prefix (``preset:NAME``) rather than read from a file.

    Attributes:
        what: what such a source is called in messages (``a preset``).
        form: how it is written (``preset:NAME``).
        described: what it is, in words, for help.
        read: the reader: it gets the rest of the name and whether to read the pods that use capacity too,
            and gives the cluster and the DRA objects (ResourceSlices ...) read with it.
    """

    what: str
    form: str
    described: str
    read: Callable[[str, bool], tuple[Cluster, list[Document]]]


PREFIX_READERS: dict[str, SourcePrefix] = {
    PRESET_PREFIX: SourcePrefix("a preset", "preset:NAME", "a named example cluster", _read_preset),
    LIVE_PREFIX: SourcePrefix(
        "a live cluster", "cluster:[CONTEXT]", "the live cluster's nodes and running pods, read-only", _read_live
    ),
}
"""Sources named by a prefix, by prefix."""


def source_forms() -> tuple[str, ...]:
    """Every form a topology source takes, in words: the file formats, the prefixed sources, standard input."""
    files = (file_format.described for file_format in FILE_FORMATS)
    prefixed = (f"{prefix.form} ({prefix.described})" for prefix in PREFIX_READERS.values())
    return (*files, *prefixed, "- (standard input)")


@dataclass(frozen=True)
class CapacityOptions:
    """Per-node capacity for sources that describe topology but not nodes (Slurm files, models)."""

    gpus_per_node: int | None = None
    cpus_per_node: str | int | None = None
    memory_per_node: str | int | None = None
    pods_per_node: int | None = None
    gpu_resource: str | None = None

    def given(self) -> bool:
        return any(value is not None for value in vars(self).values())

    def capacity(self) -> NodeCapacity:
        defaults = NodeCapacity()
        capacity = NodeCapacity(
            gpus=defaults.gpus if self.gpus_per_node is None else self.gpus_per_node,
            cpu=defaults.cpu if self.cpus_per_node is None else self.cpus_per_node,
            memory=defaults.memory if self.memory_per_node is None else self.memory_per_node,
            pods=defaults.pods if self.pods_per_node is None else self.pods_per_node,
            gpu_resource=self.gpu_resource or defaults.gpu_resource,
        )
        capacity.allocatable()  # validate now, naming the option
        return capacity


def _read_source(
    source: str | Path, options: CapacityOptions, slurm_topology: str | None, with_pods: bool
) -> tuple[Cluster, list[Document]]:
    """The cluster, and the DRA objects (ResourceSlices ...) its file carried beside the nodes."""
    name = _display_name(source)
    for prefix, reader in PREFIX_READERS.items():
        if name.startswith(prefix):
            if options.given():
                raise TopologyError(
                    f"per-node capacity options do not apply to {reader.what} (it states its capacity)", file=name
                )
            if slurm_topology is not None:
                raise TopologyError("a Slurm topology name only applies to Slurm topology files", file=name)
            return reader.read(name[len(prefix) :], with_pods)
    file = _Source.read(source, slurm_topology=slurm_topology)
    chosen = _format_of(file)
    if slurm_topology is not None and not chosen.slurm:
        raise TopologyError("a Slurm topology name only applies to Slurm topology files", file=name)
    if options.given():
        if chosen.states_capacity:
            raise TopologyError(
                "per-node capacity options only apply to Slurm files and simulation models; "
                "a NodeList states each node's allocatable",
                file=name,
            )
        file.capacity = options.capacity()
    cluster = chosen.read(file)
    if cluster.source == "-":
        cluster.source = "stdin"
    if not chosen.states_capacity and options.gpus_per_node is None:
        default = NodeCapacity()
        cluster.notes.append(
            f"the source states no node capacity: each node is taken to have {default.gpus} GPUs, "
            f"{default.cpu} cpu and {default.memory} memory (give --gpus-per-node and friends)"
        )
    return cluster, file.devices


def _device_documents(paths: Sequence[str | Path]) -> list[Document]:
    """Every object of the ResourceSlice files or directories (other kinds are ignored when read)."""
    found = []
    for path in paths:
        for document in load_objects(str(path), recursive=True):
            if isinstance(document, InputError):
                raise document
            found.append(document)
    return found


def load_cluster(
    source: str | Path,
    *,
    levels: Sequence[str] | None = None,
    pods_file: str | Path | None = None,
    topology_object: str | Path | None = None,
    gpus_per_node: int | None = None,
    cpus_per_node: str | int | None = None,
    memory_per_node: str | int | None = None,
    pods_per_node: int | None = None,
    gpu_resource: str | None = None,
    slurm_topology: str | None = None,
    node_topology: str | Path | None = None,
    topology_manager: TopologyManager | None = None,
    resource_slices: Sequence[str | Path] | None = None,
) -> Cluster:
    """Read a cluster from a topology source (format detected from the content).

    Args:
        source: a file path (``-`` for standard input), ``preset:NAME``, or ``cluster:`` /
            ``cluster:CONTEXT`` for the nodes and running pods of a live cluster (read-only; the
            kubeconfig comes from ``$KUBECONFIG`` or ``~/.kube/config``).
        levels: explicit levels, widest first (validated like a KAI/Kueue Topology).
        pods_file: a Pod/PodList file whose running pods use capacity.
        topology_object: a KAI or Kueue ``Topology`` file stating the levels.
        gpus_per_node: GPUs per node, for sources that describe topology but not nodes (Slurm
            files and simulation models; default :class:`NodeCapacity`). The capacity options are
            refused for sources that state their own capacity (NodeLists, presets, live clusters).
        cpus_per_node: cpu per node, likewise.
        memory_per_node: memory per node, likewise.
        pods_per_node: pod slots per node, likewise.
        gpu_resource: the GPU resource name those nodes offer, likewise.
        slurm_topology: which named topology of a Slurm ``topology.yaml`` to read.
        node_topology: a file of ``NodeResourceTopology`` objects giving nodes their NUMA layout
            (a NodeList file or a live cluster may carry them too).
        topology_manager: the kubelet's topology manager settings for nodes whose objects do not
            state them (default: policy ``none``, scope ``container``), and its policy options.
        resource_slices: files or directories of DRA ResourceSlices (with DeviceClasses and
            allocated ResourceClaims): each node's free devices become capacity
            (:func:`~workloadmap.topology.devices.with_devices`). A NodeList file that carries
            such objects beside its Nodes is read the same way, together with these, once.

    Raises:
        ValueError: both ``levels`` and ``topology_object`` given.
        TopologyError: unreadable or unrecognised source, bad content, capacity options for a
            source that states capacity, or a stated level that no node carries.
    """
    if levels is not None and topology_object is not None:
        raise ValueError("give either explicit levels or a Topology object, not both")
    options = CapacityOptions(gpus_per_node, cpus_per_node, memory_per_node, pods_per_node, gpu_resource)
    with paused_gc():  # a cluster is a tree of new objects without cycles; see loader.paused_gc
        cluster, devices = _read_source(source, options, slurm_topology, with_pods=pods_file is None)
        if pods_file is not None:
            apply_pods(cluster, read_topology_documents(pods_file), file=_display_name(pods_file))
    if topology_object is not None:
        stated = read_stated_topology(topology_object)
        set_levels(cluster, stated.levels, stated_in=_display_name(topology_object), stated=stated)
    elif levels is not None:
        set_levels(cluster, validate_levels(list(levels)))
    if node_topology is not None:
        name = _display_name(node_topology)
        unknown = attach_node_topologies(
            cluster, read_node_topologies(read_topology_documents(node_topology), file=name)
        )
        if unknown and len(unknown) == len({*unknown}) and not any(node.numa for node in cluster.nodes):
            raise TopologyError(f"names no node of the cluster (first: {unknown[0]!r})", file=name)
    apply_topology_manager(cluster, topology_manager or TopologyManager())
    if devices or resource_slices is not None:
        devices += _device_documents(resource_slices or ())
        cluster = with_devices(cluster, read_located_devices(devices))
    return cluster
