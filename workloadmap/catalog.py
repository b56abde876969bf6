"""The catalog: workload-type definitions, built-in and user-supplied, indexed by group and kind.

Built-in definitions ship inside the package. User directories (``--catalog DIR`` or the
``WMAP_CATALOG`` environment variable, ``os.pathsep``-separated) add definitions; a user
definition for a group and kind that a built-in covers replaces it, and the replacement is noted
in :attr:`Catalog.notices`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import ValidationError

from .definitions import Definition
from .documents import load_yaml_text
from .errors import DefinitionError, InputError

__all__ = [
    "Catalog",
    "Lookup",
    "load_definition",
    "parse_definition",
    "definition_files",
    "builtin_catalog_dir",
    "NON_WORKLOAD_KINDS",
    "CATALOG_ENV",
]

CATALOG_ENV = "WMAP_CATALOG"

# Kinds that travel with workloads in one file but run no pods of their own; they are skipped with
# a note instead of failing with "no definition".
NON_WORKLOAD_KINDS = frozenset(
    {
        "ConfigMap",
        "Secret",
        "Service",
        "ServiceAccount",
        "Namespace",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "StorageClass",
        "Role",
        "RoleBinding",
        "ClusterRole",
        "ClusterRoleBinding",
        "Ingress",
        "IngressClass",
        "NetworkPolicy",
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
        "PriorityClass",
        "LimitRange",
        "ResourceQuota",
        "CustomResourceDefinition",
        "Endpoints",
        "EndpointSlice",
        "ServiceMonitor",
        "PodMonitor",
        "PrometheusRule",
        "LocalQueue",
        "ClusterQueue",
        "ResourceFlavor",
        "WorkloadPriorityClass",
        "Queue",
        "Gateway",
        "GatewayClass",
        "HTTPRoute",
        "GRPCRoute",
        "InferencePool",
        "InferenceModel",
        "InferenceObjective",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "DeviceClass",
        "ResourceSlice",
        "ComputeDomain",  # NVIDIA DRA driver: its IMEX daemons are the driver's pods, not the workload's
        "PodGang",  # Grove's gang objects: derived from a PodCliqueSet, whose pods they only reference
        "ClusterTopology",
        "ClusterTopologyBinding",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "Certificate",
        "Issuer",
        "ServingRuntime",
        "ClusterServingRuntime",
        "LLMInferenceServiceConfig",
        "Topology",
        "HyperNode",
        "PodGroup",
        "ClusterLocalModel",
        "LocalModelNodeGroup",
        "ScaledObject",
    }
)


def builtin_catalog_dir() -> Path:
    """Where the built-in definitions are: inside the installed package, or ``catalog/`` in a checkout."""
    installed = Path(__file__).parent / "builtin"
    if installed.is_dir():
        return installed
    return Path(__file__).parent.parent / "catalog"


def load_definition(path: str | Path) -> Definition:
    """Load, validate and compile one definition file.

    Raises:
        DefinitionError: the file is not a valid definition; the message names the file and field.
    """
    path = Path(path)
    file = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise DefinitionError(f"cannot read: {error.strerror or error}", file=file) from None
    return parse_definition(text, file)


def parse_definition(text: str, file: str = "<definition>") -> Definition:
    """Validate and compile a definition given as YAML text (see :func:`load_definition`)."""
    try:
        documents = [doc for doc in load_yaml_text(text, file) if doc.body is not None]
    except InputError as error:
        raise DefinitionError(error.message, file=file, document=error.document) from None
    if len(documents) != 1:
        raise DefinitionError(f"expected exactly one definition document, found {len(documents)}", file=file)
    data = documents[0].body
    if not isinstance(data, dict):
        raise DefinitionError("a definition must be a mapping", file=file)
    document = str(data.get("name") or "#1")
    try:
        definition = Definition.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or None
        message = first["msg"]
        if first["type"] == "extra_forbidden":
            message = "unknown field"
        raise DefinitionError(message, file=file, document=document, field=field) from None
    return definition.compile(file)


class Lookup:
    """The result of looking a resource up: the definition and, if any, a version warning."""

    __slots__ = ("definition", "warning")

    def __init__(self, definition: Definition, warning: str | None) -> None:
        self.definition = definition
        self.warning = warning


class Catalog:
    """Definitions indexed by ``(group, kind)``.

    Use :meth:`Catalog.load` to get the built-in catalog plus any user directories.
    """

    def __init__(self, definitions: Iterable[Definition] = ()) -> None:
        self._by_group_kind: dict[tuple[str, str], Definition] = {}
        self.notices: list[str] = []
        for definition in definitions:
            self.add(definition)

    @classmethod
    def load(cls, extra_dirs: Iterable[str | Path] = (), *, use_env: bool = True, builtin: bool = True) -> "Catalog":
        """The built-in catalog, then each user directory in order (later ones replace earlier ones).

        Raises:
            DefinitionError: a definition file is invalid, or a directory does not exist.
        """
        catalog = cls()
        if builtin:
            for path in definition_files(builtin_catalog_dir()):
                catalog.add(load_definition(path))
        dirs: list[str | Path] = list(extra_dirs)
        if use_env and os.environ.get(CATALOG_ENV):
            dirs = [*(d for d in os.environ[CATALOG_ENV].split(os.pathsep) if d), *dirs]
        for directory in dirs:
            directory = Path(directory)
            if directory.is_file():
                files = [directory]
            elif directory.is_dir():
                files = list(definition_files(directory))
            else:
                raise DefinitionError("catalog directory does not exist", file=str(directory))
            for path in files:
                catalog.add(load_definition(path), replace=True)
        return catalog

    def add(self, definition: Definition, *, replace: bool = False) -> None:
        """Add a definition; with ``replace``, a definition for the same group and kind gives way.

        Raises:
            DefinitionError: two definitions of one source claim the same group and kind.
        """
        key = definition.api_group_kind
        existing = self._by_group_kind.get(key)
        if existing is not None:
            if not replace:
                raise DefinitionError(
                    f"{definition.kind} ({definition.group or 'core'}) is already defined by {existing.source}",
                    file=definition.source,
                    document=definition.name,
                )
            self.notices.append(
                f"definition {definition.name} from {definition.source} replaces {existing.name} "
                f"for {_group_kind(definition.group, definition.kind)}"
            )
        self._by_group_kind[key] = definition

    def __iter__(self) -> Iterator[Definition]:
        return iter(sorted(self._by_group_kind.values(), key=lambda d: (d.group, d.kind)))

    def __len__(self) -> int:
        return len(self._by_group_kind)

    def get(self, name: str) -> Definition | None:
        """A definition by catalog name, kind (case-insensitive) or ``kind.group``."""
        lowered = name.lower()
        for definition in self:
            if lowered in (
                definition.name,
                definition.kind.lower(),
                f"{definition.kind}.{definition.group}".lower(),
            ):
                return definition
        return None

    def lookup(self, api_version: str, kind: str) -> Lookup | None:
        """The definition for a resource's ``apiVersion`` and ``kind``, or None.

        A known group and kind at a version the definition does not list is still matched, with a
        warning: operators add versions whose pod layout rarely changes.
        """
        group, _, version = api_version.rpartition("/")
        definition = self._by_group_kind.get((group, kind))
        if definition is None:
            return None
        warning = None
        if version not in definition.versions:
            warning = (
                f"{_group_kind(group, kind)} version {version} is not one definition {definition.name} "
                f"knows ({', '.join(definition.versions)}); interpreted with it anyway"
            )
        return Lookup(definition, warning)


def _group_kind(group: str, kind: str) -> str:
    return f"{kind}.{group}" if group else kind


def definition_files(directory: Path) -> Iterator[Path]:
    """The definition files of a directory: ``*.yaml``/``*.yml``, sorted, hidden files skipped."""
    for path in sorted(directory.iterdir()):
        if path.suffix in (".yaml", ".yml") and path.is_file() and not path.name.startswith("."):
            yield path
