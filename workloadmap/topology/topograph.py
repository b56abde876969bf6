"""Topograph simulation models: switches and blocks of named nodes, as Topograph's tests describe clusters.

Both schemas are read: the current one (``switches`` + ``blocks``) and the legacy one
(``switches`` + ``capacity_blocks``). Nodes get the labels Topograph's Kubernetes engine would
write, so level detection treats a model like a labelled NodeList.
"""

from __future__ import annotations

from typing import Any

from ..errors import TopologyError
from ..labels import (
    HOSTNAME,
    MODEL_DOMAIN_ANNOTATION,
    MODEL_SUB_DOMAIN_ANNOTATION,
    REGION,
    TOPOGRAPH_ACCELERATOR_DOMAIN,
    TOPOGRAPH_ACCELERATOR_SUB_DOMAIN,
    TOPOGRAPH_TIER,
    ZONE,
)
from .hostlist import expand_hostlist
from .kubernetes import label_map
from .levels import detect_levels
from .model import Cluster, Node, NodeCapacity

__all__ = ["cluster_from_model", "is_model"]


def is_model(document: Any) -> bool:
    """Whether a parsed document looks like a Topograph simulation model."""
    return (
        isinstance(document, dict)
        and "kind" not in document
        and "apiVersion" not in document
        and bool({"blocks", "capacity_blocks", "switches"} & set(document))
    )


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
    names: list[str] = []
    for expression in expressions:
        try:
            names.extend(expand_hostlist(expression))
        except TopologyError as error:
            raise error.located(file=file, field=field_name) from None
    return names


_LEGACY_METADATA_LABELS = {"region": REGION, "availability_zone": ZONE}


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

    def switchlabel_map(switch_id: str) -> dict[str, str]:
        entry = switches.get(switch_id) or {}
        labels = label_map(entry.get("labels"), file, "", f"switches.{switch_id}.labels")
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
            annotations = {MODEL_DOMAIN_ANNOTATION: str(nvlink)} if nvlink else {}
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
                    label_map(entry.get("labels"), file, "", f"{where}.labels"),
                    label_map(entry.get("annotations"), file, "", f"{where}.annotations"),
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
                    labels.update(switchlabel_map(ancestor))
                for tier, ancestor in enumerate(path):
                    labels[TOPOGRAPH_TIER.format(tier=tier)] = ancestor
            label_cache[switch_id] = labels
        labels = {**label_cache[switch_id], **block_labels}
        if annotations.get(MODEL_DOMAIN_ANNOTATION):
            labels[TOPOGRAPH_ACCELERATOR_DOMAIN] = annotations[MODEL_DOMAIN_ANNOTATION]
            if annotations.get(MODEL_SUB_DOMAIN_ANNOTATION):
                labels[TOPOGRAPH_ACCELERATOR_SUB_DOMAIN] = annotations[MODEL_SUB_DOMAIN_ANNOTATION]
        for node_name in _model_nodes(expressions, file, f"{where}.nodes"):
            if node_name in owner:
                raise TopologyError(
                    f"node {node_name!r} is in two blocks ({owner[node_name]} and {where})", file=file, field=f"{where}.nodes"
                )
            owner[node_name] = where
            nodes.append(Node(name=node_name, labels={**labels, HOSTNAME: node_name}, allocatable=dict(allocatable)))
    # Cycles among switches no block hangs under still make the model invalid.
    for switch_id in switches:
        path_to_root(switch_id, f"switches.{switch_id}")
    if not nodes:
        raise TopologyError("the model declares no nodes", file=file, field="blocks")
    return Cluster(name=name, nodes=nodes, levels=detect_levels(nodes), source=file)
