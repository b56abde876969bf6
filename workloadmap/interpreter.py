"""The interpreter: expands a custom resource into a :class:`~workloadmap.tree.WorkloadTree`.

It looks the resource's group and kind up in the catalog, walks the definition's components
(multi-instance components give one node per instance, nested components multiply by their
parents' replicas), computes each pod template's effective request, totals pods, GPUs and every
resource, maps the status to a phase, and forms the gangs (:mod:`workloadmap.gangs`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .catalog import NON_WORKLOAD_KINDS, Catalog
from .definitions import ComponentDefinition, Definition
from .documents import Document, load_objects
from .errors import ExpressionError, InputError, NoDefinitionError, WorkloadMapError
from .phases import evaluate_phase
from .resources import DEFAULT_GPU_RESOURCES, PodDemand, add_resources, format_resources, pod_demand
from .tree import Component, Totals, WorkloadRef, WorkloadTree

__all__ = [
    "inspect",
    "inspect_file",
    "inspect_documents",
    "InspectResult",
    "RelatedObjects",
    "ExpandedComponent",
    "Expander",
    "resolve_references",
    "evaluate_count",
]

# Topology annotations a user may already have put on a workload (KAI on the top owner, Kueue on
# pod templates); placement reads them as the workload's own requirements.
_TOPOLOGY_ANNOTATION_PREFIXES = ("kai.scheduler/topology", "kai.scheduler/segment", "kueue.x-k8s.io/podset-")

_MAX_REPLICAS = 10_000_000


@dataclass
class ExpandedComponent:
    """A component of one resource, with its counts evaluated (internal to the interpreter and gangs).

    ``parent_replicas`` is the product of the replicas of every ancestor; ``parent_gang_replicas``
    the same with each ancestor counted at its gang (minimum-first) scale.
    """

    definition: ComponentDefinition
    name: str
    path: str
    instance: str | None
    scope: Any
    replicas: int
    min_replicas: int | None
    max_replicas: int | None
    pods_per_replica: int
    parent_replicas: int
    parent_gang_replicas: int
    parent_max_replicas: int | None
    demand: PodDemand | None = None
    kind: str | None = None
    template: Mapping | None = None
    template_path: list[str | int] | None = None
    children: list["ExpandedComponent"] = field(default_factory=list)

    @property
    def gang_replicas(self) -> int:
        """Replicas a gang scheduler waits for: minReplicas when positive, else replicas (KAI's rule)."""
        if self.min_replicas is not None and self.min_replicas > 0:
            return self.min_replicas
        return self.replicas

    @property
    def has_pods(self) -> bool:
        return self.demand is not None

    def pods(self) -> int:
        """Pods of this component in the whole workload at the declared scale."""
        if self.has_pods:
            return self.parent_replicas * self.replicas * self.pods_per_replica
        return sum(child.pods() for child in self.children)

    def pods_per_parent_replica(self) -> int:
        """Pods of this component (subtree) inside one replica of its parent."""
        if self.has_pods:
            return self.replicas * self.pods_per_replica
        return self.replicas * sum(child.pods_per_parent_replica() for child in self.children)

    def walk(self) -> Iterator["ExpandedComponent"]:
        yield self
        for child in self.children:
            yield from child.walk()

    def leaves(self) -> Iterator["ExpandedComponent"]:
        """Pod-bearing components of this subtree."""
        for node in self.walk():
            if node.has_pods:
                yield node


def _to_count(value: Any, what: str, source: str) -> int:
    if isinstance(value, bool):
        raise InputError(f"{what} must be a number, got {str(value).lower()}", field=source)
    if isinstance(value, int):
        count = value
    elif isinstance(value, float) and value.is_integer():
        count = int(value)
    elif isinstance(value, str) and value.strip().lstrip("+").isdigit():
        count = int(value.strip())
    else:
        shown = value if not isinstance(value, (dict, list)) else type(value).__name__
        raise InputError(f"{what} must be a whole number, got {shown!r}", field=source)
    if count < 0:
        raise InputError(f"{what} must not be negative, got {count}", field=source)
    if count > _MAX_REPLICAS:
        raise InputError(f"{what} of {count} is beyond any real cluster (refused)", field=source)
    return count


def evaluate_count(
    model: Any,
    field_name: str,
    scope: Any,
    *,
    root: Any,
    refs: Mapping[str, Any] | None,
    what: str,
    field: str | None = None,
) -> int | None:
    """A count field of a definition model: a constant, a numeric string, or a compiled expression.

    Returns None when the field is unset or the expression yields null (the caller's default applies).

    Raises:
        InputError: the expression gave something that is not a whole, non-negative number.
        ExpressionError: the expression failed on this resource.
    """
    value = getattr(model, field_name)
    if value is None:
        return None
    if isinstance(value, int):
        return value
    if value.strip().isdigit():
        return int(value)
    expression = model.compiled(field_name)
    if expression is None:
        return None
    where = field or expression.source
    try:
        result = expression.search(scope, root=root, refs=refs)
    except ExpressionError as error:
        raise error.located(field=where)
    if result is None:
        return None
    return _to_count(result, what, where)


_FIELD_WORDS = {
    "replicas": "replicas",
    "min_replicas": "minReplicas",
    "max_replicas": "maxReplicas",
    "pods_per_replica": "pods per replica",
}


def _format_path(path: list[str | int]) -> str:
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif text:
            text += f".{part}"
        else:
            text = str(part)
    return text


class Expander:
    """Walks one resource through one definition (the interpreter's engine; lint reuses it).

    ``catalog`` resolves embedded resources (AppWrapper); ``refs`` holds resolved references;
    ``path_root`` is the outermost object, so template paths of embedded resources are absolute.
    """

    def __init__(
        self,
        definition: Definition,
        resource: Mapping,
        *,
        catalog: Catalog | None = None,
        refs: Mapping[str, Any] | None = None,
        path_root: Mapping | None = None,
        depth: int = 0,
    ) -> None:
        self.definition = definition
        self.resource = resource
        self.catalog = catalog
        self.refs = dict(refs or {})
        self.path_root = path_root if path_root is not None else resource
        self.depth = depth
        self._paths: dict[int, list[str | int]] | None = None

    # -- evaluation helpers --------------------------------------------------------------
    def _evaluate(self, model, field_name: str, scope: Any) -> Any:
        expression = model.compiled(field_name)
        if expression is None:
            return None
        try:
            return expression.search(scope, root=self.resource, refs=self.refs)
        except ExpressionError as error:
            raise error.located(field=expression.source)

    def _count(self, component: ComponentDefinition, field_name: str, scope: Any, default: int | None) -> int | None:
        expression = component.compiled(field_name)
        source = expression.source if expression is not None else str(getattr(component, field_name))
        count = evaluate_count(
            component,
            field_name,
            scope,
            root=self.resource,
            refs=self.refs,
            what=f"{_FIELD_WORDS.get(field_name, field_name)} of component {component.name}",
            field=self._field_path(scope, source),
        )
        return default if count is None else count

    def _field_path(self, scope: Any, source: str) -> str:
        """An expression's field, made absolute when it runs inside an instance element."""
        if scope is self.path_root:
            return source
        prefix = self._template_path(scope)
        return f"{_format_path(prefix)}.{source}" if prefix else source

    def _template_path(self, template: Any) -> list[str | int] | None:
        """Where a pod template sits inside the resource, found by identity (works for any language)."""
        if self._paths is None:
            self._paths = {}
            stack: list[tuple[Any, list[str | int]]] = [(self.path_root, [])]
            while stack:
                node, path = stack.pop()
                if isinstance(node, dict):
                    self._paths.setdefault(id(node), path)
                    stack.extend((value, path + [key]) for key, value in node.items() if isinstance(value, (dict, list)))
                elif isinstance(node, list):
                    stack.extend((value, path + [index]) for index, value in enumerate(node) if isinstance(value, (dict, list)))
        return self._paths.get(id(template))

    # -- expansion -------------------------------------------------------------------------
    def expand(
        self,
        parent_path: str = "",
        parent_replicas: int = 1,
        parent_gang_replicas: int = 1,
        parent_max_replicas: int | None = None,
    ) -> list[ExpandedComponent]:
        nodes: list[ExpandedComponent] = []
        for component in self.definition.components:
            nodes.extend(
                self._expand(component, self.resource, parent_path, parent_replicas, parent_gang_replicas, parent_max_replicas)
            )
        return nodes

    def _embedded(self, component: ComponentDefinition, scope: Any) -> list[tuple[str, Any]]:
        """Embedded Kubernetes objects of a `resource` component, named by their metadata.name."""
        result = self._evaluate(component, "resource", scope)
        source = component.compiled("resource").source  # type: ignore[union-attr]
        if result is None:
            return []
        objects = result if isinstance(result, list) else [result]
        pairs = []
        for index, embedded in enumerate(objects):
            if not isinstance(embedded, Mapping):
                raise InputError(f"{component.name} embedded resource must be a mapping", field=f"{source}[{index}]")
            metadata = embedded.get("metadata") if isinstance(embedded.get("metadata"), Mapping) else {}
            name = metadata.get("name") or f"{str(embedded.get('kind') or 'object').lower()}-{index}"
            pairs.append((str(name), embedded))
        return pairs

    def _expand_embedded(self, embedded: Mapping, where: str, *bases: Any) -> tuple[str | None, list[ExpandedComponent]]:
        """Expand an embedded object through its own definition, under this component's replicas."""
        if self.catalog is None or self.depth >= 4:
            raise InputError("embedded resources nest too deeply (refused)", field=where)
        api_version, kind = embedded.get("apiVersion"), embedded.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            raise InputError("embedded resource needs apiVersion and kind", field=where)
        lookup = self.catalog.lookup(api_version, kind)
        if lookup is None:
            raise NoDefinitionError(
                f"no definition covers embedded kind {kind} ({api_version}); see `wmap catalog list`",
                api_version=api_version,
                kind=kind,
                field=where,
            )
        nested = Expander(lookup.definition, embedded, catalog=self.catalog, path_root=self.path_root, depth=self.depth + 1)
        return kind, nested.expand(*bases)

    def _instances(self, component: ComponentDefinition, scope: Any) -> list[tuple[str | None, Any]]:
        if not component.instances:
            return [(None, scope)]
        result = self._evaluate(component, "instances", scope)
        source = component.compiled("instances").source  # type: ignore[union-attr]
        if result is None:
            return []
        if isinstance(result, Mapping):
            pairs = [(str(key), value) for key, value in result.items()]
        elif isinstance(result, list):
            pairs = []
            for index, element in enumerate(result):
                name = None
                if component.instance_name:
                    name = self._evaluate(component, "instance_name", element)
                elif isinstance(element, Mapping):
                    name = element.get("name")
                pairs.append((str(name) if name not in (None, "") else str(index), element))
        else:
            raise InputError(f"{component.name} instances must be a list or a mapping, got {type(result).__name__}", field=source)
        duplicates = sorted(name for name, count in Counter(name for name, _ in pairs).items() if count > 1)
        if duplicates:
            raise InputError(f"{component.name} instance name {duplicates[0]!r} appears more than once", field=source)
        return pairs

    def _expand(
        self,
        component: ComponentDefinition,
        scope: Any,
        parent_path: str,
        parent_replicas: int,
        parent_gang_replicas: int,
        parent_max_replicas: int | None,
    ) -> list[ExpandedComponent]:
        expanded = []
        pairs = self._embedded(component, scope) if component.resource else self._instances(component, scope)
        for position, (instance, element) in enumerate(pairs):
            name = instance if instance is not None else component.name
            path = f"{parent_path}/{name}" if parent_path else name
            template, spec, where = self._pod_source(component, element, instance)
            if (component.pod_template or component.pod_spec) and spec is None:
                continue  # the role is optional and absent in this resource (e.g. no Master replica spec)
            active = True
            if component.active:
                active = self._truthy(self._evaluate(component, "active", element))
            replicas = self._count(component, "replicas", element, 1) if active else 0
            min_replicas = self._count(component, "min_replicas", element, None) if active else 0
            max_replicas = self._count(component, "max_replicas", element, None)
            pods_per_replica = self._count(component, "pods_per_replica", element, 1)
            demand = None
            if spec is not None:
                try:
                    demand = pod_demand(spec, where)
                except InputError as error:
                    raise error.located(field=where)
            node = ExpandedComponent(
                definition=component,
                name=name,
                path=path,
                instance=instance,
                scope=element,
                replicas=replicas,  # type: ignore[arg-type]
                min_replicas=min_replicas,
                max_replicas=max_replicas,
                pods_per_replica=pods_per_replica,  # type: ignore[arg-type]
                parent_replicas=parent_replicas,
                parent_gang_replicas=parent_gang_replicas,
                parent_max_replicas=parent_max_replicas,
                demand=demand,
                kind=component.kind,
                template=template,
                template_path=self._template_path(template) if template is not None else None,
            )
            child_max = None
            if parent_max_replicas is not None or max_replicas is not None:
                child_max = (parent_max_replicas or parent_replicas) * (max_replicas if max_replicas is not None else replicas)  # type: ignore[operator]
            if component.resource:
                source = component.compiled("resource").source  # type: ignore[union-attr]
                node.kind, nested = self._expand_embedded(
                    element,
                    f"{source}[{position}]",
                    path,
                    parent_replicas * node.replicas,
                    parent_gang_replicas * node.gang_replicas,
                    child_max,
                )
                node.children.extend(nested)
            for child in component.components:
                node.children.extend(
                    self._expand(
                        child,
                        element,
                        path,
                        parent_replicas * node.replicas,
                        parent_gang_replicas * node.gang_replicas,
                        child_max,
                    )
                )
            expanded.append(node)
        return expanded

    @staticmethod
    def _truthy(value: Any) -> bool:
        return not (value is None or value is False or value == "" or value == [] or value == {})

    def _pod_source(self, component: ComponentDefinition, element: Any, instance: str | None):
        """``(template, pod_spec, where)`` for a component; where is the spec's path for errors."""
        label = f"{component.name}[{instance}]" if instance is not None else component.name
        if component.pod_template:
            expression = component.compiled("pod_template")
            template = self._evaluate(component, "pod_template", element)
            if template is None:
                return None, None, ""
            found = self._template_path(template)
            source = _format_path(found) if found else self._field_path(element, expression.source)  # type: ignore[union-attr]
            if not isinstance(template, Mapping):
                raise InputError(
                    f"pod template of component {label} must be a mapping, got {type(template).__name__}", field=source
                )
            spec = template.get("spec")
            if spec is None:
                raise InputError(f"pod template of component {label} has no spec", field=f"{source}.spec")
            if not isinstance(spec, Mapping):
                raise InputError(f"pod template spec of component {label} must be a mapping", field=f"{source}.spec")
            return template, spec, f"{source}.spec"
        if component.pod_spec:
            expression = component.compiled("pod_spec")
            spec = self._evaluate(component, "pod_spec", element)
            if spec is None:
                return None, None, ""
            found = self._template_path(spec)
            source = _format_path(found) if found else self._field_path(element, expression.source)  # type: ignore[union-attr]
            if not isinstance(spec, Mapping):
                raise InputError(f"pod spec of component {label} must be a mapping, got {type(spec).__name__}", field=source)
            metadata = self._evaluate(component, "pod_metadata", element) if component.pod_metadata else None
            template = {"metadata": metadata if isinstance(metadata, Mapping) else {}, "spec": spec}
            return template, spec, source
        return None, None, ""


def _number(amount: Fraction) -> int | float:
    return amount.numerator if amount.denominator == 1 else float(amount)


def _topology_annotations(metadata: Any) -> dict[str, str]:
    if not isinstance(metadata, Mapping):
        return {}
    annotations = metadata.get("annotations")
    if not isinstance(annotations, Mapping):
        return {}
    return {
        str(key): str(value)
        for key, value in annotations.items()
        if str(key).startswith(_TOPOLOGY_ANNOTATION_PREFIXES)
    }


def _component_model(node: ExpandedComponent, gpu_resources: tuple[str, ...]) -> Component:
    children = [_component_model(child, gpu_resources) for child in node.children]
    pods = node.pods()
    min_pods_factor = node.min_replicas if node.min_replicas is not None else node.replicas
    if node.has_pods:
        assert node.demand is not None
        gpus_per_pod = node.demand.gpus(gpu_resources)
        gpus = gpus_per_pod * pods
        min_pods = node.parent_gang_replicas * min_pods_factor * node.pods_per_replica
        max_pods = None
        if node.max_replicas is not None or node.parent_max_replicas is not None:
            parent_max = node.parent_max_replicas if node.parent_max_replicas is not None else node.parent_replicas
            own_max = node.max_replicas if node.max_replicas is not None else node.replicas
            max_pods = parent_max * own_max * node.pods_per_replica
        pod_resources = format_resources(node.demand.requests)
        claims = [dict(claim) for claim in node.demand.resource_claims]
    else:
        gpus_per_pod = Fraction(0)
        gpus = sum((Fraction(str(child.gpus)) for child in children), Fraction(0))
        min_pods = sum(child.min_pods for child in children)
        max_pods = None
        pod_resources = {}
        claims = []
    return Component(
        name=node.name,
        role=node.definition.name,
        instance=node.instance,
        kind=node.kind,
        replicas=node.replicas,
        min_replicas=node.min_replicas,
        max_replicas=node.max_replicas,
        pods_per_replica=node.pods_per_replica,
        parent_replicas=node.parent_replicas,
        pods=pods,
        min_pods=min_pods,
        max_pods=max_pods,
        has_pod_template=node.has_pods,
        per_node=node.definition.per_node,
        pod_resources=pod_resources,
        gpus_per_pod=_number(gpus_per_pod),
        gpus=_number(gpus),
        resource_claims=claims,
        topology_annotations=_topology_annotations((node.template or {}).get("metadata")),
        template_path=node.template_path,
        components=children,
    )


def _require_metadata(resource: Mapping) -> tuple[str, str, str, str | None]:
    api_version = resource.get("apiVersion")
    kind = resource.get("kind")
    if not isinstance(api_version, str) or not api_version:
        raise InputError("missing or invalid apiVersion", field="apiVersion")
    if not isinstance(kind, str) or not kind:
        raise InputError("missing or invalid kind", field="kind")
    metadata = resource.get("metadata")
    if not isinstance(metadata, Mapping):
        raise InputError("missing metadata", field="metadata")
    name = metadata.get("name") or metadata.get("generateName")
    if not isinstance(name, str) or not name:
        raise InputError("missing metadata.name", field="metadata.name")
    namespace = metadata.get("namespace")
    if namespace is not None and not isinstance(namespace, str):
        raise InputError("metadata.namespace must be a string", field="metadata.namespace")
    return api_version, kind, name, namespace


def inspect(
    resource: Mapping,
    *,
    catalog: Catalog | None = None,
    gpu_resources: Iterable[str] = DEFAULT_GPU_RESOURCES,
    source: str | None = None,
    related: "RelatedObjects | None" = None,
) -> WorkloadTree:
    """Expand one Kubernetes object into a normalized :class:`WorkloadTree`.

    Args:
        resource: the object (a parsed manifest or an object read from a cluster).
        catalog: definitions to use; the built-in catalog when omitted.
        gpu_resources: extended-resource names counted as GPUs.
        source: the file it came from, recorded in the tree.
        related: other objects the workload may reference (a TrainJob's runtime).

    Raises:
        NoDefinitionError: no definition covers the kind.
        InputError: a field has the wrong type, is missing, or holds an invalid quantity.
    """
    from .gangs import form_pod_groups

    if not isinstance(resource, Mapping):
        raise InputError(f"expected a Kubernetes object (a mapping), got {type(resource).__name__}")
    catalog = catalog if catalog is not None else default_catalog()
    gpu_resources = tuple(gpu_resources)
    api_version, kind, name, namespace = _require_metadata(resource)
    lookup = catalog.lookup(api_version, kind)
    if lookup is None:
        raise NoDefinitionError(
            f"no definition covers kind {kind} ({api_version}); see `wmap catalog list`, "
            "or add one with --catalog DIR",
            api_version=api_version,
            kind=kind,
        )
    definition = lookup.definition
    warnings = [lookup.warning] if lookup.warning else []
    refs = resolve_references(definition, resource, related or RelatedObjects(), namespace, warnings)
    expander = Expander(definition, resource, catalog=catalog, refs=refs)
    nodes = expander.expand()
    components = [_component_model(node, gpu_resources) for node in nodes]

    total_pods = 0
    total_gpus = Fraction(0)
    total_resources: dict[str, Fraction] = {}
    for root in nodes:
        for leaf in root.leaves():
            pods = leaf.pods()
            total_pods += pods
            assert leaf.demand is not None
            total_gpus += leaf.demand.gpus(gpu_resources) * pods
            add_resources(total_resources, leaf.demand.requests, pods)
    if any(node.definition.per_node for root in nodes for node in root.walk()):
        warnings.append("per-node components (DaemonSet) are counted as one pod; the real count is one per eligible node")

    phase, phases = evaluate_phase(definition.status, resource)
    pod_groups = form_pod_groups(definition, resource, name, nodes, refs)
    return WorkloadTree(
        workload=WorkloadRef(api_version=api_version, kind=kind, name=name, namespace=namespace),
        definition=definition.name,
        phase=phase,
        phases=phases,
        totals=Totals(pods=total_pods, gpus=_number(total_gpus), resources=format_resources(total_resources)),
        components=components,
        pod_groups=pod_groups,
        gang_policy=definition.gang.policy or ("none" if not definition.gang.pod_groups else ""),
        topology_annotations=_topology_annotations(resource.get("metadata")),
        warnings=warnings,
        source=source,
    )


class RelatedObjects:
    """Objects a workload may reference, indexed by kind and name (with their namespace)."""

    def __init__(self, objects: Iterable[Mapping] = ()) -> None:
        self._index: dict[tuple[str, str], list[tuple[str | None, Mapping]]] = {}
        for obj in objects:
            self.add(obj)

    @classmethod
    def from_paths(cls, paths: Iterable[str]) -> "RelatedObjects":
        """Every object in the given FILEs or DIRs (read recursively).

        Raises:
            InputError: a file is missing or a document does not parse.
        """
        related = cls()
        for path in paths:
            for document in load_objects(path, recursive=True):
                if isinstance(document, WorkloadMapError):
                    raise document
                related.add(document.body)
        return related

    def add(self, obj: Any) -> None:
        """Index an object (anything without kind and metadata.name is ignored)."""
        if not isinstance(obj, Mapping) or not isinstance(obj.get("metadata"), Mapping):
            return
        kind, name = obj.get("kind"), obj["metadata"].get("name")
        if isinstance(kind, str) and isinstance(name, str):
            self._index.setdefault((kind, name), []).append((obj["metadata"].get("namespace"), obj))

    def find(self, kind: str, name: str, namespace: str | None, namespaced: bool) -> Mapping | None:
        """The object of that kind and name; for namespaced kinds, in the workload's namespace."""
        candidates = self._index.get((kind, name), [])
        if not namespaced:
            return candidates[0][1] if candidates else None
        for candidate_namespace, obj in candidates:
            if candidate_namespace == namespace or candidate_namespace is None or namespace is None:
                return obj
        return None


def resolve_references(
    definition: Definition, resource: Mapping, related: RelatedObjects, namespace: str | None, warnings: list[str]
) -> dict[str, Any]:
    """Find each reference a definition declares among ``related``; a missing one adds a warning."""
    refs: dict[str, Any] = {}
    for reference in definition.references:
        name_expression = reference.compiled("name_expression")
        kind_expression = reference.compiled("kind_expression")
        name = name_expression.search(resource) if name_expression is not None else None
        if not isinstance(name, str) or not name:
            continue
        kind = kind_expression.search(resource) if kind_expression is not None else None
        candidates = [k for k in reference.kinds if kind in (None, k.kind)] or reference.kinds[:1]
        found = None
        for candidate in candidates:
            found = related.find(candidate.kind, name, namespace, candidate.namespaced)
            if found is not None:
                break
        if found is None:
            wanted = candidates[0].kind
            warnings.append(
                f"{reference.name} {wanted}/{name} is not in the input; pass it with --related FILE|DIR "
                "for the pods it defines (expanded what the workload itself declares)"
            )
        refs[reference.name] = found
    return refs


_DEFAULT_CATALOG: Catalog | None = None


def default_catalog() -> Catalog:
    """The built-in catalog plus ``WMAP_CATALOG`` directories, loaded once per process."""
    global _DEFAULT_CATALOG
    if _DEFAULT_CATALOG is None:
        _DEFAULT_CATALOG = Catalog.load()
    return _DEFAULT_CATALOG


@dataclass
class InspectResult:
    """What happened to one document: a tree, a skip note, or an error (each with its location)."""

    document: Document | None
    tree: WorkloadTree | None = None
    skipped: str | None = None
    error: WorkloadMapError | None = None


def inspect_documents(
    documents: Iterable[Document | InputError],
    *,
    catalog: Catalog | None = None,
    gpu_resources: Iterable[str] = DEFAULT_GPU_RESOURCES,
    related: RelatedObjects | None = None,
) -> Iterator[InspectResult]:
    """Inspect each document, never stopping at a bad one; non-workload kinds are skipped with a note.

    Objects of the input can reference each other (a TrainJob and its runtime in one file); more
    related objects come through ``related``.
    """
    catalog = catalog if catalog is not None else default_catalog()
    gpu_resources = tuple(gpu_resources)
    documents = list(documents)
    related = related if related is not None else RelatedObjects()
    for document in documents:
        if isinstance(document, Document):
            related.add(document.body)
    for document in documents:
        if isinstance(document, WorkloadMapError):
            yield InspectResult(None, error=document)
            continue
        body = document.body
        if isinstance(body, Mapping):
            kind = body.get("kind")
            api_version = body.get("apiVersion")
            if (
                isinstance(kind, str)
                and kind in NON_WORKLOAD_KINDS
                and isinstance(api_version, str)
                and catalog.lookup(api_version, kind) is None
            ):
                yield InspectResult(document, skipped=f"{document.file}: document {document.label}: skipped {kind}, not a workload")
                continue
        try:
            tree = inspect(body, catalog=catalog, gpu_resources=gpu_resources, source=document.file, related=related)
        except WorkloadMapError as error:
            yield InspectResult(document, error=error.located(file=document.file, document=document.label))
            continue
        yield InspectResult(document, tree=tree)


def inspect_file(
    path: str,
    *,
    catalog: Catalog | None = None,
    gpu_resources: Iterable[str] = DEFAULT_GPU_RESOURCES,
    recursive: bool = False,
    related: RelatedObjects | None = None,
) -> list[InspectResult]:
    """Inspect every object in FILE|DIR|- (see :func:`inspect_documents`)."""
    documents = load_objects(path, recursive=recursive)
    return list(inspect_documents(documents, catalog=catalog, gpu_resources=gpu_resources, related=related))
