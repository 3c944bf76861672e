"""Building many acyclic objects at once (reading a workload, drawing one, checking a run's outputs).

Each collection of Python's cyclic GC walks every container still alive in the generations it
collects; while hundreds of thousands of rows, dicts or jobs are made that hold no cycle, those
walks find nothing and only cost time.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
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
