"""The fast path of ``wmap inspect``: the command lines it fully understands, read and run without typer.

Typer's parser is not needed to read ``wmap inspect FILE... [-f FILE] [-o FORMAT] [-R] [--catalog DIR]
...``: :data:`OPTIONS` lists the command's options (tests/cli/test_inspect_fast.py holds it to the
typer declaration in ``inspect_options.py``, flag by flag), :func:`parse` reads them as typer's parser
does, and the command runs the same :func:`~workloadmap.cli.commands.inspect.inspect_files` under the
same :class:`~workloadmap.cli.commands.common.Guard`. Whatever it does not fully understand (``--help``, an
unknown option, combined short flags, an invalid value, no FILE, a shell-completion request) it
leaves to typer, which reports usage errors with the usage line: so the two never differ, and at
worst a command line is read at typer's speed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import BUDGET_FLAGS, Guard
from .inspect import DEFAULT_VIEW, inspect_files, inspect_output, inspect_sources


def _positive(text: str) -> int:
    """A whole number of at least 1 in plain ASCII digits (typer reads more forms: those go to typer)."""
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"{text!r} is not plain digits")
    number = int(text)
    if number < 1:
        raise ValueError(f"{number} is below 1")
    return number


@dataclass(frozen=True)
class Option:
    """One option of ``wmap inspect`` as the fast path reads it.

    Attributes:
        name: the command parameter it sets (the typer declaration's).
        flags: every spelling (``-f``, ``--filename``).
        multiple: repeatable, its values collected in order; otherwise the last one given wins.
        convert: turns the text into the value (ValueError: not understood); None for a flag without value.
        default: the value when not given (repeatable options: none).
    """

    name: str
    flags: tuple[str, ...]
    multiple: bool = False
    convert: Callable[[str], Any] | None = str
    default: Any = None


OPTIONS: tuple[Option, ...] = (
    Option("filename", ("-f", "--filename"), multiple=True),
    Option("output_format", ("-o", "--output"), default=DEFAULT_VIEW),
    Option("catalog_dirs", ("--catalog",), multiple=True, convert=Path),
    Option("recursive", ("-R", "--recursive"), convert=None, default=False),
    Option("gpu_resource", ("--gpu-resource",), multiple=True),
    Option("related", ("--related", "--runtimes"), multiple=True),
    # added to every command by common.guarded
    Option("timeout", ("--timeout",)),
    Option("allow_reference_kind", ("--allow-reference-kind",), multiple=True),
    *(Option(name, (flag,), convert=_positive) for name, flag, _, _ in BUDGET_FLAGS),
)
"""Every option of ``wmap inspect`` but ``--help``."""

_BY_FLAG = {flag: option for option in OPTIONS for flag in option.flags}


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
        if option.convert is None:
            if attached is not None:  # `--recursive=x`, `-Rf FILE`: not modelled
                return None
            values[option.name] = True
            continue
        if attached is None:
            if not pending:
                return None
            attached = pending.pop(0)
        try:
            value = option.convert(attached)
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
        guard = Guard.from_options(values)
        chosen = inspect_output(values["output_format"])
        sources = inspect_sources(files, values["filename"], values["related"])
    except Exception:
        # A usage error (typer.BadParameter) typer reports under the usage line, exit 2; and anything
        # else too: the typer command runs these same checks inside its guard, which reports a bug
        # as the one-line internal error. Either way the answer is typer's.
        return None

    def command() -> None:
        code = guard.call(
            lambda: inspect_files(
                sources,
                chosen,
                catalog_dirs=values["catalog_dirs"],
                recursive=values["recursive"],
                gpu_resource=values["gpu_resource"],
                related=values["related"],
            )
        )
        sys.exit(code)

    return command
