"""The placement picture: one self-contained HTML page with inline SVG (no script, no font or style fetched).

Each cluster is drawn as nested boxes, one per topology domain (spine, block, rack ...), the
deepest holding one tile per node: its GPUs in use before the placement as a grey bar, the pods a
gang put on it in the gang's colour. Each gang's chosen domain is outlined in its colour, its
other candidates dashed when asked; a table lists every gang with its verdict and, when it does not fit, the
reason. The data comes from :func:`workloadmap.placement.placement_map`; only the drawing is here.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workloadmap import __version__
from workloadmap.placement import DomainView, GangView, NodeView, PlacementMap, placement_map

from ..printing.numbers import count, plural

__all__ = ["render_html", "write_html_report", "write_topology_html"]

TILE = 26
GAP = 4
PAD = 8
HEAD = 22
PAGE = 1160
CHAR = 7.6  # width of one character of the 12 px labels, to size boxes around their names
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#bcbd22")


@dataclass
class _Box:
    """A domain's box: its size, then (after :func:`_place`) its position; children or node tiles inside."""

    view: DomainView
    width: float = 0
    height: float = 0
    x: float = 0
    y: float = 0
    children: list[_Box] = field(default_factory=list)
    rows: list[list[_Box]] = field(default_factory=list)
    columns: int = 0


def _label(view: DomainView) -> str:
    if view.level is None:
        return "cluster"
    return "<none>" if view.value is None else view.value


def _measure(view: DomainView, limit: float) -> _Box:
    """Size a domain's box to fit its children (flowed in rows no wider than ``limit``) or its node tiles."""
    box = _Box(view)
    label = len(_label(view)) * CHAR + 2 * PAD
    if view.children:
        box.children = [_measure(child, limit - 2 * PAD) for child in view.children]
        row: list[_Box] = []
        for child in box.children:
            if row and sum(item.width for item in row) + GAP * len(row) + child.width > limit - 2 * PAD:
                box.rows.append(row)
                row = []
            row.append(child)
        box.rows.append(row)
        inner = max(sum(item.width for item in line) + GAP * (len(line) - 1) for line in box.rows)
        box.width = max(inner + 2 * PAD, label)
        box.height = (
            HEAD + sum(max(item.height for item in line) for line in box.rows) + GAP * (len(box.rows) - 1) + PAD
        )
    elif view.node_views:
        tiles = len(view.node_views)
        fit = max(1, int((limit - 2 * PAD + GAP) // (TILE + GAP)))
        box.columns = max(1, min(tiles, fit, math.ceil(math.sqrt(tiles * 2.5))))
        lines = math.ceil(tiles / box.columns)
        box.width = max(2 * PAD + box.columns * TILE + (box.columns - 1) * GAP, label)
        box.height = HEAD + lines * TILE + (lines - 1) * GAP + PAD
    else:
        box.width = max(label, 120)
        box.height = HEAD + 14 + PAD
    return box


def _place(box: _Box, x: float, y: float) -> None:
    box.x, box.y = x, y
    top = y + HEAD
    for line in box.rows:
        left = x + PAD
        for child in line:
            _place(child, left, top)
            left += child.width + GAP
        top += max(item.height for item in line) + GAP


def _attr(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _free_after(view: DomainView | NodeView) -> Any:
    """GPUs free once the placed pods took theirs."""
    return max(view.gpus_free - view.gpus_placed, 0)


def _gpus(view: DomainView | NodeView) -> str:
    return f"{count(_free_after(view))}/{count(view.gpus)} GPUs free"


def _domain_svg(box: _Box, depth: int, out: list[str]) -> None:
    view = box.view
    shade = ("#f4f6f8", "#e9edf1", "#dde3e9", "#d2d9e0")[min(depth, 3)]
    title = f"{view.level or 'cluster'}={_label(view)}: {plural(view.nodes, 'node')} ({view.ready_nodes} ready)"
    title += f", {_gpus(view)}"
    out.append(f'<g class="domain" data-id="{_attr(view.id)}" data-level="{_attr(view.level or "")}">')
    out.append(f"<title>{_attr(title)}</title>")
    out.append(
        f'<rect class="box" x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" height="{box.height:.1f}" '
        f'rx="4" fill="{shade}" stroke="#9aa5b1"/>'
    )
    out.append(f'<text x="{box.x + PAD:.1f}" y="{box.y + 15:.1f}" class="name">{_attr(_label(view))}</text>')
    summary = _gpus(view)
    if box.width - (len(_label(view)) + 2 + len(summary)) * CHAR - 2 * PAD > 0:
        out.append(f'<text x="{box.x + box.width - PAD:.1f}" y="{box.y + 15:.1f}" class="count">{summary}</text>')
    if not view.children and not view.node_views:
        _usage_bar(box.x + PAD, box.y + HEAD, box.width - 2 * PAD, view, out)
    out.append("</g>")
    for child in box.children:
        _domain_svg(child, depth + 1, out)


def _usage_bar(x: float, y: float, width: float, view: DomainView, out: list[str]) -> None:
    used = 0.0 if not view.gpus else float((view.gpus - _free_after(view)) / view.gpus)
    out.append(f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="10" fill="#c8e6c9"/>')
    out.append(f'<rect class="used" x="{x:.1f}" y="{y:.1f}" width="{width * used:.1f}" height="10" fill="#78909c"/>')


def _tiles_svg(box: _Box, colours: dict[str, str], out: list[str]) -> None:
    for index, node in enumerate(box.view.node_views):
        x = box.x + PAD + (index % box.columns) * (TILE + GAP)
        y = box.y + HEAD + (index // box.columns) * (TILE + GAP)
        _tile_svg(node, x, y, colours, out)
    for child in box.children:
        _tiles_svg(child, colours, out)


def _tile_svg(node: NodeView, x: float, y: float, colours: dict[str, str], out: list[str]) -> None:
    state = "NotReady" if not node.ready else "Ready"
    state += ",SchedulingDisabled" if node.cordoned else ""
    placed = ", ".join(f"{key}: {plural(pods, 'pod')}" for key, pods in node.pods.items())
    title = f"{node.name} ({state}): {_gpus(node)}" + (f"; placed {placed}" if placed else "")
    stroke = "#c62828" if not node.ready else "#ef6c00" if node.cordoned else "#90a4ae"
    dash = ' stroke-dasharray="3 2"' if node.cordoned else ""
    out.append(f'<g class="node" data-node="{_attr(node.name)}" data-pods="{sum(node.pods.values())}">')
    out.append(f"<title>{_attr(title)}</title>")
    fill = "#ffffff" if node.ready and not node.cordoned else "#fbe9e7"
    out.append(
        f'<rect class="tile" x="{x:.1f}" y="{y:.1f}" width="{TILE}" height="{TILE}" fill="{fill}" '
        f'stroke="{stroke}"{dash}/>'
    )
    used = 0.0 if not node.gpus else float((node.gpus - node.gpus_free) / node.gpus) if node.ready else 1.0
    if used:
        width = (TILE - 2) * used
        out.append(
            f'<rect class="used" x="{x + 1:.1f}" y="{y + 1:.1f}" width="{width:.1f}" height="5" fill="#78909c"/>'
        )
    stripes = list(node.pods.items())
    for position, (key, pods) in enumerate(stripes):
        height = (TILE - 8) / len(stripes)
        top = y + 7 + position * height
        out.append(
            f'<rect class="pods" data-gang="{_attr(key)}" x="{x + 1:.1f}" y="{top:.1f}" width="{TILE - 2}" '
            f'height="{height - 1:.1f}" fill="{colours.get(key, "#555")}"/>'
        )
        if len(stripes) == 1:
            out.append(f'<text x="{x + TILE / 2:.1f}" y="{y + 20:.1f}" class="pods">{pods}</text>')
    out.append("</g>")


def _outlines_svg(
    root: _Box, gangs: Sequence[GangView], colours: dict[str, str], out: list[str], candidates: bool
) -> None:
    """Each gang's chosen domain (solid), nested inward when several share one.

    Its other candidates (dashed) only when ``candidates``: a ring per gang per domain drowns the labels.
    """
    boxes = {domain_id: box for box in _walk(root) for domain_id in (box.view.id, *box.view.same)}
    marks: dict[int, int] = {}
    for gang in gangs:
        colour = colours[gang.key]
        others = gang.candidates if candidates else []
        for domain_id in dict.fromkeys(([gang.chosen] if gang.chosen else []) + others):
            box = boxes.get(domain_id)
            if box is None:
                continue
            inset = 1.5 + 3.5 * marks.get(id(box), 0)
            marks[id(box)] = marks.get(id(box), 0) + 1
            chosen = domain_id == gang.chosen
            kind = "chosen" if chosen else "candidate"
            style = 'stroke-width="3"' if chosen else 'stroke-width="1.5" stroke-dasharray="6 4"'
            out.append(
                f'<rect class="{kind}" data-gang="{_attr(gang.key)}" data-domain="{_attr(box.view.id)}" '
                f'x="{box.x + inset:.1f}" y="{box.y + inset:.1f}" width="{max(box.width - 2 * inset, 1):.1f}" '
                f'height="{max(box.height - 2 * inset, 1):.1f}" rx="4" fill="none" stroke="{colour}" {style}/>'
            )


def _walk(box: _Box) -> list[_Box]:
    return [box] + [found for child in box.children for found in _walk(child)]


def _svg(picture: PlacementMap, colours: dict[str, str], candidates: bool) -> str:
    root = _measure(picture.root, PAGE)
    _place(root, 1, 1)
    out = [
        f'<svg class="topology" xmlns="http://www.w3.org/2000/svg" width="{root.width + 2:.0f}" '
        f'height="{root.height + 2:.0f}" role="img" aria-label="{_attr(picture.cluster)} topology">'
    ]
    _domain_svg(root, 0, out)
    _tiles_svg(root, colours, out)
    _outlines_svg(root, picture.gangs, colours, out, candidates)
    out.append("</svg>")
    return "\n".join(out)


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


def _section(picture: PlacementMap, colours: dict[str, str], extra: str = "", candidates: bool = False) -> str:
    table = ""
    if picture.gangs:
        head = "".join(f"<th>{name}</th>" for name in _HEADERS)
        rows = _gang_rows(picture.gangs, colours)
        table = f'<table class="gangs"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
    root = picture.root
    cordoned = f", {root.cordoned_nodes} cordoned" if root.cordoned_nodes else ""
    notes = "".join(f"<li>{_attr(note)}</li>" for note in dict.fromkeys(picture.notes))
    return (
        f'<section class="cluster" data-cluster="{_attr(picture.cluster)}">'
        f"<h2>{_attr(picture.cluster)} <small>{_attr(picture.source or '')}</small></h2>"
        f'<p class="levels">{plural(root.nodes, "node")} ({root.ready_nodes} ready{cordoned}), {_gpus(root)}; '
        f"levels: {_attr(' > '.join(picture.levels))}</p>"
        f"{_verdicts(picture)}{extra}"
        f'<div class="picture">{_svg(picture, colours, candidates)}</div>{table}'
        f"{'<ul class=notes>' + notes + '</ul>' if notes else ''}</section>"
    )


_STYLE = """
body{font:14px/1.4 "DejaVu Sans",Arial,sans-serif;margin:24px;color:#263238;background:#fff}
h1{font-size:20px;margin:0 0 4px} h2{font-size:17px;margin:24px 0 4px} small{color:#607d8b;font-weight:normal}
.legend span{display:inline-block;margin-right:18px}
.picture{overflow:auto;margin:8px 0}
svg text{font:12px "DejaVu Sans",Arial,sans-serif;fill:#263238}
svg text.count{text-anchor:end;fill:#546e7a}
svg text.pods{text-anchor:middle;fill:#fff;font-weight:bold;font-size:11px}
svg text.name{font-weight:bold}
table.gangs{border-collapse:collapse;margin-top:8px} .gangs td,.gangs th{border:1px solid #cfd8dc;padding:3px 8px;
vertical-align:top;text-align:left} .gangs th{background:#eceff1}
.swatch{display:inline-block;width:14px;height:14px;border-radius:3px}
span.fit,li.fit{color:#2e7d32;font-weight:bold} span.unfit,li.unfit{color:#c62828;font-weight:bold}
.gangs td.name{white-space:nowrap} .gangs td.reason{color:#c62828;max-width:420px}
ul.verdicts,ul.notes{margin:4px 0;padding-left:20px}
"""

_LEGEND_DOMAINS = (
    "<span>box: a topology domain (GPUs free after the placement)</span>"
    "<span>tile: a node (grey bar: GPUs in use before)</span>"
)
_LEGEND_GANGS = "<span>coloured tile: pods a gang put there</span><span>solid outline: a gang's chosen domain</span>"
_LEGEND_CANDIDATES = "<span>dashed: its other candidate domains</span>"
_LEGEND_NODES = "<span>red border: NotReady; orange dashed: cordoned</span>"


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
    keys = list(dict.fromkeys(gang.key for picture in pictures for gang in picture.gangs))
    colours = {key: PALETTE[index % len(PALETTE)] for index, key in enumerate(keys)}
    sections = "\n".join(
        _section(picture, colours, (extras or {}).get(picture.cluster, ""), candidates) for picture in pictures
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_attr(title)}</title><style>{_STYLE}</style></head>\n"
        f'<body><h1>{_attr(title)}</h1><p class="generated">wmap {__version__}</p>{_legend(bool(keys), candidates)}\n'
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
