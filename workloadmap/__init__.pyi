"""The public API of :mod:`workloadmap` for type checkers (its names are imported lazily at run time).

Written by ``python -m workloadmap.catalog`` from the package's ``_API`` table: edit the table.
"""

from .alter import Alteration, Changes, NodeRequirement, Toleration, alter
from .budgets import Budgets, Deadline
from .catalog import Catalog, load_definition, load_definitions, parse_definition
from .definitions import Definition, definition_json_schema
from .documents import Document, load_objects
from .errors import (
    AlterError,
    BudgetError,
    ClusterApiError,
    ClusterError,
    DeadlineError,
    DefinitionError,
    ExpressionError,
    ExpressionLimitError,
    InputError,
    InputNotFoundError,
    InternalError,
    Location,
    NoDefinitionError,
    PlacementError,
    QuantityError,
    TopologyError,
    UnknownResourceTypeError,
    WorkloadMapError,
)
from .exporters import ExportRequest, export, export_targets
from .interpreter import (
    ChainedObjects,
    InspectResult,
    ObjectIndex,
    RelatedObjects,
    inspect,
    inspect_documents,
    inspect_file,
)
from .karta import Karta, KartaDefinition, parse_karta
from .karta.export import ExportedKarta, export_karta
from .lint import LintFinding, lint_definition, lint_path
from .live import DescribeReport, LiveObjects, ObjectsByUid, describe, from_dumps
from .placement import (
    ClusterRanking,
    GroupPlacement,
    JointPlacement,
    Placement,
    PlacementReport,
    Verdict,
    place,
    place_on,
    place_together,
    rank_clusters,
)
from .quantities import format_quantity, parse_quantity
from .resources import DEFAULT_GPU_RESOURCES, PodDemand, pod_demand
from .runtime_definitions import Phase
from .topology import Cluster, Domain, Node, NodeCapacity, detect_levels, example_cluster, load_cluster
from .tree import Component, PodGroup, PodSet, SubGroup, Totals, WorkloadRef, WorkloadTree

__version__: str
_API: dict[str, tuple[str, ...]]

__all__ = [
    "__version__",
    "Catalog",
    "load_definition",
    "parse_definition",
    "load_definitions",
    "Definition",
    "definition_json_schema",
    "Phase",
    "Karta",
    "KartaDefinition",
    "parse_karta",
    "export_karta",
    "ExportedKarta",
    "Document",
    "load_objects",
    "inspect",
    "inspect_file",
    "inspect_documents",
    "InspectResult",
    "RelatedObjects",
    "ObjectIndex",
    "ChainedObjects",
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
    "load_cluster",
    "example_cluster",
    "detect_levels",
    "Cluster",
    "Node",
    "Domain",
    "NodeCapacity",
    "place",
    "rank_clusters",
    "place_on",
    "Placement",
    "PlacementReport",
    "GroupPlacement",
    "ClusterRanking",
    "place_together",
    "JointPlacement",
    "Verdict",
    "Budgets",
    "Deadline",
    "export",
    "export_targets",
    "ExportRequest",
    "alter",
    "Changes",
    "Toleration",
    "NodeRequirement",
    "Alteration",
    "describe",
    "DescribeReport",
    "LiveObjects",
    "ObjectsByUid",
    "from_dumps",
    "lint_path",
    "lint_definition",
    "LintFinding",
    "WorkloadMapError",
    "Location",
    "InputError",
    "InputNotFoundError",
    "QuantityError",
    "BudgetError",
    "ExpressionError",
    "ExpressionLimitError",
    "DefinitionError",
    "NoDefinitionError",
    "TopologyError",
    "PlacementError",
    "AlterError",
    "DeadlineError",
    "InternalError",
    "ClusterError",
    "ClusterApiError",
    "UnknownResourceTypeError",
]
