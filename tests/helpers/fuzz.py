"""A seeded mutation engine over real manifests: the inputs the fuzz suite feeds wmap.

Each case starts from a corpus document and applies one or two mutations, chosen by a
``random.Random(seed)``, so a failing case is reproduced from its seed alone. Mutations target
the classes of bad input that reach real users: wrong types where scalars are expected (and the
reverse), huge and non-ASCII numbers, negative/fractional/astronomic quantities, explicit YAML
tags with bad values, deep nesting, duplicated keys, lists multiplied many times, and (issue 16)
counts whose products pass every budget, segments of one pod, and names that forge output.

The same engine makes adversarial clusters for ``place`` and ``topology show`` (:func:`make_cluster_case`:
nodes in two racks, missing labels, zero, negative and absurd GPU counts, a workload asking for 10^6
GPUs) and hostile definitions for ``catalog validate|lint`` (:func:`make_definition_case`), and texts
YAML readers type differently for the read-back check of ``alter`` output (:data:`READ_BACK_MUTATIONS`).

:func:`fuzz_plan` reads the run's size from the environment: a bounded CI run by default, a long
run with ``WMAP_FUZZ_CASES`` (and ``WMAP_FUZZ_SEED`` to start elsewhere), see ``docs/security.md``.
"""

from __future__ import annotations

import copy
import json
import os
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
    "nan", "Infinity", [], {}, [1, 2], {"a": 1}, "x" * 10000, "x\ud800",
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


LIST_BUDGET = 20_000
"""Items a multiplied list may reach, and its size in bytes / 200: 4 MB of text, a large real manifest."""


def _tree_copy(value: Any) -> Any:
    """A copy of parsed YAML's maps and lists (leaves are immutable scalars): deepcopy's result, 4x faster."""
    if isinstance(value, dict):
        return {key: _tree_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_tree_copy(item) for item in value]
    return value


def _multiply_list(rng: random.Random, body: Any, budget: int = LIST_BUDGET) -> tuple[Any, str]:
    candidates = [path for path, value in _paths(body) if isinstance(value, list) and value]
    if not candidates:
        return body, "none"
    path = rng.choice(candidates)
    node = body
    for key in path:
        node = node[key]
    # A few MB of text at most: the size of a large real manifest, not a memory test of the engine.
    size = len(json.dumps(node, default=str))
    factor = min(rng.choice([10, 100, 1000, 5000]), max(1, budget // len(node)), max(1, budget * 200 // size))
    node[:] = [_tree_copy(item) for item in node for _ in range(factor)]
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
    for target in (target for target in targets if isinstance(target, dict)):  # a Slurm topology.yaml is a list
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


# Issue 26: texts YAML readers type differently (go-yaml v2, v3, YAML 1.1), characters they change
# (NEL), and what a YAML writer must quote for structure; each a label value, a key, an annotation.
YAML_WORDS = [
    "y", "n", "Y", "N", "on", "Off", "yes", "NO", "true", "~", "null", "", "1e3", "1E3", "2e-3", ".5E3", "0o17", "08",
    "017", "0x1F", "0B1", "1_000", "+1", "-0b1", "1:30", "1:30.5", "2001-1-2", "2001-12-14", "<<", "=", ".inf", ".nan",
    "a\x85b", "a\nb\x85", "\x85", "line\nbreak\n", "\u2028x", "x\u2029", "tab\tx", " lead", "trail ", "#x", "x #y",
    ": x", "- x", "? x", "'", '"', "\\", "%x", "@x", "`x", "!x", "&x", "*x", "|", ">", "[x]", "{x}", "…", "x\r\ny",
]  # fmt: skip


def _yaml_words(rng: random.Random, body: Any) -> tuple[Any, str]:
    """Typed-looking texts as string values, keys of labels and annotations, and a replaced string scalar."""
    if not isinstance(body, dict):
        return body, "none"
    words = rng.sample(YAML_WORDS, k=rng.choice([1, 3, 8]))
    metadata = body.setdefault("metadata", {})
    if isinstance(metadata, dict):
        for field in ("labels", "annotations"):
            if not isinstance(metadata.get(field, {}), dict):
                continue
            entries = metadata.setdefault(field, {})
            for word in words:
                entries[word if rng.random() < 0.5 else f"k{len(entries)}"] = word
    strings = [path for path, value in _paths(body) if path and isinstance(value, str)]
    for path in rng.sample(strings, k=min(len(strings), rng.choice([0, 1, 2]))):
        _set(body, path, rng.choice(words))
    return body, f"yaml words {words}"


READ_BACK_MUTATIONS: list[Callable[[random.Random, Any], tuple[Any, str]]] = [_yaml_words, _yaml_words, _replace_scalar]
"""Mutations for the read-back check of alter/suspend/resume output (issue 26)."""

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


_NOT_WORKLOADS = ("recorded", "karta", "bad", "live", "topology", "placement")


def corpus_documents(corpus: Path) -> list[tuple[str, Any]]:
    """Every workload document below ``corpus`` (the shared corpus or the repo's ``fixtures/``).

    Recorded flows, Karta definitions, deliberately broken files, live dumps and clusters are left out.
    """
    documents = []
    for path in sorted(corpus.rglob("*.yaml")):
        if any(part in _NOT_WORKLOADS for part in path.relative_to(corpus).parts):
            continue
        for body in yaml.safe_load_all(path.read_text()):
            if isinstance(body, dict) and body.get("kind"):
                documents.append((str(path.relative_to(corpus)), body))
    return documents


@dataclass(frozen=True)
class FuzzPlan:
    """How many cases a fuzz test runs: ``cases`` seeds from ``start``; ``budget`` for multiplied lists."""

    start: int
    cases: int
    budget: int
    long: bool

    def batches(self, count: int) -> list[range]:
        """The seeds split into ``count`` ranges (one test each, so a failure names its seeds)."""
        size = -(-self.cases // count)
        return [
            range(begin, min(begin + size, self.start + self.cases))
            for begin in range(self.start, self.start + self.cases, size)
        ]


def fuzz_plan(ci_cases: int) -> FuzzPlan:
    """The CI run (``ci_cases`` seeds from 0, lists up to 2,000 items) unless ``WMAP_FUZZ_CASES`` asks for more."""
    asked = os.environ.get("WMAP_FUZZ_CASES", "").strip()
    start = int(os.environ.get("WMAP_FUZZ_SEED", "0") or 0)
    if asked:
        return FuzzPlan(start, int(asked), LIST_BUDGET, True)
    return FuzzPlan(start, ci_cases, 2_000, False)


# -- clusters: NodeLists with nodes in two racks, missing labels, absurd GPU counts --------------------

GPU_VALUES: list[Any] = [
    "0", 0, "0", "8", 4, "1000000", "1k", "-4", -8, "2.5", "abc", "", None, "1e999", HUGE_DIGITS, "9" * 40, "٨",
    "8Ki", [], {}, True,
]  # fmt: skip


def _nodes(nodelist: Any) -> list[Any]:
    items = nodelist.get("items") if isinstance(nodelist, dict) else None
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _node_in_two_racks(rng: random.Random, nodelist: Any) -> str:
    """A node listed twice with other rack labels, or a rack whose id appears under two spines."""
    nodes = _nodes(nodelist)
    if len(nodes) < 2:
        return "none"
    if rng.random() < 0.3:
        twin = copy.deepcopy(rng.choice(nodes))
        labels = (twin.get("metadata") or {}).get("labels") or {}
        for key in list(labels):
            if key != "kubernetes.io/hostname":
                labels[key] = f"{labels[key]}-other"
        nodelist["items"].append(twin)
        return f"node {(twin.get('metadata') or {}).get('name')} twice, in two racks"
    first, second = rng.sample(nodes, 2)
    source = (first.get("metadata") or {}).get("labels") or {}
    target = (second.get("metadata") or {}).get("labels")
    if not isinstance(target, dict):
        return "none"
    keys = [key for key in source if key != "kubernetes.io/hostname"]
    for key in rng.sample(keys, k=min(len(keys), rng.choice([1, 2]))):
        target[key] = source[key]
    return "rack labels of one node copied to another (a rack under two spines)"


def _drop_labels(rng: random.Random, nodelist: Any) -> str:
    nodes = _nodes(nodelist)
    chosen = rng.sample(nodes, k=min(len(nodes), rng.choice([1, 3, len(nodes)])))
    for node in chosen:
        labels = (node.get("metadata") or {}).get("labels")
        if isinstance(labels, dict) and labels:
            del labels[rng.choice(sorted(labels))]
    return f"a label dropped on {len(chosen)} nodes"


def _gpu_count(rng: random.Random, nodelist: Any) -> str:
    nodes = _nodes(nodelist)
    value = rng.choice(GPU_VALUES)
    for node in rng.sample(nodes, k=min(len(nodes), rng.choice([1, 1, 3, len(nodes)]))):
        status = node.setdefault("status", {})
        if isinstance(status, dict):
            for field in ("capacity", "allocatable"):
                if isinstance(status.get(field), dict):
                    status[field]["nvidia.com/gpu"] = copy.deepcopy(value)
    return f"GPUs -> {str(value)[:20]!r}"


INVALID_NODE_NAMES = ["{} ", " {}", "{}\t", "{}.", "{}-", "{}".upper(), "{}\u200b", "ｎ{}", "{}/x", ""]


def _invalid_node_name(rng: random.Random, nodelist: Any) -> str:
    """A twin of a node under a name the API server never stores (a trailing space, upper case, look-alikes)."""
    nodes = _nodes(nodelist)
    if not nodes:
        return "none"
    twin = copy.deepcopy(rng.choice(nodes))
    metadata = twin.setdefault("metadata", {})
    if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str) or not metadata["name"]:
        return "none"
    metadata["name"] = rng.choice(INVALID_NODE_NAMES).format(metadata["name"]) or "UPPER"
    nodelist["items"].append(twin)
    return f"invalid node name {metadata['name']!r}"


def _block_sizes(rng: random.Random, topology: Any) -> str:
    """Slurm topology.yaml block sizes that are no whole numbers (.inf, NaN, 2.5, 1e300, booleans)."""
    blocks = [node for _, node in _paths(topology) if isinstance(node, dict) and "block_sizes" in node]
    if not blocks:
        return "none"
    value = rng.choice([float("inf"), float("nan"), 2.5, 1e300, True, -2, "4", "٤", [2], None])
    target = rng.choice(blocks)
    sizes = target["block_sizes"] if isinstance(target["block_sizes"], list) else [2]
    target["block_sizes"] = [*sizes[:1], value]
    return f"block_sizes -> {target['block_sizes']!r}"


CLUSTER_MUTATIONS: list[Callable[[random.Random, Any], str]] = [
    _node_in_two_racks, _drop_labels, _gpu_count, _invalid_node_name, _block_sizes,
]  # fmt: skip

DEMANDS: list[Any] = [1_000_000, "1000000", 10**6 * 8, "0", 0, -1, "1.5", "1e999", HUGE_DIGITS, "abc", None]


MIN_KEYS = ("minAvailable", "minMember", "minReplicas")


def _gang_minimum(rng: random.Random, workload: Any) -> str:
    """A gang minimum (Volcano minAvailable, schedulingPolicy.minAvailable ...) far above the pods."""
    found = [path for path, _ in _paths(workload) if path and path[-1] in MIN_KEYS]
    spec = workload.get("spec") if isinstance(workload, dict) else None
    if not found and isinstance(spec, dict):
        if str(workload.get("apiVersion", "")).startswith("kubeflow.org/"):
            run_policy = spec.setdefault("runPolicy", {})
            if isinstance(run_policy, dict):
                run_policy["schedulingPolicy"] = {"minAvailable": 1000}  # the training operator's gang minimum
                return "schedulingPolicy.minAvailable 1000"
    if not found:
        return "none"
    for path in found:
        _set(workload, path, rng.choice([99, 1000]))
    return f"gang minimum raised at {found}"


def _metadata_confusion(rng: random.Random, workload: Any) -> str:
    """Labels or annotations (of the object or of every pod template) of the wrong type: a list, a string, a number."""
    value = copy.deepcopy(rng.choice([["a", "b"], "text", 5, [{"k": "v"}], True]))
    field = rng.choice(["annotations", "labels"])
    targets = [workload] + [node for path, node in _paths(workload) if path and path[-1] == "template"]
    chosen = rng.sample(targets, k=min(len(targets), rng.choice([1, 2])))
    for target in chosen:
        if isinstance(target, dict):
            metadata = target.setdefault("metadata", {})
            if isinstance(metadata, dict):
                metadata[field] = copy.deepcopy(value)
    return f"metadata.{field} -> {value!r} on {len(chosen)} objects"


def _demand(rng: random.Random, workload: Any, value: Any = None) -> str:
    """A GPU request on every container of the workload (10^6 GPUs, negative, fractional ...)."""
    value = rng.choice(DEMANDS) if value is None else value
    for path, node in list(_paths(workload)):
        if path and path[-1] == "resources" and isinstance(node, dict):
            for field in ("requests", "limits"):
                node[field] = (
                    {**(node.get(field) or {}), "nvidia.com/gpu": copy.deepcopy(value)}
                    if isinstance(node.get(field) or {}, dict)
                    else node.get(field)
                )
    return f"demand {str(value)[:20]!r} GPUs"


@dataclass(frozen=True)
class ClusterCase:
    """An adversarial cluster (NodeList text) and a workload to place on it."""

    seed: int
    mutations: tuple[str, ...]
    nodes_text: str
    workload_text: str
    policy: str


def make_cluster_case(
    clusters: list[Any], workloads: list[tuple[str, Any]], seed: int, *, budget: int = LIST_BUDGET
) -> ClusterCase:
    """The case of ``seed``: a NodeList with topology mutations (and sometimes generic ones) and a workload."""
    rng = random.Random(seed)
    nodelist = _tree_copy(rng.choice(clusters))
    applied = [rng.choice(CLUSTER_MUTATIONS)(rng, nodelist) for _ in range(rng.choice([1, 2, 3]))]
    if rng.random() < 0.3:
        nodelist, generic = _mutate(rng, nodelist, budget, 1)
        applied.extend(generic)
    source, workload = workloads[rng.randrange(len(workloads))]
    workload = _tree_copy(workload)
    if rng.random() < 0.3:
        # A gang that can never form, on pods small enough to fit: only its minimum can make it unfit.
        applied += [_gang_minimum(rng, workload), _demand(rng, workload, 0)]
    elif rng.random() < 0.6:
        applied.append(_demand(rng, workload))
    if rng.random() < 0.25:
        applied.append(_metadata_confusion(rng, workload))
    applied.append(f"workload {source}")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        nodes_text = json.dumps(nodelist, default=str) if rng.random() < 0.5 else _dump(nodelist)
        workload_text = _dump(workload)
    finally:
        sys.setrecursionlimit(limit)
    return ClusterCase(seed, tuple(applied), nodes_text, workload_text, rng.choice(["kueue", "kai"]))


def _dump(body: Any, limit: int | None = None) -> str:
    """YAML, or compact JSON when YAML cannot say it or its indentation would blow past ``limit`` bytes."""
    try:
        text = yaml.dump(body, Dumper=_DUMPER, sort_keys=False, width=10_000)
    except (ValueError, OverflowError, yaml.YAMLError, RecursionError, SystemError):
        return json.dumps(body, default=str)
    return json.dumps(body, default=str) if limit is not None and len(text) > limit else text


# -- definitions: the catalog's own files, mutated ---------------------------------------------------


def make_definition_case(definitions: list[tuple[str, Any]], seed: int, *, budget: int = LIST_BUDGET) -> Case:
    """The case of ``seed``: a definition (a catalog file or a Karta) with one to three mutations."""
    rng = random.Random(seed)
    source, body = definitions[rng.randrange(len(definitions))]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        body, applied = _mutate(rng, _tree_copy(body), budget, rng.choice([1, 2, 3]))
        text = _dump(body, limit=budget * 200)
        if rng.random() < 0.3:
            text, what = _text_mutation(rng, text)
            applied.append(what)
    finally:
        sys.setrecursionlimit(limit)
    return Case(source, seed, tuple(applied), text)


def _mutate(
    rng: random.Random, body: Any, budget: int, rounds: int, mutations: list[Any] | None = None
) -> tuple[Any, list[str]]:
    applied = []
    for _ in range(rounds):
        mutation = rng.choice(mutations or OBJECT_MUTATIONS)
        if mutation is _multiply_list:
            body, what = _multiply_list(rng, body, budget)
        else:
            body, what = mutation(rng, body)
        applied.append(what)
    return body, applied


def make_case(
    documents: list[tuple[str, Any]],
    seed: int,
    mutations: list[Callable[[random.Random, Any], tuple[Any, str]]] | None = None,
    *,
    budget: int = LIST_BUDGET,
) -> Case:
    """The case of ``seed``: a corpus document with one or two mutations, as YAML (or JSON) text.

    ``mutations`` chooses among fewer mutations (default: :data:`OBJECT_MUTATIONS`); ``budget``
    bounds how long a multiplied list gets (the CI run uses a smaller one than the long run).
    """
    rng = random.Random(seed)
    source, body = documents[rng.randrange(len(documents))]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))  # copy and the dumpers recurse once per level of nesting
    try:
        body, applied = _mutate(rng, _tree_copy(body), budget, rng.choice([1, 1, 2]), mutations)
        if rng.random() < 0.15:
            text = json.dumps(body, default=str)
        else:
            text = _dump(body, limit=budget * 200)
            if rng.random() < 0.3:
                text, what = _text_mutation(rng, text)
                applied.append(what)
    finally:
        sys.setrecursionlimit(limit)
    return Case(source, seed, tuple(applied), text)
