"""Reading Kubernetes objects from YAML or JSON: files, directories or standard input.

One or many documents per file; empty documents are skipped; ``kind: List`` (and any typed
``*List``) is flattened. Each object comes with where it was found, so errors can name the file
and the document. Input is untrusted: only PyYAML's safe loader is used, timestamps stay strings,
and self-referential or alias-bomb documents are refused before anything walks them.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import InputError, InputNotFoundError
from .loader import (
    LIMIT_FLAGS,
    WORKLOAD_LIMITS,
    Limits,
    check_structure,
    in_force,
    parse_json,
    parse_yaml,
    raise_hint,
    size_text,
)

__all__ = [
    "Document",
    "load_yaml_text",
    "iter_documents",
    "read_documents",
    "read_text",
    "decode_text",
    "load_objects",
    "text_objects",
    "document_spans",
    "iter_input_files",
    "MAX_INPUT_BYTES",
]

MAX_INPUT_BYTES = WORKLOAD_LIMITS.max_bytes

_DOCUMENT_START = re.compile(r"^---(?=\s|$)", re.MULTILINE)


@dataclass
class Document:
    """One parsed document.

    Attributes:
        body: the parsed object (None for an empty document).
        file: the file it came from (``-`` for standard input).
        index: 1-based document index within the file.
        item: 1-based item index when the object came out of a ``kind: List``.
        warnings: what the parser noticed but accepted (a key given twice: the last value wins).
    """

    body: Any
    file: str
    index: int
    item: int | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """``#2`` or ``#2 item 3``, then ``(Kind/name)`` when known: how errors name the document."""
        text = f"#{self.index}" if self.item is None else f"#{self.index} item {self.item}"
        if isinstance(self.body, dict):
            kind = self.body.get("kind")
            name = (
                (self.body.get("metadata") or {}).get("name") if isinstance(self.body.get("metadata"), dict) else None
            )
            if kind and name:
                text += f" ({kind}/{name})"
            elif kind:
                text += f" ({kind})"
        return text


_CONTENT_LINE = re.compile(r"^[ \t]*[^ \t#\r\n]", re.MULTILINE)


def _split_documents(text: str) -> Iterator[tuple[int, str]]:
    """Split a YAML stream at ``---`` lines, keeping each piece's starting line (0-based).

    Pieces with no content (blank or comment-only, such as what precedes a leading ``---``) are
    not documents and are not numbered, as kubectl counts them. Each piece is cut as it is asked
    for: a stream is not held twice.
    """
    for line, begin, end in _spans(text):
        yield line, text[begin:end]


def document_spans(text: str) -> list[tuple[int, int, int]]:
    """Where each numbered document of a YAML stream lies: ``(first line, begin, end)`` offsets.

    The text of document ``#n`` is ``text[begin:end]`` of the n-th span (after its ``---``);
    what lies between spans is markers and content-free pieces. ``wmap alter`` rewrites a
    changed document in place through them and leaves every other byte as it was.
    """
    return list(_spans(text))


def _spans(text: str) -> Iterator[tuple[int, int, int]]:
    """The spans of :func:`document_spans`, each found as it is asked for."""
    starts = [match.start() for match in _DOCUMENT_START.finditer(text)]
    bounds = [0, *starts, len(text)]
    line = 0
    for position, (begin, end) in enumerate(zip(bounds, bounds[1:], strict=False)):
        skip = 3 if position > 0 else 0  # every piece but the first starts at a `---` marker
        if _CONTENT_LINE.search(text[begin + skip : end]):  # a piece of its own: `^` at its start too
            yield line, begin + skip, end
        line += text.count("\n", begin, end)  # counted piece by piece: linear in the stream


def load_yaml_text(text: str, file: str = "-", *, limits: Limits = WORKLOAD_LIMITS) -> list[Document]:
    """Parse a YAML or JSON stream into documents, one :class:`Document` per ``---`` piece.

    A document that does not parse raises :class:`InputError`; use :func:`iter_documents` to keep
    going past broken documents.
    """
    limits = in_force(limits)
    documents = []
    for item in iter_documents(text, file, limits=limits):
        if isinstance(item, InputError):
            raise item
        documents.append(item)
    return documents


def read_documents(path: str, *, limits: Limits = WORKLOAD_LIMITS) -> list[Document]:
    """Every non-empty document of one file (``-`` for standard input); the first broken one raises.

    Raises:
        InputError: the file is missing, larger than ``limits.max_bytes``, not UTF-8, or a document
            does not parse.
    """
    limits = in_force(limits)
    text = read_text(path, limit=limits.max_bytes)
    return [document for document in load_yaml_text(text, path, limits=limits) if document.body is not None]


def _duplicate_warnings(duplicates: list[tuple[int, str]], line_offset: int) -> list[str]:
    return [
        f"key {key!r} is given twice (line {line + 1 + line_offset}); the last value is used, as the API server does"
        for line, key in duplicates
    ]


def _json_document(text: str, file: str, limits: Limits) -> Document | InputError:
    try:
        body = parse_json(text)
    except InputError as json_error:
        # Flow-style YAML also starts with a brace; let the YAML parser have a go before failing.
        try:
            parsed = parse_yaml(text)
        except InputError:
            return json_error.located(file=file, document="#1")
        try:
            check_structure(parsed.body, limits, len(text), aliases="&" in text)
        except InputError as error:
            return error.located(file=file, document="#1")
        return Document(parsed.body, file, 1, warnings=_duplicate_warnings(parsed.duplicates, 0))
    if limits.check_json:
        try:
            check_structure(body, limits, len(text), aliases=False)  # JSON names no node twice
        except InputError as error:
            return error.located(file=file, document="#1")
    return Document(body, file, 1)


def iter_documents(text: str, file: str = "-", *, limits: Limits = WORKLOAD_LIMITS) -> Iterator[Document | InputError]:
    """Yield each document of a stream, or an :class:`InputError` for one that does not parse.

    Documents are parsed separately, so one broken document does not hide the others. A stream
    of more than ``limits.max_documents`` documents ends with an error for the rest.
    """
    limits = in_force(limits)
    if text.lstrip().startswith(("{", "[")):
        yield _json_document(text, file, limits)
        return
    index = 0
    for line_offset, piece in _split_documents(text):
        index += 1
        if index > limits.max_documents:
            yield InputError(
                f"more than {limits.max_documents:,} documents "
                f"(the rest refused; {raise_hint(LIMIT_FLAGS['max_documents'])})",
                file=file,
            )
            return
        try:
            parsed = parse_yaml(piece, line_offset=line_offset)
            check_structure(parsed.body, limits, len(piece), aliases="&" in piece)  # an alias needs an anchor
        except InputError as error:
            yield error.located(file=file, document=f"#{index}")
            continue
        yield Document(parsed.body, file, index, warnings=_duplicate_warnings(parsed.duplicates, line_offset))


def _flatten(document: Document) -> Iterator[Document]:
    body = document.body
    if (
        isinstance(body, dict)
        and isinstance(body.get("kind"), str)
        and body["kind"].endswith("List")
        and "items" in body
    ):
        items = body.get("items") or []
        if not isinstance(items, list):
            raise InputError(
                "items of a List must be a list", file=document.file, document=document.label, field="items"
            )
        for position, item in enumerate(items, start=1):
            yield Document(item, document.file, document.index, position, warnings=document.warnings)
        return
    yield document


def read_text(path: str, *, limit: int = MAX_INPUT_BYTES) -> str:
    """Read a file (``-`` for standard input) as UTF-8 text, refusing inputs over ``limit`` bytes."""
    if path != "-" and not Path(path).exists():
        raise InputNotFoundError("no such file", file=path)
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            data = stream.read(limit + 1) if stream is not None else sys.stdin.read(limit + 1).encode()
        else:
            with open(path, "rb") as handle:
                data = handle.read(limit + 1)
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror or error}", file=path) from None
    return decode_text(data, path, limit=limit)


def decode_text(data: bytes, path: str, *, limit: int = MAX_INPUT_BYTES) -> str:
    """The bytes read from ``path`` as UTF-8 text, refusing more than ``limit`` bytes."""
    if len(data) > limit:
        raise InputError(
            f"input larger than {size_text(limit)} (refused; {raise_hint(LIMIT_FLAGS['max_bytes'])})", file=path
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text (byte {error.start})", file=path) from None


def iter_input_files(path: str, *, recursive: bool = False) -> list[str]:
    """The files a FILE|DIR|- argument stands for (a directory gives its .yaml/.yml/.json files, sorted)."""
    if path == "-":
        return ["-"]
    target = Path(path)
    if target.is_dir():
        pattern = "**/*" if recursive else "*"
        files = sorted(
            str(candidate)
            for candidate in target.glob(pattern)
            if candidate.is_file() and candidate.suffix in (".yaml", ".yml", ".json")
        )
        return files
    if not target.exists():
        raise InputNotFoundError("no such file or directory", file=path)
    return [path]


def load_objects(
    path: str, *, recursive: bool = False, limits: Limits = WORKLOAD_LIMITS
) -> Iterator[Document | InputError]:
    """Every object in FILE|DIR|-: documents, List items flattened, empty documents skipped.

    Unparseable documents are yielded as :class:`InputError` so a caller can report them and go on.
    """
    limits = in_force(limits)
    for file in iter_input_files(path, recursive=recursive):
        try:
            text = read_text(file, limit=limits.max_bytes)
        except InputError as error:
            yield error
            continue
        yield from text_objects(text, file, limits=limits)


def text_objects(text: str, file: str = "-", *, limits: Limits = WORKLOAD_LIMITS) -> Iterator[Document | InputError]:
    """Every object of one text (a file's, or a request body's) as :func:`load_objects` reads them."""
    for document in iter_documents(text, file, limits=limits):
        if isinstance(document, InputError):
            yield document
            continue
        if document.body is None:
            continue
        try:
            yield from _flatten(document)
        except InputError as error:
            yield error
