"""wmap: expand AI workload custom resources into normalized workload trees and gang placements.

The pipeline, one subpackage per stage::

    documents -> catalog (definitions) -> interpreter -> tree
                                   topology -> placement -> exporters
    lint checks definitions; alter changes pods through the catalog; kube reads a live cluster
    (GET/LIST/WATCH only); live: a workload's running pods attributed to its components, events,
    placement audit; diff: two versions of workloads compared, their placements too; admission:
    Kueue's and KAI's quota verdicts over placement

The everyday calls::

    import workloadmap
    tree = workloadmap.inspect(obj)                       # one parsed Kubernetes object
    results = workloadmap.inspect_file("jobset.yaml")     # every document of a file
    cluster = workloadmap.load_cluster("preset:nvl72-4rack")
    report = workloadmap.place(tree, cluster)
    objects = workloadmap.export("kai", tree, report)
    changed = workloadmap.alter(obj, workloadmap.Changes(scheduler_name="kai-scheduler")).object
    described = workloadmap.describe(obj, live)             # live = LiveObjects(pods, owners, events, nodes)
    changes = workloadmap.diff_workloads(old_trees, new_trees, cluster=cluster)  # a Helm bump reviewed
    queues = workloadmap.load_queues(["queues.yaml"])       # a kubectl dump of Kueue's (or KAI's) queues
    verdicts = workloadmap.preview_admission([(tree, obj)], queues)
"""

from .lazy import lazy_attributes

__version__ = "0.1.0"

# The public API, written once: each module and the names it gives. `__all__` and the lazy imports
# below come from it, and `python -m workloadmap.catalog` writes the type stub `__init__.pyi` (what
# mypy and editors read) from it; tests/test_package_api.py fails when the stub is stale.
_API: dict[str, tuple[str, ...]] = {
    # catalog
    ".catalog": ("Catalog", "load_definition", "parse_definition", "load_definitions"),
    ".definitions": ("Definition", "definition_json_schema"),
    ".runtime_definitions": ("Phase",),
    # karta
    ".karta": ("Karta", "KartaDefinition", "parse_karta"),
    ".karta.export": ("export_karta", "ExportedKarta"),
    # input
    ".documents": ("Document", "load_objects"),
    # interpreter
    ".interpreter": (
        "inspect",
        "inspect_file",
        "inspect_documents",
        "InspectResult",
        "RelatedObjects",
        "ObjectIndex",
        "ChainedObjects",
    ),
    ".tree": (
        "WorkloadTree",
        "WorkloadRef",
        "Component",
        "PodGroup",
        "SubGroup",
        "PodSet",
        "Totals",
        "GangSource",
        "GangOrigin",
    ),
    ".quantities": ("parse_quantity", "format_quantity"),
    ".resources": ("pod_demand", "PodDemand", "DEFAULT_GPU_RESOURCES"),
    # topology
    ".topology": ("load_cluster", "example_cluster", "detect_levels", "Cluster", "Node", "Domain", "NodeCapacity"),
    # placement
    ".placement": (
        "place",
        "rank_clusters",
        "place_on",
        "Placement",
        "PlacementReport",
        "GroupPlacement",
        "ClusterRanking",
        "place_together",
        "JointPlacement",
        "place_many",
        "ManyPlacements",
        "PlacedWorkload",
        "FailedWorkload",
        "POLICIES",
        "DEFAULT_POLICY",
        "Verdict",
    ),
    # admission
    ".admission": (
        "preview_admission",
        "load_queues",
        "capacity",
        "QueueState",
        "AdmissionReport",
        "AdmissionVerdict",
        "CapacityReport",
    ),
    # budgets and deadlines
    ".budgets": ("Budgets", "Deadline", "with_feature_gates", "FEATURE_GATES"),
    # exporters
    ".exporters": ("export", "export_targets", "ExportRequest"),
    # alter
    ".alter": ("alter", "Changes", "Toleration", "NodeRequirement", "Alteration"),
    # live
    ".live": ("describe", "DescribeReport", "LiveObjects", "ObjectsByUid", "from_dumps"),
    # diff
    ".diff": ("diff_workloads", "DiffReport", "WorkloadDiff"),
    # lint
    ".lint": ("lint_path", "lint_definition", "LintFinding"),
    # errors
    ".errors": (
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
    ),
}

__all__ = ["__version__", *(name for names in _API.values() for name in names)]

# The public names are imported when first used (PEP 562): `wmap inspect` needs the interpreter, not
# placement, alter, live or Karta, and importing them all would double its start-up time.
_LAZY = {name: module for module, names in _API.items() for name in names}


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY)
