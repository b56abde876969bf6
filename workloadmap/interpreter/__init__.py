"""The interpreter: a custom resource expanded into a normalized workload tree.

``build`` runs the pipeline for one resource (lookup, references, expansion, totals, phase,
gangs), every step evaluating against one ``EvaluationContext`` (definition, resource,
references); ``expand`` walks the definition's components, ``gangs`` forms the PodGroups and
SubGroups, ``phases`` maps the status, ``references`` finds the objects a workload names,
``pods`` renders the components' pod selectors (which live pods are whose).
"""

from .build import InspectResult, default_catalog, inspect, inspect_documents, inspect_file, topology_annotations
from .context import EvaluationContext
from .expand import ExpandedComponent, Expander, evaluate_count, to_count
from .gangs import form_pod_groups, rule_applies
from .phases import evaluate_phase
from .pods import PodClaim, label_index, lineages, pod_claims
from .references import ChainedObjects, ObjectIndex, RelatedObjects, resolve_references

__all__ = [
    "inspect",
    "inspect_documents",
    "inspect_file",
    "InspectResult",
    "default_catalog",
    "topology_annotations",
    "EvaluationContext",
    "ExpandedComponent",
    "Expander",
    "evaluate_count",
    "to_count",
    "form_pod_groups",
    "rule_applies",
    "evaluate_phase",
    "RelatedObjects",
    "ObjectIndex",
    "ChainedObjects",
    "resolve_references",
    "PodClaim",
    "pod_claims",
    "lineages",
    "label_index",
]
