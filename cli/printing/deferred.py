"""Help texts that read the library's tables, written only when help is printed.

An option's help is a string fixed when its command is declared, which happens on every run of
the command. Some name facts of the library's registries: the export targets (``--emit``), every
form a topology source takes and the default preset (``-t``). Reading them there would import
those stages on every run of ``wmap place``, and on every shell completion, for a help that is
rarely asked for. :func:`deferred` stands in for such a text with a token; the help formatter
(``cli/help.py``) writes the text in its place with :func:`resolved`, reading the tables as they
are then: an exporter registered later is listed too.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["deferred", "resolved"]

_TEXTS: list[Callable[[], str]] = []
_TOKEN = re.compile("\x00deferred:(\\d+)\x00")


def deferred(text: Callable[[], str]) -> str:
    """A stand-in for ``text()`` in a help string, written out by :func:`resolved` when the help is printed."""
    _TEXTS.append(text)
    return f"\x00deferred:{len(_TEXTS) - 1}\x00"


def resolved(text: str) -> str:
    """``text`` with every stand-in of :func:`deferred` written out."""
    if "\x00" not in text:
        return text
    return _TOKEN.sub(lambda match: _TEXTS[int(match.group(1))](), text)
