"""Kubernetes objects as topology: Nodes, the Pods that use them, and KAI/Kueue Topology objects.

These readers take parsed documents (a ``NodeList``, a ``List`` of Nodes, single ``Node``
objects; likewise Pods) and build the :class:`~workloadmap.topology.model.Cluster` that
placement consumes. Reading files is :mod:`.load`'s job.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..budgets import check as check_budget
from ..errors import BudgetError, InputError, QuantityError, TopologyError
from ..labels import GROVE_TOPOLOGY_API_VERSION, GROVE_TOPOLOGY_KIND, HOSTNAME, TOPOLOGY_OBJECT_API_VERSIONS
from ..quantities import parse_quantity
from ..resources import pod_demand
from ..scheduling import parse_taints
from ..values import name_problem
from .levels import detect_levels, label_keys
from .model import Cluster, Node, validate_levels
from .noderesourcetopology import split_topology_objects

__all__ = [
    "nodes_from_documents",
    "apply_pods",
    "topology_object_levels",
    "StatedTopology",
    "stated_topology",
    "cluster_from_objects",
    "set_levels",
    "mapping_field",
    "label_map",
]

_TERMINATED_PHASES = ("Succeeded", "Failed")
_ZERO = Fraction(0)


def _objects(documents: Sequence[Any], file: str, expected: str, list_kinds: tuple[str, ...]) -> list[tuple[str, dict]]:
    """Flatten documents and ``List``s into (document label, object) pairs of kind ``expected``."""
    objects: list[tuple[str, dict]] = []
    for number, document in enumerate(documents, start=1):
        where = f"#{number}"
        if not isinstance(document, dict):
            raise TopologyError(
                f"expected a {expected} or {list_kinds[0]} object, got {type(document).__name__}",
                file=file,
                document=where,
            )
        kind = document.get("kind")
        if kind in list_kinds:
            items = document.get("items")
            if items is None:
                items = []
            if not isinstance(items, list):
                raise TopologyError("expected a list", file=file, document=where, field="items")
            if expected == "Node":
                try:
                    check_budget("nodes", len(objects) + len(items), f"nodes ({kind} items)", field="items")
                except BudgetError as error:
                    raise error.located(file=file, document=where) from None
            for index, item in enumerate(items):
                item_where = f"{where} items[{index}]"
                if not isinstance(item, dict):
                    raise TopologyError(f"expected a {expected} object", file=file, document=item_where)
                item_kind = item.get("kind", expected)  # raw API lists omit kind on items
                if item_kind != expected:
                    raise TopologyError(f"expected kind {expected}, got {item_kind!r}", file=file, document=item_where)
                objects.append((item_where, item))
        elif kind == expected:
            objects.append((where, document))
        else:
            raise TopologyError(
                f"expected kind {expected} or {'/'.join(list_kinds)}, got {kind!r}",
                file=file,
                document=where,
                field="kind",
            )
    return objects


def _named(where: str, obj: dict, kind: str, file: str) -> tuple[str, str]:
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        raise TopologyError("missing metadata", file=file, document=where, field="metadata")
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        raise TopologyError("missing or empty name", file=file, document=where, field="metadata.name")
    namespace = metadata.get("namespace")
    label = f"{kind}/{namespace}/{name}" if isinstance(namespace, str) and namespace else f"{kind}/{name}"
    return name, label


def mapping_field(value: Any, file: str, document: str, field_name: str) -> dict:
    """``value`` as a mapping (None is empty); anything else is a located TopologyError."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TopologyError(
            f"expected a mapping, got {type(value).__name__}", file=file, document=document, field=field_name
        )
    return value


def label_map(value: Any, file: str, document: str, field_name: str) -> dict[str, str]:
    """Labels as strings (hand-written YAML may give numbers or booleans); others are an error."""
    if type(value) is dict:
        for key, raw in value.items():
            if type(raw) is not str or type(key) is not str:
                break
        else:
            return dict(value)  # the usual case: already strings
    labels: dict[str, str] = {}
    for key, raw in mapping_field(value, file, document, field_name).items():
        if isinstance(raw, bool):
            raw = "true" if raw else "false"
        elif isinstance(raw, (int, float)):
            raw = str(raw)  # hand-written YAML: `rack: 1`
        elif raw is None:
            raw = ""
        if not isinstance(raw, str):
            raise TopologyError(
                f"a label value must be a string, got {type(raw).__name__}",
                file=file,
                document=document,
                field=f"{field_name}.{key}",
            )
        labels[str(key)] = raw
    return labels


class _QuantityCache:
    """parse_quantity memoized per raw value: node lists repeat the same few strings."""

    def __init__(self) -> None:
        self.parsed: dict[tuple[type, Any], Fraction] = {}

    def __call__(self, raw: Any) -> Fraction:
        key = (type(raw), raw)
        try:
            return self.parsed[key]
        except (KeyError, TypeError):
            amount = parse_quantity(raw)
            try:
                self.parsed[key] = amount
            except TypeError:
                pass
            return amount


class _DemandCache:
    """:func:`~workloadmap.resources.pod_demand` memoized on the fields it reads.

    Pods made from one template repeat their containers' resources; computing each pod's demand
    with exact fractions cost most of reading 60,000 running pods. The key is the ``repr`` of those
    fields, which tells apart every difference of value, type (``1``, ``1.0``, ``True``, ``"1"``)
    and key order that could change the result; an error is raised, never kept.
    """

    def __init__(self) -> None:
        self.known: dict[str, dict[str, Fraction]] = {}

    def __call__(self, spec: dict) -> dict[str, Fraction]:
        key = repr([spec.get(name) for name in _DEMAND_FIELDS])
        requests = self.known.get(key)
        if requests is None:
            requests = self.known[key] = pod_demand(spec, "spec").requests
        return requests


_DEMAND_FIELDS = ("containers", "initContainers", "resources", "overhead", "resourceClaims")
"""The fields of a PodSpec that :func:`~workloadmap.resources.pod_demand` reads."""
_ONE = Fraction(1)


def nodes_from_documents(documents: Sequence[Any], *, file: str = "-") -> list[Node]:
    """Nodes from parsed documents: ``NodeList``, ``List`` of Nodes, or single ``Node`` objects.

    * labels from ``metadata.labels``; ``kubernetes.io/hostname`` is filled in with the node name
      when absent (the kubelet always sets it);
    * allocatable from ``status.allocatable`` (``status.capacity`` when there is none), every
      resource name kept (cpu, memory, pods, ``nvidia.com/gpu``, ``amd.com/gpu``, extended);
    * ready when the ``Ready`` condition's status is ``"True"``; a node with no
      ``status.conditions`` at all (a hand-written fixture) counts as ready, one whose conditions
      lack ``Ready`` does not;
    * cordoned (``unschedulable``) from ``spec.unschedulable``, and ``spec.taints``; only a ready,
      uncordoned node takes pods (:attr:`~workloadmap.topology.Node.usable`);
    * ``NodeResourceTopology`` objects among them are passed over (:mod:`.noderesourcetopology`).

    Raises:
        TopologyError: wrong kinds or shapes, a bad quantity, a node name that is not a DNS subdomain
            (as the API server validates node names) or is given twice, no nodes.
    """
    parse = _QuantityCache()
    nodes: list[Node] = []
    seen: set[str] = set()
    documents, _ = split_topology_objects(documents)  # their NUMA layouts are read by the caller
    for where, obj in _objects(documents, file, "Node", ("NodeList", "List")):
        name, label = _named(where, obj, "Node", file)
        problem = name_problem(name)
        if problem is not None:
            # The API server stores no such node (ValidateNodeName: a DNS subdomain): a forged or
            # edited list, whose twin of a real node ("node-1 ") would be counted as capacity.
            raise TopologyError(
                f"{name!r} is not a valid node name: {problem}", file=file, document=label, field="metadata.name"
            )
        if name in seen:
            raise TopologyError(f"node {name!r} appears twice", file=file, document=label, field="metadata.name")
        seen.add(name)
        metadata = obj["metadata"]
        labels = label_map(metadata.get("labels"), file, label, "metadata.labels")
        labels.setdefault(HOSTNAME, name)
        spec = mapping_field(obj.get("spec"), file, label, "spec")
        status = mapping_field(obj.get("status"), file, label, "status")
        field_name = "status.allocatable" if "allocatable" in status else "status.capacity"
        allocatable: dict[str, Fraction] = {}
        for resource, raw in mapping_field(status.get(field_name.split(".")[1]), file, label, field_name).items():
            try:
                allocatable[str(resource)] = parse(raw)
            except QuantityError as error:
                raise TopologyError(
                    error.message, file=file, document=label, field=f"{field_name}.{resource}"
                ) from None
        conditions = status.get("conditions")
        if conditions is None:
            ready = True
        elif not isinstance(conditions, list):
            raise TopologyError("expected a list", file=file, document=label, field="status.conditions")
        else:
            ready = False
            for condition in conditions:
                if isinstance(condition, dict) and condition.get("type") == "Ready":
                    ready = condition.get("status") == "True"
                    break
        try:
            taints = parse_taints(spec.get("taints"), "spec.taints")
        except InputError as error:
            raise TopologyError(error.message, file=file, document=label, field=error.field) from None
        nodes.append(
            Node(
                name=name,
                labels=labels,
                allocatable=allocatable,
                ready=ready,
                unschedulable=spec.get("unschedulable") is True,
                taints=taints,
            )
        )
    if not nodes:
        raise TopologyError("no Node objects found", file=file)
    return nodes


def apply_pods(cluster: Cluster, documents: Sequence[Any], *, file: str = "-") -> int:
    """Charge running pods to their nodes; return how many pods were counted.

    A pod counts when its ``status.phase`` is neither ``Succeeded`` nor ``Failed`` and its
    ``spec.nodeName`` names a node of the cluster; it adds its effective request
    (:func:`workloadmap.resources.pod_demand`) plus one ``pods`` slot to ``node.used``. Pods on
    nodes the cluster does not have are skipped with a note in ``cluster.notes``; pending pods
    without a node are skipped.

    Raises:
        TopologyError: wrong kinds or shapes, or a bad quantity (naming the pod and field).
    """
    by_name = {node.name: node for node in cluster.nodes}
    demand = _DemandCache()
    counted = 0
    elsewhere: dict[str, int] = {}
    for where, obj in _objects(documents, file, "Pod", ("PodList", "List")):
        _, label = _named(where, obj, "Pod", file)
        status = mapping_field(obj.get("status"), file, label, "status")
        if status.get("phase") in _TERMINATED_PHASES:
            continue
        spec = mapping_field(obj.get("spec"), file, label, "spec")
        node_name = spec.get("nodeName")
        node = by_name.get(node_name) if isinstance(node_name, str) else None
        if node is None:
            if isinstance(node_name, str) and node_name:
                elsewhere[node_name] = elsewhere.get(node_name, 0) + 1
            continue
        try:
            requests = demand(spec)
        except InputError as error:
            raise TopologyError(error.message, file=file, document=label, field=error.field) from None
        used = node.used
        if used:
            for resource, amount in requests.items():
                used[resource] = used.get(resource, _ZERO) + amount
        else:  # the first pod on the node: nothing to add to
            used.update(requests)
        slots = used.get("pods")
        used["pods"] = _ONE if slots is None else slots + 1
        counted += 1
    if elsewhere:
        names = sorted(elsewhere)
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        pods = sum(elsewhere.values())
        cluster.notes.append(
            f"{pods} pod{'s' if pods != 1 else ''} of {file} bound to nodes the cluster does not have "
            f"({shown}) not counted"
        )
    return counted


@dataclass(frozen=True)
class StatedTopology:
    """The levels one topology object states: its name, node-label keys widest first, and aliases.

    Attributes:
        aliases: alias -> node-label key: a KAI ``Topology``'s ``levels[].alias`` (KAI v0.17, #1788),
            or a Grove ClusterTopologyBinding's ``levels[].domain``.
    """

    name: str | None
    levels: list[str]
    aliases: dict[str, str] = field(default_factory=dict)


def topology_object_levels(documents: Sequence[Any], *, file: str = "-") -> list[str]:
    """The ``spec.levels[].nodeLabel`` list of the one KAI or Kueue ``Topology`` in the documents.

    Raises:
        TopologyError: as :func:`stated_topology`.
    """
    return stated_topology(documents, file=file).levels


def _is_topology_object(document: Any) -> bool:
    if not isinstance(document, dict):
        return False
    kind = document.get("kind")
    return kind == "Topology" or (
        kind == GROVE_TOPOLOGY_KIND and document.get("apiVersion") == GROVE_TOPOLOGY_API_VERSION
    )


def stated_topology(documents: Sequence[Any], *, file: str = "-") -> StatedTopology:
    """The levels and aliases of the one KAI or Kueue ``Topology`` (or Grove ClusterTopologyBinding) in the documents.

    A KAI level may carry an ``alias`` that constraints use in its place; aliases are unique and
    none equals a level's nodeLabel (KAI's topology webhook, ``topology_validator.go``
    ``validateAliases``). A Grove binding's levels are ``{domain, key}``: the domain is the alias.

    Raises:
        TopologyError: no such object, several of them, an unsupported apiVersion, levels that
            break the KAI/Kueue rules (1-16, unique, hostname only last), or aliases KAI refuses.
    """
    found = [(number, document) for number, document in enumerate(documents, start=1) if _is_topology_object(document)]
    if not found:
        raise TopologyError("no Topology object (kind: Topology) found", file=file)
    if len(found) > 1:
        raise TopologyError(f"{len(found)} Topology objects found; give a file with exactly one", file=file)
    number, document = found[0]
    name = (document.get("metadata") or {}).get("name") if isinstance(document.get("metadata"), dict) else None
    grove = document.get("kind") == GROVE_TOPOLOGY_KIND
    label = f"{document.get('kind')}/{name}" if name else f"#{number}"
    api_version = document.get("apiVersion")
    if not grove and api_version not in TOPOLOGY_OBJECT_API_VERSIONS:
        raise TopologyError(
            f"unsupported apiVersion {api_version!r}; expected one of {', '.join(TOPOLOGY_OBJECT_API_VERSIONS)}",
            file=file,
            document=label,
            field="apiVersion",
        )
    spec = mapping_field(document.get("spec"), file, label, "spec")
    key_field, alias_field = ("key", "domain") if grove else ("nodeLabel", "alias")
    raw_levels = spec.get("levels")
    if not isinstance(raw_levels, list):
        raise TopologyError(f"expected a list of {{{key_field}: ...}}", file=file, document=label, field="spec.levels")
    levels: list[str] = []
    aliases: dict[str, str] = {}
    duplicated: list[str] = []
    named: list[str] = []  # every alias given, in level order
    for index, level in enumerate(raw_levels):
        if not isinstance(level, dict) or key_field not in level:
            raise TopologyError(
                f"expected {{{key_field}: <label key>}}", file=file, document=label, field=f"spec.levels[{index}]"
            )
        levels.append(level[key_field])
        alias = level.get(alias_field)
        if alias is None:
            continue
        if not isinstance(alias, str) or not alias:
            raise TopologyError(
                f"{alias_field} must be a non-empty string, got {alias!r}",
                file=file,
                document=label,
                field=f"spec.levels[{index}].{alias_field}",
            )
        if alias in aliases:
            duplicated.append(alias)
        aliases[alias] = level[key_field]
        named.append(alias)
    levels = validate_levels(levels, file=file, document=label, field_name="spec.levels")
    problem = _alias_problem(duplicated, [alias for alias in named if alias in levels], grove=grove)
    if problem:
        raise TopologyError(problem, file=file, document=label, field="spec.levels")
    return StatedTopology(name if isinstance(name, str) else None, levels, aliases)


def _alias_problem(duplicated: list[str], collisions: list[str], *, grove: bool) -> str | None:
    """KAI's words for aliases it refuses (``topology_validator.go`` ``validateAliases``), Grove's for domains.

    As KAI lists them: every repeat of an alias, and every alias equal to a nodeLabel, each sorted.
    """
    if grove:
        return f"domain {duplicated[0]!r} is listed twice" if duplicated else None
    problems = []
    if duplicated:
        problems.append(f"aliases must be unique within the topology; duplicated: [{' '.join(sorted(duplicated))}]")
    if collisions:
        problems.append(f"an alias must not equal a nodeLabel; conflicting: [{' '.join(sorted(collisions))}]")
    return f"invalid topology aliases: {'; '.join(problems)}" if problems else None


def set_levels(
    cluster: Cluster, levels: list[str], stated_in: str | None = None, *, stated: StatedTopology | None = None
) -> None:
    """Use stated levels, refusing one that no node carries (a typo would otherwise match nothing).

    ``stated`` (the object the levels come from) gives the cluster its topology name and aliases.

    Raises:
        TopologyError: a level no node of the cluster has.
    """
    present = label_keys(cluster.nodes)
    for index, level in enumerate(levels):
        if level not in present:
            raise TopologyError(
                f"no node of {cluster.source or cluster.name} has the label {level!r}",
                file=stated_in,
                field=f"spec.levels[{index}]" if stated_in else f"levels[{index}]",
            )
    cluster.levels = list(levels)
    if stated is not None:
        cluster.topology = stated.name
        cluster.aliases = dict(stated.aliases)


def cluster_from_objects(
    node_objects: Sequence[Any],
    pod_objects: Sequence[Any] | None = None,
    *,
    levels: Sequence[str] | None = None,
    topology_objects: Sequence[Any] | None = None,
    name: str = "cluster",
    source: str = "cluster",
) -> Cluster:
    """Build a cluster from Node (and Pod) objects already in memory, e.g. fetched from a live API server.

    Args:
        node_objects: ``Node`` dicts, or ``NodeList``/``List`` dicts.
        pod_objects: ``Pod`` dicts or lists; running pods use capacity (see :func:`apply_pods`).
        levels: explicit levels (validated like a KAI/Kueue Topology).
        topology_objects: documents holding one KAI/Kueue ``Topology`` stating the levels.
        name: the cluster name.
        source: where the objects came from (used in messages).

    Raises:
        TopologyError: as :func:`nodes_from_documents`, :func:`apply_pods` and
            :func:`topology_object_levels`, or both ``levels`` and ``topology_objects`` given.
    """
    if levels is not None and topology_objects is not None:
        raise ValueError("give either explicit levels or a Topology object, not both")
    nodes = nodes_from_documents(list(node_objects), file=source)
    cluster = Cluster(name=name, nodes=nodes, levels=detect_levels(nodes), source=source)
    if pod_objects is not None:
        apply_pods(cluster, list(pod_objects), file=source)
    if topology_objects is not None:
        stated = stated_topology(list(topology_objects), file=source)
        set_levels(cluster, stated.levels, stated_in=source, stated=stated)
    elif levels is not None:
        set_levels(cluster, validate_levels(list(levels)))
    return cluster
