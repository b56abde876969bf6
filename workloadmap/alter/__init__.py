"""Alter: safe changes to a workload's pods through the catalog, offline (``wmap alter|suspend|resume``).

``changes`` says what a user asks for (scheduler, labels, queue, tolerations, node selector,
priority class, node requirements, the required podAffinity that keeps a ComputeDomain workload in
one NVLink clique, suspension); ``locate`` traces each component's pod template
from the interpreter's read path back to its place in the object (or the fragment fields a
definition's ``podFields`` names); ``pods`` merges the changes into what is there; ``suspend``
applies the definition's suspend or resume steps; ``apply`` runs it all on a fresh copy
(:func:`alter`); ``patch`` turns the result into a JSON merge patch. Nothing is ever written to a
cluster: the objects are printed for ``kubectl apply`` or ``kubectl patch``.
"""

import sys
from types import ModuleType
from typing import Any

from .apply import Alteration, AlteredComponent, alter, pod_places, select_components
from .changes import (
    POD_METADATA_FIELDS,
    POD_SPEC_FIELDS,
    Changes,
    NodeRequirement,
    PodAffinityTerm,
    Toleration,
    check_label,
)
from .locate import PodSlot, locate_pods
from .patch import apply_merge_patch, merge_patch
from .paths import Locator, delete_at, fresh_copy, get_at, set_at
from .suspend import NOW, apply_suspend

__all__ = [
    "alter",
    "pod_places",
    "Alteration",
    "AlteredComponent",
    "Changes",
    "Toleration",
    "NodeRequirement",
    "PodAffinityTerm",
    "check_label",
    "POD_SPEC_FIELDS",
    "POD_METADATA_FIELDS",
    "PodSlot",
    "locate_pods",
    "select_components",
    "merge_patch",
    "apply_merge_patch",
    "apply_suspend",
    "NOW",
    "Locator",
    "fresh_copy",
    "get_at",
    "set_at",
    "delete_at",
]


class _CallableSubpackage(ModuleType):
    """This subpackage, callable as :func:`alter`: ``workloadmap.alter`` names both.

    Importing a subpackage binds it to its parent's attribute of the same name, so once anything has
    imported ``workloadmap.alter`` (``from workloadmap import Changes`` does), ``workloadmap.alter`` is this
    module, not the package's function of that name. Called, it is the function: the public API's
    ``workloadmap.alter(obj, changes)`` works whichever was bound first.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Alteration:
        return alter(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableSubpackage
