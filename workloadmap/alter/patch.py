"""The JSON merge patch (RFC 7386) that turns one object into another, for ``kubectl patch --type merge``.

A merge patch works on custom resources as well as built-in kinds: mappings merge key by key, a
null removes a key, and a list is replaced whole (a changed pod template inside a JobSet's
``replicatedJobs`` list sends the whole list).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["merge_patch", "apply_merge_patch"]


def merge_patch(original: Mapping[str, Any], altered: Mapping[str, Any]) -> dict[str, Any]:
    """The smallest merge patch that turns ``original`` into ``altered``."""
    patch: dict[str, Any] = {}
    for key, value in altered.items():
        if key not in original:
            patch[key] = value
        elif original[key] != value:
            before = original[key]
            if isinstance(value, Mapping) and isinstance(before, Mapping):
                patch[key] = merge_patch(before, value)
            else:
                patch[key] = value
    for key in original:
        if key not in altered:
            patch[key] = None
    return patch


def apply_merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 ``MergePatch(target, patch)``: what the API server does with a merge patch (a new value)."""
    if not isinstance(patch, Mapping):
        return patch
    result = dict(target) if isinstance(target, Mapping) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = apply_merge_patch(result.get(key), value)
    return result
