"""The exception tree of wmap, and where an error happened.

Every error the library raises on purpose derives from :class:`WorkloadMapError`::

    WorkloadMapError                  exit 1 unless noted
    ├── InputError                    a workload, sample or topology input cannot be read
    │   ├── InputNotFoundError        a FILE|DIR argument does not exist
    │   ├── QuantityError             a resource quantity such as ``2x``
    │   └── BudgetError               an input asks for more than a budget allows (pods, segments ...)
    ├── ExpressionError               an expression failed to compile or to evaluate
    │   └── ExpressionLimitError      an evaluation crossed its time, memory, step or output bound
    ├── DefinitionError               a catalog definition is invalid
    ├── NoDefinitionError             no definition covers a kind (exit 4)
    ├── TopologyError                 a topology source cannot be read
    ├── PlacementError                placement cannot be computed (unknown level ...)
    ├── AlterError                    a change has no safe place in the workload (wmap alter)
    ├── DeadlineError                 the command's deadline (``--timeout``) passed
    ├── InternalError                 an unexpected failure inside one document, located (a bug)
    └── ClusterError                  talking to a live API server failed
        ├── ClusterApiError           the server answered with an error status
        └── UnknownResourceTypeError  discovery lists no such resource type

Each error carries a :class:`Location`: the file, the document (``#2 (JobSet/train)``) and the
field as a path of keys and list indexes. The location is rendered once, by ``str(error)``, as a
single line: ``file, document #2, field spec.replicas: message``. Code that needs to tell errors
apart uses the class, never the message text.

Misuse of the library API (a wrong argument type, an unknown option value) raises the built-in
:class:`ValueError` or :class:`TypeError` instead: those are bugs in the caller, not bad input.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

__all__ = [
    "environment_name",
    "raise_hint",
    "FieldPath",
    "Location",
    "format_path",
    "parse_path",
    "WorkloadMapError",
    "InputError",
    "InputNotFoundError",
    "QuantityError",
    "BudgetError",
    "ExpressionError",
    "ExpressionLimitError",
    "DefinitionError",
    "NoDefinitionError",
    "TopologyError",
    "PlacementError",
    "AlterError",
    "DeadlineError",
    "InternalError",
    "internal_error",
    "ClusterError",
    "ClusterApiError",
    "UnknownResourceTypeError",
]

FieldPath = tuple[str | int, ...]
"""A field inside a document: keys and list indexes, outermost first."""

_SEGMENT = re.compile(r"\[(\d+)\]|\[([^\]]*)\]|\.?([^.\[]+)")
_EXPRESSION_TEXT = re.compile(r"[\s()|&!=<>'\"`{},@?]")  # no key of a field path holds these


def format_path(path: Sequence[str | int]) -> str:
    """``("spec", "replicatedJobs", 0, "replicas")`` as ``spec.replicatedJobs[0].replicas``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif text:
            text += f".{part}"
        else:
            text = str(part)
    return text


def parse_path(text: str) -> FieldPath:
    """The inverse of :func:`format_path` for dotted paths with ``[index]`` segments.

    Text that is not a plain path (an expression used as a field name) comes back as one segment.
    """
    if _EXPRESSION_TEXT.search(text):
        return (text,)
    parts: list[str | int] = []
    position = 0
    for match in _SEGMENT.finditer(text):
        if match.start() != position:
            return (text,)
        index, bracketed, key = match.groups()
        parts.append(int(index) if index is not None else bracketed if bracketed is not None else key)
        position = match.end()
    return tuple(parts) if position == len(text) else (text,)


@dataclass(frozen=True)
class Location:
    """Where an error happened; every part is optional.

    Attributes:
        file: the file, ``-`` for standard input.
        document: which document of the file: ``#2``, ``#2 item 3 (JobSet/train)``.
        path: the offending field, keys and list indexes outermost first.
    """

    file: str | None = None
    document: str | None = None
    path: FieldPath = ()

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        if self.document:
            parts.append(f"document {self.document}")
        if self.path:
            parts.append(f"field {format_path(self.path)}")
        # Names and expressions come from the input: always one line, and never a page long.
        return ", ".join(_one_line(part) for part in parts)


_MAX_PART = 300


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_PART else text[: _MAX_PART - 3] + "..."


def _as_path(field: str | Sequence[str | int] | None) -> FieldPath:
    if field is None or field == "":
        return ()
    if isinstance(field, str):
        return parse_path(field)
    return tuple(field)


_Error = TypeVar("_Error", bound="WorkloadMapError")


def environment_name(flag: str) -> str:
    """The environment variable that sets what ``flag`` sets: ``--max-pods`` is ``WMAP_MAX_PODS``.

    Every budget and input limit has both; the flag wins when both are given.
    """
    return "WMAP_" + flag.lstrip("-").upper().replace("-", "_")


def raise_hint(flag: str) -> str:
    """How a refusal names the setting that moves it: ``raise it with --max-pods or WMAP_MAX_PODS``."""
    return f"raise it with {flag} or {environment_name(flag)}"


class WorkloadMapError(Exception):
    """Base class of every error wmap raises on purpose.

    Attributes:
        message: what went wrong, without the location.
        location: the file, document and field, each possibly unknown.
        exit_code: the command line's exit status for this error.
    """

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        document: str | None = None,
        field: str | Sequence[str | int] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = " ".join(str(message).split())  # always one line
        self.location = Location(file, document, _as_path(field))

    @property
    def file(self) -> str | None:
        """The file the problem is in, if known."""
        return self.location.file

    @property
    def document(self) -> str | None:
        """The document of the file, if known."""
        return self.location.document

    @property
    def field(self) -> str | None:
        """The offending field as a dotted path, if known."""
        return format_path(self.location.path) or None

    def located(
        self: _Error,
        *,
        file: str | None = None,
        document: str | None = None,
        field: str | Sequence[str | int] | None = None,
    ) -> _Error:
        """Fill in location parts that are still unknown and return ``self``."""
        current = self.location
        self.location = replace(
            current,
            file=current.file if current.file is not None else file,
            document=current.document if current.document is not None else document,
            path=current.path or _as_path(field),
        )
        return self

    def __str__(self) -> str:
        where = str(self.location)
        return f"{where}: {self.message}" if where else self.message

    def __reduce__(self) -> tuple[Any, ...]:  # keep errors picklable with their location
        return (_restore, (type(self), self.__dict__, self.args))


def _restore(cls: type[WorkloadMapError], state: dict[str, Any], args: tuple[Any, ...]) -> WorkloadMapError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class InputError(WorkloadMapError):
    """A workload, sample or topology input could not be read: bad YAML, wrong types, missing fields."""


class InputNotFoundError(InputError):
    """A FILE|DIR argument names nothing that exists."""


class QuantityError(InputError):
    """A Kubernetes resource quantity such as ``2x`` is not valid."""


class BudgetError(InputError):
    """An input asks for more than a budget allows: pods, PodGroups, segments, scaled gangs, nodes.

    Checked on the numbers before anything is built (:mod:`workloadmap.budgets`).
    """


class ExpressionError(WorkloadMapError):
    """An expression failed to compile or to evaluate."""


class ExpressionLimitError(ExpressionError):
    """An evaluation crossed its time, memory, step or output bound (a hostile or runaway definition)."""


class DefinitionError(WorkloadMapError):
    """A catalog definition is invalid."""


class NoDefinitionError(WorkloadMapError):
    """No catalog definition covers the resource's kind.

    Attributes:
        api_version: the resource's ``apiVersion``.
        kind: the resource's ``kind``.
    """

    exit_code = 4

    def __init__(
        self,
        message: str,
        *,
        api_version: str = "",
        kind: str = "",
        file: str | None = None,
        document: str | None = None,
        field: str | Sequence[str | int] | None = None,
    ) -> None:
        super().__init__(message, file=file, document=document, field=field)
        self.api_version = api_version
        self.kind = kind


class TopologyError(WorkloadMapError):
    """A topology source (NodeList, Slurm file, simulation model) could not be read."""


class PlacementError(WorkloadMapError):
    """Placement could not be computed (for example, an unknown topology level)."""


class AlterError(WorkloadMapError):
    """A change cannot be made safely (``wmap alter``, ``suspend``, ``resume``, ``place --emit pinned``).

    The kind keeps no such pod field, cannot be suspended, or a pod template is shared with a
    component the change does not target.
    """


class DeadlineError(WorkloadMapError):
    """The command's deadline (``--timeout``) passed before its work was done."""


class InternalError(WorkloadMapError):
    """An unexpected failure while handling one document: a bug in wmap, reported with its location.

    The other documents are still processed; the message names the exception's type.
    """


def internal_error(error: Exception) -> InternalError:
    """An unexpected exception as a one-line :class:`InternalError` (to be located by the caller).

    Memory and recursion exhaustion say so plainly; anything else names the exception's type.
    """
    if isinstance(error, MemoryError):
        return InternalError("out of memory while handling this document")
    if isinstance(error, RecursionError):
        return InternalError("nested too deeply to handle (recursion limit reached)")
    return InternalError(f"internal error ({type(error).__name__}: {error}); please report it with this document")


class ClusterError(WorkloadMapError):
    """Talking to a live Kubernetes API server failed."""


class ClusterApiError(ClusterError):
    """The API server answered with an error status.

    Attributes:
        status_code: the HTTP status (401, 403, 404, ...).
        reason: the ``Status.reason`` of the answer (``NotFound``, ``Forbidden``, ...), if any.
    """

    def __init__(self, message: str, *, status_code: int, reason: str = "", **where: Any) -> None:
        super().__init__(message, **where)
        self.status_code = status_code
        self.reason = reason


class UnknownResourceTypeError(ClusterError):
    """API discovery lists no resource type of that name."""
