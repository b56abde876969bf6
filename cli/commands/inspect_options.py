"""The typer declaration of ``wmap inspect``, built from its one option table (``commands.inspect.OPTIONS``).

``fast.py`` reads the same table without typer; both run :func:`~.inspect.prepare`'s command.
"""

from __future__ import annotations

from typing import Any

import typer

from ..printing.options import typer_command
from .inspect import FILES, OPTIONS, prepare


def inspect(**values: Any) -> None:
    """Expand workloads from files into component trees with pod, GPU and gang totals."""
    files = values.pop(FILES.name)
    raise typer.Exit(prepare(files, values)())


typer_command(inspect, [FILES], OPTIONS)
