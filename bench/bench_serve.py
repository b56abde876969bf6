"""Soak benchmark: `wmap serve` over 5,000 workloads and 50,000 pods, under continuous churn.

Run: python bench/bench_serve.py [--minutes M] [--workloads N] [--pods-per-workload P] [--rate R]

The loopback stand-in API server (tests/helpers/apiserver.py) holds N JobSets as the JobSet
operator makes them (a JobSet -> a Job -> P pods of 1 GPU each, tests/helpers/operators.py), on
nodes of 8 GPUs in NVL72-style racks; every object carries what a real API server returns besides
(managedFields, container images and environment, container statuses), so the cut-down cache has
something to cut. Then, as whole processes the way a user runs them:

* the floor: a Python process that lists the same collections with the same pages (limit 500)
  and `json.loads` every page, nothing else;
* `wmap serve -A` on 127.0.0.1: seconds until /readyz answers 200 (listed and interpreted), and
  until every placement audit is made;
* then M minutes of churn at R changes a second (pods flipping Ready and back, pods deleted and
  made again as the Job controller does, JobSet status updates, whole JobSets deleted and made
  again): events the service applied per second (wmap_watch_events_total), the latency of a
  scrape of /metrics (its size and samples), and the service's resident memory every 10 s.

Prints the figures; they go into docs/performance.md by hand. Nothing asserts a time.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from helpers.apiserver import TLS_DIR, FakeApiServer  # noqa: E402
from helpers.operators import LiveCluster, fill  # noqa: E402

WMAP = str(Path(sys.executable).parent / "wmap")

GPU_TEMPLATE = {
    "spec": {
        "containers": [
            {
                "name": "trainer",
                "image": "ghcr.io/example/trainer:2.4.1",
                "command": ["torchrun", "--nnodes=$(WORLD)", "train.py"],
                "env": [{"name": f"VAR_{index}", "value": "x" * 24} for index in range(12)],
                "resources": {"requests": {"cpu": "8", "memory": "64Gi"}, "limits": {"nvidia.com/gpu": 1}},
                "volumeMounts": [{"name": "data", "mountPath": "/data"}, {"name": "shm", "mountPath": "/dev/shm"}],
            }
        ],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}, {"name": "shm", "emptyDir": {}}],
        "restartPolicy": "Never",
    }
}


def managed_fields(obj: dict) -> None:
    """What a real API server adds to every object: field ownership, a kilobyte or two per object."""
    obj["metadata"]["managedFields"] = [
        {"manager": manager, "operation": "Update", "apiVersion": obj["apiVersion"], "time": "2026-05-01T10:00:00Z",
         "fieldsType": "FieldsV1",
         "fieldsV1": {"f:metadata": {"f:labels": {f"f:label-{index}": {} for index in range(8)}},
                      "f:spec": {f"f:field-{index}": {} for index in range(12)}}}
        for manager in ("controller", "kubelet")
    ]  # fmt: skip


def running_pod_status(pod: dict) -> None:
    for status in pod["status"].get("containerStatuses", []):
        status.update(image="ghcr.io/example/trainer:2.4.1", imageID="ghcr.io/example/trainer@sha256:" + "a" * 64,
                      containerID="containerd://" + "b" * 64, started=True,
                      state={"running": {"startedAt": "2026-05-01T10:00:00Z"}})  # fmt: skip
    pod["status"].update(hostIP="10.0.0.1", podIP="10.1.0.1", qosClass="Burstable", startTime="2026-05-01T10:00:00Z")


def scene(workloads: int, pods_per_workload: int) -> tuple[LiveCluster, list[dict]]:
    """The JobSets, their Jobs and pods, and the nodes: 8 GPUs a node, 18 nodes a rack."""
    cluster = LiveCluster(namespace="team-0")
    gpus = workloads * pods_per_workload
    nodes = cluster.nvl72_racks(max(1, -(-gpus // (8 * 18))))
    placed = fill(nodes, per_node=8)
    jobsets = []
    for index in range(workloads):
        cluster.namespace = f"team-{index % 50}"
        job = {"parallelism": pods_per_workload, "completions": pods_per_workload, "template": GPU_TEMPLATE}
        manifest = {
            "apiVersion": "jobset.x-k8s.io/v1alpha2",
            "kind": "JobSet",
            "metadata": {"name": f"train-{index}", "labels": {"team": f"team-{index % 50}"}},
            "spec": {"replicatedJobs": [{"name": "workers", "replicas": 1, "template": {"spec": job}}]},
            "status": {"replicatedJobsStatus": [{"name": "workers", "ready": 1, "active": 1}]},
        }
        jobset = cluster.workload(manifest)
        cluster.run_jobset(jobset, placed)
        jobsets.append(jobset)
    for obj in cluster.objects:
        managed_fields(obj)
        if obj["kind"] == "Pod":
            running_pod_status(obj)
    for node in cluster.nodes:
        managed_fields(node)
        node["status"]["images"] = [{"names": [f"registry.example.com/image-{i}:1.0"], "sizeBytes": 10**9}
                                    for i in range(20)]  # fmt: skip
        node["status"]["nodeInfo"] = {"kubeletVersion": "v1.33.1", "containerRuntimeVersion": "containerd://2.0.0"}
    return cluster, jobsets


FLOOR = r"""
import json, ssl, sys, urllib.request
base, token, authority = sys.argv[1], sys.argv[2], sys.argv[3]
context = ssl.create_default_context(cafile=authority)
total = 0
for path in sys.argv[4:]:
    cont = ""
    while True:
        url = f"{base}{path}?limit=500" + (f"&continue={cont}" if cont else "")
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
        page = json.loads(urllib.request.urlopen(request, context=context).read())
        total += len(page["items"])
        cont = page["metadata"].get("continue")
        if not cont:
            break
print(total)
"""

COLLECTIONS = ["/api/v1/pods", "/api/v1/nodes", "/apis/batch/v1/jobs", "/apis/jobset.x-k8s.io/v1alpha2/jobsets"]


AUTHORITY = str(TLS_DIR / "server.crt")
"""The stand-in's self-signed certificate, which the kubeconfig and the floor trust."""


def trusting(kubeconfig: Path) -> Path:
    """The kubeconfig with the stand-in's certificate as its cluster's authority (when the stand-in did not set it)."""
    import yaml

    config = yaml.safe_load(kubeconfig.read_text())
    for entry in config["clusters"]:
        entry["cluster"].setdefault("certificate-authority", AUTHORITY)
    kubeconfig.write_text(yaml.safe_dump(config))
    return kubeconfig


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=300) as answer:
        return answer.read()


def metric_value(text: str, name: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name))


class Churn(threading.Thread):
    """Changes at ``rate`` a second until stopped: what a busy cluster's controllers do."""

    def __init__(self, server: FakeApiServer, cluster: LiveCluster, jobsets: list[dict], rate: float) -> None:
        super().__init__(daemon=True)
        self.server, self.cluster, self.jobsets, self.rate = server, cluster, jobsets, rate
        self.stop = threading.Event()
        self.changes = 0
        self.pods = [obj for obj in cluster.objects if obj["kind"] == "Pod"]
        self.random = random.Random(7)

    def run(self) -> None:
        interval = 1.0 / self.rate
        next_at = time.monotonic()
        while not self.stop.is_set():
            self.change()
            self.changes += 1
            next_at += interval
            delay = next_at - time.monotonic()
            if delay > 0:
                time.sleep(delay)

    def change(self) -> None:
        roll = self.random.random()
        index = self.random.randrange(len(self.pods))
        pod = self.pods[index]
        if roll < 0.6:  # a pod's readiness flips
            changed = copy.deepcopy(pod)
            for condition in changed["status"]["conditions"]:
                if condition["type"] == "Ready":
                    condition["status"] = "False" if condition["status"] == "True" else "True"
            self.pods[index] = self.server.update(changed)
        elif roll < 0.85:  # the pod fails and its Job makes a new one
            self.server.delete(pod)
            again = copy.deepcopy(pod)
            again["metadata"]["uid"] = self.cluster.uid()
            again["metadata"]["name"] = pod["metadata"]["name"][:-5] + "".join(self.random.choices("bcdfghjk", k=5))
            self.pods[index] = self.server.add(again)
        elif roll < 0.97:  # the JobSet's status moves
            jobset = copy.deepcopy(self.random.choice(self.jobsets))
            jobset["status"]["replicatedJobsStatus"][0]["ready"] = self.random.randint(0, 1)
            self.server.update(jobset)
        else:  # a JobSet is deleted and submitted again (its Job and pods go and come back)
            jobset = self.random.choice(self.jobsets)
            name = jobset["metadata"]["name"]
            owned = [obj for obj in self.cluster.objects
                     if obj["metadata"].get("namespace") == jobset["metadata"]["namespace"]
                     and obj["metadata"]["name"].startswith(f"{name}-")]  # fmt: skip
            self.server.delete(jobset)
            for obj in owned:
                try:
                    self.server.delete(obj)
                except KeyError:
                    pass  # a pod replaced since
            self.server.add(jobset)
            for obj in owned:
                self.server.add(obj)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--workloads", type=int, default=5000)
    parser.add_argument("--pods-per-workload", type=int, default=10)
    parser.add_argument("--rate", type=float, default=50.0)
    args = parser.parse_args()

    started = time.perf_counter()
    cluster, jobsets = scene(args.workloads, args.pods_per_workload)
    pods = sum(1 for obj in cluster.objects if obj["kind"] == "Pod")
    print(f"scene: {args.workloads:,} JobSets, {pods:,} pods, {len(cluster.nodes):,} nodes "
          f"({time.perf_counter() - started:.1f} s to build)")  # fmt: skip
    # Over TLS with a bearer token, as a real API server is read (credentials travel over TLS only).
    server = FakeApiServer(token="bench-token", tls=True).start()
    server.add_all(cluster.nodes)
    server.add_all(cluster.objects)
    server.compact()  # the history of the loading itself is not part of the soak
    size = sum(len(json.dumps(obj)) for obj in cluster.objects + cluster.nodes)
    print(f"objects as the API server sends them: {size / 2**20:.0f} MiB of JSON")
    with tempfile.TemporaryDirectory() as directory:
        kubeconfig = trusting(server.write_kubeconfig(Path(directory) / "kubeconfig"))
        environment = {key: value for key, value in os.environ.items() if "proxy" not in key.lower()}
        environment["NO_PROXY"] = "127.0.0.1"

        floor_start = time.perf_counter()
        floor = subprocess.run([sys.executable, "-c", FLOOR, server.url, "bench-token", AUTHORITY, *COLLECTIONS],
                               capture_output=True, text=True, env=environment, check=True,
                               cwd=tempfile.gettempdir())  # fmt: skip
        floor_seconds = time.perf_counter() - floor_start
        print(f"floor (list the same collections, json.loads every page): {floor_seconds:.1f} s, "
              f"{int(floor.stdout):,} objects")  # fmt: skip

        serve_start = time.perf_counter()
        process = subprocess.Popen([WMAP, "serve", "-A", "--listen", "127.0.0.1:0", "--kubeconfig", str(kubeconfig)],
                                   stderr=subprocess.PIPE, text=True, env=environment)  # fmt: skip
        try:
            soak(process, server, cluster, jobsets, args, serve_start, floor_seconds)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
    server.stop()


def soak(process, server, cluster, jobsets, args, serve_start: float, floor_seconds: float) -> None:
    first = process.stderr.readline()
    url = re.match(r"wmap serve: (http://\S+) ", first).group(1)
    threading.Thread(target=process.stderr.read, daemon=True).start()
    while True:
        try:
            fetch(f"{url}/readyz")
            break
        except OSError:
            time.sleep(0.2)
    ready = time.perf_counter() - serve_start
    print(f"wmap serve ready (listed and interpreted): {ready:.1f} s ({ready / floor_seconds:.1f}x the floor), "
          f"CPU {cpu_seconds(process.pid):.1f} s, RSS {rss_mib(process.pid):.0f} MiB")  # fmt: skip
    while json.loads(fetch(f"{url}/readyz"))["auditsPending"] > 0:
        time.sleep(2)
    audited = time.perf_counter() - serve_start
    print(f"every placement audit made: {audited:.1f} s, CPU {cpu_seconds(process.pid):.1f} s, "
          f"RSS {rss_mib(process.pid):.0f} MiB")  # fmt: skip
    scrape(url, "after the sync")

    churn = Churn(server, cluster, jobsets, args.rate)
    events_before = metric_value(fetch(f"{url}/metrics").decode(), "wmap_watch_events_total")
    churn.start()
    soak_start = time.perf_counter()
    cpu_before = cpu_seconds(process.pid)
    memory = []
    latencies = []
    while time.perf_counter() - soak_start < args.minutes * 60:
        time.sleep(10)
        memory.append(rss_mib(process.pid))
        latencies.append(scrape(url, None))
    churn.stop.set()
    churn.join()
    elapsed = time.perf_counter() - soak_start
    time.sleep(3)
    text = fetch(f"{url}/metrics").decode()
    events = metric_value(text, "wmap_watch_events_total") - events_before
    print(f"churn: {churn.changes:,} changes in {elapsed:.0f} s ({churn.changes / elapsed:.0f}/s); the service applied "
          f"{events:,.0f} watch events ({events / elapsed:.0f}/s); sync age after it: "
          f"{metric_value(text, 'wmap_sync_age_seconds '):.1f} s, audits pending "
          f"{metric_value(text, 'wmap_audits_pending '):.0f}")  # fmt: skip
    print(f"memory every 10 s (MiB): {' '.join(f'{value:.0f}' for value in memory)}")
    median = sorted(latencies)[len(latencies) // 2]
    print(f"scrape latency during churn: median {median:.2f} s, max {max(latencies):.2f} s")
    print(f"CPU of wmap serve during the churn: {cpu_seconds(process.pid) - cpu_before:.1f} s in {elapsed:.0f} s; "
          f"in all: {cpu_seconds(process.pid):.1f} s")  # fmt: skip


def scrape(url: str, label: str | None) -> float:
    start = time.perf_counter()
    body = fetch(f"{url}/metrics")
    seconds = time.perf_counter() - start
    if label:
        samples = sum(1 for line in body.splitlines() if line and not line.startswith(b"#"))
        print(f"scrape {label}: {seconds:.2f} s, {len(body) / 2**20:.1f} MiB, {samples:,} samples")
    return seconds


if __name__ == "__main__":
    main()
