"""Markdown documentation of a catalog: one table row per definition.

``python -m workloadmap.catalog_docs > docs/catalog.md`` regenerates the project's page from the
built-in catalog. The output depends only on the definitions (sorted by group, then kind), so a
test can compare the page with a fresh rendering.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable

from .catalog import Catalog
from .runtime_definitions import PHASE_PRECEDENCE, ComponentDefinition, Definition, PodGroupRule, SuspendAction

__all__ = [
    "render_catalog_table",
    "render_suspend_table",
    "render_catalog_document",
    "render_gang_sections",
    "component_tree",
    "gang_summary",
    "REGENERATE_COMMAND",
]

REGENERATE_COMMAND = "python -m workloadmap.catalog_docs > docs/catalog.md"

_POLICY_LIMIT = 70

_INTRO = f"""\
# Built-in workload definitions

wmap ships one definition per workload kind (`catalog/*.yaml`); `wmap catalog list` and
`wmap catalog show NAME` print them, `wmap catalog lint` checks them. This page is generated
from the built-in catalog (`{REGENERATE_COMMAND}`); do not edit it by hand.

Columns:

- **Components**: the component tree; `name[]` is a multi-instance component (one per list or
  map element, e.g. a JobSet replicatedJob), `parent(child, ...)` nests components whose replicas
  multiply by the parent's.
- **Gang**: whose gang semantics the definition follows (the start of its `gang.policy`), then
  its PodGroup rules in order: `one` PodGroup for the workload, `per instance of C`, `per replica
  of C`; `(conditional)` marks a rule with a `when` condition (the first rule that holds wins),
  `minMember 1` a fixed minimum of one, `+subgroups` a rule that forms SubGroups. `none`: not gang
  scheduled.
- **Phases**: the normalized phases the status rules map, in precedence order.

"""


def _cell(text: str) -> str:
    """A Markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def component_tree(components: Iterable[ComponentDefinition]) -> str:
    """The component tree as text: ``head, workerGroup[]`` or ``group(leader, worker)``."""
    parts = []
    for component in components:
        label = component.name + ("[]" if component.instances else "")
        if component.components:
            label += f"({component_tree(component.components)})"
        parts.append(label)
    return ", ".join(parts)


def _short_policy(policy: str) -> str:
    text = " ".join(policy.split())
    cuts = [text.find(separator) for separator in (": ", "; ", " (", " — ") if separator in text]
    if cuts:
        text = text[: min(cuts)]
    if len(text) > _POLICY_LIMIT:
        text = text[: _POLICY_LIMIT - 1].rstrip() + "…"
    return text


def _rule_shape(rule: PodGroupRule) -> str:
    if rule.per_instance:
        shape = f"per instance of {rule.per_instance}"
    elif rule.per_replica:
        shape = f"per replica of {rule.per_replica}"
    else:
        shape = "one"
    if rule.min_member in (1, "1"):
        shape += " minMember 1"
    if rule.sub_groups:
        shape += " +subgroups"
    if rule.when:
        shape += " (conditional)"
    return shape


def gang_summary(definition: Definition) -> str:
    """Short gang description: the policy's first clause, then the PodGroup rules in order."""
    rules = definition.gang.pod_groups
    if not rules:
        policy = _short_policy(definition.gang.policy)
        return f"none ({policy})" if policy and policy.lower() != "none" else "none"
    shapes = ", else ".join(_rule_shape(rule) for rule in rules)
    policy = _short_policy(definition.gang.policy)
    return f"{policy}: {shapes}" if policy else shapes


def _phases(definition: Definition) -> str:
    mapped = [phase.value for phase in PHASE_PRECEDENCE if definition.status.rules.get(phase)]
    return ", ".join(mapped) if mapped else "—"


def render_catalog_table(catalog: Iterable[Definition]) -> str:
    """A Markdown table with one row per definition, sorted by group then kind."""
    definitions = sorted(catalog, key=lambda definition: (definition.group, definition.kind))
    lines = [
        "| Kind | Group | Versions | Components | Gang | Phases |",
        "|---|---|---|---|---|---|",
    ]
    for definition in definitions:
        cells = [
            definition.kind,
            definition.group or "core",
            ", ".join(definition.versions),
            f"`{component_tree(definition.components)}`",
            gang_summary(definition),
            _phases(definition),
        ]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n".join(lines) + "\n"


_SUSPEND_INTRO = """
## Suspend and resume

What `wmap suspend` and `wmap resume` write for each kind (the definition's `suspend` section):
`field: value` sets a field, `field += item` / `field -= item` adds or removes one item of a
comma-separated list, `remove field` deletes it; `(when ...)` marks a step that depends on the
object. A kind marked *cannot be suspended* has no suspend field its operator honours.

"""


def _step(action: SuspendAction) -> str:
    if action.remove:
        text = f"remove {action.path}"
    elif action.add_item is not None:
        text = f"{action.path} += {action.add_item}"
    elif action.remove_item is not None:
        text = f"{action.path} -= {action.remove_item}"
    else:
        text = f"{action.path}: {json.dumps(action.value)}"
    return f"`{text}`" + (f" (when `{action.when}`)" if action.when else "")


def render_suspend_table(catalog: Iterable[Definition]) -> str:
    """A Markdown table: how each kind is suspended and resumed, and where its operator defines it."""
    definitions = sorted(catalog, key=lambda definition: (definition.group, definition.kind))
    lines = ["| Kind | Group | Suspend | Resume | Defined by |", "|---|---|---|---|---|"]
    for definition in definitions:
        section = definition.suspend
        if section is None:
            cells = [definition.kind, definition.group or "core", "cannot be suspended", "—", "—"]
        else:
            cells = [
                definition.kind,
                definition.group or "core",
                "; ".join(_step(action) for action in section.suspend_actions),
                "; ".join(_step(action) for action in section.resume_actions),
                section.source or "—",
            ]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n".join(lines) + "\n"


_GANGS_INTRO = """
## Gangs per kind

For each kind: the gang policy in full (whose rules the PodGroups follow), how KAI groups the
pods (`grouping` and `podGroupCount` in `wmap inspect -o json`), KAI's default priority class,
the shapes KAI's pod-grouper refuses or where a gang can never form (each one a warning in the
tree), and the known differences and semantics worth knowing.
"""


def render_gang_sections(catalog: Iterable[Definition]) -> str:
    """One Markdown section per definition: gang policy, grouping, refusals and known differences."""
    lines = [_GANGS_INTRO]
    for definition in sorted(catalog, key=lambda item: (item.group, item.kind)):
        gang = definition.gang
        lines.append(f"### {definition.kind} ({definition.group or 'core'})\n")
        lines.append(f"- **Gang policy**: {_cell(gang.policy) or 'none'}")
        grouping = "one PodGroup per pod (`perPod`)" if gang.per_pod else "the PodGroups shown (`gang`)"
        lines.append(f"- **Grouping**: {grouping}; default priority class `{gang.priority_class}`")
        if gang.operator_gang:
            lines.append(
                f"- **No KAI plugin**: the PodGroups are {_cell(gang.operator_gang)}; KAI's default grouper "
                "would make one PodGroup of minMember 1"
            )
        for warning in gang.warnings:
            lines.append(f"- **Warning**: {_cell(warning.message)}")
        for note in definition.notes:
            lines.append(f"- {_cell(note)}")
        lines.append("")
    return "\n".join(lines)


def render_catalog_document(catalog: Iterable[Definition]) -> str:
    """The whole ``docs/catalog.md`` page: introduction, table, suspend table and gang sections."""
    definitions = list(catalog)
    return (
        _INTRO
        + render_catalog_table(definitions)
        + _SUSPEND_INTRO
        + render_suspend_table(definitions)
        + render_gang_sections(definitions)
    )


def main() -> None:
    """Write the page for the built-in catalog (``WMAP_CATALOG`` is ignored) to standard output."""
    builtin = Catalog.load(use_env=False)
    sys.stdout.write(render_catalog_document([d for d in builtin if isinstance(d, Definition)]))


if __name__ == "__main__":
    main()
