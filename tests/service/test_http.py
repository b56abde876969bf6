"""The service's HTTP side: the POST API's answers and limits, methods, headers, slow clients.

``POST /api/v1/inspect|demand|place`` must answer what ``wmap inspect -o json``, ``wmap place -t
cluster: --emit demand -o json`` and ``wmap place -t cluster: -o json`` print for the same
manifest and cluster, and refuse hostile bodies cleanly: a one-line located message in a
Kubernetes ``Status``, a status code that says whose fault it is, never a traceback, never a
hang (the input limits of files, a body cap read before the body, a deadline per request).
"""

from __future__ import annotations

import json
import socket
import time

import pytest
from typer.testing import CliRunner

from helpers import FIXTURES_DIR
from helpers.serve import get, operator_cluster, post, running_service, serve_cluster
from workloadmap.cli.main import app
from workloadmap.service import ApiOptions

runner = CliRunner()
JOBSET = FIXTURES_DIR / "jobset-leader-workers.yaml"
ON = ApiOptions(enable_post=True, max_body=256 * 1024, request_seconds=5.0)


@pytest.fixture
def served(fake_cluster, monkeypatch):
    serve_cluster(fake_cluster.server, operator_cluster(pending=0))
    monkeypatch.setenv("KUBECONFIG", str(fake_cluster.kubeconfig))  # `-t cluster:` reads the same cluster
    monkeypatch.delenv("WMAP_CATALOG", raising=False)
    with running_service(fake_cluster.kubeconfig, api=ON, read_seconds=1.0) as running:
        yield running
    assert fake_cluster.server.methods == {"GET"}


def _printed(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_post_answers_what_inspect_and_place_print(served):
    body = JOBSET.read_bytes()
    status, inspected = post(f"{served.url}/api/v1/inspect", body)
    assert status == 200 and inspected.pop("source") == "request body"
    printed = _printed("inspect", str(JOBSET), "-o", "json")
    assert printed.pop("source") == str(JOBSET)
    assert inspected == printed
    assert post(f"{served.url}/api/v1/place", body) == (
        200,
        _printed("place", str(JOBSET), "-t", "cluster:", "-o", "json"),
    )
    status, demand = post(f"{served.url}/api/v1/demand", body)
    assert status == 200
    assert demand == _printed("place", str(JOBSET), "-t", "cluster:", "--emit", "demand", "-o", "json")
    assert demand["kind"] == "WorkloadDemand" and demand["totals"]["gpus"] == 12
    kai = post(f"{served.url}/api/v1/place?policy=kai", body)[1]
    assert kai == _printed("place", str(JOBSET), "-t", "cluster:", "--policy", "kai", "-o", "json")


def test_post_takes_json_and_lists_and_several_documents(served):
    import yaml

    manifest = yaml.safe_load(JOBSET.read_text())
    as_json = json.dumps({"apiVersion": "v1", "kind": "List", "items": [manifest, manifest]}).encode()
    status, answer = post(f"{served.url}/api/v1/inspect", as_json, {"Content-Type": "application/json"})
    assert status == 200 and answer["kind"] == "List" and len(answer["items"]) == 2


def _refused(running, body: bytes, status: int, *words: str, headers: dict | None = None):
    code, answer = post(f"{running.url}/api/v1/inspect", body, headers)
    assert code == status, answer
    assert answer["kind"] == "Status" and answer["code"] == status
    assert "\n" not in answer["message"] and "Traceback" not in answer["message"]
    for word in words:
        assert word in answer["message"], answer["message"]
    return answer


def test_hostile_bodies_are_refused_cleanly(served):
    deep = b"[" * 5000 + b"]" * 5000
    _refused(served, deep, 400, "request body", "deep")
    bomb = b'a: &a ["x","x","x","x","x","x","x","x"]\n' + b"".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n".encode()
        for i in range(20)
    )
    _refused(served, bomb, 400, "request body")
    _refused(served, b"\xff\xfe\x00garbage", 400, "not UTF-8")
    _refused(served, b"", 400, "empty")
    _refused(served, b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", 422, "no workload")
    unknown = b"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {}\n"
    answer = _refused(served, unknown, 422, "no definition covers kind Widget")
    assert answer["details"]["file"] == "request body"
    huge = JOBSET.read_text().replace("replicas: 1", "replicas: 100000000", 1).encode()
    _refused(served, huge, 400, "request body", "replicas", "beyond any real cluster")
    workers = JOBSET.read_text().split("- name: workers")
    over_budget = (workers[0] + "- name: workers" + workers[1].replace("replicas: 1", "replicas: 600000", 1)).encode()
    _refused(served, over_budget, 422, "request body", "pods")
    broken = JOBSET.read_text().replace("parallelism: 2", "parallelism: two", 1).encode()
    answer = _refused(served, broken, 400, "request body")
    assert "field" in answer["details"] or "document" in answer["details"]


def _read_all(sock: socket.socket) -> str:
    """Everything the server sends until it closes the connection."""
    parts = []
    while chunk := sock.recv(65536):
        parts.append(chunk)
    return b"".join(parts).decode()


def test_the_body_cap_is_checked_before_the_body_is_read(served):
    with socket.create_connection(served.server.server_address[:2], timeout=10) as sock:
        sock.sendall(
            b"POST /api/v1/inspect HTTP/1.1\r\nHost: x\r\nContent-Type: application/yaml\r\n"
            b"Content-Length: 999999999\r\n\r\n"
        )
        answer = _read_all(sock)
    assert answer.startswith("HTTP/1.1 413"), answer[:200]
    assert "larger than the limit of 262,144 bytes" in answer
    code, body = post(f"{served.url}/api/v1/inspect", b"x" * (256 * 1024 + 1))
    assert code == 413 and body["reason"] == "RequestEntityTooLarge"


@pytest.mark.parametrize(
    ("head", "status"),
    [
        (b"Transfer-Encoding: chunked\r\n", 411),
        (b"", 411),
        (b"Content-Length: lots\r\n", 400),
        (b"Content-Length: -5\r\n", 400),
    ],
    ids=["chunked", "no-length", "bad-length", "negative-length"],
)
def test_bodies_without_a_usable_length_are_refused(served, head, status):
    with socket.create_connection(served.server.server_address[:2], timeout=10) as sock:
        sock.sendall(b"POST /api/v1/inspect HTTP/1.1\r\nHost: x\r\n" + head + b"\r\n")
        answer = sock.recv(65536).decode()
    assert answer.startswith(f"HTTP/1.1 {status}"), answer[:200]


def test_a_slow_client_is_cut_off_and_others_are_served_meanwhile(served):
    with socket.create_connection(served.server.server_address[:2], timeout=10) as sock:
        sock.sendall(b"POST /api/v1/inspect HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly a part")
        assert get(f"{served.url}/healthz")[0] == 200
        started = time.monotonic()
        answer = sock.recv(65536)
        assert time.monotonic() - started < 5
    assert answer.startswith(b"HTTP/1.1 408"), answer[:100]


def test_the_post_api_is_off_unless_enabled_and_busy_is_429(fake_cluster, served):
    status, answer = post(f"{served.url}/api/v1/nothing", b"x")
    assert status == 404
    for _ in range(2):
        served.server.posts.acquire()
    try:
        status, answer = post(f"{served.url}/api/v1/inspect", JOBSET.read_bytes())
        assert status == 429 and answer["reason"] == "TooManyRequests"
    finally:
        served.server.posts.release()
        served.server.posts.release()


def test_post_is_off_by_default(fake_cluster):
    serve_cluster(fake_cluster.server, operator_cluster())
    with running_service(fake_cluster.kubeconfig) as running:
        status, answer = post(f"{running.url}/api/v1/inspect", JOBSET.read_bytes())
        assert status == 404 and "--enable-api" in answer["message"]


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"])
def test_writes_and_other_methods_are_refused(served, method):
    with socket.create_connection(served.server.server_address[:2], timeout=10) as sock:
        sock.sendall(f"{method} /api/v1/workloads HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n".encode())
        answer = sock.recv(65536).decode()
    assert answer.startswith("HTTP/1.1 405"), answer[:100]
    assert "Allow: GET, POST" in answer


def test_pages_fetch_nothing_and_run_no_script(served):
    status, text, headers = get(f"{served.url}/")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    outside = text.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "<script" not in text and "http://" not in outside and "https://" not in outside
    status, text, _ = get(f"{served.url}/workloads/ml/jobset.jobset.x-k8s.io/llm-train")
    assert status == 200 and "JobSet/llm-train" in text and "<pre" in text
    assert get(f"{served.url}/workloads/ml/jobset/missing")[0] == 404
