"""The output views of a command, declared once: each ``-o`` value and how it writes a result.

kubectl's printers are the model. A command declares its views in one table, from each ``-o``
name to the view that writes a result that way (:class:`Views`), and :meth:`Views.write` writes
the one chosen: no command tests ``-o`` values itself. Everything else reads the same table: the
``-o`` option with its help and its check (:meth:`Views.spec`, typer's :meth:`Views.option`), the
typer-free fast path of ``wmap inspect`` (:meth:`Views.parse`), and shell completion (:func:`declared`).

A view is a callable ``view(chosen, result)``. Most write one text (:class:`Text`), made by a
helper: :func:`dump` (``-o json|yaml`` of the command's document, what ``-o json`` prints),
:func:`template` (every ``jsonpath=`` and ``custom-columns=`` format, on that same document),
:func:`stream` (Kubernetes objects as a YAML stream), :func:`plain` (``-o name``: written as it
is), :func:`human` (a tree: fitted to the terminal, coloured, ASCII glyphs where needed) and
:func:`table` (a kubectl table, which fits itself cell by cell). A view that writes more than one
text is a function of its own, built from these.

Importable without typer and without the library's stages: typer loads only when
:meth:`Views.option` declares a typer option.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from . import output
from .formats import TEMPLATES, Output, parse_output, template_text
from .options import OptionSpec

__all__ = [
    "View",
    "Views",
    "Text",
    "Sink",
    "Streamed",
    "declared",
    "dump",
    "stream",
    "template",
    "plain",
    "human",
    "table",
    "dump_each",
    "plain_each",
    "human_each",
]

View = Callable[[Output, Any], None]
"""Writes a command's result as the chosen ``-o`` value asks (the parsed template for a template format)."""

_TEMPLATES = "templates"
"""The name under which a command declares its template view: it answers every format of :data:`TEMPLATES`."""

_DECLARED: dict[str, Views] = {}


@dataclass(frozen=True)
class Text:
    """A view that writes one text: as it is (``fit`` None: machine output, names), or as human output.

    Attributes:
        render: the text, from the chosen ``-o`` value and the result.
        fit: None writes the text as it is; True fits human output to the terminal line by line,
            False keeps its lines whole (a table fits itself, cell by cell).
    """

    render: Callable[[Output, Any], str]
    fit: bool | None = None

    def __call__(self, chosen: Output, result: Any) -> None:
        """Write the text of ``result``."""
        text = self.render(chosen, result)
        if self.fit is None:
            output.write(text)
        else:
            output.human(text, fit=self.fit)


def _itself(result: Any) -> Any:
    return result


def dump(document: Callable[[Any], Any] = _itself) -> Text:
    """``-o json`` or ``-o yaml`` (whichever was chosen): ``document(result)`` dumped, the machine contract.

    Without ``document`` the result is the document.
    """
    return Text(lambda chosen, result: output.dump(document(result), chosen.kind))


def template(document: Callable[[Any], Any] = _itself) -> Text:
    """Every ``jsonpath=`` and ``custom-columns=`` format, on ``document(result)`` (what ``-o json`` prints).

    ``--no-headers`` (``chosen.header`` False) leaves out the header line of custom columns, as kubectl does.
    """

    def render(chosen: Output, result: Any) -> str:
        text = template_text(chosen, document(result))
        return text if chosen.header or not chosen.kind.startswith("custom-columns") else text.partition("\n")[2]

    return Text(render)


def stream(objects: Callable[[Any], list[Any]]) -> Text:
    """Kubernetes objects as one YAML stream, ``---`` between them (for ``kubectl apply -f -``)."""
    return Text(lambda _chosen, result: output.dump_all(objects(result)))


def plain(render: Callable[[Any], str]) -> Text:
    """Text written as it is, never fitted or coloured (``-o name``)."""
    return Text(lambda _chosen, result: render(result))


def human(render: Callable[[Any], str]) -> Text:
    """Human output whose lines are fitted to the terminal (trees)."""
    return Text(lambda _chosen, result: render(result), fit=True)


def table(render: Callable[[Any], str]) -> Text:
    """Human output whose lines stay whole: a kubectl table fits itself to the terminal, cell by cell."""
    return Text(lambda _chosen, result: render(result), fit=False)


class Sink(Protocol):
    """Where a command hands its results one by one (:meth:`Views.sink`); ``close`` after the last."""

    def add(self, item: Any) -> None:
        """Take one result."""

    def close(self) -> None:
        """No more results."""


@dataclass(frozen=True)
class Streamed:
    """A view of a list of results that writes each as it is made (kubectl's printers do too).

    Called with the whole list it writes what it writes item by item, so :meth:`Views.write` and
    :meth:`Views.sink` give the same bytes; through a sink nothing is kept once it is written, so
    memory does not grow with the number of results.

    Attributes:
        each: a new writer of the chosen ``-o`` value's text, item by item.
    """

    each: Callable[[Output], Sink]

    def __call__(self, chosen: Output, result: Iterable[Any]) -> None:
        """Write every item of ``result``."""
        sink = self.each(chosen)
        for item in result:
            sink.add(item)
        sink.close()


@dataclass
class _Kept:
    """A sink for a view that needs every result before it writes (a table's widths, a template)."""

    view: View
    chosen: Output
    items: list[Any] = field(default_factory=list)

    def add(self, item: Any) -> None:
        self.items.append(item)

    def close(self) -> None:
        if self.items:
            self.view(self.chosen, self.items)


@dataclass
class _EachText:
    """Each item's text written as it comes, ``between`` two of them (``-o name``, ``-o tree``)."""

    render: Callable[[Any], str]
    fit: bool | None
    between: str
    started: bool = False

    def add(self, item: Any) -> None:
        text = self.render(item)
        if self.started:
            text = self.between + text
        self.started = True
        if self.fit is None:
            output.write(text)
        else:
            output.human(text, fit=self.fit)

    def close(self) -> None:
        pass


def plain_each(render: Callable[[Any], str]) -> Streamed:
    """Each item's text written as it is, as it comes (``-o name``)."""
    return Streamed(lambda _chosen: _EachText(render, None, ""))


def human_each(render: Callable[[Any], str], between: str = "") -> Streamed:
    """Each item as human output fitted to the terminal, as it comes, ``between`` two (trees)."""
    return Streamed(lambda _chosen: _EachText(render, True, between))


_LIST_HEAD = {
    "json": '{\n  "kind": "List",\n  "apiVersion": "v1",\n  "items": [\n    ',
    "yaml": "kind: List\napiVersion: v1\nitems:\n",
}
_LIST_TAIL = {"json": "\n  ]\n}\n", "yaml": ""}


@dataclass
class _ListDump:
    """``-o json|yaml`` of items as :func:`output.as_list` makes them, each dumped as it comes.

    One item is dumped alone and several as a kubectl ``List``: the first is held until a second
    comes or the stream ends. The bytes are those of ``output.dump(output.as_list(items), kind)``.
    """

    document: Callable[[Any], Any]
    kind: str
    first: Any = None
    count: int = 0

    def add(self, item: Any) -> None:
        data = self.document(item)
        self.count += 1
        if self.count == 1:
            self.first = data
            return
        if self.count == 2:
            output.write(_LIST_HEAD[self.kind] + self._item(self.first, first=True))
            self.first = None
        output.write(self._item(data, first=False))

    def _item(self, data: Any, *, first: bool) -> str:
        if self.kind == "json":
            return ("" if first else ",\n    ") + output.json_text(data, 2)
        return output.dump([data], "yaml")

    def close(self) -> None:
        if self.count == 1:
            output.write(output.dump(self.first, self.kind))
        elif self.count > 1:
            output.write(_LIST_TAIL[self.kind])


def dump_each(document: Callable[[Any], Any]) -> Streamed:
    """``-o json`` or ``-o yaml`` of a list of results: one as itself, several as a ``List``, each dumped as made."""
    return Streamed(lambda chosen: _ListDump(document, chosen.kind))


class Views:
    """A command's ``-o`` values, in the order its help lists them, each with the view that writes it.

    Args:
        views: ``-o`` name to view; the name ``"templates"`` stands for every template format
            (``jsonpath=...``, ``custom-columns=...`` and their file forms), which one view answers.
        default: the view shown without ``-o`` (default: the first).
    """

    def __init__(self, views: Mapping[str, View], default: str | None = None) -> None:
        self.views = dict(views)
        self.default = default if default is not None else next(iter(self.views))
        self.names: tuple[str, ...] = tuple(
            name for key in self.views for name in (TEMPLATES if key == _TEMPLATES else (key,))
        )
        """Every ``-o`` value, templates included (``jsonpath``, ``custom-columns-file`` ...)."""
        if self.default not in self.views or self.default == _TEMPLATES:
            raise ValueError(f"the default view {self.default!r} is not one of {', '.join(self.views)}")

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def parse(self, value: str) -> Output:
        """An ``-o`` value read against these views.

        Raises:
            typer.BadParameter: not one of them, or a missing or malformed template (a usage error, exit 2).
        """
        return parse_output(value, self.names)

    def write(self, chosen: Output, result: Any) -> None:
        """Write ``result`` as the view ``chosen`` (parsed by :meth:`parse`) names."""
        self.views[_TEMPLATES if chosen.kind in TEMPLATES else chosen.kind](chosen, result)

    def sink(self, chosen: Output) -> Sink:
        """Where to hand the results of a list, one by one, for the view ``chosen``.

        A streamed view writes each as it comes; any other writes the list at ``close`` (nothing for none).
        """
        view = self.views[_TEMPLATES if chosen.kind in TEMPLATES else chosen.kind]
        if isinstance(view, Streamed):
            return view.each(chosen)
        return _Kept(view, chosen)

    def text(self, chosen: Output, result: Any) -> str:
        """What the view ``chosen`` names would write, as a string (only for a view that writes one text)."""
        view = self.views[_TEMPLATES if chosen.kind in TEMPLATES else chosen.kind]
        if not isinstance(view, Text):
            raise TypeError(f"the view {chosen.kind!r} writes more than one text")
        return view.render(chosen, result)

    def summary(self) -> str:
        """The views in words, as the ``-o`` help lists them."""
        listed = ", ".join(name for name in self.names if name not in TEMPLATES)
        if _TEMPLATES not in self.views:
            return listed
        return f"{listed}; jsonpath=TEMPLATE, custom-columns=SPEC (and -file forms), as kubectl"

    def spec(self, command: str, help_text: str = "Output format", *, optional: bool = False) -> OptionSpec:
        """The ``-o/--output FORMAT`` option of ``command`` (``"catalog list"``) as a typer-free declaration.

        ``optional``: no default on the command line (the command picks one, as ``place`` does
        with ``--emit``); otherwise :attr:`default`. The value is checked as the command line is
        read. Completion finds the views by ``command``.
        """
        _DECLARED[command] = self
        return OptionSpec(
            "output_format",
            ("-o", "--output"),
            f"{help_text}: {self.summary()}.",
            metavar="FORMAT",
            default=None if optional else self.default,
            check=self.parse,
        )

    def option(self, command: str, help_text: str = "Output format", *, optional: bool = False) -> Any:
        """:meth:`spec` as a typer option (imports typer: the fast path of `wmap inspect` never calls it)."""
        return self.spec(command, help_text, optional=optional).typer()


def declared(command: str) -> Views | None:
    """The views the ``-o`` option of ``command`` offers, once the command is declared (for completion)."""
    return _DECLARED.get(command)
