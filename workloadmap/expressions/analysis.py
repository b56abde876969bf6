"""What a JMESPath syntax tree does, read without evaluating it.

The interpreter asks these of a definition's expressions once each: whether a value it gives can
be part of the input (so a pod template is searched for in the resource or not), whether it reads
the value it is evaluated on (else one value per resource, kept), and which functions it calls
(jmespath itself notices an unknown one only when it is called).
"""

from __future__ import annotations

from typing import Any

__all__ = ["builds", "builds_when_truthy", "function_names", "origins", "reads_current"]

_SCOPELESS_FUNCTIONS = frozenset({"root", "ref"})
# Functions whose every result is a container (or string) of their own, never one of their arguments:
# jmespath's merge, keys, values, sort, reverse and map, and wmap's items, pick, omit, object and semver.
# Not sort_by (an empty array comes back as itself), to_array, not_null, max_by or min_by.
_BUILDING_FUNCTIONS = frozenset(
    {"merge", "keys", "values", "sort", "reverse", "map", "items", "pick", "omit", "object", "semver"}
)
# A projection, filter or flatten collects its results into a new list.
_BUILDING_NODES = frozenset(
    {"multi_select_dict", "multi_select_list", "literal", "projection", "value_projection", "filter_projection",
     "flatten"}
)  # fmt: skip


def builds(node: Any) -> bool:
    """Whether every value the tree gives is made by the evaluation (``{...}``, ``l[?x]``), never the input's."""
    kind = node.get("type")
    if kind in _BUILDING_NODES:
        return True
    if kind == "function_expression":
        return node.get("value") in _BUILDING_FUNCTIONS
    if kind in ("or_expression", "and_expression"):  # either side may be what it gives
        return all(map(builds, node.get("children", [])))
    return kind in ("subexpression", "pipe") and builds(node["children"][-1])


def builds_when_truthy(node: Any) -> bool:
    """Whether every value the tree gives that JMESPath counts true is made by the evaluation."""
    kind = node.get("type")
    children = node.get("children", [])
    if kind == "and_expression":  # a && b gives a only when a is false
        return builds_when_truthy(children[1])
    if kind == "or_expression":  # a || b gives a when a is true, else b
        return all(map(builds_when_truthy, children))
    if kind in ("not_expression", "comparator"):  # a boolean, never one of the input's containers
        return True
    if kind in ("subexpression", "pipe"):
        return builds_when_truthy(children[-1])
    return builds(node)


def origins(node: Any) -> list[tuple[str, ...]] | None:
    """The field paths (from the value it is evaluated on) of the input's containers the tree may give.

    Any other container it gives is made by the evaluation (a ``&&``/``||`` choice between a field
    and a made default is the usual case); a comparison or a ``!`` gives a boolean. None when the
    tree may give one of the input's containers from elsewhere (a pipe, an index, ``root()`` ...).
    """
    kind = node.get("type")
    children = node.get("children", [])
    if kind == "field":
        return [(node["value"],)]
    if kind == "current":
        return [()]
    if kind in ("not_expression", "comparator") or builds(node):
        return []
    if kind == "subexpression":  # a.b.c: one path, when every part is a field
        keys: list[str] = []
        for child in children:
            part = origins(child) if child.get("type") in ("field", "subexpression") else None
            if part is None or len(part) != 1:
                return None
            keys.extend(part[0])
        return [tuple(keys)]
    if kind in ("or_expression", "and_expression"):  # either side may be what it gives
        found: list[tuple[str, ...]] = []
        for child in children:
            part = origins(child)
            if part is None:
                return None
            found.extend(part)
        return found
    return None


def reads_current(node: Any) -> bool:
    """Whether a JMESPath AST reads the value it is evaluated on (else only root(), ref() and literals)."""
    kind = node.get("type")
    children = node.get("children", [])
    if kind in ("literal", "expref"):
        return False
    if kind == "function_expression":
        return node.get("value") not in _SCOPELESS_FUNCTIONS and not children or any(map(reads_current, children))
    if kind in ("subexpression", "index_expression", "pipe", "projection", "value_projection", "flatten",
                "filter_projection"):  # fmt: skip
        return reads_current(children[0])  # the rest runs on what the first part gave
    if kind in ("or_expression", "and_expression", "not_expression", "comparator", "key_val_pair"):
        return any(map(reads_current, children))
    return True  # a field, @, an index, a multi-select (null on a null scope) ...


def function_names(node: Any) -> set[str]:
    """Every function a JMESPath AST calls (jmespath only notices unknown ones at search time)."""
    names: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            if current.get("type") == "function_expression":
                names.add(str(current.get("value")))
            stack.extend(current.get("children", []))
        elif isinstance(current, list):
            stack.extend(current)
    return names
