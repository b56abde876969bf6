"""Topology levels: the table of known label schemes, level detection and the accelerator rule.

A level list is node-label keys, widest first, ``kubernetes.io/hostname`` last. Without explicit
levels, :func:`detect_levels` builds one from the label schemes of :data:`FABRIC_SCHEMES` and
:data:`ACCELERATOR_SCHEMES` found on the nodes. :func:`accelerator_level` names the level that is
an accelerator (NVLink) domain, the one the automatic placement policy requires for a gang that
fits in one; every scheme's NVLink-domain key comes from this one table, so detection and the
policy cannot disagree (an EKS UltraServer and a GPU-Operator clique are treated alike).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import PlacementError
from ..labels import (
    EKS_CAPACITY_BLOCK,
    EKS_NETWORK_LAYERS,
    EKS_ULTRASERVER,
    GKE_BLOCK,
    GKE_HOST,
    GKE_SUBBLOCK,
    GPU_CLIQUE,
    HOSTNAME,
    OCI_NETWORK_BLOCK,
    OCI_RACK,
    TOPOGRAPH_ACCELERATOR_DOMAIN,
    TOPOGRAPH_ACCELERATOR_SUB_DOMAIN,
    TOPOGRAPH_LEGACY_ACCELERATOR,
    TOPOGRAPH_LEGACY_CORE,
    TOPOGRAPH_LEGACY_LEAF,
    TOPOGRAPH_LEGACY_SPINE,
    TOPOGRAPH_TIER,
    TOPOGRAPH_TIER_PATTERN,
    ZONE,
)
from .model import Node

__all__ = [
    "LevelScheme",
    "FABRIC_SCHEMES",
    "ACCELERATOR_SCHEMES",
    "ZONE_SCHEME",
    "NVLINK_DOMAIN_LABELS",
    "detect_levels",
    "detect_schemes",
    "label_keys",
    "accelerator_level",
    "resolve_level",
]


@dataclass(frozen=True)
class LevelScheme:
    """A known set of topology label keys, widest first.

    Attributes:
        name: the scheme's name (``topograph``, ``gke``, ``eks-ultraserver`` ...).
        keys: the label keys, widest first (Topograph's ``tier-N`` keys are found by pattern).
        description: one line for humans.
        nvlink_domain: the key that names an accelerator (NVLink) domain, for accelerator schemes.
    """

    name: str
    keys: tuple[str, ...]
    description: str
    nvlink_domain: str | None = None


FABRIC_SCHEMES: tuple[LevelScheme, ...] = (
    LevelScheme("topograph", (), "Topograph >= v1.0 fabric.topograph.run/tier-N (highest N widest)"),
    LevelScheme(
        "topograph-legacy",
        (TOPOGRAPH_LEGACY_CORE, TOPOGRAPH_LEGACY_SPINE, TOPOGRAPH_LEGACY_LEAF),
        "Topograph <= v0.5 network.topology.nvidia.com/{core,spine,leaf}",
    ),
    LevelScheme("gke", (GKE_BLOCK, GKE_SUBBLOCK, GKE_HOST), "GKE cloud.google.com/gce-topology-{block,subblock,host}"),
    LevelScheme("eks", EKS_NETWORK_LAYERS, "EKS topology.k8s.aws/network-node-layer-1..4 (layer 1 is the top)"),
    LevelScheme("oci", (OCI_NETWORK_BLOCK, OCI_RACK), "OCI oci.oraclecloud.com/host.{network_block_id,rack_id}"),
)
"""Switch hierarchies; the first one found is used (several would describe the same switches twice)."""

ACCELERATOR_SCHEMES: tuple[LevelScheme, ...] = (
    LevelScheme(
        "topograph-accelerator",
        (TOPOGRAPH_ACCELERATOR_DOMAIN, TOPOGRAPH_ACCELERATOR_SUB_DOMAIN),
        "Topograph >= v1.0 accelerator.topograph.run/{domain,sub-domain}",
        nvlink_domain=TOPOGRAPH_ACCELERATOR_DOMAIN,
    ),
    LevelScheme(
        "topograph-legacy-accelerator",
        (TOPOGRAPH_LEGACY_ACCELERATOR,),
        "Topograph <= v0.5 network.topology.nvidia.com/accelerator",
        nvlink_domain=TOPOGRAPH_LEGACY_ACCELERATOR,
    ),
    LevelScheme(
        "eks-ultraserver",
        (EKS_ULTRASERVER,),
        "EKS HyperPod topology.k8s.aws/ultraserver-id",
        nvlink_domain=EKS_ULTRASERVER,
    ),
    # Topograph's node-labels reference: on P6e-GB200 the Capacity Block "aligns with the NVL Domain",
    # and Topograph's AWS provider derives accelerator.topograph.run/domain from the same CapacityBlockId.
    LevelScheme(
        "eks-capacity-block",
        (EKS_CAPACITY_BLOCK,),
        "EKS topology.k8s.aws/capacity-block-id (the NVLink domain on P6e-GB200 without Topograph)",
        nvlink_domain=EKS_CAPACITY_BLOCK,
    ),
    LevelScheme("gpu-clique", (GPU_CLIQUE,), "NVIDIA GPU Operator nvidia.com/gpu.clique", nvlink_domain=GPU_CLIQUE),
)
"""Accelerator (NVLink) domains; every one found is used, after the switch tiers."""

ZONE_SCHEME = LevelScheme("zone", (ZONE,), "topology.kubernetes.io/zone")

NVLINK_DOMAIN_LABELS: tuple[str, ...] = tuple(
    scheme.nvlink_domain for scheme in ACCELERATOR_SCHEMES if scheme.nvlink_domain is not None
)
"""Node-label keys known to name an accelerator (NVLink) domain."""


def label_keys(nodes: Iterable[Node]) -> set[str]:
    """Every label key at least one node carries."""
    keys: set[str] = set()
    for node in nodes:
        keys.update(node.labels)
    return keys


def _topograph_tiers(keys: set[str]) -> list[str]:
    tiers = sorted((int(match.group(1)) for key in keys if (match := TOPOGRAPH_TIER_PATTERN.match(key))), reverse=True)
    # A key spelled tier-01 would not round-trip through format(); keep what is really there.
    return [key for key in (TOPOGRAPH_TIER.format(tier=tier) for tier in tiers) if key in keys]


def _detect(keys: set[str]) -> list[tuple[LevelScheme, list[str]]]:
    found: list[tuple[LevelScheme, list[str]]] = []
    if ZONE in keys:
        found.append((ZONE_SCHEME, [ZONE]))
    for scheme in FABRIC_SCHEMES:
        present = _topograph_tiers(keys) if scheme.name == "topograph" else [key for key in scheme.keys if key in keys]
        if present:
            found.append((scheme, present))
            break
    for scheme in ACCELERATOR_SCHEMES:
        present = [key for key in scheme.keys if key in keys]
        if present:
            found.append((scheme, present))
    return found


def detect_levels(nodes: Iterable[Node]) -> list[str]:
    """Topology levels from the label keys present on at least one node, widest first.

    Order: ``topology.kubernetes.io/zone``; then the first fabric scheme found in
    :data:`FABRIC_SCHEMES` order (Topograph v1 ``tier-N`` highest N first, legacy Topograph
    core/spine/leaf, GKE block/subblock/host, EKS layer-1..4, OCI network block/rack); then every
    accelerator scheme found (Topograph ``domain``, ``sub-domain``, legacy ``accelerator``, EKS
    ``ultraserver-id`` and ``capacity-block-id``, ``nvidia.com/gpu.clique``); then ``kubernetes.io/hostname``, always.

    Accelerator (NVLink) domains come after the switch tiers although Topograph models them as
    an orthogonal axis: a level list must be a single hierarchy, and an NVLink domain that spans
    two leaf switches is split per leaf (pass explicit levels to order them differently).
    """
    levels = [key for _, keys in _detect(label_keys(nodes)) for key in keys]
    return [*levels, HOSTNAME]


def detect_schemes(nodes: Iterable[Node]) -> list[str]:
    """Names of the label schemes :func:`detect_levels` found (``zone``, ``topograph``, ``gke`` ...)."""
    return [scheme.name for scheme, _ in _detect(label_keys(nodes))]


def accelerator_level(levels: Sequence[str]) -> str | None:
    """The level that is an accelerator (NVLink) domain, if any.

    A known NVLink-domain key (:data:`NVLINK_DOMAIN_LABELS`, the widest one present) wins;
    otherwise the narrowest level above hostname whose key mentions ``accelerator``, ``clique``,
    ``nvlink`` or ``ultraserver`` (a cluster's own label for the same thing).
    """
    for level in levels:
        if level in NVLINK_DOMAIN_LABELS:
            return level
    for level in reversed(levels):
        if level == HOSTNAME:
            continue
        lowered = level.lower()
        if any(word in lowered for word in ("accelerator", "clique", "nvlink", "ultraserver")):
            return level
    return None


def resolve_level(name: str, levels: Sequence[str], *, what: str = "level") -> str:
    """Map a level given by the user to one of ``levels``.

    Accepts the exact node-label key, or a unique key whose last path segment or tail matches
    (``rack`` finds ``cloud.provider.com/topology-rack``).

    Raises:
        PlacementError: no level or several levels match.
    """
    if name in levels:
        return name
    matches = [level for level in levels if level.split("/")[-1] == name]
    if not matches:
        matches = [level for level in levels if level.endswith(name) or level.split("/")[-1].endswith(name)]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(levels) if levels else "(none)"
    detail = "is ambiguous" if matches else "is not a topology level"
    raise PlacementError(f"{what} level {name!r} {detail}; levels: {known}")
