"""What the terminal can show, and human output fitted to it: width, colour, glyphs, progress.

Only the command line knows about terminals. Human output (trees, tables, summaries) is rendered
with Unicode tree glyphs at any length; :func:`fit` then wraps each line that is wider than the
terminal under its own tree branch, :func:`plain_glyphs` swaps the glyphs for ASCII on a stream
that cannot encode them, and :func:`paint` colours verdicts and phases on a TTY.

* Width: ``$COLUMNS`` when set, else the real width of a TTY, else none (piped output is never
  wrapped, so ``grep`` sees whole lines).
* Colour: on a TTY only, never with ``$NO_COLOR`` set (https://no-color.org) or ``TERM=dumb``.
* Glyphs: ``├── └── │ …`` when the stream's encoding holds them, else ``|-- `-- | ...``.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

__all__ = ["Terminal", "current", "fit", "fit_line", "plain_glyphs", "paint", "progress", "ELLIPSIS"]

ELLIPSIS = "…"
_MIN_WIDTH = 20
"""Narrower than this, wrapping does more harm than good: lines are left as they are."""
_MIN_BODY = 16
"""A wrapped line keeps at least this many columns of text beside its tree prefix."""


@dataclass(frozen=True)
class Terminal:
    """What one output stream can show.

    Attributes:
        width: columns to fit lines in; None when there is no limit (a pipe without ``$COLUMNS``).
        color: whether to colour (a TTY without ``$NO_COLOR``).
        unicode: whether the stream's encoding holds the tree glyphs and the ellipsis.
    """

    width: int | None
    color: bool
    unicode: bool

    @property
    def ellipsis(self) -> str:
        """The character(s) that mark shortened text."""
        return ELLIPSIS if self.unicode else "..."

    @classmethod
    def of(cls, stream: IO[Any], environ: Any = None) -> Terminal:
        """Detect what ``stream`` can show (``environ`` defaults to ``os.environ``)."""
        env = os.environ if environ is None else environ
        tty = _isatty(stream)
        return cls(width=_width(stream, env, tty), color=_color(env, tty), unicode=_unicode(stream))


def _isatty(stream: IO[Any]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _width(stream: IO[Any], env: Any, tty: bool) -> int | None:
    columns = str(env.get("COLUMNS", "")).strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if tty:
        try:
            return os.get_terminal_size(stream.fileno()).columns or None
        except (AttributeError, ValueError, OSError):
            return None
    return None


def _color(env: Any, tty: bool) -> bool:
    if env.get("NO_COLOR"):
        return False
    return tty and env.get("TERM") != "dumb"


def _unicode(stream: IO[Any]) -> bool:
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        "├└│─…".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def current(stream: IO[Any] | None = None) -> Terminal:
    """The terminal of ``stream`` (standard output by default), detected now."""
    return Terminal.of(sys.stdout if stream is None else stream)


# -- fitting ---------------------------------------------------------------------------------

_PREFIX = re.compile(r"^[ │├└─]*")


def _continuation(prefix: str) -> str:
    """The prefix under a tree line: branches become the bar (or space) that runs on below them."""
    return prefix.replace("├", "│").replace("└", " ").replace("─", " ")


def _has_children(prefix: str, following: str | None) -> bool:
    below = _continuation(prefix)
    if following is None or not following.startswith(below):
        return False
    return following[len(below) : len(below) + 1] in ("├", "└")


def fit_line(line: str, width: int, *, following: str | None = None) -> list[str]:
    """One line wrapped to ``width`` columns; continuation lines stay under the line's tree branch.

    A tree line (``│   ├── label ...``) wraps with its label's text indented under the label, a
    bar drawn down to the node's children when ``following`` (the next line) is one of them. A
    plain line wraps with a two-space hanging indent. Words are never split at hyphens (node and
    domain names stay whole); a word longer than the line is broken.
    """
    if len(line) <= width or width < _MIN_WIDTH:
        return [line]
    prefix = _PREFIX.match(line).group(0)  # type: ignore[union-attr]
    below = _continuation(prefix)
    if _has_children(prefix, following):  # the bar runs on down to the line's children
        hanging = below + "│ "
    elif "│" in below or prefix != below:  # a tree line: continue two columns into its label
        hanging = below + "  "
    else:  # a plain or indented line: a deeper hanging indent sets it apart from the next item
        hanging = below + "    "
    if width - len(hanging) < _MIN_BODY:
        return [line]
    import textwrap  # only for lines wider than the terminal

    wrapper = textwrap.TextWrapper(
        width=width,
        initial_indent=prefix,
        subsequent_indent=hanging,
        break_on_hyphens=False,
        break_long_words=True,
        drop_whitespace=True,
        expand_tabs=False,
        replace_whitespace=False,
    )
    return wrapper.wrap(line[len(prefix) :]) or [line]


def fit(text: str, width: int | None) -> str:
    """Every line of ``text`` wrapped to ``width`` columns (unchanged when ``width`` is None)."""
    if width is None:
        return text
    lines = text.split("\n")
    fitted: list[str] = []
    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else None
        fitted.extend(fit_line(line, width, following=following))
    return "\n".join(fitted)


def shorten(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """``text`` cut to ``width`` columns, ending in ``ellipsis`` when cut."""
    if len(text) <= width:
        return text
    if width <= len(ellipsis):
        return text[:width]
    return text[: width - len(ellipsis)] + ellipsis


_ASCII = str.maketrans({"├": "|", "└": "`", "│": "|", "─": "-"})


def plain_glyphs(text: str) -> str:
    """Tree glyphs and the ellipsis as ASCII, for a stream whose encoding lacks them."""
    return text.replace(ELLIPSIS, "...").translate(_ASCII)


# -- colour ----------------------------------------------------------------------------------

_RESET = "\033[0m"
_STYLES = {"red": "\033[31m", "green": "\033[32m", "yellow": "\033[33m", "dim": "\033[2m", "bold": "\033[1m"}

# Verdicts, phases and warnings; the first alternative that matches at a position wins.
_PAINTED = [
    ("red", r"DOES NOT FIT|NOT SATISFIED|INCOMPLETE|\bFailed\b|\bnot ready\b|\bNotReady\b|^error:"),
    ("yellow", r"\b(?:Degraded|Initializing|Pending|Suspended|Suspending|Resuming|Undefined)\b|^warning:"),
    ("yellow", r"\bSchedulingDisabled\b|\bcordoned\b"),
    ("green", r"\bfits\b|\bRunning\b|\bCompleted\b|\bSucceeded\b|\bsatisfied\b"),
    ("dim", r"^[ │├└─|`-]*(?:├── |└── |│   |\|-- |`-- )"),
]
# Compiled on the first paint (re caches it): a pipe or a file never pays for it.
_PAINT = "|".join(f"(?P<g{index}>{pattern})" for index, (_, pattern) in enumerate(_PAINTED))


def paint(text: str) -> str:
    """``text`` with verdicts (fits, DOES NOT FIT), phases and tree glyphs coloured for a TTY."""

    def colour(match: re.Match[str]) -> str:
        index = int(match.lastgroup[1:]) if match.lastgroup else 0
        return f"{_STYLES[_PAINTED[index][0]]}{match.group(0)}{_RESET}"

    return re.sub(_PAINT, colour, text, flags=re.M)


def paint_prefix(message: str, stream: IO[Any]) -> str:
    """A stderr line with its ``error:``/``warning:``/``note:`` prefix coloured when ``stream`` is a TTY."""
    terminal = Terminal.of(stream)
    if not terminal.color:
        return message
    for prefix, style in (("error:", "red"), ("warning:", "yellow"), ("note:", "dim"), ("notice:", "dim")):
        if message.startswith(prefix):
            return f"{_STYLES[style]}{prefix}{_RESET}{message[len(prefix) :]}"
    return message


# -- progress --------------------------------------------------------------------------------


@contextmanager
def progress(message: str, *, delay: float = 0.5, stream: IO[Any] | None = None) -> Iterator[None]:
    """Show ``message`` on a TTY's stderr while the block runs longer than ``delay`` seconds.

    Quick work shows nothing; a pipe or file shows nothing. The line is erased when the block ends.
    """
    target = sys.stderr if stream is None else stream
    if not _isatty(target) or os.environ.get("TERM") == "dumb":
        yield
        return
    import threading  # only on a TTY

    shown = threading.Event()
    lock = threading.Lock()

    def show() -> None:
        with lock:
            target.write(f"\r{message} ...")
            target.flush()
            shown.set()

    timer = threading.Timer(delay, show)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            if shown.is_set():
                target.write("\r\033[K")
                target.flush()
