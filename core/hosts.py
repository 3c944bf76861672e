"""Host ids: the pool of free hosts (first-fit, lowest ids), kept as runs of ids.

Allocating ``n`` hosts costs the runs it takes, releasing a job's hosts costs its runs (and a
shift of the pool's list of runs), not the number of hosts (docs/scale.md: a job of 50,000 hosts is
one run, not 50,000 list items). Allocations are :class:`~adaptsched.core.intervals.IntervalSet`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

from adaptsched.core.intervals import IntervalSet, take_lowest


def as_interval_set(hosts: IntervalSet | Iterable[int]) -> IntervalSet:
    """``hosts`` as an IntervalSet (host ids in any order, distinct)."""
    if isinstance(hosts, IntervalSet):
        return hosts
    ids = sorted(hosts)
    if len(set(ids)) != len(ids):
        raise ValueError(f"host ids {ids} are not distinct")
    return IntervalSet.from_ids(ids)


class HostPool:
    """Free host ids, as sorted maximal runs; jobs get the lowest free ids (non-contiguous).

    >>> pool = HostPool(8)
    >>> a = pool.allocate(3); b = pool.allocate(2); pool.release(a)
    >>> a, pool.nb_free, pool.allocate(4)
    (IntervalSet([(0, 2)]), 6, IntervalSet([(0, 2), (5, 5)]))
    """

    __slots__ = ("_free", "_nb_free", "nb_hosts")

    def __init__(self, nb_hosts: int):
        self.nb_hosts = nb_hosts
        self._free: list[tuple[int, int]] = [(0, nb_hosts - 1)] if nb_hosts > 0 else []
        self._nb_free = max(0, nb_hosts)

    @property
    def nb_free(self) -> int:
        return self._nb_free

    def free(self) -> IntervalSet:
        """The free hosts (a copy)."""
        return IntervalSet(self._free)

    def allocate(self, n: int) -> IntervalSet:
        if n > self._nb_free:
            raise ValueError(f"cannot allocate {n} hosts: only {self._nb_free} are free")
        taken = take_lowest(self._free, n)
        self._nb_free -= n
        return IntervalSet(taken)

    def take(self, hosts: IntervalSet | Iterable[int]) -> None:
        """Marks these free hosts as used (a what-if simulation resuming a running job)."""
        wanted = as_interval_set(hosts)
        for a, b in wanted.runs:
            i = bisect_left(self._free, a + 1, key=lambda run: run[0]) - 1
            if i < 0 or self._free[i][1] < b:
                raise ValueError(f"cannot take hosts {list(wanted)}: not all free")
        remaining: list[tuple[int, int]] = []
        runs = iter(wanted.runs)
        cut = next(runs, None)
        for a, b in self._free:
            while cut is not None and cut[0] <= b:  # cuts inside this free run, lowest first
                if cut[0] > a:
                    remaining.append((a, cut[0] - 1))
                a = cut[1] + 1
                cut = next(runs, None)
            if a <= b:
                remaining.append((a, b))
        self._free = remaining
        self._nb_free -= wanted.size

    def release(self, hosts: IntervalSet | Iterable[int]) -> None:
        released = as_interval_set(hosts)
        free = self._free
        for a, b in released.runs:
            i = bisect_left(free, (a, b))  # free runs before i start before a
            if i > 0 and free[i - 1][1] == a - 1:  # joins the run before
                i -= 1
                a = free[i][0]
                del free[i]
            if i < len(free) and free[i][0] == b + 1:  # joins the run after
                b = free[i][1]
                del free[i]
            free.insert(i, (a, b))
        self._nb_free += released.size
