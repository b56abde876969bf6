"""Expansion: walks one resource through its definition's components into counted nodes.

Multi-instance components give one node per instance, nested components multiply by their
parents' replicas, and each pod template's effective request is computed
(:func:`~workloadmap.resources.pod_demand`). The result, a list of :class:`ExpandedComponent`,
is what the gangs (:mod:`.gangs`) and the tree (:mod:`.build`) are made from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, overload

from ..catalog import Catalog
from ..errors import ExpressionError, InputError, format_path
from ..expressions import Expression, is_plain_path
from ..resources import PodDemand, pod_demand
from ..runtime_definitions import ComponentDefinition, Definition
from ..values import mapping_at, truthy
from .context import EvaluationContext
from .counts import _search_count, evaluate_count, to_count
from .paths import PathIndex

__all__ = ["ExpandedComponent", "Expander", "Parent", "evaluate_count", "to_count", "INDEX_REF"]


_MOST_NESTED = 64
"""``like`` expansions inside each other (nested workflow templates) before the input is refused."""

INDEX_REF = "$index"
"""``ref('$index')`` in an ``instanceName`` expression: the element's position in its list (KAI names a Ray
worker group without ``groupName`` ``worker-group-<index>``)."""


@dataclass(slots=True, eq=False)
class ExpandedComponent:
    """A component of one resource, with its counts evaluated (internal to the interpreter and gangs).

    Nodes compare by identity: two instances with equal fields are still two components.

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
    reader: Expander | None = None  # what read the counts: their fields are worked out for an error only
    after: tuple[str, ...] = ()  # run.after: the sibling components this one starts after
    max_concurrent: int | None = None  # run.maxConcurrent: the most pods of this node at once
    source: ComponentDefinition | None = None  # a `like` component: the one its pod source and children are from

    @property
    def pod_definition(self) -> ComponentDefinition:
        """The definition component whose pod source (and children) this node has: its own, or its ``like``'s."""
        return self.source if self.source is not None else self.definition

    def run_field(self) -> str:
        """Where ``run.after`` was read (for errors)."""
        expression = self.definition.run.compiled("after") if self.definition.run is not None else None
        source = expression.source if expression is not None else "run.after"
        return source if self.reader is None else self.reader._field_path(self.scope, source)

    def count_field(self, field_name: str) -> str | None:
        """Where ``replicas`` or ``pods_per_replica`` was read (for errors); None when unknown."""
        if self.reader is None:
            return None
        return self.reader._count_field(self.definition, field_name, self.scope)

    @property
    def gang_replicas(self) -> int:
        """Replicas a gang scheduler waits for: minReplicas when positive, else replicas (KAI's rule)."""
        if self.min_replicas is not None and self.min_replicas > 0:
            return self.min_replicas
        return self.replicas

    @property
    def has_pods(self) -> bool:
        """Whether the component has a pod template (a demand) of its own."""
        return self.demand is not None

    def pods(self) -> int:
        """Pods of this component in the whole workload at the declared scale."""
        if self.demand is not None:  # has_pods, without a property call in the hot path
            return self.parent_replicas * self.replicas * self.pods_per_replica
        return sum(child.pods() for child in self.children)

    def pods_per_parent_replica(self) -> int:
        """Pods of this component (subtree) inside one replica of its parent."""
        if self.has_pods:
            return self.replicas * self.pods_per_replica
        return self.replicas * sum(child.pods_per_parent_replica() for child in self.children)

    def walk(self) -> Iterator["ExpandedComponent"]:
        """This component and its descendants, depth first."""
        yield self
        for child in self.children:
            if child.children:
                yield from child.walk()
            else:  # most components are leaves: no generator per leaf
                yield child

    def leaves(self) -> Iterator["ExpandedComponent"]:
        """Pod-bearing components of this subtree."""
        if not self.children:  # most components are leaves: no walk
            if self.demand is not None:
                yield self
            return
        for node in self.walk():
            if node.demand is not None:
                yield node


class Parent(NamedTuple):
    """Where a component sits: the path of its parent and the replicas of its parent chain.

    A named tuple, not a frozen dataclass: one is made per component, and a frozen dataclass pays
    an ``object.__setattr__`` per field.

    Attributes:
        path: the parent's component path (names joined by ``/``).
        replicas: the product of the declared replicas of every ancestor.
        gang_replicas: the same, each ancestor counted at its gang (minimum-first) scale.
        max_replicas: the same at the maximum scale, when some ancestor is bounded.
    """

    path: str = ""
    replicas: int = 1
    gang_replicas: int = 1
    max_replicas: int | None = None

    def inside(self, node: ExpandedComponent) -> Parent:
        """The parent of ``node``'s children."""
        max_replicas = None
        if self.max_replicas is not None or node.max_replicas is not None:
            own_max = node.max_replicas if node.max_replicas is not None else node.replicas
            max_replicas = (self.max_replicas or self.replicas) * own_max
        return Parent(node.path, self.replicas * node.replicas, self.gang_replicas * node.gang_replicas, max_replicas)


_COUNTED = ("replicas", "pods_per_replica")
_FIELD_WORDS = {
    "replicas": "replicas",
    "min_replicas": "minReplicas",
    "max_replicas": "maxReplicas",
    "pods_per_replica": "pods per replica",
}


class Expander:
    """Walks one resource through one definition (the interpreter's engine; lint reuses it).

    ``context`` is the definition, the resource and its resolved references; ``catalog`` resolves
    embedded resources (AppWrapper); ``path_root`` is the outermost object, so template paths of
    embedded resources are absolute.
    """

    def __init__(
        self,
        context: EvaluationContext,
        *,
        catalog: Catalog | None = None,
        path_root: Mapping | None = None,
        depth: int = 0,
        paths: PathIndex | None = None,
    ) -> None:
        self.context = context
        # read on every expression: an attribute of the expander each
        self.definition, self.resource, self.refs = context.definition, context.resource, context.refs
        self.catalog = catalog
        self.path_root = path_root if path_root is not None else context.resource
        self.depth = depth
        self._paths = paths if paths is not None else PathIndex(self.path_root)
        self.warnings: list[str] = []  # what the expansion noticed (a component that would nest inside itself)
        self._named: dict[str, ComponentDefinition] | None = None  # components by name, for `like` (made on first use)
        self._like_depth = 0  # `like` expansions in progress, one inside the other
        self._open: list[tuple[int, int]] = []  # (component, instance list) being expanded, outermost first

    # -- evaluation helpers --------------------------------------------------------------
    def _evaluate(self, model: Any, field_name: str, scope: Any, index: int | None = None) -> Any:
        """Evaluate a field; ``index`` (an instance's position) is what ``ref('$index')`` gives."""
        expression = model.compiled(field_name)
        if expression is None:
            return None
        refs = self.refs if index is None else {**self.refs, INDEX_REF: index}
        try:
            return expression.search(scope, root=self.resource, refs=refs)
        except ExpressionError as error:
            # Name the field the expression read (the instance element's path), not only the expression.
            raise error.located(field=self._field_path(scope, expression.source)) from None

    @overload
    def _count(self, component: ComponentDefinition, field_name: str, scope: Any, default: int) -> int: ...

    @overload
    def _count(self, component: ComponentDefinition, field_name: str, scope: Any, default: None) -> int | None: ...

    def _count(self, component: ComponentDefinition, field_name: str, scope: Any, default: int | None) -> int | None:
        value = getattr(component, field_name)
        if value is None:
            return default
        if value.__class__ is int:  # a constant (most counts): nothing to evaluate or to name
            return value
        expression = component.compiled(field_name)
        if expression is None:
            return default
        count = _search_count(
            expression,
            scope,
            self.context,
            lambda: f"{_FIELD_WORDS.get(field_name, field_name)} of component {component.name}",
            lambda: self._field_path(scope, expression.source),
        )
        return default if count is None else count

    def _field_path(self, scope: Any, source: str) -> str:
        """An expression's field, made absolute when it runs inside an instance element.

        A plain path (``numOfHosts``) joins the element's path; for an expression the element's path
        is the field (the message names the expression).
        """
        if scope is self.path_root:
            return source
        prefix = self._paths.find(scope)
        if not prefix:
            return source
        if is_plain_path(source):
            return f"{format_path(prefix)}.{source}"
        return format_path(prefix)

    def _template_path(self, template: Any, near: Any, via: Expression) -> list[str | int] | None:
        """Where a pod template sits inside the resource (``via``'s origins followed from ``near``, else searched)."""
        return self._paths.find(template, near, via.origins)

    # -- expansion -------------------------------------------------------------------------
    def expand(self, parent: Parent | None = None) -> list[ExpandedComponent]:
        """Expand every top-level component (and so the whole tree) of the resource."""
        parent = parent or Parent()
        nodes: list[ExpandedComponent] = []
        for component in self.definition.components:
            nodes.extend(self._expand(component, self.resource, parent))
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
            name = (
                mapping_at(embedded, "metadata").get("name")
                or f"{str(embedded.get('kind') or 'object').lower()}-{index}"
            )
            pairs.append((str(name), embedded))
        return pairs

    def _expand_embedded(
        self, embedded: Mapping[str, Any], where: str, parent: Parent
    ) -> tuple[str, list[ExpandedComponent]]:
        """Expand an embedded object through its own definition, under this component's replicas."""
        if self.catalog is None or self.depth >= 4:
            raise InputError("embedded resources nest too deeply (refused)", field=where)
        api_version, kind = embedded.get("apiVersion"), embedded.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            raise InputError("embedded resource needs apiVersion and kind", field=where)
        lookup = self.catalog.lookup(api_version, kind)
        if lookup is None:
            raise self.catalog.no_definition(api_version, kind, embedded=True, field=where)
        if not isinstance(lookup.definition, Definition):
            raise InputError(
                f"embedded kind {kind} is covered by Karta {lookup.definition.name}; embedded resources need a "
                "wmap definition",
                field=where,
            )
        nested = Expander(
            EvaluationContext(lookup.definition, embedded, {}),
            catalog=self.catalog,
            path_root=self.path_root,
            depth=self.depth + 1,
            paths=self._paths,
        )
        nested.warnings = self.warnings  # one list for the whole resource
        return kind, nested.expand(parent)

    def _instances(
        self, component: ComponentDefinition, scope: Any
    ) -> tuple[list[tuple[str | None, Any]], tuple[int, int] | None]:
        """The instances (name, element), and the key of their list while it is expanded (a recursion check)."""
        if not component.instances:
            return [(None, scope)], None
        result = self._evaluate(component, "instances", scope)
        expression = component.compiled("instances")
        assert expression is not None  # component.instances is set
        source = expression.source
        if result is None:
            return [], None
        key = None
        if result and isinstance(result, (list, dict)) and not expression.builds:
            key = (id(component), id(result))
            if key in self._open:  # the same elements again, inside themselves: a recursion (a template running itself)
                self.warnings.append(
                    f"component {component.name} runs elements that enclose it (a recursion the operator ends at "
                    "run time): counted once"
                )
                return [], None
        pairs: list[tuple[str, Any]]
        # A list the expression made (a filter, pick(), [@]) is no part of the resource, and an empty
        # one has no items to place: no search for either.
        if result and isinstance(result, (dict, list)) and not (expression.builds or expression.builds_when_truthy):
            self._paths.note_items(result, scope, expression.origins)
        if isinstance(result, list):  # the concrete class first: the Mapping check costs several times more
            pairs = []
            for index, element in enumerate(result):
                name = None
                if component.instance_name:
                    name = self._evaluate(component, "instance_name", element, index)
                elif element.__class__ is dict or isinstance(element, Mapping):
                    name = element.get("name")
                pairs.append((str(name) if name not in (None, "") else str(index), element))
        elif isinstance(result, Mapping):
            pairs = [(str(key), value) for key, value in result.items()]
        else:
            raise InputError(
                f"{component.name} instances must be a list or a mapping, got {type(result).__name__}", field=source
            )
        if len({name for name, _ in pairs}) < len(pairs):
            duplicates = sorted(name for name, count in Counter(name for name, _ in pairs).items() if count > 1)
            raise InputError(f"{component.name} instance name {duplicates[0]!r} appears more than once", field=source)
        return list(pairs), key

    def _node(
        self, component: ComponentDefinition, instance: str | None, element: Any, parent: Parent
    ) -> ExpandedComponent | None:
        """One instance of a component with its counts, or None when its optional role is absent."""
        name = instance if instance is not None else component.name
        source = self._like(component) if component.like is not None else component
        template, spec, where, template_path = self._pod_source(source, element, instance)
        if (source.pod_template or source.pod_spec) and spec is None and not source.components:
            return None  # the role is optional and absent in this resource (e.g. no Master replica spec)
        active = truthy(self._evaluate(component, "active", element)) if component.active else True
        demand = None
        if spec is not None:
            try:
                demand = pod_demand(spec)
            except InputError:
                # The spec's place is worked out for an error only: finding a made template's
                # scope can walk the whole resource. Read again there, the error names it.
                place = where()
                try:
                    demand = pod_demand(spec, place)
                except InputError as error:
                    raise error.located(field=place) from None
        node = ExpandedComponent(
            definition=component,
            name=name,
            path=f"{parent.path}/{name}" if parent.path else name,
            instance=instance,
            scope=element,
            replicas=self._count(component, "replicas", element, 1) if active else 0,
            min_replicas=self._count(component, "min_replicas", element, None) if active else 0,
            max_replicas=self._count(component, "max_replicas", element, None),
            pods_per_replica=self._count(component, "pods_per_replica", element, 1),
            parent_replicas=parent.replicas,
            parent_gang_replicas=parent.gang_replicas,
            parent_max_replicas=parent.max_replicas,
            demand=demand,
            kind=component.kind,
            template=template,
            template_path=template_path,
            reader=self,
        )
        if component.run is not None:
            node.after, node.max_concurrent = self._run_order(component, element)
        if source is not component:
            node.source = source
        return node

    def _like(self, component: ComponentDefinition) -> ComponentDefinition:
        """The component a ``like`` names (validated to enclose it)."""
        if self._named is None:
            self._named = {part.name: part for root in self.definition.components for part in root.walk()}
        return self._named[component.like]  # type: ignore[index]

    def _run_order(self, component: ComponentDefinition, element: Any) -> tuple[tuple[str, ...], int | None]:
        """``run.after`` (sibling names) and ``run.maxConcurrent`` of one instance."""
        run = component.run
        assert run is not None  # only components with a run section come here
        names = self._evaluate(run, "after", element) if run.after is not None else None
        names = [names] if isinstance(names, str) else names
        if names is not None and not isinstance(names, list):
            raise InputError(
                f"run.after of component {component.name} must be a list of names, got {type(names).__name__}",
                field=self._field_path(element, str(run.after)),
            )
        after = tuple(str(name) for name in names or () if name not in (None, ""))
        limit = run.max_concurrent if run.max_concurrent.__class__ is int else None
        expression = run.compiled("max_concurrent")
        if expression is not None:
            limit = _search_count(
                expression,
                element,
                self.context,
                f"run.maxConcurrent of component {component.name}",
                lambda: self._field_path(element, expression.source),
            )
        return after, limit

    def _count_field(self, component: ComponentDefinition, field_name: str, scope: Any) -> str:
        expression = component.compiled(field_name)
        if expression is None:
            return f"{component.name} {_FIELD_WORDS[field_name]}"
        return self._field_path(scope, expression.source)

    def _expand(self, component: ComponentDefinition, scope: Any, parent: Parent) -> list[ExpandedComponent]:
        pairs, opened = (
            (self._embedded(component, scope), None) if component.resource else self._instances(component, scope)
        )
        if opened is None:
            return self._expand_pairs(component, pairs, parent)
        self._open.append(opened)
        try:
            return self._expand_pairs(component, pairs, parent)
        finally:
            self._open.pop()

    def _expand_pairs(
        self, component: ComponentDefinition, pairs: Sequence[tuple[str | None, Any]], parent: Parent
    ) -> list[ExpandedComponent]:
        expanded = []
        for position, (instance, element) in enumerate(pairs):
            node = self._node(component, instance, element, parent)
            if node is None:
                continue
            inner = parent.inside(node)
            if component.resource:
                source = component.compiled("resource").source  # type: ignore[union-attr]
                node.kind, nested = self._expand_embedded(element, f"{source}[{position}]", inner)
                node.children.extend(nested)
            source = node.pod_definition
            if node.source is None:
                for child in source.components:
                    node.children.extend(self._expand(child, element, inner))
            elif source.components:
                if self._like_depth >= _MOST_NESTED:
                    raise InputError(f"component {node.path} nests more than {_MOST_NESTED} levels deep (refused)")
                self._like_depth += 1
                try:
                    for child in source.components:
                        node.children.extend(self._expand(child, element, inner))
                finally:
                    self._like_depth -= 1
            expanded.append(node)
        return expanded

    def _pod_source(
        self, component: ComponentDefinition, element: Any, instance: str | None
    ) -> tuple[Mapping[str, Any] | None, Mapping[str, Any] | None, Callable[[], str], list[str | int] | None]:
        """``(template, pod_spec, where, template_path)``; ``where()`` is the spec's path, for errors.

        A template made around a ``podSpec`` is no part of the resource: it has no path.
        """
        label = f"{component.name}[{instance}]" if instance is not None else component.name
        if component.pod_template:
            template, found, place = self._located(component, "pod_template", element, path=True)
            if template is None:
                return None, None, _NOWHERE, None
            if template.__class__ is not dict and not isinstance(template, Mapping):
                raise InputError(
                    f"pod template of component {label} must be a mapping, got {type(template).__name__}",
                    field=place(),
                )
            spec = template.get("spec")
            if spec is None:
                raise InputError(f"pod template of component {label} has no spec", field=f"{place()}.spec")
            if spec.__class__ is not dict and not isinstance(spec, Mapping):
                raise InputError(f"pod template spec of component {label} must be a mapping", field=f"{place()}.spec")
            return template, spec, lambda: f"{place()}.spec", found
        if component.pod_spec:
            spec, _, place = self._located(component, "pod_spec", element, path=False)  # a made template: no path
            if spec is None:
                return None, None, _NOWHERE, None
            if spec.__class__ is not dict and not isinstance(spec, Mapping):
                raise InputError(
                    f"pod spec of component {label} must be a mapping, got {type(spec).__name__}", field=place()
                )
            metadata = self._evaluate(component, "pod_metadata", element) if component.pod_metadata else None
            if metadata.__class__ is not dict and (metadata is None or not isinstance(metadata, Mapping)):
                metadata = {}
            template = {"metadata": metadata, "spec": spec}
            return template, spec, place, None
        return None, None, _NOWHERE, None

    def _located(
        self, component: ComponentDefinition, field_name: str, element: Any, *, path: bool
    ) -> tuple[Any, list[str | int] | None, Callable[[], str]]:
        """What a template field gives, where it sits in the resource, and ``place()`` for errors.

        The place is looked up now when ``path`` asks for it (the tree's template path), else only
        when an error is raised. A value the expression made is no part of the resource: never
        searched for, its place is None.
        """
        expression = component.compiled(field_name)
        assert expression is not None  # the field is set
        value = self._evaluate(component, field_name, element)
        if value is None:
            return None, None, _NOWHERE
        made = expression.builds or (value and expression.builds_when_truthy)
        found = self._template_path(value, element, expression) if path and not made else None

        def place() -> str:
            where = found if path or made else self._template_path(value, element, expression)
            return format_path(where) if where else self._field_path(element, expression.source)

        return value, found, place


def _nowhere() -> str:
    return ""


_NOWHERE: Callable[[], str] = _nowhere
