"""The ``wmap`` (and ``kubectl-wmap``) command line: every command is registered here, and only here.

Exit codes: 0 success; 1 invalid input or runtime error; 2 usage error; 3 placement does not fit
(only with ``--fail-unfit``, and ``--emit`` refusing); 4 no definition covers a kind; 5 placement
unknown (as 3). With several documents every one is processed and the exit code reports the worst
(1 before 4).
"""

from __future__ import annotations

import os
import sys

import typer

from workloadmap import __version__
from workloadmap.errors import WorkloadMapError

from . import alter_cmd, catalog_cmd, describe_cmd, get_cmd, inspect_cmd, live_cmd, output, place_cmd, topology_cmd
from .common import guarded


def _typer(help_text: str) -> typer.Typer:
    return typer.Typer(
        help=help_text,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
        rich_markup_mode=None,
    )


app = _typer("Expand AI workload custom resources into pod/GPU trees, gangs and topology placement.")
app.info.name = "wmap"
catalog_app = _typer("List, show, validate and lint workload definitions.")
topology_app = _typer(
    "Read cluster topology (NodeList, Slurm topology.conf/yaml, Topograph model, preset, live cluster) "
    "and simulate clusters."
)
cluster_app = _typer("Read-only live-cluster data: nodes and active pods for topology.")


def version() -> None:
    """Print the wmap version."""
    output.write(f"wmap {__version__}\n")


app.command("inspect")(guarded(inspect_cmd.inspect, budgets=True))
app.command("place", help="Which topology level each gang fits, and the scheduler objects that require it.")(
    guarded(place_cmd.place, budgets=True)
)
app.command("get", help="List workloads of a live cluster: phase, ready pods, GPUs (read-only; -w watches).")(
    guarded(get_cmd.get, budgets=True)
)
app.command("describe", help="A workload's components with their live pods, events and placement audit (read-only).")(
    guarded(describe_cmd.describe_command, budgets=True)
)
app.command("alter", help="Change every pod template of a workload: scheduler, queue, labels, tolerations ...")(
    guarded(alter_cmd.alter_command, budgets=True)
)
app.command("suspend", help="Suspend workloads through their operator's suspend field (printed, never applied).")(
    guarded(alter_cmd.suspend_command, budgets=True)
)
app.command("resume", help="Resume suspended workloads (printed, never applied).")(
    guarded(alter_cmd.resume_command, budgets=True)
)
app.command("version")(version)

catalog_app.command("list")(guarded(catalog_cmd.catalog_list))
catalog_app.command("show")(guarded(catalog_cmd.catalog_show))
catalog_app.command("validate")(guarded(catalog_cmd.catalog_validate))
catalog_app.command("lint")(guarded(catalog_cmd.catalog_lint))
catalog_app.command("schema")(guarded(catalog_cmd.catalog_schema))
catalog_app.command("export")(guarded(catalog_cmd.catalog_export))
app.add_typer(catalog_app, name="catalog")

topology_app.command("show")(guarded(topology_cmd.show, budgets=True))
topology_app.command("generate")(guarded(topology_cmd.generate, budgets=True))
topology_app.command("presets")(guarded(topology_cmd.presets))
app.add_typer(topology_app, name="topology")

cluster_app.command("nodes", help="Print the cluster's NodeList (feeds `wmap topology show` and `wmap place -t`).")(
    guarded(live_cmd.nodes, budgets=True)
)
cluster_app.command("pods", help="Print the active PodList (feeds --pods).")(guarded(live_cmd.pods, budgets=True))
app.add_typer(cluster_app, name="cluster")


def run() -> None:
    """Console-script entry point: library errors become one-line messages, never tracebacks."""
    try:
        app(standalone_mode=True)
    except WorkloadMapError as error:
        output.error(str(error))
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # `wmap ... | head`: the reader went away; nothing more to say.
        sys.exit(0)
    except Exception as error:  # a bug: say so in one line unless asked for the traceback
        if os.environ.get("WMAP_DEBUG"):
            raise
        output.error(f"internal error: {type(error).__name__}: {error} (set WMAP_DEBUG=1 for a traceback)")
        sys.exit(1)
