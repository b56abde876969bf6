"""The exporter table: every export target is one function registered here by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .common import ExportRequest

__all__ = ["Exporter", "EXPORTERS", "exporter", "export_targets"]

Exporter = Callable[[ExportRequest], list[dict[str, Any]]]
"""An export target: from a placed workload to the objects (or documents) to print."""

EXPORTERS: dict[str, Exporter] = {}
"""Export targets by name, in registration order."""


def exporter(name: str) -> Callable[[Exporter], Exporter]:
    """Register the decorated function as the export target ``name``."""

    def register(function: Exporter) -> Exporter:
        if name in EXPORTERS:
            raise ValueError(f"export target {name!r} is registered twice")
        EXPORTERS[name] = function
        return function

    return register


def export_targets() -> tuple[str, ...]:
    """The registered target names."""
    return tuple(EXPORTERS)
