"""ObjectIndex: related objects in memory, found by kind and name."""

from __future__ import annotations

from workloadmap.interpreter import ObjectIndex


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
