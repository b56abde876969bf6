"""``-o json`` is written by ``output.json_text``: the bytes ``json.dumps(data, indent=2)`` writes.

The contract of machine output is Python's own ``json.dumps(indent=2)`` (what every release so far
printed); the writer exists only for speed, so each case compares the two.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path

import pytest

from workloadmap import inspect
from workloadmap.cli.printing.output import dump, json_text
from workloadmap.documents import load_objects


class Colour(str, enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    ONE = 1


DEEP: list = [1]
for _ in range(70):  # past the writer's table of indents
    DEEP = [DEEP]

CASES = [
    {},
    [],
    "",
    0,
    None,
    True,
    {"a": []},
    [{}],
    {"x": {"y": {"z": [[[]]]}}},
    [float("nan"), float("inf"), -float("inf"), 1e300, -0.0, 0.1, 2**70, -(2**70)],
    ["é", "\u2028", '\n\t"\\', "\x00\x1f", "😀"],
    {2: 2, True: 3, None: 4, 1.5: 5, False: [1]},
    (1, (2, [3])),
    {"deep": DEEP},
    [Colour.RED, Level.ONE, {Colour.RED: Level.ONE, Level.ONE: Colour.RED}],
]


@pytest.mark.parametrize("data", CASES, ids=range(len(CASES)))
def test_the_text_is_what_json_dumps_writes(data):
    assert json_text(data) == json.dumps(data, indent=2)
    assert dump(data, "json") == json.dumps(data, indent=2) + "\n"


@pytest.mark.parametrize("data", [object(), {(1,): 2}, {1j: 1}, [b"bytes"], {"a": {1, 2}}])
def test_what_json_dumps_refuses_is_refused(data):
    with pytest.raises(TypeError):
        json.dumps(data, indent=2)
    with pytest.raises(TypeError):
        json_text(data)


def test_every_corpus_tree_is_written_as_json_dumps_writes_it(corpus_dir: Path):
    trees = []
    for document in load_objects(str(corpus_dir), recursive=True):
        if isinstance(document, Exception) or "recorded" in Path(document.file).parts:
            continue
        try:
            trees.append(inspect(document.body, source=document.file).to_dict())
        except Exception:  # a non-workload or a refused document: not this test's subject
            continue
    assert len(trees) > 50
    document = {"kind": "List", "apiVersion": "v1", "items": trees}
    assert json_text(document) == json.dumps(document, indent=2)
