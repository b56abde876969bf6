"""Time `wmap admit` on 1,000 pending workloads against 100 ClusterQueues in one cohort tree.

    python bench/bench_admission.py generate DIR   # write DIR/queues.yaml (the dump) and DIR/jobs.yaml
    python bench/bench_admission.py inprocess      # in-process pair: admission / reading the dump
    python bench/bench_admission.py inprocess --queues 100 --jobs 1000 --admitted 1000
    python bench/bench_admission.py inprocess --no-preemption   # queues that never preempt: the rest of the cost

The dump is what `kubectl get clusterqueues,localqueues,resourceflavors,cohorts,
workloadpriorityclasses,workloads,namespaces -A -o yaml` prints: a root cohort with 10 child
cohorts of 10 ClusterQueues each (two flavors, lending and borrowing limits on some, preemption
within the queue and reclaim in the cohort), one LocalQueue per ClusterQueue, three priority
classes, and ``--admitted`` admitted Workloads holding quota. The pending workloads are batch
Jobs (1 to 8 pods, some with GPUs) spread over the LocalQueues, in one multi-document file.

The in-process pair times (in CPU seconds, best of ``--repeat``), in turn, the whole preview
(reading the dump, inspecting the Jobs, building their PodSets, admitting them in Kueue's order)
and its floor: reading the same dump with PyYAML's C loader. The whole-process figures come
from running the commands the way a user does (``wmap admit DIR/jobs.yaml --queues
DIR/queues.yaml -o json`` against ``python -c`` loading both files with the C loader), timed
from outside; see docs/performance.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
KUEUE = "kueue.x-k8s.io/v1beta2"
PRIORITIES = {"low": 10, "normal": 100, "high": 1000}


def _flavor_quotas(name: str, cpu: int, gpus: int, rng: random.Random) -> dict:
    resources = [
        {"name": "cpu", "nominalQuota": str(cpu)},
        {"name": "memory", "nominalQuota": f"{cpu * 8}Gi"},
        {"name": "nvidia.com/gpu", "nominalQuota": str(gpus)},
    ]
    if rng.random() < 0.3:
        resources[2]["borrowingLimit"] = str(gpus // 2)
    if rng.random() < 0.3:
        resources[2]["lendingLimit"] = str(gpus // 2)
    return {"name": name, "resources": resources}


def queue_objects(queues: int, admitted: int, seed: int = 11, preemption: bool = True) -> list[dict]:
    """The dump's objects: flavors, cohorts, ClusterQueues, LocalQueues, priority classes, Workloads."""
    rng = random.Random(seed)
    objects: list[dict] = [
        {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": gpu}, "spec": {"nodeLabels": {"gpu": gpu}}}
        for gpu in ("h100", "a100")
    ]
    objects.append({"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": "org"}, "spec": {}})
    groups = max(1, queues // 10)
    for group in range(groups):
        objects.append({"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": f"dept-{group}"},
                        "spec": {"parentName": "org"}})  # fmt: skip
    for name, value in PRIORITIES.items():
        objects.append(
            {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": name}, "value": value}
        )
    for index in range(queues):
        name = f"team-{index:03d}"
        spec = {
            "cohortName": f"dept-{index % groups}",
            "namespaceSelector": {},
            "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"} if preemption else {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                    "flavors": [_flavor_quotas("h100", 256, 32, rng), _flavor_quotas("a100", 256, 32, rng)],
                }
            ],
        }
        objects.append({"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec})
        objects.append({"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": name, "namespace": "ml"},
                        "spec": {"clusterQueue": name}})  # fmt: skip
    for index in range(admitted):
        queue = f"team-{rng.randrange(queues):03d}"
        flavor = rng.choice(["h100", "a100"])
        gpus = rng.choice([1, 2, 4, 8])
        usage = {"cpu": str(gpus * 8), "memory": f"{gpus * 64}Gi", "nvidia.com/gpu": str(gpus)}
        resources = {"requests": usage, "limits": {"nvidia.com/gpu": str(gpus)}}
        objects.append(
            {
                "apiVersion": KUEUE,
                "kind": "Workload",
                "metadata": {"name": f"job-running-{index:05d}", "namespace": "ml", "uid": f"uid-{index}",
                             "creationTimestamp": "2026-01-01T00:00:00Z"},
                "spec": {
                    "active": True, "queueName": queue, "priority": rng.choice(list(PRIORITIES.values())),
                    "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [
                        {"name": "c", "image": "x", "resources": resources}
                    ]}}}],
                },
                "status": {
                    "admission": {"clusterQueue": queue, "podSetAssignments": [
                        {"name": "main", "count": 1, "resourceUsage": usage,
                         "flavors": {"cpu": flavor, "memory": flavor, "nvidia.com/gpu": flavor}}]},
                    "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                    "lastTransitionTime": f"2026-01-01T00:{index // 60 % 60:02d}:{index % 60:02d}Z"}],
                },
            }
        )  # fmt: skip
    objects.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}})
    return objects


def jobs(count: int, queues: int, seed: int = 13) -> list[dict]:
    """Pending batch Jobs spread over the LocalQueues."""
    rng = random.Random(seed)
    found = []
    for index in range(count):
        pods = rng.choice([1, 1, 2, 4, 8])
        gpus = rng.choice([0, 1, 2, 4, 8])
        requests = {"cpu": str(rng.choice([2, 8, 16])), "memory": f"{rng.choice([8, 32, 64])}Gi"}
        resources: dict = {"requests": requests}
        if gpus:
            resources["limits"] = {"nvidia.com/gpu": str(gpus)}
        labels = {"kueue.x-k8s.io/queue-name": f"team-{rng.randrange(queues):03d}",
                  "kueue.x-k8s.io/priority-class": rng.choice(list(PRIORITIES))}  # fmt: skip
        found.append(
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": f"job-{index:05d}", "namespace": "ml", "labels": labels},
                "spec": {"parallelism": pods, "completions": pods, "template": {"spec": {
                    "restartPolicy": "Never", "containers": [{"name": "c", "image": "x", "resources": resources}]}}},
            }
        )  # fmt: skip
    return found


def generate(directory: Path, queues: int, count: int, admitted: int, preemption: bool = True) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    dump = directory / "queues.yaml"
    items = queue_objects(queues, admitted, preemption=preemption)
    dump.write_text(yaml.dump({"apiVersion": "v1", "kind": "List", "items": items}, Dumper=DUMPER))
    workloads = directory / "jobs.yaml"
    workloads.write_text(yaml.dump_all(jobs(count, queues), Dumper=DUMPER))
    return dump, workloads


def preview(dump: Path, workloads: Path) -> int:
    """The whole preview as `wmap admit` runs it; returns the number of verdicts."""
    from workloadmap.admission import admit, load_queues, submissions
    from workloadmap.interpreter import inspect_file

    state = load_queues([str(dump)])
    levels: list[str] = []
    submitted = []
    for position, result in enumerate(inspect_file(str(workloads))):
        assert result.tree is not None and result.document is not None
        submitted += submissions(result.tree, result.document.body, levels, position)
    return len(admit(submitted, state).items)


def inprocess(queues: int, count: int, admitted: int, repeat: int, preemption: bool = True) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        dump, workloads = generate(Path(tmp), queues, count, admitted, preemption)
        text = dump.read_text()
        size = len(text) / 1e6
        print(f"{queues} ClusterQueues, {count} pending Jobs, {admitted} admitted Workloads; dump {size:.1f} MB")
        times = {"preview": [], "read dump (wmap)": [], "parse dump (CSafeLoader)": []}
        for _ in range(repeat):  # alternate, so a busy moment hits every side
            for name, function in (
                ("parse dump (CSafeLoader)", lambda: yaml.load(text, Loader=LOADER)),
                ("read dump (wmap)", lambda: __import__("workloadmap.admission").admission.load_queues([str(dump)])),
                ("preview", lambda: preview(dump, workloads)),
            ):
                start = time.process_time()  # CPU seconds: the machine is shared, wall time is not ours
                function()
                times[name].append(time.process_time() - start)
        floor = min(times["parse dump (CSafeLoader)"])
        for name, values in times.items():
            print(f"{name}: best {min(values):.3f} CPU s of {repeat}, {min(values) / floor:.2f}x the parse")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("generate", "inprocess"))
    parser.add_argument("directory", nargs="?", type=Path)
    parser.add_argument("--queues", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=1000)
    parser.add_argument("--admitted", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-preemption", action="store_true", help="ClusterQueues without a preemption policy")
    args = parser.parse_args()
    if args.what == "generate":
        if args.directory is None:
            parser.error("generate needs a DIR")
        dump, workloads = generate(args.directory, args.queues, args.jobs, args.admitted, not args.no_preemption)
        print(f"wrote {dump} and {workloads}")
    else:
        inprocess(args.queues, args.jobs, args.admitted, args.repeat, not args.no_preemption)


if __name__ == "__main__":
    main()
