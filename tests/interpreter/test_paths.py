"""PathIndex: where a template or an instance list sits in the resource, by identity."""

from __future__ import annotations

import pytest

from workloadmap.interpreter.paths import PathIndex

_LWS = {
    "spec": {
        "leaderWorkerTemplate": {
            "workerTemplate": {"spec": {"containers": [{"name": "w"}]}},
        },
        "replicatedJobs": [{"name": "a"}, {"name": "b"}],
    }
}


@pytest.mark.parametrize(
    ("via", "target"),
    [
        ("spec.leaderWorkerTemplate.workerTemplate", ("spec", "leaderWorkerTemplate", "workerTemplate")),
        # a choice of plain paths: the one that gives the object itself
        (
            "spec.leaderWorkerTemplate.leaderTemplate || spec.leaderWorkerTemplate.workerTemplate",
            ("spec", "leaderWorkerTemplate", "workerTemplate"),
        ),
        # not a plain path: found by the search all the same
        ("(spec.leaderWorkerTemplate).workerTemplate", ("spec", "leaderWorkerTemplate", "workerTemplate")),
        # a plain path that gives another object than the one asked about: the search decides
        ("spec.leaderWorkerTemplate", ("spec", "leaderWorkerTemplate", "workerTemplate")),
    ],
)
def test_find_follows_plain_paths_and_falls_back_to_the_search(via, target):
    node = _LWS
    for key in target:
        node = node[key]
    assert PathIndex(_LWS).find(node, _LWS, via) == list(target)


def test_an_object_made_by_an_expression_has_no_path():
    made = {"spec": _LWS["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]}
    assert PathIndex(_LWS).find(made, _LWS, "spec.leaderWorkerTemplate.workerTemplate") is None


def test_note_items_records_each_instance_of_a_list_given_by_a_plain_path():
    index = PathIndex(_LWS)
    jobs = _LWS["spec"]["replicatedJobs"]
    index.note_items(jobs, _LWS, "spec.replicatedJobs")
    assert index.find(jobs[1]) == ["spec", "replicatedJobs", 1]
    assert index._walked is False  # no walk of the whole resource was needed


def test_a_value_that_is_not_a_container_gets_no_place():
    # True (or a small int) is one object wherever it appears: a place recorded for it would be
    # wrong for every other field that holds it (an error would name the wrong field).
    resource = {"a": {"x": True}, "b": {"y": True}}
    index = PathIndex(resource)
    assert index.find(True, resource, "a.x") is None
    assert index.find(True, resource, "b.y") is None
