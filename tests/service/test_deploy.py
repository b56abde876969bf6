"""``deploy/``: what a cluster admin applies (``kubectl apply -k deploy/``), checked.

* The ClusterRole is ``wmap serve --print-rbac``'s, byte for byte, and grants reads only; every
  request the service sends to a cluster of every kind wmap reads is one the role allows.
* Every object passes the Kubernetes API's own OpenAPI schemas, strictly (``kubernetes-validate``,
  the schemas of the newest Kubernetes it ships); the prometheus-operator objects the fields of
  their CRDs (``monitoring.coreos.com_servicemonitors.yaml`` and ``_prometheusrules.yaml`` of
  prometheus-operator: ``spec.selector``, ``spec.namespaceSelector.matchNames``, ``spec.endpoints[]``
  ``port/path/interval/scrapeTimeout/honorLabels``; ``spec.groups[].name/interval/rules[]``
  ``record|alert/expr/for/labels/annotations``).
* ``kubectl apply -k deploy/ --dry-run=client`` (when a kubectl is on PATH; Debian ships none, see
  ``apt-cache policy kubectl``) against the stand-in API server: every object accepted, GET only.
* The Deployment runs as the Pod Security Standards' ``restricted`` profile asks (non-root, no
  privilege escalation, all capabilities dropped, RuntimeDefault seccomp) with a read-only root
  filesystem, probes on ``/healthz`` and ``/readyz``, and the Dockerfile builds the image it names.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import jsonschema
import pytest
import yaml
from typer.testing import CliRunner

from helpers import REPO_ROOT
from helpers.apiserver import FakeApiServer, FakeResource
from helpers.serve import operator_cluster, running_service, serve_cluster
from workloadmap import __version__, labels
from workloadmap.catalog import Catalog
from workloadmap.cli.main import app
from workloadmap.service import cluster_role

DEPLOY = REPO_ROOT / "deploy"


def _kustomization() -> dict:
    return yaml.safe_load((DEPLOY / "kustomization.yaml").read_text())


def _objects() -> list[dict]:
    """The objects ``kustomize build`` makes, without kustomize: each resource file, namespaced, and the ConfigMap."""
    kustomization = _kustomization()
    namespace = kustomization["namespace"]
    objects = []
    for name in kustomization["resources"]:
        for obj in yaml.safe_load_all((DEPLOY / name).read_text()):
            if obj["kind"] not in ("Namespace", "ClusterRole", "ClusterRoleBinding"):
                obj["metadata"]["namespace"] = namespace
            objects.append(obj)
    for generated in kustomization["configMapGenerator"]:
        data = {}
        for entry in generated["files"]:
            key, _, path = entry.partition("=")
            data[key] = (DEPLOY / path).read_text()
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": generated["name"], "namespace": namespace,
                             "labels": generated["options"]["labels"]},
                "data": data,
            }
        )  # fmt: skip
    return objects


def _one(kind: str) -> dict:
    (found,) = [obj for obj in _objects() if obj["kind"] == kind]
    return found


def test_the_shipped_cluster_role_is_what_print_rbac_prints():
    printed = CliRunner().invoke(app, ["serve", "--print-rbac"], env={"WMAP_CATALOG": ""})
    assert printed.exit_code == 0, printed.stderr
    assert (DEPLOY / "clusterrole.yaml").read_text() == printed.stdout, "regenerate: wmap serve --print-rbac"
    from workloadmap.budgets import reference_kinds

    expected = cluster_role(Catalog.load(use_env=False), reference_kinds=sorted(reference_kinds()))
    assert yaml.safe_load(printed.stdout) == expected


def test_the_cluster_role_reads_only_and_never_secrets_or_configmaps():
    role = _one("ClusterRole")
    # wmap.dev is wmap's own group (a Kueue pod group read from an input): no API server serves it.
    catalog_groups = {definition.group for definition in Catalog.load(use_env=False)} - {labels.WMAP_API_GROUP}
    granted: dict[str, set[str]] = {}
    for rule in role["rules"]:
        assert rule["verbs"] == ["get", "list", "watch"]
        assert set(rule) == {"apiGroups", "resources", "verbs"}
        for group in rule["apiGroups"]:
            granted.setdefault(group, set()).update(rule["resources"])
    assert granted[""] == {"pods", "nodes", "events"}
    assert granted["events.k8s.io"] == {"events"} and granted["run.ai"] == {"kartas"}
    from workloadmap.budgets import reference_kinds

    referenced = {group for group, _ in reference_kinds() if group}  # objects definitions may reference (GET)
    assert set(granted) == catalog_groups | referenced | {"events.k8s.io", "run.ai"}
    assert all(resources == {"*"} for group, resources in granted.items() if group in catalog_groups - {""})


def test_allowed_reference_kinds_are_added_to_the_role():
    printed = CliRunner().invoke(app, ["serve", "--print-rbac", "--allow-reference-kind", "ConfigMap"])
    assert printed.exit_code == 0, printed.stderr
    core = yaml.safe_load(printed.stdout)["rules"][0]
    assert core["apiGroups"] == [""] and core["resources"] == ["configmaps", "events", "nodes", "pods"]


def _allows(role: dict, group: str, resource: str) -> bool:
    return any(
        group in rule["apiGroups"] and (resource in rule["resources"] or "*" in rule["resources"])
        for rule in role["rules"]
    )


def test_every_request_the_service_sends_is_one_the_role_allows(fake_cluster):
    serve_cluster(fake_cluster.server, operator_cluster())
    with running_service(fake_cluster.kubeconfig):
        pass
    role = _one("ClusterRole")
    checked = 0
    for method, path in fake_cluster.server.requests:
        assert method == "GET"
        parts = path.split("?")[0].strip("/").split("/")
        if parts[0] == "api" and len(parts) > 2:
            group, rest = "", parts[2:]
        elif parts[0] == "apis" and len(parts) > 3:
            group, rest = parts[1], parts[3:]
        else:
            continue  # discovery (/api, /apis, /apis/GROUP/VERSION): allowed to every user (system:discovery)
        resource = rest[2] if rest[0] == "namespaces" and len(rest) > 2 else rest[0]
        assert _allows(role, group, resource), f"the ClusterRole does not allow GET {path}"
        checked += 1
    assert checked > 10


# The CRD's pattern of a Prometheus duration (monitoring.coreos.com_servicemonitors.yaml, spec.endpoints[].interval).
_DURATION = "^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"
_SERVICE_MONITOR = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "ServiceMonitor"},
        "spec": {
            "type": "object",
            "additionalProperties": False,
            "required": ["selector", "endpoints"],
            "properties": {
                "selector": {"type": "object", "properties": {"matchLabels": {"type": "object"}}},
                "namespaceSelector": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "any": {"type": "boolean"},
                        "matchNames": {"type": "array", "items": {"type": "string"}},
                    },
                },
                "endpoints": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "port": {"type": "string"},
                            "path": {"type": "string"},
                            "interval": {"type": "string", "pattern": _DURATION},
                            "scrapeTimeout": {"type": "string"},
                            "honorLabels": {"type": "boolean"},
                        },
                    },
                },
            },
        },
    },
}

_RULE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["expr"],
    "oneOf": [{"required": ["record"]}, {"required": ["alert"]}],
    "properties": {
        "record": {"type": "string"},
        "alert": {"type": "string"},
        "expr": {"type": "string"},
        "for": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}
_PROMETHEUS_RULE = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "PrometheusRule"},
        "spec": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "groups": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["name", "rules"],
                        "properties": {
                            "name": {"type": "string"},
                            "interval": {"type": "string"},
                            "rules": {"type": "array", "items": _RULE},
                        },
                    },
                }
            },
        },
    },
}


@pytest.mark.parametrize("obj", _objects(), ids=lambda obj: f"{obj['kind']}/{obj['metadata']['name']}")
def test_every_object_passes_its_schema(obj):
    import kubernetes_validate

    if obj["kind"] == "ServiceMonitor":
        jsonschema.validate(obj, _SERVICE_MONITOR)
    elif obj["kind"] == "PrometheusRule":
        jsonschema.validate(obj, _PROMETHEUS_RULE)
    else:
        kubernetes_validate.validate(obj, kubernetes_validate.latest_version(), strict=True)


def test_the_deployment_runs_restricted_read_only_and_probed():
    deployment = _one("Deployment")
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    security = container["securityContext"]
    assert security == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                        "capabilities": {"drop": ["ALL"]}}  # fmt: skip
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    args = container["args"]
    assert args[0] == "serve" and args[args.index("--listen") + 1] == "0.0.0.0:8080"
    assert {"--all-namespaces"} & set(args)
    (port,) = container["ports"]
    assert port["containerPort"] == 8080 and port["name"] == "http"
    assert container["resources"]["requests"]["memory"] and container["resources"]["limits"]["memory"]
    assert pod["serviceAccountName"] == _one("ServiceAccount")["metadata"]["name"]
    binding = _one("ClusterRoleBinding")
    assert binding["roleRef"]["name"] == _one("ClusterRole")["metadata"]["name"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "wmap-serve", "namespace": "wmap-system"}]


def test_the_service_monitor_scrapes_the_service_port_keeping_wmap_labels():
    service, monitor = _one("Service"), _one("ServiceMonitor")
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    assert service["spec"]["selector"].items() <= _one("Deployment")["spec"]["template"]["metadata"]["labels"].items()
    (endpoint,) = monitor["spec"]["endpoints"]
    assert endpoint["port"] == service["spec"]["ports"][0]["name"] and endpoint["path"] == "/metrics"
    assert endpoint["honorLabels"] is True, "wmap's namespace and pod labels name the workloads, not the target"
    dashboard = json.loads(_one("ConfigMap")["data"]["wmap-dashboard.json"])
    assert dashboard["uid"] == "wmap-workloads" and dashboard["panels"]


def test_the_dockerfile_builds_the_image_the_deployment_names():
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    image = _one("Deployment")["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image == f"wmap:{__version__}"
    assert f"docker build -t {image} ." in dockerfile
    user = re.search(r"^USER (\d+):(\d+)$", dockerfile, re.M)
    pod = _one("Deployment")["spec"]["template"]["spec"]["securityContext"]
    assert user and int(user.group(1)) == pod["runAsUser"] and int(user.group(2)) == pod["runAsGroup"]
    assert 'ENTRYPOINT ["wmap"]' in dockerfile
    for source in re.findall(r"^COPY (?!--from)(\S+)", dockerfile, re.M):
        assert (REPO_ROOT / source).exists(), source


_KUBECTL_RESOURCES = (
    FakeResource("", "v1", "namespaces", "namespace", "Namespace", namespaced=False),
    FakeResource("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount"),
    FakeResource("", "v1", "services", "service", "Service"),
    FakeResource("", "v1", "configmaps", "configmap", "ConfigMap"),
    FakeResource("rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole", "ClusterRole", namespaced=False),
    FakeResource("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding",
                 namespaced=False),
    FakeResource("apps", "v1", "deployments", "deployment", "Deployment"),
    FakeResource("monitoring.coreos.com", "v1", "servicemonitors", "servicemonitor", "ServiceMonitor"),
    FakeResource("monitoring.coreos.com", "v1", "prometheusrules", "prometheusrule", "PrometheusRule"),
)  # fmt: skip


def test_kubectl_applies_the_kustomization_as_a_dry_run(tmp_path, monkeypatch):
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip(
            "no kubectl on PATH (Debian 12's kubectl 1.20 predates kustomize's labels: field); "
            "test_every_object_passes_its_schema checks the objects"
        )
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(variable, raising=False)
    with FakeApiServer(_KUBECTL_RESOURCES) as server:
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
        built = subprocess.run([kubectl, "kustomize", str(DEPLOY)], capture_output=True, text=True, check=False)
        assert built.returncode == 0, built.stderr
        assert sorted(obj["kind"] for obj in yaml.safe_load_all(built.stdout)) == sorted(o["kind"] for o in _objects())
        command = [kubectl, "--kubeconfig", str(kubeconfig), "apply", "-k", str(DEPLOY), "--dry-run=client"]
        applied = subprocess.run(
            [*command, "--validate=false"], capture_output=True, text=True, check=False, timeout=120
        )
        assert applied.returncode == 0, applied.stderr
        lines = applied.stdout.splitlines()
        assert len(lines) == len(_objects()) and all(line.endswith("created (dry run)") for line in lines), lines
        assert server.methods == {"GET"}, "a client dry run only reads"
