"""A Karta as a catalog entry: loaded, validated by upstream's rules, and indexed by its root kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ..definitions import validation_problem
from ..errors import DefinitionError
from .model import API_VERSION, KIND, Karta
from .validation import validate_karta

__all__ = ["KartaDefinition", "is_karta", "parse_karta"]


def is_karta(data: Any) -> bool:
    """Whether a parsed document is a Karta object (``run.ai/v1alpha1`` ``Karta``)."""
    return isinstance(data, Mapping) and data.get("apiVersion") == API_VERSION and data.get("kind") == KIND


class KartaDefinition:
    """A validated Karta, as the catalog holds it next to wmap definitions.

    It answers what the catalog asks of any definition (``name``, ``group``, ``kind``,
    ``versions``, ``source``) and is interpreted by :mod:`workloadmap.interpreter.karta` with
    upstream's semantics.

    Attributes:
        karta: the Karta object.
        origin: ``file`` or ``cluster``.
    """

    language = "jq"

    def __init__(self, karta: Karta, source: str | None = None, origin: str = "file") -> None:
        self.karta = karta
        self._source = source
        self.origin = origin

    def __repr__(self) -> str:
        return f"KartaDefinition({self.name!r} for {self.kind}.{self.group or 'core'}/{self.version})"

    @property
    def name(self) -> str:
        """The Karta's ``metadata.name`` (the ``definition`` of the trees it produces)."""
        return self.karta.name

    @property
    def group(self) -> str:
        """The root kind's API group."""
        return self.karta.gvk.group

    @property
    def kind(self) -> str:
        """The root kind."""
        return self.karta.gvk.kind

    @property
    def version(self) -> str:
        """The root kind's API version (a Karta describes exactly one)."""
        return self.karta.gvk.version

    @property
    def short_names(self) -> list[str]:
        """A Karta states no short names."""
        return []

    @property
    def versions(self) -> list[str]:
        """``[version]``: the catalog's view of the versions a definition knows."""
        return [self.version]

    @property
    def description(self) -> str:
        """A one-line description for `catalog list`."""
        return f"Karta {self.name} ({self.origin})"

    @property
    def source(self) -> str | None:
        """The file (or ``cluster``) the Karta came from."""
        return self._source

    @property
    def api_group_kind(self) -> tuple[str, str]:
        """``(group, kind)``: the key the catalog indexes definitions by."""
        return (self.group, self.kind)

    def component_names(self) -> list[str]:
        """Component names, root first."""
        return [component.name for component in self.karta.components()]

    def mapped_statuses(self) -> list[str]:
        """The statuses the root's statusMappings name (capitalised like wmap's phases)."""
        status = self.karta.root.status_definition
        return [key.capitalize() for key in (status.status_mappings if status else {})]

    @property
    def gang_scheduled(self) -> bool:
        """Whether the Karta has gang-scheduling instructions."""
        gang = self.karta.spec.optimization_instructions.gang_scheduling
        return gang is not None and bool(gang.pod_groups or gang.pod_group)

    def to_object(self) -> dict[str, Any]:
        """The Karta in upstream's shape."""
        return self.karta.to_object()


def parse_karta(data: Mapping[str, Any], file: str | None = None, *, origin: str = "file") -> KartaDefinition:
    """Validate a Karta object by its schema and upstream's rules, and compile its jq.

    Raises:
        DefinitionError: naming the file, the Karta and the first field that breaks a rule.
    """
    metadata = data.get("metadata") if isinstance(data, Mapping) else None
    document = str((metadata.get("name") if isinstance(metadata, Mapping) else None) or "#1")
    try:
        karta = Karta.model_validate(data)
    except ValidationError as error:
        field, message = validation_problem(error)
        raise DefinitionError(message, file=file, document=document, field=field) from None
    problems = validate_karta(karta)
    if problems:
        field, message = problems[0]
        raise DefinitionError(message, file=file, document=karta.name, field=field)
    return KartaDefinition(karta, file, origin)
