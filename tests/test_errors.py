"""The exception tree and its structured locations (workloadmap.errors)."""

from __future__ import annotations

import pickle

import pytest

from workloadmap import errors
from workloadmap.errors import InputError, Location, NoDefinitionError, WorkloadMapError, format_path, parse_path


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("spec.replicas", ("spec", "replicas")),
        ("spec.replicatedJobs[0].template", ("spec", "replicatedJobs", 0, "template")),
        ("items[3]", ("items", 3)),
    ],
)
def test_paths_round_trip(text, path):
    assert parse_path(text) == path
    assert format_path(path) == text


def test_location_is_rendered_once_on_one_line():
    error = InputError("replicas must be a whole number,\n got 'x'", file="job.yaml", document="#2 (Job/a)")
    error.located(field=("spec", "parallelism"))
    error.located(file="other.yaml", field="ignored")  # known parts are kept
    assert (
        str(error) == "job.yaml, document #2 (Job/a), field spec.parallelism: replicas must be a whole number, got 'x'"
    )
    assert error.location == Location("job.yaml", "#2 (Job/a)", ("spec", "parallelism"))
    assert error.field == "spec.parallelism"


def test_every_error_class_derives_from_the_root_and_is_drawn_in_the_docstring():
    classes = [
        value
        for value in vars(errors).values()
        if isinstance(value, type) and issubclass(value, Exception) and value.__module__ == errors.__name__
    ]
    assert len(classes) >= 12
    for cls in classes:
        assert issubclass(cls, WorkloadMapError)
        assert cls.__name__ in errors.__doc__, f"{cls.__name__} is missing from the tree in the module docstring"


def test_exit_codes_and_pickling_keep_the_location():
    error = NoDefinitionError("no definition", api_version="x/v1", kind="Thing", file="f.yaml")
    assert error.exit_code == 4
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.kind) == (NoDefinitionError, str(error), "Thing")
