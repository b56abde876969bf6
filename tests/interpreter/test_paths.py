"""PathIndex: where a template or an instance list sits in the resource, by identity."""

from __future__ import annotations

import pytest

from workloadmap.errors import parse_path
from workloadmap.expressions import compile_expression
from workloadmap.interpreter.paths import PathIndex

_LWS = {
    "spec": {
        "leaderWorkerTemplate": {
            "workerTemplate": {"spec": {"containers": [{"name": "w"}]}},
        },
        "replicatedJobs": [{"name": "a"}, {"name": "b"}],
    }
}


def _origins(source: str):
    return compile_expression(source).origins


@pytest.mark.parametrize(
    ("via", "target"),
    [
        ("spec.leaderWorkerTemplate.workerTemplate", ("spec", "leaderWorkerTemplate", "workerTemplate")),
        # a choice of paths: the one that gives the object itself
        (
            "spec.leaderWorkerTemplate.leaderTemplate || spec.leaderWorkerTemplate.workerTemplate",
            ("spec", "leaderWorkerTemplate", "workerTemplate"),
        ),
        ("(spec.leaderWorkerTemplate).workerTemplate", ("spec", "leaderWorkerTemplate", "workerTemplate")),
        # origins unknown (a pipe): found by the search all the same
        ("spec.leaderWorkerTemplate | workerTemplate", ("spec", "leaderWorkerTemplate", "workerTemplate")),
    ],
)
def test_find_follows_the_origins_and_falls_back_to_the_search(via, target):
    node = _LWS
    for key in target:
        node = node[key]
    assert PathIndex(_LWS).find(node, _LWS, _origins(via)) == list(target)


def test_an_object_made_by_an_expression_has_no_path():
    made = {"spec": _LWS["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]}
    assert PathIndex(_LWS).find(made, _LWS, _origins("spec.leaderWorkerTemplate.workerTemplate")) is None


def test_note_items_records_each_instance_of_a_list_given_by_a_plain_path():
    index = PathIndex(_LWS)
    jobs = _LWS["spec"]["replicatedJobs"]
    index.note_items(jobs, _LWS, _origins("spec.replicatedJobs"))
    assert index.find(jobs[1]) == ["spec", "replicatedJobs", 1]
    assert index._walked is False  # no walk of the whole resource was needed


def test_a_value_that_is_not_a_container_gets_no_place():
    # True (or a small int) is one object wherever it appears: a place recorded for it would be
    # wrong for every other field that holds it (an error would name the wrong field).
    resource = {"a": {"x": True}, "b": {"y": True}}
    index = PathIndex(resource)
    assert index.find(True, resource, _origins("a.x")) is None
    assert index.find(True, resource, _origins("b.y")) is None


def _clique(name: str, cpu: str, cliques_key: str = "podSpec") -> dict:
    return {
        "name": name,
        "spec": {"replicas": 1, cliques_key: {"containers": [{"name": "m", "resources": {"limits": {"cpu": cpu}}}]}},
    }


@pytest.mark.parametrize(
    ("scaling_groups", "field"),
    [
        # omit(): the cliques outside every scaling group, a list the expression made
        ([], "spec.template.cliques[1].spec.podSpec.containers[0].resources.limits.cpu"),
        # pick() inside a scaling group, read from root(): the element is found from the top
        (
            [{"name": "sg", "cliqueNames": ["b"]}],
            "spec.template.cliques[1].spec.podSpec.containers[0].resources.limits.cpu",
        ),
    ],
)
def test_an_error_inside_an_element_of_a_made_list_names_the_element_field(scaling_groups, field):
    # An instance list an expression made (a filter, pick(), omit()) is no part of the resource and
    # is not searched for; the place of a bad element's spec is worked out when the error needs it.
    from workloadmap.errors import InputError
    from workloadmap.interpreter import inspect

    pcs = {
        "apiVersion": "grove.io/v1alpha1",
        "kind": "PodCliqueSet",
        "metadata": {"name": "g"},
        "spec": {
            "template": {"cliques": [_clique("a", "1"), _clique("b", "2x")], "podCliqueScalingGroups": scaling_groups}
        },
    }
    with pytest.raises(InputError) as caught:
        inspect(pcs)
    assert caught.value.location.path == parse_path(field)
    assert "invalid quantity '2x'" in str(caught.value)


def test_an_error_in_a_template_made_for_an_element_of_a_filtered_list_names_the_element():
    # A Dynamo component's pod template is made by the definition (podTemplate || {...}) around the
    # component's resources, and the components come through a filter (a list the expression made):
    # a bad quantity still names the component it was read from.
    from workloadmap.errors import InputError
    from workloadmap.interpreter import inspect

    dgd = {
        "apiVersion": "nvidia.com/v1alpha1",
        "kind": "DynamoGraphDeployment",
        "metadata": {"name": "d"},
        "spec": {
            "components": [
                {"name": "Frontend", "replicas": 1},
                {"name": "Worker", "replicas": 1, "resources": {"requests": {"cpu": "2x"}}},
            ]
        },
    }
    with pytest.raises(InputError) as caught:
        inspect(dgd)
    assert "invalid quantity '2x'" in str(caught.value)
    assert caught.value.location.path[:3] == ("spec", "components", 1)


@pytest.mark.parametrize(
    ("pod_spec_extra", "field"),
    [
        ({"tolerations": [{"key": "a", "operator": "Sideways"}]}, "spec.template.spec.tolerations[0].operator"),
        ({"nodeSelector": "gpu"}, "spec.template.spec.nodeSelector"),
    ],
)
def test_a_bad_node_filter_names_its_field_in_the_template(pod_spec_extra, field):
    # Node filters are read without the spec's place and read again at it only for an error: the
    # error must still name the field inside the pod template (the API server's own path).
    from workloadmap.errors import InputError
    from workloadmap.interpreter import inspect

    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j"},
        "spec": {"template": {"spec": {"containers": [{"name": "c"}], **pod_spec_extra}}},
    }
    with pytest.raises(InputError) as caught:
        inspect(job)
    assert caught.value.location.path == parse_path(field)


def test_with_origins_a_made_object_is_not_searched_for():
    # `spec.leaderWorkerTemplate.leaderTemplate || {spec: ...}`: only the field can be the input's;
    # an object not there was made by the expression, and the resource is not walked to prove it.
    index = PathIndex(_LWS)
    made = {"spec": {"containers": []}}
    assert index.find(made, _LWS, [("spec", "leaderWorkerTemplate", "leaderTemplate")]) is None
    assert index._walked is False


def test_with_origins_the_object_at_one_of_them_gets_its_path_without_a_search():
    index = PathIndex(_LWS)
    worker = _LWS["spec"]["leaderWorkerTemplate"]["workerTemplate"]
    origins = [("spec", "leaderWorkerTemplate", "leaderTemplate"), ("spec", "leaderWorkerTemplate", "workerTemplate")]
    assert index.find(worker, _LWS, origins) == ["spec", "leaderWorkerTemplate", "workerTemplate"]
    assert len(index._known) == 2  # the root and the template: nothing else was visited


def test_note_items_skips_a_list_made_by_the_expression():
    index = PathIndex(_LWS)
    made = [dict(job) for job in _LWS["spec"]["replicatedJobs"]]
    index.note_items(made, _LWS, [("spec", "replicatedJobs")])
    assert id(made[0]) not in index._known and index._walked is False
