"""The placement picture: one self-contained HTML page (no script, no font or style fetched).

Each cluster is drawn as nested boxes, one per topology domain (spine, block, rack ...), laid out
by the browser: siblings flow in rows as wide as the window (a box narrower than its content wraps
it), the deepest domains holding one tile per node: its GPUs in use before the placement as a grey
bar, the pods a gang put on it in the gang's colour. Each box is a ``<details>`` element: a click on
its title folds it, and the browser's find-in-page (Ctrl+F) opens a folded box that holds the name
looked for. Each gang's chosen domain is outlined in its colour, its other candidates dashed when
asked; a table lists every gang with its verdict and, when it does not fit, the reason.

A large cluster stays legible: above :data:`~workloadmap.placement.MAX_NODES_DRAWN` nodes the
deepest domains drawn are aggregates (a usage bar each, no tile per node); a table sums the
domains of the deepest level with at most :data:`SUMMARY_ROWS` domains (each row a link to its
box); and when more than :data:`OPEN_BOXES` boxes would be drawn, the boxes of that level start
folded, except those holding a gang's chosen domain or its pods. The data comes from
:func:`workloadmap.placement.placement_map`; only the drawing is here.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workloadmap import __version__
from workloadmap.placement import MAX_NODES_DRAWN, DomainView, GangView, NodeView, PlacementMap, placement_map

from ..printing.numbers import count, plural

__all__ = [
    "render_html",
    "write_html_report",
    "write_topology_html",
    "topology_picture",
    "gang_colours",
    "PAGE_STYLE",
    "SUMMARY_ROWS",
    "OPEN_BOXES",
]

TILE = 26
GAP = 4
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#bcbd22")
SUMMARY_ROWS = 64
"""The summary table sums the domains of the deepest level that has at most this many."""
OPEN_BOXES = 400
"""Above this many boxes, those of the summary's level start folded (unless a gang is in them)."""
SUMMARY_NODES = 256
"""Clusters of more nodes get the summary table."""
SHADES = ("#f4f6f8", "#e9edf1", "#dde3e9", "#d2d9e0")


def _label(view: DomainView) -> str:
    if view.level is None:
        return "cluster"
    return "<none>" if view.value is None else view.value


def _attr(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _free_after(view: DomainView | NodeView) -> Any:
    """GPUs free once the placed pods took theirs."""
    return max(view.gpus_free - view.gpus_placed, 0)


def _gpus(view: DomainView | NodeView) -> str:
    return f"{count(_free_after(view))}/{count(view.gpus)} GPUs free"


def _walk(view: DomainView, depth: int = 0) -> Iterator[tuple[DomainView, int]]:
    yield view, depth
    for child in view.children:
        yield from _walk(child, depth + 1)


@dataclass
class _Plan:
    """What one cluster's drawing decides before it writes: anchors, folded boxes, outlines, the summary level."""

    anchors: dict[str, str]
    folded: set[str]
    outlines: dict[str, list[tuple[str, bool]]] = field(default_factory=dict)
    summary: list[DomainView] = field(default_factory=list)


def _summary_depth(root: DomainView) -> int | None:
    """The depth of the deepest level with more than one and at most :data:`SUMMARY_ROWS` domains."""
    best, level, depth = None, [root], 0
    while level:
        if 1 < len(level) <= SUMMARY_ROWS:
            best = depth
        elif len(level) > SUMMARY_ROWS:
            break
        level, depth = [child for view in level for child in view.children], depth + 1
    return best


def _path(domain_id: str) -> list[str]:
    return domain_id.split("/") if domain_id else []


def _within(domain_id: str, view: DomainView) -> bool:
    """Whether the domain ``domain_id`` is ``view``'s own or one below it."""
    return any(domain_id == own or domain_id.startswith(own + "/") or not own for own in (view.id, *view.same))


def _plan(picture: PlacementMap, prefix: str, candidates: bool) -> _Plan:
    views = list(_walk(picture.root))
    anchors = {view.id: f"{prefix}-{index}" for index, (view, _) in enumerate(views)}
    ids = {domain_id: view.id for view, _ in views for domain_id in (view.id, *view.same)}
    outlines: dict[str, list[tuple[str, bool]]] = {}
    for gang in picture.gangs:
        others = gang.candidates if candidates else []
        for domain_id in dict.fromkeys(([gang.chosen] if gang.chosen else []) + others):
            if domain_id in ids:
                outlines.setdefault(ids[domain_id], []).append((gang.key, domain_id == gang.chosen))
    depth = _summary_depth(picture.root)
    summary = [view for view, at in views if at == depth] if depth is not None else []
    folded: set[str] = set()
    if len(views) > OPEN_BOXES and depth is not None:
        # A box holding a gang (its outline or its pods) stays open, and so do the boxes around it.
        touched = {view.id for view, _ in views if view.gpus_placed} | set(outlines)
        opened = {"/".join(parts[:end]) for parts in map(_path, touched) for end in range(len(parts) + 1)}
        folded = {view.id for view in summary if view.id not in opened}
    return _Plan(anchors, folded, outlines, summary)


def _domain_html(view: DomainView, depth: int, plan: _Plan, colours: dict[str, str], out: list[str]) -> None:
    title = f"{view.level or 'cluster'}={_label(view)}: {plural(view.nodes, 'node')} ({view.ready_nodes} ready)"
    title += f", {_gpus(view)}"
    opened = "" if view.id in plan.folded else " open"
    css = "domain" if view.children else "domain nodes" if view.node_views else "domain aggregate"
    out.append(
        f'<details class="{css}" id="{plan.anchors[view.id]}" data-id="{_attr(view.id)}" '
        f'data-level="{_attr(view.level or "")}" style="background:{SHADES[min(depth, 3)]}"{opened}>'
        f'<summary title="{_attr(title)}"><b class="name">{_attr(_label(view))}</b> '
        f'<span class="count">{_gpus(view)}</span>'
    )
    if not view.node_views:
        out.append(f" {_usage_bar(view)}")
    out.append("</summary>")
    if view.children:
        out.append('<div class="children">')
        for child in view.children:
            _domain_html(child, depth + 1, plan, colours, out)
        out.append("</div>")
    elif view.node_views:
        tiles = len(view.node_views)
        columns = max(1, min(tiles, math.ceil(math.sqrt(tiles))))  # about square: boxes pack the window's width
        out.append(f'<div class="tiles" style="width:{columns * (TILE + GAP) - GAP}px">')
        for node in view.node_views:
            _tile_html(node, colours, out)
        out.append("</div>")
    for mark, (key, chosen) in enumerate(plan.outlines.get(view.id, [])):
        inset = 3.5 * mark  # the first ring on the edge, the next ones inside it
        kind = "chosen" if chosen else "candidate"
        out.append(
            f'<span class="{kind}" data-gang="{_attr(key)}" data-domain="{_attr(view.id)}" '
            f'style="inset:{inset}px;border-color:{colours[key]}"></span>'
        )
    out.append("</details>")


def _usage_bar(view: DomainView) -> str:
    used = 0.0 if not view.gpus else float((view.gpus - _free_after(view)) / view.gpus)
    return f'<span class="bar"><span class="used" style="width:{100 * used:.0f}%"></span></span>'


def _tile_html(node: NodeView, colours: dict[str, str], out: list[str]) -> None:
    state = "NotReady" if not node.ready else "Ready"
    state += ",SchedulingDisabled" if node.cordoned else ""
    placed = ", ".join(f"{key}: {plural(pods, 'pod')}" for key, pods in node.pods.items())
    title = f"{node.name} ({state}): {_gpus(node)}" + (f"; placed {placed}" if placed else "")
    css = "node" + (" notready" if not node.ready else "") + (" cordoned" if node.cordoned else "")
    out.append(f'<span class="{css}" data-node="{_attr(node.name)}" data-pods="{sum(node.pods.values())}" ')
    out.append(f'title="{_attr(title)}">')
    used = 0.0 if not node.gpus else float((node.gpus - node.gpus_free) / node.gpus) if node.ready else 1.0
    if used:
        out.append(f'<i class="used" style="width:{(TILE - 2) * used:.1f}px"></i>')
    stripes = list(node.pods.items())
    for position, (key, pods) in enumerate(stripes):
        height = (TILE - 8) / len(stripes)
        shown = str(pods) if len(stripes) == 1 else ""
        out.append(
            f'<i class="pods" data-gang="{_attr(key)}" style="top:{6 + position * height:.1f}px;'
            f'height:{height - 1:.1f}px;background:{colours.get(key, "#555")}">{shown}</i>'
        )
    out.append("</span>")


def _picture(picture: PlacementMap, colours: dict[str, str], candidates: bool, prefix: str) -> tuple[str, _Plan]:
    plan = _plan(picture, prefix, candidates)
    out = [f'<div class="topology" aria-label="{_attr(picture.cluster)} topology">']
    _domain_html(picture.root, 0, plan, colours, out)
    out.append("</div>")
    return "".join(out), plan


def topology_picture(picture: PlacementMap, colours: dict[str, str], candidates: bool = False) -> str:
    """The picture alone (``wmap serve``'s page draws its own tables around it)."""
    return _picture(picture, colours, candidates, "d")[0]


def gang_colours(pictures: Sequence[PlacementMap]) -> dict[str, str]:
    """Each gang's colour, alike across pictures."""
    keys = list(dict.fromkeys(gang.key for picture in pictures for gang in picture.gangs))
    return {key: PALETTE[index % len(PALETTE)] for index, key in enumerate(keys)}


def _short_id(domain_id: str) -> str:
    return domain_id.rpartition("/")[2] or domain_id


def _gang_rows(gangs: Sequence[GangView], colours: dict[str, str]) -> str:
    rows = []
    for gang in gangs:
        verdict = "fits" if gang.fits else "DOES NOT FIT"
        chosen = _short_id(gang.chosen) if gang.chosen else ("the whole cluster" if gang.fits else "")
        shown = [_short_id(candidate) for candidate in gang.candidates[:8]]
        candidates = ", ".join(shown) + (f" +{len(gang.candidates) - 8} more" if len(gang.candidates) > 8 else "")
        cells = [
            ("", f'<span class="swatch" style="background:{colours[gang.key]}"></span>'),
            ("name", _attr(gang.workload)),
            ("name", _attr(gang.name)),
            ("name", f"{gang.pods} (min {gang.min_member})"),
            ("name", f'<span class="{"fit" if gang.fits else "unfit"}">{verdict}</span>'),
            ("", _attr(gang.level or "cluster")),
            ("", f'<span title="{_attr(gang.chosen or "")}">{_attr(chosen)}</span>'),
            ("", _attr(candidates)),
            ("reason", _attr(gang.reason or "")),
        ]
        css = "gang fits" if gang.fits else "gang unfit"
        body = "".join(f'<td class="{kind}">{cell}</td>' if kind else f"<td>{cell}</td>" for kind, cell in cells)
        rows.append(f'<tr class="{css}" data-gang="{_attr(gang.key)}">{body}</tr>')
    return "\n".join(rows)


_HEADERS = ("", "workload", "gang", "pods", "verdict", "level", "chosen", "candidates", "reason")


def _verdicts(picture: PlacementMap) -> str:
    items = []
    for item in picture.workloads:
        verdict = "fits" if item["fits"] else "DOES NOT FIT"
        reason = f" ({_attr(item['reason'])})" if item["reason"] else ""
        items.append(
            f'<li class="{"fit" if item["fits"] else "unfit"}">{_attr(item["workload"])}: {verdict}{reason}</li>'
        )
    return f'<ul class="verdicts">{"".join(items)}</ul>'


def _summary_table(picture: PlacementMap, plan: _Plan) -> str:
    """One cell per domain of the summary's level, each a link to its box, flowing in columns as wide as the window.

    The overview of a large cluster: tens of domains read at a glance, where their boxes below take pages.
    """
    cells = []
    for view in plan.summary:
        gangs = sum(1 for gang in picture.gangs if gang.chosen and _within(gang.chosen, view))
        folded = " folded" if view.id in plan.folded else ""
        placed = f' <span class="gangs">{plural(gangs, "gang")},</span>' if gangs else ""
        cells.append(
            f'<li class="summary{folded}" data-id="{_attr(view.id)}"><a href="#{plan.anchors[view.id]}">'
            f"{_attr(_label(view))}</a> {_usage_bar(view)}{placed} <span>{plural(view.nodes, 'node')}"
            f"{f' ({view.ready_nodes} ready)' if view.ready_nodes != view.nodes else ''}, {_gpus(view)}</span></li>"
        )
    level = _attr(plan.summary[0].level or "")
    return (
        f'<p class="legend">{len(cells)} domains of {level} (folded below: {len(plan.folded)}):</p>'
        f'<ul class="summary">{"".join(cells)}</ul>'
    )


def _section(
    picture: PlacementMap, colours: dict[str, str], extra: str = "", candidates: bool = False, prefix: str = "d"
) -> str:
    table = ""
    if picture.gangs:
        head = "".join(f"<th>{name}</th>" for name in _HEADERS)
        rows = _gang_rows(picture.gangs, colours)
        table = (
            f'<div class="wide"><table class="gangs"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>'
        )
    drawing, plan = _picture(picture, colours, candidates, prefix)
    root = picture.root
    summary = _summary_table(picture, plan) if root.nodes > SUMMARY_NODES and plan.summary else ""
    cordoned = f", {root.cordoned_nodes} cordoned" if root.cordoned_nodes else ""
    notes = "".join(f"<li>{_attr(note)}</li>" for note in dict.fromkeys(picture.notes))
    aggregated = "" if picture.nodes_drawn else f'<p class="legend">{_LEGEND_AGGREGATED}</p>'
    return (
        f'<section class="cluster" data-cluster="{_attr(picture.cluster)}">'
        f"<h2>{_attr(picture.cluster)} <small>{_attr(picture.source or '')}</small></h2>"
        f'<p class="levels">{plural(root.nodes, "node")} ({root.ready_nodes} ready{cordoned}), {_gpus(root)}; '
        f"levels: {_attr(' > '.join(picture.levels))}</p>"
        f"{_verdicts(picture)}{extra}{table}{summary}{aggregated}"
        f'<div class="picture">{drawing}</div>'
        f"{'<ul class=notes>' + notes + '</ul>' if notes else ''}</section>"
    )


_STYLE = """
body{font:14px/1.4 "DejaVu Sans",Arial,sans-serif;margin:24px;color:#263238;background:#fff}
h1{font-size:20px;margin:0 0 4px} h2{font-size:17px;margin:24px 0 4px} small{color:#607d8b;font-weight:normal}
.legend span{display:inline-block;margin-right:18px}
.picture{margin:8px 0}
.topology{font-size:12px}
.domain{position:relative;box-sizing:border-box;max-width:100%;border:1px solid #9aa5b1;border-radius:4px;
padding:0 8px 8px}
.domain:not([open]){padding-bottom:0}
.domain.nodes{width:min-content}
.domain>summary{cursor:pointer;padding:5px 0 4px}
.domain>summary .count{display:inline-block;color:#546e7a;margin-left:6px;white-space:nowrap}
.domain.aggregate{padding-bottom:0;width:10.5em} .domain.aggregate>summary{cursor:default;list-style:none}
.domain.aggregate .count{margin:0} .domain.aggregate .bar{display:block;width:auto;margin:2px 0 0}
.children{display:flex;flex-wrap:wrap;gap:4px;align-items:flex-start}
.tiles{display:flex;flex-wrap:wrap;gap:4px;max-width:100%}
.bar{display:inline-block;vertical-align:middle;width:72px;height:8px;margin-left:6px;background:#c8e6c9;
position:relative}
.bar .used{position:absolute;left:0;top:0;bottom:0;background:#78909c}
.node{position:relative;display:block;box-sizing:border-box;width:26px;height:26px;border:1px solid #90a4ae;
background:#fff}
.node.notready{border-color:#c62828;background:#fbe9e7}
.node.cordoned{border-color:#ef6c00;border-style:dashed;background:#fbe9e7}
.node i{position:absolute;display:block;font-style:normal}
.node i.used{left:0;top:0;height:5px;background:#78909c}
.node i.pods{left:0;right:0;color:#fff;font-weight:bold;font-size:11px;line-height:18px;text-align:center}
.chosen,.candidate{position:absolute;border:3px solid;border-radius:4px;pointer-events:none}
.candidate{border-width:1.5px;border-style:dashed}
div.wide{overflow-x:auto;max-width:100%} table.gangs{border-collapse:collapse;margin-top:8px}
.gangs td,.gangs th{border:1px solid #cfd8dc;padding:3px 8px;vertical-align:top;text-align:left}
.gangs th{background:#eceff1}
ul.summary{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:2px 16px;list-style:none;
margin:4px 0;padding:0;font-size:12px} ul.summary li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
ul.summary .bar{margin:0 4px} ul.summary .gangs{font-weight:bold}
.swatch{display:inline-block;width:14px;height:14px;border-radius:3px}
span.fit,li.fit{color:#2e7d32;font-weight:bold} span.unfit,li.unfit{color:#c62828;font-weight:bold}
.gangs td.name{white-space:nowrap} .gangs td.reason{color:#c62828;max-width:420px}
ul.verdicts,ul.notes{margin:4px 0;padding-left:20px}
"""

PAGE_STYLE = _STYLE
"""The pictures' style sheet (inline: pages fetch nothing)."""

_LEGEND_DOMAINS = (
    "<span>box: a topology domain (GPUs free after the placement)</span>"
    "<span>tile: a node (grey bar: GPUs in use before)</span>"
)
_LEGEND_GANGS = "<span>coloured tile: pods a gang put there</span><span>solid outline: a gang's chosen domain</span>"
_LEGEND_CANDIDATES = "<span>dashed: its other candidate domains</span>"
_LEGEND_NODES = (
    "<span>red border: NotReady; orange dashed: cordoned</span><span>click a box's title to fold it; "
    "find-in-page opens the box holding a name</span>"
)
_LEGEND_AGGREGATED = (
    f"More than {MAX_NODES_DRAWN:,} nodes: the deepest boxes are domains, not one tile per node "
    "(bar: GPUs in use after the placement)."
)


def _legend(gangs: bool, candidates: bool) -> str:
    """What the marks mean: the gangs' only where there are gangs, the candidates' only where they are drawn."""
    parts = [_LEGEND_DOMAINS]
    if gangs:
        parts.append(_LEGEND_GANGS + (_LEGEND_CANDIDATES if candidates else ""))
    parts.append(_LEGEND_NODES)
    return f'<p class="legend">{"".join(parts)}</p>'


def render_html(
    pictures: Sequence[PlacementMap], title: str, extras: dict[str, str] | None = None, *, candidates: bool = False
) -> str:
    """The whole page: a section per cluster, gangs coloured alike across them (``candidates``: outline them too)."""
    colours = gang_colours(pictures)
    sections = "\n".join(
        _section(picture, colours, (extras or {}).get(picture.cluster, ""), candidates, f"c{index}")
        for index, picture in enumerate(pictures)
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_attr(title)}</title><style>{_STYLE}</style></head>\n"
        f'<body><h1>{_attr(title)}</h1><p class="generated">wmap {__version__}</p>'
        f"{_legend(bool(colours), candidates)}\n"
        f"{sections}\n</body></html>\n"
    )


def _write(path: Path, text: str) -> None:
    import typer

    from ..printing import output
    from ..printing.files import write_atomically

    try:
        write_atomically(path, text)  # a failed write leaves the old file whole
    except OSError as error:
        output.error(f"{path}: cannot write: {error.strerror or error}")
        raise typer.Exit(1) from None
    output.warn(f"note: wrote {path}")


def _ranking_notes(placed: Sequence[tuple[Any, Any, Any]], cluster: str) -> str:
    """The workloads that a ranking across clusters found unfit for ``cluster``, with the reason it gave."""
    items = [
        f"<li>{_attr(placement.ranking.workload)}: does not fit ({_attr(unfit.reason)})</li>"
        for placement, _, _ in placed
        if placement.ranking is not None
        for unfit in placement.ranking.unfit
        if unfit.cluster == cluster
    ]
    return f'<ul class="ranking">{"".join(items)}</ul>' if items else ""


def write_html_report(
    path: Path, placed: Sequence[tuple[Any, Any, Any]], clusters: Sequence[Any], *, candidates: bool = False
) -> None:
    """``wmap place --html``: every cluster, the reports of the workloads placed on it, the ranking's reasons.

    ``candidates`` (``--html-candidates``): outline each gang's other candidate domains too.
    """
    pictures, extras = [], {}
    for cluster in clusters:
        reports = [
            placement.report
            for placement, _, _ in placed
            if placement.report is not None and placement.cluster is cluster
        ]
        pictures.append(placement_map(cluster, reports))
        extras[cluster.name] = _ranking_notes(placed, cluster.name)
    workloads = list(dict.fromkeys(str(tree.workload) for _, _, tree in placed))
    shown = ", ".join(workloads[:3]) + (" ..." if len(workloads) > 3 else "")
    names = ", ".join(cluster.name for cluster in clusters)
    _write(path, render_html(pictures, f"wmap placement: {shown} on {names}", extras, candidates=candidates))


def write_topology_html(path: Path, cluster: Any) -> None:
    """``wmap topology show --html``: the cluster's domains and nodes, nothing placed."""
    _write(path, render_html([placement_map(cluster)], f"wmap topology: {cluster.name}"))
