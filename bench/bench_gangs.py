"""Gangs in linear time (issue 34): a LeaderWorkerSet of N groups, from 10 to 100,000 groups.

    python bench/bench_gangs.py            # the scaling curve, in process, and a whole-process pair
    python bench/bench_gangs.py curve      # the curve only

The curve times ``workloadmap.inspect`` on one LWS of N groups (best of 3, the cyclic collector
paused as the CLI pauses it) and prints the cost per group and each step's ratio to the step ten
times smaller: linear work shows as a ratio near 10, quadratic as near 100. The pair runs
``wmap inspect FILE -o name`` on a 30,000-group LWS against the floor it rests on (a process that
parses the same file with CSafeLoader and dumps it as JSON, its collector paused too), taking the
median of interleaved runs. A 100,000-group LWS forms 200,000 SubGroups: the budgets are raised
for it (``--max-sub-groups``).
"""

from __future__ import annotations

import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "leaderworkerset.yaml"
SIZES = (10, 100, 1_000, 10_000, 100_000)
FLOOR = (
    "import gc, json, sys, yaml; gc.disable(); "
    "json.dump(list(yaml.load_all(open(sys.argv[1]), Loader=yaml.CSafeLoader)), sys.stdout, indent=2)"
)


def lws(groups: int) -> str:
    return FIXTURE.read_text().replace("replicas: 2\n", f"replicas: {groups}\n", 1)


def curve() -> None:
    import yaml

    from workloadmap import Budgets, inspect
    from workloadmap.budgets import applied

    previous = None
    print(f"{'groups':>8} {'seconds':>9} {'us/group':>9} {'x prev':>7}")
    with applied(Budgets(pod_groups=1_000_000, sub_groups=1_000_000)):
        for groups in SIZES:
            document = yaml.load(lws(groups), Loader=yaml.CSafeLoader)
            times = []
            for _ in range(3 if groups < 100_000 else 1):
                gc.disable()
                start = time.perf_counter()
                tree = inspect(document)
                times.append(time.perf_counter() - start)
                gc.enable()
                assert len(tree.pod_groups) == groups
            best = min(times)
            step = f"{best / previous:7.1f}" if previous else f"{'':>7}"
            print(f"{groups:>8,} {best:9.3f} {best / groups * 1e6:9.1f} {step}")
            previous = best


def whole_process(groups: int = 30_000, runs: int = 5) -> None:
    wmap = shutil.which("wmap") or sys.exit("needs wmap on PATH")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "lws.yaml"
        path.write_text(lws(groups))
        commands = {
            "wmap": [wmap, "inspect", str(path), "-o", "name"],
            "floor": [sys.executable, "-c", FLOOR, str(path)],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):  # interleaved: a busy moment hits both
            for name, command in commands.items():
                start = time.perf_counter()
                subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
                times[name].append(time.perf_counter() - start)
        a, b = statistics.median(times["wmap"]), statistics.median(times["floor"])
        print(f"LWS of {groups:,} groups, whole process: wmap inspect -o name {a:.3f} s, floor {b:.3f} s, {a / b:.2f}x")


if __name__ == "__main__":
    os.environ.setdefault("COLUMNS", "120")
    curve()
    if sys.argv[1:] != ["curve"]:
        whole_process()
