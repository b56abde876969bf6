"""The ``wmap`` (and ``kubectl-wmap``) command line: every command is registered here, and only here.

Exit codes: 0 success; 1 invalid input or runtime error; 2 usage error; 3 placement does not fit
(only with ``--fail-unfit``, and ``--emit`` refusing); 4 no definition covers a kind; 5 placement
unknown (as 3). With several documents every one is processed and the exit code reports the worst
(1 before 4).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any, List, Optional

import typer

from workloadmap import __version__

from .completion import SHELLS, complete_command, script
from .examples import EXAMPLES
from .help import WmapCommand, WmapGroup
from .printing import output

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}
"""``-h`` is ``--help`` on every command, as in kubectl (commands inherit it from their group's context)."""


def _typer(help_text: str, path: str) -> typer.Typer:
    return typer.Typer(
        help=help_text,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
        rich_markup_mode=None,
        cls=type("Group", (WmapGroup,), {"examples": EXAMPLES.get(path, ()), "pending": {}}),
        context_settings=HELP_OPTIONS,
    )


def _command_class(path: str) -> type[WmapCommand]:
    return type("Command", (WmapCommand,), {"examples": EXAMPLES.get(path, ())})


def _command(group: typer.Typer, path: str, function: Callable[..., Any], help_text: str | None = None) -> None:
    """Register ``function`` as the command ``path`` (its last word) of ``group``, with its examples."""
    group.command(path.split()[-1], help=help_text, cls=_command_class(path))(function)


def _lazy(group: typer.Typer, path: str, target: str, help_text: str | None = None, *, budgets: bool = False) -> None:
    """Register ``target`` (``module.function`` in this package) as the command ``path`` of ``group``, guarded.

    The module is imported and the command built only when the command line names it (or help and
    completion list the commands): a cold ``wmap inspect`` imports no other command's module.
    """
    module, function = target.rsplit(".", 1)

    def build() -> Any:
        from typer.main import get_command_from_info
        from typer.models import CommandInfo

        from .commands.common import guarded

        callback = guarded(getattr(import_module(f"{__package__}.{module}"), function), budgets=budgets)
        info = CommandInfo(name=path.split()[-1], cls=_command_class(path), help=help_text, callback=callback)
        return get_command_from_info(info, pretty_exceptions_short=True, rich_markup_mode=None)

    group.info.cls.pending[path.split()[-1]] = build  # type: ignore[union-attr]


app = _typer("Expand AI workload custom resources into pod/GPU trees, gangs and topology placement.", "")
app.info.name = "wmap"
catalog_app = _typer("List, show, validate and lint workload definitions.", "catalog")
topology_app = _typer(
    "Read cluster topology (NodeList, Slurm topology.conf/yaml, Topograph model, preset:NAME, cluster:[CONTEXT]) "
    "and simulate clusters.",
    "topology",
)
cluster_app = _typer("Read-only live-cluster data: nodes and active pods for topology.", "cluster")


def _print_version(value: bool) -> None:
    if value:
        output.write(f"wmap {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", is_eager=True, callback=_print_version, help="Print the wmap version and exit."
    ),
) -> None:
    """Expand AI workload custom resources into pod/GPU trees, gangs and topology placement."""


def version() -> None:
    """Print the wmap version."""
    output.write(f"wmap {__version__}\n")


def completion(shell: str = typer.Argument(..., metavar="SHELL", help=f"One of {', '.join(SHELLS)}.")) -> None:
    """Print the shell completion script for bash, zsh or fish.

    `kubectl wmap` completes through the `kubectl_complete-wmap` command installed with wmap.
    """
    if shell not in SHELLS:
        raise typer.BadParameter(f"{shell!r} is not one of {', '.join(SHELLS)}", param_hint="SHELL")
    output.write(script(shell))


def command_tree() -> Any:
    """The click command of ``wmap`` with every command under it (each built when looked up): what completion walks."""
    from typer.main import get_command

    return get_command(app)


def _complete(words: Optional[List[str]] = typer.Argument(None)) -> None:
    output.write(complete_command(command_tree(), list(words or [])))


_lazy(app, "inspect", "commands.inspect_options.inspect")  # declares its guard's options (commands.inspect.OPTIONS)
_lazy(
    app,
    "place",
    "commands.place.place",
    "Which topology level each gang fits, and the scheduler objects that require it.",
    budgets=True,
)
_lazy(
    app,
    "admit",
    "commands.admit.admit_command",
    "Would Kueue (or KAI) admit the workload now: flavors per resource, or the reason why not.",
    budgets=True,
)
_lazy(
    app,
    "capacity",
    "commands.admit.capacity_command",
    "How many more copies of the workload fit now, per topology domain, and what the quota allows.",
    budgets=True,
)
_lazy(
    app,
    "get",
    "commands.get.get",
    "List workloads of a live cluster: phase, ready pods, GPUs (read-only; -w watches).",
    budgets=True,
)
_lazy(
    app,
    "describe",
    "commands.describe_options.describe_command",
    "A workload's components with their live pods, events and placement audit (read-only).",
    budgets=True,
)
_lazy(
    app,
    "diff",
    "commands.diff.diff_command",
    "What changes between two versions of workloads: pods, GPUs, resources, gangs, placement.",
    budgets=True,
)
_lazy(
    app,
    "serve",
    "commands.serve.serve",
    "Serve Prometheus metrics, the JSON API and a page for the live cluster's workloads (read-only).",
    budgets=True,
)
_lazy(
    app,
    "alter",
    "commands.alter_options.alter_command",
    "Change every pod template of a workload: scheduler, queue, labels, tolerations ...",
    budgets=True,
)
_lazy(
    app,
    "suspend",
    "commands.alter_options.suspend_command",
    "Suspend workloads through their operator's suspend field (printed, never applied).",
    budgets=True,
)
_lazy(
    app,
    "resume",
    "commands.alter_options.resume_command",
    "Resume suspended workloads (printed, never applied).",
    budgets=True,
)
_command(app, "version", version)
_command(app, "completion", completion)
app.command(
    "__complete",
    hidden=True,
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []},
)(_complete)

_lazy(catalog_app, "catalog list", "commands.catalog.catalog_list")
_lazy(catalog_app, "catalog show", "commands.catalog.catalog_show")
_lazy(catalog_app, "catalog validate", "commands.catalog.catalog_validate")
_lazy(catalog_app, "catalog lint", "commands.catalog.catalog_lint")
_lazy(catalog_app, "catalog schema", "commands.catalog.catalog_schema")
_lazy(catalog_app, "catalog export", "commands.catalog.catalog_export")
app.add_typer(catalog_app, name="catalog")

_lazy(topology_app, "topology show", "commands.topology.show", budgets=True)
_lazy(topology_app, "topology generate", "commands.topology.generate", budgets=True)
_lazy(topology_app, "topology presets", "commands.topology.presets")
app.add_typer(topology_app, name="topology")

_lazy(
    cluster_app,
    "cluster nodes",
    "commands.live.nodes",
    "Print the cluster's NodeList (feeds `wmap topology show` and `wmap place -t`).",
    budgets=True,
)
_lazy(cluster_app, "cluster pods", "commands.live.pods", "Print the active PodList (feeds --pods).", budgets=True)
app.add_typer(cluster_app, name="cluster")
