"""Changed manifests written as their input plus the changed lines (``wmap alter``, ``suspend``, ``resume``).

A changed YAML document is read again with ruamel.yaml's round-trip loader, which keeps comments,
key order, quoting, flow style and block scalars; only the values that differ between the object
as read and as changed are set, added or removed in it, and the document is written back in the
file's own indentation. Every other document, and everything between documents, is copied byte for
byte. A JSON file stays JSON, in its own indentation. New strings are styled by
:func:`workloadmap.yaml_typing.scalar_style` (the one quoting rule of every YAML writer of wmap),
so go-yaml v2 and v3 read them back as strings.

A document whose rewrite would not read back as the changed object (a construct ruamel lays out
differently) is written afresh instead, with a note: the values are what count.

ruamel.yaml is imported here only, and this module only by ``wmap alter``'s commands.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from workloadmap.documents import document_spans, load_yaml_text
from workloadmap.yaml_typing import scalar_style

__all__ = ["SourceFile", "render_files"]


@dataclass
class SourceFile:
    """One input file's text and, per document position, the object as read and as it is to be written.

    Attributes:
        name: the file (``-`` for standard input).
        text: its text as read.
        changed: ``(document index, List item or None) -> (object as read, object to write)``.
    """

    name: str
    text: str
    changed: dict[tuple[int, int | None], tuple[Any, Any]] = field(default_factory=dict)


def _same(left: Any, right: Any) -> bool:
    """Equal values of equal types (``1``, ``1.0`` and ``true`` are three different YAML values)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_same(left[key], right[key]) for key in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))
    return bool(left == right)


def _fresh(value: Any) -> Any:
    """A new value as ruamel writes it: containers as round-trip ones, strings styled for every reader."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString, SingleQuotedScalarString

    if isinstance(value, dict):
        mapping = CommentedMap()
        for key, item in value.items():
            mapping[key] = _fresh(item)
        return mapping
    if isinstance(value, list):
        return CommentedSeq(_fresh(item) for item in value)
    if isinstance(value, str):
        style = scalar_style(value, literal_blocks=True)
        if style == "|":
            return LiteralScalarString(value)
        if style == "'":
            return SingleQuotedScalarString(value)
        if style == '"':
            return DoubleQuotedScalarString(value)
    return value


def _sync(node: Any, old: Any, new: Any) -> bool:
    """Make the round-trip ``node`` (holding ``old``) hold ``new``, touching only what differs.

    False when ``node`` cannot be changed in place (another type, a list that changed other than
    by appending): the caller replaces it.
    """
    if isinstance(old, dict) and isinstance(new, dict) and isinstance(node, MutableMapping):
        for key in [key for key in node if key not in new]:
            del node[key]
        for key, value in new.items():
            if key in old and key in node:
                if _same(old[key], value) or _sync(node[key], old[key], value):
                    continue
            node[key] = _fresh(value)
        return True
    if isinstance(old, list) and isinstance(new, list) and isinstance(node, list) and len(node) == len(old):
        if len(new) < len(old):
            return False  # items removed: which ones is not known, the list is written anew
        for index, (before, after) in enumerate(zip(old, new, strict=False)):
            if not _same(before, after) and not _sync(node[index], before, after):
                node[index] = _fresh(after)
        node.extend(_fresh(item) for item in new[len(old) :])
        return True
    return False


_KEY_LINE = re.compile(r"^( *)[^\s#-][^#\n]*:[ \t]*(#.*)?$")
_ITEM_LINE = re.compile(r"^( *)- ")


def _indents(text: str) -> tuple[int, int, int]:
    """The file's ``(mapping, sequence, offset)`` indentation as ruamel's ``indent()`` takes it.

    Read from the first nested key (the mapping step) and the lists under keys: ``- `` at the key's
    column (kubectl's way, offset 0) or indented under it (offset 2 with sequence 4), whichever
    most of the document's lists use (ruamel writes one way per document).
    """
    lines = text.splitlines()
    mapping = None
    offsets: Counter[int] = Counter()
    for line, following in zip(lines, lines[1:], strict=False):
        key = _KEY_LINE.match(line)
        if key is None or not following.strip():
            continue
        item = _ITEM_LINE.match(following)
        below = len(following) - len(following.lstrip(" "))
        if item is not None:
            offsets[max(0, len(item.group(1)) - len(key.group(1)))] += 1
        elif mapping is None and below > len(key.group(1)):
            mapping = below - len(key.group(1))
    mapping = mapping or 2
    offset = offsets.most_common(1)[0][0] if offsets else 0
    return mapping, max(mapping, offset + 2), offset


def _yaml(text: str) -> Any:
    from ruamel.yaml import YAML

    writer = YAML(typ="rt")
    writer.preserve_quotes = True
    writer.width = 4096  # never fold a long string the input kept on one line
    mapping, sequence, offset = _indents(text)
    writer.indent(mapping=mapping, sequence=sequence, offset=offset)
    return writer


def _reads_back(text: str, expected: Any) -> bool:
    try:
        documents = load_yaml_text(text)
    except Exception:  # whatever the rewrite holds, it must parse as the changed object or it is not used
        return False
    return len(documents) == 1 and _same(documents[0].body, expected)


def _expected(body: Any, changes: dict[int | None, tuple[Any, Any]]) -> Any:
    """The document as it is to be written: ``body`` (as read) with the changed object or List items."""
    for item, (_old, new) in changes.items():
        if item is None:
            body = new
        else:
            body["items"][item - 1] = new
    return body


def _rewrite_yaml(
    piece: str, changes: dict[int | None, tuple[Any, Any]], fresh: Callable[[Any], str]
) -> tuple[str, bool]:
    """The document ``piece`` with ``changes`` made, and whether its layout was kept (else written by ``fresh``)."""
    match = re.search(r"^[ \t]*[^ \t#\r\n]", piece, re.MULTILINE)
    start = match.start() if match else 0
    head, body = piece[:start], piece[start:]  # the rest of a `---` line and leading comments stay as they are
    expected = _expected(load_yaml_text(body)[0].body, changes)
    writer = _yaml(body)
    try:
        tree = writer.load(body)
    except Exception:  # ruamel refuses what wmap's reader takes (a tag it constructs, `!!timestamp x`)
        return head + fresh(expected), False
    kept = True
    for item, (old, new) in changes.items():
        if item is None:
            kept = kept and _sync(tree, old, new)
        elif not _sync(tree["items"][item - 1], old, new):
            tree["items"][item - 1] = _fresh(new)
    if kept:
        stream = io.StringIO()
        writer.dump(tree, stream)
        written = stream.getvalue()
        if not body.endswith("\n"):
            written = written.rstrip("\n")  # a file without a final newline keeps it that way
        for candidate in (_restored(body, written), written):
            if _reads_back(candidate, expected):
                return head + candidate, True
    return head + fresh(expected), False


def _restored(original: str, written: str) -> str:
    """``written`` with each run of lines that only moved sideways taken back from ``original``.

    ruamel writes one list indentation per document; a file that mixes two (``- `` at the key's
    column in one place, indented in another) gets its own indentation back for every line whose
    content did not change. The caller checks that the result still reads as the changed object.
    """
    import difflib

    before, after = original.splitlines(keepends=True), written.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(
        None, [line.strip() for line in before], [line.strip() for line in after], autojunk=False
    )
    # For each written line, how far the original moved it sideways (lines of equal content only).
    shift: dict[int, int] = {}
    for operation, first, _last, start, end in matcher.get_opcodes():
        if operation == "equal":
            for offset in range(end - start):
                shift[start + offset] = _indent(before[first + offset]) - _indent(after[start + offset])
    lines: list[str] = []
    for operation, first, last, start, end in matcher.get_opcodes():
        if operation == "equal":
            lines.extend(before[first:last])
            continue
        for index in range(start, end):  # a new or changed line moves as its neighbour at its depth did
            lines.append(_moved(after[index], _neighbour_shift(after, shift, index)))
    text = "".join(lines)
    if written.endswith("\n") and not text.endswith("\n"):
        text += "\n"
    return text


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _neighbour_shift(lines: list[str], shift: dict[int, int], index: int) -> int:
    """The sideways move of the nearest unchanged line at ``index``'s depth (before it, else after it)."""
    depth = _indent(lines[index])
    for candidates in (range(index - 1, -1, -1), range(index + 1, len(lines))):
        for other in candidates:
            if other in shift and _indent(lines[other]) == depth and lines[other].strip():
                return shift[other]
    return 0


def _moved(line: str, by: int) -> str:
    if by >= 0:
        return " " * by + line
    return line[min(-by, _indent(line)) :]


def _json_indent(text: str) -> int:
    second = next((line for line in text.splitlines()[1:] if line.strip()), "")
    return len(second) - len(second.lstrip(" ")) or 2


def _rewrite_json(text: str, changes: dict[int | None, tuple[Any, Any]]) -> str:
    body = _expected(json.loads(text), changes)
    ending = "\n" if text.endswith("\n") else ""
    return json.dumps(body, indent=_json_indent(text), ensure_ascii=False) + ending


def render_files(files: list[SourceFile], fresh: Callable[[Any], str], note: Callable[[str], None]) -> str:
    """Every file's text with its changed documents rewritten, the files joined as one YAML stream.

    ``fresh(obj)`` writes a document afresh (when a rewrite would not read back); ``note`` tells the user so.
    """
    parts = []
    for source in files:
        by_document: dict[int, dict[int | None, tuple[Any, Any]]] = {}
        for (index, item), change in source.changed.items():
            by_document.setdefault(index, {})[item] = change
        text = source.text
        if text.lstrip().startswith(("{", "[")):
            parts.append(_rewrite_json(text, by_document.get(1, {})) if by_document else text)
            continue
        pieces = []
        last = 0
        for number, (_line, begin, end) in enumerate(document_spans(text), start=1):
            if number not in by_document:
                continue
            written, kept = _rewrite_yaml(text[begin:end], by_document[number], fresh)
            if not kept:
                note(f"note: {source.name}, document #{number}: written afresh (its layout could not be kept)")
            pieces.append(text[last:begin] + written)
            last = end
        pieces.append(text[last:])
        parts.append("".join(pieces))
    return _joined(parts)


def _joined(parts: list[str]) -> str:
    """Files one after another as one stream: a ``---`` between two, each ending its last line."""
    out = []
    for position, part in enumerate(parts):
        if position and not part.lstrip().startswith("---"):
            out.append("---\n")
        out.append(part if part.endswith("\n") or not part else part + "\n")
    return "".join(out)
