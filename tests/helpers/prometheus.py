"""A real Prometheus server for the tests of ``wmap serve``: started on 127.0.0.1, queried through its HTTP API.

Prometheus comes from the system (``.ci/run`` installs Debian's ``prometheus`` package, which
brings ``promtool`` too). Without it the tests skip, unless ``WMAP_REQUIRE_PROMETHEUS`` is set
(``.ci/run`` sets it): then they fail, so CI never passes without a real scrape.

:func:`running_prometheus` writes a configuration that scrapes the given targets every second
(and evaluates the given rule files every second), starts ``prometheus`` on a free loopback port
with its data in a temporary directory, waits until it is ready, and stops it after the block.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml


def tool(name: str) -> str:
    """The path of ``prometheus`` or ``promtool``; skips (or fails when CI requires it) without one."""
    path = shutil.which(name)
    if path:
        return path
    message = f"no {name} on PATH (.ci/run installs Debian's prometheus package)"
    if os.environ.get("WMAP_REQUIRE_PROMETHEUS"):
        pytest.fail(message)
    pytest.skip(message)


def free_port() -> int:
    """A port nothing listens on at 127.0.0.1 right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Prometheus:
    """A running Prometheus: its URL, and queries through its HTTP API."""

    url: str

    def query(self, expr: str) -> list[dict[str, Any]]:
        """The result vector of an instant query (``/api/v1/query``)."""
        data = self._get("/api/v1/query", {"query": expr})
        assert data["status"] == "success", data
        assert data["data"]["resultType"] == "vector", data
        result: list[dict[str, Any]] = data["data"]["result"]
        return result

    def values(self, expr: str) -> dict[tuple[tuple[str, str], ...], float]:
        """The query's samples by their sorted labels (``__name__`` left out)."""
        return {
            tuple(sorted((k, v) for k, v in item["metric"].items() if k != "__name__")): float(item["value"][1])
            for item in self.query(expr)
        }

    def value(self, expr: str) -> float | None:
        """The one sample of the query (None when it has none)."""
        found = list(self.values(expr).values())
        assert len(found) <= 1, f"{expr} has {len(found)} samples"
        return found[0] if found else None

    def wait(self, expr: str, expected: float, seconds: float = 60.0) -> None:
        """Wait until the query's one sample equals ``expected``."""
        deadline = time.monotonic() + seconds
        last = None
        while time.monotonic() < deadline:
            last = self.value(expr)
            if last == expected:
                return
            time.sleep(0.25)
        raise AssertionError(f"{expr} stayed {last}, expected {expected} (after {seconds:g} s)")

    def targets_up(self) -> bool:
        """Whether every target has been scraped successfully."""
        targets = self._get("/api/v1/targets", {})["data"]["activeTargets"]
        return bool(targets) and all(target["health"] == "up" for target in targets)

    def _get(self, path: str, params: dict[str, str]) -> dict[str, Any]:
        url = f"{self.url}{path}?{urllib.parse.urlencode(params)}"
        try:
            with urllib.request.urlopen(url, timeout=10) as answer:
                data: dict[str, Any] = json.loads(answer.read())
                return data
        except urllib.error.HTTPError as error:
            return {"status": "error", "code": error.code, "body": error.read().decode()}


@contextmanager
def running_prometheus(targets: list[str], directory: Path, rule_files: list[Path] = ()) -> Iterator[Prometheus]:
    """Prometheus scraping ``targets`` (``host:port``) every second, on 127.0.0.1:<free port>."""
    binary = tool("prometheus")
    config = {
        "global": {"scrape_interval": "1s", "scrape_timeout": "1s", "evaluation_interval": "1s"},
        "rule_files": [str(path) for path in rule_files],
        # honor_labels as the shipped ServiceMonitor: wmap's namespace and pod labels are the workloads'.
        "scrape_configs": [
            {"job_name": f"target-{index}", "honor_labels": True, "static_configs": [{"targets": [target]}]}
            for index, target in enumerate(targets)
        ],
    }
    config_file = directory / "prometheus.yml"
    config_file.write_text(yaml.safe_dump(config))
    port = free_port()
    log = (directory / "prometheus.log").open("w")
    process = subprocess.Popen(
        [binary, f"--config.file={config_file}", f"--storage.tsdb.path={directory / 'data'}",
         f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    server = Prometheus(f"http://127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise AssertionError(f"prometheus exited: {(directory / 'prometheus.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{server.url}/-/ready", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError("prometheus did not get ready within 60 s")
            time.sleep(0.1)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def rules_file(prometheus_rule: Path, target: Path) -> Path:
    """The rule groups of a PrometheusRule object as a Prometheus rules file."""
    document = yaml.safe_load(prometheus_rule.read_text())
    target.write_text(yaml.safe_dump({"groups": document["spec"]["groups"]}))
    return target
