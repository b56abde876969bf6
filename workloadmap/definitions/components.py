"""A workload's components (roles), where their pods are declared, and how many there are."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PrivateAttr, WithJsonSchema, model_validator

from .. import runtime_definitions as runtime
from ..runtime_definitions import PodSpecField
from ..selectors import Selector, SelectorSyntaxError, is_label_key
from .base import Count, FieldPathText, _Compiled, _Strict

__all__ = ["PodSpecField", "PodFieldsDefinition", "PodsDefinition", "RunDefinition", "ComponentDefinition"]

_SELECTOR_PLACEHOLDERS = ("workload", "namespace", "component", "instance", "index")


def _label_keys(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


LabelKeys = Annotated[
    list[str],
    BeforeValidator(_label_keys),
    WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}),
]
"""One label key, or several (the first present on a pod wins)."""


class PodsDefinition(_Strict, runtime.PodsDefinition):
    """How the operator labels a component's pods, so `wmap describe` can tell them apart.

    ``selector`` picks the component's pods among the pods whose owner chain reaches the
    workload; ``replicaIndex`` and ``podIndex`` name the labels carrying a pod's replica index
    (within the parent replica) and its index within the replica. A component without a pod
    source may give ``replicaIndex`` alone: its descendants' pods carry it (an LWS group index).
    """

    selector: str | None = Field(
        default=None,
        description="Label selector (kubectl -l syntax) of this component's pods. Values may hold {workload} "
        "(the resource's name), {namespace}, {component}, {instance} (this instance's name), {instance:NAME} "
        "(the instance of ancestor component NAME) and {index} (any decimal number). Empty: every pod.",
    )
    replica_index: LabelKeys = Field(
        default_factory=list,
        alias="replicaIndex",
        description="Label key(s) whose value is the pod's replica index of this component; the first present wins.",
    )
    pod_index: LabelKeys = Field(
        default_factory=list,
        alias="podIndex",
        description="Label key(s) whose value is the pod's index within its replica; the first present wins.",
    )

    _parsed: Selector | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _valid(self) -> "PodsDefinition":
        for key in [*self.replica_index, *self.pod_index]:
            if not is_label_key(key):
                raise ValueError(f"{key!r} is not a label key")
        if self.selector is not None:
            try:
                self._parsed = Selector.parse(self.selector, templates=True)
            except SelectorSyntaxError as error:
                raise ValueError(str(error)) from None
            for name in self._parsed.placeholders():
                if name.split(":")[0] not in _SELECTOR_PLACEHOLDERS or name.startswith(("index:", "workload:")):
                    raise ValueError(f"selector {self.selector!r}: unknown placeholder {{{name}}}")
        return self


class PodFieldsDefinition(_Strict, runtime.PodFieldsDefinition):
    """Where a computed pod template's fields live (KServe predictor, NIM, Milvus), from the component's scope."""

    spec: FieldPathText | None = Field(default=None, description="Where the operator reads PodSpec fields by name.")
    spec_fields: list[PodSpecField] | None = Field(default=None, alias="specFields", description="Default: all.")
    labels: FieldPathText | None = Field(default=None, description="The pods' labels.")
    annotations: FieldPathText | None = Field(default=None, description="The pods' annotations.")
    seed: FieldPathText | None = Field(default=None, description="Absent, write the default pod here first.")


class RunDefinition(_Compiled, runtime.RunDefinition):
    """When a component's pods run relative to its siblings' (Argo steps and DAG tasks, Tekton runAfter).

    Without it every pod of the workload runs at once. The tree's ``totals`` are then the most that
    runs at one time, ``overRun`` what the whole run creates.
    """

    after: str | None = Field(
        default=None,
        description="Expression on the instance element: the names of sibling components (instances under "
        "the same parent) that must finish before this one starts (DAG dependencies, runAfter).",
    )
    sequential: bool = Field(
        default=False, description="The component's instances run one after another, in order (Argo step groups)."
    )
    max_concurrent: Count | None = Field(
        default=None,
        alias="maxConcurrent",
        description="At most this many pods of one instance (its replicas and descendants) run at once "
        "(Argo parallelism); null: no cap.",
    )


class ComponentDefinition(_Compiled, runtime.ComponentDefinition):
    """One role of a workload, and where its pods are declared."""

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    kind: str | None = Field(default=None, description="What the operator creates for it (Job, Pod, StatefulSet ...).")
    description: str | None = None
    instances: str | None = Field(
        default=None,
        description="Expression yielding a list or map: one instance of the component per element "
        "(JobSet replicatedJob, Ray worker group, Dynamo service).",
    )
    instance_name: str | None = Field(
        default=None,
        alias="instanceName",
        description="Expression on an instance element giving its name (default: `name`, the map key, or the index).",
    )
    pod_template: str | None = Field(
        default=None, alias="podTemplate", description="Expression yielding a PodTemplateSpec."
    )
    pod_spec: str | None = Field(default=None, alias="podSpec", description="Expression yielding a bare PodSpec.")
    pod_metadata: str | None = Field(default=None, alias="podMetadata", description="With podSpec: the pods' metadata.")
    replicas: Count = Field(default=1, description="Replicas per replica of the parent component.")
    min_replicas: Count | None = Field(default=None, alias="minReplicas")
    max_replicas: Count | None = Field(default=None, alias="maxReplicas")
    pods_per_replica: Count = Field(
        default=1,
        alias="podsPerReplica",
        description="Pods in one replica (JobSet parallelism, Ray numOfHosts, LWS size).",
    )
    active: str | None = Field(
        default=None, description="Expression; when false the component runs no pods (suspended group)."
    )
    per_node: bool = Field(default=False, alias="perNode", description="One pod per eligible node (DaemonSet).")
    scaled_pod_groups: bool = Field(
        default=False,
        alias="scaledPodGroups",
        description="Replicas beyond minReplicas each form a PodGroup of their own (Grove's scaled PodGangs); "
        "the enclosing PodGroup holds minReplicas replicas.",
    )
    resource: str | None = Field(
        default=None,
        description="Expression yielding embedded Kubernetes object(s) that are interpreted with their own "
        "definitions.",
    )
    components: list["ComponentDefinition"] = Field(default_factory=list)
    pod_fields: PodFieldsDefinition | None = Field(default=None, alias="podFields")
    pods: PodsDefinition | None = Field(
        default=None, description="How the operator labels this component's pods (for `wmap describe`)."
    )
    run: RunDefinition | None = Field(
        default=None, description="When its pods run relative to its siblings' (default: all at once)."
    )
    like: str | None = Field(
        default=None,
        description="Another component whose pod source and components this one takes, on its own instances "
        "(a workflow step that runs a template, which may run steps in turn); the expansion stops where an "
        "element would nest inside itself.",
    )

    @model_validator(mode="after")
    def _one_pod_source(self) -> "ComponentDefinition":
        sources = [name for name in ("pod_template", "pod_spec", "resource") if getattr(self, name)]
        if len(sources) > 1:
            raise ValueError(f"component {self.name!r} has several pod sources: {', '.join(sources)}")
        if self.pod_fields and not (self.pod_template or self.pod_spec):
            raise ValueError(f"component {self.name!r}: podFields goes with podTemplate or podSpec")
        if self.pod_metadata and not self.pod_spec:
            raise ValueError(f"component {self.name!r}: podMetadata goes with podSpec")
        if self.instance_name and not self.instances:
            raise ValueError(f"component {self.name!r}: instanceName goes with instances")
        if self.like is not None:
            taken = [name for name in _LIKE_TAKES if getattr(self, name)]
            if taken:
                raise ValueError(
                    f"component {self.name!r} takes its pod source and components from {self.like!r}; "
                    f"it cannot also set {', '.join(taken)}"
                )
        elif self.pods is not None and self.pods.selector is not None and not (self.pod_template or self.pod_spec):
            raise ValueError(f"component {self.name!r}: pods.selector goes with a pod template or pod spec")
        return self


_LIKE_TAKES = ("pod_template", "pod_spec", "pod_metadata", "pod_fields", "resource", "components")
"""What a ``like`` component takes from the component it names (and so may not set itself)."""
