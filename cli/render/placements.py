"""Human views of placements: ``wmap place`` trees and tables, rankings across clusters.

The reasons are the placement's (worded for people when each report was built); only the layout
is here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..printing.numbers import count, plural
from ..printing.output import table, tree_lines
from .collapse import MAX_SHOWN, runs
from .workloads import typed_names

if TYPE_CHECKING:  # placement loads only with the commands that use it
    from workloadmap.placement import Assignment, ClusterRanking, GroupPlacement, JointPlacement, PlacementReport

_plural = plural


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


def _group_label(
    group: GroupPlacement,
    name: str | None = None,
    assigned: str | None = None,
    alike: int = 1,
    parent_placed: bool = True,
) -> str:
    """One gang's line: pods, verdict, levels, where it went (or could go), and why (or the rule's note).

    Candidates are listed only for a gang that was not placed although its PodGroup was: once a
    gang is placed its assignment says where, and a SubGroup of an unplaced PodGroup has none.
    """
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
    if assigned is None and group.assignment is not None and group.fits:
        assigned = _assignment(group.assignment)
    if group.candidates and not assigned and not group.fits and parent_placed:
        parts.append("candidates " + _candidates(group.candidates))
    if assigned:
        parts.append(f"assigned {assigned}")
    reason = group.reason or group.note
    if reason:
        parts.append(reason)
    if group.approximate:
        undecided = sum(fit.undecided for fit in group.levels)
        parts.append(f"(search budget spent: {undecided} domains undecided, none counted as fitting)")
    return "; ".join(parts)


def _placement_nodes(report: PlacementReport) -> list[tuple[str, list[Any]]]:
    """The PodGroups as (label, children) tree nodes.

    Identical neighbours (but for their name and assignment) are drawn once, with the domains
    they were assigned to.
    """

    def key(group: GroupPlacement) -> Any:
        # Reasons name their own group ("its PodGroup g-3 is not placed"): alike once the name is out.
        labels = [_group_label(group, "", "")] + [_group_label(sub) for sub in group.sub_groups]
        return tuple(label.replace(group.name, "{}") for label in labels)

    nodes: list[tuple[str, list[Any]]] = []
    for run in runs(report.pod_groups, lambda group: group.name, key):
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
        return [(_group_label(sub, parent_placed=group.fits), build(sub.name)) for sub in children.get(parent, [])]

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


def head_reason(report: PlacementReport) -> str | None:
    """The reason after a report's verdict: how many groups fit where the groups' lines say why, else the report's.

    The report's reason repeats its first unfit group's (for a ranking across clusters, which
    shows no group): under the verdict line the groups say it, each once.
    """
    unfit = [group for group in report.pod_groups if group.verdict == "DoesNotFit"]
    if unfit and len(report.pod_groups) == 1:
        return None  # the one group's line says why
    if unfit:
        return f"{len(report.pod_groups) - len(unfit)} of {len(report.pod_groups)} groups fit"
    return report.reason


def render_placement(report: PlacementReport) -> str:
    """`wmap place` as a tree: the verdict, each PodGroup with its SubGroups, then the slices."""
    head = f"{report.workload} on {report.topology.name}: {VERDICT_WORDS[report.verdict]}"
    reason = head_reason(report)
    if reason:
        head += f" ({reason})"
    if report.placed_before:
        head += f" [after {_plural(len(report.placed_before), 'workload')} placed before it]"
    lines = [head]
    nodes = _placement_nodes(report)
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


def render_placement_table(reports: Sequence[PlacementReport], *, wide: bool = False, header: bool = True) -> str:
    """`wmap place -o table`: one row per PodGroup and SubGroup.

    The WORKLOAD column (TYPE/NAME) appears for several workloads, levels by their tail; WORKLOAD
    and GROUP are never cut, CANDIDATES, PREFERRED and ASSIGNED:NODES are left out in turn at a
    narrow width; ``wide``
    adds the cluster, minMember and required level, with full level keys, every candidate and, after
    the reason (worded for people by the placement), the scheduler's own where it differs.
    """
    several = wide or len({str(report.workload) for report in reports}) > 1
    level = _level if wide else _short
    names = typed_names([report.workload for report in reports])
    rows = []
    for report, workload in zip(reports, names, strict=True):
        for group in report.pod_groups:
            entries = [(group, group.name)] + [(sub, f"{group.name}/{sub.name}") for sub in group.sub_groups]
            for entry, name in entries:
                candidates = ",".join(entry.candidates) if wide else _candidates(entry.candidates, 1, ",")
                row: list[Any] = ([workload] if several else []) + ([report.topology.name] if wide else [])
                row += [name, entry.pods] + ([entry.min_member] if wide else []) + [VERDICT_CELLS[entry.verdict]]
                row += [entry.required_level] if wide else []
                row += [level(entry.preferred_level), candidates, _assigned_cell(entry)]
                reason = entry.reason or entry.note
                if wide and entry.scheduler_reason:
                    reason = f"{reason} (scheduler: {entry.scheduler_reason})"
                row.append(reason)
                rows.append(row)
    headers = (["WORKLOAD"] if several else []) + (["CLUSTER"] if wide else []) + ["GROUP", "PODS"]
    headers += (["MIN"] if wide else []) + ["FITS"] + (["REQUIRED"] if wide else [])
    headers += ["PREFERRED", "CANDIDATES", "ASSIGNED:NODES", "REASON"]
    key = (0, 2 if wide else 1) if several else (0,)
    optional = [headers.index(title) for title in ("CANDIDATES", "PREFERRED", "ASSIGNED:NODES")]
    return table(headers, rows, key=key, optional=optional, free_text_last=True, fit=not wide, header=header)


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
