"""Slurm topology files: ``topology.conf`` (tree and block plugins) and ``topology.yaml``.

Slurm files name switches or blocks and the nodes under them, nothing else. wmap turns them into
a :class:`~workloadmap.topology.Cluster` whose nodes carry synthetic labels (the capacity of each
node comes from a :class:`~workloadmap.topology.NodeCapacity`):

``slurm.wmap.dev/switch-tier-N`` (tree plugin)
    The switch at tier *N* above the node, numbered like Topograph's ``fabric.topograph.run/tier-N``:
    tier 0 is the lowest switch level of the file, higher tiers are wider. In an irregular tree
    (leaf switches at different depths) the tiers are counted from the root, ``tier = height -
    depth``, so switches at the same distance from the root share a tier and a node under a
    shallow leaf simply lacks the lower tiers. Levels: highest tier first.
``slurm.wmap.dev/block`` (block plugin)
    The base block (``BlockName``) the node is in.
``slurm.wmap.dev/block-group-S`` (block plugin, one per higher ``BlockSizes`` entry S)
    The higher-level block of size S: Slurm pairs *contiguous* base blocks into higher levels, so
    with ``BlockSizes=B,S`` each run of S/B consecutive blocks in file order (placeholders
    included) forms one group, aligned to the start of the file (inferred from the Slurm
    topology guide). The value is ``<first block>..<last block>`` of the group.
``kubernetes.io/hostname``
    The Slurm node name, always the last level.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..budgets import active as active_budgets
from ..errors import BudgetError, TopologyError
from ..labels import HOSTNAME, SLURM_BLOCK, SLURM_BLOCK_GROUP, SLURM_SWITCH_TIER
from .hostlist import expand_hostlist
from .model import Cluster, Node, NodeCapacity

__all__ = [
    "SlurmSwitch",
    "SlurmBlock",
    "SlurmTopology",
    "parse_topology_conf",
    "parse_topology_yaml",
    "looks_like_topology_conf",
    "cluster_from_slurm",
]

# Slurm's own limits on BlockSizes (validateBlockSizes in Topograph mirrors them).
_MAX_BLOCK_SIZES = 20
_MAX_BLOCK_SIZE = 65536


# --------------------------------------------------------------------------------------------
# The parsed file


@dataclass
class SlurmSwitch:
    """A ``SwitchName`` entry: its child switches and nodes (hostlists expanded)."""

    name: str
    switches: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    where: str | None = None


@dataclass
class SlurmBlock:
    """A ``BlockName`` entry; a block without nodes is a placeholder that keeps adjacency."""

    name: str
    nodes: list[str] = field(default_factory=list)
    where: str | None = None


@dataclass
class SlurmTopology:
    """One Slurm topology: ``plugin`` is ``tree``, ``block`` or ``flat``.

    Attributes:
        plugin: which topology plugin the entries are for.
        switches: tree switches, in file order.
        blocks: blocks, in file order (the order is the adjacency).
        block_sizes: ``BlockSizes`` (base size first), empty when not given.
        name: the topology's name (``default`` for topology.conf).
    """

    plugin: str
    switches: list[SlurmSwitch] = field(default_factory=list)
    blocks: list[SlurmBlock] = field(default_factory=list)
    block_sizes: list[int] = field(default_factory=list)
    name: str = "default"


_CONF_KEY_RE = re.compile(r"^\s*(switchname|blockname|blocksizes)\s*=", re.IGNORECASE)


def looks_like_topology_conf(text: str) -> bool:
    """Whether the first meaningful line of ``text`` is a ``SwitchName=``/``BlockName=``/``BlockSizes=`` line."""
    # Looks at lines one by one, and at most the start of each: a 1 GB one-line JSON NodeList must not
    # be split or copied to learn that it is not a topology.conf.
    position = 0
    while position < len(text):
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        stripped = text[position : min(end, position + 4096)].split("#", 1)[0].strip()
        if stripped:
            return bool(_CONF_KEY_RE.match(stripped))
        position = end + 1
    return False


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Comment-free lines with backslash continuations joined, each with its first line number."""
    lines: list[tuple[int, str]] = []
    pending = ""
    pending_number = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].rstrip()
        if not pending:
            pending_number = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        if line.strip():
            lines.append((pending_number, line.strip()))
    if pending.strip():
        lines.append((pending_number, pending.strip()))
    return lines


def _parse_block_sizes(value: Any, *, file: str | None, document: str | None, field_name: str) -> list[int]:
    if isinstance(value, str):
        items: list[Any] = [item.strip() for item in value.split(",")]
    elif isinstance(value, list):
        items = value
    elif isinstance(value, int) and not isinstance(value, bool):
        items = [value]
    else:
        raise TopologyError(
            f"expected a comma-separated list of sizes, got {value!r}", file=file, document=document, field=field_name
        )
    if len(items) > _MAX_BLOCK_SIZES:
        raise TopologyError(
            f"at most {_MAX_BLOCK_SIZES} block sizes are allowed, got {len(items)}",
            file=file,
            document=document,
            field=field_name,
        )
    sizes: list[int] = []
    for item in items:
        # Whole numbers only: int() would truncate 2.5 and fail on .inf (OverflowError) and NaN.
        if isinstance(item, int) and not isinstance(item, bool):
            size: int | None = item
        elif isinstance(item, str) and item.isascii() and item.isdigit():
            size = int(item)
        else:
            size = None
        if size is None or size <= 0 or size > _MAX_BLOCK_SIZE:
            raise TopologyError(
                f"block size {item!r} is not an integer between 1 and {_MAX_BLOCK_SIZE}",
                file=file,
                document=document,
                field=field_name,
            )
        if sizes:
            ratio, remainder = divmod(size, sizes[-1])
            if size <= sizes[-1] or remainder or ratio & (ratio - 1):
                raise TopologyError(
                    f"block size {size} must be a power-of-two multiple of the previous size {sizes[-1]}",
                    file=file,
                    document=document,
                    field=field_name,
                )
        sizes.append(size)
    if not sizes:
        raise TopologyError("no block sizes given", file=file, document=document, field=field_name)
    return sizes


def _hostlist(
    value: Any, *, file: str | None, document: str | None, field_name: str, counter: list[int] | None = None
) -> list[str]:
    """A hostlist field: one string, or a list of strings, expanded.

    ``counter`` adds up the names of every hostlist of one file, refused past the node budget
    before each expansion is built.
    """
    if value is None:
        return []
    expressions = value if isinstance(value, list) else [value]
    names: list[str] = []
    counter = counter if counter is not None else [0]
    for expression in expressions:
        if isinstance(expression, int) and not isinstance(expression, bool):
            expression = str(expression)  # YAML turns `nodes: 1101` into a number
        try:
            left = active_budgets().nodes - counter[0]
            expanded = expand_hostlist(expression, limit=max(left, 0))
        except (TopologyError, BudgetError) as error:
            raise error.located(file=file, document=document, field=field_name) from None
        counter[0] += len(expanded)
        names.extend(expanded)
    return names


_CONF_LINES = {
    "switchname": ("tree", {"switchname", "switches", "nodes", "linkspeed"}),
    "blockname": ("block", {"blockname", "nodes"}),
    "blocksizes": ("block", {"blocksizes"}),
}
"""The first key of a topology.conf line: the plugin it belongs to and the keys the line may carry."""


def _conf_options(line: str, where: str, file: str | None) -> tuple[str, str, dict[str, str]]:
    """``(first key, plugin, options)`` of one topology.conf line, keys lower-cased."""
    pairs: list[tuple[str, str]] = []
    for token in line.split():
        key, sep, value = token.partition("=")
        if not sep or not key:
            raise TopologyError(f"expected Key=Value, got {token!r}", file=file, document=where)
        pairs.append((key.lower(), value))
    first_key = pairs[0][0]
    options: dict[str, str] = {}
    for key, value in pairs:
        if key in options:
            raise TopologyError(f"{key} given twice", file=file, document=where, field=key)
        options[key] = value
    if first_key not in _CONF_LINES:
        raise TopologyError(
            "a topology.conf line must start with SwitchName=, BlockName= or BlockSizes=",
            file=file,
            document=where,
            field=first_key,
        )
    plugin, allowed = _CONF_LINES[first_key]
    for key in options:
        if key not in allowed:
            raise TopologyError(f"unknown key on a {first_key} line", file=file, document=where, field=key)
    return first_key, plugin, options


def parse_topology_conf(text: str, *, file: str | None = None) -> SlurmTopology:
    """Parse a Slurm ``topology.conf`` for the tree (``SwitchName``) or block (``BlockName``) plugin.

    Keys are case-insensitive as in Slurm; ``LinkSpeed`` is accepted and ignored.

    Raises:
        TopologyError: an unknown key, a line that is neither a switch nor a block line, mixed
            tree and block lines, a bad hostlist, or a duplicate switch or block name; the error
            names the line (as the document) and the key (as the field).
    """
    topology = SlurmTopology(plugin="")
    seen_names: set[str] = set()
    counter = [0]
    for number, line in _logical_lines(text):
        where = f"line {number}"
        first_key, plugin, options = _conf_options(line, where, file)
        if topology.plugin and topology.plugin != plugin:
            raise TopologyError(
                "topology.conf mixes tree (SwitchName) and block (BlockName/BlockSizes) lines",
                file=file,
                document=where,
                field=first_key,
            )
        topology.plugin = plugin
        if first_key == "blocksizes":
            if topology.block_sizes:
                raise TopologyError("BlockSizes given twice", file=file, document=where, field="BlockSizes")
            topology.block_sizes = _parse_block_sizes(
                options["blocksizes"], file=file, document=where, field_name="BlockSizes"
            )
            continue
        name = options[first_key]
        if not name:
            raise TopologyError("empty name", file=file, document=where, field=first_key)
        if name in seen_names:
            raise TopologyError(f"{name!r} is defined twice", file=file, document=where, field=first_key)
        seen_names.add(name)
        nodes = _hostlist(options.get("nodes"), file=file, document=where, field_name="Nodes", counter=counter)
        if plugin == "tree":
            children = _hostlist(options.get("switches"), file=file, document=where, field_name="Switches")
            topology.switches.append(SlurmSwitch(name=name, switches=children, nodes=nodes, where=where))
        else:
            topology.blocks.append(SlurmBlock(name=name, nodes=nodes, where=where))
    if not topology.plugin:
        raise TopologyError("no SwitchName= or BlockName= lines", file=file)
    return topology


def _chosen_unit(data: Any, file: str | None, topology: str | None) -> tuple[int, dict[str, Any]]:
    """The entry of a topology.yaml to read, and its index."""
    if not isinstance(data, list) or not data:
        raise TopologyError("a topology.yaml must be a non-empty list of topologies", file=file)
    units: list[tuple[int, dict[str, Any]]] = []
    for index, unit in enumerate(data):
        if not isinstance(unit, dict) or "topology" not in unit:
            raise TopologyError(
                "each topology.yaml entry must be a mapping with a 'topology' name", file=file, field=f"[{index}]"
            )
        units.append((index, unit))
    if topology is None:
        return ([item for item in units if item[1].get("cluster_default") is True] or units)[0]
    chosen = [item for item in units if str(item[1]["topology"]) == topology]
    if not chosen:
        names = ", ".join(str(unit["topology"]) for _, unit in units)
        raise TopologyError(f"no topology named {topology!r} (the file has: {names})", file=file)
    return chosen[0]


@dataclass
class _YamlBody:
    """The ``tree`` or ``block`` mapping of a topology.yaml entry, read entry by entry."""

    body: dict[str, Any]
    base: str
    document: str
    file: str | None
    counter: list[int] = field(default_factory=lambda: [0])

    def entries(self, key: str, name_key: str, allowed: set[str]) -> list[tuple[str, str, dict[str, Any]]]:
        """``(name, field path, entry)`` of each ``switches``/``blocks`` entry, checked."""
        raw = self.body.get(key)
        if not isinstance(raw, list):
            raise TopologyError(
                f"expected a list of {key}", file=self.file, document=self.document, field=f"{self.base}.{key}"
            )
        seen: set[str] = set()
        result = []
        for position, entry in enumerate(raw):
            where = f"{self.base}.{key}[{position}]"
            if not isinstance(entry, dict) or not isinstance(entry.get(name_key), str) or not entry[name_key]:
                raise TopologyError(
                    f"each {name_key} needs a {name_key!r} name", file=self.file, document=self.document, field=where
                )
            extra = set(entry) - allowed
            if extra:
                raise TopologyError(
                    "unknown key", file=self.file, document=self.document, field=f"{where}.{sorted(extra)[0]}"
                )
            if entry[name_key] in seen:
                raise TopologyError(
                    f"{name_key} {entry[name_key]!r} is defined twice",
                    file=self.file,
                    document=self.document,
                    field=where,
                )
            seen.add(entry[name_key])
            result.append((entry[name_key], where, entry))
        return result

    def hostlist(self, entry: dict[str, Any], key: str, where: str) -> list[str]:
        return _hostlist(
            entry.get(key),
            file=self.file,
            document=self.document,
            field_name=f"{where}.{key}",
            counter=self.counter if key == "nodes" else None,  # switch names are not nodes
        )


def parse_topology_yaml(data: Any, *, file: str | None = None, topology: str | None = None) -> SlurmTopology:
    """Read a parsed Slurm ``topology.yaml`` (a list of ``{topology, cluster_default, tree|block|flat}``).

    Args:
        data: the parsed YAML document.
        file: the file name for messages.
        topology: which named topology to read; default the one with ``cluster_default: true``,
            else the first.

    Raises:
        TopologyError: wrong shapes, an unknown topology name, or not exactly one of
            ``tree``/``block``/``flat`` in the chosen entry.
    """
    index, unit = _chosen_unit(data, file, topology)
    name = str(unit["topology"])
    document = f"topology {name}"
    forms = [key for key in ("tree", "block", "flat") if key in unit]
    if len(forms) != 1:
        raise TopologyError(
            "exactly one of tree, block or flat is required", file=file, document=document, field=f"[{index}]"
        )
    unknown = set(unit) - {"topology", "cluster_default", "tree", "block", "flat"}
    if unknown:
        raise TopologyError("unknown key", file=file, document=document, field=f"[{index}].{sorted(unknown)[0]}")
    form = forms[0]
    result = SlurmTopology(plugin=form, name=name)
    if form == "flat":
        return result
    base = f"[{index}].{form}"
    if not isinstance(unit[form], dict):
        raise TopologyError("expected a mapping", file=file, document=document, field=base)
    body = _YamlBody(unit[form], base, document, file)
    if form == "tree":
        for switch, where, entry in body.entries("switches", "switch", {"switch", "children", "nodes"}):
            children = body.hostlist(entry, "children", where)
            nodes = body.hostlist(entry, "nodes", where)
            result.switches.append(SlurmSwitch(switch, children, nodes, where=f"{document} {where}"))
        return result
    if "block_sizes" in unit[form]:
        result.block_sizes = _parse_block_sizes(
            unit[form]["block_sizes"], file=file, document=document, field_name=f"{base}.block_sizes"
        )
    for block, where, entry in body.entries("blocks", "block", {"block", "nodes"}):
        result.blocks.append(SlurmBlock(block, body.hostlist(entry, "nodes", where), where=f"{document} {where}"))
    return result


# --------------------------------------------------------------------------------------------
# To a Cluster


def _tree_labels(topology: SlurmTopology, file: str | None) -> tuple[dict[str, dict[str, str]], list[str]]:
    switches = {switch.name: switch for switch in topology.switches}
    parent: dict[str, str] = {}
    for switch in topology.switches:
        for child in switch.switches:
            if child not in switches:
                raise TopologyError(
                    f"switch {switch.name!r} lists child switch {child!r}, which is never defined",
                    file=file,
                    document=switch.where,
                    field="Switches",
                )
            if child == switch.name:
                raise TopologyError(
                    f"switch {child!r} lists itself as a child", file=file, document=switch.where, field="Switches"
                )
            if child in parent:
                raise TopologyError(
                    f"switch {child!r} has two parents, {parent[child]!r} and {switch.name!r}",
                    file=file,
                    document=switch.where,
                    field="Switches",
                )
            parent[child] = switch.name
    depth: dict[str, int] = {}
    queue = [name for name in switches if name not in parent]
    for name in queue:
        depth[name] = 0
    for name in queue:  # breadth first; the list grows while we walk it
        for child in switches[name].switches:
            depth[child] = depth[name] + 1
            queue.append(child)
    cyclic = [name for name in switches if name not in depth]
    if cyclic:
        raise TopologyError(
            f"switches {', '.join(sorted(cyclic))} form a cycle", file=file, document=switches[cyclic[0]].where
        )
    with_nodes = [switch for switch in topology.switches if switch.nodes]
    if not with_nodes:
        raise TopologyError("no switch lists any nodes (Nodes=)", file=file)
    height = max(depth[switch.name] for switch in with_nodes)
    labels: dict[str, dict[str, str]] = {}
    for switch in with_nodes:
        path: dict[str, str] = {}
        current: str | None = switch.name
        while current is not None:
            path[SLURM_SWITCH_TIER.format(tier=height - depth[current])] = current
            current = parent.get(current)
        for node in switch.nodes:
            if node in labels:
                raise TopologyError(
                    f"node {node!r} is under two switches", file=file, document=switch.where, field="Nodes"
                )
            labels[node] = path
    levels = [SLURM_SWITCH_TIER.format(tier=tier) for tier in range(height, -1, -1)]
    return labels, levels


def _block_labels(topology: SlurmTopology, file: str | None) -> tuple[dict[str, dict[str, str]], list[str]]:
    labels: dict[str, dict[str, str]] = {}
    sizes = topology.block_sizes
    groups: list[tuple[str, int]] = [
        (SLURM_BLOCK_GROUP.format(size=size), size // sizes[0]) for size in reversed(sizes[1:])
    ]
    blocks = topology.blocks
    for position, block in enumerate(blocks):
        path: dict[str, str] = {}
        for key, span in groups:
            start = position - position % span
            last = min(start + span, len(blocks)) - 1
            path[key] = f"{blocks[start].name}..{blocks[last].name}"
        path[SLURM_BLOCK] = block.name
        for node in block.nodes:
            if node in labels:
                raise TopologyError(f"node {node!r} is in two blocks", file=file, document=block.where, field="Nodes")
            labels[node] = path
    if not labels:
        raise TopologyError("no block lists any nodes (Nodes=)", file=file)
    return labels, [key for key, _ in groups] + [SLURM_BLOCK]


def cluster_from_slurm(
    topology: SlurmTopology,
    capacity: NodeCapacity | None = None,
    *,
    name: str = "slurm",
    file: str | None = None,
) -> Cluster:
    """Build a cluster from a parsed Slurm topology; every node gets ``capacity``.

    Levels and labels are the synthetic ones described in the module docstring.

    Raises:
        TopologyError: a switch with two parents, a cycle, an undefined child switch, a node
            under two switches or blocks, no nodes at all, or a ``flat`` topology (which lists
            no nodes).
    """
    capacity = capacity or NodeCapacity()
    if topology.plugin == "tree":
        labels, levels = _tree_labels(topology, file)
    elif topology.plugin == "block":
        labels, levels = _block_labels(topology, file)
    else:
        raise TopologyError(
            f"topology {topology.name!r} is flat and lists no nodes; read the nodes from a NodeList instead",
            file=file,
        )
    allocatable = capacity.allocatable()
    nodes = [
        Node(name=node, labels={**path, HOSTNAME: node}, allocatable=dict(allocatable)) for node, path in labels.items()
    ]
    return Cluster(name=name, nodes=nodes, levels=levels + [HOSTNAME], source=file)
