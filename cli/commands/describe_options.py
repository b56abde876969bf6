"""The typer declaration of ``wmap describe``, built from its one option table (``commands.describe.OPTIONS``).

``fast.py`` reads the same table without typer (the offline forms); both run :func:`~.describe.prepare`'s command.
"""

from __future__ import annotations

from typing import Any

import typer

from ..printing.options import typer_command
from .describe import NAME, OPTIONS, REF, prepare


def describe_command(**values: Any) -> None:
    """Describe workloads: their components with their live pods, recent events, and where their gangs landed."""
    words = [word for word in (values.pop(REF.name), values.pop(NAME.name)) if word is not None]
    raise typer.Exit(prepare(words, values)())


typer_command(describe_command, [REF, NAME], OPTIONS)
