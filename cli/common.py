"""What several commands share: options, catalog loading, the result loop and the exit-code rule."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, List, Optional, TypeVar

import typer

from workloadmap.catalog import Catalog
from workloadmap.errors import WorkloadMapError
from workloadmap.interpreter import InspectResult
from workloadmap.resources import DEFAULT_GPU_RESOURCES
from workloadmap.tree import WorkloadTree

from . import output

CATALOG_HELP = (
    "Directory (or file) of extra definitions; replaces built-ins for the same kind. Repeatable. "
    "Also read from $WMAP_CATALOG."
)
GPU_RESOURCE_HELP = "Resource name counted as a GPU (repeatable; default nvidia.com/gpu, amd.com/gpu)."
RELATED_HELP = (
    "FILE or DIR of objects workloads reference (e.g. TrainingRuntimes / ClusterTrainingRuntimes for TrainJobs); "
    "repeatable."
)

SOURCE_FORMS = (
    "a Kubernetes NodeList (YAML or JSON, as `kubectl get nodes -o json` prints it), a Slurm topology.conf or "
    "topology.yaml, a Topograph simulation model, preset:NAME (see `wmap topology presets`), "
    "cluster:[CONTEXT] (the live cluster's nodes and running pods, read-only), or - (standard input)"
)
"""Every form a topology SOURCE takes, for the help of `-t` and `topology show`."""

Command = TypeVar("Command", bound=Callable[..., Any])

# Help texts name these at start-up, before the topology and exporter stages are imported (they
# load with the commands that use them); tests/cli/test_cli.py checks them against the library.
DEFAULT_PRESET_NAME = "nvl72-4rack"
EXPORT_TARGETS = ("demand", "kai", "kai-annotations", "kueue", "pinned", "volcano")


def catalog_option() -> Any:
    """The `--catalog DIR` option (repeatable)."""
    return typer.Option(None, "--catalog", metavar="DIR", help=CATALOG_HELP)


def gpu_resource_option() -> Any:
    """The `--gpu-resource NAME` option (repeatable)."""
    return typer.Option(None, "--gpu-resource", metavar="NAME", help=GPU_RESOURCE_HELP)


def related_option() -> Any:
    """The `--related FILE|DIR` option (alias `--runtimes`)."""
    return typer.Option(None, "--related", "--runtimes", metavar="FILE", help=RELATED_HELP)


def kubeconfig_option() -> Any:
    """The `--kubeconfig FILE` option."""
    return typer.Option(
        None, "--kubeconfig", metavar="KUBECONFIG", help="Path to the kubeconfig file (only that file is read)."
    )


def context_option() -> Any:
    """The `--context NAME` option."""
    return typer.Option(None, "--context", metavar="CONTEXT", help="The kubeconfig context to use.")


def gpu_resources(names: Optional[List[str]]) -> tuple[str, ...]:
    """The resource names counted as GPUs: the option's, else the default pair."""
    return tuple(names) if names else DEFAULT_GPU_RESOURCES


def load_catalog(dirs: Optional[List[Path]]) -> Catalog:
    """The built-in catalog plus user directories; a replaced built-in is noted on stderr."""
    catalog = Catalog.load([str(directory) for directory in dirs or []])
    for notice in catalog.notices:
        output.warn(f"notice: {notice}")
    return catalog


def parse_levels(levels: Optional[str]) -> Optional[List[str]]:
    """`--levels a,b,c` as a list (None when not given)."""
    if levels is None:
        return None
    return [level.strip() for level in levels.split(",") if level.strip()]


def worst_exit_code(codes: Iterable[int]) -> int:
    """Invalid input (1) ranks above "no definition" (4); otherwise the highest code."""
    codes = list(codes)
    if 1 in codes:
        return 1
    return max(codes, default=0)


def guarded(command: Command) -> Command:
    """Run a command so that a library error becomes one line on stderr and its exit code."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except WorkloadMapError as error:
            output.error(str(error))
            raise typer.Exit(error.exit_code) from None

    return run  # type: ignore[return-value]


@dataclass
class Collected:
    """The trees of a run over documents (with each tree's source object) and every exit code."""

    trees: list[tuple[WorkloadTree, Any]] = field(default_factory=list)
    codes: list[int] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """The worst exit code (see :func:`worst_exit_code`)."""
        return worst_exit_code(self.codes)

    def add(self, results: Iterable[InspectResult]) -> Collected:
        """Report notes, errors and warnings of each result on stderr; keep the trees."""
        for result in results:
            if result.skipped:
                output.warn(f"note: {result.skipped}")
                self.codes.append(0)
            elif result.error is not None:
                output.error(str(result.error))
                self.codes.append(result.error.exit_code)
            elif result.tree is not None:
                tree = result.tree
                for warning in tree.warnings:
                    output.warn(f"warning: {tree.workload}: {warning}")
                self.trees.append((tree, result.document.body if result.document is not None else None))
                self.codes.append(0)
        return self
