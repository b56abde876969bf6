"""Upstream's Karta CRD, shipped in ``schema/``, and validation of Karta objects against it.

The schema is checked as the API server checks it with strict field validation (``kubectl apply
--validate=strict``): types, required fields, list shapes, and no unknown fields. The two CEL
rules of the CRD (on ``componentTypeSelector``) are the model's own checks
(:mod:`.model`).
"""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

__all__ = ["CRD_FILE", "crd", "crd_schema", "crd_problems"]

CRD_FILE = Path(__file__).with_name("schema") / "run.ai_kartas.yaml"


@lru_cache(maxsize=1)
def crd() -> dict[str, Any]:
    """The CustomResourceDefinition ``kartas.run.ai`` as a plain object."""
    return dict(yaml.safe_load(CRD_FILE.read_text(encoding="utf-8")))


def _strict(schema: Any) -> Any:
    """The schema with unknown fields refused wherever it lists properties (strict field validation)."""
    if isinstance(schema, dict):
        result = {key: _strict(value) for key, value in schema.items()}
        if "properties" in schema and "additionalProperties" not in schema:
            result["additionalProperties"] = False
        return result
    if isinstance(schema, list):
        return [_strict(item) for item in schema]
    return schema


@lru_cache(maxsize=1)
def crd_schema() -> dict[str, Any]:
    """The ``v1alpha1`` openAPIV3Schema, strict about unknown fields (``metadata`` stays free-form)."""
    version = next(v for v in crd()["spec"]["versions"] if v["name"] == "v1alpha1")
    schema = copy.deepcopy(version["schema"]["openAPIV3Schema"])
    return dict(_strict(schema))


def crd_problems(karta: dict[str, Any]) -> list[str]:
    """Where a Karta object breaks the CRD schema, as ``field: message`` lines (empty when it is valid)."""
    import jsonschema  # loaded only when a Karta is exported, not on every start of the command line

    validator = jsonschema.Draft7Validator(crd_schema())
    problems = []
    for error in sorted(validator.iter_errors(karta), key=lambda e: list(e.absolute_path)):
        field = ".".join(str(part) for part in error.absolute_path) or "(root)"
        problems.append(f"{field}: {error.message}")
    return problems
