"""A seeded mutation engine over real manifests: the inputs the fuzz suite feeds wmap.

Each case starts from a corpus document and applies one or two mutations, chosen by a
``random.Random(seed)``, so a failing case is reproduced from its seed alone. Mutations target
the classes of bad input that reach real users: wrong types where scalars are expected (and the
reverse), huge and non-ASCII numbers, negative/fractional/astronomic quantities, explicit YAML
tags with bad values, deep nesting, duplicated keys, lists multiplied many times, and (issue 16)
counts whose products pass every budget, segments of one pod, and names that forge output.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
HUGE_DIGITS = "9" * 5000
SCALARS: list[Any] = [
    None, True, False, 0, -1, -3, 2.5, 1e308, -1e308, float("inf"), "", " ", "abc", "3", "-2", "1.5",
    "²", "٣", "１２", HUGE_DIGITS, "1" + "0" * 30, "1e999", "1e-999", "9" * 30 + "Ei", "-5Gi", "0.0001m",
    "nan", "Infinity", [], {}, [1, 2], {"a": 1}, "x" * 10000,
]  # fmt: skip
TAGGED = [
    "!!int abc", "!!float abc", "!!timestamp not-a-time", "!!binary ???", "!!bool maybe", "!!null x",
    "!!int " + HUGE_DIGITS, "!!str 3", "!!python/object:os.system echo", "!!set {a, b}", "!!omap [a, b]",
]  # fmt: skip


@dataclass(frozen=True)
class Case:
    """One fuzz input: where it came from, the seed, what was done, and the text to read."""

    source: str
    seed: int
    mutations: tuple[str, ...]
    text: str


def _paths(root: Any) -> Iterator[tuple[tuple[Any, ...], Any]]:
    stack: list[tuple[tuple[Any, ...], Any]] = [((), root)]
    while stack:
        prefix, node = stack.pop()
        yield prefix, node
        if len(prefix) > 60:
            continue  # deep enough to pick from; deeper nests are left whole
        if isinstance(node, dict):
            stack.extend(((*prefix, key), value) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend(((*prefix, index), value) for index, value in enumerate(node))


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = root
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return root


def _replace_scalar(rng: random.Random, body: Any) -> tuple[Any, str]:
    candidates = [(path, value) for path, value in _paths(body) if path and not isinstance(value, (dict, list))]
    if not candidates:
        return body, "none"
    path, _ = rng.choice(candidates)
    value = copy.deepcopy(rng.choice(SCALARS))
    return _set(body, path, value), f"scalar {path} -> {str(value)[:20]!r}"


def _replace_container(rng: random.Random, body: Any) -> tuple[Any, str]:
    candidates = [path for path, value in _paths(body) if path and isinstance(value, (dict, list))]
    if not candidates:
        return body, "none"
    path = rng.choice(candidates)
    value = copy.deepcopy(rng.choice(SCALARS))
    return _set(body, path, value), f"container {path} -> {str(value)[:20]!r}"


def _multiply_list(rng: random.Random, body: Any) -> tuple[Any, str]:
    candidates = [path for path, value in _paths(body) if isinstance(value, list) and value]
    if not candidates:
        return body, "none"
    path = rng.choice(candidates)
    node = body
    for key in path:
        node = node[key]
    # A few MB of text at most: the size of a large real manifest, not a memory test of the engine.
    factor = min(rng.choice([10, 100, 1000, 5000]), max(1, 20_000 // len(node)))
    node[:] = [copy.deepcopy(item) for item in node for _ in range(factor)]
    return body, f"multiply {path} x{factor}"


def _delete_key(rng: random.Random, body: Any) -> tuple[Any, str]:
    candidates = [path for path, _ in _paths(body) if path and isinstance(path[-1], str)]
    if not candidates:
        return body, "none"
    path = rng.choice(candidates)
    node = body
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return body, f"delete {path}"


def _deepen(rng: random.Random, body: Any) -> tuple[Any, str]:
    candidates = [path for path, _ in _paths(body) if path]
    if not candidates:
        return body, "none"
    path = rng.choice(candidates)
    depth = rng.choice([50, 300, 3000])
    value: Any = "x"
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"k": value}
    return _set(body, path, value), f"deepen {path} x{depth}"


COUNT_KEYS = ("replicas", "size", "parallelism", "completions", "numOfHosts", "minAvailable", "maxReplicas")
HOSTILE_NAMES = [
    "evil\nTotals: 0 pods",
    "\x1b[2J\x1b[31mred",
    "a\u202eb",
    "UPPER_case",
    "x" * 300,
    "tab\tname",
    "-dash-",
]


def _explode_count(rng: random.Random, body: Any) -> tuple[Any, str]:
    """A count field at ten million (each field alone is within limits; their products are not)."""
    candidates = [path for path, value in _paths(body) if path and path[-1] in COUNT_KEYS]
    if not candidates:
        return body, "none"
    paths = rng.sample(candidates, min(len(candidates), rng.choice([1, 2, 3])))
    for path in paths:
        _set(body, path, 10_000_000)
    return body, f"explode {paths}"


def _segment(rng: random.Random, body: Any) -> tuple[Any, str]:
    """KAI segment annotations of size 1 (or 2) on the object and every pod template's metadata."""
    size = rng.choice(["1", "2"])
    targets = [body] + [value for _, value in _paths(body) if isinstance(value, dict) and "spec" in value]
    for target in targets:
        metadata = target.setdefault("metadata", {}) if isinstance(target.get("metadata", {}), dict) else None
        if metadata is not None:
            annotations = metadata.setdefault("annotations", {})
            if isinstance(annotations, dict):
                annotations["kai.scheduler/segment-size"] = size
    return body, f"segment-size {size}"


def _hostile_name(rng: random.Random, body: Any) -> tuple[Any, str]:
    """Names with newlines, escape sequences, bidi overrides, or simply invalid for Kubernetes."""
    metadata = body.get("metadata") if isinstance(body, dict) else None
    if not isinstance(metadata, dict):
        return body, "none"
    key = rng.choice(["name", "namespace"])
    metadata[key] = rng.choice(HOSTILE_NAMES)
    return body, f"hostile {key}"


FAIL_SAFE_MUTATIONS: list[Callable[[random.Random, Any], tuple[Any, str]]] = [_explode_count, _segment, _hostile_name]
"""Issue 16's classes: products of counts beyond every budget, segments of one pod, names that forge output."""

OBJECT_MUTATIONS: list[Callable[[random.Random, Any], tuple[Any, str]]] = [
    _replace_scalar, _replace_scalar, _replace_scalar, _replace_container, _multiply_list, _delete_key, _deepen,
    *FAIL_SAFE_MUTATIONS,
]  # fmt: skip


def _text_mutation(rng: random.Random, text: str) -> tuple[str, str]:
    lines = text.splitlines()
    scalar_lines = [i for i, line in enumerate(lines) if ": " in line and not line.rstrip().endswith(":")]
    if not scalar_lines:
        return text, "none"
    index = rng.choice(scalar_lines)
    key = lines[index].split(": ", 1)[0]
    choice = rng.randrange(4)
    if choice == 0:
        lines[index] = f"{key}: {rng.choice(TAGGED)}"
        what = f"tag line {index}"
    elif choice == 1:
        lines.insert(index + 1, lines[index])  # a duplicate key
        what = f"duplicate key line {index}"
    elif choice == 2:
        lines[index] = f"{key}: {HUGE_DIGITS}"
        what = f"huge int line {index}"
    else:
        lines[index] = f"{key}: &a [*a]"
        what = f"self alias line {index}"
    return "\n".join(lines) + "\n", what


def corpus_documents(corpus: Path) -> list[tuple[str, Any]]:
    """Every workload document of the corpus (recorded flows and Karta definitions left out)."""
    documents = []
    for path in sorted(corpus.rglob("*.yaml")):
        if "recorded" in path.parts or "karta" in path.parts:
            continue
        for body in yaml.safe_load_all(path.read_text()):
            if isinstance(body, dict) and body.get("kind"):
                documents.append((str(path.relative_to(corpus)), body))
    return documents


def make_case(
    documents: list[tuple[str, Any]],
    seed: int,
    mutations: list[Callable[[random.Random, Any], tuple[Any, str]]] | None = None,
) -> Case:
    """The case of ``seed``: a corpus document with one or two mutations, as YAML (or JSON) text.

    ``mutations`` chooses among fewer mutations (default: :data:`OBJECT_MUTATIONS`).
    """
    rng = random.Random(seed)
    mutations = mutations or OBJECT_MUTATIONS
    source, body = documents[rng.randrange(len(documents))]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))  # copy and the dumpers recurse once per level of nesting
    try:
        body = copy.deepcopy(body)
        applied = []
        for _ in range(rng.choice([1, 1, 2])):
            body, what = rng.choice(mutations)(rng, body)
            applied.append(what)
        if rng.random() < 0.15:
            text = json.dumps(body, default=str)
        else:
            try:
                text = yaml.dump(body, Dumper=_DUMPER, sort_keys=False, width=10_000)
            except (ValueError, OverflowError, yaml.YAMLError, RecursionError, SystemError):
                text = json.dumps(body, default=str)
            if rng.random() < 0.3:
                text, what = _text_mutation(rng, text)
                applied.append(what)
    finally:
        sys.setrecursionlimit(limit)
    return Case(source, seed, tuple(applied), text)
