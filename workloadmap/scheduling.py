"""Which nodes a pod may land on: taints and tolerations, ``nodeSelector``, required node affinity.

These are the node filters kube-scheduler applies before it looks at resources, and the ones
Kueue's topology-aware scheduling applies to every node of a topology (``FindFeasibleNodes`` in
``pkg/cache/scheduler/scheduling_simulator_default.go``): first the taints (only ``NoSchedule``
and ``NoExecute`` keep a pod off a node; ``PreferNoSchedule`` is a preference), then the
``nodeSelector``, then ``requiredDuringSchedulingIgnoredDuringExecution``. The matching rules are
Kubernetes' own (``k8s.io/api/core/v1`` ``Toleration.ToleratesTaint``, ``k8s.io/component-helpers``
``nodeaffinity``):

* a toleration with an empty key and operator ``Exists`` tolerates every taint; an empty effect
  matches every effect; ``Equal`` (the default) also compares the value; ``Gt``/``Lt`` compare
  the taint's value with the toleration's as integers (Kubernetes 1.35, a non-number never
  tolerates);
* node selector terms are ORed, the requirements of one term ANDed; no term, or a term with no
  requirement, matches nothing; ``NotIn`` and ``DoesNotExist`` match a node without the label;
  ``Gt``/``Lt`` compare the label value and the one given value as integers; ``matchFields``
  knows ``metadata.name`` with one value; a requirement Kubernetes cannot parse (a bad key or
  value, ``Gt`` without an integer) matches nothing.

Preferred affinity, pod (anti-)affinity and topology spread constraints are not filters and are
not modelled.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import InputError
from .numa.pod import PodNuma, pod_numa
from .values import list_field, mapping_field

__all__ = [
    "SCHEDULING_EFFECTS",
    "Taint",
    "Toleration",
    "Requirement",
    "SelectorTerm",
    "PodScheduling",
    "pod_scheduling",
    "node_selector_terms",
    "parse_taints",
]

SCHEDULING_EFFECTS = ("NoSchedule", "NoExecute")
"""Taint effects that keep a pod without a matching toleration off a node."""

_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_TOLERATION_OPERATORS = ("Equal", "Exists", "Gt", "Lt")
_SET_OPERATORS = ("In", "NotIn")
_LABEL_OPERATORS = (*_SET_OPERATORS, "Exists", "DoesNotExist", "Gt", "Lt")
_NAME_FIELD = "metadata.name"
_NAME = r"([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]"
_LABEL_KEY = re.compile(rf"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?{_NAME}")
_LABEL_VALUE = re.compile(rf"({_NAME})?")


@dataclass(frozen=True, slots=True)
class Taint:
    """A node taint; shown as Kubernetes prints it: ``key=value:Effect`` (``key:Effect`` without value)."""

    key: str
    value: str = ""
    effect: str = "NoSchedule"

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"

    @property
    def blocks_scheduling(self) -> bool:
        """Whether the taint keeps untolerating pods off the node (``NoSchedule``, ``NoExecute``)."""
        return self.effect in SCHEDULING_EFFECTS


@dataclass(frozen=True, slots=True)
class Toleration:
    """A pod toleration."""

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""

    def tolerates(self, taint: Taint) -> bool:
        """Kubernetes' ``Toleration.ToleratesTaint``."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("Gt", "Lt"):
            # Numeric comparison of the taint's value with the toleration's (a non-number never tolerates).
            try:
                have, limit = int(taint.value), int(self.value)
            except ValueError:
                return False
            return have > limit if self.operator == "Gt" else have < limit
        return self.value == taint.value


@dataclass(frozen=True, slots=True)
class Requirement:
    """One node selector requirement: ``key operator values``."""

    key: str
    operator: str
    values: tuple[str, ...] = ()
    valid: bool = True

    def matches(self, value: str | None) -> bool:
        """Whether a node whose label (or field) ``key`` is ``value`` (None: absent) satisfies this.

        A requirement Kubernetes cannot parse (a bad key, operator or value) matches nothing.
        """
        if not self.valid:
            return False
        operator = self.operator
        if operator == "In":
            return value is not None and value in self.values
        if operator == "NotIn":
            return value is None or value not in self.values
        if operator == "Exists":
            return value is not None
        if operator == "DoesNotExist":
            return value is None
        if value is None:
            return False
        try:
            have, limit = int(value), int(self.values[0])
        except ValueError:
            return False
        return have > limit if operator == "Gt" else have < limit


@dataclass(frozen=True, slots=True)
class SelectorTerm:
    """One node selector term: every label expression and every field expression must hold."""

    expressions: tuple[Requirement, ...] = ()
    fields: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str], name: str) -> bool:
        """Whether a node with these labels and this name satisfies the term (an empty term never does)."""
        if not self.expressions and not self.fields:
            return False
        if not all(requirement.matches(labels.get(requirement.key)) for requirement in self.expressions):
            return False
        return all(requirement.matches(name) for requirement in self.fields)


@dataclass(frozen=True, slots=True)
class PodScheduling:
    """The node filters of one pod template.

    Attributes:
        node_selector: ``spec.nodeSelector`` as sorted (key, value) pairs.
        tolerations: ``spec.tolerations``.
        required_terms: ``spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
            .nodeSelectorTerms``; None when the pod has no required node affinity.
        numa: what the pod asks of the kubelet's resource managers (QoS class, containers), for
            the topology manager's admission on nodes with a NUMA layout; None when unknown.
    """

    node_selector: tuple[tuple[str, str], ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    required_terms: tuple[SelectorTerm, ...] | None = None
    numa: PodNuma | None = None

    def untolerated(self, taints: Sequence[Taint]) -> Taint | None:
        """The first taint that blocks scheduling and that no toleration tolerates, if any."""
        for taint in taints:
            if taint.blocks_scheduling and not any(toleration.tolerates(taint) for toleration in self.tolerations):
                return taint
        return None

    def selector_matches(self, labels: Mapping[str, str]) -> bool:
        """Whether the node labels satisfy ``nodeSelector``."""
        return all(labels.get(key) == value for key, value in self.node_selector)

    def affinity_matches(self, labels: Mapping[str, str], name: str) -> bool:
        """Whether the node satisfies the required node affinity (true without one)."""
        if self.required_terms is None:
            return True
        return any(term.matches(labels, name) for term in self.required_terms)

    @property
    def label_keys(self) -> frozenset[str]:
        """The node-label keys the selector and the affinity look at."""
        keys = {key for key, _ in self.node_selector}
        for term in self.required_terms or ():
            keys.update(requirement.key for requirement in term.expressions)
        return frozenset(keys)

    @property
    def uses_name(self) -> bool:
        """Whether the affinity looks at the node name (``matchFields``)."""
        return any(term.fields for term in self.required_terms or ())


def _text(value: Any, field: str, *, default: str = "") -> str:
    if value.__class__ is str:
        return value
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(f"expected a string, got {type(value).__name__}", field=field)
    return str(value)


def _choice(value: Any, choices: Sequence[str], field: str, *, default: str = "") -> str:
    text = _text(value, field, default=default)
    if text not in choices:
        raise InputError(f"{text!r} is not one of {', '.join(choices)}", field=field)
    return text


def _toleration(raw: Any, where: str, index: int) -> Toleration:
    item = raw if raw.__class__ is dict else mapping_field(raw, f"{where}.tolerations[{index}]")
    operator, key, value, effect = item.get("operator"), item.get("key"), item.get("value"), item.get("effect")
    # The common, well-formed toleration is taken as it is; anything else goes through the checks
    # below, which name the field (built only then).
    if operator.__class__ is not str or operator not in _TOLERATION_OPERATORS:
        operator = _choice(operator, _TOLERATION_OPERATORS, f"{where}.tolerations[{index}].operator", default="Equal")
    if key.__class__ is not str:
        key = _text(key, f"{where}.tolerations[{index}].key")
    if value.__class__ is not str:
        value = _text(value, f"{where}.tolerations[{index}].value")
    if operator == "Exists" and value:
        raise InputError(
            "a toleration with operator Exists takes no value", field=f"{where}.tolerations[{index}].value"
        )
    if not key and operator != "Exists":
        raise InputError(
            "a toleration without a key needs operator Exists", field=f"{where}.tolerations[{index}].operator"
        )
    if effect is None or effect == "":
        effect = ""
    elif effect.__class__ is not str or effect not in _TAINT_EFFECTS:
        effect = _choice(effect, _TAINT_EFFECTS, f"{where}.tolerations[{index}].effect")
    return Toleration(key=key, operator=operator, value=value, effect=effect)


def _valid_requirement(key: str, operator: str, values: tuple[str, ...], *, name_field: bool) -> bool:
    """Whether Kubernetes can turn the requirement into a selector (``nodeSelectorRequirementsAsSelector``)."""
    if name_field:
        return key == _NAME_FIELD and operator in _SET_OPERATORS and len(values) == 1
    if not _LABEL_KEY.fullmatch(key) or operator not in _LABEL_OPERATORS:
        return False
    if operator in _SET_OPERATORS:
        return bool(values) and all(_LABEL_VALUE.fullmatch(value) for value in values)
    if operator in ("Exists", "DoesNotExist"):
        return not values
    if len(values) != 1:
        return False
    try:
        int(values[0])
    except ValueError:
        return False
    return True


def _requirement(raw: Any, field: str, *, name_field: bool) -> Requirement:
    item = mapping_field(raw, field)
    key = _text(item.get("key"), f"{field}.key")
    operator = _text(item.get("operator"), f"{field}.operator")
    raw_values = list_field(item.get("values"), f"{field}.values")
    values = tuple(_text(value, f"{field}.values[{i}]") for i, value in enumerate(raw_values))
    valid = _valid_requirement(key, operator, values, name_field=name_field)
    return Requirement(key=key, operator=operator, values=values, valid=valid)


def node_selector_terms(value: Any, field: str) -> tuple[SelectorTerm, ...]:
    """The terms of a core/v1 ``NodeSelector`` (``{nodeSelectorTerms: [...]}``); a node matches any one term.

    Raises:
        InputError: a term or requirement is not a mapping, a list field is not a list.
    """
    selector = mapping_field(value, field)
    where = f"{field}.nodeSelectorTerms"
    raw_terms = list_field(selector.get("nodeSelectorTerms"), where)
    terms = []  # no term at all matches no node
    for index, raw in enumerate(raw_terms):
        term = mapping_field(raw, f"{where}[{index}]")
        expressions = tuple(
            _requirement(item, f"{where}[{index}].matchExpressions[{i}]", name_field=False)
            for i, item in enumerate(list_field(term.get("matchExpressions"), f"{where}[{index}].matchExpressions"))
        )
        fields = tuple(
            _requirement(item, f"{where}[{index}].matchFields[{i}]", name_field=True)
            for i, item in enumerate(list_field(term.get("matchFields"), f"{where}[{index}].matchFields"))
        )
        terms.append(SelectorTerm(expressions, fields))
    return tuple(terms)


def _terms(affinity: Mapping[str, Any], field: str) -> tuple[SelectorTerm, ...] | None:
    node_affinity = mapping_field(affinity.get("nodeAffinity"), f"{field}.nodeAffinity")
    key = "requiredDuringSchedulingIgnoredDuringExecution"
    if node_affinity.get(key) is None:
        return None
    return node_selector_terms(node_affinity.get(key), f"{field}.nodeAffinity.{key}")


def pod_scheduling(spec: Mapping[str, Any], where: str = "spec", *, numa: PodNuma | None = None) -> PodScheduling:
    """The node filters of a pod spec (``nodeSelector``, ``tolerations``, required node affinity, NUMA demand).

    Args:
        spec: the pod spec.
        where: its field path, for errors.
        numa: the spec's NUMA view when the caller already has it (``PodDemand.numa()``); read
            from ``spec`` with :func:`~workloadmap.numa.pod.pod_numa` when None.

    Raises:
        InputError: a filter of the wrong shape (not a mapping or list where one belongs, an
            unknown toleration operator or taint effect), naming the field.
    """
    pairs: tuple[tuple[str, str], ...] = ()
    selector = spec.get("nodeSelector")
    if selector is not None:
        selector = mapping_field(selector, f"{where}.nodeSelector")
        pairs = tuple(
            sorted(
                (str(key), value if value.__class__ is str else _text(value, f"{where}.nodeSelector.{key}"))
                for key, value in selector.items()
            )
        )
    tolerations: tuple[Toleration, ...] = ()
    raw = spec.get("tolerations")
    if raw is not None:
        tolerations = tuple(
            _toleration(item, where, index) for index, item in enumerate(list_field(raw, f"{where}.tolerations"))
        )
    affinity = spec.get("affinity")
    return PodScheduling(
        node_selector=pairs,
        tolerations=tolerations,
        required_terms=None
        if affinity is None
        else _terms(mapping_field(affinity, f"{where}.affinity"), f"{where}.affinity"),
        numa=numa if numa is not None else pod_numa(spec, where),
    )


def parse_taints(value: Any, field: str = "spec.taints") -> tuple[Taint, ...]:
    """A node's ``spec.taints``.

    Raises:
        InputError: not a list of ``{key, value, effect}`` with a known effect.
    """
    taints = []
    for index, raw in enumerate(list_field(value, field)):
        item = mapping_field(raw, f"{field}[{index}]")
        key = _text(item.get("key"), f"{field}[{index}].key")
        if not key:
            raise InputError("a taint needs a key", field=f"{field}[{index}].key")
        effect = _choice(item.get("effect"), _TAINT_EFFECTS, f"{field}[{index}].effect")
        taints.append(Taint(key=key, value=_text(item.get("value"), f"{field}[{index}].value"), effect=effect))
    return tuple(taints)
