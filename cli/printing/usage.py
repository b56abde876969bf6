"""Usage errors (exit 2, under the command's usage line) made without loading typer until one happens.

The fast path of ``wmap inspect`` and ``wmap alter`` (``fast.py``) runs without typer; the checks it shares
with the typer commands build typer's ``BadParameter`` only when they fail, and that path then
hands the command line to typer, which reports the error.
"""

from __future__ import annotations


def bad_parameter(message: str, param_hint: str | None = None) -> Exception:
    """Typer's ``BadParameter`` for ``message`` (to raise), ``param_hint`` naming the option or argument."""
    import typer

    return typer.BadParameter(message, param_hint=param_hint)
