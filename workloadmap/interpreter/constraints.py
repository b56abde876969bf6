"""Topology constraints of gangs: what KAI's pod-grouper puts on each PodGroup and SubGroup.

By default a PodGroup takes the workload's own ``kai.scheduler/topology``,
``…-required-placement`` and ``…-preferred-placement`` annotations (KAI's default grouper,
``defaultgrouper/default_grouper.go`` ``GetPodGroupMetadata``). A definition overrides that with a
``topologyConstraint`` rule (Grove's ``topologyConstraint`` fields, per-template annotations of a
Ray group, the ``segment-topology-*`` annotations of a segment).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ExpressionError, InputError
from ..labels import KAI_TOPOLOGY, KAI_TOPOLOGY_PREFERRED, KAI_TOPOLOGY_REQUIRED
from ..runtime_definitions import TopologyRule
from ..tree import TopologyConstraint
from ..values import mapping_at
from .context import EvaluationContext

__all__ = ["annotation_constraint", "evaluate_constraint"]


def annotation_constraint(resource: Mapping[str, Any]) -> TopologyConstraint:
    """The constraint the KAI topology annotations on the object's metadata give its PodGroups."""
    annotations = mapping_at(mapping_at(resource, "metadata"), "annotations")

    def text(key: str) -> str | None:
        value = annotations.get(key)
        return str(value) if value not in (None, "") else None

    return TopologyConstraint(
        topology=text(KAI_TOPOLOGY),
        required_level=text(KAI_TOPOLOGY_REQUIRED),
        preferred_level=text(KAI_TOPOLOGY_PREFERRED),
    )


def _text(rule: TopologyRule, part: str, scope: Any, context: EvaluationContext) -> Any:
    expression = rule.compiled(part)
    if expression is None:
        return None
    try:
        value = expression.search(scope, root=context.resource, refs=context.refs)
    except ExpressionError as error:
        raise error.located(field=f"topologyConstraint.{part}") from None
    if value is None or value == "":
        return None
    if isinstance(value, (dict, list, bool)):
        raise InputError(
            f"topology constraint {part} must be a name, got {type(value).__name__}",
            field=expression.source,
        )
    return str(value)


def evaluate_constraint(
    rule: TopologyRule | None,
    scope: Any,
    context: EvaluationContext,
    *,
    need_level: bool = False,
) -> TopologyConstraint:
    """A constraint rule evaluated on ``scope`` (``root()`` is the resource); empty without a rule.

    With ``need_level`` a topology name without a required or preferred level is no constraint
    (KAI's plugins set a SubGroup constraint only when a level is given).

    Raises:
        ExpressionError: an expression failed on this resource (located at its field).
        InputError: an expression gave something that is not a name.
    """
    if rule is None:
        return TopologyConstraint()
    constraint = TopologyConstraint(
        topology=_text(rule, "topology", scope, context),
        required_level=_text(rule, "required", scope, context),
        preferred_level=_text(rule, "preferred", scope, context),
        domains=rule.domains,
        tiers=rule.tiers,
    )
    return constraint if constraint or not need_level else TopologyConstraint()
