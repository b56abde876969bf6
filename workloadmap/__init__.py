"""wmap: expand AI workload custom resources into normalized workload trees and gang placements.

The pipeline, one subpackage per stage::

    documents -> catalog (definitions) -> interpreter -> tree
                                   topology -> placement -> exporters
    lint checks definitions; alter changes pods through the catalog; kube reads a live cluster
    (GET/LIST/WATCH only); live: a workload's running pods attributed to its components, events,
    placement audit

The everyday calls::

    import workloadmap
    tree = workloadmap.inspect(obj)                       # one parsed Kubernetes object
    results = workloadmap.inspect_file("jobset.yaml")     # every document of a file
    cluster = workloadmap.load_cluster("preset:nvl72-4rack")
    report = workloadmap.place(tree, cluster)
    objects = workloadmap.export("kai", tree, report)
    changed = workloadmap.alter(obj, workloadmap.Changes(scheduler_name="kai-scheduler")).object
    described = workloadmap.describe(obj, live)             # live = LiveObjects(pods, owners, events, nodes)
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
        ReferencedTemplateError,
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
    from .live import DescribeReport, LiveObjects, ObjectsByUid, describe, from_dumps  # type: ignore[no-redef]
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
    from .topology import Cluster, Domain, Node, NodeCapacity, detect_levels, example_cluster, load_cluster
    from .tree import Component, PodGroup, PodSet, SubGroup, Totals, WorkloadRef, WorkloadTree


__version__ = "0.1.0"

__all__ = [
    "__version__",
    # catalog
    "Catalog",
    "load_definition",
    "parse_definition",
    "Definition",
    "Phase",
    "definition_json_schema",
    "load_definitions",
    # karta
    "Karta",
    "KartaDefinition",
    "parse_karta",
    "export_karta",
    "ExportedKarta",
    # input
    "Document",
    "load_objects",
    # interpreter
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
    # topology
    "load_cluster",
    "example_cluster",
    "detect_levels",
    "Cluster",
    "Node",
    "Domain",
    "NodeCapacity",
    # placement
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
    # budgets and deadlines
    "Budgets",
    "Deadline",
    # exporters
    "export",
    "export_targets",
    "ExportRequest",
    # alter
    "alter",
    "Changes",
    "Toleration",
    "NodeRequirement",
    "Alteration",
    # live
    "describe",
    "DescribeReport",
    "LiveObjects",
    "ObjectsByUid",
    "from_dumps",
    # lint
    "lint_path",
    "lint_definition",
    "LintFinding",
    # errors
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
    "ReferencedTemplateError",
    "DeadlineError",
    "InternalError",
    "ClusterError",
    "ClusterApiError",
    "UnknownResourceTypeError",
]

# The public names are imported when first used (PEP 562): `wmap inspect` needs the interpreter, not
# placement, alter, live or Karta, and importing them all would double its start-up time.
_LAZY = {
    **dict.fromkeys(("Alteration", "Changes", "NodeRequirement", "Toleration", "alter"), ".alter"),
    **dict.fromkeys(("Budgets", "Deadline"), ".budgets"),
    **dict.fromkeys(("Catalog", "load_definition", "load_definitions", "parse_definition"), ".catalog"),
    **dict.fromkeys(("Definition", "definition_json_schema"), ".definitions"),
    "Phase": ".runtime_definitions",
    **dict.fromkeys(("Document", "load_objects"), ".documents"),
    **dict.fromkeys(
        (
            "AlterError",
            "ReferencedTemplateError",
            "BudgetError",
            "ClusterApiError",
            "ClusterError",
            "DeadlineError",
            "DefinitionError",
            "ExpressionError",
            "ExpressionLimitError",
            "InputError",
            "InputNotFoundError",
            "InternalError",
            "Location",
            "NoDefinitionError",
            "PlacementError",
            "QuantityError",
            "TopologyError",
            "UnknownResourceTypeError",
            "WorkloadMapError",
        ),
        ".errors",
    ),
    **dict.fromkeys(("ExportRequest", "export", "export_targets"), ".exporters"),
    **dict.fromkeys(
        (
            "ChainedObjects",
            "InspectResult",
            "ObjectIndex",
            "RelatedObjects",
            "inspect",
            "inspect_documents",
            "inspect_file",
        ),
        ".interpreter",
    ),
    **dict.fromkeys(("Karta", "KartaDefinition", "parse_karta"), ".karta"),
    **dict.fromkeys(("ExportedKarta", "export_karta"), ".karta.export"),
    **dict.fromkeys(("LintFinding", "lint_definition", "lint_path"), ".lint"),
    **dict.fromkeys(("DescribeReport", "LiveObjects", "ObjectsByUid", "describe", "from_dumps"), ".live"),
    **dict.fromkeys(
        (
            "ClusterRanking",
            "GroupPlacement",
            "JointPlacement",
            "Placement",
            "PlacementReport",
            "Verdict",
            "place",
            "place_on",
            "place_together",
            "rank_clusters",
        ),
        ".placement",
    ),
    **dict.fromkeys(("format_quantity", "parse_quantity"), ".quantities"),
    **dict.fromkeys(("DEFAULT_GPU_RESOURCES", "PodDemand", "pod_demand"), ".resources"),
    **dict.fromkeys(
        ("Cluster", "Domain", "Node", "NodeCapacity", "detect_levels", "example_cluster", "load_cluster"), ".topology"
    ),
    **dict.fromkeys(("Component", "PodGroup", "PodSet", "SubGroup", "Totals", "WorkloadRef", "WorkloadTree"), ".tree"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'workloadmap' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
