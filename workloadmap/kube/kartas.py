"""Karta objects (``kartas.run.ai``, cluster-scoped) read from the cluster, GET requests only.

As upstream's CLI resolver (``cli/pkg/definitions/load.go``): a cluster without the CRD has no
Kartas, and a user who may not list them gets the other definitions with a notice.
"""

from __future__ import annotations

from .. import labels
from ..errors import ClusterApiError, UnknownResourceTypeError
from .client import ClusterClient

__all__ = ["KARTA_RESOURCE_REF", "cluster_kartas"]

KARTA_RESOURCE_REF = f"{labels.KARTA_RESOURCE}.{labels.KARTA_GROUP}"


def cluster_kartas(client: ClusterClient) -> tuple[list[dict], str | None]:
    """The cluster's Karta objects, and a notice when they could not be read.

    Raises:
        ClusterError: the cluster cannot be reached or answers with another error.
    """
    try:
        return client.list(KARTA_RESOURCE_REF), None
    except UnknownResourceTypeError:
        return [], None  # the Karta CRD is not installed
    except ClusterApiError as error:
        if error.status_code != 403:
            raise
        return [], f"not allowed to list {KARTA_RESOURCE_REF}; using the other definitions only"
