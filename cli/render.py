"""Every human rendering of the command line: trees, tables and summaries (machine output is in output.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from workloadmap.labels import HOSTNAME
from workloadmap.lint import LintFinding
from workloadmap.placement import Assignment, ClusterRanking, GroupPlacement, JointPlacement, PlacementReport, Verdict
from workloadmap.quantities import format_quantity, format_resources
from workloadmap.topology import Cluster, Domain, Node, SimulationSpec
from workloadmap.tree import Component, Grouping, PodGroup, TopologyConstraint, WorkloadTree
from workloadmap.values import as_number

from .output import table, tree_lines


def _plural(count: Any, word: str) -> str:
    count = as_number(count) if not isinstance(count, float) else count
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


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
            parts.append(f"{as_number(component.gpus_per_pod)} GPU/pod, {_plural(component.gpus, 'GPU')}")
        resources = format_resources(component.pod_resources)
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


def _group_lines(group: PodGroup) -> list[str]:
    header = f"{group.name}  minMember {group.min_member} of {_plural(group.pods, 'pod')}"
    header += _constraint_text(group.topology_constraint)
    lines = [f"  {header}"]
    by_parent: dict[str | None, list] = {}
    for subgroup in group.sub_groups:
        by_parent.setdefault(subgroup.parent, []).append(subgroup)
    lines.extend(
        tree_lines(
            by_parent.get(None, []),
            lambda sub: (
                f"subgroup {sub.name}  minMember {sub.min_member} of {_plural(sub.pods, 'pod')}"
                + _constraint_text(sub.topology_constraint)
            ),
            lambda sub: by_parent.get(sub.name, []),
            prefix="  ",
        )
    )
    return lines


_MAX_GROUPS_SHOWN = 8


def render_tree(tree: WorkloadTree) -> str:
    """The default `wmap inspect` view: component tree, totals line, PodGroups."""
    workload = tree.workload
    where = f"  namespace {workload.namespace}" if workload.namespace else ""
    phase = tree.phase.value
    if tree.phases and tree.phases != [tree.phase]:
        phase += f" (matched {', '.join(matched.value for matched in tree.phases)})"
    lines = [
        f"{workload.kind}/{workload.name}{where}  ({workload.api_version}, definition {tree.definition})  phase {phase}"
    ]
    lines.extend(
        tree_lines(
            tree.components,
            lambda component: _component_label(component, tree.gpu_resources),
            lambda component: component.components,
        )
    )
    resources = ", ".join(
        f"{name} {value}"
        for name, value in format_resources(tree.totals.resources).items()
        if name not in tree.gpu_resources
    )
    lines.append(
        f"Totals: {_plural(tree.totals.pods, 'pod')}, {_plural(tree.totals.gpus, 'GPU')}"
        + (f" ({resources})" if resources else "")
    )
    if tree.pod_groups:
        gang = "gang-scheduled together" if len(tree.pod_groups) == 1 else "each gang-scheduled"
        lines.append(f"PodGroups: {len(tree.pod_groups)}, {gang} ({tree.gang_policy})")
        for group in tree.pod_groups[:_MAX_GROUPS_SHOWN]:
            lines.extend(_group_lines(group))
        if len(tree.pod_groups) > _MAX_GROUPS_SHOWN:
            lines.append(f"  ... and {len(tree.pod_groups) - _MAX_GROUPS_SHOWN} more alike (see -o json)")
    elif tree.grouping is Grouping.PER_POD:
        lines.append(f"PodGroups: {tree.pod_group_count}, one per pod ({tree.gang_policy})")
    else:
        lines.append(f"PodGroups: none, pods are scheduled one by one ({tree.gang_policy})")
    return "\n".join(lines) + "\n"


def render_inspect_table(trees: list[WorkloadTree]) -> str:
    """One row per pod-bearing component."""
    rows = []
    for tree in trees:
        workload = f"{tree.workload.kind.lower()}/{tree.workload.name}"
        for component in tree.walk():
            if not component.has_pod_template:
                continue
            rows.append(
                [
                    component.name,
                    workload,
                    tree.phase.value,
                    component.replicas,
                    component.pods,
                    as_number(component.gpus_per_pod),
                    as_number(component.gpus),
                    format_resources(component.pod_resources).get("cpu", "0"),
                    format_resources(component.pod_resources).get("memory", "0"),
                ]
            )
    return table(["NAME", "WORKLOAD", "PHASE", "REPLICAS", "PODS", "GPUS-PER-POD", "GPUS", "CPU", "MEMORY"], rows)


# -- catalog ---------------------------------------------------------------------------------


def render_definition_table(summaries: list[dict[str, Any]]) -> str:
    """`wmap catalog list` as a table, from the summaries `catalog list -o json` prints."""
    rows = []
    for summary in summaries:
        components = summary["components"]
        shown = ",".join(components[:3]) + (f",+{len(components) - 3}" if len(components) > 3 else "")
        rows.append(
            [
                summary["name"],
                summary["kind"],
                summary["group"] or "core",
                ",".join(summary["versions"]),
                shown,
                "no" if summary["gang"] == "none" else "yes",
            ]
        )
    return table(["NAME", "KIND", "GROUP", "VERSIONS", "COMPONENTS", "GANG"], rows)


def render_lint_table(findings: list[LintFinding]) -> str:
    """One row per finding; the message is last and keeps its spaces."""
    rows = [[f.severity, f.definition, f.field, f.rule, f.message] for f in findings]
    return table(["SEVERITY", "DEFINITION", "FIELD", "RULE", "MESSAGE"], rows, free_text_last=True)


# -- placement -------------------------------------------------------------------------------


def _level(level: str | None) -> str:
    return "cluster" if level is None else level


VERDICT_WORDS = {Verdict.FITS: "fits", Verdict.DOES_NOT_FIT: "DOES NOT FIT", Verdict.UNKNOWN: "UNKNOWN"}
VERDICT_CELLS = {Verdict.FITS: "yes", Verdict.DOES_NOT_FIT: "no", Verdict.UNKNOWN: "unknown"}


def _group_label(group: GroupPlacement) -> str:
    status = VERDICT_WORDS[group.verdict]
    parts = [f"{group.name} ({group.pods} pods, min {group.min_member}{'' if group.gang else ', no gang'}): {status}"]
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
        parts.append("candidates " + " ".join(group.candidates[:5]) + (" ..." if len(group.candidates) > 5 else ""))
    if group.assignment is not None and group.fits:
        parts.append(f"assigned {_assignment(group.assignment)}")
    if group.reason:
        parts.append(group.reason)
    if group.approximate:
        undecided = sum(fit.undecided for fit in group.levels)
        parts.append(f"(search budget spent: {undecided} domains undecided, none counted as fitting)")
    return "; ".join(parts)


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
        head += f" [after {len(report.placed_before)} workload(s) placed before it]"
    lines = [head]
    for group in report.pod_groups:
        # SubGroups hang under their parent SubGroup, as KAI nests them.
        children: dict[str | None, list[GroupPlacement]] = {}
        for sub in group.sub_groups:
            children.setdefault(sub.parent, []).append(sub)

        def below(
            node: GroupPlacement,
            root: GroupPlacement = group,
            by_parent: dict[str | None, list[GroupPlacement]] = children,
        ) -> list[GroupPlacement]:
            return by_parent.get(None if node is root else node.name, [])

        lines.extend(tree_lines([group], _group_label, below))
    for fit in report.slices:
        where = "fits nowhere" if not fit.fits else f"preferred {_level(fit.preferred_level)}"
        if fit.required_level:
            where += f"; required {_level(fit.required_level)} ({fit.required_source})"
        lines.append(f"slices: {fit.count} x {fit.component} of {fit.size} pods each: {where}")
    lines.extend(f"note: {note}" for note in report.notes)
    return "\n".join(lines) + "\n"


PLACEMENT_HEADERS = [
    "WORKLOAD",
    "CLUSTER",
    "GROUP",
    "PODS",
    "MIN",
    "FITS",
    "REQUIRED",
    "PREFERRED",
    "CANDIDATES",
    "ASSIGNED:NODES",
    "REASON",
]


def render_placement_table(reports: Sequence[PlacementReport]) -> str:
    """`wmap place -o table`: one row per PodGroup and SubGroup."""
    rows = []
    for report in reports:
        for group in report.pod_groups:
            entries = [(group, group.name)] + [(sub, f"{group.name}/{sub.name}") for sub in group.sub_groups]
            for entry, name in entries:
                rows.append(
                    [
                        str(report.workload),
                        report.topology.name,
                        name,
                        entry.pods,
                        entry.min_member,
                        VERDICT_CELLS[entry.verdict],
                        entry.required_level,
                        _level(entry.preferred_level),
                        ",".join(entry.candidates[:3]),
                        _assigned_cell(entry),
                        entry.reason,
                    ]
                )
    return table(PLACEMENT_HEADERS, rows, free_text_last=True)


def _assigned_cell(group: GroupPlacement) -> str | None:
    if group.assignment is None or not group.fits:
        return None
    where = group.assignment.domain or "cluster"
    return f"{where}:{len(group.assignment.nodes)}"


def render_rankings_table(rankings: Sequence[ClusterRanking]) -> str:
    """Several clusters ranked, as a table."""
    rows: list[list[Any]] = []
    for ranking in rankings:
        for rank, fit in enumerate(ranking.ranked, start=1):
            rows.append(
                [
                    str(ranking.workload),
                    rank,
                    fit.cluster,
                    _level(fit.preferred_level),
                    as_number(fit.leftover_gpus),
                    None,
                ]
            )
        for unfit in ranking.unfit:
            rows.append([str(ranking.workload), None, unfit.cluster, None, None, unfit.reason])
    headers = ["WORKLOAD", "RANK", "CLUSTER", "PREFERRED", "LEFTOVER-GPUS", "REASON"]
    return table(headers, rows, free_text_last=True)


def render_rankings(rankings: Sequence[ClusterRanking]) -> str:
    """Several clusters ranked: the order, the unfit with their reasons, the best placement."""
    blocks = []
    for ranking in rankings:
        lines = [f"{ranking.workload}:"]
        for rank, fit in enumerate(ranking.ranked, start=1):
            leftover = as_number(fit.leftover_gpus)
            lines.append(f"  {rank}. {fit.cluster}: preferred {_level(fit.preferred_level)}, {leftover} GPUs left over")
        for unfit in ranking.unfit:
            lines.append(f"  -  {unfit.cluster}: does not fit ({unfit.reason})")
        if ranking.ranked:
            lines.append("")
            lines.append(render_placement(ranking.ranked[0].report).rstrip("\n"))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


# -- topology --------------------------------------------------------------------------------


def _domain_summary(domain: Domain) -> str:
    return (
        f"{domain.node_count} nodes ({domain.ready_nodes} ready), "
        f"GPUs {format_quantity(domain.gpus_free)}/{format_quantity(domain.gpus_total)} free"
    )


def render_domain_tree(cluster: Cluster, root: Domain, *, shown: int, list_nodes: bool) -> str:
    """`wmap topology show`: the cluster's domains ``shown`` levels deep, optionally with nodes."""
    lines = [
        f"cluster {cluster.name} ({cluster.source}): {_domain_summary(root)}",
        f"levels: {' > '.join(cluster.levels)}",
    ]

    def children(item: Domain | Node) -> list[Any]:
        if isinstance(item, Domain):
            below = list(item.children.values()) if len(item.path) < shown else []
            return below if below or not list_nodes else list(item.nodes)
        return []

    def label(item: Domain | Node) -> str:
        if isinstance(item, Domain):
            value = "<none>" if item.value is None else item.value
            return f"{item.level}={value}: {_domain_summary(item)}"
        state = "not ready" if not item.ready else "cordoned" if item.unschedulable else "ready"
        return (
            f"node {item.name} ({state}), GPUs {format_quantity(item.free_gpus())}/{format_quantity(item.gpus())} free"
        )

    lines += tree_lines(children(root), label, children)
    return "\n".join(lines) + "\n"


def shown_depth(cluster: Cluster, *, hosts: bool, depth: int | None) -> tuple[int, bool]:
    """How many levels `topology show` draws, and whether it lists nodes under the deepest domains."""
    host_level = bool(cluster.levels) and cluster.levels[-1] == HOSTNAME
    shown = len(cluster.levels) - (1 if host_level and not hosts else 0)
    if depth is not None:
        shown = min(shown, depth)
    # Without a hostname level, --hosts lists the nodes under the deepest domains shown.
    return shown, hosts and not (host_level and shown == len(cluster.levels))


def render_presets(presets: Sequence[SimulationSpec], default: str) -> str:
    """`wmap topology presets` as a table (descriptions keep their spaces)."""
    rows = [
        (
            spec.name + (" (default)" if spec.name == default else ""),
            spec.node_count,
            spec.node_count * spec.gpus_per_node,
            spec.description,
        )
        for spec in presets
    ]
    width = max(len(row[0]) for row in rows)
    lines = [f"{'NAME'.ljust(width)}   NODES   GPUS   DESCRIPTION"]
    lines += [f"{row[0].ljust(width)}   {str(row[1]).ljust(5)}   {str(row[2]).ljust(4)}   {row[3]}" for row in rows]
    return "\n".join(lines) + "\n"


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
        cells += [row.phase.value, f"{ready}/{row.pods_desired}", as_number(row.gpus), age(row.created)]
        lines.append(cells + ([row.definition, row.gangs] if wide else []))
    text = table(headers, lines, free_text_last=wide)
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
        rows = [
            [age(event.last_seen), event.type, event.reason, event.object, event.message] for event in report.events
        ]
        events = table(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], rows, free_text_last=True)
        lines.append("Events (newest first):")
        lines.extend(f"  {line}" for line in events.splitlines())
    lines.extend(f"warning: {warning}" for warning in report.warnings)
    return "\n".join(lines) + "\n"
