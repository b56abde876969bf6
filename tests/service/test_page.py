"""``wmap serve``'s page at ``/`` in a real headless Chromium: the live topology map, the gangs on it, the table.

The page is fetched from a running service over the stand-in cluster and opened in Chromium
(:mod:`helpers.browser`). It must draw one tile per cached node inside the domain boxes, every
complete gang's outline around the narrowest domain holding its scheduled pods, one table row per
workload, nothing run or fetched; a value from the cluster that looks like markup must show as
text. The screenshot's pixels are not blank where the domains are. ``docs/images/serve.png`` is such
a screenshot (made by :func:`write_docs_screenshot`).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import yaml

from helpers import FIXTURES_DIR, REPO_ROOT
from helpers.browser import WINDOW, dump_dom, layout, read_png, screenshot
from helpers.operators import LiveCluster, fill
from helpers.serve import WORKLOADS, get, running_service, serve_cluster

HOSTILE = '<img src=x onerror="alert(1)">'


def _scene() -> LiveCluster:
    """Five racks of 8 nodes; each workload on a rack of its own, the LWS one pod short of its second gang."""
    cluster = LiveCluster(namespace="ml")
    nodes = cluster.nvl72_racks(5, nodes_per_rack=8)
    for index, (ref, (fixture, method)) in enumerate(WORKLOADS.items()):
        text = (FIXTURES_DIR / fixture).read_text()
        manifest = next(doc for doc in yaml.safe_load_all(text) if doc and doc.get("spec"))
        manifest["metadata"] = {**manifest["metadata"], "name": ref.split("/")[1], "namespace": "ml"}
        workload = cluster.workload(manifest)
        rack = nodes[index * 8 : (index + 1) * 8]
        place = fill(rack, per_node=2, pending_after=7 if method == "run_lws" else None)
        getattr(cluster, method)(workload, place)
    return cluster


def _page(fake_cluster, directory: Path, *, hostile: bool = True) -> tuple[Path, object]:
    cluster = _scene()
    if hostile:  # a name no API server would accept, as a hostile stand-in may send it
        jobset = next(obj for obj in cluster.objects if obj.get("kind") == "JobSet")
        named = copy.deepcopy(jobset)
        named["metadata"].update(name=HOSTILE, uid="uid-hostile")
        cluster.objects.append(named)
    serve_cluster(fake_cluster.server, cluster)
    with running_service(fake_cluster.kubeconfig) as running:
        status, text, _ = get(f"{running.url}/")
        snapshot = running.service.snapshot
    assert status == 200
    page = directory / "serve.html"
    page.write_text(text, encoding="utf-8")
    return page, snapshot


def test_chromium_draws_the_nodes_the_gangs_and_the_table(fake_cluster, tmp_path):
    page, snapshot = _page(fake_cluster, tmp_path)
    seen = layout(page)
    assert seen["scripts"] == 1, "only the test's own probe runs"
    assert len(seen["nodes"]) == 40, "one tile per cached node (five racks of 8)"
    # Each rack's NVLink clique holds exactly the rack's nodes, so the picture draws one box for
    # both (place --html's rule): the leaf switch's, spine-0/leaf-N.
    racks = [domain for domain in seen["domains"] if domain["id"].count("/") == 1]
    assert len(racks) == 5
    for node in seen["nodes"]:
        assert any(_inside(node["box"], rack["box"]) for rack in racks), node["name"]
    assert seen["chosen"], "complete gangs are outlined"
    gangs = {row["gang"]: row["fits"] for row in seen["rows"]}
    assert gangs["LeaderWorkerSet/vllm-multihost vllm-multihost-group-1"] is False, "3 of its 4 pods are scheduled"
    assert gangs["JobSet/llm-train llm-train"] is True
    assert {outline["gang"] for outline in seen["chosen"]} >= {gang for gang, fits in gangs.items() if fits}
    for outline in seen["chosen"]:
        (domain,) = [d for d in seen["domains"] if d["id"] == outline["domain"]]
        assert _inside(outline["box"], domain["box"], slack=6)
    dom = dump_dom(page)
    rows = re.findall(r"<tr>(.*?)</tr>", dom.split('class="workloads"')[1].split("<tbody>")[1], re.S)
    assert len(rows) == len(snapshot.workloads) == 6
    assert "<img" not in dom and '&lt;img src=x onerror="alert(1)"&gt;' in dom, "the hostile name shows as text"


def _inside(inner: dict, outer: dict, slack: float = 0.5) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


def test_the_screenshot_is_not_blank_where_domains_are(fake_cluster, tmp_path):
    page, _ = _page(fake_cluster, tmp_path)
    seen = layout(page)
    pixels = screenshot(page, tmp_path / "shot.png")
    height, width = len(pixels), len(pixels[0])
    assert (width, height) == WINDOW
    coloured = 0
    for node in seen["nodes"]:
        box = node["box"]
        x, y = int(box["x"] + box["width"] / 2), int(box["y"] + 10)  # below the usage bar, above the count
        if node["pods"] and y < height:
            red, green, blue = pixels[y][x]
            coloured += max(red, green, blue) - min(red, green, blue) > 40
    assert coloured >= 15, "the gangs' pods are drawn in their colours"


def test_the_docs_show_a_screenshot_of_the_page():
    shot = REPO_ROOT / "docs" / "images" / "serve.png"
    pixels = read_png(shot.read_bytes())
    assert (len(pixels[0]), len(pixels)) == WINDOW
    assert "images/serve.png" in (REPO_ROOT / "docs" / "serve.md").read_text()


def write_docs_screenshot(directory: Path) -> Path:
    """Make ``docs/images/serve.png`` from the page of this module's scene (no hostile text).

    Run by hand: ``python -c 'import sys; sys.path[:0] = ["tests", "tests/service"]; import test_page;
    test_page.write_docs_screenshot(__import__("pathlib").Path("/tmp"))'``.
    """
    from helpers.apiserver import TEST_TOKEN, FakeApiServer, FakeCluster

    with FakeApiServer(token=TEST_TOKEN) as server:
        cluster = FakeCluster(server=server, kubeconfig=server.write_kubeconfig(directory / "kubeconfig"))
        page, _ = _page(cluster, directory, hostile=False)
    target = REPO_ROOT / "docs" / "images" / "serve.png"
    screenshot(page, target)
    return target
