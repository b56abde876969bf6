"""What several commands share: options, catalog loading, the result loop and the exit-code rule.

Importable without typer (the fast path of ``wmap inspect`` runs without it): the shared options
are declared as typer-free :class:`~workloadmap.cli.printing.options.OptionSpec` values, made typer options
when a command is declared.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional, TypeVar

from workloadmap.budgets import (
    DEFAULT_BUDGETS,
    FEATURE_GATES,
    active,
    allowing_references,
    applied,
    deadline_after,
    environment_name,
    parse_feature_gates,
    parse_kind,
    with_feature_gates,
)
from workloadmap.catalog import Catalog
from workloadmap.errors import DeadlineError, WorkloadMapError, internal_error
from workloadmap.interpreter import InspectResult
from workloadmap.kai_releases import DEFAULT_KAI_RELEASE, KAI_LINES, KaiRelease, parse_kai_version, with_kai_release
from workloadmap.loader import LIMIT_FLAGS, TOPOLOGY_LIMITS, WORKLOAD_LIMITS, limits_set
from workloadmap.resources import DEFAULT_GPU_RESOURCES
from workloadmap.tree import WorkloadTree

from ..printing import output
from ..printing.options import OptionSpec
from ..printing.usage import bad_parameter

if TYPE_CHECKING:
    from workloadmap.selectors import Selector

CATALOG_HELP = (
    "Directory (or file) of extra definitions; replaces built-ins for the same kind. Repeatable. "
    "Also read from $WMAP_CATALOG."
)
GPU_RESOURCE_HELP = "Resource name counted as a GPU (repeatable; default nvidia.com/gpu, amd.com/gpu)."
GPU_DEVICE_CLASS_HELP = (
    "DRA DeviceClass whose devices are GPUs (repeatable; besides NVIDIA's gpu.nvidia.com and classes named *gpu*)."
)
RELATED_HELP = (
    "FILE or DIR of objects workloads reference (e.g. TrainingRuntimes / ClusterTrainingRuntimes for TrainJobs); "
    "repeatable."
)

Command = TypeVar("Command", bound=Callable[..., Any])
T = TypeVar("T")


# The library's tables, read where a command needs them. Help texts that name them are deferred
# (printing/deferred.py): the topology and exporter stages load when help is printed, not on every run.


def source_forms() -> str:
    """Every form a topology SOURCE takes, in words, from the topology stage's tables of readers."""
    from workloadmap.topology import source_forms as forms

    *listed, last = forms()
    return f"{', '.join(listed)}, or {last}"


def default_preset() -> str:
    """The preset placement uses when no topology is given (the topology stage's)."""
    from workloadmap.topology import DEFAULT_PRESET

    return DEFAULT_PRESET


def export_targets() -> tuple[str, ...]:
    """The export targets ``--emit`` offers: the exporters' registry, as it is when asked."""
    from workloadmap.exporters import export_targets as registered

    return registered()


CATALOG = OptionSpec("catalog_dirs", ("--catalog",), CATALOG_HELP, metavar="DIR", value=Path, multiple=True)
GPU_RESOURCE = OptionSpec("gpu_resource", ("--gpu-resource",), GPU_RESOURCE_HELP, metavar="NAME", multiple=True)
RELATED = OptionSpec("related", ("--related", "--runtimes"), RELATED_HELP, metavar="FILE", multiple=True)
GPU_DEVICE_CLASS = OptionSpec(
    "gpu_device_class", ("--gpu-device-class",), GPU_DEVICE_CLASS_HELP, metavar="CLASS", multiple=True
)


def catalog_option() -> Any:
    """The `--catalog DIR` option (repeatable), for typer."""
    return CATALOG.typer()


def gpu_resource_option() -> Any:
    """The `--gpu-resource NAME` option (repeatable), for typer."""
    return GPU_RESOURCE.typer()


def gpu_device_class_option() -> Any:
    """The `--gpu-device-class CLASS` option (repeatable), for typer."""
    return GPU_DEVICE_CLASS.typer()


def related_option() -> Any:
    """The `--related FILE|DIR` option (alias `--runtimes`), for typer."""
    return RELATED.typer()


def kubeconfig_option() -> Any:
    """The `--kubeconfig FILE` option."""
    import typer

    return typer.Option(
        None, "--kubeconfig", metavar="KUBECONFIG", help="Path to the kubeconfig file (only that file is read)."
    )


def context_option() -> Any:
    """The `--context NAME` option."""
    import typer

    return typer.Option(None, "--context", metavar="CONTEXT", help="The kubeconfig context to use.")


SELECTOR_HELP = "Only workloads whose labels match, e.g. team=ml,tier!=dev ({what})."
SORT_BY_HELP = (
    "Sort the list by this field of each item as -o json prints it, as kubectl does: "
    "'{.totals.gpus}', '.metadata.creationTimestamp'."
)


def selector_spec(what: str = "files and cluster alike") -> OptionSpec:
    """The `-l/--selector SELECTOR` option: workloads whose labels match (kubectl's syntax)."""
    return OptionSpec("selector", ("-l", "--selector"), SELECTOR_HELP.format(what=what), metavar="SELECTOR")


SELECTOR = selector_spec()
SORT_BY = OptionSpec("sort_by", ("--sort-by",), SORT_BY_HELP, metavar="JSONPATH")
NO_HEADERS = OptionSpec(
    "no_headers",
    ("--no-headers",),
    "Tables and custom columns without their header line (and no summary line).",
    value=bool,
    default=False,
)
SUMMARY = OptionSpec(
    "summary", ("--summary",), "End with workloads, pods and GPUs by namespace and kind.", value=bool, default=False
)


def selector_option(what: str = "files and cluster alike") -> Any:
    """The `-l/--selector SELECTOR` option, for typer."""
    return selector_spec(what).typer()


def sort_by_option() -> Any:
    """The `--sort-by JSONPATH` option (kubectl's), for typer."""
    return SORT_BY.typer()


def no_headers_option() -> Any:
    """The `--no-headers` flag (kubectl's), for typer."""
    return NO_HEADERS.typer()


def summary_option() -> Any:
    """The `--summary` flag: totals by namespace and kind under a listing, for typer."""
    return SUMMARY.typer()


def parse_selector(text: Optional[str]) -> Selector | None:
    """A `-l` value parsed (None when not given); a malformed one is a usage error (exit 2)."""
    if text is None:
        return None
    from workloadmap.selectors import Selector, SelectorSyntaxError

    try:
        return Selector.parse(text)
    except SelectorSyntaxError as error:
        raise bad_parameter(str(error), param_hint="-l") from None


def labels_of(body: Any) -> dict[str, str]:
    """An object's ``metadata.labels`` (string values only: what a selector can match)."""
    metadata = body.get("metadata") if isinstance(body, dict) else None
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    if not isinstance(labels, dict):
        return {}
    return {str(key): value for key, value in labels.items() if isinstance(value, str)}


def selected(documents: Iterable[Any], selector: Selector | None) -> Iterator[Any]:
    """The documents whose object's labels match ``selector`` (all without one); errors pass through to be reported."""
    for document in documents:
        if selector is None or isinstance(document, WorkloadMapError) or selector.matches(labels_of(document.body)):
            yield document


def gpu_resources(names: Optional[List[str]], device_classes: Optional[List[str]] = None) -> tuple[str, ...]:
    """The resource names counted as GPUs: the option's, else the default pair.

    Each ``--gpu-device-class`` joins them as its KEP-5004 implicit name
    (``deviceclass.resource.kubernetes.io/CLASS``), which is how the DRA counting reads it.
    """
    from workloadmap.dra import gpu_class_resource

    chosen = tuple(names) if names else DEFAULT_GPU_RESOURCES
    return chosen + tuple(gpu_class_resource(name) for name in device_classes or () if name)


def load_catalog(dirs: Optional[List[Path]]) -> Catalog:
    """The built-in catalog plus user directories; a replaced built-in (and $WMAP_CATALOG) noted on stderr."""
    catalog = Catalog.load([str(directory) for directory in dirs or []])
    for notice in catalog.notices:
        output.warn(f"notice: {notice}")
    return catalog


def parse_levels(levels: Optional[str]) -> Optional[List[str]]:
    """`--levels a,b,c` as a list (None when not given)."""
    if levels is None:
        return None
    return [level.strip() for level in levels.split(",") if level.strip()]


def stdin_once(sources: dict[str, Any]) -> None:
    """Refuse ``-`` (standard input) given to more than one input, or twice to one: it can be read once.

    ``sources`` maps each input's name as the user wrote it (``FILE``, ``-t``) to its value or
    values (a path, a list of them, or None). A usage error (exit 2), never a silently empty read.
    """
    users: list[str] = []
    for name, value in sources.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        users.extend(name for item in values if item is not None and str(item) == "-")
    if len(users) > 1:
        given = " and ".join(dict.fromkeys(users)) if len(set(users)) > 1 else f"{users[0]} twice"
        raise bad_parameter(f"standard input (-) can be read only once; it is given for {given}", param_hint=users[-1])


def worst_exit_code(codes: Iterable[int]) -> int:
    """Invalid input (1) ranks above "no definition" (4); otherwise the highest code."""
    codes = list(codes)
    if 1 in codes:
        return 1
    return max(codes, default=0)


_DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s?)?$")


def parse_duration(text: str) -> float:
    """``30s``, ``5m``, ``1h30m`` or plain seconds as seconds (kubectl's duration forms)."""
    match = _DURATION.match(text.strip())
    if not text.strip() or match is None or not any(match.groups()) or not text.strip()[0].isdigit():
        raise bad_parameter(f"{text!r} is not a duration such as 30s, 5m or 1h", param_hint="--timeout")
    hours, minutes, seconds = match.groups()
    value = int(hours or 0) * 3600 + int(minutes or 0) * 60 + float(seconds or 0)
    if not value > 0:
        raise bad_parameter(f"{text!r} is not a positive duration", param_hint="--timeout")
    return value


ALLOW_REFERENCE_HELP = (
    "Let definitions reference this kind too (Kind or Kind.group, e.g. ConfigMap); repeatable. By default "
    "only runtime templates (TrainingRuntime, ServingRuntime ...): never Secrets or ConfigMaps."
)
TIMEOUT_HELP = "Stop with an error when the command takes longer than this (30s, 5m, 1h); default: no limit."

# Budget flags every command that reads workloads or clusters takes: (parameter, flag, Budgets field, help).
BUDGET_FLAGS = (
    ("max_pods", "--max-pods", "pods", "Most pods one workload may have"),
    ("max_pod_groups", "--max-pod-groups", "pod_groups", "Most PodGroups one workload may form"),
    ("max_sub_groups", "--max-sub-groups", "sub_groups", "Most SubGroups (KAI segments included) of one workload"),
    ("max_scaled_gangs", "--max-scaled-gangs", "scaled_gangs", "Most scaled gangs one scaling group may add"),
    ("max_nodes", "--max-nodes", "nodes", "Most nodes one cluster may have"),
    ("search_budget", "--search-budget", "search_steps", "Steps the exact packing search may take per question"),
)


INPUT_LIMIT_FLAGS = (
    ("max_input_bytes", LIMIT_FLAGS["max_bytes"], "max_bytes", "Most bytes of one input file or of standard input"),
    ("max_documents", LIMIT_FLAGS["max_documents"], "max_documents", "Most documents of one input stream"),
    ("max_depth", LIMIT_FLAGS["max_depth"], "max_depth", "Deepest nesting of mappings and lists in one document"),
    ("max_list_items", LIMIT_FLAGS["max_list_items"], "max_list_items", "Most items of one list in a document"),
)
"""The input limits (``loader.Limits``) as options: parameter, flag (the one the refusals name), field, help."""

TIMEOUT = OptionSpec("timeout", ("--timeout",), TIMEOUT_HELP)
FEATURE_GATES_HELP = (
    "Kubernetes feature gates of the cluster to model, as kube-apiserver takes them (Name=true,Other=false);"
    " repeatable; all off by default: " + "; ".join(f"{name}: {effect}" for name, effect in FEATURE_GATES.items()) + "."
)
FEATURE_GATE_OPTION = OptionSpec(
    "feature_gates", ("--feature-gates",), FEATURE_GATES_HELP, metavar="GATES", multiple=True
)
KAI_VERSION_VARIABLE = "WMAP_KAI_VERSION"
KAI_VERSION_HELP = (
    "KAI Scheduler release whose pod-grouper shapes the gangs: "
    + ", ".join(f"{line} (v{line}.{last}; or {line}.0..{line}.{last})" for line, (last, _) in KAI_LINES.items())
    + f"; default {DEFAULT_KAI_RELEASE}, the newest (env {KAI_VERSION_VARIABLE}). What changed per release:"
    " docs/kai-releases.md."
)
KAI_VERSION_OPTION = OptionSpec("kai_version", ("--kai-version",), KAI_VERSION_HELP, metavar="VERSION")
ALLOW_REFERENCE_KIND = OptionSpec(
    "allow_reference_kind", ("--allow-reference-kind",), ALLOW_REFERENCE_HELP, multiple=True
)
BUDGET_OPTIONS = tuple(
    OptionSpec(
        name,
        (flag,),
        f"{text} (default {getattr(DEFAULT_BUDGETS, field_name):,}; env {environment_name(flag)}).",
        value=int,
        minimum=1,
    )
    for name, flag, field_name, text in BUDGET_FLAGS
)
LIMIT_OPTIONS = tuple(
    OptionSpec(
        name,
        (flag,),
        f"{text} (default {getattr(WORKLOAD_LIMITS, field_name):,}, cluster files "
        f"{getattr(TOPOLOGY_LIMITS, field_name):,}; env {environment_name(flag)}).",
        value=int,
        minimum=1,
    )
    for name, flag, field_name, text in INPUT_LIMIT_FLAGS
)


def guard_options(own: Collection[str], *, budgets: bool) -> list[OptionSpec]:
    """The options :func:`guarded` adds to a command whose parameters are ``own``.

    ``--timeout``; ``--allow-reference-kind`` (what references may read),
    ``--feature-gates`` (the cluster's controllers modelled) and ``--kai-version`` (the KAI release whose
    pod-grouper is modelled) for commands that read definitions;
    with ``budgets``, the budget flags; none the command declares itself.
    """
    added = [TIMEOUT]
    if {"catalog_dirs", "paths", "files"} & set(own):
        added.extend((ALLOW_REFERENCE_KIND, FEATURE_GATE_OPTION, KAI_VERSION_OPTION))
    if budgets:
        added.extend(BUDGET_OPTIONS)
        added.extend(LIMIT_OPTIONS)
    return [option for option in added if option.name not in own]


def _injected(command: Callable[..., Any], budgets: bool) -> list[inspect.Parameter]:
    """The options :func:`guarded` adds to a command, as typer parameters."""
    return [option.parameter() for option in guard_options(inspect.signature(command).parameters, budgets=budgets)]


def guarded(command: Command, *, budgets: bool = False) -> Command:
    """Run a command so that a library error becomes one line on stderr and its exit code.

    Every command also gets ``--timeout`` (unless it declares its own, as ``get`` does), a deadline
    for the whole command; with ``budgets``, the ``--max-*`` budget flags too (see
    :func:`guard_options`). A command that declares them itself (``inspect``, whose one option table
    both of its readers share) applies its own :class:`Guard`.
    """
    added = _injected(command, budgets)
    names = {parameter.name for parameter in added}

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        guard = Guard.from_options({name: kwargs.pop(name) for name in names})
        return guard.call(lambda: command(*args, **kwargs))

    signature = inspect.signature(command)
    run.__signature__ = signature.replace(parameters=[*signature.parameters.values(), *added])  # type: ignore[attr-defined]
    return run  # type: ignore[return-value]


@dataclass(frozen=True)
class Guard:
    """What :func:`guarded` applies around a command: budget limits, a deadline, kinds references may read."""

    limits: dict[str, int] = field(default_factory=dict)
    seconds: float | None = None
    kinds: list[tuple[str, str]] = field(default_factory=list)
    inputs: dict[str, int] = field(default_factory=dict)
    """Input limits set (``loader.Limits`` fields), from their flags or environment variables."""
    gates: dict[str, bool] = field(default_factory=dict)
    """Kubernetes feature gates to model (``--feature-gates``)."""
    kai: KaiRelease | None = None
    """The KAI release to model (``--kai-version``, else ``WMAP_KAI_VERSION``; None: the newest)."""

    @classmethod
    def from_options(cls, given: dict[str, Any]) -> Guard:
        """The guard the injected options ask for (by parameter name; absent or None: the default).

        Raises:
            typer.BadParameter: a malformed ``--timeout`` or ``--allow-reference-kind`` (exit 2).
        """
        limits = _settings(given, BUDGET_FLAGS)
        inputs = _settings(given, INPUT_LIMIT_FLAGS)
        seconds = parse_duration(given["timeout"]) if given.get("timeout") is not None else None
        return cls(
            limits,
            seconds,
            _reference_kinds(given.get("allow_reference_kind")),
            inputs,
            _feature_gates(given.get("feature_gates")),
            _kai_release(given) if "kai_version" in given else None,
        )

    def call(self, command: Callable[[], T]) -> T:
        """``command()`` under this guard; a library error (or memory exhausted) is one line and SystemExit."""
        try:
            with (
                applied(replace(active(), **self.limits)),
                limits_set(self.inputs),
                allowing_references(self.kinds),
                with_feature_gates(self.gates),
                with_kai_release(self.kai),
                bounded(self.seconds),
            ):
                return command()
        except WorkloadMapError as error:
            output.error(str(error))
            raise SystemExit(error.exit_code) from None
        except MemoryError:
            output.error("out of memory: the input asks for more than this machine holds (see docs/security.md)")
            raise SystemExit(1) from None


def _settings(given: dict[str, Any], flags: Iterable[tuple[str, str, str, str]]) -> dict[str, int]:
    """Budgets or limits by field: each from its flag, else its environment variable (when the command has it).

    Raises:
        typer.BadParameter: an environment variable that is not a positive whole number (exit 2).
    """
    settings = {}
    for name, flag, field_name, _ in flags:
        if name not in given:
            continue  # a command without this option
        value = given[name]
        if value is None:
            variable = environment_name(flag)
            text = os.environ.get(variable)
            if text is None or not text.strip():
                continue
            if not text.strip().isdigit() or int(text) < 1:
                raise bad_parameter(f"{variable}={text!r} is not a positive whole number", param_hint=flag)
            value = int(text)
        settings[field_name] = value
    return settings


def _feature_gates(values: Optional[List[str]]) -> dict[str, bool]:
    try:
        return parse_feature_gates(values or [])
    except ValueError as error:
        raise bad_parameter(str(error), param_hint="--feature-gates") from None


def _kai_release(given: dict[str, Any]) -> KaiRelease | None:
    """The release ``--kai-version`` names, else ``WMAP_KAI_VERSION``; None when neither is set.

    Raises:
        typer.BadParameter: a version wmap has no model of (exit 2).
    """
    text = given.get("kai_version")
    hint = "--kai-version"
    if text is None:
        text = os.environ.get(KAI_VERSION_VARIABLE) or None
        hint = KAI_VERSION_VARIABLE
    if text is None:
        return None
    try:
        return parse_kai_version(text)
    except ValueError as error:
        raise bad_parameter(str(error), param_hint=hint) from None


def _reference_kinds(values: Optional[List[str]]) -> list[tuple[str, str]]:
    kinds = []
    for value in values or []:
        try:
            kinds.append(parse_kind(value))
        except ValueError as error:
            raise bad_parameter(str(error), param_hint="--allow-reference-kind") from None
    return kinds


@contextmanager
def bounded(seconds: float | None) -> Iterator[None]:
    """The command's deadline ``seconds`` from now (None: none), with the alarm behind it."""
    with deadline_after(seconds), alarm(seconds):
        yield


_ALARM_GRACE = 1.0  # seconds after the deadline: cooperative checks normally stop the work first


@contextmanager
def alarm(seconds: float | None) -> Iterator[None]:
    """A hard stop at the deadline (plus a grace second) for work that never reaches a deadline check."""
    if seconds is None:
        yield
        return
    import signal  # only with --timeout: not on every start
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield
        return

    def stop(_signum: int, _frame: Any) -> None:
        raise DeadlineError(f"stopped at the deadline of {seconds:g} s (--timeout)")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds + _ALARM_GRACE)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def located_error(error: Exception, *, file: str | None = None, document: str | None = None) -> WorkloadMapError:
    """Any exception raised while handling one document, as a located one-line error.

    Unexpected ones (bugs, memory or recursion exhausted) become an ``InternalError``; a passed
    deadline is re-raised, since it stops the whole command.
    """
    if isinstance(error, DeadlineError):
        raise error
    found = error if isinstance(error, WorkloadMapError) else internal_error(error)
    return found.located(file=file, document=document)


@dataclass
class Collected:
    """The trees of a run over documents (with each tree's source object) and every exit code."""

    trees: list[tuple[WorkloadTree, Any]] = field(default_factory=list)
    codes: list[int] = field(default_factory=list)
    sink: Callable[[WorkloadTree], None] | None = None
    """Where each tree goes as it is made, instead of :attr:`trees` (which then stays empty)."""

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
                if self.sink is not None:
                    self.sink(tree)
                else:
                    self.trees.append((tree, result.document.body if result.document is not None else None))
                self.codes.append(0)
        return self
