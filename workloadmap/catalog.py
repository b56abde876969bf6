"""The catalog: workload-type definitions, built-in and user-supplied, indexed by group and kind.

Built-in definitions ship inside the package. User directories (``--catalog DIR`` or the
``WMAP_CATALOG`` environment variable, ``os.pathsep``-separated) add definitions; a user
definition for a group and kind that a built-in covers replaces it, and the replacement is noted
in :attr:`Catalog.notices`.

User files may hold wmap definitions or upstream Workload Map ``Karta`` objects
(:mod:`workloadmap.karta`). Definitions come in three layers, each replacing the ones below it
for a group and kind: built-in, cluster (Kartas read from a live cluster), user files. Within one
layer, two definitions that cover the same group, version and kind are ambiguous, an error naming
both files, as upstream's resolver says for two cluster Kartas; a Karta covers its root kind's
one version, so Kartas for two versions of a kind sit side by side.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from .catalog_cache import read_precompiled, write_precompiled
from .documents import load_yaml_text
from .errors import DefinitionError, InputError, NoDefinitionError
from .labels import NATIVE_COMPOSITE_KIND, NATIVE_POD_GROUP_KIND, NATIVE_WORKLOAD_KIND
from .runtime_definitions import Definition

if TYPE_CHECKING:
    from . import definitions
    from .karta import KartaDefinition

__all__ = [
    "Catalog",
    "CatalogEntry",
    "Lookup",
    "load_definitions",
    "load_definition",
    "parse_definition",
    "definition_files",
    "builtin_definitions",
    "rebuild_precompiled",
    "validated_definition",
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
        "Cohort",
        "AdmissionCheck",
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
        # KServe model caches: the localmodelnode agent's per-node download Jobs are the cache's, not a workload's
        # (kserve/kserve pkg/controller/v1alpha1/localmodelnode/controller.go launchJob)
        "LocalModelCache",
        "LocalModelNamespaceCache",
        "LocalModelNode",
        "TrainedModel",  # KServe: a model loaded into its InferenceService's multi-model predictor; no pod of its own
        "DynamoGraphDeploymentScalingAdapter",  # Dynamo: writes a component's replicas into its DGD; no pod
        "DisaggregatedSetRoleScaler",  # LWS DisaggregatedSet: a role's scale subresource; no pod
        "ScaledObject",
        "Task",  # Tekton: run by a TaskRun or a PipelineRun (their --related objects)
        "ClusterTask",
        "Pipeline",
        "StepAction",
    }
)


def builtin_catalog_dir() -> Path:
    """Where the built-in definitions are: inside the installed package, or ``catalog/`` in a checkout."""
    installed = Path(__file__).parent / "builtin"
    if installed.is_dir():
        return installed
    return Path(__file__).parent.parent / "catalog"


def builtin_definitions() -> list[Definition]:
    """The built-in definitions: the precompiled ones when they match the files, else parsed from YAML."""
    directory = builtin_catalog_dir()
    files = list(definition_files(directory))
    precompiled = read_precompiled(directory, files)
    return precompiled if precompiled is not None else [load_definition(path) for path in files]


def rebuild_precompiled() -> Path:
    """Validate and compile the built-in definitions from their YAML and store them precompiled."""
    directory = builtin_catalog_dir()
    files = list(definition_files(directory))
    return write_precompiled(directory, files, [load_definition(path) for path in files])


def validated_definition(definition: Definition) -> definitions.Definition:
    """The pydantic model of a catalog definition: itself, or (a precompiled built-in) its file validated again.

    The precompiled built-ins are stored in their runtime form, which holds the field values but
    not pydantic's view of them; what needs that view (``catalog show``'s ``model_dump`` with aliases
    and without defaults) validates the file the definition came from, the one the precompiled
    catalog's fingerprint matched.

    Raises:
        ValueError: a runtime definition that names no source file.
        DefinitionError: the file no longer validates.
    """
    from .definitions import Definition as Model

    if isinstance(definition, Model):
        return definition
    if definition.source is None:
        raise ValueError(f"definition {definition.name} has no model and no source file to validate")
    return load_definition(definition.source)


def load_definition(path: str | Path) -> definitions.Definition:
    """Load, validate and compile one definition file (the pydantic model).

    Raises:
        DefinitionError: the file is not a valid definition; the message names the file and field.
    """
    text, file = _read(path)
    return parse_definition(text, file)


def _read(path: str | Path) -> tuple[str, str]:
    """The text of a definition file and its name; an unreadable file is a DefinitionError."""
    file = str(path)
    try:
        return Path(path).read_text(encoding="utf-8"), file
    except OSError as error:
        raise DefinitionError(f"cannot read: {error.strerror or error}", file=file) from None


CatalogEntry = Union[Definition, "KartaDefinition"]
"""What the catalog holds: a wmap definition or a Karta."""

BUILTIN, CLUSTER, USER = 0, 1, 2
"""The layers of a catalog, lowest first; a higher layer replaces a lower one for a group and kind."""


def load_definitions(path: str | Path) -> list[CatalogEntry]:
    """Load one definition file: a wmap definition, or one or more Kartas (a ``List`` of them too).

    Raises:
        DefinitionError: the file is not a valid definition; the message names the file and field.
    """
    text, file = _read(path)
    try:
        bodies = [doc.body for doc in load_yaml_text(text, file) if doc.body is not None]
    except InputError as error:
        raise DefinitionError(error.message, file=file, document=error.document) from None
    items = [item for body in bodies for item in (body.get("items") or [] if _is_list(body) else [body])]
    from .karta import is_karta, parse_karta  # Kartas bring jq; only files that hold one need it

    if items and any(is_karta(item) for item in items):
        return [parse_karta(item, file) for item in items]
    return [parse_definition(text, file)]


def _plural(kind: str) -> str:
    """The resource plural Kubernetes tooling derives from a kind (``jobsets``, ``milvuses``, ``policies``)."""
    lowered = kind.lower()
    if lowered.endswith(("s", "x", "z", "ch", "sh")):
        return lowered + "es"
    if lowered.endswith("y") and lowered[-2:-1] not in ("a", "e", "i", "o", "u"):
        return lowered[:-1] + "ies"
    return lowered + "s"


def _resource_names(definition: Any) -> set[str]:
    """The names `kubectl get` takes for a definition's resource, bare and with ``.group``."""
    bare = {definition.kind.lower(), _plural(definition.kind), *(name.lower() for name in definition.short_names)}
    grouped = {f"{name}.{definition.group}".lower() for name in bare} if definition.group else set()
    return bare | grouped


def _is_list(body: Any) -> bool:
    return isinstance(body, dict) and str(body.get("kind", "")).endswith("List") and isinstance(body.get("items"), list)


def parse_definition(text: str, file: str = "<definition>") -> definitions.Definition:
    """Validate and compile a definition given as YAML text (see :func:`load_definition`)."""
    from pydantic import ValidationError  # definitions are validated here, not on the built-in catalog's path

    from .definitions import Definition as Model
    from .definitions import validation_problem

    try:
        documents = [doc for doc in load_yaml_text(text, file) if doc.body is not None]
    except InputError as error:
        raise DefinitionError(error.message, file=file, document=error.document) from None
    if len(documents) != 1:
        raise DefinitionError(f"expected exactly one definition document, found {len(documents)}", file=file)
    data = documents[0].body
    if not isinstance(data, dict):
        raise DefinitionError("a definition must be a mapping", file=file)
    if "apiVersion" in data and "components" not in data:
        metadata = data.get("metadata")
        label = f"{data.get('kind')}/{metadata.get('name') or '' if isinstance(metadata, dict) else ''}"
        raise DefinitionError(
            f"not a definition: this is a Kubernetes {data.get('kind')} manifest ({data.get('apiVersion')}); a "
            "definition has name, group, kind, versions and components, a Karta apiVersion run.ai/v1alpha1 "
            "(inspect manifests with `wmap inspect`)",
            file=file,
            document=label.rstrip("/"),
        )
    document = str(data.get("name") or "#1")
    try:
        definition = Model.model_validate(data)
    except ValidationError as error:
        field, message = validation_problem(error)
        raise DefinitionError(message, file=file, document=document, field=field) from None
    return definition.compile(file)


class Lookup:
    """The result of looking a resource up: the definition and, if any, a version warning."""

    __slots__ = ("definition", "warning")

    def __init__(self, definition: CatalogEntry, warning: str | None) -> None:
        self.definition = definition
        self.warning = warning


class Catalog:
    """Definitions (wmap definitions and Kartas) indexed by ``(group, kind)``.

    Use :meth:`Catalog.load` to get the built-in catalog plus any user directories.
    """

    def __init__(self, definitions: Iterable[CatalogEntry] = ()) -> None:
        self._by_group_kind: dict[tuple[str, str], list[CatalogEntry]] = {}
        self._layers: dict[tuple[str, str], int] = {}
        self._lookups: dict[tuple[str, str], Lookup | None] = {}  # answers of lookup(), until the next add()
        self._suggestions: dict[tuple[str, str], str] = {}  # answers of suggest(), until the next add()
        self._referenced: frozenset[str] | None = None  # referenced_kinds(), until the next add()
        self.notices: list[str] = []
        for definition in definitions:
            self.add(definition)

    @classmethod
    def load(cls, extra_dirs: Iterable[str | Path] = (), *, use_env: bool = True, builtin: bool = True) -> "Catalog":
        """The built-in catalog, then the definitions of every user directory.

        Raises:
            DefinitionError: a definition file is invalid, a directory does not exist, or two user
                definitions cover one group, version and kind.
        """
        catalog = cls()
        if builtin:
            for builtin_entry in builtin_definitions():
                catalog.add(builtin_entry)
        dirs: list[str | Path] = list(extra_dirs)
        if use_env and os.environ.get(CATALOG_ENV):
            from_env = [d for d in os.environ[CATALOG_ENV].split(os.pathsep) if d]
            # Definitions are code-like input: whoever set the variable chose them, so say so every time.
            catalog.notices.append(f"{CATALOG_ENV} is set: definitions are read from {', '.join(from_env)}")
            dirs = [*from_env, *dirs]
        for directory in dirs:
            directory = Path(directory)
            if directory.is_file():
                files = [directory]
            elif directory.is_dir():
                files = list(definition_files(directory))
            else:
                raise DefinitionError("catalog directory does not exist", file=str(directory))
            for path in files:
                for definition in load_definitions(path):
                    catalog.add(definition, replace=True)
        return catalog

    def add(self, definition: CatalogEntry, *, replace: bool = False, layer: int | None = None) -> None:
        """Add a definition to a layer (``replace``: the user layer; default: the built-in one).

        A definition of a higher layer replaces the lower layer's for its group and kind (with a
        notice); one of a lower layer than what is there is ignored.

        Raises:
            DefinitionError: two definitions of one layer cover the same group, version and kind.
        """
        layer = layer if layer is not None else (USER if replace else BUILTIN)
        key = definition.api_group_kind
        existing = self._by_group_kind.get(key, [])
        current = self._layers.get(key, layer)
        if existing and current > layer:
            return
        if existing and current < layer:
            replaced = ", ".join(entry.name for entry in existing)
            self.notices.append(
                f"definition {definition.name} from {definition.source} replaces {replaced} "
                f"for {_group_kind(definition.group, definition.kind)}"
            )
            existing = []
        for other in existing:
            if set(other.versions) & set(definition.versions):
                what = "ambiguous: " if layer != BUILTIN else ""
                raise DefinitionError(
                    f"{what}{definition.kind} ({definition.group or 'core'}) is already defined by {other.source}",
                    file=definition.source,
                    document=definition.name,
                )
        self._by_group_kind[key] = [*existing, definition]
        self._layers[key] = layer
        self._lookups.clear()
        self._suggestions.clear()
        self._referenced = None

    def add_cluster_kartas(self, objects: Iterable[Any], source: str = "cluster") -> None:
        """Add Kartas read from a cluster: they replace built-ins for their kind, user files replace them.

        A Karta that breaks upstream's rules is skipped with a notice (the cluster's operator
        would not mark it Validated); two valid ones for one group, version and kind are ambiguous.

        Raises:
            DefinitionError: two cluster Kartas cover the same group, version and kind.
        """
        from .karta import parse_karta

        for obj in objects:
            try:
                definition = parse_karta(obj, source, origin="cluster")
            except DefinitionError as error:
                self.notices.append(f"skipped cluster Karta: {error}")
                continue
            self.add(definition, layer=CLUSTER)

    def __iter__(self) -> Iterator[CatalogEntry]:
        entries = [entry for group in self._by_group_kind.values() for entry in group]
        return iter(sorted(entries, key=lambda d: (d.group, d.kind, d.versions)))

    def __len__(self) -> int:
        return sum(len(group) for group in self._by_group_kind.values())

    def get(self, name: str) -> CatalogEntry | None:
        """A definition by catalog name, or by the names `kubectl get` takes for its resource.

        Those are the kind (case-insensitive), its plural (``jobsets``), a short name the definition
        states (``lws``), each optionally followed by ``.group`` (``jobset.jobset.x-k8s.io``).
        """
        lowered = name.lower()
        for definition in self:
            if lowered == definition.name or lowered in _resource_names(definition):
                return definition
        return None

    def close_matches(self, name: str, limit: int = 3) -> list[str]:
        """The definition names and kinds closest to a misspelt ``name`` (``Jobset`` -> ``JobSet``)."""
        known: dict[str, str] = {}
        for definition in self:
            for candidate in (definition.name, definition.kind, *definition.short_names):
                known.setdefault(candidate.lower(), candidate)
        from difflib import get_close_matches  # only for a name nobody defines

        found = get_close_matches(name.lower(), list(known), n=limit, cutoff=0.7)
        return [known[match] for match in found if known[match] != name]

    def suggest(self, api_version: str, kind: str) -> str:
        """``; did you mean ...?`` for a kind no definition covers, when one is close (else empty).

        The same kind in another group comes first (a wrong ``apiVersion``), then kinds spelt alike.
        Answers are remembered until the next :meth:`add`: a cluster's stream repeats its unknown
        kinds (ConfigMaps, Services) and the spelling search costs more than interpreting a workload.
        """
        key = (api_version, kind)
        if key not in self._suggestions:
            self._suggestions[key] = self._suggest(api_version, kind)
        return self._suggestions[key]

    def _suggest(self, api_version: str, kind: str) -> str:
        group = api_version.rpartition("/")[0]
        same = [d for d in self if d.kind.lower() == kind.lower() and (d.group, d.kind) != (group, kind)]
        if not same:
            kinds = {definition.kind.lower(): definition for definition in self}
            from difflib import get_close_matches

            same = [kinds[close] for close in get_close_matches(kind.lower(), list(kinds), n=2, cutoff=0.8)]
        ideas = dict.fromkeys(f"{d.kind} ({d.group or 'core'}/{d.versions[0]})" for d in same)
        return f"; did you mean {' or '.join(ideas)}?" if ideas else ""

    def referenced_kinds(self) -> frozenset[str]:
        """The kinds any definition's ``references`` can name, and the native Workload API's kinds a pod joins.

        These are the only objects a reference finds (the interpreter's ``native`` step looks up the
        ``scheduling.k8s.io`` Workload, PodGroup and CompositePodGroup a pod template names).
        """
        if self._referenced is None:
            self._referenced = frozenset(
                candidate.kind
                for group in self._by_group_kind.values()
                for entry in group
                if isinstance(entry, Definition)
                for reference in entry.references
                for candidate in reference.kinds
            ) | {NATIVE_WORKLOAD_KIND, NATIVE_POD_GROUP_KIND, NATIVE_COMPOSITE_KIND}
        return self._referenced

    def lookup(self, api_version: str, kind: str) -> Lookup | None:
        """The definition for a resource's ``apiVersion`` and ``kind``, or None.

        The definition that lists the version wins. A known group and kind at a version no
        definition lists is still matched (the first one), with a warning: operators add versions
        whose pod layout rarely changes.
        """
        key = (api_version, kind)
        if key not in self._lookups:
            self._lookups[key] = self._lookup(api_version, kind)
        return self._lookups[key]

    def no_definition(
        self, api_version: str, kind: str, *, embedded: bool = False, field: str | None = None
    ) -> NoDefinitionError:
        """The error (to raise, exit 4) for a kind :meth:`lookup` found no definition for: one text for every caller.

        ``embedded`` says the kind is that of an object embedded in a workload, at ``field``.
        """
        return NoDefinitionError(
            f"no definition covers {'embedded kind' if embedded else 'kind'} {kind} ({api_version}); see "
            f"`wmap catalog list`, or add one with --catalog DIR{self.suggest(api_version, kind)}",
            api_version=api_version,
            kind=kind,
            field=field,
        )

    def _lookup(self, api_version: str, kind: str) -> Lookup | None:
        group, _, version = api_version.rpartition("/")
        definitions = self._by_group_kind.get((group, kind))
        if not definitions:
            return None
        exact = [definition for definition in definitions if version in definition.versions]
        if exact:
            return Lookup(exact[0], None)
        definition = definitions[0]
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


if __name__ == "__main__":
    # python -m workloadmap.catalog, the rebuild command of old: the whole build step, which writes the
    # precompiled catalog after the forms it depends on (runtime classes, package stub). A separate
    # process, not an import: the build step sits above every stage it writes for.
    import sys

    os.execve(sys.executable, [sys.executable, "-m", "workloadmap.build"], {**os.environ, "PYTHONHASHSEED": "0"})
