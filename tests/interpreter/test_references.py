"""ObjectIndex: related objects in memory, found by kind and name."""

from __future__ import annotations

from pathlib import Path

from workloadmap.catalog import Catalog
from workloadmap.documents import Document, load_objects
from workloadmap.interpreter import ObjectIndex, inspect_documents

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _runtime(name: str, namespace: str | None = None, marker: int = 0) -> dict:
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"kind": "ClusterTrainingRuntime", "metadata": metadata, "spec": {"marker": marker}}


def test_a_deferred_index_reads_its_objects_when_first_asked():
    # inspect_documents indexes a stream's documents only when a workload references one.
    objects: list[dict] = []
    index = ObjectIndex.deferred(iter(objects))
    objects.append(_runtime("torch"))  # read at the first find, not before
    found = index.find("ClusterTrainingRuntime", "torch", None, namespaced=False)
    assert found is not None and found["spec"]["marker"] == 0
    assert index.find("ClusterTrainingRuntime", "other", None, namespaced=False) is None


def test_objects_added_to_a_deferred_index_come_after_the_deferred_ones():
    # The first object indexed under a name wins a cluster-scoped find, as in an eager index.
    index = ObjectIndex.deferred([_runtime("torch", marker=1)])
    index.add(_runtime("torch", marker=2))
    assert index.find("ClusterTrainingRuntime", "torch", None, namespaced=False)["spec"]["marker"] == 1
    eager = ObjectIndex([_runtime("torch", marker=1), _runtime("torch", marker=2)])
    assert eager.find("ClusterTrainingRuntime", "torch", None, namespaced=False)["spec"]["marker"] == 1


def test_a_deferred_index_of_some_kinds_holds_only_objects_of_those_kinds():
    # inspect_documents passes the kinds the catalog's references can name: a stream's ConfigMaps are not indexed.
    config_map = {"kind": "ConfigMap", "metadata": {"name": "torch"}}
    odd = [{"kind": ["ClusterTrainingRuntime"], "metadata": {"name": "x"}}, "text", None, {"metadata": None}]
    index = ObjectIndex.deferred([config_map, *odd, _runtime("torch")], kinds={"ClusterTrainingRuntime"})
    assert index.find("ClusterTrainingRuntime", "torch", None, namespaced=False)["kind"] == "ClusterTrainingRuntime"
    assert index.find("ConfigMap", "torch", None, namespaced=False) is None
    index.add({"kind": "ConfigMap", "metadata": {"name": "late"}})  # later objects are held to the same kinds
    assert index.find("ConfigMap", "late", None, namespaced=False) is None
    assert ObjectIndex.deferred([config_map]).find("ConfigMap", "torch", None, namespaced=False) == config_map


def test_the_catalog_names_the_kinds_its_references_can_find():
    # TrainJob's runtimeRef names a ClusterTrainingRuntime or a TrainingRuntime (Kubeflow Trainer v2);
    # LLMInferenceService's baseRefs name LLMInferenceServiceConfigs (KServe).
    catalog = Catalog.load(use_env=False)
    assert {"ClusterTrainingRuntime", "TrainingRuntime", "LLMInferenceServiceConfig"} <= catalog.referenced_kinds()
    assert "ConfigMap" not in catalog.referenced_kinds()
    # An empty catalog still looks up the native Workload API's objects a pod template joins (interpreter.native).
    assert Catalog().referenced_kinds() == frozenset({"Workload", "PodGroup", "CompositePodGroup"})


def test_a_stream_still_finds_its_runtime_among_other_kinds():
    # The TrainJob of trainjob-torch-runtime.yaml, after a ConfigMap of its runtime's name: numNodes 4 x 8 GPUs
    # on the runtime's node job plus one dataset-initializer pod (tests/builtin/test_kubeflow.py).
    documents = load_objects(str(FIXTURES / "kubeflow" / "trainjob-torch-runtime.yaml"))
    config_map = Document({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "torch-with-init"}}, "c", 1)
    results = list(inspect_documents([config_map, *documents]))
    job = next(result.tree for result in results if result.tree is not None and result.tree.workload.kind == "TrainJob")
    assert (job.totals.pods, job.totals.gpus) == (5, 32)
    assert job.warnings == []


def _lws(index: int) -> Document:
    # fixtures/leaderworkerset.yaml: 2 groups of 1 leader + 3 workers of 8 GPUs: 8 pods, 48 GPUs (its header)
    body = next(iter(load_objects(str(FIXTURES / "leaderworkerset.yaml")))).body
    body["metadata"]["name"] = f"lws-{index}"
    return Document(body, "s", index + 2)


def test_a_workload_finds_a_runtime_that_comes_after_it_and_what_was_read_ahead_is_interpreted():
    # The stream is read one batch at a time; the TrainJob's reference makes the rest be read ahead
    # (300 LeaderWorkerSets, kept small until their turn) to find the runtime at its end.
    job, runtime = sorted(
        load_objects(str(FIXTURES / "kubeflow" / "trainjob-torch-runtime.yaml")),
        key=lambda d: d.body["kind"] != "TrainJob",
    )
    stream = [job, *(_lws(index) for index in range(300)), runtime]
    results = list(inspect_documents(stream))
    trees = [result.tree for result in results if result.tree is not None]
    assert trees[0].workload.kind == "TrainJob"
    assert (trees[0].totals.pods, trees[0].totals.gpus) == (5, 32)  # as in the test above: the runtime was found
    sets = trees[1:301]
    assert [tree.workload.name for tree in sets] == [f"lws-{index}" for index in range(300)]
    assert {(tree.totals.pods, tree.totals.gpus) for tree in sets} == {(8, 48)}


def test_a_stream_without_references_is_read_as_it_is_interpreted():
    pulled = []

    def documents():
        for index in range(1000):
            pulled.append(index)
            yield _lws(index)

    results = inspect_documents(documents())
    first = next(results)
    assert first.tree is not None and first.tree.workload.name == "lws-0"
    assert len(pulled) <= 128  # one batch, not the whole stream
    assert sum(1 for _ in results) == 999
