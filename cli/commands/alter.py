"""``wmap alter``, ``wmap suspend``, ``wmap resume``: changed manifests (or merge patches) to apply.

Nothing is written to a cluster or to the input files: the manifests are printed, every document
of the input in order (ConfigMaps and other non-workload kinds unchanged), for ``kubectl apply``;
``--patch`` prints one ``kubectl patch --type merge`` per changed object instead. The printed
manifests are the input plus the changed lines (comments, key order, quoting and layout kept;
JSON stays JSON: ``printing/roundtrip.py``).

Every document that can take the change gets it; one that cannot (a NIMCache has no schedulerName)
is printed unchanged with a warning naming it and why, and a TrainJob whose runtime is in the same
input is changed through that runtime. Exit 0 when at least one document took the change, 1 when
none did; ``--strict`` makes any refusal an error. When a document cannot be read (or has no
definition), nothing is printed, so a pipe into ``kubectl apply`` never applies half a change.

Importable without typer: ``wmap alter``'s command line is declared once here (:data:`FILES`,
:data:`OPTIONS`); typer's declaration (``alter_options.py``) and the console script's own reader
(``fast.py``) are both built from it, and both run :func:`prepare`'s command.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional

from workloadmap import labels
from workloadmap.catalog import NON_WORKLOAD_KINDS, Catalog
from workloadmap.documents import Document, iter_input_files, read_text, text_objects
from workloadmap.errors import AlterError, InputError, ReferencedTemplateError, WorkloadMapError
from workloadmap.interpreter import ChainedObjects, ObjectIndex

from ..printing import output
from ..printing.options import ArgumentSpec, OptionSpec
from ..printing.usage import bad_parameter
from ..printing.views import Views, dump, plain
from .common import (
    CATALOG,
    RELATED,
    Guard,
    guard_options,
    load_catalog,
    located_error,
    stdin_once,
    worst_exit_code,
)

if TYPE_CHECKING:  # heavy stages load inside the commands that use them
    from workloadmap.alter import Alteration, Changes

PATCH_HELP = "Print a `kubectl patch --type merge` per changed object instead of the manifests."
STRICT_HELP = (
    "All or nothing: when any document cannot take the change, print nothing (exit 1). Without it the others "
    "are changed and each refused one is printed unchanged with a warning."
)


def _pairs(values: Optional[List[str]], option: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for text in values or []:
        key, equals, value = text.partition("=")
        if not equals or not key:
            raise bad_parameter(f"{text!r} is not KEY=VALUE", param_hint=option)
        pairs[key] = value
    return pairs


def _resource(obj: Mapping[str, Any]) -> str:
    """``kind.group`` as kubectl names a resource type (``jobset.jobset.x-k8s.io``; ``pod`` for the core group)."""
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    kind = str(obj.get("kind", "")).lower()
    return f"{kind}.{group}" if group else kind


def _patches(alterations: list[Alteration]) -> list[dict[str, Any]]:
    """One merge patch per changed object (an object that did not change is noted on stderr)."""
    entries: list[dict[str, Any]] = []
    for alteration in alterations:
        patch = alteration.patch()
        if not patch:
            output.warn(f"note: {alteration.workload}: nothing changed")
            continue
        workload = alteration.workload
        entries.append(
            {
                "apiVersion": workload.api_version,
                "kind": workload.kind,
                "namespace": workload.namespace,
                "name": workload.name,
                "type": "merge",
                "patch": patch,
            }
        )
    return entries


def _kubectl_patches(entries: list[dict[str, Any]]) -> str:
    """One ``kubectl patch --type merge`` command line per patch."""
    lines = []
    for entry in entries:
        namespace = f" -n {shlex.quote(str(entry['namespace']))}" if entry["namespace"] else ""
        body = json.dumps(entry["patch"], separators=(",", ":"))
        lines.append(
            f"kubectl patch {shlex.quote(_resource(entry))} {shlex.quote(str(entry['name']))}{namespace} "
            f"--type merge -p {shlex.quote(body)}"
        )
    return "".join(line + "\n" for line in lines)


def _patch_data(kind: str) -> Callable[[list[dict[str, Any]]], str]:
    """The patches as a json or yaml ``List`` (nothing at all when there are none)."""
    return lambda entries: output.dump(output.as_list(entries), kind) if entries else ""


@dataclass
class Printed:
    """What the manifest views write: every document of the input, in order, and the files they came from.

    Attributes:
        objects: each document as it is to be printed (changed or not).
        files: the input files with their changed documents, for the YAML view that keeps their layout.
        keep_json: JSON files stay JSON (no -o given); with ``-o yaml`` they are written as YAML.
    """

    objects: list[Any] = field(default_factory=list)
    files: list[Any] = field(default_factory=list)
    keep_json: bool = True


def _kept_layout(printed: Printed) -> str:
    from ..printing.roundtrip import render_files  # ruamel.yaml loads for alter's output only

    files = printed.files
    if not files:  # objects without a file to keep the layout of (the library's callers, tests)
        return output.dump_manifests(printed.objects)
    if not printed.keep_json:
        files = [source for source in files if not source.text.lstrip().startswith(("{", "["))]
        if len(files) != len(printed.files):
            return output.dump_manifests(printed.objects)
    return render_files(files, lambda obj: output.dump_manifests([obj]), output.warn)


MANIFESTS = Views({"yaml": plain(_kept_layout), "json": dump(lambda printed: output.as_list(printed.objects))})
"""The views of the changed manifests (every document of the input, in order): the -o values."""
PATCHES = Views(
    {"kubectl": plain(_kubectl_patches), "yaml": plain(_patch_data("yaml")), "json": plain(_patch_data("json"))}
)
"""The views of ``--patch``: kubectl commands without -o (no -o value names them), else the patches as data."""


def _is_workload(body: Any, catalog: Catalog) -> bool:
    """Kinds that travel with workloads but run no pods (ConfigMap, Service ...) pass through unchanged."""
    if not isinstance(body, Mapping):
        return True
    kind, api_version = body.get("kind"), body.get("apiVersion")
    return not (
        isinstance(kind, str)
        and kind in NON_WORKLOAD_KINDS
        and isinstance(api_version, str)
        and catalog.lookup(api_version, kind) is None
    )


def _report(alteration: Alteration, patch: bool) -> None:
    for warning in alteration.warnings:
        output.warn(f"warning: {alteration.workload}: {warning}")
    if alteration.removed and not patch:
        output.warn(
            f"note: {alteration.workload}: removes {', '.join(alteration.removed)}; `kubectl apply` removes a field "
            "only if it applied it before: use --patch (or kubectl replace)"
        )


@dataclass
class _Outcome:
    """One document of the input and what became of it."""

    document: Document
    alteration: Alteration | None = None
    refusal: AlterError | None = None
    through: Document | None = None  # a TrainJob changed through its runtime, this document of the input


def _read(sources: List[str], recursive: bool, codes: list[int]) -> tuple[list[Any], list[Document]]:
    """The input files (with their text) and their documents; unreadable ones reported, their codes kept."""
    from ..printing.roundtrip import SourceFile

    files, documents = [], []
    for source in sources:
        try:
            names = iter_input_files(source, recursive=recursive)
        except WorkloadMapError as error:
            output.error(str(error))
            codes.append(error.exit_code)
            continue
        for name in names:
            try:
                text = read_text(name)
            except WorkloadMapError as error:
                output.error(str(error))
                codes.append(error.exit_code)
                continue
            files.append(SourceFile(name, text))
            for document in text_objects(text, name):
                if isinstance(document, WorkloadMapError):
                    output.error(str(document))
                    codes.append(document.exit_code)
                else:
                    documents.append(document)
    return files, documents


def _identity(body: Any) -> tuple[str | None, str | None, str | None]:
    """(kind, namespace, name) of an object; a field that is not a string (`name: [1, 2]`) is None."""
    metadata = body.get("metadata") if isinstance(body, Mapping) else None
    metadata = metadata if isinstance(metadata, Mapping) else {}
    kind = body.get("kind") if isinstance(body, Mapping) else None
    fields = (kind, metadata.get("namespace"), metadata.get("name"))
    kind, namespace, name = (value if isinstance(value, str) else None for value in fields)
    return kind, namespace, name


def _where(document: Document) -> str:
    return f"#{document.index}" + (f" item {document.item}" if document.item is not None else "")


def _through_runtimes(outcomes: list[_Outcome], own_part: Callable[[Document], Alteration | None]) -> None:
    """Refusals for a pod template that lives in a referenced object of the input, which took the change.

    Such a document is changed through that object (a TrainJob through its TrainingRuntime); what
    the change sets on the object itself (labels, annotations, queue, suspension) is still set on
    it, by ``own_part``.
    """
    altered = {_identity(o.document.body): o.document for o in outcomes if o.alteration is not None}
    for outcome in outcomes:
        refusal = outcome.refusal
        if isinstance(refusal, ReferencedTemplateError):
            holder = altered.get((refusal.kind, refusal.namespace, refusal.name))
            if holder is None and refusal.namespace is None:  # a namespaced runtime named without its namespace
                namespace = _identity(outcome.document.body)[1]
                holder = altered.get((refusal.kind, namespace, refusal.name))
            if holder is not None:
                outcome.through, outcome.refusal = holder, None
                try:
                    outcome.alteration = own_part(outcome.document)
                except AlterError as error:  # its pods still change through the runtime; its own part cannot
                    outcome.refusal = error.located(file=outcome.document.file, document=outcome.document.label)


def _judged(
    outcomes: list[_Outcome], codes: list[int], *, strict: bool, sources: List[str], empty: bool
) -> list[_Outcome]:
    """The outcomes that took the change; refusals reported (errors with ``strict`` or when none took it).

    Raises:
        SystemExit: some document is in error: nothing is to be printed.
    """
    took = [outcome for outcome in outcomes if outcome.alteration is not None or outcome.through is not None]
    refused = [outcome.refusal for outcome in outcomes if outcome.refusal is not None]
    for refusal in refused:
        if strict or not took:
            output.error(str(refusal))
            codes.append(refusal.exit_code)
        else:
            output.warn(f"warning: {refusal.location}: left unchanged: {refusal.message}")
    if empty and not codes:
        output.warn(f"note: no Kubernetes objects found in {', '.join(sources)}")
    if codes:
        why = "fix the errors above" if took or not refused else "no document could take the change"
        output.warn(f"note: nothing printed: {why} (a partial change is never printed)")
        raise SystemExit(worst_exit_code(codes))
    for outcome in took:
        if outcome.through is not None:
            kind, _, name = _identity(outcome.through.body)
            output.warn(
                f"note: {outcome.document.file}, document {outcome.document.label}: its pods are changed "
                f"through {kind}/{name} (document {_where(outcome.through)} of this input), which holds "
                "their template"
            )
    return took


def _print(
    outcomes: list[_Outcome], took: list[_Outcome], files: list[Any], output_format: str | None, patch: bool
) -> None:
    for outcome in took:
        if outcome.alteration is not None:
            _report(outcome.alteration, patch)
    if patch:
        alterations = [outcome.alteration for outcome in took if outcome.alteration is not None]
        PATCHES.write(PATCHES.parse(output_format or PATCHES.default), _patches(alterations))
        return
    printed = Printed(files=files, keep_json=output_format is None)
    by_name = {source.name: source for source in files}
    for outcome in outcomes:
        document, alteration = outcome.document, outcome.alteration
        printed.objects.append(alteration.object if alteration is not None else document.body)
        if alteration is not None:
            by_name[document.file].changed[(document.index, document.item)] = (document.body, alteration.object)
    MANIFESTS.write(MANIFESTS.parse(output_format or MANIFESTS.default), printed)


def run(
    sources: List[str],
    changes: Changes,
    *,
    component: Optional[str],
    output_format: str | None,
    patch: bool,
    recursive: bool,
    catalog_dirs: Optional[List[Path]],
    related: Optional[List[str]],
    strict: bool = False,
) -> None:
    """Alter every document of ``sources`` that can take the change and print the result.

    Nothing is printed when a document cannot be read or has no definition, nor when no document
    took the change (exit 1), nor with ``strict`` when any refused it. Standard input given twice is
    a usage error (typer.BadParameter, exit 2).
    """
    from workloadmap.alter import Changes as Requested
    from workloadmap.alter import alter

    stdin_once({"FILE": sources, "--related": related})
    catalog = load_catalog(catalog_dirs)
    codes: list[int] = []
    files, documents = _read(sources, recursive, codes)
    own = ObjectIndex(document.body for document in documents)
    objects = ChainedObjects(own, ObjectIndex.from_paths(related)) if related else own
    outcomes: list[_Outcome] = []
    for document in documents:
        outcome = _Outcome(document)
        outcomes.append(outcome)
        if not _is_workload(document.body, catalog):
            continue
        try:
            if not isinstance(document.body, Mapping):  # a List item that is no object: `items: [5]`
                raise InputError(f"expected a Kubernetes object (a mapping), got {type(document.body).__name__}")
            outcome.alteration = alter(
                document.body, changes, component=component, catalog=catalog, related=objects, existing=patch
            )
        except AlterError as error:  # this document cannot take the change: the others still can
            outcome.refusal = error.located(file=document.file, document=document.label)
        except Exception as error:  # each document is reported on its own, bugs included
            located = located_error(error, file=document.file, document=document.label)
            output.error(str(located))
            codes.append(located.exit_code)
    own_changes = Requested(
        labels=changes.labels, annotations=changes.annotations, queue=changes.queue, suspend=changes.suspend
    )  # what a TrainJob changed through its runtime still gets on itself

    def own_part(document: Document) -> Alteration | None:
        if own_changes.empty:
            return None
        return alter(document.body, own_changes, catalog=catalog, related=objects, existing=patch)

    _through_runtimes(outcomes, own_part)
    took = _judged(outcomes, codes, strict=strict, sources=sources, empty=not documents)
    _print(outcomes, took, files, output_format, patch)


OUTPUT_HELP = "Output format (default yaml; with --patch, the patches as data instead of kubectl commands)"


def _workload_ref(text: Optional[str]) -> Optional[tuple[str, str]]:
    """``--workload-ref WORKLOAD/PODGROUP`` as a pair."""
    if text is None:
        return None
    workload, slash, pod_group = text.partition("/")
    if not slash or not workload or not pod_group:
        raise ValueError(f"--workload-ref {text!r}: give WORKLOAD/PODGROUP")
    return workload, pod_group


FILES = ArgumentSpec("files", "FILE...", "FILE, DIR or - (standard input).", required=True)
RECURSIVE = OptionSpec("recursive", ("-R", "--recursive"), "Read directories recursively.", value=bool, default=False)
PATCH = OptionSpec("patch", ("--patch",), PATCH_HELP, value=bool, default=False)
STRICT = OptionSpec("strict", ("--strict",), STRICT_HELP, value=bool, default=False)


def _text(name: str, flag: str, metavar: str, help: str, *, multiple: bool = False) -> OptionSpec:
    return OptionSpec(name, (flag,), help, metavar=metavar, multiple=multiple)


_OWN: tuple[OptionSpec, ...] = (
    _text("scheduler_name", "--scheduler-name", "NAME", "The pods' schedulerName."),
    _text("label", "--label", "KEY=VALUE", "K=V label of the workload object (repeatable).", multiple=True),
    _text("annotation", "--annotation", "KEY=VALUE", "K=V annotation of the object.", multiple=True),
    _text("pod_label", "--pod-label", "KEY=VALUE", "K=V label of every pod (repeatable).", multiple=True),
    _text("pod_annotation", "--pod-annotation", "KEY=VALUE", "K=V annotation of the pods.", multiple=True),
    _text("node_selector", "--node-selector", "KEY=VALUE", "K=V nodeSelector entry.", multiple=True),
    _text(
        "toleration",
        "--toleration",
        "KEY[=VALUE][:EFFECT]",
        f"KEY[=VALUE][:EFFECT], as a taint is written ({labels.NVIDIA_GPU}:NoSchedule).",
        multiple=True,
    ),
    _text("priority_class", "--priority-class", "NAME", "The pods' priorityClassName."),
    _text(
        "queue", "--queue", "QUEUE", f"Queue: labels {labels.KAI_QUEUE} and {labels.KUEUE_QUEUE_NAME} on the object."
    ),
    _text(
        "scheduling_group",
        "--scheduling-group",
        "PODGROUP",
        "The native PodGroup the pods join (spec.schedulingGroup.podGroupName, Kubernetes 1.36+).",
    ),
    _text(
        "workload_ref",
        "--workload-ref",
        "WORKLOAD/PODGROUP",
        "The v1alpha1 Workload and pod group the pods join (spec.workloadRef, Kubernetes 1.35).",
    ),
    OptionSpec(
        "clique_affinity",
        ("--clique-affinity",),
        f"Keep the pods in one NVLink clique, as NVIDIA recommends for ComputeDomain workloads: a pod label "
        f"{labels.WMAP_CLIQUE_GROUP}=<workload name> and a required podAffinity on it with topologyKey "
        f"{labels.GPU_CLIQUE}.",
        value=bool,
        default=False,
    ),
    _text("component", "--component", "NAME", "Only this component (path, role or name)."),
    MANIFESTS.spec("alter", OUTPUT_HELP, optional=True),
    PATCH,
    STRICT,
    RECURSIVE,
    CATALOG,
    RELATED,
)
OPTIONS: tuple[OptionSpec, ...] = (*_OWN, *guard_options([FILES.name, *(o.name for o in _OWN)], budgets=True))
"""Every option of ``wmap alter`` but ``--help``, in the order ``--help`` lists them: its own, then the guard's."""


def prepare(files: List[str] | None, values: Mapping[str, Any]) -> Callable[[], int]:
    """The command ``wmap alter FILES`` with option ``values`` (by name) runs, returning its exit code.

    Everything a usage error can come from is checked here, before anything runs: the guard's
    options, ``-o``, the changes asked for, standard input given once.

    Raises:
        typer.BadParameter: a usage error (exit 2, reported by typer under the usage line).
    """
    from workloadmap.alter import Changes, Toleration

    guard = Guard.from_options(dict(values))
    if not files:
        raise bad_parameter("give at least one FILE, DIR or - (standard input)", param_hint="FILE...")
    if values["output_format"] is not None:
        MANIFESTS.parse(values["output_format"])
    try:
        changes = Changes(
            scheduler_name=values["scheduler_name"],
            labels=_pairs(values["label"], "--label"),
            annotations=_pairs(values["annotation"], "--annotation"),
            pod_labels=_pairs(values["pod_label"], "--pod-label"),
            pod_annotations=_pairs(values["pod_annotation"], "--pod-annotation"),
            node_selector=_pairs(values["node_selector"], "--node-selector"),
            tolerations=tuple(Toleration.parse(text) for text in values["toleration"] or []),
            priority_class=values["priority_class"],
            queue=values["queue"],
            scheduling_group=values["scheduling_group"],
            workload_ref=_workload_ref(values["workload_ref"]),
            clique_affinity=labels.GPU_CLIQUE if values["clique_affinity"] else None,
        )
    except ValueError as error:
        raise bad_parameter(str(error)) from None
    if changes.empty:
        raise bad_parameter(
            "nothing to change: give --scheduler-name, --queue, --label, --pod-label, --toleration ...",
            param_hint="options",
        )
    sources, related = list(files), list(values["related"] or [])
    stdin_once({"FILE": sources, "--related": related})

    def command() -> int:
        run(
            sources, changes, component=values["component"], output_format=values["output_format"],
            patch=values["patch"], recursive=values["recursive"], catalog_dirs=values["catalog_dirs"],
            related=related or None, strict=values["strict"],
        )  # fmt: skip
        return 0

    return lambda: guard.call(command)
