"""The PodGroups KAI's Karta fallback would form for a resource, computed offline.

KAI's pod-grouper (``pkg/podgrouper/podgrouper/plugins/karta/grouper.go``) works pod by pod on a
live cluster; wmap has the manifest only, so it stands one representative pod in for each pod
definition (and each replica of a component with a ``replicaSelector``):

- the pod's metadata and spec come from the instance's pod definition;
- its ``componentTypeSelector`` key is set to the selector's value (or to the component name when
  only the key's existence counts) and its ``matchLabels`` are added, so it is recognised as its
  component; its ``componentInstanceSelector`` field holds the instance id; the ``replicaSelector``
  field of its nearest replicated ancestor holds the replica index;
- a ``groupByKeyPaths`` entry that finds nothing on that pod reads a label the operator adds at
  run time (a job name, the owner's UID, the workload name) and is taken to be the same for every
  pod of the workload; an empty ``groupByKeyPaths`` (grouping by owner reference) groups the pods
  of each member instance.

Then, as KAI: the alpha ``podGroups`` format gives each pod the first member, its own component
before its ancestors, whose ``filters`` it passes; pods with equal key tuples share a PodGroup
whose ``minMember`` is ``CalculateSubtreeScale`` of the member (minReplicas when positive, else
replicas, summed over instances, parent times the sum of its children, or the count of pod-bearing
components when no component has a scale). The ``podGroup`` format gives one PodGroup with one
SubGroup per listed component. A replicated ancestor's pods are spread evenly over its replicas.
Without gang instructions KAI's default grouper applies: one PodGroup of every pod, minMember 1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..karta import compile_many, default_engine
from ..karta.model import ComponentDefinition, Karta, PodGroupDefinition, PodGroupMember
from ..tree import GangOrigin, GangSource, PodGroup, PodSet, SubGroup
from .karta_instances import KartaInstance

__all__ = ["form_karta_pod_groups", "subtree_scale"]

_SAME = "*"  # a key the operator sets at run time, the same for every pod of the workload


def _instances_of(roots: Sequence[KartaInstance], name: str) -> list[KartaInstance]:
    return [node for root in roots for node in root.walk() if node.component.name == name]


def subtree_scale(karta: Karta, roots: Sequence[KartaInstance], name: str, instance: str | None = None) -> int:
    """Upstream's ``CalculateSubtreeScale`` for a component (and one of its instances)."""
    components = list(karta.components())
    if any(component.scale_definition is not None for component in components):
        return _by_definition(karta, roots, name, name, instance)
    return _by_leaves(karta, roots, name, name, instance)


def _by_definition(karta: Karta, roots: Sequence[KartaInstance], current: str, top: str, instance: str | None) -> int:
    nodes = _instances_of(roots, current)
    has_scale = next(c for c in karta.components() if c.name == current).scale_definition is not None
    scales = nodes if has_scale else []
    if current == top and instance is not None:
        scale = sum(node.gang_scale for node in scales if node.key == instance)
    else:
        scale = sum(node.gang_scale for node in scales)
    children = karta.children_of(current)
    if not children:
        return scale
    children_sum = sum(_by_definition(karta, roots, child.name, top, instance) for child in children)
    if children_sum == 0:
        return scale
    return children_sum if scale == 0 else scale * children_sum


def _by_leaves(karta: Karta, roots: Sequence[KartaInstance], current: str, top: str, instance: str | None) -> int:
    component = next(c for c in karta.components() if c.name == current)
    if component.has_pod_definition:
        if not component.instance_id_path:
            return 1
        if current == top and instance is not None:
            return 1
        return len(_instances_of(roots, current))
    return sum(_by_leaves(karta, roots, child.name, top, instance) for child in karta.children_of(current))


def _ancestors(karta: Karta, component: ComponentDefinition) -> Iterator[ComponentDefinition]:
    by_name = {c.name: c for c in karta.components()}
    current: ComponentDefinition | None = component
    while current is not None:
        yield current
        current = by_name.get(current.owner_ref or "")


def _spread(total: int, parts: int) -> list[int]:
    """``total`` pods over ``parts`` replicas, the first ones taking one more; replicas left empty are left out."""
    return [total // parts + (1 if index < total % parts else 0) for index in range(min(parts, total))]


def _set(pod: dict[str, Any], path: list[Any] | None, value: Any) -> None:
    if not path or not all(isinstance(key, str) for key in path):
        return
    node = pod
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = node[key] = {}
        node = child
    node[path[-1]] = value


class _Pods:
    """The representative pods of a resource, and jq evaluated on all of them in one round trip."""

    def __init__(self, karta: Karta, roots: Sequence[KartaInstance], workload: str) -> None:
        self.karta = karta
        self.entries: list[tuple[KartaInstance, int, dict[str, Any]]] = []  # (instance, pods, pod)
        selectors = [c.pod_selector for c in karta.components() if c.pod_selector is not None]
        key_paths = (
            [s.component_type_selector.key_path for s in selectors if s.component_type_selector]
            + [s.component_instance_selector.id_path for s in selectors if s.component_instance_selector]
            + [s.replica_selector.key_path for s in selectors if s.replica_selector]
        )
        self._paths = self._locate([path for path in key_paths if path])
        for node in (n for root in roots for n in root.walk()):
            if not node.pods:
                continue
            replicated = next(
                (a for a in _ancestors(karta, node.component) if a.pod_selector and a.pod_selector.replica_selector),
                None,
            )
            owner = _instances_of(roots, replicated.name)[:1] if replicated else []
            parts = max(owner[0].desired, 1) if owner else 1
            for replica, count in enumerate(_spread(node.pods, parts)):
                if count:
                    self.entries.append((node, count, self._pod(node, replica, replicated, workload)))

    @staticmethod
    def _locate(key_paths: list[str]) -> dict[str, list[Any] | None]:
        wanted = {path: f"try [path({path})] catch null" for path in dict.fromkeys(key_paths)}
        programs = compile_many(wanted.values())
        results = default_engine().run(list(programs.values()), None)
        located: dict[str, list[Any] | None] = {}
        for path, text in wanted.items():
            found = (results[programs[text]] or [None])[0]  # [path] when the key path is a plain path
            located[path] = found[0] if isinstance(found, list) and len(found) == 1 else None
        return located

    def _pod(
        self, node: KartaInstance, replica: int, replicated: ComponentDefinition | None, workload: str
    ) -> dict[str, Any]:
        template = node.template or {}
        found = template.get("metadata")
        metadata: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        pod: dict[str, Any] = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"{workload}-{node.key or node.component.name}-{replica}",
                "labels": dict(metadata.get("labels") or {}),
                "annotations": dict(metadata.get("annotations") or {}),
            },
            "spec": template.get("spec") or {},
        }
        selector = node.component.pod_selector
        if selector is not None and selector.component_type_selector is not None:
            type_selector = selector.component_type_selector
            pod["metadata"]["labels"].update(type_selector.match_labels or {})
            if type_selector.key_path:
                _set(pod, self._paths.get(type_selector.key_path), type_selector.value or node.component.name)
        if selector is not None and selector.component_instance_selector is not None and node.key:
            _set(pod, self._paths.get(selector.component_instance_selector.id_path), node.key)
        if replicated is not None and replicated.pod_selector and replicated.pod_selector.replica_selector:
            _set(pod, self._paths.get(replicated.pod_selector.replica_selector.key_path), str(replica))
        return pod

    def evaluate(self, sources: list[str]) -> dict[str, list[Any]]:
        """For each jq source, its first result on every representative pod (None when it gives nothing)."""
        wanted = {source: f"map([{source}] | first)" for source in dict.fromkeys(sources)}
        if not wanted or not self.entries:
            return {source: [None] * len(self.entries) for source in wanted}
        programs = compile_many(wanted.values())
        pods = [pod for _, _, pod in self.entries]
        results = default_engine().run(list(programs.values()), pods)
        return {source: results[programs[text]][0] for source, text in wanted.items()}


def _key(value: Any) -> str:
    if value is None or value == "":
        return _SAME
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def _member_for(
    karta: Karta, node: KartaInstance, groups: list[PodGroupDefinition], passes: Any
) -> tuple[PodGroupDefinition, PodGroupMember] | None:
    for ancestor in _ancestors(karta, node.component):
        for group in groups:
            for member in group.members:
                if member.component_name == ancestor.name and all(passes(text) for text in member.filters):
                    return group, member
    return None


def _source(karta: Karta) -> GangSource:
    return GangSource(GangOrigin.CATALOG, definition=karta.name)


def _alpha_groups(
    karta: Karta, roots: Sequence[KartaInstance], workload: str, groups: list[PodGroupDefinition], warnings: list[str]
) -> list[PodGroup]:
    pods = _Pods(karta, roots, workload)
    members = [member for group in groups for member in group.members]
    sources = [text for member in members for text in [*member.filters, *member.group_by_key_paths]]
    values = pods.evaluate(sources)
    formed: dict[str, PodGroup] = {}
    minimums: dict[str, set[int]] = {}
    for index, (node, count, _) in enumerate(pods.entries):
        found = _member_for(karta, node, groups, lambda text, i=index: values[text][i] is True)
        if found is None:
            warnings.append(
                f"pods of {node.key or node.component.name} match no Karta pod group member; KAI rejects them"
            )
            continue
        _, member = found
        if member.group_by_key_paths:
            keys = [_key(values[text][index]) for text in member.group_by_key_paths]
        else:  # owner-reference grouping: the pods of one member instance
            keys = [member.component_name] + ([node.key] if node.key else [])
        name = "-".join([workload] + [key for key in keys if key != _SAME])
        own = member.component_name == node.component.name and node.key
        minimum = subtree_scale(karta, roots, member.component_name, node.key if own else None)
        group = formed.setdefault(name, PodGroup(name=name, min_member=minimum, source=_source(karta)))
        minimums.setdefault(name, set()).add(minimum)
        group.pods += count
        requests = dict(node.demand.requests) if node.demand is not None else {}
        group.pod_sets.append(PodSet(node.key or node.component.name, count, requests))
    for name, found_minimums in minimums.items():
        if len(found_minimums) > 1:
            warnings.append(
                f"PodGroup {name}: its members give minMember {sorted(found_minimums)}; KAI takes the value of "
                f"whichever pod it groups last (wmap shows {formed[name].min_member})"
            )
    return list(formed.values())


def _pod_group_format(
    karta: Karta, roots: Sequence[KartaInstance], workload: str, warnings: list[str]
) -> list[PodGroup]:
    gang = karta.spec.optimization_instructions.gang_scheduling
    assert gang is not None and gang.pod_group is not None
    mapping = gang.pod_group
    total = sum(node.pods for root in roots for node in root.walk())
    group = PodGroup(name=f"{workload}-{mapping.name}", min_member=0, pods=total, source=_source(karta))
    for sub in mapping.sub_groups:
        minimum = subtree_scale(karta, roots, sub.component_name)
        if minimum == 0:
            warnings.append(f"subgroup {sub.component_name} has no replica scale; KAI rejects the PodGroup")
            continue
        nodes = [n for top in _instances_of(roots, sub.component_name) for n in top.walk()]
        pods = sum(node.pods for node in nodes)
        group.sub_groups.append(SubGroup(name=sub.component_name, min_member=minimum, pods=pods))
    if group.sub_groups:
        # KAI plugins/karta/grouper.go: with SubGroups the root is gated by minSubGroup = their number
        # (grouper_test.go TestGetPodGroupMetadata_PodGroupV2: minSubGroup 2, MinAvailable 0).
        group.min_sub_group = len(group.sub_groups)
        group.min_member = sum(sub.min_member for sub in group.sub_groups)
    else:
        group.min_member = subtree_scale(karta, roots, karta.root.name)
    return [group] if total else []


def form_karta_pod_groups(
    karta: Karta, resource: Mapping[str, Any], workload: str, roots: Sequence[KartaInstance], warnings: list[str]
) -> list[PodGroup]:
    """The PodGroups of a resource under a Karta's gang-scheduling instructions (see the module docstring)."""
    del resource  # the representative pods carry what the instructions read
    gang = karta.spec.optimization_instructions.gang_scheduling
    if gang is None or not (gang.pod_groups or gang.pod_group):
        # KAI's Karta grouper hands a Karta without instructions to its default grouper: one
        # PodGroup for the top owner, minMember 1 (grouper.go GetPodGroupMetadata).
        total = sum(node.pods for root in roots for node in root.walk())
        return [PodGroup(name=workload, min_member=1, pods=total, source=_source(karta))] if total else []
    groups = []
    if gang.pod_group is not None:
        groups = _pod_group_format(karta, roots, workload, warnings)
    elif gang.pod_groups:
        groups = _alpha_groups(karta, roots, workload, gang.pod_groups, warnings)
    for group in groups:
        if group.min_member > group.pods:
            warnings.append(
                f"PodGroup {group.name}: minMember {group.min_member} is more than its {group.pods} pods "
                "(the Karta's scales count past the workload); the gang can never be admitted"
            )
    return groups
