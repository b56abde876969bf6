"""What a user asks to change: pod fields, object labels, a queue, node requirements, suspension.

Values are checked when a :class:`Changes` is made (label syntax, toleration effects), so a bad
``--label`` fails before any object is read; mistakes raise :class:`ValueError` (the command line
turns them into usage errors).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .. import labels

__all__ = [
    "Toleration",
    "NodeRequirement",
    "PodAffinityTerm",
    "Changes",
    "POD_SPEC_FIELDS",
    "POD_METADATA_FIELDS",
    "check_label",
    "clique_label_value",
]

POD_SPEC_FIELDS = (
    "schedulerName",
    "nodeSelector",
    "tolerations",
    "affinity",
    "priorityClassName",
    "schedulingGroup",
    "workloadRef",
)
"""The PodSpec fields wmap writes."""
POD_METADATA_FIELDS = ("labels", "annotations")
"""The pod metadata fields wmap writes."""

_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_PREFIX = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_KEY = re.compile(rf"^(({_PREFIX})/)?{_NAME}$")
_VALUE = re.compile(rf"^({_NAME})?$")
_DNS_NAME = re.compile(rf"^{_PREFIX}$")


def check_label(key: str, value: str | None, *, what: str = "label") -> None:
    """Check a label (or, with ``value=None``, an annotation key) as the API server would.

    Raises:
        ValueError: the key is not a qualified name (optional DNS prefix, 63-character name), or the
            label value is not 63 characters of ``[A-Za-z0-9-_.]`` starting and ending alphanumeric.
    """
    if not isinstance(key, str) or not _KEY.match(key) or len(key.partition("/")[0]) > 253:
        raise ValueError(f"{what} key {key!r} is not a valid qualified name ([prefix/]name)")
    if value is not None and (not isinstance(value, str) or not _VALUE.match(value)):
        raise ValueError(f"{what} {key}: value {value!r} is not a valid label value")


@dataclass(frozen=True)
class Toleration:
    """A pod toleration: ``key`` with ``Exists``, or ``key=value`` with ``Equal``, for one taint effect."""

    key: str
    effect: str | None = None
    value: str | None = None

    def __post_init__(self) -> None:
        check_label(self.key, None, what="toleration")
        if self.effect is not None and self.effect not in labels.TOLERATION_EFFECTS:
            raise ValueError(f"toleration effect {self.effect!r} is not one of {', '.join(labels.TOLERATION_EFFECTS)}")
        if self.value is not None:
            check_label(self.key, self.value, what="toleration")

    @classmethod
    def parse(cls, text: str) -> Toleration:
        """``KEY[=VALUE][:EFFECT]``, as ``kubectl taint`` writes taints (``nvidia.com/gpu:NoSchedule``).

        Raises:
            ValueError: an empty key, an unknown effect, or an invalid key or value.
        """
        body, _, effect = text.partition(":")
        key, equals, value = body.partition("=")
        if not key:
            raise ValueError(f"toleration {text!r} needs a key: KEY[=VALUE][:EFFECT]")
        return cls(key=key, effect=effect or None, value=value if equals else None)

    def to_pod(self) -> dict[str, Any]:
        """The toleration as a pod spec writes it."""
        entry: dict[str, Any] = {"key": self.key}
        if self.value is None:
            entry["operator"] = labels.TOLERATION_EXISTS
        else:
            entry["operator"] = labels.TOLERATION_EQUAL
            entry["value"] = self.value
        if self.effect:
            entry["effect"] = self.effect
        return entry


@dataclass(frozen=True)
class NodeRequirement:
    """A required node-affinity expression ``key In [values]`` (a pinned placement)."""

    key: str
    values: tuple[str, ...]

    def __post_init__(self) -> None:
        check_label(self.key, None, what="node requirement")
        if not self.values:
            raise ValueError(f"node requirement {self.key}: give at least one value")
        for value in self.values:
            check_label(self.key, value, what="node requirement")

    def to_pod(self) -> dict[str, Any]:
        """The requirement as a ``nodeSelectorTerms[].matchExpressions`` entry."""
        return {"key": self.key, "operator": labels.NODE_SELECTOR_IN, "values": list(self.values)}


@dataclass(frozen=True)
class PodAffinityTerm:
    """A required podAffinity term: pods labelled ``label_key=label_value`` share one ``topology_key`` domain."""

    label_key: str
    label_value: str
    topology_key: str

    def __post_init__(self) -> None:
        check_label(self.label_key, self.label_value, what="pod affinity label")
        check_label(self.topology_key, None, what="pod affinity topologyKey")

    def to_pod(self) -> dict[str, Any]:
        """The term as ``podAffinity.requiredDuringSchedulingIgnoredDuringExecution`` lists it."""
        return {"labelSelector": {"matchLabels": {self.label_key: self.label_value}}, "topologyKey": self.topology_key}


def clique_label_value(workload: str) -> str:
    """The :data:`~workloadmap.labels.WMAP_CLIQUE_GROUP` value for a workload: its name, cut to a label value."""
    value = workload[:63]
    while value and not value[-1].isalnum():
        value = value[:-1]
    return value


@dataclass(frozen=True)
class Changes:
    """A set of changes to a workload.

    Pod-level changes go to every pod template (or pod-spec fragment) of the targeted components;
    ``labels``, ``annotations`` and ``queue`` go to the workload object itself.

    Attributes:
        scheduler_name: the pods' ``schedulerName`` (``kai-scheduler``).
        labels: labels of the workload object.
        annotations: annotations of the workload object.
        pod_labels: labels of the pods.
        pod_annotations: annotations of the pods.
        node_selector: entries of the pods' ``nodeSelector``.
        tolerations: tolerations added to the pods (existing ones are kept).
        priority_class: the pods' ``priorityClassName``.
        queue: a queue for KAI (``kai.scheduler/queue``) and Kueue (``kueue.x-k8s.io/queue-name``),
            labels of the workload object.
        node_affinity: required node-affinity expressions added to every node-selector term.
        suspend: True to suspend, False to resume, None to leave as is.
        scheduling_group: the native PodGroup the pods join (``spec.schedulingGroup.podGroupName``,
            Kubernetes 1.36 and later; the field is immutable on a pod).
        workload_ref: the v1alpha1 Workload and its pod group the pods join (``spec.workloadRef
            {name, podGroup}``, Kubernetes 1.35), as ``(workload, pod group)``.
        pod_affinity: required podAffinity terms added to the pods (existing ones are kept).
        clique_affinity: a node-label key (``nvidia.com/gpu.clique``): every targeted pod gets
            the label ``wmap.dev/clique-group=<workload name>`` and a required podAffinity on
            it with this topologyKey, so the workload's pods share one NVLink clique, as NVIDIA
            recommends for ComputeDomain workloads (the IMEX domain forms per clique). Resolved
            per workload by :meth:`for_workload`.
        clique_group: the label value for ``clique_affinity`` instead of the workload's name
            (``place --emit pinned`` gives each gang its own).
    """

    scheduler_name: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    pod_labels: Mapping[str, str] = field(default_factory=dict)
    pod_annotations: Mapping[str, str] = field(default_factory=dict)
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Toleration, ...] = ()
    priority_class: str | None = None
    queue: str | None = None
    node_affinity: tuple[NodeRequirement, ...] = ()
    suspend: bool | None = None
    scheduling_group: str | None = None
    workload_ref: tuple[str, str] | None = None
    pod_affinity: tuple[PodAffinityTerm, ...] = ()
    clique_affinity: str | None = None
    clique_group: str | None = None

    def __post_init__(self) -> None:
        for name in ("scheduler_name", "priority_class", "queue", "scheduling_group"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not _DNS_NAME.match(value)):
                raise ValueError(f"{name.replace('_', '-')} {value!r} is not a valid name (lower-case DNS subdomain)")
        if self.queue is not None:
            check_label(labels.KAI_QUEUE, self.queue, what="queue label")
        for what, pairs in (
            ("label", self.labels),
            ("pod label", self.pod_labels),
            ("node selector", self.node_selector),
        ):
            for key, value in pairs.items():
                check_label(key, value, what=what)
        for what, pairs in (("annotation", self.annotations), ("pod annotation", self.pod_annotations)):
            for key, value in pairs.items():
                check_label(key, None, what=what)
                if not isinstance(value, str):
                    raise TypeError(f"{what} {key}: the value must be a string, got {type(value).__name__}")
        if not all(isinstance(item, Toleration) for item in self.tolerations):
            raise TypeError("tolerations must be Toleration values (Toleration.parse('key:NoSchedule'))")
        if not all(isinstance(item, NodeRequirement) for item in self.node_affinity):
            raise TypeError("node_affinity must be NodeRequirement values")
        if not all(isinstance(item, PodAffinityTerm) for item in self.pod_affinity):
            raise TypeError("pod_affinity must be PodAffinityTerm values")
        if self.clique_affinity is not None:
            check_label(self.clique_affinity, None, what="clique affinity topologyKey")
        if self.workload_ref is not None:
            workload, pod_group = self.workload_ref
            if not _DNS_NAME.match(workload) or not _DNS_NAME.match(pod_group) or "." in pod_group:
                raise ValueError(
                    f"workload-ref {workload}/{pod_group}: a Workload name and a pod group name (DNS label)"
                )
        if self.suspend is not None and not isinstance(self.suspend, bool):
            raise TypeError("suspend must be True, False or None")

    def for_workload(self, name: str) -> Changes:
        """These changes for the workload called ``name``: ``clique_affinity`` as a pod label and a podAffinity term.

        Raises:
            ValueError: the name gives no label value (it has no letter or digit).
        """
        if self.clique_affinity is None:
            return self
        value = clique_label_value(self.clique_group or name)
        if not value:
            raise ValueError(f"workload name {name!r} gives no label value for {labels.WMAP_CLIQUE_GROUP}")
        term = PodAffinityTerm(labels.WMAP_CLIQUE_GROUP, value, self.clique_affinity)
        return replace(
            self,
            pod_labels={**self.pod_labels, labels.WMAP_CLIQUE_GROUP: value},
            pod_affinity=(*self.pod_affinity, term),
            clique_affinity=None,
            clique_group=None,
        )

    @property
    def object_labels(self) -> dict[str, str]:
        """Labels for the workload object: ``labels`` plus the queue labels."""
        result = dict(self.labels)
        if self.queue is not None:
            result[labels.KAI_QUEUE] = self.queue
            result[labels.KUEUE_QUEUE_NAME] = self.queue
        return result

    @property
    def pod_fields(self) -> tuple[str, ...]:
        """The pod fields these changes write."""
        wanted = {
            "schedulerName": self.scheduler_name is not None,
            "nodeSelector": bool(self.node_selector),
            "tolerations": bool(self.tolerations),
            "affinity": bool(self.node_affinity or self.pod_affinity or self.clique_affinity),
            "priorityClassName": self.priority_class is not None,
            "schedulingGroup": self.scheduling_group is not None,
            "workloadRef": self.workload_ref is not None,
            "labels": bool(self.pod_labels or self.clique_affinity),
            "annotations": bool(self.pod_annotations),
        }
        return tuple(name for name in (*POD_METADATA_FIELDS, *POD_SPEC_FIELDS) if wanted[name])

    @property
    def empty(self) -> bool:
        """Whether nothing would change."""
        return not (self.pod_fields or self.object_labels or self.annotations or self.suspend is not None)
