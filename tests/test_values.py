"""``values.to_json``: each type's converter is generated once; the JSON form is what reflection gave.

The reference below is ``to_json`` as it was written before its converters were generated per type
(dataclass fields found by reflection on every value); the contract of ``-o json`` is its output.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from enum import Enum
from fractions import Fraction
from pathlib import Path
from typing import Any

from workloadmap import inspect, load_cluster, place
from workloadmap.documents import load_objects
from workloadmap.quantities import format_resources
from workloadmap.values import as_number, camel_case, to_json


def reflected(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data: dict[str, Any] = {}
        for field in dataclasses.fields(value):
            how = field.metadata.get("json")
            if how == "omit":
                continue
            item = getattr(value, field.name)
            if how == "optional" and (item is None or item is False):
                continue  # written only when set (minSubGroup, a constraint's domains)
            unless = field.metadata.get("unless")
            if unless is not None and getattr(value, unless) is not None:
                continue  # written only when the other is not (minMember beside minSubGroup)
            data[camel_case(field.name)] = format_resources(item) if how == "quantities" else reflected(item)
        return data
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Fraction):
        return as_number(value)
    if isinstance(value, Mapping):
        return {key: reflected(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [reflected(item) for item in value]
    return value


def assert_same(data: Any) -> None:
    ours, theirs = to_json(data), reflected(data)
    assert ours == theirs
    assert repr(ours) == repr(theirs)  # the key order and the types too (1 is not 1.0 nor True)


def test_corpus_trees_and_their_placements_have_the_reflected_json_form(corpus_dir: Path):
    cluster = load_cluster("preset:nvl72-4rack")
    trees = []
    for document in load_objects(str(corpus_dir), recursive=True):
        if isinstance(document, Exception) or "recorded" in Path(document.file).parts:
            continue
        try:
            trees.append(inspect(document.body, source=document.file))
        except Exception:  # a non-workload or a refused document: not this test's subject
            continue
    assert len(trees) > 50
    for tree in trees:
        assert_same(tree)
    for tree in trees[:20]:
        assert_same(place(tree, cluster))


class Colour(Enum):
    RED = "red"


@dataclasses.dataclass
class Inner:
    amount: Fraction
    resources: dict[str, Fraction] = dataclasses.field(metadata={"json": "quantities"})
    hidden: int = dataclasses.field(default=0, metadata={"json": "omit"})


@dataclasses.dataclass
class Outer:
    min_member: int
    colour: Colour
    inners: tuple[Inner, ...]
    by_name: dict[str, Inner]
    flag: bool = False
    nothing: None = None


def test_a_new_dataclass_is_converted_as_reflection_converts_it():
    inner = Inner(Fraction(3, 2), {"cpu": Fraction(1, 2), "memory": Fraction(2**30)}, hidden=7)
    outer = Outer(4, Colour.RED, (inner, Inner(Fraction(2), {})), {"a": inner}, flag=True)
    assert_same(outer)
    assert to_json(outer)["inners"][0] == {"amount": 1.5, "resources": {"cpu": "500m", "memory": "1Gi"}}
    assert to_json(Outer) is Outer  # a class is no value to convert
