"""The ClusterRole the service needs, generated from the catalog (``wmap serve --print-rbac``).

``get``, ``list`` and ``watch`` only, on:

* every API group some definition covers a kind of (all their resources: the workload kinds, and
  the owners their operators create in the same group, such as Grove's PodCliques or Knative's
  Revisions, which the service watches when it meets them on a pod's owner chain);
* in the core group only Pods, Nodes and Events — never Secrets or ConfigMaps, unless a kind the
  user allowed for references (``--allow-reference-kind``) is one of them;
* Events of ``events.k8s.io``, and Kartas (``kartas.run.ai``).

``deploy/clusterrole.yaml`` is this role for the built-in catalog; a test keeps the two equal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import labels
from ..catalog import Catalog, resource_plural

__all__ = ["cluster_role", "CORE_RESOURCES"]

CORE_RESOURCES = ("events", "nodes", "pods")
"""What the service reads of the core group."""


def _rule(groups: list[str], resources: list[str]) -> dict[str, Any]:
    return {"apiGroups": groups, "resources": resources, "verbs": list(labels.SERVE_READ_VERBS)}


def cluster_role(
    catalog: Catalog, *, reference_kinds: Iterable[tuple[str, str]] = (), name: str = labels.SERVE_NAME
) -> dict[str, Any]:
    """The ClusterRole for ``catalog``; ``reference_kinds``: ``(group, kind)`` the user allowed references to read."""
    groups = {definition.group for definition in catalog if definition.group}
    core = set(CORE_RESOURCES)
    for group, kind in reference_kinds:
        if group:
            groups.add(group)
        else:
            core.add(resource_plural(kind))
    # wmap.dev is wmap's own group (a Kueue pod group read from an input): no server serves it
    groups -= {"events.k8s.io", labels.KARTA_GROUP, labels.WMAP_API_GROUP}
    rules = [
        _rule([""], sorted(core)),
        _rule(["events.k8s.io"], ["events"]),
        _rule([labels.KARTA_GROUP], [labels.KARTA_RESOURCE]),
        _rule(sorted(groups), ["*"]),
    ]
    return {
        "apiVersion": labels.RBAC_API_VERSION,
        "kind": "ClusterRole",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/name": labels.SERVE_NAME}},
        "rules": rules,
    }
