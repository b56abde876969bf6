"""What a user may ask `wmap alter` for: tolerations, labels, names, checked the way the API server checks them.

Expected values follow Kubernetes' own rules: a toleration with no value is operator Exists and one
with a value is Equal (core/v1 Toleration); label keys are qualified names and label values at most
63 characters of [A-Za-z0-9-_.] starting and ending alphanumeric (apimachinery validation
IsQualifiedName / IsValidLabelValue); schedulerName and priorityClassName are DNS subdomains.
"""

from __future__ import annotations

import pytest

from workloadmap.alter import Changes, NodeRequirement, Toleration, check_label


@pytest.mark.parametrize(
    "text, pod",
    [
        ("nvidia.com/gpu:NoSchedule", {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}),
        (
            "nvidia.com/gpu=present:NoSchedule",
            {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        ),
        ("dedicated=ml", {"key": "dedicated", "operator": "Equal", "value": "ml"}),
        (
            "node.kubernetes.io/unreachable:NoExecute",
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
        ),
        ("spot", {"key": "spot", "operator": "Exists"}),
    ],
)
def test_tolerations_parse_as_kubectl_taint_writes_them(text, pod):
    assert Toleration.parse(text).to_pod() == pod


@pytest.mark.parametrize(
    "text", [":NoSchedule", "=x:NoSchedule", "gpu:Sometimes", "bad key:NoSchedule", "k=bad value:NoSchedule"]
)
def test_bad_tolerations_are_refused(text):
    with pytest.raises(ValueError):
        Toleration.parse(text)


@pytest.mark.parametrize(
    "key, value, ok",
    [
        ("app", "web", True),
        ("kai.scheduler/queue", "team-a", True),
        ("example.com/a_b.c", "", True),
        ("a" * 63, "v", True),
        ("a" * 64, "v", False),  # the name part is at most 63 characters
        ("Example.com/x", "v", False),  # the prefix is a lower-case DNS subdomain
        ("app", "-web", False),  # values start and end alphanumeric
        ("app", "v" * 64, False),
        ("a/b/c", "v", False),
    ],
)
def test_label_syntax_follows_the_api_server(key, value, ok):
    if ok:
        check_label(key, value)
    else:
        with pytest.raises(ValueError):
            check_label(key, value)


def test_queue_labels_the_object_for_kai_and_kueue():
    # KAI reads kai.scheduler/queue on the top owner (pod-grouper CalcPodGroupQueue); Kueue reads
    # kueue.x-k8s.io/queue-name on the job object (controllerconstants.QueueLabel).
    changes = Changes(queue="team-a", labels={"app": "train"})
    assert changes.object_labels == {
        "app": "train",
        "kai.scheduler/queue": "team-a",
        "kueue.x-k8s.io/queue-name": "team-a",
    }
    assert changes.pod_fields == ()


def test_pod_fields_name_what_is_asked_for():
    changes = Changes(
        scheduler_name="kai-scheduler",
        tolerations=(Toleration.parse("nvidia.com/gpu:NoSchedule"),),
        pod_labels={"a": "b"},
        node_affinity=(NodeRequirement("rack", ("r1",)),),
    )
    assert changes.pod_fields == ("labels", "schedulerName", "tolerations", "affinity")
    assert not changes.empty
    assert Changes().empty
    assert not Changes(suspend=False).empty


@pytest.mark.parametrize(
    "kwargs",
    [
        {"scheduler_name": "Kai Scheduler"},
        {"priority_class": "High_Priority"},
        {"queue": "q" * 64},
        {"labels": {"app": "bad value"}},
        {"node_selector": {"bad key!": "x"}},
        {"pod_annotations": {"-bad": "x"}},
    ],
)
def test_invalid_changes_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        Changes(**kwargs)


def test_misuse_raises_type_error():
    with pytest.raises(TypeError):
        Changes(tolerations=("nvidia.com/gpu:NoSchedule",))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Changes(annotations={"a": 1})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        Changes(suspend="yes")  # type: ignore[arg-type]


def test_node_requirement_is_a_required_in_expression():
    assert NodeRequirement("accelerator.topograph.run/domain", ("nvl-001",)).to_pod() == {
        "key": "accelerator.topograph.run/domain",
        "operator": "In",
        "values": ["nvl-001"],
    }
    with pytest.raises(ValueError):
        NodeRequirement("rack", ())
