"""Objects of an input that are parts of another workload of the same input, and lists of nodes.

A namespace dump (``kubectl get jobsets,jobs,pods -o yaml``) holds a workload and the objects
its controllers made from it: the JobSet's Jobs, the Jobs' pods. Those carry an
``ownerReference`` with ``controller: true`` to their maker (the garbage collector's and every
controller's way of telling whose an object is, ``metav1.GetControllerOf``); counted on their
own they would add each pod's GPUs a second time. An object whose controller is a workload of
the same input is therefore folded into the topmost such workload, with a note. A ``NodeList``
(``kubectl get nodes -o yaml``) given where workloads are read is one mistake, said once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..catalog import Catalog
from ..documents import Document

__all__ = ["controlled_notes", "node_lists"]

_Key = tuple[str, str, str, str]
"""An object as an owner reference names it: API group, kind, namespace, name."""


def _mapping(value: Any) -> Mapping[str, Any] | None:
    return value if value.__class__ is dict or isinstance(value, Mapping) else None


def _controller(metadata: Mapping[str, Any]) -> Mapping[str, Any] | None:
    references = metadata.get("ownerReferences")
    if not isinstance(references, list):
        return None
    for reference in references:
        reference = _mapping(reference)
        if reference is not None and reference.get("controller") is True:
            return reference
    return None


def _key(api_version: Any, kind: Any, namespace: Any, name: Any) -> _Key | None:
    if not all(isinstance(value, str) for value in (api_version, kind, name)):
        return None
    return (api_version.rpartition("/")[0], kind, namespace if isinstance(namespace, str) else "", name)


def _label(body: Mapping[str, Any]) -> str:
    metadata = _mapping(body.get("metadata")) or {}
    return f"{body.get('kind')}/{metadata.get('name')}"


def controlled_notes(documents: Sequence[Document | Any], catalog: Catalog) -> dict[int, str]:
    """For each document (by position) controlled by a workload of ``documents``, why it is skipped.

    The owner is found by UID when both sides carry one, else by group, kind, namespace and name
    (a hand-written dump may lack UIDs); it must be of a kind the catalog interprets. A chain of
    owners in the input (pod, Job, JobSet) is followed to its top, which the note names.
    """
    owners: dict[int, Mapping[str, Any]] = {}  # position -> the controller reference
    for position, document in enumerate(documents):
        body = _mapping(document.body) if isinstance(document, Document) else None
        metadata = _mapping(body.get("metadata")) if body is not None else None
        if metadata is not None and metadata.get("ownerReferences"):
            reference = _controller(metadata)
            if reference is not None:
                owners[position] = reference
    if not owners:
        return {}  # most inputs: nothing made by a controller, nothing more to read
    by_uid: dict[str, int] = {}
    by_key: dict[_Key, int] = {}
    for position, document in enumerate(documents):
        body = _mapping(document.body) if isinstance(document, Document) else None
        metadata = _mapping(body.get("metadata")) if body is not None else None
        if body is None or metadata is None or not _interpreted(body, catalog):
            continue
        if isinstance(metadata.get("uid"), str):
            by_uid.setdefault(metadata["uid"], position)
        key = _key(body.get("apiVersion"), body.get("kind"), metadata.get("namespace"), metadata.get("name"))
        if key is not None:
            by_key.setdefault(key, position)

    def owner_of(position: int) -> int | None:
        reference = owners.get(position)
        if reference is None:
            return None
        uid = reference.get("uid")
        if isinstance(uid, str) and uid in by_uid:
            return by_uid[uid]
        metadata = _mapping(documents[position].body.get("metadata")) or {}
        key = _key(reference.get("apiVersion"), reference.get("kind"), metadata.get("namespace"), reference.get("name"))
        found = by_key.get(key) if key is not None else None
        return None if found == position else found

    notes: dict[int, str] = {}
    for position in owners:
        owner = owner_of(position)
        if owner is None:
            continue
        seen = {position}
        top = owner
        while (above := owner_of(top)) is not None and above not in seen:
            seen.add(top)
            top = above
        document = documents[position]
        notes[position] = (
            f"{document.file}: document {document.label}: part of {_label(documents[top].body)} "
            "of this input (its controller), counted there"
        )
    return notes


def _interpreted(body: Mapping[str, Any], catalog: Catalog) -> bool:
    kind, api_version = body.get("kind"), body.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api_version, str):
        return False
    return catalog.lookup(api_version, kind) is not None


def node_lists(documents: Sequence[Document | Any]) -> list[list[int]]:
    """The lists of nodes in ``documents``, each as the positions of its items.

    A ``kubectl get nodes -o yaml`` (a ``List`` of ``Node`` items) or an API ``NodeList``: a list
    whose every item is a Node. A Node outside such a list is skipped like the other kinds that
    run no pods (``NON_WORKLOAD_KINDS``).
    """
    lists: dict[tuple[str, int], list[int]] = {}
    mixed: set[tuple[str, int]] = set()
    for position, document in enumerate(documents):
        if document.__class__ is not Document or document.item is None:
            continue
        key = (document.file, document.index)
        body = _mapping(document.body)
        if body is not None and body.get("kind") == "Node":
            lists.setdefault(key, []).append(position)
        else:
            mixed.add(key)
    return [positions for key, positions in lists.items() if key not in mixed]
