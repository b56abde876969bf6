"""The fast path of ``wmap inspect``, ``alter`` and ``describe -f``: command lines it understands, run without typer.

Typer's parser (and pydantic, which typer builds each option's converter with) is not needed to read
``wmap inspect FILE... [-f FILE] [-o FORMAT] [-R] [--catalog DIR] ...``, ``wmap alter FILE...
--scheduler-name NAME ...`` or ``wmap describe -f FILE ...``: each command's one option table
(``OPTIONS`` of ``commands/inspect.py``, ``alter.py``, ``describe.py``, from which typer's
declarations in ``inspect_options.py``, ``alter_options.py`` and ``describe_options.py`` are built
too) says every flag, :func:`parse` reads them as typer's parser does, and the command is the same
one, the module's ``prepare``'s. Whatever it does not fully understand (``--help``, an unknown
option, combined short flags, an invalid value, no FILE, a shell-completion request) it leaves to
typer, which reports usage errors with the usage line: so the two never differ, and at worst a
command line is read at typer's speed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import Any

from ..printing.options import OptionSpec

FAST_COMMANDS = ("inspect", "alter", "describe")
"""The commands read here: each module (``commands.<name>``) declares ``OPTIONS`` and ``prepare``; one whose
``FAST_WORDS`` is false is read here only without positional words (``describe -f FILE``)."""


def parse(arguments: Sequence[str], options: Sequence[OptionSpec]) -> tuple[list[str], dict[str, Any]] | None:
    """The FILE arguments and option values of ``arguments`` (what follows the command), as typer reads them.

    As typer's parser: options and arguments mix, everything after ``--`` is a FILE, a lone ``-``
    is a FILE, ``--opt=value`` and ``-ovalue`` carry their value, otherwise an option's value is
    the next word (whatever it looks like). None for anything else.
    """
    by_flag = {flag: option for option in options for flag in option.flags}
    values: dict[str, Any] = {option.name: [] if option.multiple else option.default for option in options}
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
        option = by_flag.get(flag)
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


def fast_command(arguments: Sequence[str], environment: Mapping[str, str]) -> Callable[[], None] | None:
    """``wmap ARGUMENTS`` as a command to run without typer: a command line of :data:`FAST_COMMANDS` fully understood.

    None: typer is to read it (any other command, help, a usage error, a completion request).
    """
    if not arguments or arguments[0] not in FAST_COMMANDS or _completing(environment):
        return None
    module = import_module(f"{__package__}.{arguments[0]}")
    parsed = parse(arguments[1:], module.OPTIONS)
    if parsed is None:
        return None
    files, values = parsed
    if files and not getattr(module, "FAST_WORDS", True):
        return None
    try:
        run = module.prepare(files, values)
    except Exception:
        # A usage error (typer.BadParameter) typer reports under the usage line, exit 2; and anything
        # else too: the typer command runs these same checks inside its guard, which reports a bug
        # as the one-line internal error. Either way the answer is typer's.
        return None

    def command() -> None:
        sys.exit(run())

    return command
