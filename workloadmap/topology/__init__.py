"""Topology: the cluster model and every way of reading one.

``model`` holds nodes, clusters and domains; ``levels`` the table of label schemes, level
detection and the accelerator (NVLink) rule; the readers build clusters from Kubernetes objects
(``kubernetes``), Slurm files (``slurm``, ``hostlist``), Topograph simulation models
(``topograph``) and generated examples (``simulation``), nodes' NUMA layouts from
``NodeResourceTopology`` objects (``noderesourcetopology``); ``load`` chooses a reader from a table.
"""

from .devices import read_located_devices, split_device_objects, with_devices
from .hostlist import MAX_HOSTLIST_NAMES, expand_hostlist
from .kubernetes import (
    StatedTopology,
    apply_pods,
    cluster_from_objects,
    nodes_from_documents,
    set_levels,
    stated_topology,
    topology_object_levels,
)
from .levels import (
    ACCELERATOR_SCHEMES,
    FABRIC_SCHEMES,
    NVLINK_DOMAIN_LABELS,
    LevelScheme,
    accelerator_level,
    detect_levels,
    detect_schemes,
    resolve_level,
)
from .load import (
    FILE_FORMATS,
    LIVE_PREFIX,
    PREFIX_READERS,
    PRESET_PREFIX,
    SourceFormat,
    SourcePrefix,
    detect_format,
    load_cluster,
    read_stated_topology,
    read_topology_documents,
    read_topology_object,
    source_forms,
)
from .model import MAX_LEVELS, Cluster, Domain, Node, NodeCapacity, domain_tree, validate_levels
from .noderesourcetopology import (
    apply_topology_manager,
    attach_node_topologies,
    node_topology_objects,
    numa_summary,
    read_node_topologies,
    simulated_layout,
)
from .simulation import (
    DEFAULT_PRESET,
    PRESETS,
    SimulationSpec,
    example_cluster,
    generate_cluster,
    generate_nodelist,
    get_preset,
    iter_node_objects,
)
from .slurm import SlurmTopology, cluster_from_slurm, parse_topology_conf, parse_topology_yaml
from .topograph import cluster_from_model

__all__ = [
    "read_node_topologies",
    "attach_node_topologies",
    "apply_topology_manager",
    "node_topology_objects",
    "numa_summary",
    "simulated_layout",
    "Node",
    "Cluster",
    "Domain",
    "NodeCapacity",
    "MAX_LEVELS",
    "domain_tree",
    "validate_levels",
    "LevelScheme",
    "FABRIC_SCHEMES",
    "ACCELERATOR_SCHEMES",
    "NVLINK_DOMAIN_LABELS",
    "detect_levels",
    "detect_schemes",
    "accelerator_level",
    "resolve_level",
    "load_cluster",
    "with_devices",
    "split_device_objects",
    "read_located_devices",
    "detect_format",
    "read_topology_documents",
    "read_topology_object",
    "read_stated_topology",
    "StatedTopology",
    "stated_topology",
    "SourceFormat",
    "SourcePrefix",
    "FILE_FORMATS",
    "PREFIX_READERS",
    "source_forms",
    "PRESET_PREFIX",
    "LIVE_PREFIX",
    "nodes_from_documents",
    "apply_pods",
    "topology_object_levels",
    "cluster_from_objects",
    "set_levels",
    "cluster_from_model",
    "SlurmTopology",
    "parse_topology_conf",
    "parse_topology_yaml",
    "cluster_from_slurm",
    "expand_hostlist",
    "MAX_HOSTLIST_NAMES",
    "SimulationSpec",
    "PRESETS",
    "DEFAULT_PRESET",
    "get_preset",
    "iter_node_objects",
    "generate_nodelist",
    "generate_cluster",
    "example_cluster",
]
