"""wmap: expand AI workload custom resources into normalized workload trees.

The everyday calls::

    import workloadmap
    tree = workloadmap.inspect(obj)            # one parsed Kubernetes object
    results = workloadmap.inspect_file("jobset.yaml")
    catalog = workloadmap.Catalog.load(["my-definitions/"])
"""

from .catalog import Catalog, load_definition
from .definitions import Definition, Phase, definition_json_schema
from .documents import Document, load_objects
from .errors import (
    ClusterError,
    DefinitionError,
    ExpressionError,
    InputError,
    InterpretError,
    NoDefinitionError,
    PlacementError,
    QuantityError,
    TopologyError,
    WorkloadMapError,
)
from .interpreter import InspectResult, inspect, inspect_documents, inspect_file
from .quantities import format_quantity, parse_quantity
from .resources import DEFAULT_GPU_RESOURCES, PodDemand, pod_demand
from .tree import Component, PodGroup, PodSet, SubGroup, Totals, WorkloadRef, WorkloadTree

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "Catalog",
    "load_definition",
    "Definition",
    "Phase",
    "definition_json_schema",
    "Document",
    "load_objects",
    "inspect",
    "inspect_file",
    "inspect_documents",
    "InspectResult",
    "WorkloadTree",
    "WorkloadRef",
    "Component",
    "PodGroup",
    "SubGroup",
    "PodSet",
    "Totals",
    "parse_quantity",
    "format_quantity",
    "pod_demand",
    "PodDemand",
    "DEFAULT_GPU_RESOURCES",
    "WorkloadMapError",
    "InputError",
    "QuantityError",
    "ExpressionError",
    "DefinitionError",
    "NoDefinitionError",
    "InterpretError",
    "TopologyError",
    "PlacementError",
    "ClusterError",
]
