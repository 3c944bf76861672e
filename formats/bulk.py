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
