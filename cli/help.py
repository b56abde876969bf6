"""``--help`` as kubectl writes it: metavars in words (``FILE...``), never Python types, and an Examples section.

Typer's own help shows type hints such as ``<list[str]>`` beside arguments whatever their
metavar; these command classes write the usage line, the arguments and the options themselves
from each parameter's metavar, and print each command's examples verbatim (they are read as
shell lines, so never re-wrapped). A help text that reads the library's tables is written out
here, when the help is printed (``printing/deferred.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from enum import Enum
from typing import Any, ClassVar

from typer.core import TyperCommand, TyperGroup

from .printing.deferred import resolved

__all__ = ["LazyCommands", "WmapCommand", "WmapGroup", "metavar"]

_REST = re.compile(r"``(.*?)``|:\w+:`(.*?)`")


def _plain(text: str) -> str:
    """Docstring markup as plain text: ``code`` and :class:`X` become `code` and `X`; deferred texts written out."""
    return _REST.sub(lambda match: f"`{match.group(1) or match.group(2)}`", resolved(text))


def metavar(param: Any) -> str:
    """The word(s) a parameter's value is written as: its metavar, else its name in capitals.

    An argument that takes several values ends in ``...`` (``FILE...``).
    """
    word = getattr(param, "metavar", None) or (param.name or "value").upper().replace("_", "-")
    if param.param_type_name == "argument" and param.nargs != 1 and not word.endswith("..."):
        word += "..."
    return word


def _default(param: Any) -> str | None:
    default = getattr(param, "default", None)
    if default is None or default is False or getattr(param, "is_flag", False) or callable(default):
        return None
    if isinstance(default, (list, tuple)):
        return ", ".join(str(getattr(item, "value", item)) for item in default) or None
    value = default.value if isinstance(default, Enum) else default
    return None if value in ("", ()) else str(value)


def _option_record(param: Any) -> tuple[str, str]:
    # Short forms first (``-h, --help``): click builds the help option from a set, in no set order.
    names = ", ".join(sorted(param.opts, key=lambda name: name.startswith("--")))
    if getattr(param, "secondary_opts", None):
        names += " / " + ", ".join(param.secondary_opts)
    if not getattr(param, "is_flag", False) and not getattr(param, "count", False):
        names += f" {metavar(param)}"
    help_text = _plain(param.help or "")
    extra = []
    default = _default(param)
    if default is not None and getattr(param, "show_default", True) is not False:
        extra.append(f"default: {default}")
    if getattr(param, "required", False):
        extra.append("required")
    if extra:
        help_text = f"{help_text}  [{'; '.join(extra)}]" if help_text else f"[{'; '.join(extra)}]"
    return names, help_text


def _argument_record(param: Any) -> tuple[str, str]:
    help_text = _plain(getattr(param, "help", None) or "")
    if param.required:
        help_text = f"{help_text}  [required]" if help_text else "[required]"
    return metavar(param), help_text


class _Help:
    """The help sections every wmap command shares (mixed into Typer's command and group classes)."""

    examples: Sequence[str] = ()

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if getattr(self, "options_metavar", None) else []  # type: ignore[attr-defined]
        for param in self.get_params(ctx):  # type: ignore[attr-defined]
            if param.param_type_name == "argument":
                word = metavar(param)
                pieces.append(word if param.required else f"[{word}]")
        return pieces

    def format_help_text(self, ctx: Any, formatter: Any) -> None:
        text = _plain(self.help or "")  # type: ignore[attr-defined]
        if text:
            formatter.write_paragraph()
            with formatter.indentation():
                for index, paragraph in enumerate(text.strip().split("\n\n")):
                    if index:
                        formatter.write_paragraph()
                    formatter.write_text(" ".join(paragraph.split()))

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):  # type: ignore[attr-defined]
            if getattr(param, "hidden", False):
                continue
            if param.param_type_name == "argument":
                arguments.append(_argument_record(param))
            else:
                options.append(_option_record(param))
        for title, records in (("Arguments", arguments), ("Options", options)):
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        if not self.examples:
            return
        formatter.write_paragraph()
        formatter.write("Examples:\n")
        for line in self.examples:
            formatter.write(f"  {line}\n" if line else "\n")


class WmapCommand(_Help, TyperCommand):
    """A wmap command: Typer's command with wmap's help layout (``examples`` set on a subclass per command)."""


class LazyCommands(MutableMapping[str, Any]):
    """A group's commands by name, each built when first looked up.

    Typer builds a command (its module imported, its signature read, its options made) for every
    registered command before parsing the command line; here a command is a builder until the
    group looks it up, so ``wmap inspect`` builds ``inspect`` alone. Listing the commands (``--help``,
    completion) builds them all. Order is registration order: the pending commands, then the others.
    """

    def __init__(self, pending: Mapping[str, Callable[[], Any]], built: Mapping[str, Any]) -> None:
        self._pending = dict(pending)
        self._built: dict[str, Any] = {}
        self._order = [*self._pending, *(name for name in built if name not in self._pending)]
        self._built.update(built)

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            self._built[name] = self._pending.pop(name)()  # KeyError for an unknown name, as a dict
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        if name not in self._order:
            self._order.append(name)
        self._pending.pop(name, None)
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self._built and name not in self._pending:
            raise KeyError(name)
        self._built.pop(name, None)
        self._pending.pop(name, None)
        self._order.remove(name)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._order))

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, name: object) -> bool:
        return name in self._built or name in self._pending


class WmapGroup(_Help, TyperGroup):
    """A wmap command group (``wmap``, ``wmap catalog`` ...): Typer's group with wmap's help layout.

    ``pending`` (set on a subclass per group) holds builders of commands registered lazily.
    """

    pending: ClassVar[dict[str, Callable[[], Any]]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = LazyCommands(self.pending, self.commands)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        """``[OPTIONS] COMMAND [ARGS]...``."""
        return [*_Help.collect_usage_pieces(self, ctx), "COMMAND [ARGS]..."]

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """The group's options, then its commands."""
        _Help.format_options(self, ctx, formatter)
        self.format_commands(ctx, formatter)
