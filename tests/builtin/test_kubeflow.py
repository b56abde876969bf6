"""Catalog definitions for Kubeflow (training-operator v1, Trainer v2, Notebook), Volcano Job, Spark,
CronJob / ReplicaSet / DaemonSet and Slinky NodeSet.

Expected figures are worked by hand from the operators' rules and KAI's pod-grouper
(/work/shared/reference/schedulers.md A.4): replica defaults of the training-operator, Trainer v2's
PodSet counts (numNodes on the trainer job, MPI `node` = max(N-1, 1) with runLauncherAsNode),
Volcano's minAvailable defaulting, Spark's executor target and memory overhead. The corpus figures
(tests/test_corpus.py) and recorded status frames (tests/test_recorded_phases.py) are checked elsewhere.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from helpers import FIXTURES_DIR, load_fixture
from workloadmap import inspect, inspect_file
from workloadmap.documents import load_objects
from workloadmap.interpreter import ObjectIndex, RelatedObjects
from workloadmap.quantities import format_resources


def leaves(tree) -> dict:
    """Pod-bearing components by name: name -> (pods, gpusPerPod)."""
    found = {}
    stack = list(tree.components)
    while stack:
        component = stack.pop()
        stack.extend(component.components)
        if component.has_pod_template:
            found[component.name] = (component.pods, component.gpus_per_pod)
    return found


def component(tree, name: str):
    stack = list(tree.components)
    while stack:
        current = stack.pop()
        if current.name == name:
            return current
        stack.extend(current.components)
    raise AssertionError(f"no component {name!r} in {tree.workload.name}")


def min_members(tree) -> list[int]:
    return [group.min_member for group in tree.pod_groups]


def trees_of(path: Path, related: RelatedObjects | None = None) -> dict:
    """Every tree of a file or directory, by (kind, name); fails on any document error."""
    trees = {}
    for result in inspect_file(str(path), related=related):
        assert result.error is None, result.error
        if result.tree is not None:
            trees[(result.tree.workload.kind, result.tree.workload.name)] = result.tree
    return trees


# ----------------------------------------------------------------------------------------- catalog


@pytest.mark.parametrize(
    ("api_version", "kind", "definition"),
    [
        ("kubeflow.org/v1", "TFJob", "tfjob"),
        ("kubeflow.org/v1", "XGBoostJob", "xgboostjob"),
        ("kubeflow.org/v1", "JAXJob", "jaxjob"),
        ("kubeflow.org/v1", "PaddleJob", "paddlejob"),
        ("kubeflow.org/v1", "MPIJob", "mpijob"),
        ("kubeflow.org/v2beta1", "MPIJob", "mpijob"),
        ("kubeflow.org/v1", "Notebook", "notebook"),
        ("kubeflow.org/v1beta1", "Notebook", "notebook"),
        ("trainer.kubeflow.org/v1alpha1", "TrainJob", "trainjob"),
        ("trainer.kubeflow.org/v1alpha1", "TrainingRuntime", "trainingruntime"),
        ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime", "clustertrainingruntime"),
        ("batch.volcano.sh/v1alpha1", "Job", "job-volcano"),
        ("batch/v1", "Job", "job"),
        ("sparkoperator.k8s.io/v1beta2", "SparkApplication", "sparkapplication"),
        ("batch/v1", "CronJob", "cronjob"),
        ("apps/v1", "ReplicaSet", "replicaset"),
        ("apps/v1", "DaemonSet", "daemonset"),
        ("slinky.slurm.net/v1alpha1", "NodeSet", "nodeset"),
        ("slinky.slurm.net/v1beta1", "NodeSet", "nodeset"),
    ],
)
def test_kinds_resolve_to_their_definition_without_version_warning(builtin_catalog, api_version, kind, definition):
    lookup = builtin_catalog.lookup(api_version, kind)
    assert lookup is not None
    assert lookup.definition.name == definition
    assert lookup.warning is None


# ------------------------------------------------------------------------- training-operator v1


def test_tfjob_counts_every_replica_type_and_gangs_their_sum():
    tree = inspect(load_fixture("kubeflow/tfjob-chief-ps-worker-evaluator.yaml"))
    # Evaluator has no replicas: the training-operator defaults it to 1.
    assert leaves(tree) == {"chief": (1, 0), "ps": (2, 0), "worker": (4, 2), "evaluator": (1, 0)}
    assert (tree.totals.pods, tree.totals.gpus) == (8, 8)
    assert min_members(tree) == [8]
    assert tree.pod_groups[0].sub_groups == []
    assert tree.phase == "Running"


def test_tfjob_min_available_and_lowercase_replica_keys():
    tree = inspect(load_fixture("kubeflow/tfjob-minavailable.yaml"))
    assert leaves(tree) == {"ps": (1, 0), "worker": (5, 1)}
    assert min_members(tree) == [3]
    assert tree.phase == "Completed"


def test_xgboostjob_master_and_workers():
    tree = inspect(load_fixture("kubeflow/xgboostjob.yaml"))
    assert leaves(tree) == {"master": (1, 0), "worker": (3, 1)}
    assert (tree.totals.pods, tree.totals.gpus) == (4, 3)
    assert min_members(tree) == [4]


def test_jaxjob_workers_and_suspended_condition_wins():
    tree = inspect(load_fixture("kubeflow/jaxjob.yaml"))
    assert (tree.totals.pods, tree.totals.gpus) == (4, 32)
    assert min_members(tree) == [4]
    assert tree.phase == "Suspended"


def test_paddlejob_gang_is_the_operator_replica_sum_not_the_elastic_floor():
    tree = inspect(load_fixture("kubeflow/paddlejob-elastic.yaml"))
    worker = component(tree, "worker")
    assert (worker.pods, worker.min_pods, worker.max_pods) == (4, 2, 6)
    assert min_members(tree) == [4]
    assert "training-operator" in tree.gang_policy


def test_paddlejob_min_available_wins():
    resource = load_fixture("kubeflow/paddlejob-elastic.yaml")
    resource["spec"]["runPolicy"] = {"schedulingPolicy": {"minAvailable": 2}}
    assert min_members(inspect(resource)) == [2]


def test_mpijob_v1_defaults_launcher_to_one_and_counts_it_in_the_gang():
    tree = inspect(load_fixture("kubeflow/mpijob-v1.yaml"))
    assert tree.definition == "mpijob"
    assert leaves(tree) == {"launcher": (1, 0), "worker": (3, 2)}
    assert (tree.totals.pods, tree.totals.gpus) == (4, 6)
    assert min_members(tree) == [4]
    assert tree.phase == "Running"


def test_mpijob_v1_worker_replicas_default_to_zero():
    resource = load_fixture("kubeflow/mpijob-v1.yaml")
    del resource["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"]
    tree = inspect(resource)
    assert leaves(tree) == {"launcher": (1, 0), "worker": (0, 2)}
    assert min_members(tree) == [1]


def test_mpijob_v2beta1_wait_for_workers_leaves_the_launcher_out_of_the_first_gang():
    resource = load_fixture("kubeflow/mpijob-v1.yaml")
    resource["apiVersion"] = "kubeflow.org/v2beta1"
    resource["spec"]["launcherCreationPolicy"] = "WaitForWorkersReady"
    assert min_members(inspect(resource)) == [3]


def test_notebook_is_one_pod_and_a_minmember_one_group():
    tree = inspect(load_fixture("kubeflow/notebook.yaml"))
    assert leaves(tree) == {"notebook": (1, 1)}
    assert min_members(tree) == [1]
    assert tree.phase == "Running"


def test_stopped_notebook_runs_no_pod_and_is_suspended():
    resource = load_fixture("kubeflow/notebook.yaml")
    resource["apiVersion"] = "kubeflow.org/v1beta1"
    resource["metadata"]["annotations"] = {"kubeflow-resource-stopped": "2026-01-01T00:00:00Z"}
    resource["status"] = {"readyReplicas": 0}
    tree = inspect(resource)
    assert tree.totals.pods == 0
    assert tree.pod_groups == []
    assert tree.phase == "Suspended"


def test_notebook_without_ready_pod_is_initializing():
    resource = load_fixture("kubeflow/notebook.yaml")
    resource["status"] = {"readyReplicas": 0, "containerState": {"waiting": {"reason": "ContainerCreating"}}}
    assert inspect(resource).phase == "Initializing"


# ------------------------------------------------------------------------------------ Trainer v2


def test_trainjob_overrides_trainer_count_and_resources_of_its_runtime():
    trees = trees_of(FIXTURES_DIR / "kubeflow" / "trainjob-torch-runtime.yaml")
    job = trees[("TrainJob", "llm-train")]
    # dataset-initializer replicas 2 is forced to 1 Job; node = numNodes 4 (not mlPolicy's 2).
    assert leaves(job) == {"dataset-initializer": (1, 0), "node": (4, 8)}
    # resourcesPerNode replaces the `node` container's resources; the metrics sidecar keeps its 100m.
    assert format_resources(component(job, "node").pod_resources)["cpu"] == "32100m"
    assert (job.totals.pods, job.totals.gpus) == (5, 32)
    assert min_members(job) == [5]
    assert job.warnings == []
    assert job.phase == "Running"


def test_training_runtime_shows_what_a_trainjob_without_overrides_runs():
    trees = trees_of(FIXTURES_DIR / "kubeflow" / "trainjob-torch-runtime.yaml")
    runtime = trees[("TrainingRuntime", "torch-with-init")]
    assert leaves(runtime) == {"dataset-initializer": (1, 0), "node": (2, 1)}
    assert min_members(runtime) == [3]
    assert runtime.phase == "Undefined"


def test_trainjob_mpi_runtime_runs_launcher_as_a_node():
    trees = trees_of(FIXTURES_DIR / "kubeflow" / "trainjob-mpi-runtime.yaml")
    job = trees[("TrainJob", "deepspeed-4")]
    # node = max(numNodes - 1, 1) = 3; the launcher (trainer ancestor) keeps mlPolicy.numNodes 1; both
    # containers are named `node`, so both get resourcesPerNode.
    assert leaves(job) == {"node": (3, 2), "launcher": (1, 2)}
    assert (job.totals.pods, job.totals.gpus) == (4, 8)
    assert min_members(job) == [4]


def _mpi_pair(mutate):
    documents = [doc.body for doc in load_objects(str(FIXTURES_DIR / "kubeflow" / "trainjob-mpi-runtime.yaml"))]
    runtime, job = copy.deepcopy(documents[0]), copy.deepcopy(documents[1])
    mutate(runtime, job)
    return inspect(job, related=ObjectIndex([runtime]))


def test_trainjob_mpi_without_launcher_as_node_gives_node_all_of_num_nodes():
    def mutate(runtime, job):
        runtime["spec"]["mlPolicy"]["mpi"]["runLauncherAsNode"] = False

    tree = _mpi_pair(mutate)
    # kubeflow/trainer pkg/runtime/core/trainingruntime.go newRuntimeInfo: resourcesPerNode goes to the trainer
    # ancestor (here the launcher) and, only with runLauncherAsNode, to the job named node; mpi.go EnforceMLPolicy
    # still gives node all 4 of numNodes.
    assert leaves(tree) == {"node": (4, 0), "launcher": (1, 2)}


def test_trainjob_mpi_single_node_keeps_one_node_pod():
    def mutate(runtime, job):
        job["spec"]["trainer"]["numNodes"] = 1

    assert leaves(_mpi_pair(mutate))["node"] == (1, 2)


def test_trainjob_resources_per_node_go_only_to_containers_named_node():
    # trainingruntime.go newRuntimeInfo merges resourcesPerNode into containers named node only (constants.Node),
    # whatever runLauncherAsNode says: a launcher container named launcher keeps its own (none).
    def rename_launcher(run_as_node):
        def mutate(runtime, job):
            runtime["spec"]["mlPolicy"]["mpi"]["runLauncherAsNode"] = run_as_node
            launcher = runtime["spec"]["template"]["spec"]["replicatedJobs"][1]
            launcher["template"]["spec"]["template"]["spec"]["containers"][0]["name"] = "launcher"

        return mutate

    assert leaves(_mpi_pair(rename_launcher(True)))["launcher"] == (1, 0)
    assert leaves(_mpi_pair(rename_launcher(False)))["launcher"] == (1, 0)


def test_trainjob_in_order_runtime_gates_the_podgroup_by_one_replicated_job():
    # KAI v0.17 skips the TrainJob to its JobSet (hub_test.go "should return skipTopOwner plugin for TrainJob"),
    # whose grouper gates an InOrder JobSet by one replicatedJob (jobset_grouper_test.go
    # TestStartupPolicyInOrderRootMinSubGroup), each replicatedJob a parent of a leaf per Job
    documents = [doc.body for doc in load_objects(str(FIXTURES_DIR / "kubeflow" / "trainjob-torch-runtime.yaml"))]
    runtime, job = documents
    runtime["spec"]["template"]["spec"]["startupPolicy"] = {"startupPolicyOrder": "InOrder"}
    tree = inspect(job, related=ObjectIndex([runtime]))
    (group,) = tree.pod_groups
    assert (group.name, group.min_sub_group, group.min_member) == ("llm-train", 1, 1)
    assert [(sub.name, sub.min_sub_group, sub.min_member) for sub in group.sub_groups] == [
        ("dataset-initializer", 1, 1),
        ("node", 1, 4),
        ("dataset-initializer-replica-0", None, 1),
        ("node-replica-0", None, 4),
    ]


def test_trainjob_without_its_runtime_still_shows_the_trainer():
    tree = inspect(load_fixture("kubeflow/trainjob-no-runtime.yaml"))
    assert leaves(tree) == {"node": (3, 4)}
    assert (tree.totals.pods, tree.totals.gpus) == (3, 12)
    assert min_members(tree) == [3]
    assert any("ClusterTrainingRuntime/torch-distributed" in warning for warning in tree.warnings)
    assert tree.phase == "Completed"


def test_trainjob_does_not_use_a_namespaced_runtime_from_another_namespace():
    documents = [doc.body for doc in load_objects(str(FIXTURES_DIR / "kubeflow" / "trainjob-torch-runtime.yaml"))]
    runtime, job = documents
    job["metadata"]["namespace"] = "team-b"
    tree = inspect(job, related=ObjectIndex([runtime]))
    assert leaves(tree) == {"node": (4, 8)}
    assert any("TrainingRuntime/torch-with-init" in warning for warning in tree.warnings)


# ----------------------------------------------------------------------------------------- Volcano


def test_volcano_job_task_minimums_become_subgroups():
    tree = inspect(load_fixture("volcano/job-task-minavailable.yaml"))
    assert tree.definition == "job-volcano"
    assert leaves(tree) == {"ps": (2, 0), "worker": (4, 4)}
    assert (tree.totals.pods, tree.totals.gpus) == (6, 16)
    # spec.minAvailable unset: the webhook sums the task minimums, 1 + 2.
    assert min_members(tree) == [3]
    assert [(sub.name, sub.min_member) for sub in tree.pod_groups[0].sub_groups] == [("ps", 1), ("worker", 2)]
    assert tree.phase == "Running"


def test_volcano_job_minimum_below_task_sum_does_not_enforce_task_minimums():
    resource = load_fixture("volcano/job-task-minavailable.yaml")
    resource["spec"]["minAvailable"] = 2
    tree = inspect(resource)
    assert min_members(tree) == [2]
    assert tree.pod_groups[0].sub_groups == []


@pytest.mark.parametrize("job_min", [None, 0])
def test_volcano_job_without_minimums_gangs_all_replicas(job_min):
    resource = load_fixture("volcano/job-task-minavailable.yaml")
    for task in resource["spec"]["tasks"]:
        del task["minAvailable"]
    if job_min is not None:
        resource["spec"]["minAvailable"] = job_min
    tree = inspect(resource)
    assert min_members(tree) == [6]
    assert tree.pod_groups[0].sub_groups == []


@pytest.mark.parametrize(
    ("raw", "phase"),
    [("Pending", "Initializing"), ("Completed", "Completed"), ("Terminated", "Failed"), ("Aborted", "Suspended")],
)
def test_volcano_job_phases(raw, phase):
    resource = load_fixture("volcano/job-task-minavailable.yaml")
    resource["status"]["state"]["phase"] = raw
    assert inspect(resource).phase == phase


# ------------------------------------------------------------------------------------------- Spark


def test_spark_pod_requests_are_rebuilt_from_fragmented_fields():
    tree = inspect(load_fixture("spark/sparkapplication-python-gpu.yaml"))
    # Driver: cores 2; memory default 1024Mi + max(floor(1024 x 0.4 Python factor), 384) = 1433Mi.
    assert format_resources(component(tree, "driver").pod_resources) == {"cpu": "2", "memory": "1433Mi"}
    # Executor: coreRequest 500m; 4096Mi + floor(4096 x 0.4) = 5734Mi; gpu nvidia.com/gpu 1.
    assert format_resources(component(tree, "executor").pod_resources) == {
        "cpu": "500m",
        "memory": "5734Mi",
        "nvidia.com/gpu": "1",
    }
    assert leaves(tree) == {"driver": (1, 0), "executor": (3, 1)}
    assert (tree.totals.pods, tree.totals.gpus) == (4, 3)
    assert format_resources(tree.totals.resources)["memory"] == "18635Mi"
    assert min_members(tree) == [1]
    assert tree.phase == "Running"


def test_spark_jvm_overhead_factor_and_minimum():
    resource = load_fixture("spark/sparkapplication-python-gpu.yaml")
    resource["spec"]["type"] = "Scala"
    resource["spec"]["executor"]["memory"] = "8192"
    resource["spec"]["driver"]["memory"] = "1024"
    tree = inspect(resource)
    assert format_resources(component(tree, "executor").pod_resources)["memory"] == "9011Mi"  # 8192 + floor(819.2)
    assert (
        format_resources(component(tree, "driver").pod_resources)["memory"] == "1408Mi"
    )  # 1024 + 384 (floor(102.4) < 384)


def test_spark_memory_with_a_unit_is_a_jvm_size():
    # "4g" is a JVM size: 4096 MiB (not 4 giga-units of milli-bytes); Python app -> overhead factor 0.4:
    # max(floor(4096 x 0.4), 384) = 1638 MiB, so the pod requests 4096 + 1638 = 5734Mi.
    resource = load_fixture("spark/sparkapplication-python-gpu.yaml")
    resource["spec"]["executor"]["memory"] = "4g"
    resource["spec"]["executor"].pop("memoryOverhead", None)
    resource["spec"].pop("memoryOverheadFactor", None)
    assert format_resources(component(inspect(resource), "executor").pod_resources)["memory"] == "5734Mi"


def test_spark_memory_units_and_explicit_overhead():
    # 512m = 512 MiB; an explicit memoryOverhead of "1g" = 1024 MiB replaces the default: 1536Mi.
    resource = load_fixture("spark/sparkapplication-python-gpu.yaml")
    resource["spec"]["driver"]["memory"] = "512m"
    resource["spec"]["driver"]["memoryOverhead"] = "1g"
    assert format_resources(component(inspect(resource), "driver").pod_resources)["memory"] == "1536Mi"


def test_spark_dynamic_allocation_starts_at_the_largest_initial_target():
    resource = load_fixture("spark/sparkapplication-python-gpu.yaml")
    resource["spec"]["executor"]["instances"] = 1
    resource["spec"]["dynamicAllocation"] = {
        "enabled": True,
        "initialExecutors": 2,
        "minExecutors": 1,
        "maxExecutors": 5,
    }
    executor = component(inspect(resource), "executor")
    assert (executor.pods, executor.min_pods, executor.max_pods) == (2, 1, 5)


def test_spark_executor_instances_default_to_two():
    resource = load_fixture("spark/sparkapplication-python-gpu.yaml")
    del resource["spec"]["executor"]["instances"]
    assert component(inspect(resource), "executor").pods == 2


@pytest.mark.parametrize(
    ("raw", "phase"),
    [
        ("", "Initializing"),
        ("SUBMITTED", "Initializing"),
        ("COMPLETED", "Completed"),
        ("SUBMISSION_FAILED", "Failed"),
        ("FAILING", "Failed"),
    ],
)
def test_spark_phases(raw, phase):
    resource = load_fixture("spark/sparkapplication-python-gpu.yaml")
    resource["status"]["applicationState"]["state"] = raw
    assert inspect(resource).phase == phase


# ------------------------------------------------------------------------ CronJob, ReplicaSet, DaemonSet


def test_cronjob_runs_one_job_of_min_parallelism_completions():
    tree = inspect(load_fixture("apps/cronjob.yaml"))
    assert leaves(tree) == {"job": (2, 1)}
    assert min_members(tree) == [1]
    assert tree.phase == "Suspended"


def test_cronjob_phases_follow_schedule_and_suspend():
    resource = load_fixture("apps/cronjob.yaml")
    resource["spec"]["suspend"] = False
    assert inspect(resource).phase == "Running"
    resource["status"] = {"active": [{"name": "nightly-eval-1"}]}
    assert inspect(resource).phase == "Initializing"


def test_replicaset_pods_group_and_degraded_phase():
    tree = inspect(load_fixture("apps/replicaset.yaml"))
    assert leaves(tree) == {"pod": (3, 0)}
    assert min_members(tree) == [1]
    assert tree.phase == "Degraded"
    resource = load_fixture("apps/replicaset.yaml")
    resource["status"]["readyReplicas"] = 3
    assert inspect(resource).phase == "Running"


def test_daemonset_is_per_node():
    tree = inspect(load_fixture("apps/daemonset.yaml"))
    pod = component(tree, "pod")
    assert pod.per_node is True
    assert any("per-node" in warning for warning in tree.warnings)
    assert min_members(tree) == [1]
    assert tree.phase == "Running"
    resource = load_fixture("apps/daemonset.yaml")
    resource["status"]["numberReady"] = 2
    assert inspect(resource).phase == "Degraded"


# ----------------------------------------------------------------------------------- Slinky NodeSet


def test_nodeset_v1beta1_slurmd_container_joins_the_template():
    tree = inspect(load_fixture("slinky/nodeset-v1beta1.yaml"))
    nodeset = component(tree, "nodeset")
    assert (nodeset.pods, nodeset.gpus_per_pod) == (4, 8)
    assert format_resources(nodeset.pod_resources)["cpu"] == "96200m"
    assert tree.totals.gpus == 32
    assert min_members(tree) == [1]
    assert tree.phase == "Degraded"


def test_nodeset_daemonset_scaling_mode_is_per_node():
    resource = load_fixture("slinky/nodeset-v1beta1.yaml")
    resource["spec"]["scalingMode"] = "DaemonSet"
    tree = inspect(resource)
    assert [c.name for c in tree.components] == ["nodeset-per-node"]
    assert tree.components[0].per_node is True


def test_nodeset_v1alpha1_empty_spec_is_one_pod():
    resource = {"apiVersion": "slinky.slurm.net/v1alpha1", "kind": "NodeSet", "metadata": {"name": "s"}, "spec": None}
    tree = inspect(resource)
    assert (tree.totals.pods, tree.totals.gpus) == (1, 0)
