"""Objects a workload references, read from the cluster on demand (read-only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..budgets import reference_kinds
from ..errors import ClusterApiError, UnknownResourceTypeError
from ..labels import DRA_LOOKUP_KINDS
from .client import ClusterClient

__all__ = ["ClusterObjects"]


class ClusterObjects:
    """Objects a workload references (a TrainJob's runtime), fetched from the cluster on demand.

    It answers the interpreter's ``RelatedObjects`` protocol: each object of a kind definitions may
    reference (runtime templates, unless the user allowed more) is read with one ``GET``
    (by kind, in the workload's namespace for namespaced kinds) and remembered. A missing,
    forbidden or unknown object counts as absent, so the tree carries the interpreter's usual
    warning. Chain it after in-memory objects to look there first.
    """

    def __init__(self, client: ClusterClient) -> None:
        self._client = client
        self._fetched: dict[tuple[str, str, str | None], dict[str, Any] | None] = {}

    def find(self, kind: str, name: str, namespace: str | None, namespaced: bool) -> Mapping[str, Any] | None:
        """The object from the cluster; None when it does not exist or cannot be read.

        A kind definitions may not reference (:func:`~workloadmap.budgets.reference_kinds`) is
        never asked for: None without a request.
        """
        # the kinds definitions may reference, and those of pods' DRA claims, which wmap resolves itself;
        # a qualified kind (PodGroup.scheduling.k8s.io) picks its group among several
        kind, dot, wanted = kind.partition(".")
        groups = sorted(
            group
            for group, allowed in reference_kinds() | DRA_LOOKUP_KINDS
            if allowed == kind and (not dot or group == wanted)
        )
        if len(groups) != 1:
            return None  # not allowed, or ambiguous without a group: never fetched
        key = (kind, name, namespace if namespaced else None)
        if key not in self._fetched:
            qualified = f"{kind}.{groups[0]}" if groups[0] else kind
            try:
                self._fetched[key] = self._client.get(f"{qualified}/{name}", namespace if namespaced else None)
            except UnknownResourceTypeError:
                self._fetched[key] = None
            except ClusterApiError as error:
                if error.status_code not in (403, 404):
                    raise
                self._fetched[key] = None
        return self._fetched[key]
