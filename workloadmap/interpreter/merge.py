"""Specs an operator merges beneath the resource's before it creates anything.

KServe does so with its LLMInferenceServiceConfig presets and an LLMInferenceService's ``baseRefs``.
KServe merges each config's spec under the next with a strategic merge patch
(``pkg/controller/v1alpha2/llmisvc/config_merge.go`` ``MergeSpecs``): objects merge key by key,
lists of named items (containers, env, volumes) merge item by item on ``name``, other lists and
scalars are replaced by the later value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ExpressionError
from .context import EvaluationContext

__all__ = ["merge_bases", "strategic_merge"]


def _named(items: list[Any]) -> bool:
    return bool(items) and all(isinstance(item, Mapping) and isinstance(item.get("name"), str) for item in items)


def strategic_merge(base: Any, override: Any) -> Any:
    """``override`` laid over ``base`` (neither is modified)."""
    if isinstance(base, Mapping) and isinstance(override, Mapping):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = strategic_merge(base[key], value) if key in base else value
        return merged
    if isinstance(base, list) and isinstance(override, list) and _named(base) and _named(override):
        overrides = {item["name"]: item for item in override}
        items = [strategic_merge(item, overrides[item["name"]]) if item["name"] in overrides else item for item in base]
        known = {item["name"] for item in base}
        return items + [item for item in override if item["name"] not in known]
    return override


def merge_bases(context: EvaluationContext) -> Mapping[str, Any]:
    """The context's resource with its definition's base specs merged beneath its own (itself when there are none).

    Raises:
        ExpressionError: a base expression failed on this resource.
    """
    resource = context.resource
    spec: Any = None
    for base in context.definition.bases:
        expression = base.compiled("object")
        if expression is None:
            continue
        try:
            found = expression.search(resource, root=resource, refs=context.refs)
        except ExpressionError as error:
            raise error.located(field=expression.source) from None
        if isinstance(found, Mapping) and isinstance(found.get("spec"), Mapping):
            spec = found["spec"] if spec is None else strategic_merge(spec, found["spec"])
    if spec is None:
        return resource
    merged = dict(resource)
    merged["spec"] = strategic_merge(spec, resource.get("spec") or {})
    return merged
