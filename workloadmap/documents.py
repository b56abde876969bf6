"""Reading Kubernetes objects from YAML or JSON: files, directories or standard input.

One or many documents per file; empty documents are skipped; ``kind: List`` (and any typed
``*List``) is flattened. Each object comes with where it was found, so errors can name the file
and the document. Input is untrusted: only PyYAML's safe loader is used, timestamps stay strings,
and self-referential or alias-bomb documents are refused before anything walks them.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError, InputNotFoundError

__all__ = [
    "Document",
    "load_yaml_text",
    "iter_documents",
    "read_documents",
    "read_text",
    "load_objects",
    "iter_input_files",
    "MAX_INPUT_BYTES",
]

MAX_INPUT_BYTES = 64 * 1024 * 1024
# Walking a document visits each container once per reference; a billion-laughs document blows past
# its own text length, which is the real budget (this is the floor).
MAX_NODES_PER_DOCUMENT = 100_000
MAX_DEPTH = 200

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc,valid-type]
    """Safe loader that keeps timestamps as strings, as Kubernetes does."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}

_DOCUMENT_START = re.compile(r"^---(?=\s|$)", re.MULTILINE)


@dataclass
class Document:
    """One parsed document.

    Attributes:
        body: the parsed object (None for an empty document).
        file: the file it came from (``-`` for standard input).
        index: 1-based document index within the file.
        item: 1-based item index when the object came out of a ``kind: List``.
    """

    body: Any
    file: str
    index: int
    item: int | None = None

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


def _check_structure(body: Any, file: str, label: str, budget: int = MAX_NODES_PER_DOCUMENT) -> None:
    """Refuse self-referential data, alias bombs and absurd nesting, in one linear walk.

    A document cannot hold more containers than its text has characters, so a walk that visits
    more than ``budget`` containers (the caller passes the text length) met aliases being expanded.
    """
    visited = 0
    on_path: set[int] = set()
    stack: list[tuple[Any, int, bool]] = [(body, 0, False)]
    while stack:
        node, depth, leaving = stack.pop()
        if leaving:
            on_path.discard(id(node))
            continue
        if not isinstance(node, (dict, list)):
            continue
        visited += 1
        if visited > budget:
            raise InputError("document too large after alias expansion (refused)", file=file, document=label)
        if depth > MAX_DEPTH:
            raise InputError(f"document nested deeper than {MAX_DEPTH} levels (refused)", file=file, document=label)
        identity = id(node)
        if identity in on_path:
            raise InputError("document refers to itself through a YAML alias (refused)", file=file, document=label)
        on_path.add(identity)
        stack.append((node, depth, True))
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1, False))


_CONTENT_LINE = re.compile(r"^[ \t]*[^ \t#\r\n]", re.MULTILINE)


def _split_documents(text: str) -> list[tuple[int, str]]:
    """Split a YAML stream at ``---`` lines, keeping each piece's starting line (0-based).

    Pieces with no content (blank or comment-only, such as what precedes a leading ``---``) are
    not documents and are not numbered, as kubectl counts them.
    """
    pieces: list[tuple[int, str]] = []
    starts = [match.start() for match in _DOCUMENT_START.finditer(text)]
    bounds = [0, *starts, len(text)]
    line = 0
    for position, (begin, end) in enumerate(zip(bounds, bounds[1:], strict=False)):
        piece = text[begin:end]
        marker = position > 0  # every piece but the first starts at a `---` marker
        if _CONTENT_LINE.search(piece[3:] if marker else piece):
            pieces.append((line, piece[3:] if marker else piece))
        line += piece.count("\n")  # counted piece by piece: linear in the stream
    return pieces


def _yaml_error(error: yaml.YAMLError, line_offset: int) -> str:
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    mark = getattr(error, "problem_mark", None)
    if mark is not None:
        return f"invalid YAML at line {mark.line + 1 + line_offset} column {mark.column + 1}: {problem}"
    return f"invalid YAML: {problem}"


def load_yaml_text(text: str, file: str = "-") -> list[Document]:
    """Parse a YAML or JSON stream into documents, one :class:`Document` per ``---`` piece.

    A document that does not parse raises :class:`InputError`; use :func:`iter_documents` to keep
    going past broken documents.
    """
    documents = []
    for item in iter_documents(text, file):
        if isinstance(item, InputError):
            raise item
        documents.append(item)
    return documents


def read_documents(path: str, *, limit: int = MAX_INPUT_BYTES) -> list[Document]:
    """Every non-empty document of one file (``-`` for standard input); the first broken one raises.

    Raises:
        InputError: the file is missing, larger than ``limit`` bytes, not UTF-8, or a document
            does not parse.
    """
    return [document for document in load_yaml_text(read_text(path, limit=limit), path) if document.body is not None]


def iter_documents(text: str, file: str = "-") -> Iterator[Document | InputError]:
    """Yield each document of a stream, or an :class:`InputError` for one that does not parse.

    Documents are parsed separately, so one broken document does not hide the others.
    """
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            body = json.loads(text)
        except RecursionError:
            yield InputError("document nested too deeply (refused)", file=file, document="#1")
            return
        except json.JSONDecodeError as error:
            # Flow-style YAML also starts with a brace; let the YAML parser have a go before failing.
            try:
                body = yaml.load(text, Loader=_Loader)
            except (yaml.YAMLError, RecursionError):
                yield InputError(
                    f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}", file=file, document="#1"
                )
                return
            # Only YAML has aliases; plain JSON cannot refer to itself, so it skips this walk.
            try:
                _check_structure(body, file, "#1", max(MAX_NODES_PER_DOCUMENT, len(text)))
            except InputError as structure_error:
                yield structure_error
                return
        yield Document(body, file, 1)
        return
    index = 0
    for line_offset, piece in _split_documents(text):
        index += 1
        try:
            body = yaml.load(piece, Loader=_Loader)
        except yaml.YAMLError as error:
            yield InputError(_yaml_error(error, line_offset), file=file, document=f"#{index}")
            continue
        except RecursionError:
            yield InputError("document nested too deeply (refused)", file=file, document=f"#{index}")
            continue
        try:
            _check_structure(body, file, f"#{index}", max(MAX_NODES_PER_DOCUMENT, len(piece)))
        except InputError as error:
            yield error
            continue
        yield Document(body, file, index)


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
            yield Document(item, document.file, document.index, position)
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
    if len(data) > limit:
        raise InputError(f"input larger than {limit // (1024 * 1024)} MiB (refused)", file=path)
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


def load_objects(path: str, *, recursive: bool = False) -> Iterator[Document | InputError]:
    """Every object in FILE|DIR|-: documents, List items flattened, empty documents skipped.

    Unparseable documents are yielded as :class:`InputError` so a caller can report them and go on.
    """
    for file in iter_input_files(path, recursive=recursive):
        try:
            text = read_text(file)
        except InputError as error:
            yield error
            continue
        for document in iter_documents(text, file):
            if isinstance(document, InputError):
                yield document
                continue
            if document.body is None:
                continue
            try:
                yield from _flatten(document)
            except InputError as error:
                yield error
