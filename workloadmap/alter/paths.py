"""Reading and writing an object by key path, and tracing a value an expression read back to its place.

The catalog's expressions read pod templates out of a workload; :class:`Locator` says where such a
value sits in the object (by identity, so any expression language works), and where a shallow copy
an expression made (``merge(value, {name: key})``) came from. Writes then go to that place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import AlterError

__all__ = ["Path", "fresh_copy", "get_at", "set_at", "delete_at", "Locator"]

Path = tuple[str | int, ...]
"""Keys and list indexes from the object's root, outermost first."""


def fresh_copy(value: Any) -> Any:
    """A deep copy in which no two places share a container (YAML anchors are unshared).

    ``copy.deepcopy`` keeps aliased dicts aliased, so a change to one anchored pod template would
    silently change the other; here every place gets its own copy.
    """
    if isinstance(value, Mapping):
        return {key: fresh_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [fresh_copy(item) for item in value]
    return value


def get_at(obj: Any, path: Sequence[str | int]) -> Any:
    """The value at ``path``, or None when some step is missing."""
    node = obj
    for step in path:
        if isinstance(step, int) and isinstance(node, list) and 0 <= step < len(node):
            node = node[step]
        elif isinstance(step, str) and isinstance(node, Mapping):
            node = node.get(step)
        else:
            return None
    return node


def set_at(obj: Any, path: Sequence[str | int], value: Any) -> None:
    """Set the value at ``path``, creating missing (or null) mappings on the way.

    Raises:
        AlterError: a step on the way holds something other than a mapping (or a list, for an index).
    """
    node = obj
    for position, step in enumerate(path[:-1]):
        following = path[position + 1]
        if isinstance(node, dict) and isinstance(step, str):
            child = node.get(step)
            if child is None:
                if isinstance(following, int):
                    raise AlterError("a list to write into is missing", field=list(path[: position + 1]))
                child = node[step] = {}
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            child = node[step]
        else:
            raise AlterError("cannot write here: the field on the way is not a mapping", field=list(path[:position]))
        node = child
    last = path[-1]
    if isinstance(node, dict) and isinstance(last, str):
        node[last] = value
    elif isinstance(node, list) and isinstance(last, int) and 0 <= last < len(node):
        node[last] = value
    else:
        raise AlterError("cannot write here: the field on the way is not a mapping", field=list(path[:-1]))


def delete_at(obj: Any, path: Sequence[str | int]) -> bool:
    """Remove the key at ``path`` (parents stay, even when left empty); False when it was absent."""
    parent = get_at(obj, path[:-1])
    if isinstance(parent, dict) and path[-1] in parent:
        del parent[path[-1]]
        return True
    return False


class Locator:
    """Where the containers of one object sit, by identity."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self._paths: dict[int, Path] = {}
        stack: list[tuple[Any, Path]] = [(root, ())]
        while stack:
            node, path = stack.pop()
            if isinstance(node, dict):
                self._paths.setdefault(id(node), path)
                stack.extend((item, (*path, key)) for key, item in node.items() if isinstance(item, (dict, list)))
            elif isinstance(node, list):
                self._paths.setdefault(id(node), path)
                stack.extend(
                    (item, (*path, index)) for index, item in enumerate(node) if isinstance(item, (dict, list))
                )

    def path_of(self, value: Any) -> Path | None:
        """The place of ``value`` (a mapping or list of the object), or None when it is not part of it."""
        return self._paths.get(id(value)) if isinstance(value, (dict, list)) else None

    def origin_of(self, value: Any) -> Path | None:
        """The place of ``value``, or of the mapping it is a shallow copy of.

        A copy that an expression extended (``merge(service, {name: key})``) still holds its
        original's containers; a candidate is accepted only when every entry of the original is in
        the copy, containers by identity and scalars by value. Ambiguity gives None.
        """
        found = self.path_of(value)
        if found is not None or not isinstance(value, Mapping):
            return found
        candidates = set()
        for key, item in value.items():
            place = self.path_of(item)
            if place and place[-1] == key:
                candidates.add(place[:-1])
        matches = [place for place in candidates if _copied_from(value, get_at(self.root, place))]
        return matches[0] if len(matches) == 1 else None


def _copied_from(copy: Mapping[str, Any], original: Any) -> bool:
    if not isinstance(original, Mapping):
        return False
    for key, item in original.items():
        if key not in copy:
            return False
        same = copy[key] is item if isinstance(item, (dict, list)) else copy[key] == item
        if not same:
            return False
    return True
