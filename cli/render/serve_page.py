"""``wmap serve``'s pages: the live topology map with every workload's gangs, the workloads table, describe views.

Drawn here, beside ``place --html`` (whose picture they reuse), from what the service publishes:
the snapshot's workload states and :func:`workloadmap.service.live_picture`. Every value from the
cluster is escaped twice over: control characters made visible (as in every human output), then
HTML-escaped. The pages are self-contained (inline style, no script, nothing fetched) and refresh
themselves every :data:`REFRESH_SECONDS` seconds with a ``<meta http-equiv="refresh">``.
"""

from __future__ import annotations

import html
import time
from typing import Any
from urllib.parse import quote

from workloadmap import __version__

from ..printing.escape import escaped, shown
from .html import PAGE_STYLE, gang_colours, topology_picture
from .workloads import render_describe

__all__ = ["index_page", "workload_page", "REFRESH_SECONDS"]

REFRESH_SECONDS = 15

_STYLE = (
    PAGE_STYLE
    + """
table.workloads{border-collapse:collapse;margin-top:8px} .workloads td,.workloads th{border:1px solid #cfd8dc;
padding:3px 8px;text-align:left;white-space:nowrap} .workloads th{background:#eceff1}
.workloads td.num{text-align:right}
.ok{color:#2e7d32;font-weight:bold} .bad{color:#c62828;font-weight:bold} .muted{color:#607d8b}
pre.describe{background:#f5f7f8;border:1px solid #cfd8dc;padding:12px;overflow:auto;
font:12px/1.35 "DejaVu Sans Mono",monospace}
"""
)


def _text(value: Any) -> str:
    """A value from the cluster as HTML text: control characters shown, then escaped."""
    return html.escape(shown(str(value)), quote=True)


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="{REFRESH_SECONDS}">'
        f"<title>{_text(title)}</title><style>{_STYLE}</style></head>\n"
        f'<body><h1>{_text(title)}</h1><p class="generated muted">wmap {__version__} &middot; read-only &middot; '
        f"refreshed every {REFRESH_SECONDS} s</p>\n{body}\n</body></html>\n"
    )


def _link(state: Any) -> str:
    parts = [state.namespace] if state.namespace else []
    return "/workloads/" + "/".join(quote(part, safe="") for part in [*parts, state.type_name, state.name])


def _count(value: Any) -> str:
    number = float(value)
    return str(int(number)) if number.is_integer() else f"{number:g}"


def _gangs(report: Any) -> tuple[str, str]:
    """(gangs complete, placement satisfied) cells of a workload's row."""
    groups = report.tree.pod_groups
    if not groups:
        return '<span class="muted">none</span>', '<span class="muted">-</span>'
    pods = [pod for component in report.components for item in component.walk() for pod in item.pods]
    complete = 0
    for group in groups:
        scheduled = sum(
            1 for pod in pods if pod.gang == group.name and pod.node and pod.phase not in ("Succeeded", "Failed")
        )
        complete += scheduled >= group.min_member
    css = "ok" if complete == len(groups) else "bad"
    gangs = f'<span class="{css}">{complete}/{len(groups)} complete</span>'
    audits = [
        audit for audit in (report.placement.pod_groups if report.placement else []) if audit.satisfied is not None
    ]
    if not audits:
        return gangs, '<span class="muted">-</span>'
    satisfied = sum(1 for audit in audits if audit.satisfied)
    css = "ok" if satisfied == len(audits) else "bad"
    return gangs, f'<span class="{css}">{satisfied}/{len(audits)} satisfied</span>'


def _gang_table(picture: Any, colours: dict[str, str]) -> str:
    """The gangs drawn: colour, workload, gang, pods scheduled of minMember, the domain holding them."""
    if not picture.gangs:
        return ""
    rows = []
    for gang in picture.gangs:
        state = "complete" if gang.fits else (gang.reason or "incomplete")
        where = gang.chosen.rpartition("/")[2] if gang.chosen else ("" if gang.fits else "-")
        css = "gang fits" if gang.fits else "gang unfit"
        rows.append(
            f'<tr class="{css}" data-gang="{_text(gang.key)}"><td><span class="swatch" '
            f'style="background:{colours[gang.key]}"></span></td><td>{_text(gang.workload)}</td>'
            f"<td>{_text(gang.name)}</td><td>{gang.pods} (min {gang.min_member})</td>"
            f'<td><span class="{"ok" if gang.fits else "bad"}">{_text(state)}</span></td>'
            f"<td>{_text(gang.level or '')}</td><td>{_text(where)}</td></tr>"
        )
    head = "".join(f"<th>{name}</th>" for name in ("", "workload", "gang", "pods", "state", "level", "domain"))
    return f'<table class="gangs"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


_HEADERS = ("namespace", "kind", "name", "phase", "pods ready/desired", "GPUs", "gangs", "placement", "problem")


def _row(state: Any) -> str:
    name = f'<a href="{_text(_link(state))}">{_text(state.name)}</a>'
    kind = f"{state.kind}.{state.group}" if state.group else state.kind
    if state.report is None:
        cells = [_text(state.namespace), _text(kind), name, '<span class="bad">error</span>', "", "", "", "",
                 f'<span class="bad">{_text(state.error)}</span>']  # fmt: skip
    else:
        row = state.row
        ready = "-" if row.pods_ready is None else str(row.pods_ready)
        gangs, placement = _gangs(state.report)
        cells = [_text(state.namespace), _text(kind), name, _text(row.phase.value), f"{ready}/{row.pods_desired}",
                 _count(row.gpus), gangs, placement, ""]  # fmt: skip
    classes = ["", "", "", "", "num", "num", "", "", ""]
    body = "".join(
        f'<td class="{css}">{cell}</td>' if css else f"<td>{cell}</td>"
        for css, cell in zip(classes, cells, strict=True)
    )
    return f"<tr>{body}</tr>"


def index_page(snapshot: Any, picture: Any) -> str:
    """The page at ``/``: health, the topology map with the gangs, every workload in a table."""
    if snapshot.ready:
        age = f", last in sync {max(0, int(time.time() - snapshot.last_sync))} s ago" if snapshot.last_sync else ""
        status = f'<span class="ok">in sync</span>{age}'
    else:
        status = f'<span class="bad">syncing</span> ({_text(", ".join(snapshot.unsynced()) or "interpreting")})'
    failing = [f"<li>{_text(watch.resource)}: {_text(watch.error)}</li>" for watch in snapshot.watches if watch.error]
    parts = [
        f'<p class="status">{len(snapshot.workloads)} workloads; {status}</p>',
        f'<ul class="notes">{"".join(failing)}</ul>' if failing else "",
    ]
    if picture is not None:
        shown_picture = escaped(picture)
        colours = gang_colours([shown_picture])
        root = shown_picture.root
        parts.append(
            f'<h2>Topology</h2><p class="levels">{root.nodes} nodes ({root.ready_nodes} ready), '
            f"{_count(root.gpus_free)}/{_count(root.gpus)} GPUs free; levels: "
            f"{_text(' > '.join(shown_picture.levels))}</p>"
            '<p class="legend muted">box: a topology domain; tile: a node (grey bar: GPUs in use); coloured: '
            "the pods of a gang on it; solid outline: the narrowest domain holding a gang's scheduled pods</p>"
            f'<div class="picture">{topology_picture(shown_picture, colours)}</div>'
            f"{_gang_table(shown_picture, colours)}"
        )
        notes = "".join(f"<li>{_text(note)}</li>" for note in dict.fromkeys(shown_picture.notes))
        parts.append(f'<ul class="notes">{notes}</ul>' if notes else "")
    elif snapshot.ready:
        parts.append('<p class="muted">No nodes are cached: no topology map.</p>')
    head = "".join(f"<th>{_text(name)}</th>" for name in _HEADERS)
    rows = "\n".join(_row(state) for state in snapshot.workloads)
    parts.append(
        f'<h2>Workloads</h2><table class="workloads"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
    )
    return _page("wmap serve: the live cluster", "\n".join(part for part in parts if part))


def workload_page(state: Any, report: Any) -> str:
    """One workload's page: ``wmap describe``'s view, and where its JSON is."""
    parts = [state.namespace] if state.namespace else []
    api = "/api/v1/" + ("namespaces/" + quote(state.namespace, safe="") + "/" if state.namespace else "")
    api += f"workloads/{quote(state.type_name, safe='')}/{quote(state.name, safe='')}"
    title = f"{state.kind}/{state.name}" + (f" in {state.namespace}" if parts else "")
    body = (
        f'<p><a href="/">all workloads</a> &middot; JSON: <a href="{_text(api)}">{_text(api)}</a></p>'
        f'<pre class="describe">{html.escape(render_describe(escaped(report)), quote=True)}</pre>'
    )
    return _page(title, body)
