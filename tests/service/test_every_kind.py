"""Every kind of the catalog through a real Prometheus: the series of each are what inspect and describe say.

For every workload of the repository's fixtures (the breadth set of ``tests/live/test_every_kind.py``:
two pods per pod-bearing component instance, below an owner of the kind its operator creates,
labelled as the component's selector requires), the stand-in API server serves the kind (a CRD
per kind of the catalog, and the owner kinds in between), ``wmap serve`` watches them all and a
real Prometheus scrapes it. For each workload, Prometheus must hold its GPU request as ``wmap
inspect`` totals it, its desired pods, and its current and ready pods as ``wmap describe`` counts
them on the same objects; and one ``wmap_pod_workload_info`` per pod describe attributed.
"""

from __future__ import annotations

from pathlib import Path

from helpers import FIXTURES_DIR
from helpers.apiserver import DEFAULT_RESOURCES, TEST_TOKEN, FakeApiServer, FakeResource
from helpers.operators import LiveCluster, fill
from helpers.prometheus import running_prometheus
from helpers.serve import running_service, wait_until
from workloadmap.catalog import Catalog, resource_plural
from workloadmap.documents import load_objects
from workloadmap.interpreter import EvaluationContext, Expander, ObjectIndex, pod_claims, resolve_references
from workloadmap.live import describe, from_dumps

CATALOG = Catalog.load(use_env=False)


def _fixtures() -> list[tuple[Path, dict, list[dict]]]:
    found = []
    for path in sorted(FIXTURES_DIR.rglob("*.yaml")):
        if {"bad", "topology", "live", "karta"} & set(path.relative_to(FIXTURES_DIR).parts):
            continue
        bodies = [doc.body for doc in load_objects(str(path)) if isinstance(getattr(doc, "body", None), dict)]
        for body in bodies:
            if CATALOG.lookup(str(body.get("apiVersion")), str(body.get("kind"))) and body.get("kind") != "Pod":
                found.append((path, body, bodies))
    return found


def _scoped(kind: str) -> bool:
    return not kind.startswith("Cluster")


class _Scene:
    """The fixtures' workloads, each in a namespace of its own, with the resource types that hold them."""

    def __init__(self) -> None:
        self.cluster = LiveCluster()
        self.nodes = self.cluster.nvl72_racks(2)
        self.resources: dict[tuple[str, str], FakeResource] = {(r.group, r.kind): r for r in DEFAULT_RESOURCES}
        self.workloads: list[tuple[dict, ObjectIndex]] = []
        self.cluster_scoped: set[tuple[str, str]] = set()

    def resource(self, api_version: str, kind: str) -> str:
        """The served apiVersion of a kind (the first one met), registering the kind when new."""
        group, _, version = api_version.rpartition("/")
        known = self.resources.get((group, kind))
        if known is None:
            plural = resource_plural(kind)
            known = FakeResource(group, version, plural, kind.lower(), kind, namespaced=_scoped(kind))
            self.resources[(group, kind)] = known
        return known.api_version

    def owner_version(self, kind: str, workload: dict) -> str:
        group = workload["apiVersion"].rpartition("/")[0]
        same = next((d for d in CATALOG if d.kind == kind and d.group == group), None)
        if same is not None:  # an object of the operator's own group (a Volcano CronJob's Job)
            return self.resource(f"{same.group}/{same.versions[0]}", kind)
        lookup = next((d for d in CATALOG if d.kind == kind and d.group in ("", "batch", "apps")), None)
        if lookup is not None:
            return self.resource(f"{lookup.group}/{lookup.versions[0]}" if lookup.group else "v1", kind)
        return self.resource(workload["apiVersion"], kind)  # an owner in the operator's own group

    def add(self, index: int, manifest: dict, bodies: list[dict]) -> None:
        cluster = self.cluster
        cluster.namespace = f"kind-{index}"
        served = self.resource(manifest["apiVersion"], manifest["kind"])
        if served != manifest["apiVersion"]:
            return  # a second version of a kind: the first one's fixture covers it
        named = {(body["kind"], body["metadata"]["name"]) for body in bodies if not _scoped(str(body.get("kind")))}
        if named & self.cluster_scoped:
            return  # a cluster-scoped object another fixture holds under the same name
        self.cluster_scoped |= named
        metadata = {**manifest.get("metadata", {})}
        if _scoped(manifest["kind"]):
            metadata["namespace"] = cluster.namespace
        workload = cluster.workload({**manifest, "metadata": metadata})
        if not _scoped(manifest["kind"]):
            workload["metadata"].pop("namespace", None)
        related = ObjectIndex(body for body in bodies if body is not manifest)
        definition = CATALOG.lookup(workload["apiVersion"], workload["kind"]).definition
        if not hasattr(definition, "components"):
            return
        refs = resolve_references(definition, workload, related, cluster.namespace, [])
        expanded = Expander(EvaluationContext(definition, workload, refs), catalog=CATALOG).expand()
        claims = pod_claims(expanded, workload["metadata"]["name"], cluster.namespace)
        made: dict[int, dict] = {}
        for number, claim in enumerate(claims):
            if claim.node.pods() == 0:
                continue
            above = workload
            for node in claim.lineage[:-1]:
                if node.definition.resource:
                    if id(node) not in made:  # an embedded object, made once for all its components
                        version = self.owner_version(node.kind, workload)
                        made[id(node)] = cluster.owned(version, node.kind, node.instance, above)
                    above = made[id(node)]
            kind = claim.node.kind if claim.node.kind not in (None, "Pod") else None
            owner = cluster.owned(self.owner_version(kind, workload), kind, f"owner-{number}", above) if kind else above
            for copy in range(2):
                labels = claim.selector.example_labels("1")
                cluster.pod(f"pod-{number}-{copy}", owner, labels, None, fill(self.nodes, per_node=4))
        for body in bodies:  # the objects it references (a TrainJob's runtime), served too
            if body is not manifest and CATALOG.lookup(str(body.get("apiVersion")), str(body.get("kind"))):
                if self.resource(body["apiVersion"], body["kind"]) == body["apiVersion"]:
                    cluster.workload({**body, "metadata": {**body["metadata"], "namespace": cluster.namespace}})
        self.workloads.append((workload, related))


def test_every_kind_is_right_in_prometheus(tmp_path, monkeypatch):
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(variable, raising=False)
    scene = _Scene()
    for index, (_, manifest, bodies) in enumerate(_fixtures()):
        scene.add(index, manifest, bodies)
    kinds = {workload["kind"] for workload, _ in scene.workloads}
    assert len(kinds) >= 30, sorted(kinds)
    with FakeApiServer(list(scene.resources.values()), token=TEST_TOKEN) as server:
        server.add_all(scene.cluster.nodes)
        server.add_all(scene.cluster.objects)
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
        with (
            running_service(kubeconfig) as running,
            running_prometheus([running.url.removeprefix("http://")], tmp_path) as prom,
        ):
            wait_until(prom.targets_up, 60, "the scrape")
            wait_until(lambda: prom.value("count(wmap_workload_info)") == len(running.service.snapshot.workloads), 60)
            gpus = prom.values('wmap_workload_resource_requests{resource="nvidia_com_gpu"}')
            pods = prom.values("wmap_workload_pods")
            infos = prom.values("count by (namespace, kind, name) (wmap_pod_workload_info)")
            checked = set()
            everything = ObjectIndex(scene.cluster.objects)  # what the cluster holds, as the service reads it
            for workload, _ in scene.workloads:
                metadata = workload["metadata"]
                report = describe(workload, from_dumps(scene.cluster.objects, scene.cluster.nodes), catalog=CATALOG,
                                  related=everything)  # fmt: skip
                tree = report.tree
                ids = {"namespace": metadata.get("namespace", ""), "kind": workload["kind"], "name": metadata["name"]}
                key = tuple(sorted(ids.items()))

                def find(values, ids=ids, **more):
                    wanted = {**ids, **more}
                    # Prometheus keeps no empty label: a cluster-scoped workload's series have no namespace.
                    hits = [
                        v
                        for labels, v in values.items()
                        if all((k, w) in labels or (not w and k not in dict(labels)) for k, w in wanted.items())
                    ]
                    return hits[0] if len(hits) == 1 else None

                assert find(gpus, unit="integer") == float(tree.totals.resources.get("nvidia.com/gpu", 0)) or (
                    "nvidia.com/gpu" not in tree.totals.resources and find(gpus) is None
                ), key
                assert find(pods, state="desired") == tree.totals.pods, key
                current = sum(component.replicas.current or 0 for component in report.components)
                ready = sum(component.replicas.ready or 0 for component in report.components)
                assert (find(pods, state="current"), find(pods, state="ready")) == (current, ready), key
                attributed = sum(len(item.pods) for component in report.components for item in component.walk())
                attributed += len(report.unattributed_pods)
                assert (find(infos) or 0) == attributed, key
                checked.add(workload["kind"])
            assert checked == kinds
        assert server.methods == {"GET"}
