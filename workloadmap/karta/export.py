"""wmap definitions written as Karta objects, for KAI's Karta fallback and upstream's tools.

A wmap definition becomes one Karta per API version (upstream matches a Karta by exact group,
version and kind), named by upstream's slug rule (``{group with dots as dashes}-{kind}-{version}``,
``core`` for the core group). The mapping, field by field, is in docs/karta.md:

- components become child components of a root that carries the workload's kind and status; a
  component's jq paths stream over every instance of it in the whole workload (nested instances
  included, ids ``parent/child``), because Karta paths run on the whole resource;
- counts become workload-wide: a Karta ``replicasPath`` gives the component's pods (parent
  replicas x replicas x pods per replica, 0 when inactive), ``minReplicasPath`` the same at gang
  scale, so KAI's ``CalculateSubtreeScale`` sums them; logical components get no scale, so they
  carry their children's sum instead of multiplying it again;
- status rules become ``statusMappings`` (a matcher's phase and reason lists are spread over
  several matchers, since Karta matchers take one value); every matcher also requires a non-empty
  ``status``, as wmap does;
- gangs: the unconditional gang rule becomes ``podGroup`` (one PodGroup, ``minMember`` from the
  scales); ``minMember: 1`` becomes no gang instructions (KAI's default grouper).

What a Karta cannot say is never dropped silently: each loss is listed in the annotation
``wmap.run/karta-export-losses`` and returned, and the CLI warns on stderr.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import labels
from ..runtime_definitions import ComponentDefinition, Definition, Phase, StatusMatcher
from .crd import crd_problems
from .model import API_VERSION, KIND, STATUS_KEYS, Karta
from .translate import FALSY, TranslationError, to_jq

__all__ = ["ExportedKarta", "export_karta", "karta_slug"]

_ROOT = ". as $root | "
_BASE = '{id: "", el: ., n: 1, g: 1}'


def _simplify(path: str) -> str:
    """A path over the single top-level instance, written without the instance frame.

    There the element is the resource itself and the replica chain is 1, so ``(.el | x)`` is
    ``(x)`` and ``.n *`` / ``.g *`` drop out; ``$root`` is bound only where it is used.
    """
    prefix = f"{_ROOT}{_BASE} | "
    if not path.startswith(prefix) or "$p" in path or "{id: .id" in path:  # instances, or a nested chain
        return path
    body = path[len(prefix) :]
    body = body.removeprefix(".el | ").replace("(.el | ", "(").replace(".n * ", "").replace(".g * ", "")
    return f"{_ROOT}{body}" if "$root" in body else body


_STATUS_PRESENT = "((.status // {}) | length) > 0"


@dataclass
class ExportedKarta:
    """One exported Karta and what it could not carry over.

    Attributes:
        karta: the Karta object (a plain dict in upstream's shape).
        losses: ``(code, message)`` pairs, one per wmap feature without a Karta equivalent.
    """

    karta: dict[str, Any]
    losses: list[tuple[str, str]] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The Karta's ``metadata.name``."""
        return str(self.karta["metadata"]["name"])


def karta_slug(group: str, kind: str, version: str) -> str:
    """Upstream's catalog name (``pkg/catalog/catalog.go`` ``Slug``): ``kubeflow-org-pytorchjob-v1``."""
    return f"{group.replace('.', '-') if group else 'core'}-{kind.lower()}-{version}"


class _Exporter:
    def __init__(self, definition: Definition) -> None:
        self.definition = definition
        self.losses: list[tuple[str, str]] = []
        # an optional reference's absence is an answer: a Karta, with no related objects, gives that answer
        self._optional_references = frozenset(r.name for r in definition.references if r.optional)

    def lose(self, code: str, message: str) -> None:
        if (code, message) not in self.losses:
            self.losses.append((code, message))

    def jq(self, text: str | int | None, where: str) -> str | None:
        """The jq form of an expression (a constant stays a literal); None when it cannot be said."""
        if text is None or isinstance(text, int):
            return None if text is None else str(text)
        try:
            return to_jq(text, self.definition.language, absent=self._optional_references)
        except TranslationError as error:
            self.lose("expression", f"{where}: {error}")
            return None

    # -- structure -------------------------------------------------------------------------
    def stream(self, component: ComponentDefinition, parent: str | None) -> str | None:
        """The jq stream of ``{id, el, n, g}`` per instance: element, replicas of the chain above, gang replicas."""
        base = parent if parent is not None else '{id: "", el: ., n: 1, g: 1}'
        if not component.instances:
            return base
        instances = self.jq(component.instances, f"{component.name}.instances")
        if instances is None:
            return None
        name = self.jq(component.instance_name, f"{component.name}.instanceName") if component.instance_name else None
        list_id = f"((.value | {name}) // null)" if name else '(.value | if type == "object" then .name else null end)'
        return (
            f"{base} | . as $p | ($p.el | {instances}) | "
            'if type == "array" then to_entries[] | '
            f"{{id: (({list_id}) // .key | tostring), el: .value}} "
            'elif type == "object" then to_entries[] | {id: .key, el: .value} else empty end | '
            '{id: (if $p.id == "" then .id else "\\($p.id)/\\(.id)" end), el: .el, n: $p.n, g: $p.g}'
        )

    def count(self, component: ComponentDefinition, name: str, default: str) -> str | None:
        value = getattr(component, name)
        if value is None:
            return default
        if isinstance(value, int):
            return str(value)
        text = self.jq(value, f"{component.name}.{name}")
        return None if text is None else f"(({text}) // {default})"

    def scale_paths(
        self, component: ComponentDefinition, stream: str, source: str | None
    ) -> tuple[dict[str, str], str | None]:
        """The scale paths of a component, and the jq that moves the replica chain into its children.

        ``source`` is the jq of the component's pod definition: where it is null the role is absent
        from the manifest and counts 0 (wmap skips it), so KAI's subtree scale does not count it.
        """
        own = self.count(component, "replicas", "1")
        per = self.count(component, "pods_per_replica", "1")
        minimum = self.count(component, "min_replicas", "null")
        maximum = self.count(component, "max_replicas", "null")
        active = self.jq(component.active, f"{component.name}.active") if component.active else None
        if own is None or per is None:
            return {}, None
        on = f"(if (.el | {active}) | {FALSY} then 0 else 1 end)" if active else "1"
        if source is not None:
            on = f"(if (.el | {source}) == null then 0 else {on} end)"
        replicas = f"({on} * (.el | {own}))"
        gang = f"((.el | {minimum}) as $m | if $m != null and $m > 0 then $m else (.el | {own}) end)"
        paths = {"replicasPath": f"{_ROOT}{stream} | .n * {replicas} * (.el | {per})"}
        if component.min_replicas is not None and minimum is not None:
            gang_count = f".g * {on} * $m * (.el | {per})"
            paths["minReplicasPath"] = (
                f"{_ROOT}{stream} | (.el | {minimum}) as $m | if $m == null then null else {gang_count} end"
            )
        if component.max_replicas is not None and maximum is not None:
            paths["maxReplicasPath"] = (
                f"{_ROOT}{stream} | (.el | {maximum}) as $m | if $m == null then null else .n * $m * (.el | {per}) end"
            )
        inner = f"{stream} | {{id: .id, el: .el, n: (.n * {replicas}), g: (.g * {on} * {gang})}}"
        return paths, inner

    def components(self, component: ComponentDefinition, owner: str, parent: str | None) -> Iterator[dict[str, Any]]:
        stream = self.stream(component, parent)
        item: dict[str, Any] = {"name": component.name, "ownerRef": owner}
        if stream is None:
            yield item
            return
        if component.instances or (parent is not None and "$p" in parent):
            item["instanceIdPath"] = f"{_ROOT}{stream} | .id"
            item["podSelector"] = {
                "componentInstanceSelector": {"idPath": f'.metadata.labels["{labels.WMAP_INSTANCE_LABEL}"]'}
            }
            self.lose("podSelector", f"{component.name}: pods carry no instance label KAI could read")
        spec, source = self.spec(component, stream)
        paths, inner = self.scale_paths(component, stream, source)
        if spec:
            item["specDefinition"] = spec
            if paths:
                item["scaleDefinition"] = paths
        _simplify_paths(item)
        for flag, message in (
            (component.per_node, "one pod per node (DaemonSet) has no Karta equivalent; counted as one pod"),
            (component.resource, "embedded resources interpreted by their own definitions have no Karta equivalent"),
            (
                component.scaled_pod_groups,
                "PodGroups of scaled replicas (Grove scaled PodGangs) have no Karta equivalent",
            ),
            (component.run, "a run order (pods one after another) has no Karta equivalent; all counted at once"),
            (component.like, "a component taking another's pods and components (like) is exported one level deep"),
        ):
            if flag:
                self.lose("structure", f"{component.name}: {message}")
        yield item
        for child in component.components:
            yield from self.components(child, component.name, inner if inner is not None else stream)

    def spec(self, component: ComponentDefinition, stream: str) -> tuple[dict[str, Any] | None, str | None]:
        """The specDefinition of a component and the jq of its pod source (both None for a logical one)."""
        if component.pod_template:
            template = self.jq(component.pod_template, f"{component.name}.podTemplate")
            if template is None:
                return None, None
            return {"podTemplateSpecPath": f"{_ROOT}{stream} | .el | {template}"}, template
        if component.pod_spec:
            spec = self.jq(component.pod_spec, f"{component.name}.podSpec")
            if spec is None:
                return None, None
            result = {"podSpecPath": f"{_ROOT}{stream} | .el | {spec}"}
            if component.pod_metadata:
                metadata = self.jq(component.pod_metadata, f"{component.name}.podMetadata")
                if metadata:
                    result["metadataPath"] = f"{_ROOT}{stream} | .el | {metadata}"
            return result, spec
        return None, None

    # -- status ----------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        status = self.definition.status
        result: dict[str, Any] = {}
        if status.phase:
            phase = self.jq(status.phase, "status.phase")
            if phase:
                result["phaseDefinition"] = {"path": phase}
        if status.conditions:
            conditions = self.jq(status.conditions, "status.conditions")
            if conditions:
                fields = status.condition_fields
                result["conditionsDefinition"] = {
                    "path": conditions,
                    "typeFieldName": fields.type,
                    "statusFieldName": fields.status,
                    "reasonFieldName": fields.reason,
                }
        mappings: dict[str, list[dict[str, Any]]] = {}
        for phase_name in STATUS_KEYS:
            for index, matcher in enumerate(status.rules.get(Phase(phase_name.capitalize()), [])):
                mappings.setdefault(phase_name, []).extend(
                    self.matchers(matcher, f"status.rules.{phase_name}[{index}]")
                )
        result["statusMappings"] = mappings
        return result

    def matchers(self, matcher: StatusMatcher, where: str) -> list[dict[str, Any]]:
        expression = _STATUS_PRESENT
        if matcher.expression is not None:
            text = self.jq(matcher.expression, where)
            if text is None:
                return []
            if matcher.equals is None:
                check = f"(({text}) | {FALSY} | not)"
            else:
                expected = matcher.equals if isinstance(matcher.equals, str) else json.dumps(matcher.equals)
                check = f"((({text}) | tostring) == {json.dumps(expected)})"
            expression = f"{_STATUS_PRESENT} and {check}"
        phases = _choices(matcher.phase)
        condition_sets: list[list[dict[str, str]]] = [[]]
        for condition in matcher.conditions or []:
            reasons = _choices(condition.reason)
            expanded = []
            for existing in condition_sets:
                for reason in reasons:
                    entry = {"type": condition.type}
                    if condition.status is not None:
                        entry["status"] = condition.status
                    if reason is not None:
                        entry["reason"] = reason
                    expanded.append([*existing, entry])
            condition_sets = expanded
        result = []
        for phase in phases:
            for conditions in condition_sets:
                item: dict[str, Any] = {}
                if phase is not None:
                    item["byPhase"] = phase
                if conditions:
                    item["byConditions"] = conditions
                item["byExpression"] = {"expression": expression, "expectedResult": "true"}
                result.append(item)
        return result

    # -- gangs -----------------------------------------------------------------------------
    def gang(self) -> dict[str, Any] | None:
        rules = self.definition.gang.pod_groups
        if not rules:
            self.lose("gang", "not gang scheduled; KAI's Karta fallback groups every pod under minMember 1")
            return None
        if any(rule.when for rule in rules[:-1]) or rules[-1].when:
            self.lose("gang", "gang rules chosen by `when` have no Karta equivalent; the last rule is exported")
        rule = rules[-1]
        if rule.min_member == 1 and not rule.sub_groups and not rule.per_instance and not rule.per_replica:
            return None  # KAI's default grouper: one PodGroup, minMember 1
        for scope, message in (
            (rule.per_instance, "one PodGroup per instance"),
            (rule.per_replica, "one PodGroup per replica"),
        ):
            if scope:
                self.lose("gang", f"{message} of {scope} needs pod labels wmap does not know; exported as one PodGroup")
        if rule.min_member is not None:
            self.lose("gang", "an explicit minMember has no Karta equivalent; KAI computes it from the scales")
        if rule.sub_groups:
            self.lose("gang", "SubGroups need pod selectors wmap does not know; exported as one PodGroup")
        return {"gangScheduling": {"podGroup": {"name": rule.name or self.definition.name}}}

    def export(self, version: str) -> dict[str, Any]:
        definition = self.definition
        if definition.references:
            self.lose("references", "related objects (ref()) have no Karta equivalent")
        if definition.checks:
            self.lose("expression", "checks of values the operator refuses have no Karta equivalent")
        names = {component.name for top in definition.components for component in top.walk()}
        root_name = next(
            name for name in (definition.kind.lower(), f"{definition.kind.lower()}-root") if name not in names
        )
        children = [item for top in definition.components for item in self.components(top, root_name, None)]
        root: dict[str, Any] = {
            "name": root_name,
            "kind": {"group": definition.group, "version": version, "kind": definition.kind},
            "statusDefinition": self.status(),
        }
        karta: dict[str, Any] = {
            "apiVersion": API_VERSION,
            "kind": KIND,
            "metadata": {
                "name": karta_slug(definition.group, definition.kind, version),
                "labels": {labels.WMAP_EXPORTED_FROM_LABEL: definition.name},
            },
            "spec": {"structureDefinition": {"rootComponent": root, "childComponents": children}},
        }
        gang = self.gang()
        karta["spec"]["optimizationInstructions"] = gang or {}
        return karta


def _simplify_paths(item: dict[str, Any]) -> None:
    for key in ("specDefinition", "scaleDefinition"):
        paths = item.get(key)
        if isinstance(paths, dict):
            for name, text in paths.items():
                paths[name] = _simplify(text)


def _choices(value: str | list[str] | None) -> list[str | None]:
    """A matcher's accepted values: a Karta matcher takes one, so a list spreads over several matchers."""
    if value is None or value == []:
        return [None]
    return [value] if isinstance(value, str) else list(value)


def export_karta(definition: Definition) -> list[ExportedKarta]:
    """One Karta per API version of a wmap definition, each with what it could not carry over.

    The result validates against upstream's CRD (``schema/run.ai_kartas.yaml``, strict about
    unknown fields) and rules (every path passes the jq safety rules).
    """
    exported = []
    for version in definition.versions:
        exporter = _Exporter(definition)
        karta = exporter.export(version)
        if exporter.losses:
            karta["metadata"]["annotations"] = {
                labels.WMAP_EXPORT_LOSSES_ANNOTATION: "; ".join(message for _, message in exporter.losses)
            }
        Karta.model_validate(karta)
        problems = crd_problems(karta)
        if problems:  # a bug in the exporter, never bad input
            raise ValueError(f"exported Karta {karta['metadata']['name']} breaks the CRD: {problems[0]}")
        exported.append(ExportedKarta(karta, list(exporter.losses)))
    return exported
