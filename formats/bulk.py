"""Building many acyclic objects at once (reading a workload, drawing one, checking a run's outputs).

Each collection of Python's cyclic GC walks every container still alive in the generations it
collects; while hundreds of thousands of rows, dicts or jobs are made that hold no cycle, those
walks find nothing and only cost time.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic GC off for the block, then as it was (left off if it was off), also on error.

    >>> with gc_paused():
    ...     gc.isenabled()
    False
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def made_to_last() -> Iterator[None]:
    """For objects that live as long as the process's current job (a run's workload, plugin and
    engine records): built with the cyclic GC paused (:func:`gc_paused`), then frozen
    (:func:`gc.freeze`), so that no collection scans them again until someone unfreezes them
    (the embedded engine does at the end of its run). Nothing is frozen if the block fails.

    >>> before = gc.get_freeze_count()
    >>> with made_to_last():
    ...     kept = [[] for _ in range(3)]
    >>> gc.get_freeze_count() >= before + 3
    True
    >>> gc.unfreeze()
    """
    with gc_paused():
        yield
        gc.freeze()


class SparseCollections:
    """Full collections of the cyclic GC that take at most ``share`` of the process's time.

    A run leaves a few hundred objects of cyclic garbage (engines/run/__init__.py) that only a full
    collection frees, and a full collection walks every container of the process: tens of
    milliseconds with pandas imported, more in a sweep's worker, as much as a short run itself
    (a Klein-Perez test's). Called after each run, :meth:`maybe` collects unless the
    last collection was so recent that this one would raise the collections' share of the time
    since then above ``share``: a long run is always followed by one, short runs by one every
    few, and the garbage kept meanwhile is that of the runs of the last ``cost / share``
    seconds (one second of runs at the default share, 2 %).

    >>> ticks = iter([0.0, 0.02, 0.5, 1.1, 1.12])  # a fake clock: each collection takes 20 ms
    >>> collections = SparseCollections(share=0.02, clock=lambda: next(ticks))
    >>> collections.maybe(), collections.maybe(), collections.maybe()
    (True, False, True)
    """

    def __init__(self, share: float = 0.02, clock: Callable[[], float] = time.perf_counter) -> None:
        self.share = share
        self.clock = clock
        self.last_end_s: float | None = None  # when the last collection ended (None: none yet)
        self.last_cost_s = 0.0

    def maybe(self) -> bool:
        """Collects everything (``gc.collect()``) if it is time to; True if it did."""
        now = self.clock()
        if self.last_end_s is not None and now - self.last_end_s < self.last_cost_s / self.share:
            return False
        gc.collect()
        self.last_end_s = self.clock()
        self.last_cost_s = self.last_end_s - now
        return True
