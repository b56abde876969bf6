"""Reading and writing by key path, and tracing values an expression read back into the object."""

from __future__ import annotations

import pytest
import yaml

from workloadmap.alter import Locator, delete_at, fresh_copy, get_at, set_at
from workloadmap.errors import AlterError
from workloadmap.expressions import compile_expression


def test_fresh_copy_unshares_yaml_anchors():
    # Two templates written with an anchor and an alias are one dict after safe_load; a change to
    # one must not reach the other.
    obj = yaml.safe_load(
        """
        a: &tmpl {spec: {containers: [{name: x}]}}
        b: *tmpl
        """
    )
    assert obj["a"] is obj["b"]
    copy = fresh_copy(obj)
    assert copy == obj and copy["a"] is not copy["b"]
    copy["a"]["spec"]["schedulerName"] = "kai-scheduler"
    assert "schedulerName" not in copy["b"]["spec"]


def test_get_set_delete():
    obj = {"spec": {"jobs": [{"template": {}}]}}
    set_at(obj, ("spec", "jobs", 0, "template", "metadata", "labels"), {"a": "b"})
    assert get_at(obj, ("spec", "jobs", 0, "template", "metadata", "labels", "a")) == "b"
    assert get_at(obj, ("spec", "missing", 3)) is None
    assert delete_at(obj, ("spec", "jobs", 0, "template", "metadata", "labels"))
    assert obj["spec"]["jobs"][0]["template"] == {"metadata": {}}
    assert not delete_at(obj, ("spec", "nope"))


def test_set_refuses_to_write_through_a_scalar():
    with pytest.raises(AlterError):
        set_at({"spec": "text"}, ("spec", "schedulerName"), "x")
    with pytest.raises(AlterError):
        set_at({"spec": {}}, ("spec", "jobs", 0), "x")


def test_locator_finds_what_an_expression_read():
    obj = {"spec": {"replicatedJobs": [{"name": "a", "template": {"spec": {"template": {"spec": {}}}}}]}}
    found = compile_expression("spec.replicatedJobs[0].template.spec.template").search(obj)
    assert Locator(obj).path_of(found) == ("spec", "replicatedJobs", 0, "template", "spec", "template")
    assert Locator(obj).path_of({"spec": {}}) is None  # an equal but different dict is not part of it


def test_origin_of_a_merged_copy():
    # Dynamo's definition reads v1alpha1 services as items(spec.services)[*].merge(value, {name: key}):
    # each element is a new dict holding the original service's containers.
    obj = {
        "spec": {
            "services": {
                "Frontend": {"replicas": 1, "extraPodSpec": {"mainContainer": {"image": "x"}}},
                "Worker": {"replicas": 1, "resources": {"limits": {"gpu": "1"}}},
            }
        }
    }
    elements = compile_expression("items(spec.services)[*].merge(value, {name: key})").search(obj)
    locator = Locator(obj)
    assert [locator.path_of(element) for element in elements] == [None, None]
    assert [locator.origin_of(element) for element in elements] == [
        ("spec", "services", "Frontend"),
        ("spec", "services", "Worker"),
    ]


def test_origin_is_refused_when_it_cannot_be_proven():
    obj = {"spec": {"a": {"replicas": 1}, "b": {"replicas": 1}}}
    # Only scalars: no container ties the copy to one place.
    assert Locator(obj).origin_of({"replicas": 1, "name": "a"}) is None
    # A container that moved under another key is not an original's entry.
    shared = {"x": 1}
    obj = {"spec": {"a": {"conf": shared, "replicas": 2}}}
    assert Locator(obj).origin_of({"conf": shared, "replicas": 3}) is None
