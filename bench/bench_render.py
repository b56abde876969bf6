"""Time the human output: fitting a 10,000-node topology tree to 80 columns, and drawing the HTML picture.

Run: python bench/bench_render.py [--nodes 10000]

The domain tree of a simulated cluster (NVL72 racks) is rendered with every node listed, then
fitted to 80 columns (wrapping under each line's tree branch); the placement picture is drawn for
2,000 nodes (one tile per node) and for the full size (domains only). Figures are wall-clock
seconds on this machine, best of three; nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workloadmap.cli.printing.terminal import fit  # noqa: E402
from workloadmap.cli.render.html import render_html  # noqa: E402
from workloadmap.cli.render.workloads import render_domain_tree, shown_depth  # noqa: E402
from workloadmap.placement import placement_map  # noqa: E402
from workloadmap.topology import SimulationSpec, generate_cluster  # noqa: E402


def best(action, runs: int = 3) -> tuple[object, float]:
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return result, min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    nodes = parser.parse_args().nodes
    for size in (1_998, nodes):  # 111 racks: just under the 2,000 nodes drawn one tile each
        cluster = generate_cluster(SimulationSpec(name=f"n{size}", racks=-(-size // 18), racks_per_block=4))
        shown, hosts = shown_depth(cluster, hosts=True, depth=None)
        text, rendered = best(lambda: render_domain_tree(cluster, cluster.domain_tree(), shown=shown, list_nodes=hosts))
        _, fitted = best(lambda: fit(str(text), 80))
        page, drawn = best(lambda: render_html([placement_map(cluster)], "bench"))
        lines = str(text).count("\n")
        print(
            f"{len(cluster.nodes):>6} nodes: tree of {lines} lines {rendered:.3f} s, fitted to 80 columns "
            f"{fitted:.3f} s; picture {drawn:.3f} s, {len(str(page)) / 1e6:.2f} MB"
        )


if __name__ == "__main__":
    main()
