"""The exception tree of wmap.

Every error raised on purpose by the library derives from :class:`WorkloadMapError` and carries
*where* it happened: the file, the document (1-based index within a multi-document file, or the
object's ``Kind/name``) and the field. ``str(error)`` is a single line that names all three, so
the command line can print it as it is.
"""

from __future__ import annotations

__all__ = [
    "WorkloadMapError",
    "InputError",
    "QuantityError",
    "ExpressionError",
    "DefinitionError",
    "NoDefinitionError",
    "InterpretError",
    "TopologyError",
    "PlacementError",
    "ClusterError",
]


class WorkloadMapError(Exception):
    """Base class of every error wmap raises on purpose.

    Attributes:
        message: what went wrong, without the location.
        file: the file (or ``-`` for standard input) the problem is in, if known.
        document: which document of the file: ``"#2"`` or ``"JobSet/train"``, if known.
        field: the dotted path of the offending field, if known.
    """

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        document: str | None = None,
        field: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.document = document
        self.field = field

    def located(
        self, *, file: str | None = None, document: str | None = None, field: str | None = None
    ) -> "WorkloadMapError":
        """Fill in location parts that are still unknown and return ``self``."""
        if self.file is None:
            self.file = file
        if self.document is None:
            self.document = document
        if self.field is None:
            self.field = field
        return self

    def __str__(self) -> str:
        where = []
        if self.file:
            where.append(self.file)
        if self.document:
            where.append(f"document {self.document}")
        if self.field:
            where.append(f"field {self.field}")
        text = " ".join(self.message.split())  # always one line
        return f"{', '.join(where)}: {text}" if where else text


class InputError(WorkloadMapError):
    """A workload or topology input could not be read: bad YAML, wrong types, missing fields."""


class QuantityError(InputError):
    """A Kubernetes resource quantity such as ``2x`` is not valid."""


class ExpressionError(WorkloadMapError):
    """An expression failed to compile or to evaluate."""


class DefinitionError(WorkloadMapError):
    """A catalog definition is invalid."""


class NoDefinitionError(WorkloadMapError):
    """No catalog definition covers the resource's kind."""

    exit_code = 4

    def __init__(self, message: str, *, api_version: str = "", kind: str = "", **where) -> None:
        super().__init__(message, **where)
        self.api_version = api_version
        self.kind = kind


class InterpretError(WorkloadMapError):
    """A resource matched a definition but could not be expanded into a workload tree."""


class TopologyError(WorkloadMapError):
    """A topology source (NodeList, Slurm file, simulation model) could not be read."""


class PlacementError(WorkloadMapError):
    """Placement could not be computed (for example, an unknown topology level)."""


class ClusterError(WorkloadMapError):
    """Talking to a live Kubernetes API server failed."""
