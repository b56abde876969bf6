"""Simulated clusters: racks of NVLink nodes under a switch tree, labelled the way Topograph does.

A :class:`SimulationSpec` describes the shape; :func:`iter_node_objects` yields Kubernetes Node
objects one at a time (so a 100,000-node NodeList can be streamed), :func:`generate_nodelist`
collects them into a ``NodeList`` dict, and :func:`generate_cluster` builds the
:class:`~workloadmap.topology.Cluster` directly without the detour through dicts.

Shape (all counts per parent):

* ``racks`` racks of ``nodes_per_rack`` nodes with ``gpus_per_node`` GPUs each; with
  ``nvlink_domain`` every rack is one NVLink (accelerator) domain, like a GB200 NVL72 rack of
  18 compute trays x 4 GPUs;
* ``racks_per_block`` racks hang under one leaf switch (``fabric.topograph.run/tier-0``);
* ``blocks_per_spine`` leaf switches hang under one spine (``tier-1``);
* with ``core`` and more than one spine, a single core switch (``tier-2``) joins the spines.

Labels written (Topograph v1 scheme, ``docs/reference/node-labels.md``):
``kubernetes.io/hostname``, ``fabric.topograph.run/tier-N`` (switch IDs ``leaf-NNN``,
``spine-NN``, ``core``), ``accelerator.topograph.run/domain`` (``nvl-NNN``) and/or
``nvidia.com/gpu.clique`` (``<ClusterUUID>.<CliqueID>``, a deterministic UUID per rack, clique
``1``), ``topology.kubernetes.io/zone`` when ``zone`` is set, and ``wmap.dev/simulated: "true"``.

Named examples (:data:`PRESETS`) are built from these specs deterministically; the default,
:data:`DEFAULT_PRESET`, is the built-in cluster placement uses when none is given.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

from ..budgets import check as check_budget
from ..errors import TopologyError
from ..labels import CLUSTER_NAME, GPU_CLIQUE, HOSTNAME, SIMULATED, TOPOGRAPH_ACCELERATOR_DOMAIN, TOPOGRAPH_TIER, ZONE
from ..numa import TopologyManager, TopologyManagerPolicy, TopologyManagerScope
from ..quantities import format_quantity, is_binary_resource
from .model import Cluster, Node, NodeCapacity
from .noderesourcetopology import node_topology_objects, simulated_layout

__all__ = [
    "MAX_SIMULATED_NODES",
    "SimulationSpec",
    "PRESETS",
    "DEFAULT_PRESET",
    "get_preset",
    "iter_node_objects",
    "generate_nodelist",
    "generate_cluster",
    "example_cluster",
]

# Generation is linear, but ten million nodes of dicts would exhaust memory rather than help anyone.
MAX_SIMULATED_NODES = 2_000_000

_ACCELERATOR_STYLES = ("topograph", "clique", "both")
_CLIQUE_NAMESPACE = uuid.UUID("6f0b8f2e-0d5c-4c1e-9a57-1f3c2a8d7e10")


@dataclass(frozen=True)
class SimulationSpec:
    """The shape of a simulated cluster (see the module docstring).

    Attributes:
        name: the cluster name; also seeds the deterministic clique UUIDs.
        racks: how many racks.
        nodes_per_rack: nodes in a rack (18 for GB200 NVL72).
        gpus_per_node: GPUs per node (4 for GB200, 8 for HGX H100).
        racks_per_block: racks under one leaf switch (tier 0).
        blocks_per_spine: leaf switches under one spine switch (tier 1).
        core: join several spines under one core switch (tier 2).
        nvlink_domain: each rack is one NVLink domain (accelerator labels written).
        accelerator_labels: ``topograph`` (``accelerator.topograph.run/domain``), ``clique``
            (``nvidia.com/gpu.clique``) or ``both``.
        zone: a ``topology.kubernetes.io/zone`` value for every node, or ``None``.
        cpu, memory, pods: allocatable per node.
        gpu_resource: the extended resource name of the GPUs.
        description: one line for ``wmap topology presets``.
        numa_nodes: NUMA nodes per node (0: no NUMA layout); cpu, memory and GPUs are split evenly
            and published as ``NodeResourceTopology`` objects.
        topology_manager_policy: the policy those objects state (None: they state none).
        topology_manager_scope: the scope they state (with a policy; default ``container``).
    """

    name: str = "simulated"
    racks: int = 4
    nodes_per_rack: int = 18
    gpus_per_node: int = 4
    racks_per_block: int = 2
    blocks_per_spine: int = 2
    core: bool = True
    nvlink_domain: bool = True
    accelerator_labels: str = "topograph"
    zone: str | None = None
    cpu: str | int = 144
    memory: str | int = "1800Gi"
    pods: int = 110
    gpu_resource: str = "nvidia.com/gpu"
    description: str = ""
    numa_nodes: int = 0
    topology_manager_policy: str | None = None
    topology_manager_scope: str | None = None

    @property
    def node_count(self) -> int:
        """Total nodes."""
        return self.racks * self.nodes_per_rack

    @property
    def block_count(self) -> int:
        """Leaf switches (ceil of racks / racks_per_block)."""
        return -(-self.racks // self.racks_per_block)

    @property
    def spine_count(self) -> int:
        """Spine switches (ceil of leaf switches / blocks_per_spine)."""
        return -(-self.block_count // self.blocks_per_spine)

    @property
    def has_core(self) -> bool:
        """Whether a tier-2 core switch is written (``core`` and more than one spine)."""
        return self.core and self.spine_count > 1

    def validate(self) -> "SimulationSpec":
        """Check the counts and options; return ``self``.

        Raises:
            TopologyError: a count below 1 (GPUs below 0), too many nodes, or an unknown
                ``accelerator_labels`` style; the field is named.
        """
        for name in ("racks", "nodes_per_rack", "racks_per_block", "blocks_per_spine", "pods"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise TopologyError(f"must be a whole number of at least 1, got {value!r}", field=name)
        if isinstance(self.gpus_per_node, bool) or not isinstance(self.gpus_per_node, int) or self.gpus_per_node < 0:
            raise TopologyError(
                f"must be a whole number of at least 0, got {self.gpus_per_node!r}", field="gpus_per_node"
            )
        if self.node_count > MAX_SIMULATED_NODES:
            raise TopologyError(
                f"{self.node_count} nodes is more than the {MAX_SIMULATED_NODES} a simulation may have", field="racks"
            )
        what = f"nodes ({self.racks:,} racks x {self.nodes_per_rack:,} nodes per rack)"
        check_budget("nodes", self.node_count, what, field="racks")
        if self.accelerator_labels not in _ACCELERATOR_STYLES:
            raise TopologyError(
                f"unknown style {self.accelerator_labels!r}; expected one of {', '.join(_ACCELERATOR_STYLES)}",
                field="accelerator_labels",
            )
        self.capacity().allocatable()  # rejects bad cpu/memory quantities
        if isinstance(self.numa_nodes, bool) or not isinstance(self.numa_nodes, int) or self.numa_nodes < 0:
            raise TopologyError(f"must be a whole number of at least 0, got {self.numa_nodes!r}", field="numa_nodes")
        self.topology_manager()
        return self

    def topology_manager(self) -> TopologyManager:
        """The topology manager settings the nodes' objects state (``stated`` only with a policy).

        Raises:
            TopologyError: an unknown policy or scope.
        """
        try:
            policy = TopologyManagerPolicy(self.topology_manager_policy or "none")
            scope = TopologyManagerScope(self.topology_manager_scope or "container")
        except ValueError as error:
            raise TopologyError(str(error), field="topology_manager_policy") from None
        stated = self.topology_manager_policy is not None
        return TopologyManager(policy, scope, max_allowable_numa_nodes=max(8, self.numa_nodes), stated=stated)

    def capacity(self) -> NodeCapacity:
        """The per-node capacity."""
        return NodeCapacity(
            gpus=self.gpus_per_node, cpu=self.cpu, memory=self.memory, pods=self.pods, gpu_resource=self.gpu_resource
        )

    def levels(self) -> list[str]:
        """The topology levels of the generated nodes, widest first, hostname last."""
        levels = [ZONE] if self.zone else []
        if self.has_core:
            levels.append(TOPOGRAPH_TIER.format(tier=2))
        levels += [TOPOGRAPH_TIER.format(tier=1), TOPOGRAPH_TIER.format(tier=0)]
        if self.nvlink_domain:
            if self.accelerator_labels in ("topograph", "both"):
                levels.append(TOPOGRAPH_ACCELERATOR_DOMAIN)
            if self.accelerator_labels in ("clique", "both"):
                levels.append(GPU_CLIQUE)
        return levels + [HOSTNAME]

    def to_dict(self) -> dict[str, Any]:
        """The spec as a plain dict, plus node and GPU totals."""
        data = asdict(self)
        data["nodes"] = self.node_count
        data["gpus"] = self.node_count * self.gpus_per_node
        return data


PRESETS: dict[str, SimulationSpec] = {
    spec.name: spec
    for spec in (
        SimulationSpec(
            name="nvl72-4rack",
            racks=4,
            description="4 GB200 NVL72 racks (18 nodes x 4 GPUs, one NVLink domain each), 2 racks per leaf, 1 spine",
        ),
        SimulationSpec(
            name="nvl72-16rack",
            racks=16,
            racks_per_block=2,
            blocks_per_spine=4,
            accelerator_labels="both",
            description=(
                "16 NVL72 racks, 2 per leaf, 4 leaves per spine, 2 spines under a core; domain and gpu.clique labels"
            ),
        ),
        SimulationSpec(
            name="h100-2spine",
            racks=8,
            nodes_per_rack=8,
            gpus_per_node=8,
            racks_per_block=1,
            blocks_per_spine=4,
            nvlink_domain=False,
            cpu=224,
            memory="2000Gi",
            description="64 HGX H100 nodes (8 GPUs), 8 per leaf, 4 leaves per spine, 2 spines under a core",
        ),
        SimulationSpec(
            name="h100-numa",
            racks=2,
            nodes_per_rack=8,
            gpus_per_node=8,
            racks_per_block=1,
            blocks_per_spine=2,
            nvlink_domain=False,
            cpu=224,
            memory="2000Gi",
            numa_nodes=2,
            topology_manager_policy="single-numa-node",
            description=(
                "16 HGX H100 nodes (8 GPUs on 2 NUMA nodes of 4), kubelet topology manager single-numa-node,"
                " 8 per leaf, 2 leaves under 1 spine"
            ),
        ),
        SimulationSpec(
            name="small-16",
            racks=2,
            nodes_per_rack=8,
            gpus_per_node=8,
            racks_per_block=1,
            blocks_per_spine=2,
            nvlink_domain=False,
            cpu=96,
            memory="1024Gi",
            description="16 nodes x 8 GPUs, 8 per leaf, 2 leaves under 1 spine",
        ),
    )
}
DEFAULT_PRESET = "nvl72-4rack"


def get_preset(name: str) -> SimulationSpec:
    """The named example spec.

    Raises:
        TopologyError: no preset has that name (the message lists them).
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise TopologyError(f"unknown preset {name!r}; known presets: {', '.join(PRESETS)}") from None


def _width(count: int, minimum: int) -> int:
    return max(minimum, len(str(count)))


def _node_layout(spec: SimulationSpec) -> Iterator[tuple[str, dict[str, str]]]:
    """(node name, labels) for every node, rack by rack."""
    spec.validate()
    rack_width = _width(spec.racks, 3)
    slot_width = _width(spec.nodes_per_rack, 2)
    leaf_width = _width(spec.block_count, 3)
    spine_width = _width(spec.spine_count, 2)
    write_domain = spec.nvlink_domain and spec.accelerator_labels in ("topograph", "both")
    write_clique = spec.nvlink_domain and spec.accelerator_labels in ("clique", "both")
    tier0, tier1, tier2 = (TOPOGRAPH_TIER.format(tier=tier) for tier in range(3))
    for rack in range(1, spec.racks + 1):
        block = (rack - 1) // spec.racks_per_block + 1
        spine = (block - 1) // spec.blocks_per_spine + 1
        rack_labels: dict[str, str] = {}
        if spec.zone:
            rack_labels[ZONE] = spec.zone
        if spec.has_core:
            rack_labels[tier2] = "core"
        rack_labels[tier1] = f"spine-{spine:0{spine_width}d}"
        rack_labels[tier0] = f"leaf-{block:0{leaf_width}d}"
        if write_domain:
            rack_labels[TOPOGRAPH_ACCELERATOR_DOMAIN] = f"nvl-{rack:0{rack_width}d}"
        if write_clique:
            cluster_uuid = uuid.uuid5(_CLIQUE_NAMESPACE, f"{spec.name}/rack-{rack}")
            rack_labels[GPU_CLIQUE] = f"{cluster_uuid}.1"
        rack_labels[SIMULATED] = "true"
        rack_labels[CLUSTER_NAME] = spec.name
        for slot in range(1, spec.nodes_per_rack + 1):
            name = f"node-{rack:0{rack_width}d}-{slot:0{slot_width}d}"
            labels = dict(rack_labels)
            labels[HOSTNAME] = name
            yield name, labels


def iter_node_objects(spec: SimulationSpec) -> Iterator[dict[str, Any]]:
    """Yield one Kubernetes ``v1`` Node object per simulated node (Ready, with capacity = allocatable).

    Raises:
        TopologyError: the spec is invalid (see :meth:`SimulationSpec.validate`).
    """
    allocatable = {
        name: format_quantity(amount, binary=is_binary_resource(name))
        for name, amount in spec.validate().capacity().allocatable().items()
    }
    for name, labels in _node_layout(spec):
        yield {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "spec": {},
            "status": {
                "capacity": dict(allocatable),
                "allocatable": dict(allocatable),
                "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
            },
        }


def generate_nodelist(spec: SimulationSpec) -> dict[str, Any]:
    """A ``v1`` ``NodeList`` dict holding every simulated node (as ``kubectl get nodes -o yaml`` would).

    With ``numa_nodes``, a ``List`` of the Nodes followed by their ``NodeResourceTopology`` objects
    (as ``kubectl get nodes,noderesourcetopologies -o yaml`` would print them).
    """
    nodes = list(iter_node_objects(spec))
    if not spec.numa_nodes:
        return {"apiVersion": "v1", "kind": "NodeList", "metadata": {}, "items": nodes}
    topologies = list(node_topology_objects(generate_cluster(spec)))
    return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": nodes + topologies}


def generate_cluster(spec: SimulationSpec) -> Cluster:
    """The simulated cluster as a :class:`Cluster`, with :meth:`SimulationSpec.levels` as levels."""
    allocatable: dict[str, Fraction] = spec.validate().capacity().allocatable()
    layout = simulated_layout(allocatable, spec.numa_nodes, spec.topology_manager()) if spec.numa_nodes else None
    nodes = [
        Node(name=name, labels=labels, allocatable=dict(allocatable), numa=layout)
        for name, labels in _node_layout(spec)
    ]
    source = f"preset:{spec.name}" if PRESETS.get(spec.name) == spec else "simulation"
    return Cluster(name=spec.name, nodes=nodes, levels=spec.levels(), source=source)


def example_cluster(name: str = DEFAULT_PRESET) -> Cluster:
    """One of the named example clusters that ship with wmap (default :data:`DEFAULT_PRESET`).

    Raises:
        TopologyError: unknown preset name.
    """
    return generate_cluster(get_preset(name))
