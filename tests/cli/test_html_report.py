"""The placement picture (``--html``): self-contained, and laid out right in a real headless Chromium.

The browser test compares structure, not pixels: element counts against the placement's own
data, each gang's outline inside its chosen domain's box, its pods' tiles inside that box, and a
screenshot whose pixels are not blank where the domains are drawn. The README's picture is a
screenshot of the README's own example, compared with a fresh one.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from html.parser import HTMLParser
from pathlib import Path

import pytest

from helpers import FIXTURES_DIR, REPO_ROOT
from helpers.browser import layout, read_png, screenshot

JOBSET = str(FIXTURES_DIR / "jobset-leader-workers.yaml")
PLACEMENT = FIXTURES_DIR / "placement"
LEVELS = "cloud.provider.com/topology-block,cloud.provider.com/topology-rack,kubernetes.io/hostname"
DEMO = [
    str(PLACEMENT / "jobset-slices.yaml"),
    str(PLACEMENT / "job-rack-required.yaml"),
    "-t",
    str(PLACEMENT / "gpu-racks-tainted.yaml"),
    "--levels",
    LEVELS,
    "--pods",
    str(PLACEMENT / "pods-bound.yaml"),
]


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def having(self, tag: str, css: str) -> list[dict[str, str | None]]:
        return [attrs for name, attrs in self.tags if name == tag and css in (attrs.get("class") or "").split()]


def _page(wmap, tmp_path: Path, *args: str) -> tuple[Path, dict]:
    target = tmp_path / "picture.html"
    result = wmap("place", *args, "--html", str(target))
    assert result.exit_code == 0, result.stderr
    assert f"note: wrote {target}" in result.stderr
    report = json.loads(wmap("place", *args, "-o", "json").stdout)
    return target, report


def test_the_page_is_self_contained_and_holds_every_domain_node_and_gang(wmap, tmp_path):
    page, reports = _page(wmap, tmp_path, *DEMO)
    text = page.read_text()
    assert "<script" not in text and not re.search(r"(src|href)=\"https?:", text) and "@import" not in text
    elements = _Elements()
    elements.feed(text)
    assert len(elements.having("details", "domain")) == 1 + 2 + 4 + 1  # cluster, 2 blocks, 4 racks, the unlabelled rack
    assert len(elements.having("span", "node")) == 20
    rows = elements.having("tr", "gang")
    assert [row["data-gang"] for row in rows] == [f"{r['workload']['kind']}/{r['workload']['name']} {g['name']}"
                                                  for r in reports["items"] for g in r["podGroups"]]  # fmt: skip
    unfit = [row for row in rows if "unfit" in (row.get("class") or "")]
    # the reason as the report words it (Kueue's "allows to fit only 4 out of 6 pod(s)" in words)
    assert len(unfit) == 1 and "only 4 of its 6 job pods find room" in text
    # a ring only for each gang's chosen domain; the gangs' legend because there are gangs
    assert not elements.having("span", "candidate") and elements.having("span", "chosen")
    assert "solid outline: a gang's chosen domain" in text and "dashed: its other candidate" not in text


def test_candidates_are_outlined_when_asked(wmap, tmp_path):
    target = tmp_path / "candidates.html"
    # the JobSet fits each of the 4 NVLink domains; it was put in nvl-001: the other 3 are dashed
    assert wmap("place", JOBSET, "--html", str(target), "--html-candidates").exit_code == 0
    elements = _Elements()
    elements.feed(target.read_text())
    dashed = [rect["data-domain"] for rect in elements.having("span", "candidate")]
    assert [domain.rpartition("/")[2] for domain in dashed] == ["nvl-002", "nvl-003", "nvl-004"]
    assert "dashed: its other candidate" in target.read_text()


def test_domains_say_the_gpus_free_after_the_placement(wmap, tmp_path):
    """The JobSet's 3 pods of 4 GPUs go to one NVLink domain of 72 GPUs: it shows 60 free, the cluster 276 of 288."""
    target = tmp_path / "after.html"
    assert wmap("place", JOBSET, "--html", str(target)).exit_code == 0
    text = target.read_text()
    assert "288/288 GPUs free" not in text and "276/288 GPUs free" in text and "60/72 GPUs free" in text


def test_topology_show_draws_the_cluster_alone(wmap, tmp_path):
    target = tmp_path / "topology.html"
    assert wmap("topology", "show", "preset:nvl72-4rack", "--html", str(target)).exit_code == 0
    elements = _Elements()
    elements.feed(target.read_text())
    assert len(elements.having("details", "domain")) == 1 + 1 + 2 + 4 and len(elements.having("span", "node")) == 72
    assert not elements.having("span", "chosen") and not elements.having("tr", "gang")
    assert "chosen domain" not in target.read_text()  # no gang: no gang legend


def test_an_unwritable_target_is_one_error_line(wmap, tmp_path):
    result = wmap("place", JOBSET, "--html", str(tmp_path / "missing-dir" / "x.html"))
    assert result.exit_code == 1 and "cannot write" in result.stderr


def _inside(inner: dict, outer: dict) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


@pytest.mark.parametrize("case", ["demo", "nvl72"])
def test_chromium_lays_out_gangs_inside_their_domains(wmap, tmp_path, case):
    args = DEMO if case == "demo" else [JOBSET, str(FIXTURES_DIR / "leaderworkerset.yaml"), "--each-alone"]
    page, reports = _page(wmap, tmp_path, *args)
    seen = layout(page)
    assert seen["scripts"] == 1  # only the probe: the page itself runs nothing
    domains = {domain["id"]: domain["box"] for domain in seen["domains"]}
    groups = [group for report in reports["items"] for group in report["podGroups"]]
    assert len(seen["rows"]) == len(groups)
    assert [row["fits"] for row in seen["rows"]] == [group["fits"] for group in groups]
    fitting = [group for group in groups if group["fits"] and group["assignment"]["domain"]]
    assert len(seen["chosen"]) == len(fitting)
    for outline in seen["chosen"]:
        box = domains[outline["domain"]]
        assert box["width"] > 0 and _inside(outline["box"], box)
        tiles = [node["box"] for node in seen["nodes"] if node["pods"]]
        assert tiles and all(any(_inside(tile, domains[o["domain"]]) for o in seen["chosen"]) for tile in tiles)
    for row in seen["rows"]:
        if not row["fits"]:
            assert "DOES NOT FIT" in row["text"]
    picture = seen["pictures"][0]
    # the verdicts come first, the picture under them spans the window (less the page's margins)
    assert all(row["box"]["y"] + row["box"]["height"] <= picture["y"] for row in seen["rows"])
    assert picture["width"] >= seen["window"]["width"] - 2 * 24 - 1


def test_chromium_screenshot_is_not_blank_where_domains_are(wmap, tmp_path):
    page, _ = _page(wmap, tmp_path, *DEMO)
    seen = layout(page)
    pixels = screenshot(page, tmp_path / "shot.png")
    height, width = len(pixels), len(pixels[0])
    white = (255, 255, 255)
    for domain in seen["domains"]:
        box = domain["box"]
        x, y = int(box["x"] + box["width"] / 2), int(box["y"] + 3)  # inside its fill, clear of its label
        if y < height and x < width:
            assert pixels[y][x] != white, domain["id"]
    for node in seen["nodes"]:
        box = node["box"]
        x, y = int(box["x"] + box["width"] / 2), int(box["y"] + box["height"] - 2)
        if node["pods"] and y < height:
            red, green, blue = pixels[y][x]
            assert blue > red, node["name"]  # the gang's colour (blue) fills a tile it put pods on
    right = int(seen["pictures"][0]["x"] + seen["pictures"][0]["width"] + 10)
    assert right < width and pixels[int(seen["pictures"][0]["y"]) + 10][right] == white  # the margin is blank


README_PICTURE = REPO_ROOT / "docs" / "images" / "placement.png"
README_WINDOW = (1100, 760)


def test_the_readme_picture_is_what_the_code_draws(wmap, tmp_path):
    """The README's picture is a screenshot of its own ``--html`` example, drawn by the code as it is.

    ``WMAP_WRITE_PICTURES=1`` writes it anew (after a change to the drawing); otherwise at most 1% of
    its pixels may differ from a fresh screenshot (font rendering), so a stale picture fails.
    """
    command = next(line for line in (REPO_ROOT / "README.md").read_text().splitlines() if "--html placement" in line)
    words = shlex.split(command.removeprefix("$ wmap "))
    words[words.index("--html") + 1] = str(tmp_path / "placement.html")
    assert wmap(*words).exit_code == 0
    fresh = tmp_path / "placement.png"
    pixels = screenshot(tmp_path / "placement.html", fresh, window=README_WINDOW)
    if os.environ.get("WMAP_WRITE_PICTURES"):
        README_PICTURE.write_bytes(fresh.read_bytes())
    shown = read_png(README_PICTURE.read_bytes())
    assert (len(shown[0]), len(shown)) == README_WINDOW
    differing = sum(a != b for row, other in zip(pixels, shown, strict=True) for a, b in zip(row, other, strict=True))
    assert differing <= 0.01 * README_WINDOW[0] * README_WINDOW[1], f"{differing} pixels differ from a fresh drawing"


# Large clusters, generated as a user would (`wmap topology generate`): 16 nodes a rack (an NVLink
# domain), 4 racks a leaf switch, 8 leaves a spine, one core switch. The expected counts follow
# from those numbers: 2,000 nodes are 125 racks under 32 leaves; 20,000 nodes are 1,250 racks,
# 313 leaves, 40 spines.
SHAPE = ("--nodes-per-rack", "16", "--racks-per-block", "4", "--blocks-per-spine", "8")
WINDOWS = (800, 1280, 1920)


@pytest.fixture(scope="module")
def large_pages(tmp_path_factory) -> dict[int, tuple[Path, dict]]:
    """``wmap place JOBSET -t NODES --html`` on 2,000 and 20,000 generated nodes: the page and the report."""
    from typer.testing import CliRunner

    from workloadmap.cli.main import app

    directory = tmp_path_factory.mktemp("large")
    pages = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("WMAP_CATALOG", raising=False)
        runner = CliRunner()
        for nodes in (2_000, 20_000):
            topology, page = directory / f"nodes-{nodes}.json", directory / f"nodes-{nodes}.html"
            racks = str(nodes // 16)
            generated = runner.invoke(app, ["topology", "generate", "--racks", racks, *SHAPE, "-o", "json",
                                            "--file", str(topology)])  # fmt: skip
            assert generated.exit_code == 0, generated.stderr
            placed = runner.invoke(app, ["place", JOBSET, "-t", str(topology), "--html", str(page), "-o", "json"])
            assert placed.exit_code == 0, placed.stderr
            pages[nodes] = page, json.loads(placed.stdout)
    return pages


def _first_row(domains: list[dict], slashes: int) -> int:
    """How many boxes of one depth (ids with this many ``/``) sit in the first row of that depth."""
    boxes = [domain["box"] for domain in domains if domain["id"].count("/") == slashes]
    return sum(1 for box in boxes if abs(box["y"] - boxes[0]["y"]) < 1)


def test_2000_nodes_draw_a_tile_each_in_rows_as_wide_as_the_window(large_pages):
    page, report = large_pages[2_000]
    racks_per_row = []
    for width in WINDOWS:
        seen = layout(page, window=(width, 1000))
        assert seen["window"]["width"] == width
        assert seen["page"]["width"] == width, "nothing is wider than the window: no sideways scrolling"
        assert seen["pictures"][0]["width"] >= width - 2 * 24 - 1, "the picture spans the window"
        assert len(seen["nodes"]) == 2_000 and seen["elements"] < 2 * 2_000
        # 125 racks: 124 under full leaves; the last leaf holds one rack, drawn as one box with it
        racks = [domain["box"] for domain in seen["domains"] if domain["id"].count("/") == 3]
        assert len(racks) == 124
        racks += [domain["box"] for domain in seen["domains"] if domain["id"].endswith("/leaf-032")]
        assert all(domain["open"] for domain in seen["domains"])
        assert all(any(_inside(node["box"], rack) for rack in racks) for node in seen["nodes"])
        assert len(seen["summary"]) == 32, "the summary: one cell per leaf switch"
        racks_per_row.append(_first_row(seen["domains"], 3))
    assert racks_per_row == sorted(set(racks_per_row)), f"a wider window holds more racks a row: {racks_per_row}"
    (group,) = report["podGroups"]
    (outline,) = seen["chosen"]
    assert outline["domain"] == group["assignment"]["domain"] or outline["domain"].endswith(
        "/" + group["assignment"]["domain"]
    )


def test_20000_nodes_fold_into_a_summary_of_their_spines(large_pages):
    page, report = large_pages[20_000]
    text = page.read_text()
    assert len(text.encode()) < 1_000_000, "a page of less than a megabyte"
    seen = layout(page, window=(1280, 1000))
    assert not seen["nodes"], "above 2,000 nodes the racks are drawn, not their nodes"
    assert len([domain for domain in seen["domains"] if domain["id"].count("/") == 3]) == 1_250
    assert seen["elements"] < 20_000 and seen["page"]["width"] == 1280
    assert len(seen["summary"]) == 40, "the summary: one cell per spine"
    spines = {domain["id"]: domain["open"] for domain in seen["domains"] if domain["id"].count("/") == 1}
    (group,) = report["podGroups"]
    (outline,) = seen["chosen"]
    assert outline["domain"].endswith("/" + group["assignment"]["domain"])
    holding = "/".join(outline["domain"].split("/")[:2])
    assert spines.pop(holding) and len(spines) == 39 and not any(spines.values()), "only the gang's spine is open"
    assert seen["page"]["height"] <= 2.5 * seen["window"]["height"], "the whole cluster within a few screens"
    # every summary cell links to its own domain's box
    anchors = dict(re.findall(r'<details class="[^"]*" id="([^"]+)" data-id="([^"]*)"', text))
    links = re.findall(r'<li class="summary[^"]*" data-id="([^"]*)"><a href="#([^"]+)"', text)
    assert len(links) == 40 and all(anchors[anchor] == domain for domain, anchor in links)
