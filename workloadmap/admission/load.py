"""Queue objects from files: a dump file, a directory of them, or standard input."""

from __future__ import annotations

from collections.abc import Sequence

from ..documents import load_objects
from ..loader import TOPOLOGY_LIMITS
from .dump import QueueState, read_queue_objects

__all__ = ["load_queues"]


def load_queues(paths: Sequence[str]) -> QueueState:
    """The queue objects of every FILE, DIR or ``-`` given (``kubectl get ... -o yaml`` output).

    Raises:
        InputError: a file that cannot be read or parsed, or a queue object with a bad field
            (located: file, document, field).
        InputNotFoundError: a path that does not exist.
    """
    state = QueueState()
    for path in paths:
        read_queue_objects(load_objects(path, limits=TOPOLOGY_LIMITS), state)
    return state
