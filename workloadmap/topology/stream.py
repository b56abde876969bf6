"""Reading a JSON NodeList or PodList item by item, keeping only the fields the cluster model reads.

``kubectl get nodes -o json`` prints about 11 KB per node (images, managedFields, annotations,
addresses, nodeInfo ...), of which the readers in :mod:`.kubernetes` use a few hundred bytes; a
cluster of 100,000 nodes is a 1.1 GB file that ``json.load`` turns into 4.5 GB of objects. A
topology file that is one JSON object is therefore read here in chunks of :data:`CHUNK_BYTES`:
its members are decoded one by one, the ``items`` array item by item (the standard library's
``JSONDecoder.raw_decode`` over a sliding text buffer), and each ``Node`` or ``Pod`` item is cut
down at once to :data:`NODE_FIELDS` / :data:`POD_FIELDS` (an item without a kind, as raw API
lists print them, to both; an item of another kind is kept whole), the strings of its labels and
allocatable shared with the items before.

Files under :data:`STREAM_ABOVE` bytes are parsed whole: ``json.loads`` shares every key string
across the document and has no per-item cost, so below that size it is faster and, held text
included, not larger. Standard input and pipes, whose size is unknown, are streamed. What is dropped is never
read, so the cluster model and every error it raises are the same as from the whole document.

The guarantees of the whole-file reader hold: the same values (NaN, Infinity and over-long
integers refused, :func:`~workloadmap.loader.raw_decode_json`), the input size limit, a list
length limit on ``items``, nesting too deep refused, and bad JSON reported in one line naming the
file, the item (``#1 items[12]``), the line and the column. One value (an item, or another member
of the object) is bounded by :data:`MAX_VALUE_BYTES`, so a hostile string cannot hold the buffer.
A file that is not valid JSON but fits in the first chunk is handed back as text, for the YAML
reader (flow-style YAML starts with a brace too).
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ..budgets import active as active_budgets
from ..budgets import check as check_budget
from ..documents import decode_text
from ..errors import BudgetError, InputError, InputNotFoundError, TopologyError
from ..loader import (
    LIMIT_FLAGS,
    TOPOLOGY_LIMITS,
    Limits,
    in_force,
    parse_yaml,
    paused_gc,
    raise_hint,
    raw_decode_json,
    size_text,
)

__all__ = [
    "CHUNK_BYTES",
    "STREAM_ABOVE",
    "MAX_VALUE_BYTES",
    "NODE_FIELDS",
    "POD_FIELDS",
    "SHARED",
    "SHARED_KEYS",
    "TopologyInput",
    "prune_item",
    "read_topology_input",
]

CHUNK_BYTES = 1024 * 1024
"""Bytes read at a time."""

STREAM_ABOVE = 128 * 1024 * 1024
"""Regular files from this size on are streamed; smaller ones are parsed whole. Parsed whole, a
file costs its text twice (bytes, then str) and every object: for 60,000 pods as kubectl prints
them (152 MB) that is 820 MiB where streamed it is 590; a NodeList of 100,000 generated nodes
(70 MB) is faster and smaller parsed whole."""

MAX_VALUE_BYTES = 64 * 1024 * 1024
"""The largest one item (or other member of the object) may be: 64 MiB (no one Node or Pod comes near)."""

SHARED_KEYS = "keys"
"""Keep a mapping whole, its keys shared with the items before whose keys were the same (labels)."""
SHARED = "shared"
"""Keep a mapping whole, keys and values shared likewise (allocatable and capacity repeat across nodes)."""

Fields = dict[str, "Fields | str | None"]
"""Which keys of a mapping to keep: ``None`` keeps the value whole, :data:`SHARED_KEYS` and
:data:`SHARED` keep it whole with its strings shared, a mapping cuts it down further (a list under
a mapping has each of its mappings cut down so)."""

_CONDITION: Fields = {"type": None, "status": None}
_CONTAINER: Fields = {"resources": None, "restartPolicy": None}

NODE_FIELDS: Fields = {
    "apiVersion": None,
    "kind": None,
    "metadata": {"name": None, "namespace": None, "labels": SHARED_KEYS},
    "spec": {"taints": None, "unschedulable": None},
    "status": {"allocatable": SHARED, "capacity": SHARED, "conditions": _CONDITION},
}
"""What :func:`~workloadmap.topology.kubernetes.nodes_from_documents` reads of a Node."""

POD_FIELDS: Fields = {
    "apiVersion": None,
    "kind": None,
    "metadata": {"name": None, "namespace": None},
    "spec": {
        "nodeName": None,
        "containers": _CONTAINER,
        "initContainers": _CONTAINER,
        "resources": None,
        "overhead": None,
        "resourceClaims": None,
    },
    "status": {"phase": None},
}
"""What :func:`~workloadmap.topology.kubernetes.apply_pods` reads of a Pod (its effective request)."""


def _union(first: Fields, second: Fields) -> Fields:
    merged: Fields = dict(first)
    for key, value in second.items():
        if key not in merged or merged[key] == value:
            merged[key] = value
            continue
        current = merged[key]
        merged[key] = _union(current, value) if isinstance(current, dict) and isinstance(value, dict) else None
    return merged


_ITEM_FIELDS: dict[str, Fields] = {"Node": NODE_FIELDS, "Pod": POD_FIELDS}
_UNTYPED_FIELDS = _union(NODE_FIELDS, POD_FIELDS)


def _shared(value: Any, strings: dict[tuple, tuple], values_too: bool) -> Any:
    """A mapping whose keys (and values) are the objects of an earlier item's equal mapping.

    Each decoded item has its own copy of every string; 100,000 nodes carrying the same 30 label
    keys would hold 3,000,000 strings where 30 do. Keys (JSON: always strings) and values (when
    all strings: ``1 == True`` must not merge) are shared a whole tuple at a time, which costs a
    few C calls per mapping.
    """
    if type(value) is not dict:
        return value
    keys = tuple(value)
    keys = strings.setdefault(keys, keys)
    values = tuple(value.values())
    if values_too and set(map(type, values)) <= _STRING:
        values = strings.setdefault(values, values)
    return dict(zip(keys, values, strict=True))


_STRING = {str}


def _cut(value: Any, fields: Fields, strings: dict[tuple, tuple]) -> Any:
    if type(value) is dict:
        kept = {}
        for key, inner in fields.items():
            if key in value:
                found = value[key]
                if inner is None:
                    kept[key] = found
                elif inner is SHARED_KEYS or inner is SHARED:
                    kept[key] = _shared(found, strings, inner is SHARED)
                else:
                    assert isinstance(inner, dict)
                    kept[key] = _cut(found, inner, strings)
        return kept
    if type(value) is list:
        return [_cut(entry, fields, strings) if type(entry) is dict else entry for entry in value]
    return value  # a wrong type stays, for the reader to name


def prune_item(item: Any, strings: dict[tuple, tuple] | None = None) -> Any:
    """An item of a List with only the fields the readers use (see the module docstring).

    Args:
        item: the decoded item.
        strings: strings already kept, shared with this item's (one mapping for a whole list).
    """
    if not isinstance(item, dict):
        return item
    strings = {} if strings is None else strings
    kind = item.get("kind")
    if kind is None:
        return _cut(item, _UNTYPED_FIELDS, strings)
    fields = _ITEM_FIELDS.get(kind) if isinstance(kind, str) else None
    return item if fields is None else _cut(item, fields, strings)


@dataclass
class TopologyInput:
    """A topology file as read: its text, or (one JSON object, streamed) its one document."""

    text: str | None = None
    document: Any = None


class _SyntaxFailure(Exception):
    """Bad JSON (as opposed to a refused value or a limit): the YAML reader may still read the file."""

    def __init__(self, error: TopologyError) -> None:
        super().__init__(error.message)
        self.error = error


_WHITESPACE = re.compile(r"[ \t\n\r]*")


class _Stream:
    """A sliding text buffer over a binary stream, with what was consumed counted in lines."""

    def __init__(self, handle: BinaryIO | _TextAsBytes, first: bytes, file: str, limits: Limits) -> None:
        self.handle = handle
        self.file = file
        self.limits = limits
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self.read_bytes = 0
        self.buffer = ""
        self.position = 0
        self.line = 1  # of buffer[0]
        self.column = 1  # of buffer[0]
        self.eof = False
        self._append(first)

    def _append(self, data: bytes) -> None:
        self.read_bytes += len(data)
        if self.read_bytes > self.limits.max_bytes:
            limit = size_text(self.limits.max_bytes)
            raise TopologyError(f"input larger than {limit} (refused; {raise_hint(LIMIT_FLAGS['max_bytes'])})")
        try:
            text = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as error:
            raise TopologyError(f"not UTF-8 text (byte {self.read_bytes - len(data) + error.start})") from None
        if self.position:
            consumed = self.position
            newlines = self.buffer.count("\n", 0, consumed)
            if newlines:
                self.line += newlines
                self.column = consumed - self.buffer.rfind("\n", 0, consumed)
            else:
                self.column += consumed
            self.buffer = self.buffer[consumed:] + text
            self.position = 0
        else:
            self.buffer += text

    def more(self, at_least: int = CHUNK_BYTES) -> None:
        """Read another chunk (at least ``at_least`` bytes), or note the end of the input."""
        try:
            data = self.handle.read(max(CHUNK_BYTES, at_least))
        except OSError as error:
            raise TopologyError(f"cannot read: {error.strerror or error}") from None
        if not data:
            self.eof = True
        self._append(data)

    def where(self, index: int) -> str:
        newlines = self.buffer.count("\n", 0, index)
        if newlines:
            column = index - self.buffer.rfind("\n", 0, index)
            return f"line {self.line + newlines} column {column}"
        return f"line {self.line} column {self.column + index}"

    def invalid(self, index: int, problem: str, document: str) -> _SyntaxFailure:
        return _SyntaxFailure(TopologyError(f"invalid JSON at {self.where(index)}: {problem}", document=document))

    def peek(self) -> str:
        """The next character after whitespace ("" at the end of the input)."""
        while True:
            match = _WHITESPACE.match(self.buffer, self.position)
            self.position = match.end() if match else self.position
            if self.position < len(self.buffer):
                return self.buffer[self.position]
            if self.eof:
                return ""
            self.more()

    def value(self, document: str, field: str | None = None) -> Any:
        """Decode the value at the position, reading on while the buffer cuts it off."""
        self.peek()
        while True:
            start = self.position
            try:
                value, end = raw_decode_json(self.buffer, start)
            except json.JSONDecodeError as error:
                pending = len(self.buffer) - start
                if self.eof:
                    raise self.invalid(error.pos, error.msg, document) from None
                if pending > MAX_VALUE_BYTES:
                    raise TopologyError(
                        f"not valid JSON within its first {MAX_VALUE_BYTES // (1024 * 1024)} MiB "
                        f"(at {self.where(error.pos)}: {error.msg})",
                        document=document,
                        field=field,
                    ) from None
                self.more(pending)  # doubles the buffer: a long value is decoded a bounded number of times
                continue
            except InputError as error:
                raise TopologyError(error.message, document=document, field=field) from None
            if end == len(self.buffer) and not self.eof:
                self.more(len(self.buffer) - start)  # a number may go on in the next chunk
                continue
            if end - start > MAX_VALUE_BYTES:
                raise TopologyError(
                    f"a value larger than {MAX_VALUE_BYTES // (1024 * 1024)} MiB (refused)",
                    document=document,
                    field=field,
                )
            self.position = end
            return value

    def expect(self, characters: str, problem: str, document: str) -> str:
        found = self.peek()
        if not found or found not in characters:
            raise self.invalid(self.position, problem, document)
        self.position += 1
        return found

    def items(self) -> list[Any]:
        """The ``items`` array (the position is at its ``[``), each item cut down as decoded."""
        self.position += 1
        items: list[Any] = []
        if self.peek() == "]":
            self.position += 1
            return items
        limit = self.limits.max_list_items
        node_budget = active_budgets().nodes
        nodes = 0
        strings: dict[tuple, tuple] = {}
        while True:
            where = f"#1 items[{len(items)}]"
            if len(items) >= limit:
                raise TopologyError(f"a list of more than {limit} items (refused)", document="#1", field="items")
            item = prune_item(self.value(where), strings)
            if type(item) is dict and item.get("kind") == "Node":
                nodes += 1
                if nodes > node_budget:  # refused while reading, not after holding them all
                    try:
                        check_budget("nodes", nodes, "nodes (List items)", field="items")
                    except BudgetError as error:
                        raise error.located(document="#1") from None
            items.append(item)
            if self.expect(",]", "Expecting ',' delimiter", where) == "]":
                return items

    def document(self) -> dict[str, Any]:
        """The one top-level object (the position is at its ``{``)."""
        self.position += 1
        body: dict[str, Any] = {}
        if self.peek() == "}":
            self.position += 1
        else:
            while True:
                if self.peek() != '"':
                    raise self.invalid(self.position, "Expecting property name enclosed in double quotes", "#1")
                key = self.value("#1")
                self.expect(":", "Expecting ':' delimiter", "#1")
                if key == "items" and self.peek() == "[":
                    body[key] = self.items()
                else:
                    body[key] = self.value("#1", field=key)
                if self.expect(",}", "Expecting ',' delimiter", "#1") == "}":
                    break
        if self.peek():
            raise self.invalid(self.position, "Extra data", "#1")
        return body


def _open(path: str) -> BinaryIO | _TextAsBytes:
    if path == "-":
        binary: BinaryIO | None = getattr(sys.stdin, "buffer", None)
        return binary if binary is not None else _TextAsBytes(sys.stdin)
    if not Path(path).exists():
        raise InputNotFoundError("no such file", file=path)
    if Path(path).is_dir():
        raise TopologyError("is a directory, expected a file", file=path)
    try:
        return open(path, "rb")  # noqa: SIM115 - closed by the caller
    except OSError as error:
        raise TopologyError(f"cannot read: {error.strerror or error}", file=path) from None


class _TextAsBytes:
    """A text stream (standard input replaced in tests) read as UTF-8 bytes."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def read(self, size: int) -> bytes:
        return str(self.stream.read(size)).encode()

    def close(self) -> None:
        """Standard input stays open."""


def _small_file(handle: Any) -> bool:
    """A regular file under :data:`STREAM_ABOVE` bytes (standard input and pipes are not)."""
    try:
        status = os.fstat(handle.fileno())
    except (AttributeError, OSError, ValueError):  # a stream without a file descriptor
        return False
    return stat.S_ISREG(status.st_mode) and status.st_size < STREAM_ABOVE


def _starts_object(first: bytes) -> bool:
    return first.lstrip(b"\xef\xbb\xbf").lstrip(b" \t\r\n").startswith(b"{")


def _as_text(data: bytes, file: str, limits: Limits) -> str:
    try:
        return decode_text(data, file, limit=limits.max_bytes)
    except InputError as error:
        raise TopologyError(error.message, file=file) from None


def read_topology_input(path: str, *, limits: Limits = TOPOLOGY_LIMITS) -> TopologyInput:
    """Read a topology file (``-`` for standard input): streamed when it is one large JSON object.

    Returns:
        the document (one JSON object, its ``Node``/``Pod`` items cut down), or the text of any
        other file (YAML, a Slurm file, a JSON array, flow-style YAML) for the whole-file readers.

    Raises:
        InputNotFoundError: no such file.
        TopologyError: unreadable, a directory, over the size limit, not UTF-8, bad JSON (naming
            the item, the line and the column), a refused value, or too many items.
        BudgetError: more ``Node`` items than the node budget (counted as they are read).
    """
    limits = in_force(limits)
    handle = _open(path)
    try:
        try:
            first = handle.read(CHUNK_BYTES)
        except OSError as error:
            raise TopologyError(f"cannot read: {error.strerror or error}", file=path) from None
        if _small_file(handle) or not _starts_object(first):
            rest = handle.read(limits.max_bytes + 1 - len(first)) if len(first) >= CHUNK_BYTES else b""
            return TopologyInput(text=_as_text(first + rest, path, limits))
        stream = _Stream(handle, first, path, limits)
        try:
            with paused_gc():
                return TopologyInput(document=stream.document())
        except _SyntaxFailure as failure:
            if stream.read_bytes == len(first) < CHUNK_BYTES:  # all of it is at hand: YAML may read it
                text = _as_text(first, path, limits)
                try:
                    parse_yaml(text)
                except InputError:
                    pass  # neither: the JSON error, which names the item, is the one to give
                else:
                    return TopologyInput(text=text)
            raise failure.error.located(file=path) from None
        except (TopologyError, BudgetError) as error:
            raise error.located(file=path) from None
    except OSError as error:
        raise TopologyError(f"cannot read: {error.strerror or error}", file=path) from None
    finally:
        if path != "-":
            handle.close()
