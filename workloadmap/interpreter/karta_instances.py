"""A resource read through a Karta: every jq path in one bounded round trip, and the instance tree it gives.

Upstream Workload Map's semantics (see :mod:`.karta` for the whole list): every jq path runs on the
whole resource, as a stream; a component with ``instanceIdPath`` has one instance per id, its pod
definitions and scales zipped with the ids by position (a count mismatch is an error); a component
without it has one instance, key ``""``. :mod:`.karta` builds the tree's components, totals and
phase from these instances, :mod:`.karta_gangs` the PodGroups; neither is imported here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from ..karta import compile_many, default_engine, jq_fields
from ..karta.model import ComponentDefinition, Karta
from ..resources import PodDemand, pod_demand

__all__ = ["KartaInstance", "KartaEvaluation", "build_instances", "by_expression_program", "karta_instances"]

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


def by_expression_program(expression: str) -> str:
    """Upstream's byExpression program: the expression's first result, as a string."""
    return f"({expression}) | tostring"


class KartaEvaluation:
    """Every resource-level jq field of a Karta, evaluated in one bounded round trip."""

    def __init__(self, karta: Karta, resource: Mapping[str, Any]) -> None:
        fields = [f for f in jq_fields(karta) if f.target == "resource" and ".suspendDefinition." not in f.path]
        status = karta.root.status_definition
        matchers = [m for ms in (status.status_mappings.values() if status else ()) for m in ms]
        sources = [f.source for f in fields] + [
            by_expression_program(m.by_expression.expression) for m in matchers if m.by_expression is not None
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


def _pod_template(
    component: ComponentDefinition, evaluation: KartaEvaluation, count: int
) -> list[dict[str, Any] | None]:
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


def _instances(component: ComponentDefinition, evaluation: KartaEvaluation) -> list[KartaInstance]:
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


def build_instances(karta: Karta, component: ComponentDefinition, evaluation: KartaEvaluation) -> list[KartaInstance]:
    """The instances of ``component`` on the evaluated resource, its descendants under the first one."""
    instances = _instances(component, evaluation)
    children = [
        node for child in karta.children_of(component.name) for node in build_instances(karta, child, evaluation)
    ]
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
    return build_instances(karta, karta.root, KartaEvaluation(karta, resource))
