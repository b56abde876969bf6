"""Time topology loading and the domain tree for 16, 1,000 and 100,000 simulated nodes.

Run: python bench/bench_topology.py [--sizes 16,1000,100000]

For each size a Topograph-labelled NodeList is generated, written as JSON (and as YAML up to
10,000 nodes), then loaded with load_cluster (format detection, parsing, level detection) and
grouped with domain_tree. Figures are wall-clock seconds on this machine; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workloadmap.topology import SimulationSpec, generate_cluster, generate_nodelist, load_cluster  # noqa: E402


def spec_for(nodes: int) -> SimulationSpec:
    if nodes <= 16:
        return SimulationSpec(name=f"n{nodes}", racks=2, nodes_per_rack=max(1, nodes // 2), racks_per_block=1)
    return SimulationSpec(name=f"n{nodes}", racks=-(-nodes // 18), racks_per_block=4, blocks_per_spine=8)


def timed(action):
    start = time.perf_counter()
    result = action()
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="16,1000,100000")
    args = parser.parse_args()
    print(f"{'nodes':>8} {'format':>6} {'generate':>9} {'write':>8} {'load':>8} {'tree':>8} {'direct':>8}  domains")
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(item) for item in args.sizes.split(",")):
            spec = spec_for(size)
            nodelist, generate_s = timed(lambda: generate_nodelist(spec))
            _, direct_s = timed(lambda: generate_cluster(spec))
            formats = ["json"] + (["yaml"] if spec.node_count <= 10_000 else [])
            for fmt in formats:
                path = Path(tmp) / f"nodes-{size}.{fmt}"
                dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
                _, write_s = timed(
                    lambda: path.write_text(
                        json.dumps(nodelist) if fmt == "json" else yaml.dump(nodelist, Dumper=dumper, sort_keys=False)
                    )
                )
                cluster, load_s = timed(lambda: load_cluster(path))
                tree, tree_s = timed(cluster.domain_tree)
                domains = sum(1 for _ in tree.walk())
                print(
                    f"{spec.node_count:>8} {fmt:>6} {generate_s:>9.3f} {write_s:>8.3f} {load_s:>8.3f} {tree_s:>8.3f}"
                    f" {direct_s:>8.3f}  {domains}"
                )


if __name__ == "__main__":
    main()
