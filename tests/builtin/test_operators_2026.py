"""What the operators' controllers create in late 2026: the kinds and fields the catalog now follows.

Expected figures are worked out from each operator's code or docs, cited per case; the fixtures are
written for these tests (each names the upstream example it is modelled on, if any).
"""

from __future__ import annotations

from helpers import BAD_FIXTURES_DIR, FIXTURES_DIR
from workloadmap import inspect_file
from workloadmap.interpreter import ObjectIndex

MIB = 2**20
GIB = 2**30


def _trees(path, related=None):
    results = inspect_file(str(path), related=ObjectIndex.from_paths([str(related)]) if related else None)
    assert [str(result.error) for result in results if result.error] == []
    return {result.tree.workload.name: result.tree for result in results if result.tree}


def _pods(tree):
    return {c.name: (c.pods, c.pod_resources) for c in tree.walk() if c.has_pod_template}


# ------------------------------------------------------------------------------------------------ Spark


def test_spark_memory_spark_refuses_is_a_located_error_with_the_accepted_forms(wmap):
    # apache/spark JavaUtils.byteStringAs: "512Mi" has the suffix "mi", which Spark rejects ("Invalid suffix");
    # the error names the field and what Spark accepts, never a JMESPath function error (add() on null).
    result = wmap("inspect", str(BAD_FIXTURES_DIR / "sparkapplication-memory-kubernetes-unit.yaml"))
    assert result.exit_code == 1
    [error] = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert "document #1 (SparkApplication/spark-pi), field spec.driver.memory: '512Mi' is not accepted" in error
    assert "512m = 512 MiB" in error and "Kubernetes quantities such as 512Mi" in error
    assert "add()" not in error and "invalid type" not in error and "Traceback" not in result.output


def test_spark_connect_server_and_executors():
    # internal/controller/sparkconnect/reconciler.go mutateServerPod: the server pod is server.template's (1 cpu /
    # 1Gi); options.go executorConfOption: 2 executors of 1 core and 512m, whose pods Spark sizes 512 MiB +
    # max(0.1 x 512 MiB, 384 MiB) = 896Mi (pkg/common/spark.go memory overhead, JVM factor 0.1).
    trees = _trees(FIXTURES_DIR / "spark" / "sparkconnect.yaml")
    tree = trees["spark-connect"]
    assert _pods(tree) == {"server": (1, {"cpu": 1, "memory": GIB}), "executor": (2, {"cpu": 1, "memory": 896 * MIB})}
    assert [group.min_member for group in tree.pod_groups] == [1]
    # Spark's defaults: a containerless server template gets spark-kubernetes-driver (no requests); 2 executors of
    # 1 core and 1g (1024 + 384 MiB overhead).
    defaults = trees["spark-connect-defaults"]
    assert _pods(defaults) == {"server": (1, {}), "executor": (2, {"cpu": 1, "memory": 1408 * MIB})}


def test_spark_connect_memory_spark_refuses_is_an_error(tmp_path):
    path = tmp_path / "conn.yaml"
    path.write_text(
        "apiVersion: sparkoperator.k8s.io/v1alpha1\nkind: SparkConnect\nmetadata: {name: c}\n"
        "spec: {sparkVersion: 4.0.4, server: {}, executor: {memory: 1.5g}}\n"
    )
    [result] = inspect_file(str(path))
    assert "field spec.executor.memory: '1.5g' is not accepted" in str(result.error)


def test_spark_connect_dynamic_allocation_starts_at_spark_s_initial_target():
    # Spark's ExecutorAllocationManager starts max(initialExecutors, minExecutors, instances) executors and keeps
    # between minExecutors and maxExecutors; 4g + max(0.1 x 4096, 384) MiB = 4505Mi per executor.
    tree = _trees(FIXTURES_DIR / "spark" / "sparkconnect.yaml")["spark-connect-dynamic"]
    executor = next(c for c in tree.walk() if c.name == "executor")
    assert (executor.replicas, executor.min_replicas, executor.max_replicas) == (3, 1, 10)
    assert executor.pod_resources == {"cpu": 2, "memory": 4505 * MIB}
