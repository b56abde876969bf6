"""A hostile API server, one seeded scenario per class of issue 26, against the commands users run.

Classes: credentials (plain HTTP with a token; Status messages that repeat the Authorization header),
shape (the server's own answers and watch events with one field of the wrong type or kind),
encoding (compressed answers nobody asked for), pacing (every watch ends in 410 Gone after one event)
and text (names with control characters, a megabyte long). Every run must end with output or one-line
errors (exit 0, 1 or 4), never an internal error; never print the token; never put a control character
from the server on stdout; send only GET; and end within its bound. ``WMAP_FUZZ_CASES`` runs longer.
"""

from __future__ import annotations

import random
import time

import pytest

from helpers.apiserver import TEST_TOKEN, FakeApiServer
from helpers.fuzz import fuzz_plan
from helpers.hostile import always_gone, compressed, confused_answers, status_message

PLAN = fuzz_plan(ci_cases=30)
BATCHES = PLAN.batches(2)
JOBSETS = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets"
CONTROL = {chr(code) for code in [*range(0x20), *range(0x7F, 0xA0)]} - {"\n"} | {"\u202e", "\u2028"}
COMMANDS = [
    ["get", "jobsets", "-n", "default"],
    ["get", "jobsets", "-n", "default", "-o", "name"],
    ["get", "jobsets", "-n", "default", "-o", "custom-columns=NAME:.workload.name,PHASE:.phase"],
    ["get", "jobset/train", "-n", "default", "-o", "wide"],
    ["get", "all", "-n", "default", "-o", "json"],
    ["describe", "jobset/train", "-n", "default"],
    ["cluster", "nodes"],
    ["get", "jobsets", "-n", "default", "-w", "--timeout", "1s"],
]


def jobset(name: str) -> dict:
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {"template": {"spec": {
                "containers": [{"name": "c", "image": "i"}]}}}}}]}}  # fmt: skip


def scenario(rng: random.Random, server: FakeApiServer) -> str:
    """Make ``server`` hostile in one of the classes; the class and what was done."""
    server.add_all([jobset("train"), jobset("other")])
    server.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})
    kind = rng.choice(["credentials", "shape", "shape", "encoding", "pacing", "text"])
    if kind == "credentials":
        code = rng.choice([403, 404, 500, 503])
        echo = rng.choice([f"Authorization: Bearer {TEST_TOKEN}", f"token={TEST_TOKEN}", f'"token": "{TEST_TOKEN}"',
                           f"bad credential {TEST_TOKEN}"])  # fmt: skip
        path = rng.choice([JOBSETS, f"{JOBSETS}/train", "/api/v1/nodes", "/apis"])
        server.hostile = status_message(path, f"denied; request had {echo}", code=code)
        return f"credentials: {code} at {path} echoing {echo.split(TEST_TOKEN)[0]!r}"
    if kind == "shape":
        server.hostile = confused_answers(server, rng, rate=rng.choice([0.2, 0.5, 1.0]))
        return "shape"
    if kind == "encoding":
        path = rng.choice([JOBSETS, "/api/v1/nodes", "/apis", "/api"])
        server.hostile = compressed(path, 1 << 20)
        return f"encoding: gzip at {path}"
    if kind == "pacing":
        server.hostile = always_gone(JOBSETS, "JobSet", "jobset.x-k8s.io/v1alpha2")
        return "pacing: 410 after one event"
    name = rng.choice(["x\x1b[2J\x07y", "a\u202eb", "evil\nTotals: 0 pods", "n" * 100_000, "t\x00\x9b[31m"])
    server.add(jobset(name) | {"metadata": {"name": name, "namespace": "default", "uid": "u-text"}})
    return f"text: a name {name[:12]!r}"


def problem(result, started: float, command: list[str]) -> str | None:
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return f"{type(result.exception).__name__}: {result.exception}"
    if result.exit_code not in (0, 1, 4):
        return f"exit {result.exit_code}: {result.stderr[-300:]}"
    text = result.stdout + result.stderr
    if "internal error" in text or "Traceback" in text:
        return result.stderr[-300:]
    if TEST_TOKEN in text:
        return "the token was printed"
    if CONTROL & set(result.stdout):
        return f"a control character on stdout: {sorted(CONTROL & set(result.stdout))[:3]!r}"
    if result.exit_code == 1 and not any(line.startswith("error: ") for line in result.stderr.splitlines()):
        return f"exit 1 without an error line: {result.stderr[-200:]}"
    if time.monotonic() - started > (15 if "-w" in command else 30):
        return f"took {time.monotonic() - started:.0f} s"
    return None


@pytest.mark.parametrize("seeds", BATCHES, ids=[f"{r.start}-{r.stop - 1}" for r in BATCHES])
def test_hostile_servers_end_cleanly(seeds, wmap, tmp_path, monkeypatch):
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    failures = []
    for seed in seeds:
        rng = random.Random(seed)
        plain = rng.random() < 0.15  # plain HTTP: the token must never be sent
        with FakeApiServer(token=None if plain else TEST_TOKEN, tls=not plain) as server:
            what = "plain http" if plain else scenario(rng, server)
            if plain:
                server.add(jobset("train"))
            config = server.write_kubeconfig(tmp_path / f"kubeconfig-{seed}", token=TEST_TOKEN)
            command = rng.choice(COMMANDS)
            started = time.monotonic()
            result = wmap(*command, "--kubeconfig", str(config))
            found = problem(result, started, command)
            if plain and any(value is not None for value in server.authorizations):
                found = "a credential was sent over plain HTTP"
            writes = [path for method, path in server.requests if method != "GET"]
            found = found or (f"not a read: {writes[:2]}" if writes else None)
            if found:
                failures.append(f"seed {seed} {what} `wmap {' '.join(command)}`: {found}")
    assert not failures, "\n".join(failures[:20])
