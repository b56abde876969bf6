"""The scheduler's rules around the flavor assigner: queue order, StrictFIFO, pre-checks, checks, API versions.

Each rule cites the Kueue code it follows; the dumps are written as kubectl prints them.
"""

from __future__ import annotations

from helpers.admission import admit_json, admitted_workload, cluster_queue, flavor, job, local_queue, priority_class

BASE = [flavor("default"), local_queue("lq", "cq")]


def test_priority_then_creation_time_each_taking_quota_in_turn(tmp_path):
    # cluster_queue.go baseCompareFunc: higher priority first, then earlier creation; quota is
    # taken in turn (processEntry cq.AddUsage), so the third does not fit the 4 cpus.
    objects = [*BASE, cluster_queue("cq", {"default": {"cpu": 4}}), priority_class({"name": "high", "value": 10})]
    workloads = [
        job({"name": "late", "requests": {"cpu": "2"}, "created": "2026-01-02T00:00:00Z"}),
        job({"name": "early", "requests": {"cpu": "2"}, "created": "2026-01-01T00:00:00Z"}),
        job({"name": "urgent", "requests": {"cpu": "2"}, "created": "2026-01-03T00:00:00Z", "priorityClass": "high"}),
    ]
    result, items = admit_json(tmp_path, objects, workloads)
    assert result.exit_code == 0, result.output
    assert list(items) == ["urgent", "early", "late"]
    assert [items[name]["verdict"] for name in items] == ["admitted", "admitted", "pending"]
    assert items["late"]["reasons"] == [
        "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed"
    ]


def test_strict_fifo_head_blocks_the_queue_best_effort_does_not(tmp_path):
    # cluster_queue.go requeue: StrictFIFO keeps the head in front; BestEffortFIFO parks it.
    workloads = [
        job({"name": "big", "requests": {"cpu": "8"}, "created": "2026-01-01T00:00:00Z"}),
        job({"name": "small", "requests": {"cpu": "1"}, "created": "2026-01-02T00:00:00Z"}),
    ]
    strict = [*BASE, cluster_queue("cq", {"default": {"cpu": 4}}, queueingStrategy="StrictFIFO")]
    _, items = admit_json(tmp_path, strict, workloads)
    assert items["big"]["reason"] == "ExceedsMaxQuota"
    assert items["small"]["verdict"] == "pending"
    assert items["small"]["reasons"][0].startswith("behind default/Job/big in StrictFIFO ClusterQueue cq")
    best_effort = [*BASE, cluster_queue("cq", {"default": {"cpu": 4}})]
    _, items = admit_json(tmp_path, best_effort, workloads)
    assert items["small"]["verdict"] == "admitted"


def test_precheck_messages_are_kueues(tmp_path):
    # workload_controller.go getQueueBlocker and the reconciler's stopped checks; clusterqueue.go inactiveReason.
    cases = [
        ([flavor("default"), cluster_queue("cq", {"default": {"cpu": 4}})],
         "LocalQueue lq doesn't exist", "Misconfigured"),
        ([*BASE[:1], local_queue("lq", "cq", stopPolicy="Hold"), cluster_queue("cq", {"default": {"cpu": 4}})],
         "LocalQueue lq is stopped", "Suspended"),
        ([*BASE], "ClusterQueue cq doesn't exist", "Misconfigured"),
        ([*BASE, cluster_queue("cq", {"default": {"cpu": 4}}, stopPolicy="HoldAndDrain")],
         "ClusterQueue cq is stopped", "Suspended"),
        ([local_queue("lq", "cq"), cluster_queue("cq", {"default": {"cpu": 4}})],
         "ClusterQueue cq is inactive", "Suspended"),
    ]  # fmt: skip
    for objects, message, reason in cases:
        _, items = admit_json(tmp_path, objects, [job({"name": "wl", "requests": {"cpu": "1"}})])
        assert (items["wl"]["verdict"], items["wl"]["reason"], items["wl"]["reasons"][0]) == (
            "inadmissible", reason, message
        )  # fmt: skip
    # The inactive queue also says why, as its Active condition does.
    assert items["wl"]["reasons"][1] == "Can't admit new workloads: references missing ResourceFlavor(s): default."


def test_namespace_selector_left_out_selects_nothing(tmp_path):
    # clusterqueue_types.go: "Defaults to null which is a nothing selector (no namespaces eligible)".
    queue = cluster_queue("cq", {"default": {"cpu": 4}})
    del queue["spec"]["namespaceSelector"]
    _, items = admit_json(tmp_path, [*BASE, queue], [job({"name": "wl", "requests": {"cpu": "1"}})])
    assert items["wl"]["reasons"] == ["workload namespace doesn't match ClusterQueue selector"]


def test_selector_needs_the_namespace_labels_else_unknown(tmp_path):
    queue = cluster_queue("cq", {"default": {"cpu": 4}}, namespaceSelector={"matchLabels": {"team": "a"}})
    _, items = admit_json(tmp_path, [*BASE, queue], [job({"name": "wl", "requests": {"cpu": "1"}})])
    assert items["wl"]["verdict"] == "unknown"
    assert "namespace default is not among the queue objects" in items["wl"]["reasons"][0]
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default", "labels": {"team": "a"}}}
    _, items = admit_json(tmp_path, [*BASE, queue, namespace], [job({"name": "wl", "requests": {"cpu": "1"}})])
    assert items["wl"]["verdict"] == "admitted"


def test_default_local_queue_and_no_queue_at_all(tmp_path):
    # jobframework/defaults.go ApplyDefaultLocalQueue: the namespace's LocalQueue "default".
    objects = [flavor("default"), local_queue("default", "cq"), cluster_queue("cq", {"default": {"cpu": 4}})]
    unlabelled = job({"name": "wl", "requests": {"cpu": "1"}})
    del unlabelled["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]
    _, items = admit_json(tmp_path, objects, [unlabelled])
    assert (items["wl"]["localQueue"], items["wl"]["verdict"]) == ("default", "admitted")
    _, items = admit_json(tmp_path, [*BASE, cluster_queue("cq", {"default": {"cpu": 4}})], [unlabelled])
    assert items["wl"]["verdict"] == "unknown" and "manageJobsWithoutQueueName" in items["wl"]["reasons"][0]


def test_admission_checks_are_reported_as_a_wait(tmp_path):
    strategy = {"admissionChecks": [{"name": "prov-req"}]}
    queue = cluster_queue("cq", {"default": {"cpu": 4}}, admissionChecksStrategy=strategy)
    _, items = admit_json(tmp_path, [*BASE, queue], [job({"name": "wl", "requests": {"cpu": "1"}})])
    assert items["wl"]["verdict"] == "admitted"
    assert items["wl"]["reasons"][1].startswith("would wait for admission check(s) prov-req before it is admitted")


def test_unknown_priority_class_is_unknown(tmp_path):
    objects = [*BASE, cluster_queue("cq", {"default": {"cpu": 4}})]
    _, items = admit_json(tmp_path, objects, [job({"name": "wl", "requests": {"cpu": "1"}, "priorityClass": "gold"})])
    assert items["wl"]["verdict"] == "unknown"
    assert items["wl"]["reasons"] == [
        'WorkloadPriorityClass "gold" is not among the queue objects: its priority is unknown'
    ]


def test_v1beta1_objects_read_as_v1beta2(tmp_path):
    # apis/kueue/v1beta1/clusterqueue_conversion.go: cohort -> cohortName, admissionChecks -> strategy,
    # whenCanBorrow Borrow -> MayStopSearch.
    queue = cluster_queue("cq", {"default": {"cpu": 2}}, cohort="pool", admissionChecks=["check"],
                          flavorFungibility={"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"})  # fmt: skip
    queue["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    other = cluster_queue("other", {"default": {"cpu": 4}}, cohort="pool")
    other["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    _, items = admit_json(tmp_path, [*BASE, queue, other], [job({"name": "wl", "requests": {"cpu": "3"}})])
    assert items["wl"]["verdict"] == "admitted"
    assert items["wl"]["podSets"][0]["borrowing"] is True  # 3 > 2 nominal: borrowed from the cohort
    assert "admission check(s) check" in items["wl"]["reasons"][1]


def test_the_dump_workload_of_a_given_job_is_not_counted_twice(tmp_path):
    used = admitted_workload({"name": "job-wl-1", "queue": "cq", "flavors": {"cpu": "default"}, "usage": {"cpu": "4"}})
    used["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "wl", "controller": True}]
    objects = [*BASE, cluster_queue("cq", {"default": {"cpu": 4}}), used]
    result, items = admit_json(tmp_path, objects, [job({"name": "wl", "requests": {"cpu": "4"}})])
    assert items["wl"]["verdict"] == "admitted"
    assert "stand for the workloads given" in result.stderr


def test_a_pending_workload_of_the_dump_queues_ahead(tmp_path):
    # An older pending Workload of the same priority is taken first and uses the quota.
    pending = admitted_workload({"name": "older", "queue": "cq", "flavors": {"cpu": "default"}, "usage": {"cpu": "3"}})
    pending["status"] = {}
    pending["spec"]["queueName"] = "lq"
    objects = [*BASE, cluster_queue("cq", {"default": {"cpu": 4}}), pending]
    result, items = admit_json(tmp_path, objects, [job({"name": "wl", "requests": {"cpu": "2"}})])
    assert items["wl"]["verdict"] == "pending"
    assert "1 pending Workload(s) of the dump queued in their turn (1 of them admitted)" in result.stderr


def test_queue_status_beyond_the_dumps_workloads_counts_as_used(tmp_path):
    queue = cluster_queue("cq", {"default": {"cpu": 4}})
    queue["status"] = {"flavorsReservation": [{"name": "default", "resources": [{"name": "cpu", "total": "3"}]}]}
    result, items = admit_json(tmp_path, [*BASE, queue], [job({"name": "wl", "requests": {"cpu": "2"}})])
    assert items["wl"]["verdict"] == "pending"
    assert "its status reserves more than its Workloads in the dump hold" in result.stderr


def test_finished_and_inactive_workloads_hold_no_quota(tmp_path):
    # workload.go HasActiveQuotaReservation: QuotaReserved, not Finished, spec.active.
    finished = admitted_workload({"name": "done", "queue": "cq", "flavors": {"cpu": "default"}, "usage": {"cpu": "4"}})
    finished["status"]["conditions"].append({"type": "Finished", "status": "True", "reason": "Succeeded"})
    inactive = admitted_workload({"name": "off", "queue": "cq", "flavors": {"cpu": "default"}, "usage": {"cpu": "4"}})
    inactive["spec"]["active"] = False
    objects = [*BASE, cluster_queue("cq", {"default": {"cpu": 4}}), finished, inactive]
    _, items = admit_json(tmp_path, objects, [job({"name": "wl", "requests": {"cpu": "4"}})])
    assert items["wl"]["verdict"] == "admitted"
