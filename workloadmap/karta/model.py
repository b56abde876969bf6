"""The Karta format (``run.ai/v1alpha1``, kind ``Karta``) as pydantic models, field for field.

Field names and nesting follow upstream Workload Map's Go types
(``pkg/api/runai/v1alpha1/structure.go`` and ``instructions.go``) and its CRD
(``charts/karta/crds/run.ai_kartas.yaml``, shipped in ``schema/``), so an upstream definition loads
unchanged and :meth:`Karta.to_object` writes it back in the same shape. Unknown fields are errors,
as the API server's structural schema would prune them silently.

The CRD's defaults are applied as the API server applies them when a Karta is created:
``conditionsDefinition`` field names default to ``type``, ``status``, ``message`` and ``reason``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .. import labels

__all__ = [
    "API_VERSION",
    "KIND",
    "STATUS_KEYS",
    "GroupVersionKind",
    "SpecDefinition",
    "FragmentedPodSpecDefinition",
    "ScaleDefinition",
    "PodSelector",
    "ComponentTypeSelector",
    "StatusDefinition",
    "StatusMatcher",
    "ComponentDefinition",
    "PodGroupMember",
    "PodGroupDefinition",
    "PodGroupComponentsMapping",
    "GangScheduling",
    "KartaSpec",
    "Karta",
]

API_VERSION = labels.KARTA_API_VERSION
KIND = labels.KARTA_KIND

# statusMappings keys in upstream's evaluation order (StatusMappings.Entries()).
STATUS_KEYS = ("resuming", "suspending", "suspended", "running", "failed", "completed", "initializing", "degraded")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    def dump(self) -> dict[str, Any]:
        """The object as upstream writes it (camelCase, unset fields left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=True)


class GroupVersionKind(_Model):
    """A Kubernetes kind: ``group`` (empty for the core group), ``version``, ``kind``."""

    group: str = ""
    version: str = ""
    kind: str = ""

    @property
    def api_version(self) -> str:
        """``group/version``, or ``version`` for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version


class FragmentedPodSpecDefinition(_Model):
    """jq paths to pod fields scattered across the resource (Dynamo, Grove, NIM, KServe predictor)."""

    scheduler_name_path: str | None = Field(default=None, alias="schedulerNamePath")
    labels_path: str | None = Field(default=None, alias="labelsPath")
    annotations_path: str | None = Field(default=None, alias="annotationsPath")
    resources_path: str | None = Field(default=None, alias="resourcesPath")
    resource_claims_path: str | None = Field(default=None, alias="resourceClaimsPath")
    pod_affinity_path: str | None = Field(default=None, alias="podAffinityPath")
    node_affinity_path: str | None = Field(default=None, alias="nodeAffinityPath")
    containers_path: str | None = Field(default=None, alias="containersPath")
    container_path: str | None = Field(default=None, alias="containerPath")
    priority_class_name_path: str | None = Field(default=None, alias="priorityClassNamePath")
    image_path: str | None = Field(default=None, alias="imagePath")

    def paths(self) -> dict[str, str]:
        """The set paths by their Go field name (``resourcesPath`` ...)."""
        return {(type(self).model_fields[name].alias or name): value for name, value in self if isinstance(value, str)}


class SpecDefinition(_Model):
    """Where the pod is: a PodTemplateSpec, a PodSpec (+ metadata), or fragments (mutually exclusive)."""

    pod_template_spec_path: str | None = Field(default=None, alias="podTemplateSpecPath")
    pod_spec_path: str | None = Field(default=None, alias="podSpecPath")
    metadata_path: str | None = Field(default=None, alias="metadataPath")
    fragmented_pod_spec_definition: FragmentedPodSpecDefinition | None = Field(
        default=None, alias="fragmentedPodSpecDefinition"
    )


class ScaleDefinition(_Model):
    """jq paths to replicas, minReplicas and maxReplicas (numbers or numeric strings)."""

    replicas_path: str | None = Field(default=None, alias="replicasPath")
    min_replicas_path: str | None = Field(default=None, alias="minReplicasPath")
    max_replicas_path: str | None = Field(default=None, alias="maxReplicasPath")


class ComponentTypeSelector(_Model):
    """Which pods play this role: ``keyPath`` (with ``value``, or existence) and/or ``matchLabels``."""

    key_path: str | None = Field(default=None, alias="keyPath", min_length=1)
    value: str | None = None
    match_labels: dict[str, str] | None = Field(default=None, alias="matchLabels", min_length=1)

    @model_validator(mode="after")
    def _cel_rules(self) -> ComponentTypeSelector:
        if self.key_path is None and self.match_labels is None:
            raise ValueError("at least one of keyPath or matchLabels must be set")
        if self.value is not None and self.key_path is None:
            raise ValueError("value requires keyPath")
        return self


class ComponentInstanceSelector(_Model):
    """The pod field holding the instance id."""

    id_path: str = Field(alias="idPath")


class ReplicaSelector(_Model):
    """The pod field holding the replica index (LWS group index, Grove PodCliqueSet replica)."""

    key_path: str = Field(alias="keyPath")


class PodSelector(_Model):
    """jq paths evaluated on pods: role, instance and replica."""

    component_type_selector: ComponentTypeSelector | None = Field(default=None, alias="componentTypeSelector")
    component_instance_selector: ComponentInstanceSelector | None = Field(
        default=None, alias="componentInstanceSelector"
    )
    replica_selector: ReplicaSelector | None = Field(default=None, alias="replicaSelector")


class PhaseDefinition(_Model):
    """jq path to the raw phase; its first result is the phase."""

    path: str


class ConditionsDefinition(_Model):
    """jq path to the conditions list and the field names inside a condition (CRD defaults applied)."""

    path: str
    type_field_name: str = Field(default="type", alias="typeFieldName")
    status_field_name: str = Field(default="status", alias="statusFieldName")
    message_field_name: str = Field(default="message", alias="messageFieldName")
    reason_field_name: str = Field(default="reason", alias="reasonFieldName")


class ExpectedCondition(_Model):
    """A condition that must be present, with its status and reason when given."""

    type: str
    status: str | None = None
    reason: str | None = None


class ExpressionMatcher(_Model):
    """``(expression) | tostring`` must equal ``expectedResult``."""

    expression: str
    expected_result: str = Field(alias="expectedResult")


class StatusMatcher(_Model):
    """Every check set must hold (AND); the matchers of one status are ORed."""

    by_phase: str | None = Field(default=None, alias="byPhase")
    by_conditions: list[ExpectedCondition] | None = Field(default=None, alias="byConditions")
    by_expression: ExpressionMatcher | None = Field(default=None, alias="byExpression")


class StatusDefinition(_Model):
    """How the root's status maps to the normalized statuses."""

    phase_definition: PhaseDefinition | None = Field(default=None, alias="phaseDefinition")
    conditions_definition: ConditionsDefinition | None = Field(default=None, alias="conditionsDefinition")
    status_mappings: dict[str, list[StatusMatcher]] = Field(alias="statusMappings")

    @model_validator(mode="after")
    def _known_statuses(self) -> StatusDefinition:
        unknown = sorted(set(self.status_mappings) - set(STATUS_KEYS))
        if unknown:
            raise ValueError(f"unknown status {unknown[0]!r} in statusMappings (known: {', '.join(STATUS_KEYS)})")
        return self


class SuspendAction(_Model):
    """A path/value assignment applied on suspend or resume (wmap never writes; kept for round trips)."""

    path: str
    value: str


class SuspendDefinition(_Model):
    """Suspend and resume assignments."""

    suspend_actions: list[SuspendAction] = Field(alias="suspendActions", min_length=1)
    resume_actions: list[SuspendAction] = Field(alias="resumeActions", min_length=1)


class ComponentDefinition(_Model):
    """One component of the workload hierarchy (the root or a child linked by ``ownerRef``)."""

    name: str
    kind: GroupVersionKind | None = None
    owner_ref: str | None = Field(default=None, alias="ownerRef")
    spec_definition: SpecDefinition | None = Field(default=None, alias="specDefinition")
    scale_definition: ScaleDefinition | None = Field(default=None, alias="scaleDefinition")
    status_definition: StatusDefinition | None = Field(default=None, alias="statusDefinition")
    suspend_definition: SuspendDefinition | None = Field(default=None, alias="suspendDefinition")
    instance_id_path: str | None = Field(default=None, alias="instanceIdPath")
    pod_selector: PodSelector | None = Field(default=None, alias="podSelector")

    @property
    def has_pod_definition(self) -> bool:
        """Whether the component declares where its pods are (upstream's ``hasPodDefinition``)."""
        spec = self.spec_definition
        return spec is not None and bool(
            spec.pod_template_spec_path or spec.pod_spec_path or spec.fragmented_pod_spec_definition
        )


class StructureDefinition(_Model):
    """The component hierarchy."""

    root_component: ComponentDefinition = Field(alias="rootComponent")
    child_components: list[ComponentDefinition] = Field(default_factory=list, alias="childComponents")
    additional_child_kinds: list[GroupVersionKind] = Field(default_factory=list, alias="additionalChildKinds")
    references: list[dict[str, Any]] = Field(
        default_factory=list, description="Newer upstream schema (CEL lookups); accepted, not resolved."
    )


class PodGroupMember(_Model):
    """A component whose pods join the PodGroup, grouped by pod keys and filtered by pod predicates."""

    component_name: str = Field(alias="componentName")
    group_by_key_paths: list[str] = Field(default_factory=list, alias="groupByKeyPaths")
    filters: list[str] = Field(default_factory=list)


class PodGroupDefinition(_Model):
    """The alpha (deprecated, but used by every upstream catalog entry) PodGroup format."""

    name: str
    members: list[PodGroupMember]


class TopologyConstraint(_Model):
    """A KAI topology constraint."""

    topology_name: str = Field(alias="topologyName")
    preferred_topology_level: str = Field(alias="preferredTopologyLevel")
    required_topology_level: str = Field(alias="requiredTopologyLevel")


class SubGroupComponentMapping(_Model):
    """A component that becomes one KAI SubGroup."""

    component_name: str = Field(alias="componentName")
    topology: TopologyConstraint | None = None


class PodGroupComponentsMapping(_Model):
    """The current ("KAI-native") PodGroup format: one PodGroup, one SubGroup per listed component."""

    name: str
    sub_groups: list[SubGroupComponentMapping] = Field(default_factory=list, alias="subGroups")
    topology: TopologyConstraint | None = None


class GangScheduling(_Model):
    """Gang-scheduling instructions; ``podGroup`` wins over ``podGroups`` when both are set (as in KAI)."""

    pod_groups: list[PodGroupDefinition] = Field(default_factory=list, alias="podGroups")
    pod_group: PodGroupComponentsMapping | None = Field(default=None, alias="podGroup")


class OptimizationInstructions(_Model):
    """Optimization instructions (only gang scheduling today)."""

    gang_scheduling: GangScheduling | None = Field(default=None, alias="gangScheduling")


class KartaSpec(_Model):
    """The Karta's spec."""

    structure_definition: StructureDefinition = Field(alias="structureDefinition")
    optimization_instructions: OptimizationInstructions = Field(
        default_factory=OptimizationInstructions, alias="optimizationInstructions"
    )
    variables: list[dict[str, Any]] = Field(
        default_factory=list, description="Newer upstream schema (named expressions); accepted, not evaluated."
    )


class Karta(_Model):
    """A Karta object as a user writes it or a cluster returns it."""

    api_version: str = Field(alias="apiVersion")
    kind: str
    metadata: dict[str, Any]
    spec: KartaSpec
    status: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _identity(self) -> Karta:
        if self.api_version != API_VERSION or self.kind != KIND:
            raise ValueError(f"expected apiVersion {API_VERSION} and kind {KIND}")
        if not isinstance(self.metadata.get("name"), str) or not self.metadata["name"]:
            raise ValueError("metadata.name is required")
        return self

    @property
    def name(self) -> str:
        """``metadata.name``."""
        return str(self.metadata["name"])

    @property
    def root(self) -> ComponentDefinition:
        """The root component."""
        return self.spec.structure_definition.root_component

    @property
    def gvk(self) -> GroupVersionKind:
        """The root component's kind (the workload kind this Karta describes)."""
        return self.root.kind or GroupVersionKind()

    def components(self) -> Iterator[ComponentDefinition]:
        """The root, then the children in file order."""
        yield self.root
        yield from self.spec.structure_definition.child_components

    def children_of(self, name: str) -> list[ComponentDefinition]:
        """The components whose ``ownerRef`` names ``name``, in file order."""
        return [child for child in self.spec.structure_definition.child_components if child.owner_ref == name]

    def to_object(self) -> dict[str, Any]:
        """The Karta as a plain object, in upstream's shape (for YAML/JSON output)."""
        return self.dump()
