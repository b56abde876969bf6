"""``wmap inspect``: expand workloads from files into component trees with pod, GPU and gang totals.

Importable without typer. The command line is declared once here (:data:`FILES`, :data:`OPTIONS`);
typer's declaration (``inspect_options.py``) and the console script's own reader
(``fast.py``) are both built from it, and both run :func:`prepare`'s command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workloadmap.documents import load_objects
from workloadmap.interpreter import ObjectIndex, inspect_documents
from workloadmap.tree import WorkloadTree

from ..printing import output
from ..printing.escape import escaped, shown
from ..printing.formats import Output
from ..printing.options import ArgumentSpec, OptionSpec
from ..printing.sorting import parse_sort_by
from ..printing.sorting import sort_by as sort_by_path
from ..printing.usage import bad_parameter
from ..printing.views import Text, Views, dump_each, plain_each, template
from ..render.workloads import render_inspect_table, render_tree, with_summary

if TYPE_CHECKING:
    from workloadmap.selectors import Selector

from .common import (
    CATALOG,
    GPU_DEVICE_CLASS,
    GPU_RESOURCE,
    NO_HEADERS,
    RELATED,
    SELECTOR,
    SORT_BY,
    SUMMARY,
    Collected,
    Guard,
    gpu_resources,
    guard_options,
    load_catalog,
    parse_selector,
    selected,
    stdin_once,
)


def resource_name(tree: WorkloadTree) -> str:
    """``kind.group/name`` as `kubectl get -o name` prints a resource (``pod/x`` for the core group)."""
    group = tree.workload.api_version.rpartition("/")[0]
    kind = tree.workload.kind.lower()
    return f"{kind}.{group}/{tree.workload.name}" if group else f"{kind}/{tree.workload.name}"


def trees_text(trees: list[WorkloadTree]) -> str:
    """Trees as ``-o tree`` draws them, one after another (``wmap get -o tree`` too)."""
    return "\n".join(render_tree(tree) for tree in escaped(trees))


def _name_line(tree: WorkloadTree) -> str:
    # Only the name is escaped, not a copy of the whole tree: escaping works character by character
    # and lower case neither makes nor removes a control character, so this is the escaped tree's name.
    return shown(resource_name(tree)) + "\n"


def _tree_document(tree: WorkloadTree) -> object:
    return tree.to_dict()


def _document(trees: list[WorkloadTree]) -> object:
    """What ``-o json`` prints: the tree, or a ``List`` of several (templates read it whole)."""
    return output.as_list([tree.to_dict() for tree in trees])


def _trees(chosen: Output, trees: list[WorkloadTree]) -> str:
    return with_summary(trees_text(trees), trees, header=chosen.header, summary=chosen.summary, gap="\n")


def _table(*, wide: bool) -> Text:
    def render(chosen: Output, trees: list[WorkloadTree]) -> str:
        text = render_inspect_table(escaped(trees), wide=wide, header=chosen.header)
        return with_summary(text, trees, header=chosen.header, summary=chosen.summary)

    return Text(render, fit=False)


VIEWS = Views(
    {
        "tree": Text(_trees, fit=True),
        "table": _table(wide=False),
        "wide": _table(wide=True),
        "name": plain_each(_name_line),
        "json": dump_each(_tree_document),
        "yaml": dump_each(_tree_document),
        "templates": template(_document),
    }
)
"""The views of ``wmap inspect``, on the list of trees."""
DEFAULT_VIEW = VIEWS.default

FILES = ArgumentSpec("files", "FILE...", "FILE, DIR or - (standard input).")
"""The FILE arguments (every word that is not an option)."""

_OWN = (
    OptionSpec("filename", ("-f", "--filename"), "FILE, DIR or -; repeatable.", metavar="FILE", multiple=True),
    VIEWS.spec("inspect"),
    CATALOG,
    OptionSpec("recursive", ("-R", "--recursive"), "Read directories recursively.", value=bool, default=False),
    GPU_RESOURCE,
    GPU_DEVICE_CLASS,
    RELATED,
    SELECTOR,
    SORT_BY,
    NO_HEADERS,
    SUMMARY,
)
OPTIONS: tuple[OptionSpec, ...] = (*_OWN, *guard_options([FILES.name, *(o.name for o in _OWN)], budgets=True))
"""Every option of ``wmap inspect`` but ``--help``, in the order ``--help`` lists them: its own, then
the guard's (``--timeout``, ``--allow-reference-kind``, the budget flags)."""


def inspect_output(value: str, *, no_headers: bool = False, summary: bool = False) -> Output:
    """The ``-o`` value of ``wmap inspect``, parsed (typer.BadParameter when it is not one, exit 2)."""
    return replace(VIEWS.parse(value), header=not no_headers, summary=summary)


def inspect_sources(
    files: Sequence[str] | None, filename: Sequence[str] | None, related: Sequence[str] | None = None
) -> list[str]:
    """The sources to read: FILE arguments, then ``-f`` values.

    typer.BadParameter when there are none, or when standard input is given twice (it can be read once).
    """
    sources = list(files or []) + list(filename or [])
    if not sources:
        raise bad_parameter("give at least one FILE, DIR or - (standard input)", param_hint="FILE")
    stdin_once({"FILE": list(files or []), "-f": list(filename or []), "--related": list(related or [])})
    return sources


def prepare(files: Sequence[str] | None, values: Mapping[str, Any]) -> Callable[[], int]:
    """The command ``wmap inspect FILES`` with option ``values`` (by name) runs, returning its exit code.

    Everything a usage error can come from is checked here, before anything runs: the guard's
    options, ``-o``, at least one source, ``-l`` and ``--sort-by``.

    Raises:
        typer.BadParameter: a usage error (exit 2, reported by typer under the usage line).
    """
    guard = Guard.from_options(dict(values))
    chosen = inspect_output(values["output_format"], no_headers=values["no_headers"], summary=values["summary"])
    sources = inspect_sources(files, values["filename"], values["related"])
    selector = parse_selector(values["selector"])
    if values["sort_by"] is not None:
        parse_sort_by(values["sort_by"])
    return lambda: guard.call(
        lambda: inspect_files(
            sources,
            chosen,
            catalog_dirs=values["catalog_dirs"],
            recursive=values["recursive"],
            gpu_resource=values["gpu_resource"],
            gpu_device_class=values["gpu_device_class"],
            related=values["related"],
            selector=selector,
            sort_by=values["sort_by"],
        )
    )


def inspect_files(
    sources: Sequence[str],
    chosen: Output,
    *,
    catalog_dirs: Sequence[Path] | None = None,
    recursive: bool = False,
    gpu_resource: Sequence[str] | None = None,
    related: Sequence[str] | None = None,
    gpu_device_class: Sequence[str] | None = None,
    selector: Selector | None = None,
    sort_by: str | None = None,
) -> int:
    """Expand the workloads of ``sources``, print them as ``chosen``; the exit code (the worst document's).

    No usage error comes from here: :func:`prepare` checks the command line before it runs this,
    and the fast path leaves a usage error to typer, which can only report it before anything is
    printed.
    """
    catalog = load_catalog(list(catalog_dirs or []))
    related_objects = ObjectIndex.from_paths(list(related or []))
    # Without --sort-by, json, yaml and name write each tree as it is made (none is kept).
    sink = VIEWS.sink(chosen) if sort_by is None else None
    written = 0

    def write(tree: WorkloadTree) -> None:
        nonlocal written
        written += 1
        if sink is not None:
            sink.add(tree)

    collected = Collected(sink=write if sink is not None else None)
    for source in sources:
        documents = selected(load_objects(source, recursive=recursive), selector)
        collected.add(
            inspect_documents(
                documents,
                catalog=catalog,
                gpu_resources=gpu_resources(list(gpu_resource or []), list(gpu_device_class or [])),
                related=related_objects,
            )
        )
    if not collected.codes:
        output.warn(f"note: no Kubernetes objects found in {', '.join(sources)}")
    trees = [tree for tree, _ in collected.trees]
    if sink is not None:
        sink.close()
    elif sort_by is not None:
        trees = sort_by_path(trees, lambda tree: tree.to_dict(), sort_by)
    if trees and sink is None:
        VIEWS.write(chosen, trees)
    elif not (trees or written) and selector is not None and collected.exit_code == 0:
        output.warn(f"No resources found matching {selector}.")
    return collected.exit_code
