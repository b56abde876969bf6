"""The fast path of ``wmap inspect``: the command lines it fully understands, read and run without typer.

Typer's parser is not needed to read ``wmap inspect FILE... [-f FILE] [-o FORMAT] [-R] [--catalog DIR]
...``: the command's one option table (``commands.inspect.OPTIONS``, from which typer's declaration
in ``inspect_options.py`` is built too) says every flag, :func:`parse` reads them as typer's parser
does, and the command is the same one, :func:`~workloadmap.cli.commands.inspect.prepare`'s.
Whatever it does not fully understand (``--help``, an unknown option, combined short flags, an
invalid value, no FILE, a shell-completion request) it leaves to typer, which reports usage errors
with the usage line: so the two never differ, and at worst a command line is read at typer's speed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..printing.options import OptionSpec
from .inspect import OPTIONS, prepare

_BY_FLAG: dict[str, OptionSpec] = {flag: option for option in OPTIONS for flag in option.flags}


def parse(arguments: Sequence[str]) -> tuple[list[str], dict[str, Any]] | None:
    """The FILE arguments and option values of ``arguments`` (what follows ``inspect``), as typer reads them.

    As typer's parser: options and arguments mix, everything after ``--`` is a FILE, a lone ``-``
    is a FILE, ``--opt=value`` and ``-ovalue`` carry their value, otherwise an option's value is
    the next word (whatever it looks like). None for anything else.
    """
    values: dict[str, Any] = {option.name: [] if option.multiple else option.default for option in OPTIONS}
    files: list[str] = []
    pending = list(arguments)
    while pending:
        word = pending.pop(0)
        if word == "--":
            files.extend(pending)
            break
        if not word.startswith("-") or word == "-":
            files.append(word)
            continue
        if word.startswith("--"):
            flag, equals, rest = word.partition("=")
            attached = rest if equals else None
        else:
            flag, attached = word[:2], word[2:] or None
        option = _BY_FLAG.get(flag)
        if option is None:
            return None
        if option.is_flag:
            if attached is not None:  # `--recursive=x`, `-Rf FILE`: not modelled
                return None
            values[option.name] = True
            continue
        if attached is None:
            if not pending:
                return None
            attached = pending.pop(0)
        try:
            value = option.read(attached)
        except ValueError:
            return None
        if option.multiple:
            values[option.name].append(value)
        else:
            values[option.name] = value
    return files, values


def _completing(environment: Mapping[str, str]) -> bool:
    """A shell asks for completions through ``_PROG_COMPLETE`` (which typer answers)."""
    return any(name.startswith("_") and name.endswith("_COMPLETE") and value for name, value in environment.items())


def fast_inspect(arguments: Sequence[str], environment: Mapping[str, str]) -> Callable[[], None] | None:
    """``wmap ARGUMENTS`` as a command to run without typer, if it is an inspect command line fully understood.

    None: typer is to read it (any other command, help, a usage error, a completion request).
    """
    if arguments[:1] != ["inspect"] or _completing(environment):
        return None
    parsed = parse(arguments[1:])
    if parsed is None:
        return None
    files, values = parsed
    try:
        run = prepare(files, values)
    except Exception:
        # A usage error (typer.BadParameter) typer reports under the usage line, exit 2; and anything
        # else too: the typer command runs these same checks inside its guard, which reports a bug
        # as the one-line internal error. Either way the answer is typer's.
        return None

    def command() -> None:
        sys.exit(run())

    return command
