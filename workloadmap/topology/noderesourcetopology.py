"""Nodes' NUMA layouts from ``NodeResourceTopology`` objects, and such objects for simulated nodes.

The object (``topology.node.k8s.io/v1alpha2``, kubernetes-sigs/noderesourcetopology-api, as NFD's
topology-updater and the topology-aware scheduler plugins publish it) is named after its node and
holds ``zones``; a zone of ``type: Node`` is one NUMA node (``node-<id>``), with ``resources``
(``name``, ``capacity``, ``allocatable``, ``available``: quantities) and ``costs`` (``name`` of
another zone, ``value`` the distance). The node's ``attributes`` ``topologyManagerPolicy`` and
``topologyManagerScope`` (or, in older objects, ``topologyPolicies`` such as
``SingleNUMANodeContainerLevel``) state the kubelet's settings; where they are absent the
defaults given (``--topology-manager-policy``/``--topology-manager-scope``, else the kubelet's
``none``/``container``) apply. A node that states its policy runs with it, so its kubelet has
``max-allowable-numa-nodes`` at least its NUMA node count.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from .. import labels
from ..errors import QuantityError, TopologyError
from ..numa import NumaLayout, TopologyManager, TopologyManagerPolicy, TopologyManagerScope, Zone, ZoneResource
from ..quantities import format_quantity, is_binary_resource, parse_quantity
from ..values import list_field
from .model import Cluster

__all__ = [
    "split_topology_objects",
    "read_node_topologies",
    "attach_node_topologies",
    "simulated_layout",
    "node_topology_objects",
    "is_node_topology",
    "apply_topology_manager",
    "numa_summary",
]

_LEGACY_POLICIES = {
    "None": (TopologyManagerPolicy.NONE, TopologyManagerScope.CONTAINER),
    "BestEffortContainerLevel": (TopologyManagerPolicy.BEST_EFFORT, TopologyManagerScope.CONTAINER),
    "BestEffortPodLevel": (TopologyManagerPolicy.BEST_EFFORT, TopologyManagerScope.POD),
    "RestrictedContainerLevel": (TopologyManagerPolicy.RESTRICTED, TopologyManagerScope.CONTAINER),
    "RestrictedPodLevel": (TopologyManagerPolicy.RESTRICTED, TopologyManagerScope.POD),
    "SingleNUMANodeContainerLevel": (TopologyManagerPolicy.SINGLE_NUMA_NODE, TopologyManagerScope.CONTAINER),
    "SingleNUMANodePodLevel": (TopologyManagerPolicy.SINGLE_NUMA_NODE, TopologyManagerScope.POD),
}
"""v1alpha1 ``topologyPolicies`` values (noderesourcetopology-api ``TopologyManagerPolicy``)."""

_AMOUNTS = ("capacity", "allocatable", "available")


def is_node_topology(obj: Any) -> bool:
    """Whether an object is a ``NodeResourceTopology``."""
    return isinstance(obj, Mapping) and obj.get("kind") == labels.NRT_KIND


def split_topology_objects(documents: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """Documents without their ``NodeResourceTopology`` objects, and those objects (Lists opened)."""
    others: list[Any] = []
    found: list[Any] = []
    for document in documents:
        if is_node_topology(document):
            found.append(document)
        elif isinstance(document, Mapping) and str(document.get("kind", "")).endswith("List"):
            items = document.get("items")
            if isinstance(items, list) and any(is_node_topology(item) for item in items):
                found += [item for item in items if is_node_topology(item)]
                rest = [item for item in items if not is_node_topology(item)]
                if rest:
                    others.append({**document, "items": rest})
                continue
            others.append(document)
        else:
            others.append(document)
    return others, found


def _item(value: Any, file: str, document: str, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping) or not isinstance(value.get("name"), str):
        raise TopologyError("expected a mapping with a name", file=file, document=document, field=field)
    return value


def _amount(raw: Any, file: str, document: str, field: str) -> Fraction:
    try:
        amount = parse_quantity(raw)
    except QuantityError as error:
        raise TopologyError(error.message, file=file, document=document, field=field) from None
    if amount < 0:
        raise TopologyError("must not be negative", file=file, document=document, field=field)
    return amount


def _resources(zone: Mapping[str, Any], file: str, where: str, path: str) -> tuple[ZoneResource, ...]:
    found = []
    for index, raw in enumerate(
        list_field(zone.get("resources"), f"{path}.resources", error=TopologyError, file=file, document=where)
    ):
        field = f"{path}.resources[{index}]"
        item = _item(raw, file, where, field)
        amounts = {key: item.get(key) for key in _AMOUNTS}
        if all(value is None for value in amounts.values()):
            raise TopologyError("states no capacity, allocatable or available", file=file, document=where, field=field)
        parsed = {
            key: _amount(value, file, where, f"{field}.{key}") for key, value in amounts.items() if value is not None
        }
        allocatable = parsed.get("allocatable", parsed.get("capacity", parsed.get("available")))
        capacity = parsed.get("capacity", allocatable)
        available = parsed.get("available", allocatable)
        assert capacity is not None and allocatable is not None and available is not None
        found.append(ZoneResource(str(item["name"]), capacity, allocatable, available))
    return tuple(sorted(found, key=lambda resource: resource.name))


def _zone_id(name: str, position: int) -> int:
    head, _, number = name.rpartition("-")
    return int(number) if head and number.isdigit() else position


def _zones(obj: Mapping[str, Any], file: str, where: str) -> tuple[Zone, ...]:
    raw_zones = [
        (index, _item(zone, file, where, f"zones[{index}]"))
        for index, zone in enumerate(
            list_field(obj.get("zones"), "zones", error=TopologyError, file=file, document=where)
        )
    ]
    numa = [
        (index, zone) for index, zone in raw_zones if zone.get("type", labels.NRT_ZONE_TYPE) == labels.NRT_ZONE_TYPE
    ]
    ids = {str(zone["name"]): _zone_id(str(zone["name"]), position) for position, (_, zone) in enumerate(numa)}
    if len(set(ids.values())) != len(ids):
        raise TopologyError("two NUMA zones have the same id", file=file, document=where, field="zones")
    zones = []
    for index, zone in numa:
        costs = []
        for number, cost in enumerate(
            list_field(zone.get("costs"), f"zones[{index}].costs", error=TopologyError, file=file, document=where)
        ):
            cost = _item(cost, file, where, f"zones[{index}].costs[{number}]")
            if str(cost["name"]) in ids and isinstance(cost.get("value"), int):
                costs.append((ids[str(cost["name"])], int(cost["value"])))
        zones.append(
            Zone(
                ids[str(zone["name"])],
                str(zone["name"]),
                _resources(zone, file, where, f"zones[{index}]"),
                tuple(sorted(costs)),
            )
        )
    return tuple(sorted(zones, key=lambda zone: zone.id))


def _stated(
    obj: Mapping[str, Any], file: str, where: str
) -> tuple[TopologyManagerPolicy | None, TopologyManagerScope | None]:
    attributes = {
        str(item["name"]): item.get("value")
        for index, raw in enumerate(
            list_field(obj.get("attributes"), "attributes", error=TopologyError, file=file, document=where)
        )
        for item in [_item(raw, file, where, f"attributes[{index}]")]
    }
    policy = scope = None
    for legacy in list_field(
        obj.get("topologyPolicies"), "topologyPolicies", error=TopologyError, file=file, document=where
    ):
        if legacy in _LEGACY_POLICIES:
            policy, scope = _LEGACY_POLICIES[legacy]
    try:
        if attributes.get(labels.NRT_POLICY_ATTRIBUTE) is not None:
            policy = TopologyManagerPolicy(attributes[labels.NRT_POLICY_ATTRIBUTE])
        if attributes.get(labels.NRT_SCOPE_ATTRIBUTE) is not None:
            scope = TopologyManagerScope(attributes[labels.NRT_SCOPE_ATTRIBUTE])
    except ValueError as error:
        raise TopologyError(
            f"unknown topology manager setting: {error}", file=file, document=where, field="attributes"
        ) from None
    return policy, scope


def _manager(
    defaults: TopologyManager, policy: TopologyManagerPolicy | None, scope: TopologyManagerScope | None, zones: int
) -> TopologyManager:
    if policy is None and scope is None:
        return replace(defaults, stated=False)
    return replace(
        defaults,
        policy=policy or defaults.policy,
        scope=scope or defaults.scope,
        max_allowable_numa_nodes=max(defaults.max_allowable_numa_nodes, zones),
        stated=True,
    )


def read_node_topologies(
    objects: Sequence[Any], *, file: str = "-", defaults: TopologyManager | None = None
) -> dict[str, NumaLayout]:
    """Node name to NUMA layout, from ``NodeResourceTopology`` objects (and their Lists).

    Raises:
        TopologyError: an object of another kind, a misshapen field or a bad quantity (named).
    """
    defaults = defaults or TopologyManager()
    others, found = split_topology_objects(objects)
    for number, other in enumerate(others, start=1):
        empty_list = (
            isinstance(other, Mapping) and str(other.get("kind", "")).endswith("List") and not other.get("items")
        )
        if not empty_list:
            kind = other.get("kind") if isinstance(other, Mapping) else type(other).__name__
            raise TopologyError(f"expected {labels.NRT_KIND} objects, got {kind!r}", file=file, document=f"#{number}")
    layouts: dict[str, NumaLayout] = {}
    interned: dict[NumaLayout, NumaLayout] = {}  # nodes alike share one layout: cheap cache keys
    for number, obj in enumerate(found, start=1):
        metadata = obj.get("metadata")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        where = f"{labels.NRT_KIND} {name}" if isinstance(name, str) else f"#{number}"
        if not isinstance(name, str) or not name:
            raise TopologyError("missing the node's name", file=file, document=where, field="metadata.name")
        if name in layouts:
            raise TopologyError(f"node {name!r} has two objects", file=file, document=where, field="metadata.name")
        zones = _zones(obj, file, where)
        policy, scope = _stated(obj, file, where)
        layout = NumaLayout(zones, _manager(defaults, policy, scope, len(zones)), file)
        layouts[name] = interned.setdefault(layout, layout)
    return layouts


def attach_node_topologies(cluster: Cluster, layouts: Mapping[str, NumaLayout]) -> list[str]:
    """Give each node of the cluster its layout; return the names of objects for nodes it lacks."""
    by_name = {node.name: node for node in cluster.nodes}
    unknown = []
    for name, layout in layouts.items():
        node = by_name.get(name)
        if node is None:
            unknown.append(name)
        elif layout.zones:
            node.numa = layout
    return unknown


def simulated_layout(
    allocatable: Mapping[str, Fraction],
    numa_nodes: int,
    manager: TopologyManager | None = None,
    source: str = "simulation",
) -> NumaLayout:
    """A node's allocatable split evenly over ``numa_nodes`` NUMA nodes (each GPU, CPU, byte on one).

    Distances are 10 within a NUMA node and 21 between two, as on a two-socket server.
    """
    if numa_nodes < 1:
        raise TopologyError(f"a node needs at least 1 NUMA node, got {numa_nodes}", field="numa_nodes")
    zones = []
    for zone in range(numa_nodes):
        resources = []
        for name, amount in sorted(allocatable.items()):
            if name in ("pods", "ephemeral-storage"):
                continue
            whole = amount // numa_nodes if name != "memory" else amount / numa_nodes
            share = Fraction(whole) + (1 if name != "memory" and zone < amount % numa_nodes else 0)
            resources.append(ZoneResource(name, share, share, share))
        costs = tuple((other, 10 if other == zone else 21) for other in range(numa_nodes))
        zones.append(Zone(zone, f"node-{zone}", tuple(resources), costs))
    return NumaLayout(tuple(zones), manager or TopologyManager(), source)


def _zone_object(zone: Zone) -> dict[str, Any]:
    return {
        "name": zone.name,
        "type": labels.NRT_ZONE_TYPE,
        "costs": [{"name": f"node-{other}", "value": value} for other, value in zone.costs],
        "resources": [
            {key: format_quantity(getattr(item, key), binary=is_binary_resource(item.name)) for key in _AMOUNTS}
            | {"name": item.name}
            for item in zone.resources
        ],
    }


def node_topology_objects(cluster: Cluster) -> Iterator[dict[str, Any]]:
    """One ``NodeResourceTopology`` object per node with a NUMA layout (as NFD would publish it)."""
    for node in cluster.nodes:
        if node.numa is None:
            continue
        attributes = []
        if node.numa.manager.stated:
            attributes = [
                {"name": labels.NRT_POLICY_ATTRIBUTE, "value": node.numa.manager.policy.value},
                {"name": labels.NRT_SCOPE_ATTRIBUTE, "value": node.numa.manager.scope.value},
            ]
        yield {
            "apiVersion": labels.NRT_API_VERSION,
            "kind": labels.NRT_KIND,
            "metadata": {"name": node.name},
            "attributes": attributes,
            "zones": [_zone_object(zone) for zone in node.numa.zones],
        }


def apply_topology_manager(cluster: Cluster, manager: TopologyManager) -> None:
    """The kubelet settings given for nodes whose objects do not state them; options for every node.

    A node that states its policy keeps it (and runs, so its ``max-allowable-numa-nodes`` covers
    its NUMA nodes); ``prefer-closest-numa-nodes`` applies to all.
    """
    interned: dict[NumaLayout, NumaLayout] = {}
    for node in cluster.nodes:
        layout = node.numa
        if layout is None:
            continue
        current = layout.manager
        if current.stated:
            chosen = replace(
                current,
                prefer_closest_numa_nodes=manager.prefer_closest_numa_nodes,
                max_allowable_numa_nodes=max(manager.max_allowable_numa_nodes, len(layout.zones)),
            )
        else:
            chosen = replace(manager, stated=False)
        if chosen != current:
            changed = replace(layout, manager=chosen)
            node.numa = interned.setdefault(changed, changed)


def numa_summary(cluster: Cluster) -> list[dict[str, Any]]:
    """Per node with a NUMA layout, its settings and zones with free amounts (JSON-ready)."""
    found = []
    for node in cluster.nodes:
        if node.numa is None:
            continue
        manager = node.numa.manager
        found.append(
            {
                "node": node.name,
                "topologyManagerPolicy": manager.policy.value,
                "topologyManagerScope": manager.scope.value,
                "stated": manager.stated,
                "zones": [
                    {
                        "name": zone.name,
                        "id": zone.id,
                        "costs": {f"node-{other}": value for other, value in zone.costs},
                        "resources": {
                            item.name: {
                                key: format_quantity(getattr(item, key), binary=is_binary_resource(item.name))
                                for key in _AMOUNTS
                            }
                            for item in zone.resources
                        },
                    }
                    for zone in node.numa.zones
                ],
            }
        )
    return found
