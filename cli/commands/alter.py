"""``wmap alter``, ``wmap suspend``, ``wmap resume``: changed manifests (or merge patches) to apply.

Nothing is written to a cluster or to the input files: the manifests are printed, every document
of the input in order (ConfigMaps and other non-workload kinds unchanged), for ``kubectl apply``;
``--patch`` prints one ``kubectl patch --type merge`` per changed object instead. When any document
fails, nothing is printed, so a pipe into ``kubectl apply`` never applies half a change.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional

import typer

from workloadmap import labels
from workloadmap.catalog import NON_WORKLOAD_KINDS, Catalog
from workloadmap.documents import Document, load_objects
from workloadmap.errors import InputError, WorkloadMapError
from workloadmap.interpreter import ChainedObjects, ObjectIndex

from ..printing import output
from ..printing.views import Views, dump, plain
from .common import catalog_option, load_catalog, located_error, related_option, worst_exit_code

if TYPE_CHECKING:  # heavy stages load inside the commands that use them
    from workloadmap.alter import Alteration, Changes

PATCH_HELP = "Print a `kubectl patch --type merge` per changed object instead of the manifests."


def _pairs(values: Optional[List[str]], option: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for text in values or []:
        key, equals, value = text.partition("=")
        if not equals or not key:
            raise typer.BadParameter(f"{text!r} is not KEY=VALUE", param_hint=option)
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


MANIFESTS = Views({"yaml": plain(output.dump_manifests), "json": dump(output.as_list)})
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
) -> None:
    """Alter every document of ``sources`` and print the result (or nothing, when one fails)."""
    from workloadmap.alter import alter

    catalog = load_catalog(catalog_dirs)
    documents = [document for source in sources for document in load_objects(source, recursive=recursive)]
    own = ObjectIndex(document.body for document in documents if isinstance(document, Document))
    objects = ChainedObjects(own, ObjectIndex.from_paths(related)) if related else own
    printed: list[Any] = []
    alterations: list[Alteration] = []
    codes: list[int] = []
    for document in documents:
        if isinstance(document, WorkloadMapError):
            output.error(str(document))
            codes.append(document.exit_code)
            continue
        if not _is_workload(document.body, catalog):
            printed.append(document.body)
            continue
        try:
            if not isinstance(document.body, Mapping):  # a List item that is no object: `items: [5]`
                raise InputError(f"expected a Kubernetes object (a mapping), got {type(document.body).__name__}")
            alteration = alter(document.body, changes, component=component, catalog=catalog, related=objects)
        except Exception as error:  # each document is reported on its own, bugs included
            located = located_error(error, file=document.file, document=document.label)
            output.error(str(located))
            codes.append(located.exit_code)
            continue
        _report(alteration, patch)
        alterations.append(alteration)
        printed.append(alteration.object)
    if not documents:
        output.warn(f"note: no Kubernetes objects found in {', '.join(sources)}")
    if codes:
        output.warn("note: nothing printed: fix the errors above (a partial change is never printed)")
        raise typer.Exit(worst_exit_code(codes))
    if patch:
        PATCHES.write(PATCHES.parse(output_format or PATCHES.default), _patches(alterations))
    else:
        MANIFESTS.write(MANIFESTS.parse(output_format or MANIFESTS.default), printed)


OUTPUT_HELP = "Output format (default yaml; with --patch, the patches as data instead of kubectl commands)"


def _workload_ref(text: Optional[str]) -> Optional[tuple[str, str]]:
    """``--workload-ref WORKLOAD/PODGROUP`` as a pair."""
    if text is None:
        return None
    workload, slash, pod_group = text.partition("/")
    if not slash or not workload or not pod_group:
        raise ValueError(f"--workload-ref {text!r}: give WORKLOAD/PODGROUP")
    return workload, pod_group


def alter_command(
    files: List[str] = typer.Argument(..., metavar="FILE...", help="FILE, DIR or - (standard input)."),
    scheduler_name: Optional[str] = typer.Option(
        None, "--scheduler-name", metavar="NAME", help="The pods' schedulerName."
    ),
    label: Optional[List[str]] = typer.Option(
        None, "--label", metavar="KEY=VALUE", help="K=V label of the workload object (repeatable)."
    ),
    annotation: Optional[List[str]] = typer.Option(
        None, "--annotation", metavar="KEY=VALUE", help="K=V annotation of the object."
    ),
    pod_label: Optional[List[str]] = typer.Option(
        None, "--pod-label", metavar="KEY=VALUE", help="K=V label of every pod (repeatable)."
    ),
    pod_annotation: Optional[List[str]] = typer.Option(
        None, "--pod-annotation", metavar="KEY=VALUE", help="K=V annotation of the pods."
    ),
    node_selector: Optional[List[str]] = typer.Option(
        None, "--node-selector", metavar="KEY=VALUE", help="K=V nodeSelector entry."
    ),
    toleration: Optional[List[str]] = typer.Option(
        None,
        "--toleration",
        metavar="KEY[=VALUE][:EFFECT]",
        help=f"KEY[=VALUE][:EFFECT], as a taint is written ({labels.NVIDIA_GPU}:NoSchedule).",
    ),
    priority_class: Optional[str] = typer.Option(
        None, "--priority-class", metavar="NAME", help="The pods' priorityClassName."
    ),
    queue: Optional[str] = typer.Option(
        None,
        "--queue",
        metavar="QUEUE",
        help=f"Queue: labels {labels.KAI_QUEUE} and {labels.KUEUE_QUEUE_NAME} on the object.",
    ),
    scheduling_group: Optional[str] = typer.Option(
        None,
        "--scheduling-group",
        metavar="PODGROUP",
        help="The native PodGroup the pods join (spec.schedulingGroup.podGroupName, Kubernetes 1.36+).",
    ),
    workload_ref: Optional[str] = typer.Option(
        None,
        "--workload-ref",
        metavar="WORKLOAD/PODGROUP",
        help="The v1alpha1 Workload and pod group the pods join (spec.workloadRef, Kubernetes 1.35).",
    ),
    component: Optional[str] = typer.Option(
        None, "--component", metavar="NAME", help="Only this component (path, role or name)."
    ),
    output_format: Optional[str] = MANIFESTS.option("alter", OUTPUT_HELP, optional=True),
    patch: bool = typer.Option(False, "--patch", help=PATCH_HELP),
    recursive: bool = typer.Option(False, "-R", "--recursive", help="Read directories recursively."),
    catalog_dirs: Optional[List[Path]] = catalog_option(),
    related: Optional[List[str]] = related_option(),
) -> None:
    """Set scheduler, queue, labels, tolerations, node selector or priority on every pod template of a workload."""
    from workloadmap.alter import Changes, Toleration

    try:
        changes = Changes(
            scheduler_name=scheduler_name,
            labels=_pairs(label, "--label"),
            annotations=_pairs(annotation, "--annotation"),
            pod_labels=_pairs(pod_label, "--pod-label"),
            pod_annotations=_pairs(pod_annotation, "--pod-annotation"),
            node_selector=_pairs(node_selector, "--node-selector"),
            tolerations=tuple(Toleration.parse(text) for text in toleration or []),
            priority_class=priority_class,
            queue=queue,
            scheduling_group=scheduling_group,
            workload_ref=_workload_ref(workload_ref),
        )
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    if changes.empty:
        raise typer.BadParameter(
            "nothing to change: give --scheduler-name, --queue, --label, --pod-label, --toleration ...",
            param_hint="options",
        )
    run(
        files, changes, component=component, output_format=output_format, patch=patch,
        recursive=recursive, catalog_dirs=catalog_dirs, related=related,
    )  # fmt: skip


def _suspension(suspend: bool) -> Any:
    def command(
        files: List[str] = typer.Argument(..., metavar="FILE...", help="FILE, DIR or - (standard input)."),
        output_format: Optional[str] = MANIFESTS.option("suspend" if suspend else "resume", OUTPUT_HELP, optional=True),
        patch: bool = typer.Option(False, "--patch", help=PATCH_HELP),
        recursive: bool = typer.Option(False, "-R", "--recursive", help="Read directories recursively."),
        catalog_dirs: Optional[List[Path]] = catalog_option(),
    ) -> None:
        from workloadmap.alter import Changes

        run(
            files, Changes(suspend=suspend), component=None, output_format=output_format, patch=patch,
            recursive=recursive, catalog_dirs=catalog_dirs, related=None,
        )  # fmt: skip

    verb = "Suspend" if suspend else "Resume"
    command.__doc__ = f"{verb} workloads through the field their operator defines (see docs/alter.md)."
    return command


suspend_command = _suspension(True)
resume_command = _suspension(False)
