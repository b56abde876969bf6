"""Resource types as API discovery describes them, and kubectl-style references to them."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from ..errors import ClusterError

__all__ = ["ApiResource", "parse_resource_ref"]


@dataclass(frozen=True)
class ApiResource:
    """One resource type as API discovery describes it.

    Attributes:
        group: API group, ``""`` for the core group.
        version: API version within the group (``v1alpha2``).
        plural: resource name used in URLs (``jobsets``).
        singular: singular name (``jobset``), possibly empty on old servers.
        kind: object kind (``JobSet``).
        namespaced: whether objects live in a namespace.
        short_names: kubectl short names (``po``, ``deploy``).
    """

    group: str
    version: str
    plural: str
    singular: str
    kind: str
    namespaced: bool
    short_names: tuple[str, ...] = ()

    @property
    def api_version(self) -> str:
        """``v1`` for the core group, ``group/version`` otherwise."""
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified_name(self) -> str:
        """``plural.group`` as kubectl prints it in messages (``jobsets.jobset.x-k8s.io``, ``pods``)."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        """The URL path of the collection (all namespaces when ``namespace`` is None) or of one object."""
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace is not None:
            base += f"/namespaces/{quote(namespace, safe='')}"
        base += f"/{self.plural}"
        if name is not None:
            base += f"/{quote(name, safe='')}"
        return base

    def matches(self, token: str) -> bool:
        """True when ``token`` (lower case) names this resource: plural, singular, kind or short name."""
        return token in (self.plural, self.singular, self.kind.lower()) or token in self.short_names


def parse_resource_ref(resource_ref: str) -> tuple[str, str | None]:
    """Split ``TYPE/NAME``, ``TYPE NAME`` or ``TYPE`` into the type and the name (None when absent).

    Raises:
        ClusterError: empty type or name, or more than two words.
    """
    words = resource_ref.split()
    if len(words) == 2 and "/" not in words[0]:
        type_token, name = words
    elif len(words) == 1 and "/" in words[0]:
        type_token, name = words[0].split("/", 1)
    elif len(words) == 1:
        type_token, name = words[0], None
    else:
        raise ClusterError(f"cannot read resource reference {resource_ref!r}: expected TYPE/NAME, TYPE NAME or TYPE")
    if not type_token:
        raise ClusterError(f"resource reference {resource_ref!r} names no resource type")
    if name is not None and (not name or "/" in name):
        raise ClusterError(f"resource reference {resource_ref!r}: the name must be one non-empty path segment")
    return type_token, name
