"""Sharding: which namespaces one process of a sharded service handles.

As kube-state-metrics shards (``--shard``/``--total-shards``, ``pkg/sharding``), every process
watches everything and keeps only its part, chosen by a stable hash: here of the namespace, so a
workload, its owners, its pods and its Events always land in one shard. The hash is 64-bit FNV-1a
of the namespace's UTF-8 bytes, the same in every process and every Python (``hash()`` is salted
per process). ``M`` processes with shards ``0..M-1`` together export exactly what one unsharded
process exports (cluster-scoped objects, such as Nodes, are read by every shard; only the
per-namespace series are split).

:func:`statefulset_ordinal` reads a shard from a StatefulSet pod's name (``wmap-serve-2`` is
shard 2), as kube-state-metrics' automatic sharding does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import WorkloadMapError

__all__ = ["Shard", "namespace_hash", "statefulset_ordinal", "UNSHARDED"]

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = (1 << 64) - 1


def namespace_hash(namespace: str) -> int:
    """64-bit FNV-1a of the namespace's UTF-8 bytes."""
    value = _FNV_OFFSET
    for byte in namespace.encode():
        value = ((value ^ byte) * _FNV_PRIME) & _MASK
    return value


@dataclass(frozen=True)
class Shard:
    """This process's share: namespaces whose hash modulo ``total`` is ``index``.

    Raises:
        WorkloadMapError: ``index`` is not in ``0..total-1``.
    """

    index: int = 0
    total: int = 1

    def __post_init__(self) -> None:
        if self.total < 1 or not 0 <= self.index < self.total:
            raise WorkloadMapError(f"shard {self.index} of {self.total}: the shard must be 0 to total shards - 1")

    def __call__(self, namespace: str) -> bool:
        """Whether this process handles ``namespace``."""
        return self.total == 1 or namespace_hash(namespace) % self.total == self.index

    def __str__(self) -> str:
        return f"shard {self.index} of {self.total}"


UNSHARDED = Shard()

_ORDINAL = re.compile(r"-(\d+)$")


def statefulset_ordinal(pod_name: str) -> int:
    """The ordinal a StatefulSet gives its pod, the last ``-N`` of the name.

    Raises:
        WorkloadMapError: the name does not end in ``-N`` (not a StatefulSet's pod).
    """
    match = _ORDINAL.search(pod_name)
    if match is None:
        raise WorkloadMapError(
            f"cannot read a shard from pod name {pod_name!r}: a StatefulSet's pods end in -0, -1 ... "
            "(run wmap serve from a StatefulSet, or give --shard N)"
        )
    return int(match.group(1))
