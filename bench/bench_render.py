"""Time the human output: a large topology tree fitted to 80 columns, and the HTML picture at 2,000 and 20,000 nodes.

Run: python bench/bench_render.py [--nodes 2000,20000]

Each cluster is simulated as ``wmap topology generate --nodes-per-rack 16 --racks-per-block 4
--blocks-per-spine 8`` makes it (one NVLink domain a rack). The domain tree is rendered as
``topology show`` prints it (runs of alike racks on one line above 100 domains) and with every
node listed (``--hosts``), then fitted to 80 columns; the picture (``placement_map`` and the
page) is drawn with one tile per node up to 2,000 nodes, racks as domains above. Figures are
wall-clock seconds in this process, best of three; nothing is asserted. The picture's own
figures in a browser (elements, layout time) are measured with headless Chromium, see
docs/performance.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workloadmap.cli.printing.terminal import fit  # noqa: E402
from workloadmap.cli.render.html import render_html  # noqa: E402
from workloadmap.cli.render.topology import render_domain_tree, shown_depth  # noqa: E402
from workloadmap.placement import placement_map  # noqa: E402
from workloadmap.topology import SimulationSpec, generate_cluster  # noqa: E402


def best(action: Callable[[], Any], runs: int = 3) -> tuple[Any, float]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return result, min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="2000,20000", help="comma-separated cluster sizes (multiples of 16)")
    sizes = [int(size) for size in parser.parse_args().nodes.split(",")]
    for size in sizes:
        spec = SimulationSpec(name=f"n{size}", racks=-(-size // 16), nodes_per_rack=16, racks_per_block=4,
                              blocks_per_spine=8)  # fmt: skip
        cluster = generate_cluster(spec)
        root = cluster.domain_tree()
        for hosts in (False, True):
            shown, listed = shown_depth(cluster, hosts=hosts, depth=None)
            text, rendered = best(lambda: render_domain_tree(cluster, root, shown=shown, list_nodes=listed))
            fitted_text, fitted = best(lambda: fit(str(text), 80))
            lines = str(fitted_text).count("\n")
            print(
                f"{len(cluster.nodes):>6} nodes: tree{' --hosts' if hosts else ''} of {lines} lines at 80 columns, "
                f"render {rendered:.3f} s, fit {fitted:.3f} s"
            )
        picture, mapped = best(lambda: placement_map(cluster))
        page, drawn = best(lambda: render_html([picture], "bench"))
        print(
            f"{len(cluster.nodes):>6} nodes: picture data {mapped:.3f} s, page {drawn:.3f} s, "
            f"{len(str(page).encode()) / 1e6:.2f} MB"
        )


if __name__ == "__main__":
    main()
