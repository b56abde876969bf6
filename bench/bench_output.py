"""``wmap inspect`` as a user runs it, side by side with its floor, and its memory (issue 34).

    python bench/bench_output.py               # the pairs on the corpus x30 stream, then the curve
    python bench/bench_output.py pairs         # the pairs only
    python bench/bench_output.py curve [MAX]   # 10 -> MAX documents (default 10,000): time and peak memory

The floor is a process that parses the same stream with CSafeLoader and writes it with
``json.dumps(indent=2)``, its cyclic collector paused as wmap pauses it. Each pair is run
interleaved (wmap, floor, wmap, floor ...) and the median of each side is printed with the ratio
(goals: ``-o json`` <= 1.5x, ``-o name`` <= 1.2x). The curve runs ``wmap inspect -o json`` on
streams of 10 to MAX documents of the corpus and prints the time per document and the peak
resident memory of the process (goal: 9,000 documents within 2.5x the peak of 500).

Measure an install as users make it (``pip install .``, not editable: an editable install's import
hook slows every start): ``WMAP=/path/to/venv/bin/wmap python bench/bench_output.py``. The corpus
is the shared one (``$WMAP_SHARED_DIR/corpus``, else ``../shared/corpus``).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("WMAP_SHARED_DIR") or ROOT.parent / "shared") / "corpus"
FLOOR = (
    "import gc, json, sys, yaml; gc.disable(); "
    "sys.stdout.write(json.dumps([d for d in yaml.load_all(open(sys.argv[1]), Loader=yaml.CSafeLoader) if d], "
    "indent=2) + '\\n')"
)


def corpus_documents() -> list[str]:
    if not CORPUS.is_dir():
        sys.exit(f"needs the shared corpus at {CORPUS} (set WMAP_SHARED_DIR)")
    texts = [
        path.read_text()
        for path in sorted(CORPUS.rglob("*.yaml"))
        if "recorded" not in path.parts and "karta" not in path.parts
    ]
    return [piece for text in texts for piece in text.split("\n---\n") if piece.strip()]


def run(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of one whole process (its output thrown away)."""
    start = time.perf_counter()
    with open(os.devnull, "w") as sink:
        pid = os.posix_spawn(
            command[0],
            command,
            os.environ,
            file_actions=[(os.POSIX_SPAWN_DUP2, sink.fileno(), 1), (os.POSIX_SPAWN_DUP2, sink.fileno(), 2)],
        )
        _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
    if status != 0 and os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit(f"{command} failed: {status}")
    return seconds, usage.ru_maxrss / 1024


def pair(name: str, ours: list[str], floor: list[str], runs: int = 5) -> None:
    mine, theirs = [], []
    for _ in range(runs):  # interleaved: a busy moment hits both
        mine.append(run(ours)[0])
        theirs.append(run(floor)[0])
    a, b = statistics.median(mine), statistics.median(theirs)
    print(f"{name}: wmap {a:.3f} s, floor {b:.3f} s, {a / b:.2f}x (medians of {runs} interleaved pairs)")


def wmap() -> str:
    found = os.environ.get("WMAP") or shutil.which("wmap")
    return found or sys.exit("needs wmap (set WMAP=/path/to/bin/wmap)")


def pairs(folder: Path) -> None:
    documents = corpus_documents()
    path = folder / "corpus30.yaml"
    path.write_text("\n---\n".join(documents * 30))
    floor = [sys.executable, "-c", FLOOR, str(path)]
    print(f"corpus x30: {len(documents) * 30:,} documents, {path.stat().st_size / 1e6:.1f} MB")
    for view in ("json", "name", "tree"):
        pair(f"inspect -o {view}", [wmap(), "inspect", str(path), "-o", view], floor)


def curve(folder: Path, most: int = 10_000) -> None:
    documents = corpus_documents()
    print(
        f"{'documents':>10} {'wmap s':>8} {'us/doc':>7} {'peak MiB':>9} {'floor s':>8} {'floor MiB':>10} {'ratio':>6}"
    )
    count = 10
    sizes = []
    while count <= most:
        sizes.append(count)
        count *= 10
    for extra in (500, 9_000):
        if extra <= most and extra not in sizes:
            sizes.append(extra)
    for count in sorted(sizes):
        path = folder / f"stream{count}.yaml"
        path.write_text("\n---\n".join((documents * (count // len(documents) + 1))[:count]))
        ours = [run([wmap(), "inspect", str(path), "-o", "json"]) for _ in range(3)]
        floor = [run([sys.executable, "-c", FLOOR, str(path)]) for _ in range(3)]
        seconds, peak = statistics.median(t for t, _ in ours), max(m for _, m in ours)
        floor_seconds, floor_peak = statistics.median(t for t, _ in floor), max(m for _, m in floor)
        print(
            f"{count:>10,} {seconds:8.3f} {seconds / count * 1e6:7.0f} {peak:9.1f} "
            f"{floor_seconds:8.3f} {floor_peak:10.1f} {seconds / floor_seconds:6.2f}"
        )
        path.unlink()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        what = sys.argv[1] if len(sys.argv) > 1 else "all"
        if what in ("all", "pairs"):
            pairs(folder)
        if what in ("all", "curve"):
            curve(folder, int(sys.argv[2]) if len(sys.argv) > 2 else 10_000)
