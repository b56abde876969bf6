"""Pod claims: which pods each pod-bearing component of an expanded resource says are its own.

A definition's ``pods`` section gives, per component, a label-selector template and the labels
that carry replica and pod indexes. :func:`pod_claims` renders the templates for one resource:
``{workload}`` is the name of the resource the component's definition describes (an embedded
object's own name inside an AppWrapper), ``{instance}`` the instance name, ``{instance:NAME}``
the instance of the enclosing component ``NAME``. A component without a selector claims every
pod (right for a definition with one pod-bearing component). ``wmap describe`` attributes pods
with the claims, and the lint checks them on samples.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .expand import ExpandedComponent

if TYPE_CHECKING:  # selectors load with the commands that attribute pods (describe, get, lint)
    from ..selectors import Selector

__all__ = ["PodClaim", "pod_claims", "lineages", "label_index"]


def _every_pod() -> Selector:
    """The selector that matches every pod (a component whose definition names none)."""
    from ..selectors import Selector

    return Selector()


@dataclass(frozen=True)
class PodClaim:
    """One pod-bearing component (instance) and the selector its pods match.

    Attributes:
        node: the component.
        lineage: its ancestors and itself, outermost first.
        selector: the rendered selector (``{index}`` may remain and matches any number).
        explicit: whether the definition gave a selector (False: every pod is claimed).
    """

    node: ExpandedComponent
    lineage: tuple[ExpandedComponent, ...]
    selector: Selector
    explicit: bool


def lineages(nodes: Sequence[ExpandedComponent]) -> Iterator[tuple[ExpandedComponent, ...]]:
    """Every component's lineage (ancestors then itself), depth first."""

    def visit(node: ExpandedComponent, above: tuple[ExpandedComponent, ...]) -> Iterator[tuple[ExpandedComponent, ...]]:
        lineage = (*above, node)
        yield lineage
        for child in node.children:
            yield from visit(child, lineage)

    for root in nodes:
        yield from visit(root, ())


def _context(lineage: tuple[ExpandedComponent, ...], workload: str, namespace: str) -> dict[str, str]:
    """Placeholder values for the last component of ``lineage``."""
    start, owner = 0, workload
    for position, ancestor in enumerate(lineage[:-1]):
        if ancestor.definition.resource:  # an embedded object: its components use its own name
            start, owner = position + 1, ancestor.instance or ancestor.name
    node = lineage[-1]
    context = {
        "workload": owner,
        "namespace": namespace,
        "component": node.definition.name,
        "instance": node.instance or node.name,
    }
    for ancestor in lineage[start:]:
        context[f"instance:{ancestor.definition.name}"] = ancestor.instance or ancestor.name
    return context


def pod_claims(nodes: Sequence[ExpandedComponent], workload: str, namespace: str = "") -> list[PodClaim]:
    """The claims of every pod-bearing component of an expanded resource, in definition order.

    Raises:
        ValueError: a selector names a placeholder the component has no value for (a definition
            that passed validation cannot).
    """
    claims = []
    for lineage in lineages(nodes):
        node = lineage[-1]
        if not node.has_pods:
            continue
        pods = node.definition.pods
        template = pods.parsed_selector if pods is not None else None
        if template is None:
            claims.append(PodClaim(node, lineage, _every_pod(), explicit=False))
            continue
        claims.append(PodClaim(node, lineage, template.render(_context(lineage, workload, namespace)), True))
    return claims


def label_index(keys: Sequence[str], labels: Mapping[str, str]) -> int | None:
    """The first of ``keys`` present in ``labels`` as a non-negative integer, else None."""
    for key in keys:
        value = labels.get(key)
        if value is not None:
            text = value.strip()
            return int(text) if text.isascii() and text.isdigit() else None
    return None
