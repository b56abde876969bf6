"""Lint for Karta files: every broken upstream rule, and what validates but cannot be right.

``karta-rules`` lists every rule of upstream's validator the Karta breaks (loading stops at the
first). ``karta-nested-scale`` flags a component without pods of its own that has a scale while a
descendant has one too: Karta scales count units across the whole workload, and KAI's
``CalculateSubtreeScale`` multiplies a parent's scale by its children's sum, so the children's
totals are multiplied again (upstream's LWS ``group``, the sibling-consistency failure of
``hack/karta-verify``). ``karta-samples`` interprets the Karta on the samples of its kind: errors
are errors, and what the tree warns about (a gang that can never be admitted, pods no gang member
takes, members that disagree on minMember) is a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from pydantic import ValidationError

from ..catalog import Catalog
from ..errors import WorkloadMapError
from ..interpreter import inspect
from ..karta import Karta, KartaDefinition, validate_karta
from .rules import LintFinding

__all__ = ["KARTA_RULES", "lint_karta"]

KARTA_RULES = {
    "karta-rules": ("error", "The Karta breaks a rule of upstream's validator (all of them are listed)."),
    "karta-nested-scale": (
        "warning",
        "A component without pods has a scale and so does a descendant: KAI multiplies them, counting pods twice.",
    ),
    "karta-samples": ("warning", "Interpreted on a sample, the Karta fails or forms a gang KAI cannot admit."),
}


def _finding(rule: str, file: str | None, name: str, field: str | None, message: str) -> LintFinding:
    severity = KARTA_RULES[rule][0]
    return LintFinding("error" if severity == "error" else "warning", file, name, field, message, rule)


def _nested_scales(karta: Karta) -> Iterator[tuple[str, str]]:
    def scaled_below(name: str) -> str | None:
        for child in karta.children_of(name):
            if child.scale_definition is not None:
                return child.name
            found = scaled_below(child.name)
            if found:
                return found
        return None

    for component in karta.components():
        if component.scale_definition is not None and not component.has_pod_definition:
            below = scaled_below(component.name)
            if below:
                yield component.name, below


def lint_karta(
    data: Mapping[str, Any], file: str | None, samples: Iterable[Mapping[str, Any]] = ()
) -> list[LintFinding]:
    """Lint one Karta object (see the module docstring for the rules)."""
    metadata = data.get("metadata")
    name = str((metadata.get("name") if isinstance(metadata, Mapping) else None) or "#1")
    try:
        karta = Karta.model_validate(data)
    except ValidationError as error:
        return [
            _finding("karta-rules", file, name, ".".join(str(p) for p in item["loc"]), item["msg"])
            for item in error.errors()
        ]
    findings = [_finding("karta-rules", file, name, field, message) for field, message in validate_karta(karta)]
    if findings:
        return findings
    for parent, child in _nested_scales(karta):
        findings.append(
            _finding(
                "karta-nested-scale",
                file,
                name,
                parent,
                f"{parent} has a scale and so does its descendant {child}; KAI's subtree scale multiplies them",
            )
        )
    catalog = Catalog([KartaDefinition(karta, file)])
    for sample in samples:
        if (
            sample.get("kind") != karta.gvk.kind
            or str(sample.get("apiVersion", "")).rpartition("/")[0] != karta.gvk.group
        ):
            continue
        label = f"{sample.get('kind')}/{(sample.get('metadata') or {}).get('name')}"
        try:
            tree = inspect(sample, catalog=catalog)
        except WorkloadMapError as error:
            findings.append(_finding("karta-samples", file, name, error.field, f"{label}: {error.message}"))
            continue
        findings.extend(_finding("karta-samples", file, name, None, f"{label}: {w}") for w in tree.warnings)
    return findings
