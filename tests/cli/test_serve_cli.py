"""``wmap serve`` as people run it: every example of its ``--help``, as a whole process, against the stand-in.

Each example runs with ``--kubeconfig`` pointing at the stand-in API server, an address on
127.0.0.1 in place of the example's (tests bind to loopback only), until ``/readyz`` answers 200;
then SIGTERM must stop it cleanly (exit 0). ``--shard auto --total-shards auto`` reads the shard
from a StatefulSet pod's name and the count from the StatefulSet, as it does in a pod. Misuse is a
one-line error and exit 2; an address in use a one-line error and exit 1.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import REPO_ROOT
from helpers.serve import get, operator_cluster, serve_cluster
from workloadmap.cli.examples import EXAMPLES

WMAP = str(Path(sys.executable).parent / "wmap")
SERVE_EXAMPLES = [line for line in EXAMPLES["serve"] if line.startswith("wmap serve")]


def _environment(**extra: str) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if "proxy" not in key.lower()}
    environment.pop("WMAP_CATALOG", None)
    environment["NO_PROXY"] = "127.0.0.1,localhost"
    return {**environment, **extra}


def _words(example: str, kubeconfig: Path) -> list[str]:
    words = shlex.split(example.split(" | ")[0])[1:]
    if "--listen" in words:
        words[words.index("--listen") + 1] = "127.0.0.1:0"
    else:
        words += ["--listen", "127.0.0.1:0"]
    return [*words, "--kubeconfig", str(kubeconfig)]


def _statefulset(server) -> None:
    """The StatefulSet a sharded wmap serve runs as, and its pod wmap-serve-1 (2 replicas)."""
    from helpers.apiserver import FakeResource

    server.serve_resource(FakeResource("apps", "v1", "statefulsets", "statefulset", "StatefulSet"))
    owner = {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "wmap-serve",
             "namespace": "wmap-system", "uid": "sts-wmap"}, "spec": {"replicas": 2}}  # fmt: skip
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "wmap-serve-1", "namespace": "wmap-system", "uid": "pod-wmap-1",
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "wmap-serve",
                                          "uid": "sts-wmap", "controller": True}]},
        "spec": {"containers": [{"name": "wmap", "image": "wmap:0.1.0"}]},
        "status": {"phase": "Running"},
    }  # fmt: skip
    server.add_all([owner, pod])


@pytest.mark.parametrize("example", [line for line in SERVE_EXAMPLES if "--print-rbac" not in line])
def test_every_serve_example_serves_and_stops_cleanly(fake_cluster, example):
    serve_cluster(fake_cluster.server, operator_cluster(namespace="research" if "-n research" in example else "ml"))
    extra = {}
    if "--shard auto" in example:
        _statefulset(fake_cluster.server)
        extra = {"POD_NAME": "wmap-serve-1", "POD_NAMESPACE": "wmap-system"}
    process = subprocess.Popen(
        [WMAP, *_words(example, fake_cluster.kubeconfig)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_environment(**extra),
    )  # fmt: skip
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        match = re.match(r"wmap serve: (http://127\.0\.0\.1:\d+) ", first)
        assert match, first + process.stderr.read()
        url = match.group(1)
        deadline = time.monotonic() + 60
        while get(f"{url}/readyz")[0] != 200:
            assert time.monotonic() < deadline, "not ready within 60 s"
            time.sleep(0.1)
        status, metrics, _ = get(f"{url}/metrics")
        assert status == 200 and "\nwmap_ready 1.0\n" in metrics
        if "--shard auto" in example:
            assert "shard 1 of 2" in first
        else:
            assert "wmap_workload_info{" in metrics
        if "--enable-api" in example:
            from helpers.serve import post

            answer = post(f"{url}/api/v1/inspect", (REPO_ROOT / "fixtures/jobset-leader-workers.yaml").read_bytes())
            assert answer[0] == 200
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
        assert process.returncode == 0, err
        assert err.strip().endswith("wmap serve: stopped") and "Traceback" not in err
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def test_print_rbac_example_prints_the_shipped_role():
    (example,) = [line for line in SERVE_EXAMPLES if "--print-rbac" in line]
    done = subprocess.run([WMAP, *shlex.split(example.split(" | ")[0])[1:]], capture_output=True, text=True,
                          env=_environment(), check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == (REPO_ROOT / "deploy" / "clusterrole.yaml").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--listen", "nonsense"], "is not HOST:PORT"),
        (["--listen", ":8080"], "is not HOST:PORT"),
        (["--shard", "1"], "give --total-shards with --shard"),
        (["--shard", "x", "--total-shards", "2"], "is not a shard number or auto"),
        (["--resync", "soon"], "--resync"),
        (["-n", "ml", "-A"], "not both"),
    ],
)
def test_misuse_is_one_line_and_exit_2(fake_cluster, args, message):
    done = subprocess.run([WMAP, "serve", *args, "--kubeconfig", str(fake_cluster.kubeconfig)],
                          capture_output=True, text=True, env=_environment(), timeout=60, check=False)  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_an_address_in_use_is_one_line_and_exit_1(fake_cluster):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([WMAP, "serve", "--listen", f"127.0.0.1:{port}", "--kubeconfig",
                               str(fake_cluster.kubeconfig)], capture_output=True, text=True, env=_environment(),
                              timeout=60, check=False)  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [f"error: cannot listen on 127.0.0.1:{port}: Address already in use"]


def test_a_missing_kubeconfig_is_one_line(tmp_path):
    done = subprocess.run([WMAP, "serve", "--kubeconfig", str(tmp_path / "none")], capture_output=True, text=True,
                          env=_environment(), timeout=60, check=False)  # fmt: skip
    assert done.returncode == 1
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
