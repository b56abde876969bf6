"""Reading cluster topology: Kubernetes NodeLists, pods, Topology objects, Slurm files, models.

The public entry point is :func:`load_cluster`; it detects the kind of source by its content:

* a Kubernetes ``NodeList`` / ``List`` / single ``Node`` or a multi-document stream of them,
  in YAML or JSON (``kubectl get nodes -o yaml``);
* a Slurm ``topology.conf`` (tree or block plugin) or ``topology.yaml`` (see :mod:`workloadmap.slurm`);
* a Topograph simulation model (``switches`` + ``blocks``, or the legacy ``capacity_blocks``);
* ``preset:NAME``, a named example cluster (see :mod:`workloadmap.simulation`).

Levels come from, in this order: an explicit ``levels`` list, a KAI (``kai.scheduler/v1alpha1``)
or Kueue (``kueue.x-k8s.io/v1beta1|v1beta2``) ``Topology`` object, the source itself (Slurm files
and presets state their levels), or :func:`detect_levels` over the node labels. Explicit levels
are used exactly as stated (validated like KAI/Kueue do: hostname only last); detected levels
always end with ``kubernetes.io/hostname``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any


from .documents import iter_documents, read_text
from .errors import InputError, QuantityError, TopologyError
from .quantities import parse_quantity
from .resources import pod_demand
from .simulation import (
    ACCELERATOR_DOMAIN_LABEL,
    ACCELERATOR_SUB_DOMAIN_LABEL,
    GPU_CLIQUE_LABEL,
    TIER_LABEL,
    ZONE_LABEL,
    example_cluster,
)
from .slurm import cluster_from_slurm, looks_like_topology_conf, parse_topology_conf, parse_topology_yaml
from .topology import HOSTNAME_LABEL, Cluster, Node, NodeCapacity, validate_levels

__all__ = [
    "PRESET_PREFIX",
    "LevelScheme",
    "FABRIC_SCHEMES",
    "ACCELERATOR_SCHEMES",
    "detect_levels",
    "detect_schemes",
    "read_documents",
    "nodes_from_documents",
    "apply_pods",
    "read_topology_object",
    "topology_object_levels",
    "cluster_from_model",
    "cluster_from_objects",
    "detect_format",
    "load_cluster",
]

PRESET_PREFIX = "preset:"
# `cluster:` reads the current kubeconfig context's cluster, `cluster:NAME` another context (read-only).
LIVE_PREFIX = "cluster:"

_TOPOGRAPH_TIER_RE = re.compile(r"^fabric\.topograph\.run/tier-([0-9]+)$")
_TOPOLOGY_API_VERSIONS = ("kai.scheduler/v1alpha1", "kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2")
# Topograph simulation models put accelerator domains in annotations under these keys.
_MODEL_DOMAIN_ANNOTATION = "accelerator.topology.test/domain"
_MODEL_SUB_DOMAIN_ANNOTATION = "accelerator.topology.test/sub-domain"
_TERMINATED_PHASES = ("Succeeded", "Failed")


@dataclass(frozen=True)
class LevelScheme:
    """A known set of topology label keys, widest first (``tier-N`` keys are found by pattern)."""

    name: str
    keys: tuple[str, ...]
    description: str


FABRIC_SCHEMES: tuple[LevelScheme, ...] = (
    LevelScheme("topograph", (), "Topograph >= v1.0 fabric.topograph.run/tier-N (highest N widest)"),
    LevelScheme(
        "topograph-legacy",
        ("network.topology.nvidia.com/core", "network.topology.nvidia.com/spine", "network.topology.nvidia.com/leaf"),
        "Topograph <= v0.5 network.topology.nvidia.com/{core,spine,leaf}",
    ),
    LevelScheme(
        "gke",
        (
            "cloud.google.com/gce-topology-block",
            "cloud.google.com/gce-topology-subblock",
            "cloud.google.com/gce-topology-host",
        ),
        "GKE cloud.google.com/gce-topology-{block,subblock,host}",
    ),
    LevelScheme(
        "eks",
        tuple(f"topology.k8s.aws/network-node-layer-{layer}" for layer in range(1, 5)),
        "EKS topology.k8s.aws/network-node-layer-1..4 (layer 1 is the top)",
    ),
    LevelScheme(
        "oci",
        ("oci.oraclecloud.com/host.network_block_id", "oci.oraclecloud.com/host.rack_id"),
        "OCI oci.oraclecloud.com/host.{network_block_id,rack_id}",
    ),
)
ACCELERATOR_SCHEMES: tuple[LevelScheme, ...] = (
    LevelScheme(
        "topograph-accelerator",
        (ACCELERATOR_DOMAIN_LABEL, ACCELERATOR_SUB_DOMAIN_LABEL),
        "Topograph >= v1.0 accelerator.topograph.run/{domain,sub-domain}",
    ),
    LevelScheme(
        "topograph-legacy-accelerator",
        ("network.topology.nvidia.com/accelerator",),
        "Topograph <= v0.5 network.topology.nvidia.com/accelerator",
    ),
    LevelScheme("eks-ultraserver", ("topology.k8s.aws/ultraserver-id",), "EKS HyperPod topology.k8s.aws/ultraserver-id"),
    LevelScheme("gpu-clique", (GPU_CLIQUE_LABEL,), "NVIDIA GPU Operator nvidia.com/gpu.clique"),
)
_ZONE_SCHEME = LevelScheme("zone", (ZONE_LABEL,), "topology.kubernetes.io/zone")


# --------------------------------------------------------------------------------------------
# Level detection


def _label_keys(nodes: Iterable[Node]) -> set[str]:
    keys: set[str] = set()
    for node in nodes:
        keys.update(node.labels)
    return keys


def _detect(keys: set[str]) -> list[tuple[LevelScheme, list[str]]]:
    found: list[tuple[LevelScheme, list[str]]] = []
    if ZONE_LABEL in keys:
        found.append((_ZONE_SCHEME, [ZONE_LABEL]))
    for scheme in FABRIC_SCHEMES:
        if scheme.name == "topograph":
            tiers = sorted(
                (int(match.group(1)) for key in keys if (match := _TOPOGRAPH_TIER_RE.match(key))), reverse=True
            )
            present = [TIER_LABEL.format(tier=tier) for tier in tiers]
            # A key spelled tier-01 would not round-trip through format(); keep what is really there.
            present = [key for key in present if key in keys]
        else:
            present = [key for key in scheme.keys if key in keys]
        if present:
            found.append((scheme, present))
            break  # one fabric scheme: several would describe the same switches twice
    for scheme in ACCELERATOR_SCHEMES:
        present = [key for key in scheme.keys if key in keys]
        if present:
            found.append((scheme, present))
    return found


def detect_levels(nodes: Iterable[Node]) -> list[str]:
    """Topology levels from the label keys present on at least one node, widest first.

    Order: ``topology.kubernetes.io/zone``; then the first fabric scheme found in
    :data:`FABRIC_SCHEMES` order (Topograph v1 ``tier-N`` highest N first, legacy Topograph
    core/spine/leaf, GKE block/subblock/host, EKS layer-1..4, OCI network block/rack); then every
    accelerator scheme found (Topograph ``domain``, ``sub-domain``, legacy ``accelerator``, EKS
    ``ultraserver-id``, ``nvidia.com/gpu.clique``); then ``kubernetes.io/hostname``, always.

    Accelerator (NVLink) domains come after the switch tiers although Topograph models them as
    an orthogonal axis: a level list must be a single hierarchy, and an NVLink domain that spans
    two leaf switches is split per leaf (pass explicit levels to order them differently).
    """
    levels = [key for _, keys in _detect(_label_keys(nodes)) for key in keys]
    return levels + [HOSTNAME_LABEL]


def detect_schemes(nodes: Iterable[Node]) -> list[str]:
    """Names of the label schemes :func:`detect_levels` found (``zone``, ``topograph``, ``gke`` ...)."""
    return [scheme.name for scheme, _ in _detect(_label_keys(nodes))]


# --------------------------------------------------------------------------------------------
# Documents


def _display_name(source: str | Path) -> str:
    return "-" if str(source) == "-" else str(source)


# A NodeList of 100,000 nodes is a few hundred MiB of JSON; workload files stay under the smaller limit.
MAX_TOPOLOGY_BYTES = 2 * 1024**3


def _read_text(source: str | Path) -> str:
    name = _display_name(source)
    if name != "-" and Path(source).is_dir():
        raise TopologyError("is a directory, expected a file", file=name)
    try:
        return read_text(name if name == "-" else str(source), limit=MAX_TOPOLOGY_BYTES)
    except InputError as error:
        raise TopologyError(error.message, file=name) from None


def _parse_documents(text: str, file: str) -> list[Any]:
    """YAML or JSON documents (empty documents dropped), through wmap's one safe loader."""
    bodies = []
    for item in iter_documents(text, file):
        if isinstance(item, InputError):
            raise TopologyError(item.message, file=file, document=item.document) from None
        if item.body is not None:
            bodies.append(item.body)
    return bodies


def read_documents(source: str | Path) -> list[Any]:
    """Read a YAML/JSON file (``-`` for standard input) into its non-empty documents.

    Raises:
        TopologyError: the file is missing, unreadable, not UTF-8, or not valid YAML/JSON.
    """
    return _parse_documents(_read_text(source), _display_name(source))


def _objects(documents: Sequence[Any], file: str, expected: str, list_kinds: tuple[str, ...]) -> list[tuple[str, dict]]:
    """Flatten documents and ``List``s into (document label, object) pairs of kind ``expected``."""
    objects: list[tuple[str, dict]] = []
    for number, document in enumerate(documents, start=1):
        where = f"#{number}"
        if not isinstance(document, dict):
            raise TopologyError(
                f"expected a {expected} or {list_kinds[0]} object, got {type(document).__name__}", file=file, document=where
            )
        kind = document.get("kind")
        if kind in list_kinds:
            items = document.get("items")
            if items is None:
                items = []
            if not isinstance(items, list):
                raise TopologyError("expected a list", file=file, document=where, field="items")
            for index, item in enumerate(items):
                item_where = f"{where} items[{index}]"
                if not isinstance(item, dict):
                    raise TopologyError(f"expected a {expected} object", file=file, document=item_where)
                item_kind = item.get("kind", expected)  # raw API lists omit kind on items
                if item_kind != expected:
                    raise TopologyError(f"expected kind {expected}, got {item_kind!r}", file=file, document=item_where)
                objects.append((item_where, item))
        elif kind == expected:
            objects.append((where, document))
        else:
            raise TopologyError(
                f"expected kind {expected} or {'/'.join(list_kinds)}, got {kind!r}", file=file, document=where, field="kind"
            )
    return objects


def _named(where: str, obj: dict, kind: str, file: str) -> tuple[str, str]:
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        raise TopologyError("missing metadata", file=file, document=where, field="metadata")
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        raise TopologyError("missing or empty name", file=file, document=where, field="metadata.name")
    namespace = metadata.get("namespace")
    label = f"{kind}/{namespace}/{name}" if isinstance(namespace, str) and namespace else f"{kind}/{name}"
    return name, label


def _mapping(value: Any, file: str, document: str, field_name: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TopologyError(f"expected a mapping, got {type(value).__name__}", file=file, document=document, field=field_name)
    return value


def _labels(value: Any, file: str, document: str, field_name: str) -> dict[str, str]:
    if type(value) is dict:
        for key, raw in value.items():
            if type(raw) is not str or type(key) is not str:
                break
        else:
            return dict(value)  # the usual case: already strings
    labels: dict[str, str] = {}
    for key, raw in _mapping(value, file, document, field_name).items():
        if isinstance(raw, bool):
            raw = "true" if raw else "false"
        elif isinstance(raw, (int, float)):
            raw = str(raw)  # hand-written YAML: `rack: 1`
        elif raw is None:
            raw = ""
        if not isinstance(raw, str):
            raise TopologyError(
                f"a label value must be a string, got {type(raw).__name__}", file=file, document=document,
                field=f"{field_name}.{key}",
            )
        labels[str(key)] = raw
    return labels


class _QuantityCache:
    """parse_quantity memoized per raw value: node lists repeat the same few strings."""

    def __init__(self) -> None:
        self.parsed: dict[tuple[type, Any], Fraction] = {}

    def __call__(self, raw: Any) -> Fraction:
        key = (type(raw), raw)
        try:
            return self.parsed[key]
        except (KeyError, TypeError):
            amount = parse_quantity(raw)
            try:
                self.parsed[key] = amount
            except TypeError:
                pass
            return amount


def nodes_from_documents(documents: Sequence[Any], *, file: str = "-") -> list[Node]:
    """Nodes from parsed documents: ``NodeList``, ``List`` of Nodes, or single ``Node`` objects.

    * labels from ``metadata.labels``; ``kubernetes.io/hostname`` is filled in with the node name
      when absent (the kubelet always sets it);
    * allocatable from ``status.allocatable`` (``status.capacity`` when there is none), every
      resource name kept (cpu, memory, pods, ``nvidia.com/gpu``, ``amd.com/gpu``, extended);
    * ready when the ``Ready`` condition's status is ``"True"`` and ``spec.unschedulable`` is not
      true (a cordoned node is not usable); a node with no ``status.conditions`` at all (a
      hand-written fixture) counts as ready, one whose conditions lack ``Ready`` does not.

    Raises:
        TopologyError: wrong kinds or shapes, a bad quantity, a duplicate node name, no nodes.
    """
    parse = _QuantityCache()
    nodes: list[Node] = []
    seen: set[str] = set()
    for where, obj in _objects(documents, file, "Node", ("NodeList", "List")):
        name, label = _named(where, obj, "Node", file)
        if name in seen:
            raise TopologyError(f"node {name!r} appears twice", file=file, document=label, field="metadata.name")
        seen.add(name)
        metadata = obj["metadata"]
        labels = _labels(metadata.get("labels"), file, label, "metadata.labels")
        labels.setdefault(HOSTNAME_LABEL, name)
        spec = _mapping(obj.get("spec"), file, label, "spec")
        status = _mapping(obj.get("status"), file, label, "status")
        field_name = "status.allocatable" if "allocatable" in status else "status.capacity"
        allocatable: dict[str, Fraction] = {}
        for resource, raw in _mapping(status.get(field_name.split(".")[1]), file, label, field_name).items():
            try:
                allocatable[str(resource)] = parse(raw)
            except QuantityError as error:
                raise TopologyError(error.message, file=file, document=label, field=f"{field_name}.{resource}") from None
        conditions = status.get("conditions")
        if conditions is None:
            ready = True
        elif not isinstance(conditions, list):
            raise TopologyError("expected a list", file=file, document=label, field="status.conditions")
        else:
            ready = False
            for condition in conditions:
                if isinstance(condition, dict) and condition.get("type") == "Ready":
                    ready = condition.get("status") == "True"
                    break
        if spec.get("unschedulable") is True:
            ready = False
        nodes.append(Node(name=name, labels=labels, allocatable=allocatable, ready=ready))
    if not nodes:
        raise TopologyError("no Node objects found", file=file)
    return nodes


def apply_pods(cluster: Cluster, documents: Sequence[Any], *, file: str = "-") -> int:
    """Charge running pods to their nodes; return how many pods were counted.

    A pod counts when its ``status.phase`` is neither ``Succeeded`` nor ``Failed`` and its
    ``spec.nodeName`` names a node of the cluster; it adds its effective request
    (:func:`workloadmap.resources.pod_demand`) plus one ``pods`` slot to ``node.used``. Pods on
    nodes the cluster does not have, and pending pods without a node, are skipped.

    Raises:
        TopologyError: wrong kinds or shapes, or a bad quantity (naming the pod and field).
    """
    by_name = {node.name: node for node in cluster.nodes}
    counted = 0
    for where, obj in _objects(documents, file, "Pod", ("PodList", "List")):
        _, label = _named(where, obj, "Pod", file)
        status = _mapping(obj.get("status"), file, label, "status")
        if status.get("phase") in _TERMINATED_PHASES:
            continue
        spec = _mapping(obj.get("spec"), file, label, "spec")
        node = by_name.get(spec.get("nodeName")) if isinstance(spec.get("nodeName"), str) else None
        if node is None:
            continue
        try:
            requests = pod_demand(spec, "spec").requests
        except InputError as error:
            raise TopologyError(error.message, file=file, document=label, field=error.field) from None
        used = node.used
        for resource, amount in requests.items():
            used[resource] = used.get(resource, Fraction(0)) + amount
        used["pods"] = used.get("pods", Fraction(0)) + 1
        counted += 1
    return counted


def topology_object_levels(documents: Sequence[Any], *, file: str = "-") -> list[str]:
    """The ``spec.levels[].nodeLabel`` list of the one KAI or Kueue ``Topology`` in the documents.

    Raises:
        TopologyError: no Topology object, several of them, an unsupported apiVersion, or levels
            that break the KAI/Kueue rules (1-16, unique, hostname only last).
    """
    found = [
        (number, document)
        for number, document in enumerate(documents, start=1)
        if isinstance(document, dict) and document.get("kind") == "Topology"
    ]
    if not found:
        raise TopologyError("no Topology object (kind: Topology) found", file=file)
    if len(found) > 1:
        raise TopologyError(f"{len(found)} Topology objects found; give a file with exactly one", file=file)
    number, document = found[0]
    name = (document.get("metadata") or {}).get("name") if isinstance(document.get("metadata"), dict) else None
    label = f"Topology/{name}" if name else f"#{number}"
    api_version = document.get("apiVersion")
    if api_version not in _TOPOLOGY_API_VERSIONS:
        raise TopologyError(
            f"unsupported apiVersion {api_version!r}; expected one of {', '.join(_TOPOLOGY_API_VERSIONS)}",
            file=file, document=label, field="apiVersion",
        )
    spec = _mapping(document.get("spec"), file, label, "spec")
    raw_levels = spec.get("levels")
    if not isinstance(raw_levels, list):
        raise TopologyError("expected a list of {nodeLabel: ...}", file=file, document=label, field="spec.levels")
    levels = []
    for index, level in enumerate(raw_levels):
        if not isinstance(level, dict) or "nodeLabel" not in level:
            raise TopologyError("expected {nodeLabel: <label key>}", file=file, document=label, field=f"spec.levels[{index}]")
        levels.append(level["nodeLabel"])
    return validate_levels(levels, file=file, document=label, field_name="spec.levels")


def read_topology_object(source: str | Path) -> list[str]:
    """Read a KAI/Kueue ``Topology`` object file and return its levels (see :func:`topology_object_levels`)."""
    return topology_object_levels(read_documents(source), file=_display_name(source))


# --------------------------------------------------------------------------------------------
# Topograph simulation models


def _entries(value: Any, file: str, field_name: str) -> list[tuple[str, dict]]:
    """A map ``id -> {...}`` or a list of ``{name: id, ...}`` as (id, entry) pairs."""
    if value is None:
        return []
    pairs: list[tuple[str, dict]] = []
    if isinstance(value, dict):
        for key, entry in value.items():
            entry = entry if entry is not None else {}
            if not isinstance(entry, dict):
                raise TopologyError("expected a mapping", file=file, field=f"{field_name}.{key}")
            if "name" in entry and str(entry["name"]) != str(key):
                raise TopologyError(
                    f"name {entry['name']!r} differs from its key {key!r}", file=file, field=f"{field_name}.{key}.name"
                )
            pairs.append((str(key), entry))
    elif isinstance(value, list):
        for index, entry in enumerate(value):
            if not isinstance(entry, dict) or not entry.get("name"):
                raise TopologyError("expected a mapping with a name", file=file, field=f"{field_name}[{index}]")
            pairs.append((str(entry["name"]), entry))
    else:
        raise TopologyError(f"expected a mapping or a list, got {type(value).__name__}", file=file, field=field_name)
    return pairs


def _string_list(value: Any, file: str, field_name: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return [str(value)]
    if not isinstance(value, list) or not all(isinstance(item, (str, int)) and not isinstance(item, bool) for item in value):
        raise TopologyError("expected a list of names", file=file, field=field_name)
    return [str(item) for item in value]


def _model_nodes(expressions: list[str], file: str, field_name: str) -> list[str]:
    from .slurm import expand_hostlist

    names: list[str] = []
    for expression in expressions:
        try:
            names.extend(expand_hostlist(expression))
        except TopologyError as error:
            raise error.located(file=file, field=field_name) from None
    return names


_LEGACY_METADATA_LABELS = {"region": "topology.kubernetes.io/region", "availability_zone": ZONE_LABEL}


def cluster_from_model(
    data: Any, capacity: NodeCapacity | None = None, *, name: str = "model", file: str = "-"
) -> Cluster:
    """Build a cluster from a Topograph simulation model (current ``blocks`` or legacy ``capacity_blocks`` schema).

    Each node gets the labels Topograph's k8s engine would write: ``fabric.topograph.run/tier-N``
    with tier 0 = the block's leaf switch and higher tiers up to the root (closest-first, as the
    model's ``NetLayers``), ``accelerator.topograph.run/domain`` and ``/sub-domain`` from the
    block annotations ``accelerator.topology.test/domain|sub-domain`` (legacy: the block's
    ``nvlink``), plus the switch labels merged root to leaf and the block labels on top (legacy
    metadata ``region``/``availability_zone`` become ``topology.kubernetes.io/region|zone``).
    Levels are then detected from those labels. Every node gets ``capacity``.

    Raises:
        TopologyError: a switch with two parents, a cycle, a node in two blocks, a block without
            nodes, unknown top-level keys, or no nodes.
    """
    capacity = capacity or NodeCapacity()
    if not isinstance(data, dict):
        raise TopologyError("a simulation model must be a mapping", file=file)
    legacy = "capacity_blocks" in data
    allowed = {"switches", "capacity_blocks", "nodes"} if legacy else {"switches", "blocks", "nodes"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise TopologyError("unknown top-level key in a simulation model", file=file, field=unknown[0])

    switches: dict[str, dict] = {}
    children: dict[str, list[str]] = {}
    switch_blocks: dict[str, list[str]] = {}
    switch_nodes: dict[str, list[str]] = {}
    for switch_id, entry in _entries(data.get("switches"), file, "switches"):
        if switch_id in switches:
            raise TopologyError(f"switch {switch_id!r} is defined twice", file=file, field="switches")
        switches[switch_id] = entry
        children[switch_id] = _string_list(entry.get("switches"), file, f"switches.{switch_id}.switches")
        switch_blocks[switch_id] = _string_list(entry.get("capacity_blocks"), file, f"switches.{switch_id}.capacity_blocks")
        switch_nodes[switch_id] = _string_list(entry.get("nodes"), file, f"switches.{switch_id}.nodes")
    parent: dict[str, str] = {}
    for switch_id, kids in list(children.items()):
        for child in kids:
            if child not in switches:  # missing leaf keys are auto-created, as Topograph does
                switches[child] = {}
                children[child] = []
            if child in parent or child == switch_id:
                raise TopologyError(
                    f"switch {child!r} has more than one parent", file=file, field=f"switches.{switch_id}.switches"
                )
            parent[child] = switch_id

    def path_to_root(switch_id: str, field_name: str) -> list[str]:
        path = [switch_id]
        while path[-1] in parent:
            path.append(parent[path[-1]])
            if len(path) > len(switches):
                raise TopologyError(f"switch {switch_id!r} is part of a cycle", file=file, field=field_name)
        return path

    def switch_labels(switch_id: str) -> dict[str, str]:
        entry = switches.get(switch_id) or {}
        labels = _labels(entry.get("labels"), file, "", f"switches.{switch_id}.labels")
        for key, label in _LEGACY_METADATA_LABELS.items():
            metadata = entry.get("metadata")
            if isinstance(metadata, dict) and metadata.get(key) is not None:
                labels[label] = str(metadata[key])
        return labels

    # (block label, switch or None, node expressions, labels, annotations, field)
    blocks: list[tuple[str, str | None, list[str], dict[str, str], dict[str, str], str]] = []
    if legacy:
        block_switch = {block: switch_id for switch_id, names in switch_blocks.items() for block in names}
        for block_id, entry in _entries(data.get("capacity_blocks"), file, "capacity_blocks"):
            attributes = entry.get("attributes") if isinstance(entry.get("attributes"), dict) else {}
            nvlink = entry.get("nvlink", attributes.get("nvlink"))
            annotations = {_MODEL_DOMAIN_ANNOTATION: str(nvlink)} if nvlink else {}
            expressions = _string_list(entry.get("nodes"), file, f"capacity_blocks.{block_id}.nodes")
            blocks.append((block_id, block_switch.get(block_id), expressions, {}, annotations, f"capacity_blocks.{block_id}"))
        for switch_id, expressions in switch_nodes.items():
            if expressions:
                blocks.append((switch_id, switch_id, expressions, {}, {}, f"switches.{switch_id}.nodes"))
    else:
        raw_blocks = data.get("blocks")
        if raw_blocks is None:
            raw_blocks = []
        if not isinstance(raw_blocks, list):
            raise TopologyError("expected a list", file=file, field="blocks")
        for index, entry in enumerate(raw_blocks):
            where = f"blocks[{index}]"
            if not isinstance(entry, dict):
                raise TopologyError("expected a mapping", file=file, field=where)
            switch_id = entry.get("switch")
            if switch_id is not None:
                switch_id = str(switch_id)
                if switch_id not in switches:
                    switches[switch_id] = {}
                    children[switch_id] = []
            expressions = _string_list(entry.get("nodes"), file, f"{where}.nodes")
            if not expressions:
                raise TopologyError("a block must list nodes", file=file, field=f"{where}.nodes")
            blocks.append(
                (
                    where,
                    switch_id,
                    expressions,
                    _labels(entry.get("labels"), file, "", f"{where}.labels"),
                    _labels(entry.get("annotations"), file, "", f"{where}.annotations"),
                    where,
                )
            )

    allocatable = capacity.allocatable()
    nodes: list[Node] = []
    owner: dict[str, str] = {}
    label_cache: dict[str | None, dict[str, str]] = {}
    for _, switch_id, expressions, block_labels, annotations, where in blocks:
        if switch_id not in label_cache:
            labels: dict[str, str] = {}
            if switch_id is not None:
                path = path_to_root(switch_id, where)
                for ancestor in reversed(path):
                    labels.update(switch_labels(ancestor))
                for tier, ancestor in enumerate(path):
                    labels[TIER_LABEL.format(tier=tier)] = ancestor
            label_cache[switch_id] = labels
        labels = {**label_cache[switch_id], **block_labels}
        if annotations.get(_MODEL_DOMAIN_ANNOTATION):
            labels[ACCELERATOR_DOMAIN_LABEL] = annotations[_MODEL_DOMAIN_ANNOTATION]
            if annotations.get(_MODEL_SUB_DOMAIN_ANNOTATION):
                labels[ACCELERATOR_SUB_DOMAIN_LABEL] = annotations[_MODEL_SUB_DOMAIN_ANNOTATION]
        for node_name in _model_nodes(expressions, file, f"{where}.nodes"):
            if node_name in owner:
                raise TopologyError(
                    f"node {node_name!r} is in two blocks ({owner[node_name]} and {where})", file=file, field=f"{where}.nodes"
                )
            owner[node_name] = where
            nodes.append(Node(name=node_name, labels={**labels, HOSTNAME_LABEL: node_name}, allocatable=dict(allocatable)))
    # Cycles among switches no block hangs under still make the model invalid.
    for switch_id in switches:
        path_to_root(switch_id, f"switches.{switch_id}")
    if not nodes:
        raise TopologyError("the model declares no nodes", file=file, field="blocks")
    return Cluster(name=name, nodes=nodes, levels=detect_levels(nodes), source=file)


# --------------------------------------------------------------------------------------------
# Format detection and the entry point


def _is_model(document: Any) -> bool:
    return (
        isinstance(document, dict)
        and "kind" not in document
        and "apiVersion" not in document
        and bool({"blocks", "capacity_blocks", "switches"} & set(document))
    )


def _is_slurm_yaml(document: Any) -> bool:
    return isinstance(document, list) and bool(document) and all(
        isinstance(item, dict) and "topology" in item for item in document
    )


def _format_of(text: str, file: str) -> tuple[str, list[Any]]:
    if not text.strip():
        raise TopologyError("the file is empty", file=file)
    if looks_like_topology_conf(text):
        return "slurm-conf", []
    documents = _parse_documents(text, file)
    if not documents:
        raise TopologyError("the file holds no documents", file=file)
    first = documents[0]
    if len(documents) == 1 and _is_slurm_yaml(first):
        return "slurm-yaml", documents
    if len(documents) == 1 and _is_model(first):
        return "model", documents
    kinds = {document.get("kind") for document in documents if isinstance(document, dict)}
    if kinds & {"Node", "NodeList"} or (
        "List" in kinds
        and any(
            isinstance(item, dict) and item.get("kind", "Node") == "Node"
            for document in documents
            if isinstance(document, dict)
            for item in (document.get("items") or [])
        )
    ):
        return "nodelist", documents
    if "Topology" in kinds:
        raise TopologyError("this is a Topology object (levels only); pass it as the topology object, not the source", file=file)
    if kinds & {"Pod", "PodList"}:
        raise TopologyError("this holds Pods; pass it as the pods file, not the source", file=file)
    raise TopologyError(
        "not a recognised topology source: expected a Kubernetes NodeList/Node objects (YAML or JSON), "
        "a Slurm topology.conf or topology.yaml, or a Topograph simulation model (switches/blocks)",
        file=file,
    )


def detect_format(source: str | Path) -> str:
    """The kind of a topology source: ``preset``, ``nodelist``, ``slurm-conf``, ``slurm-yaml`` or ``model``.

    Raises:
        TopologyError: unreadable, or none of these (the message lists what is accepted).
    """
    if str(source).startswith(PRESET_PREFIX):
        return "preset"
    return _format_of(_read_text(source), _display_name(source))[0]


def _capacity(
    gpus_per_node: int | None,
    cpus_per_node: str | int | None,
    memory_per_node: str | int | None,
    pods_per_node: int | None,
    gpu_resource: str | None,
) -> NodeCapacity:
    defaults = NodeCapacity()
    capacity = NodeCapacity(
        gpus=defaults.gpus if gpus_per_node is None else gpus_per_node,
        cpu=defaults.cpu if cpus_per_node is None else cpus_per_node,
        memory=defaults.memory if memory_per_node is None else memory_per_node,
        pods=defaults.pods if pods_per_node is None else pods_per_node,
        gpu_resource=gpu_resource or defaults.gpu_resource,
    )
    capacity.allocatable()  # validate now, naming the option
    return capacity


def _stem(source: str | Path) -> str:
    name = Path(str(source)).name
    for suffix in (".yaml", ".yml", ".json", ".conf"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name or "cluster"


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
) -> Cluster:
    """Read a cluster from a topology source (format detected from the content).

    Args:
        source: a file path (``-`` for standard input), ``preset:NAME``, or ``cluster:`` /
            ``cluster:CONTEXT`` for the nodes and running pods of a live cluster (read-only; the
            kubeconfig comes from ``$KUBECONFIG`` or ``~/.kube/config``).
        levels: explicit levels, widest first (validated like a KAI/Kueue Topology).
        pods_file: a Pod/PodList file whose running pods use capacity (see :func:`apply_pods`).
        topology_object: a KAI or Kueue ``Topology`` file stating the levels.
        gpus_per_node, cpus_per_node, memory_per_node, pods_per_node, gpu_resource: per-node
            capacity for Slurm files and simulation models (defaults: :class:`NodeCapacity`);
            refused for sources that state their own capacity (NodeLists, presets).
        slurm_topology: which named topology of a Slurm ``topology.yaml`` to read.

    Raises:
        TopologyError: unreadable or unrecognised source, bad content, both ``levels`` and
            ``topology_object`` given, capacity options for a NodeList, or a stated level that
            no node carries.
    """
    name = _display_name(source)
    capacity_given = any(
        value is not None for value in (gpus_per_node, cpus_per_node, memory_per_node, pods_per_node, gpu_resource)
    )
    if levels is not None and topology_object is not None:
        raise TopologyError("give either explicit levels or a Topology object, not both")
    if name.startswith(PRESET_PREFIX):
        if capacity_given:
            raise TopologyError("per-node capacity options do not apply to a preset (it states its capacity)", file=name)
        cluster = example_cluster(name[len(PRESET_PREFIX) :])
    elif name.startswith(LIVE_PREFIX):
        if capacity_given:
            raise TopologyError("per-node capacity options do not apply to a live cluster (nodes state it)", file=name)
        cluster = _live_cluster(name[len(LIVE_PREFIX) :] or None, with_pods=pods_file is None, source=name)
    else:
        text = _read_text(source)
        kind, documents = _format_of(text, name)
        if slurm_topology is not None and kind not in ("slurm-conf", "slurm-yaml"):
            raise TopologyError("a Slurm topology name only applies to Slurm topology files", file=name)
        if kind == "nodelist":
            if capacity_given:
                raise TopologyError(
                    "per-node capacity options only apply to Slurm files and simulation models; "
                    "a NodeList states each node's allocatable",
                    file=name,
                )
            nodes = nodes_from_documents(documents, file=name)
            cluster = Cluster(name=_stem(source), nodes=nodes, levels=detect_levels(nodes), source=name)
        elif kind == "model":
            capacity = _capacity(gpus_per_node, cpus_per_node, memory_per_node, pods_per_node, gpu_resource)
            cluster = cluster_from_model(documents[0], capacity, name=_stem(source), file=name)
        else:
            capacity = _capacity(gpus_per_node, cpus_per_node, memory_per_node, pods_per_node, gpu_resource)
            if kind == "slurm-conf":
                if slurm_topology not in (None, "default"):
                    raise TopologyError(
                        f"a topology.conf holds only the topology 'default', not {slurm_topology!r}", file=name
                    )
                parsed = parse_topology_conf(text, file=name)
            else:
                parsed = parse_topology_yaml(documents[0], file=name, topology=slurm_topology)
            cluster = cluster_from_slurm(parsed, capacity, name=_stem(source), file=name)
    if pods_file is not None:
        apply_pods(cluster, read_documents(pods_file), file=_display_name(pods_file))
    if topology_object is not None:
        _set_levels(cluster, read_topology_object(topology_object), stated_in=_display_name(topology_object))
    elif levels is not None:
        _set_levels(cluster, validate_levels(list(levels)))
    return cluster


def _live_cluster(context: str | None, *, with_pods: bool, source: str) -> Cluster:
    """Nodes (and the pods using them) read from a live API server, with GET requests only."""
    from .cluster import ClusterClient  # the kubernetes client is imported on live paths only

    with ClusterClient(context=context) as client:
        nodes = client.nodes()
        pods = client.pods() if with_pods else None
        name = client.context or "cluster"
    return cluster_from_objects([nodes], [pods] if pods is not None else None, name=name, source=source)


def _set_levels(cluster: Cluster, levels: list[str], stated_in: str | None = None) -> None:
    """Use stated levels, refusing one that no node carries (a typo would otherwise match nothing)."""
    present = _label_keys(cluster.nodes)
    for index, level in enumerate(levels):
        if level not in present:
            raise TopologyError(
                f"no node of {cluster.source or cluster.name} has the label {level!r}",
                file=stated_in, field=f"spec.levels[{index}]" if stated_in else f"levels[{index}]",
            )
    cluster.levels = list(levels)


def cluster_from_objects(
    node_objects: Sequence[Any],
    pod_objects: Sequence[Any] | None = None,
    *,
    levels: Sequence[str] | None = None,
    topology_objects: Sequence[Any] | None = None,
    name: str = "cluster",
    source: str = "cluster",
) -> Cluster:
    """Build a cluster from Node (and Pod) objects already in memory, e.g. fetched from a live API server.

    Args:
        node_objects: ``Node`` dicts, or ``NodeList``/``List`` dicts.
        pod_objects: ``Pod`` dicts or lists; running pods use capacity (see :func:`apply_pods`).
        levels: explicit levels (validated like a KAI/Kueue Topology).
        topology_objects: documents holding one KAI/Kueue ``Topology`` stating the levels.
        name: the cluster name; source: where the objects came from (used in messages).

    Raises:
        TopologyError: as :func:`nodes_from_documents`, :func:`apply_pods` and
            :func:`topology_object_levels`, or both ``levels`` and ``topology_objects`` given.
    """
    if levels is not None and topology_objects is not None:
        raise TopologyError("give either explicit levels or a Topology object, not both")
    nodes = nodes_from_documents(list(node_objects), file=source)
    cluster = Cluster(name=name, nodes=nodes, levels=detect_levels(nodes), source=source)
    if pod_objects is not None:
        apply_pods(cluster, list(pod_objects), file=source)
    if topology_objects is not None:
        _set_levels(cluster, topology_object_levels(list(topology_objects), file=source), stated_in=source)
    elif levels is not None:
        _set_levels(cluster, validate_levels(list(levels)))
    return cluster
