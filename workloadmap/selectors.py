"""Kubernetes label selectors: the text form ``kubectl -l`` takes, parsed and matched.

The grammar is the one of ``k8s.io/apimachinery/pkg/labels.Parse``: comma-separated
requirements, each ``key`` (exists), ``!key`` (does not exist), ``key=value`` / ``key==value``,
``key!=value`` (also true when the key is absent), ``key in (a,b)``, ``key notin (a,b)`` (also
true when absent), and ``key>N`` / ``key<N`` (integer comparison). An empty selector matches
everything. Keys are qualified names (an optional DNS-subdomain prefix and ``/``); values are
label values (at most 63 characters of ``[A-Za-z0-9_.-]``, alphanumeric at both ends, or empty).

Definitions use selectors as *templates*: a value may hold placeholders in braces, such as
``ray.io/group={instance}`` or ``grove.io/podclique={workload}-{index}-{instance}``. Braces never
occur in a label value, so a placeholder cannot be mistaken for text. :meth:`Selector.render`
fills the named placeholders; ``{index}`` stays and matches any decimal number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

__all__ = [
    "Operator",
    "Requirement",
    "Selector",
    "SelectorSyntaxError",
    "INDEX_PLACEHOLDER",
    "is_label_key",
    "is_label_value",
    "parse_selectors",
]

INDEX_PLACEHOLDER = "{index}"
"""The placeholder that stays after rendering and matches any decimal number."""

_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
_NAME_RE = re.compile(rf"^{_NAME}$")
_DNS_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_PLACEHOLDER_RE = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*(?::[A-Za-z0-9][A-Za-z0-9_.-]*)?)\}")
_TOKEN_RE = re.compile(r"\s*(!=|==|=|!|\(|\)|,|>|<|[^\s!=(),<>]+)")
_WORD_OPERATORS = {"in", "notin"}


class SelectorSyntaxError(ValueError):
    """A selector that does not parse; the message says where and why."""


def is_label_key(key: str) -> bool:
    """Whether ``key`` is a valid label key: ``[prefix/]name``, name <= 63, prefix a DNS subdomain <= 253."""
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN_RE.match(prefix)):
        return False
    return 0 < len(name) <= 63 and bool(_NAME_RE.match(name))


def is_label_value(value: str) -> bool:
    """Whether ``value`` is a valid label value: empty, or <= 63 of ``[A-Za-z0-9_.-]``, alphanumeric at both ends."""
    return value == "" or (len(value) <= 63 and bool(_NAME_RE.match(value)))


class Operator(str, Enum):
    """A requirement's operator, as written (``exists`` and ``!`` have no value)."""

    EQUALS = "="
    NOT_EQUALS = "!="
    IN = "in"
    NOT_IN = "notin"
    EXISTS = "exists"
    DOES_NOT_EXIST = "!"
    GREATER_THAN = ">"
    LESS_THAN = "<"


def _value_pattern(value: str) -> re.Pattern[str] | None:
    """A regex for a value holding ``{index}``, else None (plain equality)."""
    if INDEX_PLACEHOLDER not in value:
        return None
    parts = [re.escape(part) for part in value.split(INDEX_PLACEHOLDER)]
    return re.compile("^" + "(?:0|[1-9][0-9]*)".join(parts) + "$")


@dataclass(frozen=True)
class Requirement:
    """One requirement of a selector: a key, an operator and its values."""

    key: str
    operator: Operator
    values: tuple[str, ...] = ()

    def _value_matches(self, actual: str) -> bool:
        for wanted in self.values:
            pattern = _value_pattern(wanted)
            if (pattern.match(actual) is not None) if pattern is not None else actual == wanted:
                return True
        return False

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether ``labels`` meet this requirement (as ``labels.Requirement.Matches`` decides)."""
        present = self.key in labels
        if self.operator is Operator.EXISTS:
            return present
        if self.operator is Operator.DOES_NOT_EXIST:
            return not present
        if self.operator in (Operator.EQUALS, Operator.IN):
            return present and self._value_matches(labels[self.key])
        if self.operator in (Operator.NOT_EQUALS, Operator.NOT_IN):
            return not present or not self._value_matches(labels[self.key])
        if not present:
            return False
        try:
            actual, bound = int(labels[self.key]), int(self.values[0])
        except ValueError:
            return False
        return actual > bound if self.operator is Operator.GREATER_THAN else actual < bound

    def __str__(self) -> str:
        if self.operator is Operator.EXISTS:
            return self.key
        if self.operator is Operator.DOES_NOT_EXIST:
            return f"!{self.key}"
        if self.operator in (Operator.IN, Operator.NOT_IN):
            return f"{self.key} {self.operator.value} ({','.join(self.values)})"
        return f"{self.key}{self.operator.value}{self.values[0]}"


class _Parser:
    def __init__(self, text: str, templates: bool) -> None:
        self.text = text
        self.templates = templates
        self.tokens = self._tokenize(text)
        self.position = 0

    def _tokenize(self, text: str) -> list[str]:
        tokens, index = [], 0
        while index < len(text):
            if text[index:].strip() == "":
                break
            match = _TOKEN_RE.match(text, index)
            if match is None:  # pragma: no cover - the token pattern accepts every character class
                raise SelectorSyntaxError(f"cannot read selector {text!r} at {text[index:]!r}")
            tokens.append(match.group(1))
            index = match.end()
        return tokens

    def fail(self, why: str) -> SelectorSyntaxError:
        return SelectorSyntaxError(f"invalid selector {self.text!r}: {why}")

    def peek(self) -> str | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> str | None:
        token = self.peek()
        self.position += 1
        return token

    def key(self, token: str | None) -> str:
        if token is None or not is_label_key(token):
            raise self.fail(f"{token!r} is not a label key" if token else "a label key is missing")
        return token

    def value(self, token: str | None, *, numeric: bool = False) -> str:
        if token is None or token in ("(", ")", ",", "=", "==", "!=", "!", ">", "<"):
            if token in (",", ")") or token is None:
                if numeric:
                    raise self.fail("a number is missing")
                if token is not None:
                    self.position -= 1  # the separator belongs to the caller
                return ""
            raise self.fail(f"unexpected {token!r} where a value belongs")
        if numeric:
            if not re.fullmatch(r"-?[0-9]+", token):
                raise self.fail(f"{token!r} is not an integer")
            return token
        names = _PLACEHOLDER_RE.findall(token)
        if names and not self.templates:
            raise self.fail(f"{token!r} is not a label value")
        plain = _PLACEHOLDER_RE.sub("0", token)
        valid = bool(_NAME_RE.match(plain)) if names else is_label_value(plain)
        if not valid:
            raise self.fail(f"{token!r} is not a label value")
        return token

    def values_list(self) -> tuple[str, ...]:
        if self.take() != "(":
            raise self.fail("expected ( after in/notin")
        values = []
        while True:
            values.append(self.value(self.take()))
            token = self.take()
            if token == ")":
                return tuple(values)
            if token != ",":
                raise self.fail("expected , or ) in a value list")

    def requirement(self) -> Requirement:
        token = self.take()
        if token == "!":
            return Requirement(self.key(self.take()), Operator.DOES_NOT_EXIST)
        key = self.key(token)
        operator = self.peek()
        if operator in (None, ","):
            return Requirement(key, Operator.EXISTS)
        self.take()
        if operator in ("=", "=="):
            return Requirement(key, Operator.EQUALS, (self.value(self.take()),))
        if operator == "!=":
            return Requirement(key, Operator.NOT_EQUALS, (self.value(self.take()),))
        if operator in _WORD_OPERATORS:
            return Requirement(key, Operator(operator), self.values_list())
        if operator in (">", "<"):
            return Requirement(key, Operator(operator), (self.value(self.take(), numeric=True),))
        raise self.fail(f"unexpected {operator!r} after key {key!r}")

    def parse(self) -> tuple[Requirement, ...]:
        requirements = []
        while self.peek() is not None:
            requirements.append(self.requirement())
            token = self.take()
            if token is None:
                break
            if token != ",":
                raise self.fail(f"expected , between requirements, got {token!r}")
            if self.peek() is None:
                raise self.fail("a requirement is missing after the last ,")
        return tuple(requirements)


@dataclass(frozen=True)
class Selector:
    """A parsed label selector: every requirement must hold (AND).

    Attributes:
        requirements: the requirements, in the order written.
        text: the selector as given.
    """

    requirements: tuple[Requirement, ...] = ()
    text: str = ""

    @classmethod
    def parse(cls, text: str, *, templates: bool = False) -> Selector:
        """Parse ``text``; with ``templates``, values may hold ``{placeholder}``s.

        Raises:
            SelectorSyntaxError: the text is not a selector (the message quotes it and says why).
        """
        if not isinstance(text, str):
            raise TypeError(f"a selector is text, got {type(text).__name__}")
        return cls(_Parser(text, templates).parse(), text.strip())

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether every requirement holds for ``labels`` (an empty selector matches everything)."""
        return all(requirement.matches(labels) for requirement in self.requirements)

    def placeholders(self) -> set[str]:
        """The placeholder names the values hold (``instance``, ``instance:group``, ``index`` ...)."""
        values = [value for requirement in self.requirements for value in requirement.values]
        return {name for value in values for name in _PLACEHOLDER_RE.findall(value)}

    def render(self, context: Mapping[str, str]) -> Selector:
        """The selector with the placeholders of ``context`` filled in; ``{index}`` stays.

        Raises:
            ValueError: a placeholder other than ``{index}`` is not in ``context``.
        """

        def fill(value: str) -> str:
            def substitute(match: re.Match[str]) -> str:
                name = match.group(1)
                if name == "index":
                    return match.group(0)
                if name not in context:
                    raise ValueError(f"selector {self.text!r}: no value for placeholder {{{name}}}")
                return context[name]

            return _PLACEHOLDER_RE.sub(substitute, value)

        rendered = tuple(
            Requirement(requirement.key, requirement.operator, tuple(fill(value) for value in requirement.values))
            for requirement in self.requirements
        )
        return Selector(rendered, ",".join(str(requirement) for requirement in rendered))

    def example_labels(self, index: str = "0") -> dict[str, str]:
        """Labels of a pod this selector describes: its ``=``/``in`` values and the keys that must exist."""
        labels: dict[str, str] = {}
        for requirement in self.requirements:
            if requirement.operator in (Operator.EQUALS, Operator.IN):
                labels[requirement.key] = requirement.values[0].replace(INDEX_PLACEHOLDER, index)
            elif requirement.operator is Operator.EXISTS:
                labels.setdefault(requirement.key, "x")
            elif requirement.operator is Operator.GREATER_THAN:
                labels[requirement.key] = str(int(requirement.values[0]) + 1)
            elif requirement.operator is Operator.LESS_THAN:
                labels[requirement.key] = str(int(requirement.values[0]) - 1)
        return labels

    def __str__(self) -> str:
        return ",".join(str(requirement) for requirement in self.requirements)


def parse_selectors(texts: Iterable[str]) -> Selector:
    """Several selectors joined with AND (``-l a=b -l c`` as kubectl would join them)."""
    joined = ",".join(text for text in texts if text.strip())
    return Selector.parse(joined)
