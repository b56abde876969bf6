"""loader.paused_gc: the collector paused inside a block, restored after, and (asked) one young collection."""

import gc

import pytest

from workloadmap.loader import paused_gc


class _Built:
    """A tracked object, as the interpreter's results are."""


@pytest.fixture
def explicit_collections():
    """Generations of the collections run while the collector was off, that is, asked for explicitly."""
    generations: list[int] = []

    def record(phase: str, info: dict) -> None:
        if phase == "start" and not gc.isenabled():
            generations.append(info["generation"])

    gc.callbacks.append(record)
    try:
        yield generations
    finally:
        gc.callbacks.remove(record)


@pytest.mark.parametrize(
    ("promote", "caller_enabled", "collections"),
    [
        (False, True, []),  # only paused
        (True, True, [1]),  # one collection of generations 0 and 1 together
        (True, False, []),  # the caller turned the collector off: nothing is collected
    ],
)
def test_paused_gc_collects_once_only_when_asked_and_the_collector_was_on(
    explicit_collections, promote, caller_enabled, collections
):
    if not caller_enabled:
        gc.disable()
    try:
        with paused_gc(promote=promote):
            assert not gc.isenabled()
            built = [_Built() for _ in range(10)]
        assert gc.isenabled() is caller_enabled
    finally:
        gc.enable()
    assert explicit_collections == collections
    assert len(built) == 10


def test_promoted_survivors_leave_the_young_generations():
    with paused_gc(promote=True):
        built = _Built()
    young = gc.get_objects(generation=0) + gc.get_objects(generation=1)
    assert not any(candidate is built for candidate in young)


def test_a_failing_block_collects_nothing_and_restores_the_collector(explicit_collections):
    with pytest.raises(RuntimeError), paused_gc(promote=True):
        raise RuntimeError("stop")
    assert gc.isenabled()
    assert explicit_collections == []
