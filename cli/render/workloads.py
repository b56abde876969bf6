"""Human views of workloads: inspect trees and tables, get rows, describe, lint findings (placements: placements.py).

Machine output is `printing/output.py`'s; which view a command writes, its `Views` table picks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from workloadmap.tree import (
    DEFAULT_KAI_VERSION,
    Component,
    GangOrigin,
    GangSource,
    Grouping,
    PodGroup,
    TopologyConstraint,
    WorkloadRef,
    WorkloadTree,
)

from ..printing.numbers import amount, amounts, count, plural
from ..printing.output import table, tree_lines
from ..printing.terminal import current as current_terminal
from .collapse import MAX_SHOWN, runs
from .devices import device_lines
from .numa import qos_text

if TYPE_CHECKING:  # lint loads only with the commands that use it
    from workloadmap.lint import LintFinding

_plural = plural


# -- workloads -------------------------------------------------------------------------------


def _component_label(component: Component, gpu_names: Sequence[str]) -> str:
    parts = [component.name]
    if component.instance is not None and component.instance != component.role:
        parts.append(f"({component.role})")
    if component.has_pod_template:
        scale = f"replicas {component.replicas}"
        if component.min_replicas is not None or component.max_replicas is not None:
            low = component.min_replicas if component.min_replicas is not None else "-"
            high = component.max_replicas if component.max_replicas is not None else "-"
            scale += f" [min {low}, max {high}]"
        if component.pods_per_replica != 1:
            scale += f" x {component.pods_per_replica} pods"
        if component.parent_replicas != 1:
            scale += f" in each of {component.parent_replicas}"
        parts.append(scale)
        pods = "pod per node" if component.per_node else _plural(component.pods, "pod")
        parts.append(pods if component.per_node else f"= {pods}")
        if component.gpus_per_pod:
            parts.append(f"{count(component.gpus_per_pod)} GPU/pod, {_plural(component.gpus, 'GPU')}")
        resources = amounts(component.pod_resources)
        shape = {name: value for name, value in resources.items() if name in ("cpu", "memory")}
        others = {
            name: value
            for name, value in resources.items()
            if name not in ("cpu", "memory", "pods") and name not in gpu_names
        }
        if shape:
            parts.append(" ".join(f"{name} {value}" for name, value in shape.items()) + " per pod")
        if others:
            parts.append(", ".join(f"{name} {value}" for name, value in others.items()))
        if component.resource_claims:
            parts.append("DRA claims: " + ", ".join(claim.get("name", "?") for claim in component.resource_claims))
        if component.devices_per_pod:
            devices = ", ".join(f"{name} {amount}" for name, amount in component.devices_per_pod.items())
            parts.append(f"DRA devices/pod: {devices}")
        qos = qos_text(component)
        if qos:
            parts.append(qos)
    else:
        parts.append(f"replicas {component.replicas}: {_plural(component.pods, 'pod')}")
        if component.gpus:
            parts.append(_plural(component.gpus, "GPU"))
    return "  ".join(parts)


def _constraint_text(constraint: TopologyConstraint) -> str:
    """``  required rack, preferred host (topology t)`` for a gang's constraint; empty without one."""
    if not constraint:
        return ""
    parts = [
        f"{what} {level}"
        for what, level in (("required", constraint.required_level), ("preferred", constraint.preferred_level))
        if level
    ]
    topology = f" (topology {constraint.topology})" if constraint.topology else ""
    return "  " + ", ".join(parts) + topology


def _threshold(gate: int | None, min_member: int, pods: int) -> str:
    """``minMember 4 of 8 pods``, or for a gang gated by its SubGroups ``minSubGroup 2 (8 of 9 pods)``."""
    if gate is None:
        return f"minMember {min_member} of {_plural(pods, 'pod')}"
    return f"minSubGroup {gate} ({min_member} of {_plural(pods, 'pod')})"


def _source_line(source: GangSource | None) -> str | None:
    """Where a gang that is not the catalog's comes from, with its object's conditions (``PodGroupScheduled``)."""
    if source is None or source.type is GangOrigin.CATALOG:
        return None
    named = " ".join(part for part in (source.kind, source.name) if part) or "object"
    text = f"    from {named}" + (f" ({source.api_version})" if source.api_version else "")
    if source.type is GangOrigin.JOB_CONTROLLER:
        text += f", the Job controller's ({source.feature_gate})"
    elif source.type is GangOrigin.SCHEDULER_OBJECT:
        text += ", a scheduler's PodGroup"
    if not source.created:
        return text + ": not created yet"
    if not source.conditions:
        return text + ": no status yet"
    shown = [
        f"{item.type}={item.status}"
        + (f" {item.reason}" if item.reason else "")
        + (f": {item.message}" if item.message else "")
        for item in source.conditions
    ]
    return text + ": " + "; ".join(shown)


def _group_lines(group: PodGroup, name: str | None = None) -> list[str]:
    header = f"{name or group.name}  {_threshold(group.min_sub_group, group.min_member, group.pods)}"
    header += _constraint_text(group.topology_constraint)
    lines = [f"  {header}"]
    origin = _source_line(group.source)
    if origin is not None:
        lines.append(origin)
    by_parent: dict[str | None, list] = {}
    for subgroup in group.sub_groups:
        by_parent.setdefault(subgroup.parent, []).append(subgroup)
    lines.extend(
        tree_lines(
            by_parent.get(None, []),
            lambda sub: (
                f"subgroup {sub.name}  {_threshold(sub.min_sub_group, sub.min_member, sub.pods)}"
                + _constraint_text(sub.topology_constraint)
            ),
            lambda sub: by_parent.get(sub.name, []),
            prefix="  ",
        )
    )
    return lines


def _gang_summary(groups: list[PodGroup]) -> str:
    """Whether the PodGroups are gangs: a PodGroup of minMember 1 schedules its pods one by one."""
    # A SubGroup of several pods is a gang even where the PodGroup needs only one of them (InOrder JobSets).
    gangs = sum(group.min_member > 1 or any(sub.min_member > 1 for sub in group.sub_groups) for group in groups)
    if gangs == 0:
        return "minMember 1: no gang, each pod is scheduled on its own"
    if gangs < len(groups):
        return f"{gangs} of them gang-scheduled"
    return "gang-scheduled together" if len(groups) == 1 else "each gang-scheduled"


def _pod_group_lines(groups: list[PodGroup]) -> list[str]:
    """The PodGroups, identical neighbours collapsed (``g-0..g-199 (200 alike)``), the rest summarised."""
    collapsed = runs(groups, lambda group: group.name, lambda group: tuple(_group_lines(group, "-")))
    lines: list[str] = []
    for run in collapsed[:MAX_SHOWN]:
        lines.extend(_group_lines(run.first, run.label))
    hidden = collapsed[MAX_SHOWN:]
    if hidden:
        more = sum(len(run.items) for run in hidden)
        lines.append(f"  ... and {_plural(more, 'more PodGroup')} (see -o json)")
    return lines


def render_tree(tree: WorkloadTree) -> str:
    """The default `wmap inspect` view: component tree, totals line, PodGroups."""
    workload = tree.workload
    where = f"  namespace {workload.namespace}" if workload.namespace else ""
    phase = tree.phase.value
    if tree.phases and tree.phases != [tree.phase]:
        phase += f" (matched {', '.join(matched.value for matched in tree.phases)})"
    lines = [f"{workload}{where}  ({workload.api_version}, definition {tree.definition})  phase {phase}"]
    lines.extend(
        tree_lines(
            tree.components,
            lambda component: _component_label(component, tree.gpu_resources),
            lambda component: component.components,
        )
    )
    resources = ", ".join(
        f"{name} {value}" for name, value in amounts(tree.totals.resources).items() if name not in tree.gpu_resources
    )
    over_run = tree.over_run
    ordered = over_run is not None and over_run != tree.totals
    lines.append(
        f"Totals: {_plural(tree.totals.pods, 'pod')}, {_plural(tree.totals.gpus, 'GPU')}"
        + (f" ({resources})" if resources else "")
        + (" at most at once" if ordered else "")
    )
    lines.extend(device_lines(tree))
    if ordered:
        assert over_run is not None
        lines.append(f"Over the run: {_plural(over_run.pods, 'pod')}, {_plural(over_run.gpus, 'GPU')}")
    # An older KAI release than the default (--kai-version) is said: its pod-grouper made these gangs.
    model = f"; as KAI v{tree.kai_version} makes them" if tree.kai_version != DEFAULT_KAI_VERSION else ""
    if tree.pod_groups:
        summary = _gang_summary(tree.pod_groups)
        lines.append(f"PodGroups: {len(tree.pod_groups)}, {summary} ({tree.gang_policy}{model})")
        lines.extend(_pod_group_lines(tree.pod_groups))
    elif tree.grouping is Grouping.PER_POD:
        lines.append(f"PodGroups: {tree.pod_group_count}, one per pod ({tree.gang_policy}{model})")
    else:
        lines.append(f"PodGroups: none, pods are scheduled one by one ({tree.gang_policy}{model})")
    return "\n".join(lines) + "\n"


def typed_names(workloads: Sequence[WorkloadRef]) -> list[str]:
    """Each workload in kubectl's TYPE/NAME form (``jobset/llm-train``).

    The group joins the kind (``workflow.argoproj.io/x``) only where two of the kinds listed share
    a name, as kubectl needs it to tell them apart.
    """
    groups: dict[str, set[str]] = {}
    for ref in workloads:
        groups.setdefault(ref.kind.lower(), set()).add(ref.api_version.rpartition("/")[0])
    names = []
    for ref in workloads:
        kind, group = ref.kind.lower(), ref.api_version.rpartition("/")[0]
        names.append(
            f"{kind}.{group}/{ref.display_name}" if group and len(groups[kind]) > 1 else f"{kind}/{ref.display_name}"
        )
    return names


def accelerator_columns(resources: Sequence[Mapping[str, Any]], gpu_names: Sequence[str]) -> list[tuple[str, str]]:
    """``(resource, HEADER)`` of every accelerator the GPUS column does not count (TPUs, Neuron, MIG slices ...).

    A header is the resource's name after its domain (``google.com/tpu``: TPU), or the whole name
    when that would be ambiguous.
    """
    from workloadmap.resources import is_accelerator

    names = sorted({name for each in resources for name, value in each.items() if value and is_accelerator(name)})
    names = [name for name in names if name not in gpu_names]
    tails = [name.rpartition("/")[2].upper() for name in names]
    return [
        (name, tail if tails.count(tail) == 1 and tail not in ("GPU", "GPUS") else name.upper())
        for name, tail in zip(names, tails, strict=True)
    ]


def _total(component: Component, name: str) -> Fraction:
    return Fraction(component.pod_resources.get(name, 0)) * component.pods


def render_inspect_table(trees: list[WorkloadTree], *, wide: bool = False, header: bool = True) -> str:
    """One row per pod-bearing component: its workload (TYPE/NAME) and name, phase, pods and resource totals.

    Every amount is the component's total (as GPUS is); ``wide`` adds the replicas and the amounts
    per pod, and NAMESPACE (first, as with ``kubectl get -A``) shows when the workloads come from
    several namespaces, or with ``wide``. A workload without one (a JobSet with no replicatedJobs)
    still has a row, its COMPONENT ``<none>`` as kubectl writes an empty cell, with zero pods: the
    tree and ``-o name`` show it too.
    """
    names = typed_names([tree.workload for tree in trees])
    components: list[tuple[WorkloadTree, str, Component | None]] = []
    for tree, name in zip(trees, names, strict=True):
        own = [(tree, name, c) for c in tree.walk() if c.has_pod_template]
        components += own or [(tree, name, None)]
    gpu_names = trees[0].gpu_resources if trees else ()
    extra = accelerator_columns([c.pod_resources for _, _, c in components if c is not None], gpu_names)
    namespaces = wide or len({tree.workload.namespace for tree in trees}) > 1
    rows = []
    for tree, name, component in components:
        row: list[Any] = [tree.workload.namespace] if namespaces else []
        if component is None:  # no pod-bearing component: a row of zeros
            row += [name, "<none>", tree.phase.value, 0, 0, *(0 for _ in extra), "0", "0"]
            if wide:
                row += [0, 0, *(0 for _ in extra), "0", "0", tree.definition]
            rows.append(row)
            continue
        row += [name, component.name, tree.phase.value, component.pods, count(component.gpus)]
        row += [count(_total(component, resource)) for resource, _ in extra]
        row += [amount("cpu", _total(component, "cpu")), amount("memory", _total(component, "memory"))]
        if wide:
            shape = component.pod_resources
            row += [component.replicas, count(component.gpus_per_pod)]
            row += [count(shape.get(resource, 0)) for resource, _ in extra]
            row += [amount("cpu", shape.get("cpu", 0)), amount("memory", shape.get("memory", 0)), tree.definition]
        rows.append(row)
    headers = (["NAMESPACE"] if namespaces else []) + ["NAME", "COMPONENT", "PHASE", "PODS", "GPUS"]
    headers += [title for _, title in extra] + ["CPU", "MEMORY"]
    if wide:
        headers += ["REPLICAS", "GPUS/POD"] + [f"{title}/POD" for _, title in extra]
        headers += ["CPU/POD", "MEMORY/POD", "DEFINITION"]
    key = (0, 1, 2) if namespaces else (0, 1)
    optional = [headers.index(title) for title in ("MEMORY", "CPU", "PHASE")]  # what gives way, in turn
    return table(headers, rows, key=key, optional=optional, fit=not wide, header=header)


def _counted(trees: Sequence[WorkloadTree]) -> tuple[int, Fraction, dict[str, Fraction]]:
    """Pods, GPUs and the other accelerators of ``trees`` together."""
    pods, gpus, others = 0, Fraction(0), dict[str, Fraction]()
    gpu_names = trees[0].gpu_resources if trees else ()
    columns = accelerator_columns([tree.totals.resources for tree in trees], gpu_names)
    for tree in trees:
        pods += tree.totals.pods
        gpus += tree.totals.gpus
        for name, _ in columns:
            others[name] = others.get(name, Fraction(0)) + Fraction(tree.totals.resources.get(name, 0))
    return pods, gpus, others


def render_summary_line(trees: Sequence[WorkloadTree]) -> str:
    """``4 workloads: 19 pods, 72 GPUs`` (and other accelerators by name), the line under a listing."""
    pods, gpus, others = _counted(trees)
    parts = [_plural(pods, "pod"), _plural(gpus, "GPU")] + [f"{count(value)} {name}" for name, value in others.items()]
    return f"{_plural(len(trees), 'workload')}: {', '.join(parts)}\n"


def with_summary(text: str, trees: Sequence[WorkloadTree], *, header: bool, summary: bool, gap: str = "") -> str:
    """A listing's text, then its summary: the line under several workloads, or with ``summary`` the table.

    ``header`` False (``--no-headers``) leaves the line out; ``gap`` goes between (a blank line under trees).
    """
    if summary:
        return text + "\n" + render_summary_table(trees, header=header)
    if header and len(trees) > 1:
        return text + gap + render_summary_line(trees)
    return text


def render_summary_table(trees: Sequence[WorkloadTree], *, header: bool = True) -> str:
    """``--summary``: workloads, pods and GPUs by namespace and kind, then the line of the whole."""
    groups: dict[tuple[str, str], list[WorkloadTree]] = {}
    for tree in trees:
        groups.setdefault((tree.workload.namespace or "", tree.workload.kind), []).append(tree)
    gpu_names = trees[0].gpu_resources if trees else ()
    extra = accelerator_columns([tree.totals.resources for tree in trees], gpu_names)
    rows = []
    for (namespace, kind), members in sorted(groups.items()):
        pods, gpus, others = _counted(members)
        rows.append(
            [namespace, kind, len(members), pods, count(gpus)] + [count(others.get(name, 0)) for name, _ in extra]
        )
    headers = ["NAMESPACE", "KIND", "WORKLOADS", "PODS", "GPUS"] + [title for _, title in extra]
    return table(headers, rows, key=(0, 1), header=header) + render_summary_line(trees)


# -- catalog ---------------------------------------------------------------------------------


def render_definition_table(summaries: list[dict[str, Any]], *, wide: bool = False) -> str:
    """`wmap catalog list` as a table, from the summaries `catalog list -o json` prints.

    NAME, KIND and GROUP; ``wide`` adds the versions, every component, whether it gangs and the format.
    """
    rows = []
    for summary in summaries:
        row = [summary["name"], summary["kind"], summary["group"] or "core"]
        if wide:
            row += [",".join(summary["versions"]), ",".join(summary["components"])]
            row += ["no" if summary["gang"] == "none" else "yes", summary.get("format")]
        rows.append(row)
    headers = ["NAME", "KIND", "GROUP"] + (["VERSIONS", "COMPONENTS", "GANG", "FORMAT"] if wide else [])
    return table(headers, rows, fit=not wide)


def render_lint_lines(findings: list[LintFinding]) -> str:
    """One finding per line, as compilers print them: ``FILE:LINE: SEVERITY: DEFINITION: FIELD: RULE: message``.

    Never cut or wrapped: an editor or ``grep`` reads each line whole.
    """
    return "".join(f"{finding.compiler_line()}\n" for finding in findings)


def render_lint_table(findings: list[LintFinding]) -> str:
    """One row per finding; the message is last and keeps its spaces."""
    rows = [[f.severity, f.definition, f.field, f.rule, f.message] for f in findings]
    return table(["SEVERITY", "DEFINITION", "FIELD", "RULE", "MESSAGE"], rows, free_text_last=True)


def render_rules(rows: Sequence[tuple[str, str, str, str]]) -> str:
    """``catalog lint --rules``: RULE SEVERITY NEEDS, then what each catches, wrapped under its column."""
    return table(["RULE", "SEVERITY", "NEEDS", "CATCHES"], rows, free_text_last=True, wrap_last=True)


# -- live ------------------------------------------------------------------------------------
# `wmap describe` and `wmap get` (workloadmap.live results).


def age(created: str | None, now: datetime | None = None) -> str:
    """The AGE column as kubectl prints it: ``45s``, ``12m``, ``5h``, ``3d``, ``2y`` (``<unknown>`` without a time)."""
    from workloadmap.live import parse_time

    start = parse_time(created)
    if start is None:
        return "<unknown>"
    seconds = max(0, int(((now or datetime.now(timezone.utc)) - start).total_seconds()))
    for unit, size in (("y", 365 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size * (2 if unit != "m" else 1):
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def render_rows(
    rows: Sequence[Any],
    *,
    wide: bool,
    namespaces: bool,
    typed: bool,
    header: bool = True,
    now: datetime | None = None,
) -> str:
    """`wmap get` rows: [NAMESPACE] NAME PHASE PODS GPUS [accelerators] [QUEUE ADMITTED] AGE [wide columns].

    Wide: DEFINITION SCHEDULED GANGS. QUEUE and ADMITTED appear where Kueue's Workloads were read (Kueue is served,
    or the dumps hold some).

    ``namespaces`` (``-A``) puts NAMESPACE first, as kubectl does; ``typed`` names each row
    TYPE/NAME (several types listed); AGE counts from ``now`` (a dump's newest time), else today.
    """
    trees = [row.tree for row in rows if row.tree is not None]
    gpu_names = trees[0].gpu_resources if trees else ()
    extra = accelerator_columns([tree.totals.resources for tree in trees], gpu_names)
    names = typed_names([row.workload for row in rows]) if typed else [row.workload.display_name for row in rows]
    headers = (["NAMESPACE"] if namespaces else []) + ["NAME", "PHASE", "PODS", "GPUS"]
    queued = any(getattr(row, "kueue_read", False) for row in rows)  # Kueue's Workloads read: it is served
    headers += [title for _, title in extra] + (["QUEUE", "ADMITTED"] if queued else [])
    headers += ["AGE"] + (["DEFINITION", "SCHEDULED", "GANGS"] if wide else [])
    lines = []
    for row, name in zip(rows, names, strict=True):
        ready = "?" if row.pods_ready is None else row.pods_ready
        resources = row.tree.totals.resources if row.tree is not None else {}
        cells = ([row.workload.namespace or ""] if namespaces else []) + [name, row.phase.value]
        cells += [f"{ready}/{row.pods_desired}", count(row.gpus)]
        cells += [count(resources.get(resource, 0)) for resource, _ in extra]
        cells += [row.queue or "<none>", row.admitted or "<none>"] if queued else []
        cells += [age(row.created, now)]
        lines.append(cells + ([row.definition, row.scheduled, row.gangs] if wide else []))
    key = (0, 1) if namespaces else (0,)
    return table(headers, lines, key=key, free_text_last=wide, fit=not wide, header=header)


def _pod_line(pod: Any) -> str:
    parts = [pod.name, pod.phase + ("" if pod.ready or pod.phase in ("Succeeded", "Pending") else " (not ready)")]
    parts.append(pod.node or "<no node>")
    if pod.restarts:
        parts.append(f"restarts {pod.restarts}")
    if pod.gang:
        parts.append("gang " + pod.gang + (f"/{pod.gang_sub_group}" if pod.gang_sub_group else ""))
    if pod.pod_group or pod.sub_group:
        parts.append(f"scheduler group {pod.pod_group or '-'}" + (f"/{pod.sub_group}" if pod.sub_group else ""))
    if pod.reason:
        parts.append(f"{pod.reason}: {pod.message}" if pod.message else pod.reason)
    return "  ".join(parts)


def _live_component_label(component: Any) -> str:
    counts = component.replicas
    ready = f"{counts.ready}/{counts.desired} ready" if counts.ready is not None else f"{counts.desired} desired"
    parts = [component.name, ready]
    if counts.current is not None and counts.current != counts.desired:
        parts.append(f"{counts.current} current")
    if component.gpus:
        parts.append(_plural(component.gpus, "GPU"))
    if component.nodes:
        shown = component.nodes[:4]
        parts.append(",".join(shown) + (f" +{len(component.nodes) - 4}" if len(component.nodes) > 4 else ""))
    return "  ".join(parts)


def _audit_line(gang: Any) -> str:
    name = gang.name + (f"/{gang.sub_group}" if gang.sub_group else "")
    parts = [name, f"{gang.scheduled_pods}/{gang.pods} scheduled"]
    if gang.narrowest_level:
        parts.append(f"in one {gang.narrowest_level}")
    for level, source, what in (
        (gang.required_level, gang.required_source, "required"),
        (gang.preferred_level, gang.preferred_source, "preferred"),
    ):
        if level:
            parts.append(f"{what} {level} ({source})")
    verdict = {True: "satisfied", False: "NOT SATISFIED", None: "not judged"}[gang.satisfied]
    if gang.incomplete and gang.satisfied is False:
        verdict = "INCOMPLETE"  # fewer than minMember scheduled: the reason gives the count
    parts.append(verdict + (f": {gang.reason}" if gang.reason else ""))
    if gang.compute_domain_split:
        parts.append("ComputeDomain split across NVLink cliques: its pods cannot share the IMEX domain")
    elif gang.accelerator_split:
        parts.append("split across NVLink domains although one holds the gang")
    return "  ".join(parts)


def _kueue_lines(workload: Any) -> list[str]:
    """A Kueue Workload: its state and queues, then each PodSet's flavors, assignment and audit."""
    where = f" in {workload.cluster_queue}" if workload.cluster_queue else ""
    queue = f" (queue {workload.queue})" if workload.queue else ""
    evicted = ", evicted" if workload.evicted else ""
    lines = [f"Kueue Workload {workload.name}: {workload.status}{where}{queue}{evicted}"]
    for pod_set in workload.pod_sets:
        parts = [f"PodSet {pod_set.name}", _plural(pod_set.count, "pod")]
        if pod_set.flavors:
            parts.append("flavors " + ",".join(f"{res}={flavor}" for res, flavor in sorted(pod_set.flavors.items())))
        if pod_set.levels:
            shown = [f"{'/'.join(d.values)} {d.scheduled}/{d.assigned}" for d in pod_set.domains[:6]]
            more = f" +{len(pod_set.domains) - 6}" if len(pod_set.domains) > 6 else ""
            parts.append(f"assigned ({' > '.join(pod_set.levels)}) {', '.join(shown)}{more}")
        verdict = {True: "as assigned", False: "NOT AS ASSIGNED", None: "not judged"}[pod_set.matches]
        parts.append(verdict + (f": {pod_set.reason}" if pod_set.reason else ""))
        lines.append("  " + "  ".join(parts))
    return lines


def _describe_label(node: Any) -> str:
    if isinstance(node, str):
        return node
    return _live_component_label(node) if hasattr(node, "replicas") else _pod_line(node)


def _describe_children(node: Any) -> list[Any]:
    if not hasattr(node, "replicas"):
        return []
    more = [f"... {_plural(node.pods_omitted, 'more pod')} (--pod-limit)"] if node.pods_omitted else []
    return [*node.components, *node.pods, *more]


def _events_table(events: Sequence[Any], now: datetime | None = None) -> str:
    """The events in kubectl's columns; on a terminal too narrow for them the object leads its wrapped message."""
    headers = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    rows = [[age(event.last_seen, now), event.type, event.reason, event.object, event.message] for event in events]
    width = current_terminal().width
    whole = table(headers, rows, free_text_last=True, fit=False)
    if width is None or max(len(line) for line in whole.splitlines()) <= width - 2:
        return whole
    merged = [[when, kind, reason, f"{obj}: {message}"] for when, kind, reason, obj, message in rows]
    return table(
        ["LAST SEEN", "TYPE", "REASON", "OBJECT: MESSAGE"], merged, free_text_last=True, indent=2, wrap_last=True
    )


def render_describe(report: Any, *, now: datetime | None = None) -> str:
    """The `wmap describe` view: the tree with pods, unattributed pods, gangs, the audit, events.

    LAST SEEN counts from ``now`` (a dump's newest time), else from today.
    """
    inspect_lines = render_tree(report.tree).splitlines()
    footer = next(index for index, line in enumerate(inspect_lines) if line.startswith("Totals: "))
    lines = inspect_lines[:1] + tree_lines(report.components, _describe_label, _describe_children)
    if not report.pods_read:
        lines.append("Pods: not read (describe -f without --objects)")
    elif report.unattributed_pods:
        lines.append(
            f"Unattributed pods (owned by the workload, claimed by no component): {len(report.unattributed_pods)}"
        )
        lines.extend(f"  {_pod_line(pod)}" for pod in report.unattributed_pods)
    lines.extend(inspect_lines[footer:])
    if report.placement is not None:
        lines.append(f"Placement (levels {' > '.join(report.placement.levels)}):")
        lines.extend(f"  {_audit_line(gang)}" for gang in report.placement.pod_groups)
        if report.placement.unknown_nodes:
            lines.append(f"  pods on nodes not read: {', '.join(report.placement.unknown_nodes)}")
    for workload in report.kueue or ():
        lines.extend(_kueue_lines(workload))
    if report.events:
        lines.append("Events (newest first):")
        lines.extend(f"  {line}" for line in _events_table(report.events, now).splitlines())
    lines.extend(f"warning: {warning}" for warning in report.warnings)
    return "\n".join(lines) + "\n"
