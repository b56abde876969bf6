"""Where objects sit inside one resource: pod templates and instance elements found by identity.

The interpreter names fields by their place in the resource (``spec.replicatedJobs[2].template``)
for the tree's template paths and for errors; expressions return objects, not places, so the
places are looked up here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["PathIndex"]

_SCALARS = frozenset((str, int, float, bool, type(None)))
"""The classes of a parsed document's leaves: never a container to record."""

_NEAR_BUDGET = 512
"""Containers a search near a known object may look at before the whole resource is walked once."""


class PathIndex:
    """Where objects sit inside one resource, found by identity (works for any expression language).

    A lookup first follows the origins of the expression that gave the object (the only field paths
    where an input's container it gives can be, ``Expression.origins``) from an object whose place is
    known: an object at none of them was made, and has no place. Without origins it searches a little
    way below that object (a pod template lies a few keys below its component's scope); a miss walks
    the whole resource once, after which every lookup is a dictionary hit. Nested expanders of
    embedded resources share the index, so a document is walked at most once however many
    components it has.
    """

    def __init__(self, root: Any) -> None:
        self._known: dict[int, list[str | int]] = {id(root): []}
        self._root = root
        self._walked = False

    def find(
        self, target: Any, near: Any = None, origins: Sequence[tuple[str, ...]] | None = None
    ) -> list[str | int] | None:
        """The path of ``target`` (None when it is not part of the resource, e.g. built by an expression).

        ``origins`` (``Expression.origins`` of the expression that gave ``target`` from ``near``) are
        the only paths below ``near`` where an input's container it gives can be: they are followed
        key by key, no search, and a ``target`` at none of them was made and is not searched for.
        Without them, the search decides.
        """
        path = self._known.get(id(target))
        if path is not None or self._walked:
            return path
        if origins is not None and near is not None:
            keys = _origin_of(near, target, origins)
            if keys is None:
                return None  # made by the expression (or no container): no part of the resource
            base = self._known.get(id(near))
            if base is not None:
                path = self._known[id(target)] = [*base, *keys]
                return path
        if near is not None and id(near) in self._known and self._search(near, target, _NEAR_BUDGET):
            return self._known[id(target)]
        self._search(self._root, None, None)
        self._walked = True
        return self._known.get(id(target))

    def note_items(self, container: Any, near: Any, origins: Sequence[tuple[str, ...]] | None = None) -> None:
        """Record the places of a list's (or mapping's) items when the container is found near ``near``.

        Instances are items of a list the resource holds; knowing its place saves a search per item.
        Nothing is recorded for a container an expression built (a filter's result). ``origins`` are
        the expression's that gave the container, followed first as :meth:`find` does.
        """
        if id(container) not in self._known:
            if self._walked or id(near) not in self._known:
                return
            if origins is not None:
                keys = _origin_of(near, container, origins)
                if keys is None:
                    return  # made by the expression
                self._known[id(container)] = [*self._known[id(near)], *keys]
            elif not self._search(near, container, _NEAR_BUDGET):
                return
        path = self._known[id(container)]
        children = container.items() if isinstance(container, dict) else enumerate(container)
        for key, value in children:
            if isinstance(value, (dict, list)):
                self._known.setdefault(id(value), path + [key])

    def _search(self, start: Any, target: Any, budget: int | None) -> bool:
        """Breadth first below ``start``, recording every container met; True when ``target`` was met."""
        known = self._known
        queue = [(start, known[id(start)])]
        for node, path in queue:
            if budget is not None and len(queue) > budget:
                return False
            children = node.items() if isinstance(node, dict) else enumerate(node)
            for key, value in children:
                if value.__class__ in _SCALARS:  # most values: one set lookup rather than an isinstance
                    continue
                if isinstance(value, (dict, list)):
                    child = known.get(id(value))
                    if child is None:  # in a tree a known container's path is this one (first one met if shared)
                        child = known[id(value)] = [*path, key]
                    if value is target:
                        return True
                    queue.append((value, child))
        return False


def _origin_of(near: Any, target: Any, origins: Sequence[tuple[str, ...]]) -> tuple[str, ...] | None:
    """The first of ``origins`` (paths below ``near``) that holds ``target`` itself; None when none does."""
    if not isinstance(target, (dict, list)):  # a True or a 3 is in many places, and never recorded
        return None
    for keys in origins:
        node = near
        for key in keys:
            node = node.get(key) if node.__class__ is dict or isinstance(node, Mapping) else None
        if node is target:
            return keys
    return None
