"""Time `wmap place` of a DRA workload on a NodeList that carries ResourceSlices, against the NodeList alone.

Run: python bench/bench_dra.py [--sizes 1000,10000] [--gpus 8]

For each size a Topograph-labelled NodeList is generated (``generate_nodelist``) without
device-plugin GPUs, and each node gets one ResourceSlice of ``--gpus`` devices in NVIDIA's shape
(driver ``gpu.nvidia.com``, attribute ``type: gpu``; one in eight slices is network-attached,
selected by its leaf switch label, two racks). Both files are written as JSON; the pair is two whole processes,
run alternately, best of 3: ``wmap place gpu-test8.yaml -t WITH-SLICES -o json`` (the slices read
from the topology file, node capacity per DeviceClass by CEL) and the same on the NodeList alone
(the floor: reading and placing without devices; the workload's fit is then unknown). Children
run outside the clone (``cwd`` the temporary directory), as a user runs the installed ``wmap``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from workloadmap.topology import SimulationSpec, generate_nodelist  # noqa: E402

WORKLOAD = ROOT / "fixtures" / "dra" / "gpu-test8.yaml"
RACK = "fabric.topograph.run/tier-0"  # the leaf switch: two racks of a generated NodeList


def _slices(nodes: list[dict], gpus: int) -> list[dict]:
    slices = []
    for index, node in enumerate(nodes):
        name = node["metadata"]["name"]
        spec: dict = {"driver": "gpu.nvidia.com", "pool": {"name": name, "generation": 1, "resourceSliceCount": 1}}
        rack = node["metadata"]["labels"].get(RACK)
        if index % 8 == 7 and rack is not None:  # network-attached: every node of the rack may use it
            term = {"matchExpressions": [{"key": RACK, "operator": "In", "values": [rack]}]}
            spec["nodeSelector"] = {"nodeSelectorTerms": [term]}
        else:
            spec["nodeName"] = name
        spec["devices"] = [
            {"name": f"gpu-{i}", "attributes": {"type": {"string": "gpu"}}, "capacity": {"memory": {"value": "80Gi"}}}
            for i in range(gpus)
        ]
        slices.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                       "metadata": {"name": f"{name}-gpu"}, "spec": spec})  # fmt: skip
    return slices


def _run(command: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--gpus", type=int, default=8)
    args = parser.parse_args()
    wmap = shutil.which("wmap") or sys.exit("needs the installed wmap on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(item) for item in args.sizes.split(",")):
            nodelist = generate_nodelist(SimulationSpec(name=f"n{size}", racks=-(-size // 18), gpus_per_node=0))
            bare = Path(tmp) / f"nodes-{size}.json"
            bare.write_text(json.dumps(nodelist))
            carried = Path(tmp) / f"nodes-slices-{size}.json"
            items = nodelist["items"] + _slices(nodelist["items"], args.gpus)
            carried.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
            ours, floor = [], []
            for _ in range(3):  # alternate, so a busy moment hits both sides
                floor.append(_run([wmap, "place", str(WORKLOAD), "-t", str(bare), "-o", "json"], tmp))
                ours.append(_run([wmap, "place", str(WORKLOAD), "-t", str(carried), "-o", "json"], tmp))
            a, b = min(ours), min(floor)
            print(f"{size} nodes, {args.gpus} DRA GPUs each: with slices {a:.2f} s, NodeList alone {b:.2f} s, "
                  f"ratio {a / b:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
