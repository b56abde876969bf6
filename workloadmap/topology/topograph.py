"""Topograph simulation models: switches and blocks of named nodes, as Topograph's tests describe clusters.

Both schemas are read: the current one (``switches`` + ``blocks``) and the legacy one
(``switches`` + ``capacity_blocks``). Nodes get the labels Topograph's Kubernetes engine would
write, so level detection treats a model like a labelled NodeList.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..budgets import active as active_budgets
from ..errors import BudgetError, TopologyError
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
from ..values import mapping_at
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
    if not isinstance(value, list) or not all(
        isinstance(item, (str, int)) and not isinstance(item, bool) for item in value
    ):
        raise TopologyError("expected a list of names", file=file, field=field_name)
    return [str(item) for item in value]


def _model_nodes(expressions: list[str], file: str, field_name: str, counter: list[int]) -> list[str]:
    """The node names of a block's hostlists; ``counter`` adds up every block's, bounded by the node budget."""
    names: list[str] = []
    for expression in expressions:
        try:
            expanded = expand_hostlist(expression, limit=max(active_budgets().nodes - counter[0], 0))
        except (TopologyError, BudgetError) as error:
            raise error.located(file=file, field=field_name) from None
        counter[0] += len(expanded)
        names.extend(expanded)
    return names


_LEGACY_METADATA_LABELS = {"region": REGION, "availability_zone": ZONE}


@dataclass
class _Block:
    """A block of nodes: its switch (or none), node hostlists, labels, annotations and field path."""

    switch: str | None
    expressions: list[str]
    labels: dict[str, str]
    annotations: dict[str, str]
    where: str


class _Model:
    """The switch tree and blocks of one model, read and checked step by step."""

    def __init__(self, data: dict[str, Any], file: str) -> None:
        self.data = data
        self.file = file
        self.switches: dict[str, dict[str, Any]] = {}
        self.children: dict[str, list[str]] = {}
        self.switch_blocks: dict[str, list[str]] = {}
        self.switch_nodes: dict[str, list[str]] = {}
        self.parent: dict[str, str] = {}

    def read_switches(self) -> None:
        file = self.file
        for switch_id, entry in _entries(self.data.get("switches"), file, "switches"):
            if switch_id in self.switches:
                raise TopologyError(f"switch {switch_id!r} is defined twice", file=file, field="switches")
            self.switches[switch_id] = entry
            where = f"switches.{switch_id}"
            self.children[switch_id] = _string_list(entry.get("switches"), file, f"{where}.switches")
            self.switch_blocks[switch_id] = _string_list(entry.get("capacity_blocks"), file, f"{where}.capacity_blocks")
            self.switch_nodes[switch_id] = _string_list(entry.get("nodes"), file, f"{where}.nodes")
        for switch_id, kids in list(self.children.items()):
            for child in kids:
                self.add_switch(child)  # missing leaf keys are auto-created, as Topograph does
                if child in self.parent or child == switch_id:
                    raise TopologyError(
                        f"switch {child!r} has more than one parent", file=file, field=f"switches.{switch_id}.switches"
                    )
                self.parent[child] = switch_id

    def add_switch(self, switch_id: str) -> None:
        if switch_id not in self.switches:
            self.switches[switch_id] = {}
            self.children[switch_id] = []

    def path_to_root(self, switch_id: str, field_name: str) -> list[str]:
        path = [switch_id]
        while path[-1] in self.parent:
            path.append(self.parent[path[-1]])
            if len(path) > len(self.switches):
                raise TopologyError(f"switch {switch_id!r} is part of a cycle", file=self.file, field=field_name)
        return path

    def switch_labels(self, switch_id: str) -> dict[str, str]:
        entry = self.switches.get(switch_id) or {}
        labels = label_map(entry.get("labels"), self.file, "", f"switches.{switch_id}.labels")
        metadata = mapping_at(entry, "metadata")
        for key, label in _LEGACY_METADATA_LABELS.items():
            if metadata.get(key) is not None:
                labels[label] = str(metadata[key])
        return labels

    def legacy_blocks(self) -> list[_Block]:
        block_switch = {block: switch_id for switch_id, names in self.switch_blocks.items() for block in names}
        blocks = []
        for block_id, entry in _entries(self.data.get("capacity_blocks"), self.file, "capacity_blocks"):
            nvlink = entry.get("nvlink", mapping_at(entry, "attributes").get("nvlink"))
            annotations = {MODEL_DOMAIN_ANNOTATION: str(nvlink)} if nvlink else {}
            where = f"capacity_blocks.{block_id}"
            expressions = _string_list(entry.get("nodes"), self.file, f"{where}.nodes")
            blocks.append(_Block(block_switch.get(block_id), expressions, {}, annotations, where))
        for switch_id, expressions in self.switch_nodes.items():
            if expressions:
                blocks.append(_Block(switch_id, expressions, {}, {}, f"switches.{switch_id}.nodes"))
        return blocks

    def blocks(self) -> list[_Block]:
        raw_blocks = self.data.get("blocks")
        if raw_blocks is None:
            raw_blocks = []
        if not isinstance(raw_blocks, list):
            raise TopologyError("expected a list", file=self.file, field="blocks")
        blocks = []
        for index, entry in enumerate(raw_blocks):
            where = f"blocks[{index}]"
            if not isinstance(entry, dict):
                raise TopologyError("expected a mapping", file=self.file, field=where)
            switch_id = None if entry.get("switch") is None else str(entry["switch"])
            if switch_id is not None:
                self.add_switch(switch_id)
            expressions = _string_list(entry.get("nodes"), self.file, f"{where}.nodes")
            if not expressions:
                raise TopologyError("a block must list nodes", file=self.file, field=f"{where}.nodes")
            labels = label_map(entry.get("labels"), self.file, "", f"{where}.labels")
            annotations = label_map(entry.get("annotations"), self.file, "", f"{where}.annotations")
            blocks.append(_Block(switch_id, expressions, labels, annotations, where))
        return blocks

    def fabric_labels(self, switch_id: str | None, where: str) -> dict[str, str]:
        """Switch labels merged root to leaf, and ``tier-N`` with tier 0 the block's own switch."""
        labels: dict[str, str] = {}
        if switch_id is not None:
            path = self.path_to_root(switch_id, where)
            for ancestor in reversed(path):
                labels.update(self.switch_labels(ancestor))
            for tier, ancestor in enumerate(path):
                labels[TOPOGRAPH_TIER.format(tier=tier)] = ancestor
        return labels

    def nodes(self, blocks: list[_Block], capacity: NodeCapacity) -> list[Node]:
        allocatable = capacity.allocatable()
        nodes: list[Node] = []
        owner: dict[str, str] = {}
        fabric: dict[str | None, dict[str, str]] = {}
        counter = [0]
        for block in blocks:
            if block.switch not in fabric:
                fabric[block.switch] = self.fabric_labels(block.switch, block.where)
            labels = {**fabric[block.switch], **block.labels}
            if block.annotations.get(MODEL_DOMAIN_ANNOTATION):
                labels[TOPOGRAPH_ACCELERATOR_DOMAIN] = block.annotations[MODEL_DOMAIN_ANNOTATION]
                if block.annotations.get(MODEL_SUB_DOMAIN_ANNOTATION):
                    labels[TOPOGRAPH_ACCELERATOR_SUB_DOMAIN] = block.annotations[MODEL_SUB_DOMAIN_ANNOTATION]
            for node_name in _model_nodes(block.expressions, self.file, f"{block.where}.nodes", counter):
                if node_name in owner:
                    raise TopologyError(
                        f"node {node_name!r} is in two blocks ({owner[node_name]} and {block.where})",
                        file=self.file,
                        field=f"{block.where}.nodes",
                    )
                owner[node_name] = block.where
                node_labels = {**labels, HOSTNAME: node_name}
                nodes.append(Node(name=node_name, labels=node_labels, allocatable=dict(allocatable)))
        return nodes


def cluster_from_model(
    data: Any, capacity: NodeCapacity | None = None, *, name: str = "model", file: str = "-"
) -> Cluster:
    """Build a cluster from a Topograph simulation model (current ``blocks`` or legacy ``capacity_blocks``).

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
    if not isinstance(data, dict):
        raise TopologyError("a simulation model must be a mapping", file=file)
    legacy = "capacity_blocks" in data
    allowed = {"switches", "capacity_blocks", "nodes"} if legacy else {"switches", "blocks", "nodes"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise TopologyError("unknown top-level key in a simulation model", file=file, field=unknown[0])
    model = _Model(data, file)
    model.read_switches()
    blocks = model.legacy_blocks() if legacy else model.blocks()
    nodes = model.nodes(blocks, capacity or NodeCapacity())
    # Cycles among switches no block hangs under still make the model invalid.
    for switch_id in model.switches:
        model.path_to_root(switch_id, f"switches.{switch_id}")
    if not nodes:
        raise TopologyError("the model declares no nodes", file=file, field="blocks")
    return Cluster(name=name, nodes=nodes, levels=detect_levels(nodes), source=file)
