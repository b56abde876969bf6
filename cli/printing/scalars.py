"""How a string is written in YAML so that every reader reads a string back: the one quoting decision.

``kubectl`` reads manifests with go-yaml (sigs.k8s.io/yaml: go-yaml v2 rules, YAML 1.1), controllers
and other tools with go-yaml v3 (YAML 1.2 core schema) or PyYAML (YAML 1.1). A plain scalar one of
them resolves to a bool, null, number or timestamp must be quoted, or ``"on"`` becomes ``true`` and
``"1e3"`` becomes 1000 on the way in. Both of ``wmap alter``'s writers (the PyYAML dumper for new
output and the round-trip writer that keeps a file's layout) ask :func:`string_style`.
"""

from __future__ import annotations

import re

import yaml

__all__ = ["string_style", "resolves_to_other_than_string"]

_YAML_12_CORE = re.compile(
    r"""[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?  # numbers of the core schema (1e3, .5, 1.)
    |0o[0-7]+|0x[0-9a-fA-F]+                                 # octal and hexadecimal integers
    |[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)
    |true|True|TRUE|false|False|FALSE|null|Null|NULL|~""",
    re.VERBOSE,
)
"""Plain scalars the YAML 1.2 core schema (go-yaml v3) resolves to something other than a string."""

_RESOLVER = yaml.resolver.Resolver()
"""PyYAML's YAML 1.1 resolver: bools (yes, on, y ...), nulls, ints (0b, 0x, octal, 1:20), floats, timestamps."""


def resolves_to_other_than_string(value: str) -> bool:
    """Whether a YAML 1.1 or 1.2 reader would read ``value``, written plain, as a non-string."""
    if _YAML_12_CORE.fullmatch(value):
        return True
    tag = _RESOLVER.resolve(yaml.ScalarNode, value, (True, False))
    return bool(tag != "tag:yaml.org,2002:str")


def string_style(value: str) -> str | None:
    """The YAML style to write ``value`` in: ``|`` (literal block), ``'`` (quoted) or None (plain).

    Multi-line strings (scripts, configs) become literal blocks, as people write them; a string any
    reader would take for another type, or an empty one, is single-quoted; everything else is left
    to the emitter (which still quotes what YAML's syntax needs: ``: ``, a leading ``*`` ...).
    """
    if "\n" in value:
        return "|"
    if value == "" or resolves_to_other_than_string(value):
        return "'"
    return None
