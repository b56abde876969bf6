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
replicas (1) anyway. Gangs are formed offline by :mod:`.karta_gangs`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .. import labels
from ..budgets import check as check_budget
from ..errors import InputError
from ..karta import KartaDefinition, compile_many, default_engine, jq_fields
from ..karta.model import STATUS_KEYS, ComponentDefinition, Karta, StatusDefinition, StatusMatcher
from ..resources import DEFAULT_GPU_RESOURCES, PodDemand, add_resources, pod_demand
from ..runtime_definitions import PHASE_PRECEDENCE, Phase
from ..tree import Component, Totals, WorkloadRef, WorkloadTree
from .karta_gangs import form_karta_pod_groups

__all__ = ["KARTA_GPU_RESOURCES", "KartaInstance", "interpret_karta", "karta_instances"]

KARTA_GPU_RESOURCES = (labels.NVIDIA_GPU,)
"""What upstream counts as GPUs (``cli/pkg/workload/describe.go``)."""

_MAX_COUNT = 10_000_000


@dataclass
class KartaInstance:
    """One instance of one Karta component on a resource, with its pod definition and scale."""

    component: ComponentDefinition
    key: str
    template: dict[str, Any] | None
    replicas: int | None = None
    min_replicas: int | None = None
    max_replicas: int | None = None
    demand: PodDemand | None = None
    children: list[KartaInstance] = field(default_factory=list)

    @property
    def desired(self) -> int:
        """Upstream's desired count: replicas, else minReplicas, else 1."""
        if self.replicas is not None:
            return self.replicas
        if self.min_replicas is not None:
            return self.min_replicas
        return 1

    @property
    def gang_scale(self) -> int:
        """Upstream's effective min replicas: minReplicas when positive, else replicas when positive, else 0."""
        if self.min_replicas:
            return self.min_replicas
        return self.replicas or 0

    @property
    def pods(self) -> int:
        """Pods of this instance: its desired count, or 0 when its pod definition is not in the manifest.

        Upstream counts the desired replicas (1 without a scale) of a pod definition the manifest
        does not have (a PyTorchJob without a Master spec); the operator runs none.
        """
        return self.desired if self.demand is not None else 0

    def walk(self) -> Iterator[KartaInstance]:
        """This instance and the instances below it."""
        yield self
        for child in self.children:
            yield from child.walk()


def _count(value: Any, what: str, where: str) -> int:
    """A scale value: a number or a numeric string (``strconv.ParseInt``), as upstream's extractReplicas."""
    if isinstance(value, str):
        try:
            value = int(value.strip(), 10)
        except ValueError:
            raise InputError(f"{what} value {value!r} is not a number", field=where) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise InputError(f"{what} must be a whole number, got {value!r}", field=where)
    if not 0 <= value <= _MAX_COUNT:
        raise InputError(f"{what} of {int(value)} is out of range", field=where)
    return int(value)


def _tostring(expression: str) -> str:
    """Upstream's byExpression program: the expression's first result, as a string."""
    return f"({expression}) | tostring"


class _Evaluation:
    """Every resource-level jq field of a Karta, evaluated in one bounded round trip."""

    def __init__(self, karta: Karta, resource: Mapping[str, Any]) -> None:
        fields = [f for f in jq_fields(karta) if f.target == "resource" and ".suspendDefinition." not in f.path]
        status = karta.root.status_definition
        matchers = [m for ms in (status.status_mappings.values() if status else ()) for m in ms]
        sources = [f.source for f in fields] + [
            _tostring(m.by_expression.expression) for m in matchers if m.by_expression is not None
        ]
        programs = compile_many(sources)
        results = default_engine().run(list(programs.values()), resource)
        self._results = {source: results[program] for source, program in programs.items()}
        self._paths = {f.source: f.path for f in fields}

    def stream(self, source: str | None) -> list[Any] | None:
        """The results of a path (None when the path is unset)."""
        return None if source is None else self._results[source]

    def where(self, source: str) -> str:
        """The Karta field a path came from."""
        return self._paths.get(source, source)


def _pod_template(component: ComponentDefinition, evaluation: _Evaluation, count: int) -> list[dict[str, Any] | None]:
    """The pod definition of each of ``count`` instances as a PodTemplateSpec (None where absent)."""
    spec = component.spec_definition
    if spec is None or not component.has_pod_definition:
        return [None] * count
    if spec.pod_template_spec_path:
        found = evaluation.stream(spec.pod_template_spec_path) or []
        _check_zip(component, count, len(found), spec.pod_template_spec_path)
        return [dict(t) if isinstance(t, Mapping) and t else None for t in found]
    if spec.pod_spec_path:
        specs = evaluation.stream(spec.pod_spec_path) or []
        _check_zip(component, count, len(specs), spec.pod_spec_path)
        metadata = evaluation.stream(spec.metadata_path) or []
        return [
            {"metadata": _at(metadata, index) or {}, "spec": dict(pod)} if isinstance(pod, Mapping) and pod else None
            for index, pod in enumerate(specs)
        ]
    assert spec.fragmented_pod_spec_definition is not None
    fragments = {
        name: evaluation.stream(path) or [] for name, path in spec.fragmented_pod_spec_definition.paths().items()
    }
    size = max((len(values) for values in fragments.values()), default=0)
    _check_zip(component, count, size, "fragmentedPodSpecDefinition")
    return [_assemble(fragments, index) for index in range(size)]


def _at(values: Sequence[Any], index: int) -> Any:
    return values[index] if index < len(values) else None  # upstream's safeGetByIndex


def _assemble(fragments: Mapping[str, list[Any]], index: int) -> dict[str, Any] | None:
    """A PodTemplateSpec from fragmented paths (zipped by index; a missing index is the zero value)."""
    containers = _at(fragments.get("containersPath", []), index)
    container = _at(fragments.get("containerPath", []), index)
    resources = _at(fragments.get("resourcesPath", []), index)
    if all(_at(values, index) in (None, "", [], {}) for values in fragments.values()):
        return None
    if not isinstance(containers, list):
        containers = [container] if isinstance(container, Mapping) else []
    if not containers:  # the operator builds the container; resourcesPath says what it requests
        containers = [{"name": "main", "resources": resources if isinstance(resources, Mapping) else {}}]
    spec: dict[str, Any] = {"containers": containers}
    for name, key in (
        ("resourceClaimsPath", "resourceClaims"),
        ("priorityClassNamePath", "priorityClassName"),
        ("schedulerNamePath", "schedulerName"),
    ):
        value = _at(fragments.get(name, []), index)
        if value not in (None, "", []):
            spec[key] = value
    metadata = {
        key: value
        for key, value in (
            ("labels", _at(fragments.get("labelsPath", []), index)),
            ("annotations", _at(fragments.get("annotationsPath", []), index)),
        )
        if isinstance(value, Mapping)
    }
    return {"metadata": metadata, "spec": spec}


def _check_zip(component: ComponentDefinition, ids: int, results: int, where: str) -> None:
    if ids != results:
        raise InputError(
            f"component {component.name}: instance ids count ({ids}) does not match results count ({results})",
            field=where,
        )


def _instances(component: ComponentDefinition, evaluation: _Evaluation) -> list[KartaInstance]:
    if component.instance_id_path:
        ids = []
        for value in evaluation.stream(component.instance_id_path) or []:
            key = value if isinstance(value, str) else ("" if value is None else str(value))
            if not key:
                raise InputError(
                    f"component {component.name}: instance id path gave an empty id", field=component.instance_id_path
                )
            ids.append(key)
    else:
        ids = [""]
    templates = _pod_template(component, evaluation, len(ids))
    instances = [KartaInstance(component, key, template) for key, template in zip(ids, templates, strict=True)]
    scale = component.scale_definition
    if scale is not None:
        streams = {
            name: evaluation.stream(getattr(scale, name)) or []
            for name in ("replicas_path", "min_replicas_path", "max_replicas_path")
        }
        size = max(len(values) for values in streams.values())
        _check_zip(component, len(ids), size, "scaleDefinition")
        for name, values in streams.items():
            source = getattr(scale, name)
            for instance, value in zip(instances, values, strict=False):  # shorter streams: unset
                if value is not None:
                    count = _count(value, name.removesuffix("_path"), evaluation.where(source))
                    setattr(instance, name.removesuffix("_path"), count)
    for instance in instances:
        if instance.template is not None:
            pod_spec = instance.template.get("spec")
            try:
                instance.demand = pod_demand(pod_spec if isinstance(pod_spec, Mapping) else {}, component.name)
            except InputError as error:
                raise error.located(field=f"{component.name}[{instance.key}].spec") from None
    return instances


def _build(karta: Karta, component: ComponentDefinition, evaluation: _Evaluation) -> list[KartaInstance]:
    instances = _instances(component, evaluation)
    children = [node for child in karta.children_of(component.name) for node in _build(karta, child, evaluation)]
    if instances:
        instances[0].children = children
    return instances


def karta_instances(karta: Karta, resource: Mapping[str, Any]) -> list[KartaInstance]:
    """The instance tree of a resource under a Karta: the root's instances with their descendants.

    Children of a component with one instance hang under it; children of a multi-instance
    component (upstream copies them under every instance) hang under its first instance only, so
    nothing is counted twice.

    Raises:
        InputError: zipped streams disagree in length, an instance id is empty, a scale is not a count.
        ExpressionError: a path failed on this resource or crossed a bound.
    """
    return _build(karta, karta.root, _Evaluation(karta, resource))


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
    matcher: StatusMatcher, phase: str | None, conditions: Mapping[str, Mapping[str, Any]], evaluation: _Evaluation
) -> bool:
    if matcher.by_phase and matcher.by_phase != phase:
        return False
    if not all(_condition_holds(expected, conditions) for expected in matcher.by_conditions or ()):
        return False
    if matcher.by_expression is not None:
        results = evaluation.stream(_tostring(matcher.by_expression.expression)) or []
        return bool(results) and results[0] == matcher.by_expression.expected_result
    return True


def _conditions(status: StatusDefinition, evaluation: _Evaluation) -> dict[str, dict[str, Any]]:
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


def _phases(karta: Karta, evaluation: _Evaluation) -> tuple[Phase, list[Phase]]:
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
    evaluation = _Evaluation(karta, resource)
    roots = _build(karta, karta.root, evaluation)
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
