"""Kubernetes' strategic merge patch of a pod template, as ``strategicpatch.StrategicMergePatch`` applies one.

Operators that let a user patch a pod template (the RoleBasedGroup controller's ``templateRef.patch``,
``leaderTemplatePatch`` and ``workerTemplatePatch``: sgl-project/rbg ``pkg/reconciler/pod_reconciler.go``
``applyStrategicMergePatch``) call apimachinery's ``strategicpatch.StrategicMergePatch(base, patch,
&corev1.PodTemplateSpec{})``. Its rules, from ``k8s.io/apimachinery/pkg/util/strategicpatch/patch.go`` and the
``patchStrategy``/``patchMergeKey`` tags of ``k8s.io/api/core/v1/types.go``:

- objects merge key by key; a ``null`` in the patch deletes the key;
- a list whose field has ``patchStrategy:"merge"`` merges element by element on its merge key (containers,
  env and volumes on ``name``, ports on ``containerPort``, volume mounts on ``mountPath`` ...): a patch
  element with a key already there is merged into it, a new one is added; a list of scalars with that strategy
  (``finalizers``) is the union; every other list is replaced by the patch's;
- directives: ``$patch: replace`` (an object or a merging list replaced whole), ``$patch: delete`` (an object,
  or a list element named by its merge key, removed), ``$retainKeys`` (only those keys kept),
  ``$deleteFromPrimitiveList/<field>`` (scalars removed from a merged list), ``$setElementOrder/<field>``
  (an order, dropped: element order changes no count).

A merged list keeps the base's elements in their order and adds the new ones after them (apimachinery orders
patched elements by the patch when it has no ``$setElementOrder``; no count depends on it).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

__all__ = ["patch_pod_template"]

_PRIMITIVES = "primitives"  # a merging list of scalars (finalizers)

# patchMergeKey of each merging list, per object type of a PodTemplateSpec (k8s.io/api core/v1 types.go tags);
# the second item is the type of the list's elements, when it has merging lists of its own.
_CONTAINER: dict[str, tuple[str, Any]] = {
    "ports": ("containerPort", None),
    "env": ("name", None),
    "volumeMounts": ("mountPath", None),
    "volumeDevices": ("devicePath", None),
}
_POD_SPEC: dict[str, tuple[str, Any]] = {
    "containers": ("name", _CONTAINER),
    "initContainers": ("name", _CONTAINER),
    "ephemeralContainers": ("name", _CONTAINER),
    "volumes": ("name", None),
    "imagePullSecrets": ("name", None),
    "hostAliases": ("ip", None),
    "topologySpreadConstraints": ("topologyKey", None),
    "resourceClaims": ("name", None),
    "schedulingGates": ("name", None),
}
_OBJECT_META: dict[str, tuple[str, Any]] = {"finalizers": (_PRIMITIVES, None)}
# A PodTemplateSpec's objects that hold merging lists, by field.
_NESTED = {"metadata": _OBJECT_META, "spec": _POD_SPEC}

_PATCH = "$patch"
_RETAIN_KEYS = "$retainKeys"
_DELETE_FROM = "$deleteFromPrimitiveList/"
_ELEMENT_ORDER = "$setElementOrder/"


def patch_pod_template(template: Any, patch: Any) -> Any:
    """``template`` with the strategic merge patch ``patch`` applied (neither is changed); no patch: ``template``."""
    if not isinstance(patch, Mapping) or not patch:
        return template
    base = template if isinstance(template, Mapping) else {}
    return _merge_object(base, patch, _NESTED, top=True)


def _merge_object(base: Mapping[str, Any], patch: Mapping[str, Any], lists: Mapping[str, Any], *, top: bool) -> Any:
    directive = patch.get(_PATCH)
    if directive == "replace":
        return {key: copy.deepcopy(value) for key, value in patch.items() if not key.startswith("$")}
    if directive == "delete":
        return None
    merged = dict(base)
    retain = patch.get(_RETAIN_KEYS)
    for key, value in patch.items():
        if key.startswith(_DELETE_FROM):
            field = key[len(_DELETE_FROM) :]
            if isinstance(merged.get(field), list) and isinstance(value, list):
                merged[field] = [item for item in merged[field] if item not in value]
            continue
        if key.startswith("$"):
            continue
        if value is None:
            merged.pop(key, None)
            continue
        result = _merge_value(merged.get(key), value, key, lists, top=top)
        if result is None:  # an object patched with $patch: delete
            merged.pop(key, None)
        else:
            merged[key] = result
    if isinstance(retain, list):
        merged = {key: value for key, value in merged.items() if key in retain}
    return merged


def _merge_value(base: Any, patch: Any, key: str, lists: Mapping[str, Any], *, top: bool) -> Any:
    strategy = lists.get(key)
    if isinstance(patch, Mapping):
        nested = _NESTED.get(key, {}) if top else {}
        if not isinstance(base, Mapping):
            base = {}
        return _merge_object(base, patch, nested, top=False)
    if isinstance(patch, list) and isinstance(strategy, tuple):
        merge_key, element_lists = strategy
        if merge_key == _PRIMITIVES:
            existing = list(base) if isinstance(base, list) else []
            return existing + [item for item in patch if item not in existing]
        return _merge_list(base if isinstance(base, list) else [], patch, merge_key, element_lists or {})
    return copy.deepcopy(patch)


def _merge_list(base: list[Any], patch: list[Any], merge_key: str, element_lists: Mapping[str, Any]) -> list[Any]:
    if any(isinstance(item, Mapping) and item.get(_PATCH) == "replace" and len(item) == 1 for item in patch):
        return [copy.deepcopy(item) for item in patch if not (isinstance(item, Mapping) and _PATCH in item)]
    merged = list(base)
    for item in patch:
        if not isinstance(item, Mapping):
            continue
        position = next(
            (
                index
                for index, existing in enumerate(merged)
                if isinstance(existing, Mapping) and merge_key in item and existing.get(merge_key) == item[merge_key]
            ),
            None,
        )
        if item.get(_PATCH) == "delete":
            if position is not None:
                del merged[position]
            continue
        if position is None:
            merged.append(_merge_object({}, item, element_lists, top=False))
        else:
            merged[position] = _merge_object(merged[position], item, element_lists, top=False)
    return [item for item in merged if item is not None]
