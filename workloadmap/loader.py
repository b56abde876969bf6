"""The one safe parser of untrusted YAML and JSON, and the limits it enforces.

Kubernetes objects are JSON values. This loader gives exactly those: PyYAML's safe loader (C
parser when available) with timestamps kept as strings, YAML-only types refused, scalars whose
conversion would fail (``!!int abc``, an integer of 5,000 digits) turned into a located parse
error instead of an exception, and duplicate keys reported as warnings (the API server's field
validation warns about them, and the last value wins, as here). After parsing, one linear walk
refuses self-referential documents, alias bombs, absurd nesting and absurd lists.

Every limit lives in :class:`Limits`; ``docs/security.md`` lists them with their defaults.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Hashable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, replace
from typing import Any

import yaml

from .errors import InputError, raise_hint
from .yaml_typing import UnreadableKey, kubectl_key

__all__ = [
    "Limits",
    "WORKLOAD_LIMITS",
    "TOPOLOGY_LIMITS",
    "Parsed",
    "parse_yaml",
    "field_line",
    "parse_json",
    "raw_decode_json",
    "check_structure",
    "paused_gc",
    "has_surrogate_escape",
    "refuse_lone_surrogates",
    "LIMIT_FLAGS",
    "limits_set",
    "in_force",
    "size_text",
]

MAX_INT_DIGITS = 4300
"""Integers longer than this are refused (Python's own int/str conversion limit)."""


@dataclass(frozen=True)
class Limits:
    """Bounds on one input, each refused with a clear error naming it.

    Attributes:
        max_bytes: size of one file or of standard input.
        max_documents: documents in one stream.
        max_depth: nesting of mappings and lists in one document.
        max_list_items: items in one list.
        check_json: walk JSON documents too (depth and lists; JSON has no aliases). Off for
            NodeLists of 100,000 nodes, where the walk would cost more than the parse.
    """

    max_bytes: int = 512 * 1024 * 1024
    max_documents: int = 1_000_000
    max_depth: int = 200
    max_list_items: int = 1_000_000
    check_json: bool = True


WORKLOAD_LIMITS = Limits()
"""Workloads, definitions, samples and pod dumps: 512 MiB, 1,000,000 documents, depth 200, 1,000,000 list items.

Sized for real dumps: ``kubectl get pods -A -o yaml`` of 50,000 pods is about 150 MB, and a stream of
200,000 documents is read in flat memory (each document's result is written as it is made)."""
TOPOLOGY_LIMITS = Limits(max_bytes=2 * 1024**3, max_documents=1_000_000, max_list_items=10_000_000, check_json=False)
"""NodeLists and PodLists of whole clusters: 2 GiB (100,000 nodes as kubectl prints them)."""

LIMIT_FLAGS: dict[str, str] = {
    "max_bytes": "--max-input-bytes",
    "max_documents": "--max-documents",
    "max_depth": "--max-depth",
    "max_list_items": "--max-list-items",
}
"""Each input limit's flag on the command line (its environment variable: ``errors.environment_name``)."""

_SET: ContextVar[dict[str, Any] | None] = ContextVar("wmap_limits", default=None)


@contextmanager
def limits_set(values: Mapping[str, int]) -> Iterator[None]:
    """Inside the block, every input is read with these limits (``Limits`` field names) instead of its own.

    The command line sets them from ``--max-input-bytes``, ``--max-documents``, ``--max-depth`` and
    ``--max-list-items`` (or their environment variables); each applies to every input the command reads.
    """
    known = {item.name for item in fields(Limits)}
    for name, value in values.items():
        if name not in known or isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"limit {name} must be a positive integer, got {value!r}")
    token = _SET.set(dict(values) or None)
    try:
        yield
    finally:
        _SET.reset(token)


def in_force(limits: Limits) -> Limits:
    """``limits`` with what :func:`limits_set` set for the block replacing its fields."""
    values = _SET.get()
    return replace(limits, **values) if values else limits


def size_text(count: int) -> str:
    """A byte count as the refusals write it: ``512 MiB`` when whole, else the bytes."""
    mib = 1024 * 1024
    return f"{count // mib:,} MiB" if count % mib == 0 else f"{count:,} bytes"


# A walk visits each container once per reference; an alias bomb blows past the document's own
# text length, which is the real budget (this is the floor).
_MIN_CONTAINER_BUDGET = 100_000


@contextmanager
def paused_gc(*, promote: bool = False) -> Iterator[None]:
    """Run a block with Python's cyclic garbage collector paused (and restored after).

    Parsing builds millions of containers and no reference cycles; each allocation burst triggers
    collections that walk every object alive, which tripled the time of ``json.load`` on a NodeList
    of 100,000 nodes (1.6 s against 0.54 s). Reference counting still frees everything as usual.

    With ``promote``, a block that ends without an exception collects the two young generations
    together, so what it built joins the old generation after one examination, while it is still
    in the CPU's cache. Left to the automatic collector, each survivor is examined twice (young,
    then middle-aged), the second time long after. Nothing is collected when the caller had the
    collector off.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        if promote and enabled:
            gc.collect(1)
    finally:
        if enabled:
            gc.enable()


class _Refused(Exception):
    """A JSON value that is not a Kubernetes value (NaN, an integer too long to convert)."""


_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_TYPED_KEY_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("str", "bool", "int", "float", "null"))


class _Loader(_BaseLoader):
    """Safe loader: JSON values only, timestamps as strings, keys as kubectl reads them, duplicates noted."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicates: list[tuple[int, str]] = []

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """The mapping with string keys as kubectl reads them (``on`` is ``"true"``, ``0x10`` is ``"16"``).

        PyYAML would type a plain key by YAML 1.1 (``on`` and ``1`` both the key ``True == 1``, one
        value lost); kubectl types it by go-yaml v2 and writes it as a string
        (:func:`~workloadmap.yaml_typing.kubectl_key`). Two spellings of one key (``on`` and
        ``true``, ``1`` and ``"1"``) are refused: kubectl keeps one of them, which one is not said.
        """
        own = sum(1 for key_node, _ in node.value if key_node.tag != _MERGE_TAG)
        self.flatten_mapping(node)  # merged pairs first, then the mapping's own, which override them
        merged = len(node.value) - own
        mapping: dict[Any, Any] = {}
        spelled: dict[Any, tuple[str, bool]] = {}
        for index, (key_node, value_node) in enumerate(node.value):
            if index == merged:
                spelled.clear()  # a key of its own may override a merged one
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag in _TYPED_KEY_TAGS:
                text = key_node.value
                plain = not key_node.style  # None from PyYAML's composer, "" from libyaml's
                if key_node.tag != _STR_TAG or plain:  # typed by its text
                    try:
                        key: Any = kubectl_key(text)
                    except UnreadableKey as error:
                        raise _refuse(key_node, str(error)) from None
                else:
                    key = text
                spelling = (text, plain)
                if key in spelled and spelled[key] != spelling:
                    raise _refuse(
                        key_node,
                        f"the keys {spelled[key][0][:40]!r} and {text[:40]!r} are the same key {key[:40]!r} for "
                        "kubectl (YAML 1.1 booleans and numbers); keep one",
                    )
                if key in spelled:
                    self.duplicates.append((key_node.start_mark.line, text))
                spelled[key] = spelling
            else:
                key = self.construct_object(key_node, deep=deep)
                if not isinstance(key, Hashable):
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark, "found unhashable key", key_node.start_mark
                    )
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


_INT_WITHOUT_BASE_60 = re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$")
_FLOAT_WITHOUT_BASE_60 = re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
# Plain scalars resolve by YAML 1.1 as PyYAML does, but with timestamps kept as strings and without
# base-60 numbers: kubectl (go-yaml) reads `1:30` as the text "1:30", so wmap does too, and a count or
# quantity written so is refused where it is read, as the API server refuses it.
_RESOLVERS = {"tag:yaml.org,2002:int": _INT_WITHOUT_BASE_60, "tag:yaml.org,2002:float": _FLOAT_WITHOUT_BASE_60}
_Loader.yaml_implicit_resolvers = {
    first: [(tag, _RESOLVERS.get(tag, regexp)) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}


def _refuse(node: yaml.Node, problem: str) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(None, None, problem, node.start_mark)


def _construct_int(loader: _Loader, node: yaml.ScalarNode) -> int:
    text = str(node.value)
    if ":" in text:
        raise _refuse(node, f"a base-60 integer {text[:40]!r} (YAML 1.1; kubectl reads it as text): refused")
    if len(text.replace("_", "").lstrip("+-")) > MAX_INT_DIGITS:
        raise _refuse(node, f"an integer of more than {MAX_INT_DIGITS} digits (refused)")
    try:
        value: int = yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)
    except ValueError:
        raise _refuse(node, f"not an integer: {text[:40]!r}") from None
    return value


def _construct_float(loader: _Loader, node: yaml.ScalarNode) -> float:
    if ":" in str(node.value):
        raise _refuse(node, f"a base-60 number {str(node.value)[:40]!r} (YAML 1.1; kubectl reads it as text): refused")
    try:
        value: float = yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)
    except ValueError:
        raise _refuse(node, f"not a number: {str(node.value)[:40]!r}") from None
    return value


def _construct_bool(loader: _Loader, node: yaml.ScalarNode) -> bool:
    try:
        value: bool = yaml.constructor.SafeConstructor.construct_yaml_bool(loader, node)
    except KeyError:
        raise _refuse(node, f"not a boolean: {str(node.value)[:40]!r}") from None
    return value


def _construct_timestamp(loader: _Loader, node: yaml.ScalarNode) -> str:
    # Kubernetes reads YAML as JSON, where a timestamp is a string.
    return str(loader.construct_scalar(node))


def _not_json(loader: _Loader, node: yaml.Node) -> Any:
    raise _refuse(node, f"YAML type {node.tag.rsplit(':', 1)[-1]!r} has no JSON form (refused)")


for _tag, _constructor in (
    ("int", _construct_int),
    ("float", _construct_float),
    ("bool", _construct_bool),
    ("timestamp", _construct_timestamp),
    ("binary", _not_json),
    ("set", _not_json),
    ("omap", _not_json),
    ("pairs", _not_json),
):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _constructor)


@dataclass
class Parsed:
    """A parsed document and what the parser noticed.

    Attributes:
        body: the value (None for an empty document).
        duplicates: ``(line, key)`` of every key given twice in one mapping (0-based line).
    """

    body: Any
    duplicates: list[tuple[int, str]] = field(default_factory=list)


def _yaml_problem(error: yaml.YAMLError, line_offset: int) -> str:
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    mark = getattr(error, "problem_mark", None)
    if mark is not None:
        return f"invalid YAML at line {mark.line + 1 + line_offset} column {mark.column + 1}: {problem}"
    return f"invalid YAML: {problem}"


# A \uD800-\uDFFF escape: JSON pairs two of them into one character, YAML does not; what stays alone is
# not Unicode text (no encoder writes it, go-yaml refuses the escape), so the values holding one are refused.
_SURROGATE_ESCAPE = re.compile(r"\\(?:u|U0000)[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE_ESCAPE_BYTES = re.compile(rb"\\(?:u|U0000)[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATES = re.compile("[\ud800-\udfff]")


def has_surrogate_escape(text: str | bytes) -> bool:
    """Whether ``text`` (JSON or YAML) holds a surrogate escape (U+D800 to U+DFFF), the only way to a lone one."""
    if isinstance(text, bytes):
        return _SURROGATE_ESCAPE_BYTES.search(text) is not None
    return _SURROGATE_ESCAPE.search(text) is not None


def refuse_lone_surrogates(body: Any) -> None:
    """Refuse a string or key of ``body`` holding a lone surrogate (call it when the text has such an escape).

    Raises:
        InputError: the first such string, with its surrogate.
    """
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            found = _SURROGATES.search(node)
            if found:
                code = ord(found.group())
                raise InputError(f"a string holds a lone surrogate (\\u{code:04x}), not Unicode text (refused)")
        elif isinstance(node, dict):
            stack.extend(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def parse_yaml(text: str, *, line_offset: int = 0) -> Parsed:
    """Parse one YAML document (no ``---`` splitting here).

    Raises:
        InputError: not valid YAML, a value with no JSON form, or nesting too deep to parse; the
            message gives the line and column (counted from ``line_offset``).
    """
    loader = _Loader(text)
    try:
        with paused_gc():
            body = loader.get_single_data()
    except yaml.YAMLError as error:
        raise InputError(_yaml_problem(error, line_offset)) from None
    except RecursionError:
        raise InputError("document nested too deeply (refused)") from None
    finally:
        loader.dispose()
    if _SURROGATE_ESCAPE.search(text):
        refuse_lone_surrogates(body)
    return Parsed(body, loader.duplicates)


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"an integer of more than {MAX_INT_DIGITS} digits (refused)")
    return int(text)


def _json_constant(name: str) -> float:
    raise _Refused(f"{name} is not a JSON number (refused)")


def parse_json(text: str) -> Any:
    """Parse a JSON document.

    Raises:
        InputError: not valid JSON, NaN/Infinity, an integer too long, or nesting too deep.
        json.JSONDecodeError: only through ``InputError``; never escapes.
    """
    try:
        with paused_gc():
            body = json.loads(text, parse_int=_json_int, parse_constant=_json_constant)
    except _Refused as error:
        raise InputError(str(error)) from None
    except RecursionError:
        raise InputError("document nested too deeply (refused)") from None
    except json.JSONDecodeError as error:
        raise InputError(f"invalid JSON at line {error.lineno} column {error.colno}: {error.msg}") from None
    if _SURROGATE_ESCAPE.search(text):
        refuse_lone_surrogates(body)
    return body


_DECODER = json.JSONDecoder(parse_int=_json_int, parse_constant=_json_constant)


def raw_decode_json(text: str, position: int) -> tuple[Any, int]:
    """Decode the one JSON value starting at ``text[position]``: the value and where it ends.

    The same values as :func:`parse_json` (NaN, Infinity and over-long integers refused), for
    readers that walk a large document value by value.

    Raises:
        InputError: a refused value or nesting too deep.
        json.JSONDecodeError: not valid JSON at ``position`` (or cut off: the caller can tell a
            buffer that ends too early from bad JSON).
    """
    try:
        value, end = _DECODER.raw_decode(text, position)
    except _Refused as error:
        raise InputError(str(error)) from None
    except RecursionError:
        raise InputError("document nested too deeply (refused)") from None
    if _SURROGATE_ESCAPE.search(text, position, end):
        refuse_lone_surrogates(value)
    return value, end


def check_structure(body: Any, limits: Limits, text_length: int, *, aliases: bool = True) -> None:
    """Refuse self-referential data, alias bombs, absurd nesting and absurd lists, in one linear walk.

    A document cannot hold more containers than its text has characters, so a walk that visits
    more than that many containers met aliases being expanded. ``aliases`` False says the text
    cannot share a node (JSON, or YAML without an ``&`` anchor, which every alias needs): the body
    is then a tree no larger than its text, and only depth and list lengths are checked.

    Raises:
        InputError: which limit was broken.
    """
    if not isinstance(body, (dict, list)):
        return
    if not aliases:
        _check_tree(body, limits)
        return
    budget = max(_MIN_CONTAINER_BUDGET, text_length)
    visited = 0
    on_path: set[int] = set()
    stack: list[tuple[Any, int, bool]] = [(body, 0, False)]
    while stack:
        node, depth, leaving = stack.pop()
        if leaving:
            on_path.discard(id(node))
            continue
        visited += 1
        if visited > budget:
            raise InputError("document too large after alias expansion (refused)")
        if depth > limits.max_depth:
            raise InputError(
                f"document nested deeper than {limits.max_depth} levels "
                f"(refused; {raise_hint(LIMIT_FLAGS['max_depth'])})"
            )
        if isinstance(node, list) and len(node) > limits.max_list_items:
            raise InputError(
                f"a list of {len(node):,} items is longer than {limits.max_list_items:,} "
                f"(refused; {raise_hint(LIMIT_FLAGS['max_list_items'])})"
            )
        identity = id(node)
        if identity in on_path:
            raise InputError("document refers to itself through a YAML alias (refused)")
        on_path.add(identity)
        stack.append((node, depth, True))
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1, False))


def _check_tree(body: dict[Any, Any] | list[Any], limits: Limits) -> None:
    """:func:`check_structure`'s depth and list-length checks on a body that shares no node, in the same order."""
    max_depth, max_items = limits.max_depth, limits.max_list_items
    stack: list[tuple[Any, int]] = [(body, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            raise InputError(
                f"document nested deeper than {max_depth} levels (refused; {raise_hint(LIMIT_FLAGS['max_depth'])})"
            )
        if isinstance(node, list):
            if len(node) > max_items:
                raise InputError(
                    f"a list of {len(node):,} items is longer than {max_items:,} "
                    f"(refused; {raise_hint(LIMIT_FLAGS['max_list_items'])})"
                )
            children = node
        else:
            children = node.values()
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))


_FIELD_PART = re.compile(r"\[(\d+)\]|\.?([^.\[\]]+)")


def _field_parts(field: str) -> list[str | int]:
    """``components[0].replicas`` as ``["components", 0, "replicas"]``."""
    return [int(index) if index else key for index, key in _FIELD_PART.findall(field)]


def _named(node: yaml.Node, name: str) -> bool:
    """Whether a document's ``name`` (a definition) or ``metadata.name`` (a Karta) is ``name``."""
    if not isinstance(node, yaml.MappingNode):
        return False
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode) and isinstance(value, yaml.ScalarNode) and key.value == "name":
            return bool(value.value == name)
        if isinstance(key, yaml.ScalarNode) and key.value == "metadata" and _named(value, name):
            return True
    return False


def field_line(text: str, field: str | None, *, name: str | None = None) -> int | None:
    """The line (1-based) of ``field`` (``components[0].replicas``) in the YAML ``text``: where an editor should go.

    In a stream of several documents, the one whose ``name`` (or ``metadata.name``) is ``name``;
    a field not found is placed at the deepest part of its path that is (the document's first
    line at worst). None when the text does not parse as YAML.
    """
    try:
        documents = list(yaml.compose_all(text, Loader=_BaseLoader))
    except (yaml.YAMLError, RecursionError):
        return None
    documents = [document for document in documents if document is not None]
    if not documents:
        return None
    node = next((document for document in documents if name is not None and _named(document, name)), documents[0])
    line = node.start_mark.line
    for part in _field_parts(field or ""):
        if isinstance(part, int) and isinstance(node, yaml.SequenceNode) and part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line
        elif isinstance(part, str) and isinstance(node, yaml.MappingNode):
            entry = next(((key, value) for key, value in node.value if getattr(key, "value", None) == part), None)
            if entry is None:
                break
            line, node = entry[0].start_mark.line, entry[1]
        else:
            break
    return int(line) + 1
