"""``wmap serve`` scraped by a real Prometheus (Debian's package), every second, and queried through its API.

The expected values come from the fixtures' own statement of what the operator does
(``fixtures/jobset-leader-workers.yaml``: a leader pod and two workers of 4 GPUs each, 12 GPUs,
one PodGroup of minMember 3, as KAI's jobset plugin forms it), not from wmap's output. The shipped
recording rules (``deploy/prometheusrule.yaml``) run in the same Prometheus, on the service's
series and on an NVIDIA DCGM exporter played by a loopback server (its series labelled with the
pod as the exporter's ``kubernetes.go`` does: ``pod``/``namespace``, or ``exported_pod`` and
``exported_namespace`` where the scrape renamed them). ``promtool check rules`` passes on the
shipped rules and ``promtool check metrics`` on a scrape; every expression of the shipped Grafana
dashboard is a valid query.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from helpers import REPO_ROOT
from helpers.prometheus import rules_file, running_prometheus, tool
from helpers.serve import get, operator_cluster, running_service, serve_cluster, wait_until

DEPLOY = REPO_ROOT / "deploy"
JOBSET = 'namespace="ml",kind="JobSet",name="llm-train"'


def _target(url: str) -> str:
    return url.removeprefix("http://")


def test_prometheus_reads_the_series_and_sees_a_gang_break_and_heal(fake_cluster, tmp_path):
    server = fake_cluster.server
    cluster = operator_cluster(pending=0)
    serve_cluster(server, cluster)
    with (
        running_service(fake_cluster.kubeconfig) as running,
        running_prometheus([_target(running.url)], tmp_path) as prom,
    ):
        wait_until(prom.targets_up, 60, "the scrape")
        prom.wait(f'wmap_workload_resource_requests{{{JOBSET},resource="nvidia_com_gpu",unit="integer"}}', 12)
        assert prom.value(f'wmap_workload_resource_requests{{{JOBSET},resource="cpu",unit="core"}}') == 8 + 2 * 16
        assert (
            prom.value(f'wmap_workload_resource_requests{{{JOBSET},resource="memory",unit="byte"}}')
            == (64 + 2 * 128) * 2**30
        )
        assert prom.value(f'wmap_workload_pods{{{JOBSET},state="desired"}}') == 3
        assert prom.value(f'wmap_component_pods{{{JOBSET},component="workers",state="desired"}}') == 2
        assert prom.value(f'wmap_gang_min_member{{{JOBSET},gang="llm-train"}}') == 3
        assert prom.value(f'wmap_workload_phase{{{JOBSET},phase="Running"}}') == 1
        assert prom.value(f"sum(wmap_workload_phase{{{JOBSET}}})") == 1, "a state set: one phase at 1"
        assert prom.value(f'count(wmap_pod_workload_info{{{JOBSET},component="workers",gang="llm-train"}})') == 2
        prom.wait(f'wmap_gang_complete{{{JOBSET},gang="llm-train"}}', 1)
        worker = next(pod for pod in cluster.pods() if "-workers-" in pod["metadata"]["name"])
        server.delete(worker)
        prom.wait(f'wmap_gang_complete{{{JOBSET},gang="llm-train"}}', 0)
        assert prom.value(f'wmap_gang_pods{{{JOBSET},gang="llm-train",state="scheduled"}}') == 2
        again = copy.deepcopy(worker)
        again["metadata"]["uid"] += "-again"
        server.add(again)
        prom.wait(f'wmap_gang_complete{{{JOBSET},gang="llm-train"}}', 1)
        assert prom.value("wmap_ready") == 1
        assert prom.value('wmap_cache_objects{resource="pods"}') == len(cluster.pods())
    assert server.methods == {"GET"}


class _Dcgm(BaseHTTPRequestHandler):
    """NVIDIA DCGM exporter's GPU utilisation series for the pods it was given."""

    body = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format, *args) -> None:
        pass


def _dcgm_exposition(pods: dict[str, float], renamed: set[str]) -> bytes:
    lines = ["# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).", "# TYPE DCGM_FI_DEV_GPU_UTIL gauge"]
    for index, (pod, utilisation) in enumerate(sorted(pods.items())):
        where = f'exported_namespace="ml",exported_pod="{pod}"' if pod in renamed else f'namespace="ml",pod="{pod}"'
        lines.append(f'DCGM_FI_DEV_GPU_UTIL{{gpu="{index}",modelName="NVIDIA GB200",{where}}} {utilisation}')
    return ("\n".join(lines) + "\n").encode()


def test_the_shipped_recording_rules_on_live_series(fake_cluster, tmp_path):
    server = fake_cluster.server
    cluster = operator_cluster(pending=0)
    serve_cluster(server, cluster)
    pods = [pod["metadata"]["name"] for pod in cluster.pods() if pod["metadata"]["name"].startswith("llm-train-")]
    leader = next(name for name in pods if "-leader-" in name)
    workers = sorted(name for name in pods if "-workers-" in name)
    _Dcgm.body = _dcgm_exposition({leader: 80.0, workers[0]: 40.0, workers[1]: 60.0}, renamed={leader, workers[0]})
    dcgm = ThreadingHTTPServer(("127.0.0.1", 0), _Dcgm)
    threading.Thread(target=dcgm.serve_forever, daemon=True).start()
    rules = rules_file(DEPLOY / "prometheusrule.yaml", tmp_path / "rules.yml")
    try:
        with (
            running_service(fake_cluster.kubeconfig) as running,
            running_prometheus(
                [_target(running.url), f"127.0.0.1:{dcgm.server_address[1]}"], tmp_path, [rules]
            ) as prom,
        ):
            wait_until(prom.targets_up, 60, "both scrapes")
            prom.wait(f"wmap:workload_gpu_requests:sum{{{JOBSET}}}", 12)
            assert prom.value(f'wmap:component_gpu_requests:sum{{{JOBSET},component="leader"}}') == 4
            assert prom.value(f'wmap:component_gpu_requests:sum{{{JOBSET},component="workers"}}') == 8
            prom.wait(f'wmap:gang_scheduled_ratio{{{JOBSET},gang="llm-train"}}', 1)
            prom.wait(f'wmap:component_dcgm_gpu_util:avg{{{JOBSET},component="workers"}}', 50)
            assert prom.value(f'wmap:component_dcgm_gpu_util:avg{{{JOBSET},component="leader"}}') == 80
            assert prom.value(f"wmap:workload_gangs_complete:ratio{{{JOBSET}}}") == 1
    finally:
        dcgm.shutdown()
        dcgm.server_close()


def test_promtool_passes_the_shipped_rules_and_a_scrape(fake_cluster, tmp_path):
    promtool = tool("promtool")
    rules = rules_file(DEPLOY / "prometheusrule.yaml", tmp_path / "rules.yml")
    checked = subprocess.run([promtool, "check", "rules", str(rules)], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "SUCCESS" in checked.stdout
    serve_cluster(fake_cluster.server, operator_cluster())
    with running_service(fake_cluster.kubeconfig) as running:
        _, text, headers = get(f"{running.url}/metrics")
    assert headers["Content-Type"].startswith("text/plain; version=0.0.4")
    linted = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, check=False)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    assert linted.stdout.strip() == "" and linted.stderr.strip() == "", "no lint finding"


def test_every_dashboard_query_is_valid_and_reads_shipped_series(fake_cluster, tmp_path):
    dashboard = json.loads((DEPLOY / "grafana-dashboard.json").read_text())
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    rules = rules_file(DEPLOY / "prometheusrule.yaml", tmp_path / "rules.yml")
    recorded = set(re.findall(r"record: (\S+)", rules.read_text()))
    serve_cluster(fake_cluster.server, operator_cluster())
    with (
        running_service(fake_cluster.kubeconfig) as running,
        running_prometheus([_target(running.url)], tmp_path, [rules]) as prom,
    ):
        wait_until(prom.targets_up, 60, "the scrape")
        for expr in exprs:
            query = expr.replace("$namespace", ".*")
            names = set(re.findall(r"\b(wmap[:_][A-Za-z0-9_:]+)", query))
            assert names, expr
            assert names <= recorded | _exported_names(running.url), f"{expr} reads series nobody makes"
            if "dcgm" in query:
                prom.query(query)  # valid (no DCGM exporter here: no result)
            else:
                wait_until(lambda query=query: prom.query(query), 60, f"a result for {query}")


def _exported_names(url: str) -> set[str]:
    _, text, _ = get(f"{url}/metrics")
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line.startswith("wmap_")}
