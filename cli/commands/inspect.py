"""``wmap inspect``: expand workloads from files into component trees with pod, GPU and gang totals.

Importable without typer: the typer declaration (``inspect_options.py``) and the fast path of the
console script (``inspect_fast.py``) both run :func:`inspect_files`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from workloadmap.documents import load_objects
from workloadmap.interpreter import ObjectIndex, inspect_documents
from workloadmap.selectors import Selector
from workloadmap.tree import WorkloadTree

from ..printing import output
from ..printing.escape import escaped
from ..printing.formats import Output
from ..printing.sorting import sort_by as sort_by_path
from ..printing.usage import bad_parameter
from ..printing.views import Text, Views, dump, plain, template
from ..render.workloads import render_inspect_table, render_tree, with_summary
from .common import Collected, gpu_resources, load_catalog, selected


def resource_name(tree: WorkloadTree) -> str:
    """``kind.group/name`` as `kubectl get -o name` prints a resource (``pod/x`` for the core group)."""
    group = tree.workload.api_version.rpartition("/")[0]
    kind = tree.workload.kind.lower()
    return f"{kind}.{group}/{tree.workload.name}" if group else f"{kind}/{tree.workload.name}"


def trees_text(trees: list[WorkloadTree]) -> str:
    """Trees as ``-o tree`` draws them, one after another (``wmap get -o tree`` too)."""
    return "\n".join(render_tree(tree) for tree in escaped(trees))


def _document(trees: list[WorkloadTree]) -> object:
    """What ``-o json`` prints: the tree, or a ``List`` of several."""
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
        "name": plain(lambda trees: "".join(f"{resource_name(tree)}\n" for tree in escaped(trees))),
        "json": dump(_document),
        "yaml": dump(_document),
        "templates": template(_document),
    }
)
"""The views of ``wmap inspect``, on the list of trees."""
DEFAULT_VIEW = VIEWS.default


def inspect_output(value: str, *, no_headers: bool = False, summary: bool = False) -> Output:
    """The ``-o`` value of ``wmap inspect``, parsed (typer.BadParameter when it is not one, exit 2)."""
    return replace(VIEWS.parse(value), header=not no_headers, summary=summary)


def inspect_sources(files: Sequence[str] | None, filename: Sequence[str] | None) -> list[str]:
    """The sources to read: FILE arguments, then ``-f`` values (typer.BadParameter when there are none)."""
    sources = list(files or []) + list(filename or [])
    if not sources:
        raise bad_parameter("give at least one FILE, DIR or - (standard input)", param_hint="FILE")
    return sources


def inspect_files(
    sources: Sequence[str],
    chosen: Output,
    *,
    catalog_dirs: Sequence[Path] | None = None,
    recursive: bool = False,
    gpu_resource: Sequence[str] | None = None,
    related: Sequence[str] | None = None,
    selector: Selector | None = None,
    sort_by: str | None = None,
) -> int:
    """Expand the workloads of ``sources``, print them as ``chosen``; the exit code (the worst document's).

    No usage error comes from here: the fast path checks the command line before it runs this
    (:func:`inspect_output`, :func:`inspect_sources`, ``Guard.from_options``) and leaves a usage
    error to typer, which can only report it before anything is printed.
    """
    catalog = load_catalog(list(catalog_dirs or []))
    related_objects = ObjectIndex.from_paths(list(related or []))
    collected = Collected()
    for source in sources:
        documents = selected(load_objects(source, recursive=recursive), selector)
        collected.add(
            inspect_documents(
                documents,
                catalog=catalog,
                gpu_resources=gpu_resources(list(gpu_resource or [])),
                related=related_objects,
            )
        )
    if not collected.codes:
        output.warn(f"note: no Kubernetes objects found in {', '.join(sources)}")
    trees = [tree for tree, _ in collected.trees]
    if sort_by is not None:
        trees = sort_by_path(trees, lambda tree: tree.to_dict(), sort_by)
    if trees:
        VIEWS.write(chosen, trees)
    elif selector is not None and collected.exit_code == 0:
        output.warn(f"No resources found matching {selector}.")
    return collected.exit_code
