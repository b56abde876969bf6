"""Human views of workloads: inspect trees and tables, placements and rankings, get rows, describe, lint findings.

Machine output is `printing/output.py`'s; which view a command writes, its `Views` table picks.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from workloadmap.tree import Component, Grouping, PodGroup, TopologyConstraint, WorkloadTree

from ..printing.numbers import amounts, count, plural
from ..printing.output import table, tree_lines
from ..printing.terminal import current as current_terminal
from .collapse import MAX_SHOWN, runs
from .numa import qos_text

if TYPE_CHECKING:  # placement and lint load only with the commands that use them
    from workloadmap.lint import LintFinding
    from workloadmap.placement import Assignment, ClusterRanking, GroupPlacement, JointPlacement, PlacementReport

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


def _group_lines(group: PodGroup, name: str | None = None) -> list[str]:
    header = f"{name or group.name}  {_threshold(group.min_sub_group, group.min_member, group.pods)}"
    header += _constraint_text(group.topology_constraint)
    lines = [f"  {header}"]
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
    lines.append(
        f"Totals: {_plural(tree.totals.pods, 'pod')}, {_plural(tree.totals.gpus, 'GPU')}"
        + (f" ({resources})" if resources else "")
    )
    if tree.pod_groups:
        lines.append(f"PodGroups: {len(tree.pod_groups)}, {_gang_summary(tree.pod_groups)} ({tree.gang_policy})")
        lines.extend(_pod_group_lines(tree.pod_groups))
    elif tree.grouping is Grouping.PER_POD:
        lines.append(f"PodGroups: {tree.pod_group_count}, one per pod ({tree.gang_policy})")
    else:
        lines.append(f"PodGroups: none, pods are scheduled one by one ({tree.gang_policy})")
    return "\n".join(lines) + "\n"


def render_inspect_table(trees: list[WorkloadTree], *, wide: bool = False) -> str:
    """One row per pod-bearing component (``wide``: replicas, GPUs per pod, namespace, definition too)."""
    rows = []
    for tree in trees:
        workload = f"{tree.workload.kind.lower()}/{tree.workload.display_name}"
        for component in tree.walk():
            if not component.has_pod_template:
                continue
            shape = amounts(component.pod_resources)
            row: list[Any] = [component.name, workload, tree.phase.value, component.pods, count(component.gpus)]
            row += [shape.get("cpu", "0"), shape.get("memory", "0")]
            if wide:
                row += [component.replicas, count(component.gpus_per_pod), tree.workload.namespace, tree.definition]
            rows.append(row)
    headers = ["NAME", "WORKLOAD", "PHASE", "PODS", "GPUS", "CPU", "MEMORY"]
    headers += ["REPLICAS", "GPUS-PER-POD", "NAMESPACE", "DEFINITION"] if wide else []
    return table(headers, rows, fit=not wide)


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


def render_lint_table(findings: list[LintFinding]) -> str:
    """One row per finding; the message is last and keeps its spaces."""
    rows = [[f.severity, f.definition, f.field, f.rule, f.message] for f in findings]
    return table(["SEVERITY", "DEFINITION", "FIELD", "RULE", "MESSAGE"], rows, free_text_last=True)


# -- placement -------------------------------------------------------------------------------


def _level(level: str | None) -> str:
    return "cluster" if level is None else level


# Keyed by the Verdict's value (a str enum, so members look these up): placement loads lazily.
VERDICT_WORDS = {"Fits": "fits", "DoesNotFit": "DOES NOT FIT", "Unknown": "UNKNOWN"}
VERDICT_CELLS = {"Fits": "yes", "DoesNotFit": "no", "Unknown": "unknown"}


def _candidates(candidates: Sequence[str], shown: int = 5, separator: str = " ") -> str:
    """The first ``shown`` candidates and how many more: ``nvl-001 nvl-002 +6 more``."""
    text = separator.join(candidates[:shown])
    more = len(candidates) - shown
    return text + (f"{separator}+{more}{'' if separator == ',' else ' more'}" if more > 0 else "")


def _group_label(group: GroupPlacement, name: str | None = None, assigned: str | None = None, alike: int = 1) -> str:
    status = VERDICT_WORDS[group.verdict]
    pods = f"{_plural(group.pods, 'pod')}, min {group.min_member}{'' if group.gang else ', no gang'}"
    pods = f"{alike} alike, each {pods}" if alike > 1 else pods
    parts = [f"{name if name is not None else group.name} ({pods}): {status}"]
    if group.required_level:
        parts.append(f"required {group.required_level} ({group.required_source})")
    fit_levels = {fit.level: fit for fit in group.levels}
    preferred = group.preferred_level
    if preferred in fit_levels:
        fit = fit_levels[preferred]
        parts.append(f"preferred {preferred} ({fit.fitting} of {fit.domains} domains)")
    else:
        parts.append("preferred: whole cluster")
    if group.candidates:
        parts.append("candidates " + _candidates(group.candidates))
    if assigned is None and group.assignment is not None and group.fits:
        assigned = _assignment(group.assignment)
    if assigned:
        parts.append(f"assigned {assigned}")
    if group.reason:
        parts.append(group.reason)
    if group.approximate:
        undecided = sum(fit.undecided for fit in group.levels)
        parts.append(f"(search budget spent: {undecided} domains undecided, none counted as fitting)")
    return "; ".join(parts)


def _placement_nodes(groups: Sequence[GroupPlacement]) -> list[tuple[str, list[Any]]]:
    """The PodGroups as (label, children) tree nodes.

    Identical neighbours (but for their name and assignment) are drawn once, with the domains
    they were assigned to.
    """

    def key(group: GroupPlacement) -> Any:
        # Reasons name their own group ("its PodGroup g-3 is not placed"): alike once the name is out.
        labels = [_group_label(group, "", "")] + [_group_label(sub) for sub in group.sub_groups]
        return tuple(label.replace(group.name, "{}") for label in labels)

    nodes: list[tuple[str, list[Any]]] = []
    for run in runs(groups, lambda group: group.name, key):
        assigned = None
        name = run.first.name
        if len(run.items) > 1:
            name = f"{run.names[0]}..{run.names[-1]}"
            placed = [group.assignment for group in run.items if group.assignment and group.fits]
            domains = [assignment.domain or "the cluster" for assignment in placed]
            assigned = "to " + _candidates(list(dict.fromkeys(domains)), 4, ", ") if domains else ""
        label = _group_label(run.first, name, assigned, alike=len(run.items))
        nodes.append((label, _subgroup_nodes(run.first)))
    return nodes


def _subgroup_nodes(group: GroupPlacement) -> list[Any]:
    """SubGroups hang under their parent SubGroup, as KAI nests them."""
    children: dict[str | None, list[GroupPlacement]] = {}
    for sub in group.sub_groups:
        children.setdefault(sub.parent, []).append(sub)

    def build(parent: str | None) -> list[Any]:
        return [(_group_label(sub), build(sub.name)) for sub in children.get(parent, [])]

    return build(None)


def _assignment(assignment: Assignment, shown: int = 4) -> str:
    """``nvl-001 [node-1 x2, node-2 x2 +3 nodes]``: the chosen domain and the pods per node."""
    where = assignment.domain if assignment.domain is not None else "across the cluster"
    nodes = [f"{node.name} x{node.pods}" for node in assignment.nodes[:shown]]
    if len(assignment.nodes) > shown:
        nodes.append(f"+{len(assignment.nodes) - shown} nodes")
    return f"{where} [{', '.join(nodes)}]"


def render_joint_summary(joint: JointPlacement) -> str:
    """One line: how many of the groups of workloads placed together fit, and which do not."""
    line = f"Together on {joint.topology.name} (policy {joint.policy}): {joint.fitting} of {joint.groups} groups fit"
    if joint.unfit:
        line += "; not: " + ", ".join(joint.unfit)
    return line + "\n"


def render_placement(report: PlacementReport) -> str:
    """`wmap place` as a tree: the verdict, each PodGroup with its SubGroups, then the slices."""
    head = f"{report.workload} on {report.topology.name}: {VERDICT_WORDS[report.verdict]}"
    if report.reason:
        head += f" ({report.reason})"
    if report.placed_before:
        head += f" [after {_plural(len(report.placed_before), 'workload')} placed before it]"
    lines = [head]
    nodes = _placement_nodes(report.pod_groups)
    shown = nodes[:MAX_SHOWN] if len(nodes) > MAX_SHOWN + 1 else nodes
    lines.extend(tree_lines(shown, lambda node: node[0], lambda node: node[1]))
    if len(shown) < len(nodes):
        lines.append(f"... and {_plural(len(nodes) - len(shown), 'more group')} (see -o table or -o json)")
    for fit in report.slices:
        where = "fits nowhere" if not fit.fits else f"preferred {_level(fit.preferred_level)}"
        if fit.required_level:
            where += f"; required {_level(fit.required_level)} ({fit.required_source})"
        lines.append(f"slices: {fit.count} x {fit.component} of {_plural(fit.size, 'pod')} each: {where}")
    lines.extend(f"note: {note}" for note in report.notes)
    return "\n".join(lines) + "\n"


def _short(level: str | None) -> str:
    """A level by the tail of its label key (``domain`` for ``accelerator.topograph.run/domain``).

    That is how ``--required`` and ``--preferred`` accept it.
    """
    return _level(level).rpartition("/")[2]


def render_placement_table(reports: Sequence[PlacementReport], *, wide: bool = False) -> str:
    """`wmap place -o table`: one row per PodGroup and SubGroup.

    The WORKLOAD column appears for several workloads, levels by their tail; ``wide`` adds the
    cluster, minMember and required level, with full level keys and every candidate.
    """
    several = wide or len({str(report.workload) for report in reports}) > 1
    level = _level if wide else _short
    rows = []
    for report in reports:
        for group in report.pod_groups:
            entries = [(group, group.name)] + [(sub, f"{group.name}/{sub.name}") for sub in group.sub_groups]
            for entry, name in entries:
                candidates = ",".join(entry.candidates) if wide else _candidates(entry.candidates, 1, ",")
                row: list[Any] = ([str(report.workload)] if several else []) + ([report.topology.name] if wide else [])
                row += [name, entry.pods] + ([entry.min_member] if wide else []) + [VERDICT_CELLS[entry.verdict]]
                row += [entry.required_level] if wide else []
                row += [level(entry.preferred_level), candidates, _assigned_cell(entry), entry.reason]
                rows.append(row)
    headers = (["WORKLOAD"] if several else []) + (["CLUSTER"] if wide else []) + ["GROUP", "PODS"]
    headers += (["MIN"] if wide else []) + ["FITS"] + (["REQUIRED"] if wide else [])
    headers += ["PREFERRED", "CANDIDATES", "ASSIGNED:NODES", "REASON"]
    return table(headers, rows, free_text_last=True, fit=not wide)


def _assigned_cell(group: GroupPlacement) -> str | None:
    if group.assignment is None or not group.fits:
        return None
    where = group.assignment.domain or "cluster"
    return f"{where}:{len(group.assignment.nodes)}"


def render_rankings_table(rankings: Sequence[ClusterRanking], *, wide: bool = False) -> str:
    """Several clusters ranked, as a table (``wide``: reasons whole)."""
    rows: list[list[Any]] = []
    for ranking in rankings:
        for rank, fit in enumerate(ranking.ranked, start=1):
            rows.append(
                [
                    str(ranking.workload),
                    rank,
                    fit.cluster,
                    _level(fit.preferred_level),
                    count(fit.leftover_gpus),
                    None,
                ]
            )
        for unfit in ranking.unfit:
            rows.append([str(ranking.workload), None, unfit.cluster, None, None, unfit.reason])
    headers = ["WORKLOAD", "RANK", "CLUSTER", "PREFERRED", "LEFTOVER-GPUS", "REASON"]
    return table(headers, rows, free_text_last=True, fit=not wide)


def render_rankings(rankings: Sequence[ClusterRanking]) -> str:
    """Several clusters ranked: the order, the unfit with their reasons, the best placement."""
    blocks = []
    for ranking in rankings:
        lines = [f"{ranking.workload}:"]
        for rank, fit in enumerate(ranking.ranked, start=1):
            leftover = _plural(fit.leftover_gpus, "GPU")
            lines.append(f"  {rank}. {fit.cluster}: preferred {_level(fit.preferred_level)}, {leftover} left over")
        for unfit in ranking.unfit:
            lines.append(f"  -  {unfit.cluster}: does not fit ({unfit.reason})")
        if ranking.ranked:
            lines.append("")
            lines.append(render_placement(ranking.ranked[0].report).rstrip("\n"))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


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


def render_rows(rows: Sequence[Any], *, wide: bool, namespaces: bool, prefix_types: bool, header: bool = True) -> str:
    """`wmap get` rows: NAME [NAMESPACE] PHASE PODS GPUS AGE [DEFINITION GANGS]."""
    headers = ["NAME"] + (["NAMESPACE"] if namespaces else []) + ["PHASE", "PODS", "GPUS", "AGE"]
    headers += ["DEFINITION", "GANGS"] if wide else []
    lines = []
    for row in rows:
        name = f"{row.type_name}/{row.workload.name}" if prefix_types else row.workload.name
        ready = "?" if row.pods_ready is None else row.pods_ready
        cells = [name] + ([row.workload.namespace or ""] if namespaces else [])
        cells += [row.phase.value, f"{ready}/{row.pods_desired}", count(row.gpus), age(row.created)]
        lines.append(cells + ([row.definition, row.gangs] if wide else []))
    text = table(headers, lines, free_text_last=wide, fit=not wide)
    return text if header else text.split("\n", 1)[1]


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
    parts.append(verdict + (f": {gang.reason}" if gang.reason else ""))
    if gang.accelerator_split:
        parts.append("split across NVLink domains although one holds the gang")
    return "  ".join(parts)


def _describe_label(node: Any) -> str:
    if isinstance(node, str):
        return node
    return _live_component_label(node) if hasattr(node, "replicas") else _pod_line(node)


def _describe_children(node: Any) -> list[Any]:
    if not hasattr(node, "replicas"):
        return []
    more = [f"... {_plural(node.pods_omitted, 'more pod')} (--pod-limit)"] if node.pods_omitted else []
    return [*node.components, *node.pods, *more]


def _events_table(events: Sequence[Any]) -> str:
    """The events in kubectl's columns; on a terminal too narrow for them the object leads its wrapped message."""
    headers = ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    rows = [[age(event.last_seen), event.type, event.reason, event.object, event.message] for event in events]
    width = current_terminal().width
    whole = table(headers, rows, free_text_last=True, fit=False)
    if width is None or max(len(line) for line in whole.splitlines()) <= width - 2:
        return whole
    merged = [[when, kind, reason, f"{obj}: {message}"] for when, kind, reason, obj, message in rows]
    return table(
        ["LAST SEEN", "TYPE", "REASON", "OBJECT: MESSAGE"], merged, free_text_last=True, indent=2, wrap_last=True
    )


def render_describe(report: Any) -> str:
    """The `wmap describe` view: the tree with pods, unattributed pods, gangs, the audit, events."""
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
    if report.events:
        lines.append("Events (newest first):")
        lines.extend(f"  {line}" for line in _events_table(report.events).splitlines())
    lines.extend(f"warning: {warning}" for warning in report.warnings)
    return "\n".join(lines) + "\n"
