"""Lint rules for the ``pods`` sections: can ``wmap describe`` tell each component's pods apart?

On every sample the pods each component (instance) would have are synthesized as the operator
labels them: the pod template's labels, the values the component's selector requires (``{index}``
as a number), and its replica and pod index labels. Each synthesized pod must be attributed to
its own component: the first claim whose selector matches it (the order attribution uses) must
be its own. The rendered selector values must also be label values the operator can set.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..interpreter import PodClaim, pod_claims
from ..selectors import INDEX_PLACEHOLDER, is_label_value
from ..values import mapping_at
from .rules import Issue, rule
from .samples import SampleRun
from .static import POD_SOURCES, DefinitionView

__all__: list[str] = []  # the rules register themselves; nothing to import


def _pod_bearing(view: DefinitionView) -> list[tuple[str, Any]]:
    return [
        (path, component)
        for path, component, _ in view.entries
        if any(getattr(component, name) for name in POD_SOURCES if name != "resource")
    ]


@rule(
    "pods-selector-missing",
    "warning",
    """A definition with several pod-bearing components leaves one without `pods.selector`: it claims every pod,
    so `describe` cannot tell its pods from the others'.""",
)
def selector_missing(view: DefinitionView) -> Iterator[Issue]:
    bearing = _pod_bearing(view)
    if len(bearing) < 2:
        return
    for path, component in bearing:
        if component.pods is None or component.pods.selector is None:
            yield Issue(f"{path}.pods", f"component {component.name} has no pods.selector")


def _name(claim: PodClaim) -> str:
    node = claim.node
    return node.definition.name + (f"[{node.instance}]" if node.instance is not None else "")


def _synthesized(claim: PodClaim, index: str) -> dict[str, str]:
    """Labels of a pod of ``claim`` as the operator would set them (index labels set to ``index``)."""
    template = claim.node.template or {}
    labels = {str(k): str(v) for k, v in mapping_at(mapping_at(template, "metadata"), "labels").items()}
    labels.update(claim.selector.example_labels(index))
    for node in claim.lineage:
        pods = node.definition.pods
        for key in (pods.replica_index if pods else [])[:1] + (pods.pod_index if pods and node is claim.node else [])[
            :1
        ]:
            labels[key] = index
    return labels


def _claims(run: SampleRun) -> Iterator[tuple[str, list[PodClaim]]]:
    for expanded in run.expanded:
        metadata = mapping_at(expanded.resource or {}, "metadata")
        name, namespace = str(metadata.get("name") or "sample"), str(metadata.get("namespace") or "")
        yield expanded.sample, pod_claims(expanded.nodes, name, namespace)


@rule(
    "pods-overlap",
    "error",
    """On a sample, a pod labelled as the operator labels one component's pods would be attributed to another
    component (or instance), or to none: the selectors do not tell the components apart.""",
    samples=True,
)
def pods_overlap(run: SampleRun) -> Iterator[Issue]:
    reported: set[str] = set()
    for sample, claims in _claims(run):
        for claim in claims:
            if not claim.explicit or id(claim.node.definition) not in run.view.paths:
                continue  # embedded objects' components are linted with their own definitions
            labels = next(
                (labels for index in ("0", "1") if claim.selector.matches(labels := _synthesized(claim, index))), None
            )
            field = _field(run, claim)
            if labels is None:
                if field not in reported:
                    reported.add(field)
                    yield Issue(field, f"the selector of {_name(claim)} cannot match its own pods (sample {sample})")
                continue
            first = next(other for other in claims if other.selector.matches(labels))
            if _alike(first, claim):
                continue  # instances no label tells apart: pods-instances-alike
            if first is not claim and field not in reported:
                reported.add(field)
                yield Issue(field, f"pods of {_name(claim)} would be attributed to {_name(first)} (sample {sample})")


def _alike(first: PodClaim, claim: PodClaim) -> bool:
    """Two instances of one component with the very same selector: describe leaves their pods unattributed."""
    return first is not claim and first.node.definition is claim.node.definition and first.selector == claim.selector


@rule(
    "pods-instances-alike",
    "warning",
    """On a sample, several instances of a component have the very same selector (it names no {instance}):
    `wmap describe` cannot tell their pods apart and leaves them unattributed. Right only where the operator's
    labels really do not say the instance (Argo's templates); say so in the definition's notes.""",
    samples=True,
)
def pods_instances_alike(run: SampleRun) -> Iterator[Issue]:
    reported: set[str] = set()
    for sample, claims in _claims(run):
        for claim in claims:
            if not claim.explicit or id(claim.node.definition) not in run.view.paths:
                continue
            twin = next((other for other in claims if _alike(other, claim) and other.node.pods()), None)
            field = _field(run, claim)
            if twin is not None and claim.node.pods() and field not in reported:
                reported.add(field)
                yield Issue(field, f"{_name(claim)} and {_name(twin)} claim pods alike (sample {sample})")


def _field(run: SampleRun, claim: PodClaim) -> str:
    return f"{run.view.paths[id(claim.node.definition)]}.pods.selector"


@rule(
    "pods-label-value",
    "warning",
    """On a sample, a selector value filled with the workload's names is not a valid label value (longer than 63
    characters, or other characters): the operator cannot have labelled the pods with it.""",
    samples=True,
)
def pod_label_values(run: SampleRun) -> Iterator[Issue]:
    reported: set[str] = set()
    for sample, claims in _claims(run):
        for claim in claims:
            if id(claim.node.definition) not in run.view.paths:
                continue
            for requirement in claim.selector.requirements:
                for value in requirement.values:
                    concrete = value.replace(INDEX_PLACEHOLDER, "0")
                    field = _field(run, claim)
                    if not is_label_value(concrete) and field not in reported:
                        reported.add(field)
                        yield Issue(field, f"{requirement.key}={concrete!r} is not a label value (sample {sample})")
