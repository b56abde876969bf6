"""Text formatting for the command line: kubectl-style tables, trees, machine dumps."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import yaml

from workloadmap.errors import WorkloadMapError
from workloadmap.yaml_typing import scalar_style

from . import terminal
from .escape import shown

# libyaml's emitter writes what PyYAML's pure-Python one does, about ten times faster.
_EMITTER: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_EMITTER):
    """Strings styled by the one quoting rule: what kubectl reads back is the same string."""


class _ManifestDumper(_EMITTER):
    """Manifests for `kubectl apply`: the same rule, multi-line strings as literal blocks."""


def _string(dumper: Any, value: str) -> Any:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=scalar_style(value))


def _manifest_string(dumper: Any, value: str) -> Any:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=scalar_style(value, literal_blocks=True))


_Dumper.add_representer(str, _string)
_ManifestDumper.add_representer(str, _manifest_string)


def dump(data: Any, output: str) -> str:
    """Plain json/yaml dumps: what `-o json|yaml` prints, byte for byte.

    Every string is styled by :func:`workloadmap.yaml_typing.scalar_style`: one that kubectl's
    YAML reader (go-yaml) would read as a boolean, a number or null when plain (``y``, ``1e3``,
    ``0o17``) is quoted, so the output reads back unchanged.
    """
    if output == "json":
        return json_text(data) + "\n"
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=False)


def json_text(data: Any, depth: int = 0) -> str:
    """``json.dumps(data, indent=2)``, byte for byte, about twice as fast.

    With an indent, the standard library leaves its C encoder for the pure-Python one, which makes a
    generator per container. This writes the same text in one recursive pass: strings through the C
    escaper ``json.dumps`` itself uses, numbers through ``int.__repr__`` and ``float.__repr__``,
    ``NaN`` and ``Infinity`` as it writes them; ``depth`` indents the text as an item nested that
    deep (the first line excepted). Anything else is refused with ``json.dumps``'s TypeError.
    ``tests/cli/test_json_text.py`` checks it against ``json.dumps``.
    """
    chunks: list[str] = []
    _write(data, chunks, depth)
    return "".join(chunks)


_ESCAPE = json.encoder.encode_basestring_ascii
_NEWLINES = ["\n" + "  " * depth for depth in range(64)]


def _newline(depth: int) -> str:
    return _NEWLINES[depth] if depth < len(_NEWLINES) else "\n" + "  " * depth


def _scalar(value: Any) -> str | None:
    """The JSON text of a scalar, None for a container."""
    cls = value.__class__
    if cls is str:
        return _ESCAPE(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if cls is int:
        return int.__repr__(value)
    if cls is float:
        return _float(value)
    if isinstance(value, (dict, list, tuple)):
        return None
    if isinstance(value, str):
        return _ESCAPE(value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    raise TypeError(f"Object of type {cls.__name__} is not JSON serializable")


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == float("-inf"):
        return "-Infinity"
    return float.__repr__(value)


def _key(key: Any) -> str:
    """A key as ``json.dumps`` writes it (numbers, booleans and null become strings)."""
    if isinstance(key, str):
        return _ESCAPE(key)
    if isinstance(key, (int, float)) or key is None:  # bool is an int: true, false
        return _ESCAPE(_scalar(key) or "")
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


def _write(value: Any, chunks: list[str], depth: int) -> None:
    text = _scalar(value)
    if text is not None:
        chunks.append(text)
        return
    inner = _newline(depth + 1)
    if isinstance(value, dict):
        if not value:
            chunks.append("{}")
            return
        lead = "{" + inner
        after = "," + inner
        for key, item in value.items():
            key_text = _ESCAPE(key) if key.__class__ is str else _key(key)
            text = _scalar(item)
            if text is not None:
                chunks.append(f"{lead}{key_text}: {text}")
            else:
                chunks.append(f"{lead}{key_text}: ")
                _write(item, chunks, depth + 1)
            lead = after
        chunks.append(_newline(depth) + "}")
        return
    if not value:
        chunks.append("[]")
        return
    lead = "[" + inner
    after = "," + inner
    for item in value:
        text = _scalar(item)
        if text is not None:
            chunks.append(lead + text)
        else:
            chunks.append(lead)
            _write(item, chunks, depth + 1)
        lead = after
    chunks.append(_newline(depth) + "]")


def dump_all(objects: Iterable[Any]) -> str:
    """Kubernetes objects as a YAML stream (``---`` between them), with the C emitter."""
    return yaml.dump_all(objects, Dumper=_Dumper, sort_keys=False, default_flow_style=False)


def dump_manifests(objects: Iterable[Any]) -> str:
    """Manifests to apply (alter, suspend, resume): a YAML stream, Unicode as it is, scripts as literal blocks."""
    return yaml.dump_all(objects, Dumper=_ManifestDumper, sort_keys=False, default_flow_style=False, allow_unicode=True)


def as_list(items: list[dict[str, Any]]) -> Any:
    """One object stays an object; several become a kubectl-style List."""
    if len(items) == 1:
        return items[0]
    return {"kind": "List", "apiVersion": "v1", "items": items}


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    key: Sequence[int] = (0,),
    optional: Sequence[int] = (),
    free_text_last: bool = False,
    fit: bool = True,
    indent: int = 0,
    wrap_last: bool = False,
    header: bool = True,
) -> str:
    """A borderless kubectl table: upper-case headers, columns padded with three spaces.

    Values get ``-`` for spaces, except in a last free-text column (a REASON or MESSAGE, as
    `kubectl get events` prints it) when ``free_text_last`` is set. With ``fit`` the table is
    made to fit the terminal's width (less ``indent`` columns), as kubectl's columns would be
    chosen for it: the ``key`` columns (what names a row: NAME, NAMESPACE) are never cut; the
    free-text column gives way first, then the ``optional`` columns are left out (in that order:
    ``-o wide``, which passes ``fit=False``, shows them), then the widest other cells are shortened
    with an ellipsis; only when the key columns alone are wider than the terminal do they wrap
    onto lines of their own. With ``wrap_last`` the free-text column wraps instead of being cut.
    ``header`` False leaves the header line out (``--no-headers``).
    """

    def cell(value: Any, last: bool) -> str:
        if value in (None, ""):
            return "<none>"
        return str(value) if last and free_text_last else str(value).replace(" ", "-")

    rows = [[cell(value, index == len(row) - 1) for index, value in enumerate(row)] for row in rows]
    columns = list(range(len(headers)))
    widths = [len(header_text) if header else 0 for header_text in headers]
    for row in rows:
        for index, value in enumerate(row):
            widths[index] = max(widths[index], len(value))
    screen = terminal.current()
    if fit and screen.width is not None:
        layout = _Layout(headers, widths, key, free_text_last, wrap_last)
        columns, widths = layout.fitted(screen.width - indent, optional)
    else:
        widths = [widths[index] for index in columns]
    last = columns[-1] if columns else -1
    lines = []
    heading = [list(headers)] if header else []
    for number, row in enumerate(heading + rows):
        cells = []
        for position, index in enumerate(columns):
            value, width = row[index], widths[position]
            if index in key and len(value) > width:
                cells.append(_broken(value, width))
            elif index == last and wrap_last and number >= len(heading):
                cells.append(_wrapped(value, width))
            else:
                cells.append([terminal.shorten(value, width, screen.ellipsis)])
        for line in range(max(len(parts) for parts in cells) if cells else 0):
            parts = [parts[line] if line < len(parts) else "" for parts in cells]
            lines.append("   ".join(part.ljust(widths[position]) for position, part in enumerate(parts)).rstrip())
    return "\n".join(lines) + "\n" if lines else ""


_BREAKS = re.compile(r"(?<=[/.\-_:])")


def _broken(name: str, width: int) -> list[str]:
    """A name too wide for its column, on lines of ``width``: broken after ``/ - . _ :`` where it can."""
    width = max(width, 1)
    lines = [""]
    for piece in _BREAKS.split(name):
        while len(piece) > width:
            room = width - len(lines[-1])
            lines[-1] += piece[:room]
            piece = piece[room:]
            lines.append("")
        if len(lines[-1]) + len(piece) > width:
            lines.append("")
        lines[-1] += piece
    return [line for line in lines if line] or [name]


def _wrapped(text: str, width: int) -> list[str]:
    import textwrap  # only for table cells wider than their column

    return textwrap.wrap(text, width=max(width, 1), break_on_hyphens=False) or [text]


_MIN_COLUMN = 8
"""Columns are not shortened below this (or their header), so a cut cell still says something."""


class _Layout:
    """The columns a table shows at a width, and how wide each is (see :func:`table`)."""

    def __init__(
        self, headers: Sequence[str], widths: list[int], key: Sequence[int], free_text_last: bool, wrap_last: bool
    ) -> None:
        self.widths = widths
        self.key = set(key)
        self.free_text = len(widths) - 1 if free_text_last and widths else None
        self.floors = [
            current if index in self.key else max(len(header), min(_MIN_COLUMN, current))
            for index, (header, current) in enumerate(zip(headers, widths, strict=True))
        ]
        if self.free_text is not None:
            # A reason or message is read, not copied: it gives way first (down to 12 columns, or to 24
            # when it wraps onto lines of its own).
            self.floors[-1] = min(widths[-1], max(self.floors[-1], 24 if wrap_last else 12))

    def fitted(self, width: int, optional: Sequence[int]) -> tuple[list[int], list[int]]:
        """The columns shown (indexes) and their widths."""
        widths = dict(enumerate(self.widths))

        def excess() -> int:
            return sum(widths.values()) + 3 * (len(widths) - 1) - width

        if excess() > 0 and self.free_text is not None:
            widths[self.free_text] -= min(excess(), widths[self.free_text] - self.floors[self.free_text])
        for index in optional:
            if excess() <= 0 or len(widths) <= 1:
                break
            if index in widths and index not in self.key:
                del widths[index]
        while excess() > 0:
            candidates = [index for index, current in widths.items() if current > self.floors[index]]
            if not candidates:
                break
            widest = max(candidates, key=lambda index: widths[index])
            runner_up = max((widths[index] for index in candidates if index != widest), default=0)
            step = min(excess(), widths[widest] - max(runner_up, self.floors[widest]) or 1)
            widths[widest] -= step
        keys = [index for index in widths if index in self.key]
        if excess() > 0 and keys:
            # The last resort: the key columns wrap (the widest first), never below their header.
            for index in sorted(keys, key=lambda index: -widths[index]):
                widths[index] -= min(excess(), max(0, widths[index] - max(_MIN_COLUMN, 1)))
        shown = sorted(widths)
        return shown, [widths[index] for index in shown]


def tree_lines(
    nodes: Sequence[Any],
    label: Callable[[Any], str],
    children: Callable[[Any], Sequence[Any]],
    prefix: str = "",
) -> list[str]:
    """Render a tree with box-drawing branches; ``label(node)`` and ``children(node)`` describe it."""
    lines = []
    for index, node in enumerate(nodes):
        last = index == len(nodes) - 1
        lines.append(f"{prefix}{'└── ' if last else '├── '}{label(node)}")
        lines.extend(tree_lines(children(node), label, children, prefix + ("    " if last else "│   ")))
    return lines


def error(message: str) -> None:
    """An error line on stderr (control characters from inputs shown as escapes)."""
    _stderr(f"error: {shown(message)}")


def warn(message: str) -> None:
    """A warning or note on stderr (control characters from inputs shown as escapes)."""
    _stderr(shown(message))


def _stderr(message: str) -> None:
    stream = sys.stderr
    if stream is None:  # closed (`2>&-`): there is nowhere to say it
        return
    try:
        _safe_write(stream, terminal.paint_prefix(message, stream) + "\n")
        stream.flush()
    except OSError:
        pass  # a full or broken stderr: the exit code still tells


class OutputError(WorkloadMapError):
    """Standard output cannot be written: closed (``>&-``), a full disk (``> /dev/full``), an I/O error."""


def write(text: str) -> None:
    """Text on stdout, flushed (so a reader sees each block as it is written); machine output goes here.

    Raises:
        OutputError: standard output is closed or cannot take the text (one line, exit 1; a reader
            that went away, ``| head``, stays a ``BrokenPipeError``, which ends the command quietly).
    """
    stream = sys.stdout
    if stream is None:
        raise OutputError("cannot write the output: standard output is closed")
    try:
        _safe_write(stream, text)
        stream.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(f"cannot write the output to standard output: {error.strerror or error}") from None


def human(text: str, *, fit: bool = True) -> None:
    """Human output on stdout: lines fitted to the terminal, ASCII glyphs where needed, colour on a TTY.

    ``fit=False`` keeps every line whole: tables (which :func:`table` fits itself, cell by cell)
    and ``-o wide``.
    """
    screen = terminal.current()
    if fit:
        text = terminal.fit(text, screen.width)
    if screen.color:
        text = terminal.paint(text)
    if not screen.unicode:
        text = terminal.plain_glyphs(text)
    write(text)


def _safe_write(stream: Any, text: str) -> None:
    """Write ``text``; characters the stream's encoding lacks become escapes instead of a crash."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "ascii"
        stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
