"""Command-line options declared once, without typer: typer's declaration and the fast reader are built from them.

Importing typer (and click and pydantic under it) costs tens of milliseconds on every run, so the
console script reads the ``wmap inspect`` and ``wmap alter`` command lines it fully understands itself
(``commands/fast.py``). Both readers take the same table of :class:`OptionSpec`: typer gets
each one as a ``typer.Option`` (:meth:`OptionSpec.parameter`, typer imported only then), the fast
reader its flags, multiplicity, value type, bound and default. A command declared this way is a
function taking every value by keyword, given the signature typer reads by :func:`typer_command`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, List, Optional

__all__ = ["OptionSpec", "ArgumentSpec", "typer_command"]


class OptionSpec:
    """One option of a command (fixed once declared).

    Attributes:
        name: the command parameter it sets.
        flags: every spelling (``-f``, ``--filename``).
        help: the ``--help`` text.
        metavar: the value's name in the help (None: typer's default).
        value: what the text becomes: ``str``, ``Path``, ``int`` (whole, at least ``minimum``), or
            ``bool`` for a flag without a value.
        multiple: repeatable, its values collected in order; otherwise the last one given wins.
        default: the value when not given (repeatable options: none).
        minimum: the smallest number an ``int`` option takes.
        check: called on the value given (not on the default) when the command line is read; raises
            a usage error (``typer.BadParameter``) for a value the command refuses.
    """

    # A plain class, not a dataclass: a dataclass writes its methods with exec when it is defined,
    # ~1 ms of every `wmap inspect` for the two classes of this module.
    __slots__ = ("name", "flags", "help", "metavar", "value", "multiple", "default", "minimum", "check")

    def __init__(
        self,
        name: str,
        flags: tuple[str, ...],
        help: str,
        *,
        metavar: str | None = None,
        value: type = str,
        multiple: bool = False,
        default: Any = None,
        minimum: int | None = None,
        check: Callable[[Any], object] | None = None,
    ) -> None:
        self.name = name
        self.flags = flags
        self.help = help
        self.metavar = metavar
        self.value = value
        self.multiple = multiple
        self.default = default
        self.minimum = minimum
        self.check = check

    def __repr__(self) -> str:
        return f"OptionSpec({self.name!r}, {self.flags!r})"

    @property
    def is_flag(self) -> bool:
        """An option without a value (``-R``)."""
        return self.value is bool

    def annotation(self) -> Any:
        """The type typer converts the option's text to."""
        if self.multiple:
            return Optional[List[self.value]]  # type: ignore[name-defined]
        if self.is_flag or self.default is not None:
            return self.value
        return Optional[self.value]

    def read(self, text: str) -> Any:
        """The value of ``text`` as the fast reader takes it.

        Raises:
            ValueError: text typer reads in more forms (a number in other digits, with spaces or
                underscores) or refuses (below the minimum): the command line goes to typer.
        """
        if self.value is int:
            if not (text.isascii() and text.isdigit()):
                raise ValueError(f"{text!r} is not plain digits")
            number = int(text)
            if self.minimum is not None and number < self.minimum:
                raise ValueError(f"{number} is below {self.minimum}")
            return number
        if self.value is str or self.value is Path:
            return self.value(text)
        raise ValueError(f"{self.name} takes no value")

    def typer(self) -> Any:
        """The option as typer declares it (imports typer)."""
        import typer

        check = self.check
        callback = None
        if check is not None:

            def callback(value: Any) -> Any:  # typer passes None when the option is absent
                if value is not None:
                    check(value)
                return value

        return typer.Option(
            self.default, *self.flags, metavar=self.metavar, help=self.help, min=self.minimum, callback=callback
        )

    def parameter(self) -> inspect.Parameter:
        """The option as a keyword parameter of a typer command's signature (imports typer)."""
        keyword = inspect.Parameter.KEYWORD_ONLY
        return inspect.Parameter(self.name, keyword, default=self.typer(), annotation=self.annotation())


class ArgumentSpec:
    """A command's positional words (every one: ``FILE...``), a list of text; or, ``single``, one optional word.

    ``required``: typer refuses a command line without one (``Missing argument``); the fast reader
    leaves such a line to typer. Otherwise the list is optional and the command checks it.
    """

    __slots__ = ("name", "metavar", "help", "required", "single")

    def __init__(self, name: str, metavar: str, help: str, *, required: bool = False, single: bool = False) -> None:
        self.name = name
        self.metavar = metavar
        self.help = help
        self.required = required
        self.single = single  # one optional word (``TYPE[/NAME]``), not every one

    def parameter(self) -> inspect.Parameter:
        """The argument as a parameter of a typer command's signature (imports typer)."""
        import typer

        annotation: Any = List[str] if self.required else Optional[str] if self.single else Optional[List[str]]
        argument = typer.Argument(... if self.required else None, metavar=self.metavar, help=self.help)
        return inspect.Parameter(self.name, inspect.Parameter.KEYWORD_ONLY, default=argument, annotation=annotation)


def typer_command(
    function: Callable[..., Any], arguments: Sequence[ArgumentSpec], options: Sequence[OptionSpec]
) -> Callable[..., Any]:
    """``function`` (taking every value by keyword) with the signature typer reads, made from the specs.

    Typer reads parameters in order: the help lists the arguments, then the options, as given.
    """
    parameters = [*(argument.parameter() for argument in arguments), *(option.parameter() for option in options)]
    function.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return function
