"""The definition format: one YAML file per workload type, validated by these pydantic models.

A definition says which resources it matches (``group``, ``kind``, ``versions``), the tree of
components (roles) and where each one's pods are declared, how many replicas and pods each has,
which gangs (PodGroups and SubGroups) a gang scheduler builds, and how the resource's status maps
to a normalized phase. ``wmap catalog schema`` prints the JSON Schema generated from these models.

These models are the one declaration of the format: the plain runtime classes the interpreter
reads (:mod:`workloadmap.runtime_definitions`) have their heads written from them by the build step
(:mod:`.runtime_source`, run by ``python -m workloadmap.catalog``).

Every expression field holds a JMESPath expression (or JSONPath when ``language: jsonpath``); an
integer is accepted wherever a count is expected and means that constant. Expressions of a
component evaluate against the resource, or against the current instance element inside a
multi-instance component (``root()`` then reaches the resource).
"""

from .base import PHASE_PRECEDENCE, Count, FieldPathText, Phase, validation_problem
from .components import ComponentDefinition, PodFieldsDefinition, PodsDefinition, PodSpecField, RunDefinition
from .gangs import GangDefinition, GangWarning, PodGroupRule, SubGroupRule, TopologyRule
from .model import (
    CheckDefinition,
    Definition,
    ExportsDefinition,
    Reference,
    ReferenceKind,
    SpecBase,
    SuspendAction,
    SuspendDefinition,
    definition_json_schema,
)
from .status import ConditionFields, ConditionMatch, StatusDefinition, StatusMatcher

__all__ = [
    "validation_problem",
    "Count",
    "FieldPathText",
    "Phase",
    "PHASE_PRECEDENCE",
    "ConditionMatch",
    "ConditionFields",
    "StatusMatcher",
    "StatusDefinition",
    "ComponentDefinition",
    "PodsDefinition",
    "PodSpecField",
    "RunDefinition",
    "SubGroupRule",
    "PodGroupRule",
    "GangDefinition",
    "GangWarning",
    "SpecBase",
    "CheckDefinition",
    "TopologyRule",
    "Reference",
    "ReferenceKind",
    "ExportsDefinition",
    "PodFieldsDefinition",
    "SuspendAction",
    "SuspendDefinition",
    "Definition",
    "definition_json_schema",
]
