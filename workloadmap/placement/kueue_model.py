"""What Kueue places: a PodSet with its topology request (``kueue.PodSetTopologyRequest``), and its assignment."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..scheduling import PodScheduling
from .packing import Amount

__all__ = ["SliceLayer", "KueueRequest", "KueuePodSet", "KueueResult"]


@dataclass(frozen=True)
class SliceLayer:
    """One layer of a slice constraint: every ``size`` consecutive pods in one domain of ``level``."""

    level: str
    size: int


@dataclass(frozen=True)
class KueueRequest:
    """A PodSet's topology request (``kueue.PodSetTopologyRequest``).

    Attributes:
        required: ``podset-required-topology``.
        preferred: ``podset-preferred-topology``.
        unconstrained: ``podset-unconstrained-topology: "true"``.
        slices: the slice layers, outermost first (``podset-slice-required-topology`` with
            ``podset-slice-size``, or ``podset-slice-required-topology-constraints``).
        group: ``podset-group-name``.
        implied: no request at all on a flavor with a topology: Kueue treats it as unconstrained.
        source: where the request comes from (``annotation``, ``option``, ``auto``, ``fit``, ``implied``).
    """

    required: str | None = None
    preferred: str | None = None
    unconstrained: bool = False
    slices: tuple[SliceLayer, ...] = ()
    group: str | None = None
    implied: bool = False
    source: str = "implied"

    @property
    def level(self) -> str | None:
        """The required or preferred level, if any."""
        return self.required or self.preferred


@dataclass
class KueuePodSet:
    """One PodSet to place: ``count`` pods of ``request`` each, with the template's node filters."""

    name: str
    count: int
    request: dict[str, Amount]
    scheduling: PodScheduling = field(default_factory=PodScheduling)
    topology: KueueRequest = field(default_factory=KueueRequest)


@dataclass
class KueueResult:
    """Pods per node (tree node index) for the workers and, for a group, the leader; or the reason."""

    nodes: dict[int, int] = field(default_factory=dict)
    leader_nodes: dict[int, int] = field(default_factory=dict)
    reason: str | None = None
