"""A Karta interpreted with upstream Workload Map's semantics, into the same :class:`WorkloadTree`.

What upstream does, and so what this does (docs/karta.md lists every difference from wmap's own
definitions):

- Every jq path runs on the whole resource, as a stream. A component with ``instanceIdPath`` has
  one instance per id; its pod definitions and scales are zipped with the ids by position, and
  a count mismatch is an error. A component without it has one instance, key ``""``.
- A component's scale counts units across the whole workload, not per parent: a pod-bearing
  instance has ``replicas`` pods, else ``minReplicas``, else 1 (upstream's ``replicasOf``); scale
  values are numbers or numeric strings. Parents do not multiply their children.
- Status: the raw phase is the first result of ``phaseDefinition.path``; conditions are indexed
  by type; the statuses are tried in upstream's order, each kept when one of its matchers holds
  (a matcher ANDs ``byPhase``, ``byConditions`` and ``byExpression``, the latter comparing
  ``(expr) | tostring`` with ``expectedResult``). wmap's ``phase`` is the first match in wmap's
  precedence; nothing matched gives ``phases: []`` and ``Undefined``.
- GPUs are counted from ``nvidia.com/gpu`` (upstream's only GPU resource) unless other names are
  asked for explicitly; requests follow the exact Kubernetes rule, as for every tree.

One deviation, where upstream is plainly wrong: an instance whose pod definition is absent from
the manifest (a PyTorchJob without a Master spec) runs no pods; upstream counts its desired
replicas (1) anyway. The instance tree is read by :mod:`.karta_instances`, the gangs are formed
offline by :mod:`.karta_gangs`; both are below this module, neither imports it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from .. import labels
from ..budgets import check as check_budget
from ..karta import KartaDefinition
from ..karta.model import STATUS_KEYS, Karta, StatusDefinition, StatusMatcher
from ..resources import DEFAULT_GPU_RESOURCES, add_resources
from ..runtime_definitions import PHASE_PRECEDENCE, Phase
from ..tree import Component, Totals, WorkloadRef, WorkloadTree
from .karta_gangs import form_karta_pod_groups
from .karta_instances import KartaEvaluation, KartaInstance, build_instances, by_expression_program

__all__ = ["KARTA_GPU_RESOURCES", "interpret_karta"]

KARTA_GPU_RESOURCES = (labels.NVIDIA_GPU,)
"""What upstream counts as GPUs (``cli/pkg/workload/describe.go``)."""


def _min_pods(instance: KartaInstance) -> int:
    if not instance.pods:
        return 0
    return instance.min_replicas if instance.min_replicas is not None else instance.pods


def _component(instance: KartaInstance, gpu_resources: Sequence[str]) -> Component:
    children = [_component(child, gpu_resources) for child in instance.children]
    gvk = instance.component.kind
    node = Component(
        name=instance.key or instance.component.name,
        role=instance.component.name,
        instance=instance.key or None,
        kind=gvk.kind if gvk else None,
        replicas=instance.desired,
        min_replicas=instance.min_replicas,
        max_replicas=instance.max_replicas,
        pods=instance.pods + sum(child.pods for child in children),
        min_pods=_min_pods(instance) + sum(child.min_pods for child in children),
        has_pod_template=instance.demand is not None,
        gpus=sum((child.gpus for child in children), Fraction(0)),
        components=children,
    )
    if instance.demand is not None:
        node.pod_resources = dict(instance.demand.requests)
        node.gpus_per_pod = instance.demand.gpus(gpu_resources)
        node.gpus += node.gpus_per_pod * instance.pods
        node.resource_claims = [dict(claim) for claim in instance.demand.resource_claims]
        node.max_pods = instance.max_replicas
        # The demand was read from this template's spec (pod_demand): its NUMA view needs no second reading.
        numa = instance.demand.numa()
        assert numa is not None  # a demand pod_demand read always keeps its reading
        node.qos_class, node.exclusive_cpus = numa.qos, numa.exclusive_cpus()
        annotations = ((instance.template or {}).get("metadata") or {}).get("annotations")
        if isinstance(annotations, Mapping):
            node.topology_annotations = {
                str(k): str(v) for k, v in annotations.items() if str(k).startswith(labels.TOPOLOGY_ANNOTATION_PREFIXES)
            }
    return node


def _condition_holds(expected: Any, conditions: Mapping[str, Mapping[str, Any]]) -> bool:
    actual = conditions.get(expected.type)
    if actual is None:
        return False
    if expected.status and expected.status != actual.get("status"):
        return False
    return not (expected.reason and expected.reason != actual.get("reason"))


def _matches(
    matcher: StatusMatcher, phase: str | None, conditions: Mapping[str, Mapping[str, Any]], evaluation: KartaEvaluation
) -> bool:
    if matcher.by_phase and matcher.by_phase != phase:
        return False
    if not all(_condition_holds(expected, conditions) for expected in matcher.by_conditions or ()):
        return False
    if matcher.by_expression is not None:
        results = evaluation.stream(by_expression_program(matcher.by_expression.expression)) or []
        return bool(results) and results[0] == matcher.by_expression.expected_result
    return True


def _conditions(status: StatusDefinition, evaluation: KartaEvaluation) -> dict[str, dict[str, Any]]:
    """Conditions by type, with upstream's configurable field names (string values only)."""
    definition = status.conditions_definition
    if definition is None:
        return {}
    by_type: dict[str, dict[str, Any]] = {}
    for found in evaluation.stream(definition.path) or []:
        for raw in found if isinstance(found, list) else []:
            if not isinstance(raw, Mapping):
                continue
            fields = {
                "type": raw.get(definition.type_field_name),
                "status": raw.get(definition.status_field_name),
                "reason": raw.get(definition.reason_field_name),
            }
            condition = {key: value for key, value in fields.items() if isinstance(value, str)}
            by_type[condition.get("type", "")] = condition
    return by_type


def _phases(karta: Karta, evaluation: KartaEvaluation) -> tuple[Phase, list[Phase]]:
    status = karta.root.status_definition
    if status is None:
        return Phase.UNDEFINED, []
    phase = None
    if status.phase_definition is not None:
        found = evaluation.stream(status.phase_definition.path) or []
        if found and found[0] is not None:
            phase = found[0] if isinstance(found[0], str) else str(found[0])
    conditions = _conditions(status, evaluation)
    matched = {
        Phase(key.capitalize())
        for key in STATUS_KEYS
        if any(_matches(matcher, phase, conditions, evaluation) for matcher in status.status_mappings.get(key, ()))
    }
    phases = [candidate for candidate in PHASE_PRECEDENCE if candidate in matched]
    return (phases[0] if phases else Phase.UNDEFINED), phases


def interpret_karta(
    definition: KartaDefinition,
    resource: Mapping[str, Any],
    workload: WorkloadRef,
    *,
    gpu_resources: Sequence[str] = DEFAULT_GPU_RESOURCES,
    source: str | None = None,
    warnings: list[str] | None = None,
) -> WorkloadTree:
    """Expand one resource through a Karta (see the module docstring for the semantics).

    Raises:
        InputError: zipped streams disagree, an instance id is empty, a scale is not a count.
        ExpressionError: a jq path failed on this resource or crossed a bound.
    """
    karta = definition.karta
    gpu_resources = KARTA_GPU_RESOURCES if tuple(gpu_resources) == DEFAULT_GPU_RESOURCES else tuple(gpu_resources)
    evaluation = KartaEvaluation(karta, resource)
    roots = build_instances(karta, karta.root, evaluation)
    if karta.root.has_pod_definition or not roots:
        top = roots
    else:
        top = [child for root in roots for child in root.children]
    components = [_component(instance, gpu_resources) for instance in top]
    pods, gpus = 0, Fraction(0)
    resources: dict[str, Fraction] = {}
    notes = list(warnings or [])
    for instance in (node for root in roots for node in root.walk()):
        if instance.demand is not None:
            pods += instance.pods
            gpus += instance.demand.gpus(gpu_resources) * instance.pods
            add_resources(resources, instance.demand.requests, instance.pods)
    check_budget("pods", pods, f"pods (Karta {definition.name})")  # before a gang is built from them
    phase, phases = _phases(karta, evaluation)
    pod_groups = form_karta_pod_groups(karta, resource, workload.name, roots, notes)
    return WorkloadTree(
        workload=workload,
        definition=definition.name,
        phase=phase,
        phases=phases,
        totals=Totals(pods=pods, gpus=gpus, resources=resources),
        components=components,
        pod_groups=pod_groups,
        gang_policy=f"Karta {definition.name} gangScheduling (KAI pod-grouper Karta fallback)"
        if pod_groups
        else "none",
        warnings=notes,
        source=source,
        gpu_resources=tuple(gpu_resources),
    )
