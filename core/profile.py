"""Availability profile: the number of free hosts over time, as a step function.

The profile is the planning data structure of backfilling schedulers (Mu'alem &
Feitelson 2001, "Utilization, predictability, workloads, and user runtime
estimates in scheduling the IBM SP2 with backfilling"): running jobs occupy their
hosts until their *expected* end (start + walltime), reserved jobs from their
reserved start to their expected end. ``earliest_fit`` finds the first time a job
of ``n`` hosts can run for ``duration_s`` without any other job being delayed.

Counts suffice (no host identities): any free host can serve any job, so a
count-feasible plan is always executable when jobs start.

>>> p = AvailabilityProfile(4, now=0.0)
>>> p.reserve(0.0, 10.0, 3)        # a running job on 3 hosts until t=10
>>> p.earliest_fit(2, 5.0, after=0.0)
10.0
>>> p.earliest_fit(1, 100.0, after=0.0)
0.0
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

from adaptsched.core.units import INF


class AvailabilityProfile:
    """``free[i]`` hosts are free on ``[times[i], times[i+1])``; the last step never ends.

    >>> p = AvailabilityProfile(4)
    >>> p.reserve(0.0, 10.0, 3)  # a running job: 3 hosts until t=10
    >>> p.earliest_fit(2, 5.0, after=0.0), p.earliest_fit(1, 100.0, after=0.0)
    (10.0, 0.0)
    >>> p.release(0.0, 10.0, 3); p.earliest_fit(2, 5.0, after=0.0)
    0.0
    """

    __slots__ = ("free", "freed", "nb_hosts", "times")

    def __init__(self, nb_hosts: int, now: float = 0.0):
        self.nb_hosts = nb_hosts
        self.times: list[float] = [now]
        self.free: list[int] = [nb_hosts]
        #: When a list, every :meth:`release` appends its (start, end) to it: where capacity grew
        #: (the incremental compression of :mod:`adaptsched.core.conservative` reads it).
        self.freed: list[tuple[float, float]] | None = None

    @classmethod
    def of_running(cls, nb_hosts: int, now: float, running: Iterable[tuple[float, int]]) -> AvailabilityProfile:
        """The profile of running jobs alone; ``running``: (expected end, hosts) sorted by end."""
        profile = cls(nb_hosts, now)
        times, free = profile.times, profile.free
        busy = sum(n for _, n in running)
        free[0] = nb_hosts - busy
        for end, n in running:
            busy -= n
            if end <= now:
                free[0] += n
            elif times[-1] == end:
                free[-1] += n
            else:
                times.append(end)
                free.append(nb_hosts - busy)
        return profile

    def copy(self) -> AvailabilityProfile:
        clone = AvailabilityProfile.__new__(AvailabilityProfile)
        clone.nb_hosts = self.nb_hosts
        clone.times = list(self.times)
        clone.free = list(self.free)
        clone.freed = None
        return clone

    def __repr__(self) -> str:
        steps = ", ".join(f"{t:g}:{f}" for t, f in zip(self.times, self.free))
        return f"AvailabilityProfile({steps})"

    # -- queries ----------------------------------------------------------------
    def free_at(self, t: float) -> int:
        i = bisect_right(self.times, t) - 1
        return self.free[max(i, 0)]

    def earliest_fit(self, n: int, duration_s: float, after: float, before: float = INF) -> float | None:
        """Earliest start >= ``after`` (and <= ``before``) with ``n`` hosts free for
        ``duration_s`` seconds; None if there is none by ``before``."""
        times, free = self.times, self.free
        if n > self.nb_hosts:
            return None
        size = len(times)
        i = bisect_right(times, after) - 1
        if i < 0:
            i = 0
        start = after if after > times[0] else times[0]
        while start <= before:
            end = start + duration_s
            j = i
            while j < size and times[j] < end:
                if free[j] < n:
                    break
                j += 1
            else:
                return start
            # step j is too busy: the job can only start after it
            if j + 1 >= size:
                return None  # the last step never ends and has too few hosts
            i = j + 1
            start = times[i]
        return None

    def _lowest(self, t0: float, t1: float) -> tuple[int, float]:
        """(fewest free hosts on [t0, t1), end of the last step with that many), half-open."""
        times, free = self.times, self.free
        size = len(times)
        i = bisect_right(times, t0) - 1
        if i < 0:
            i = 0
        low, last = free[i], i
        i += 1
        while i < size and times[i] < t1:
            f = free[i]
            if f <= low:
                low, last = f, i
            i += 1
        return low, (times[last + 1] if last + 1 < size else INF)

    def min_free(self, t0: float, t1: float) -> int:
        """Fewest free hosts on the half-open [t0, t1); ``nb_hosts`` if it is empty (t1 <= t0):
        Klein & Pérez's n_max - max(ep_r, t0, t1), with ``busy = nb_hosts - free`` as ep_r.

        >>> p = AvailabilityProfile(10); p.reserve(10.0, 30.0, 4); p.reserve(40.0, 50.0, 8)
        >>> p.min_free(0.0, 10.0), p.min_free(0.0, 11.0), p.min_free(30.0, 40.0), p.min_free(5.0, 5.0)
        (10, 6, 10, 10)
        """
        if t1 <= t0:
            return self.nb_hosts
        return self._lowest(t0, t1)[0]

    def loc(self, t0: float, t1: float) -> float:
        """Klein & Pérez's loc(ep_r, t0, t1): the end of the last step of [t0, t1) with the fewest
        free hosts, not clipped to t1 (a step reaching past t1 gives its own end: the next try
        starts after it at once); INF if that step never ends. For t1 <= t0: t0.

        >>> p = AvailabilityProfile(10); p.reserve(10.0, 30.0, 4); p.reserve(40.0, 50.0, 8)
        >>> p.loc(0.0, 20.0), p.loc(0.0, 45.0), p.loc(0.0, 5.0)
        (30.0, 50.0, 10.0)
        """
        if t1 <= t0:
            return t0
        return self._lowest(t0, t1)[1]

    def max_free(self, t0: float, t1: float) -> int:
        """Most free hosts on the half-open [t0, t1) (0 if it is empty)."""
        if t1 <= t0:
            return 0
        times, free = self.times, self.free
        i = max(bisect_right(times, t0) - 1, 0)
        best = 0
        size = len(times)
        while i < size and times[i] < t1:
            if free[i] > best:
                best = free[i]
            i += 1
        return best

    def runs_through(self, t0: float, t1: float, n: int) -> tuple[float, float]:
        """(length of the longest, end of the last) maximal run of time with at least ``n`` free
        hosts that meets [t0, t1); (0.0, -INF) if none does. A run counts from the profile's start.

        >>> p = AvailabilityProfile(10); p.reserve(10.0, 30.0, 4); p.reserve(40.0, 50.0, 8)
        >>> p.runs_through(0.0, 5.0, 7), p.runs_through(12.0, 13.0, 7), p.runs_through(12.0, 13.0, 5)
        ((10.0, 10.0), (0.0, -inf), (40.0, 40.0))
        """
        times, free = self.times, self.free
        size = len(times)
        k = max(bisect_right(times, t0) - 1, 0)
        longest, last_end = 0.0, -INF
        if free[k] >= n:  # the run meeting t0 may start before it
            while k > 0 and free[k - 1] >= n:
                k -= 1
        while k < size and times[k] < t1:
            if free[k] < n:
                k += 1
                continue
            start = times[k]
            while k < size and free[k] >= n:
                k += 1
            end = times[k] if k < size else INF
            if end - start > longest:
                longest = end - start
            last_end = end
        return longest, last_end

    def hole(self, n: int, now: float, limit: float = INF) -> float:
        """How long ``n`` hosts stay free from ``now`` (at most ``limit`` seconds; 0 if not now)."""
        times, free = self.times, self.free
        i = max(bisect_right(times, now) - 1, 0)
        end = now + limit
        while i < len(times) and times[i] < end:
            if free[i] < n:
                return max(times[i] - now, 0.0)
            i += 1
        return limit

    # -- updates ----------------------------------------------------------------
    def _split(self, t: float) -> int:
        """Index of the step that starts exactly at ``t`` (created if needed)."""
        times = self.times
        i = bisect_right(times, t) - 1
        if i >= 0 and times[i] == t:
            return i
        if i < 0:  # before the profile's start: extend it
            times.insert(0, t)
            self.free.insert(0, self.nb_hosts)
            return 0
        times.insert(i + 1, t)
        self.free.insert(i + 1, self.free[i])
        return i + 1

    def reserve(self, start: float, end: float, n: int) -> None:
        """Takes ``n`` hosts on [start, end)."""
        self._add(start, end, -n)

    def release(self, start: float, end: float, n: int) -> None:
        """Gives back ``n`` hosts on [start, end) (undoes a ``reserve``)."""
        self._add(start, end, n)
        if self.freed is not None and start < end:
            self.freed.append((start, end))

    def _add(self, start: float, end: float, delta: int) -> None:
        if end <= start:
            return
        first = self._split(start)
        last = self._split(end) if end < INF else len(self.times)
        free = self.free
        changed = free[first:last]
        if delta < 0 and changed and min(changed) + delta < 0:
            for k in range(first, last):  # as far as it goes, then says where it went wrong
                free[k] += delta
                if free[k] < 0:
                    raise ValueError(f"over-subscribed profile at t={self.times[k]:g} ({free[k]} free hosts)")
        free[first:last] = [f + delta for f in changed]
        # merge equal neighbours around the changed range to keep the profile small
        self._merge(last)
        self._merge(first)

    def _merge(self, k: int) -> None:
        times, free = self.times, self.free
        if 0 < k < len(times) and free[k] == free[k - 1]:
            del times[k]
            del free[k]

    def advance(self, now: float) -> None:
        """Forgets the steps that ended before ``now``."""
        times, free = self.times, self.free
        i = bisect_right(times, now) - 1
        if i > 0:
            del times[:i]
            del free[:i]
        if times[0] < now:
            times[0] = now
