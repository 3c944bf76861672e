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

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence

from adaptsched.core.units import INF

#: The runs of free hosts on either side of an interval [a, b) of a profile, as
#: :meth:`AvailabilityProfile.widened` returns them: (left_min, left_at, right_min, right_at).
#: Going left from a, each new fewest number of free hosts and the start of the stretch that has
#: at least that many (``left_min`` decreasing, ``left_at`` earlier and earlier); going right
#: from b, likewise with the stretch's end. For a width n, [a, b) widened to [left(n), right(n))
#: (left(n): the ``left_at`` of the last ``left_min`` >= n, else a; right(n) likewise, else b)
#: holds every run of at least n free hosts that meets it. A plain tuple: cheaper to make than
#: a named one on the hot path.
Widening = tuple[list[int], list[float], list[int], list[float]]


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
        #: When a list, every :meth:`release` appends its (start, end, hosts) to it: where capacity grew
        #: (the incremental compression of :mod:`adaptsched.core.conservative` reads it).
        self.freed: list[tuple[float, float, int]] | None = None

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
        clone = AvailabilityProfile(self.nb_hosts)  # freed: None
        clone.times = list(self.times)
        clone.free = list(self.free)
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
        while True:
            if free[i] < n:  # too busy: the job can only start at the next step with n free hosts
                i += 1
                while i < size and free[i] < n:
                    i += 1
                if i >= size:
                    return None  # the last step never ends and has too few hosts
                start = times[i]
            if start > before:
                return None
            end = start + duration_s
            j = i + 1
            while j < size and times[j] < end and free[j] >= n:
                j += 1
            if j >= size or times[j] >= end:
                return start
            # step j is too busy: the job can only start after it
            i = j + 1
            if i >= size:
                return None
            start = times[i]

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

    def free_range(self, t0: float, t1: float) -> tuple[int, int]:
        """(fewest, most) free hosts on the half-open [t0, t1), which must not be empty."""
        times, free = self.times, self.free
        i = max(bisect_right(times, t0) - 1, 0)
        j = bisect_left(times, t1, i)
        if j == i:
            j = i + 1
        steps = free[i:j]
        return min(steps), max(steps)

    def fit_before(self, n: int, duration_s: float, after: float, limit: float) -> float:
        """Earliest start s in [after, limit) (``after`` or a step's start) with ``n`` hosts free
        on [s, min(s + duration_s, limit)); ``limit`` if there is none. With a job of ``n``
        hosts reserved at ``limit`` for ``duration_s``, this is its earliest fit no later than
        its reservation, its own slot given back (from ``limit`` on, its own hosts are free),
        without giving it back."""
        times, free = self.times, self.free
        size = len(times)
        i = bisect_right(times, after) - 1
        if i < 0:
            i = 0
        start = after if after > times[0] else times[0]
        while start < limit:
            end = start + duration_s
            if end > limit:
                end = limit
            j = i
            while j < size and times[j] < end:
                if free[j] < n:
                    break
                j += 1
            else:
                return start
            i = j + 1  # step j is too busy: the job can only start after it
            if i >= size:
                break
            start = times[i]
        return limit

    def free_before(self, t: float) -> int:
        """Free hosts just before ``t`` (which must be later than the profile's start)."""
        return self.free[bisect_left(self.times, t) - 1]

    def step_start(self, t: float) -> float:
        """Start of the step holding ``t`` (the profile's start if ``t`` is before it)."""
        times = self.times
        i = bisect_right(times, t) - 1
        return times[i] if i > 0 else times[0]

    def shift(self, n: int, old: float, new: float, duration_s: float) -> None:
        """Moves a reservation of ``n`` hosts for ``duration_s`` from ``old`` to ``new`` < ``old``:
        the same profile as :meth:`release` then :meth:`reserve`, without logging the release.
        The hot path of every compression: ``_add(new, min(end, old), -n)`` then
        ``_add(max(end, old), old + duration_s, n)`` (end = new + duration_s) in one call, the
        second range's search starting where the first one's ended.

        >>> p = AvailabilityProfile(4); p.reserve(0.0, 5.0, 2); p.reserve(10.0, 30.0, 3)
        >>> p.shift(3, 10.0, 5.0, 20.0); p
        AvailabilityProfile(0:2, 5:1, 25:4)
        """
        times, free, nb_hosts = self.times, self.free, self.nb_hosts
        end = new + duration_s
        taken = end if end < old else old  # [new, taken): n hosts fewer
        first = _add_steps(times, free, nb_hosts, new, taken, -n) if taken > new else 0
        gone, stop = (end if end > old else old), old + duration_s  # [gone, stop): n hosts more
        if stop > gone:  # its search starts at the step before the first range's (at or before gone)
            _add_steps(times, free, nb_hosts, gone, stop, n, first - 1 if first > 0 else 0)

    def widened(self, a: float, b: float, floor: int, horizon_s: float = INF) -> Widening:
        """The runs of free hosts on either side of [a, b), for the widths of at least ``floor``
        (a :data:`Widening`). With ``horizon_s``, each walk stops at the first step that ends (or
        starts, going left) at least ``horizon_s`` from the interval: a stretch longer than that is
        then cut there, so every left(n) or right(n) is either exact or at least ``horizon_s``
        away from the interval (enough to compare it with walltimes up to ``horizon_s``).

        >>> p = AvailabilityProfile(10); p.reserve(10.0, 30.0, 4); p.reserve(40.0, 50.0, 8)
        >>> p.widened(30.0, 35.0, 2)  # left_min, left_at, right_min, right_at
        ([6], [0.0], [10, 2], [40.0, inf])
        """
        times, free = self.times, self.free
        left_min: list[int] = []
        left_at: list[float] = []
        i, low = bisect_left(times, a) - 1, self.nb_hosts + 1  # the step holding the instant before a
        far_left = a - horizon_s
        while i >= 0:
            if free[i] < low:
                low = free[i]
                if low < floor:
                    break
                left_min.append(low)
                left_at.append(times[i])
            else:
                left_at[-1] = times[i]
            if times[i] <= far_left:
                break
            i -= 1
        right_min: list[int] = []
        right_at: list[float] = []
        size = len(times)
        j, low = bisect_right(times, b) - 1, self.nb_hosts + 1  # the step holding b
        far_right = b + horizon_s
        if b == INF:
            j = size  # no run after a region that never ends
        while j < size:
            end = times[j + 1] if j + 1 < size else INF
            if free[j] < low:
                low = free[j]
                if low < floor:
                    break
                right_min.append(low)
                right_at.append(end)
            else:
                right_at[-1] = end
            if end >= far_right:
                break
            j += 1
        return left_min, left_at, right_min, right_at

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

    def plan(self, jobs: Sequence[tuple[int, float, float]], now: float) -> tuple[list[float], int | None]:
        """Plans ``jobs``, each (hosts, duration_s, latest_end_s), one after the other from
        ``now``: each at its earliest fit (:meth:`earliest_fit`) in this profile with the jobs
        before it reserved (:meth:`reserve`), in a copy (this profile is left as it is). Returns
        their starts and the index of the first job that cannot run or would end after its
        latest end (None: all fit); the starts are those of the jobs before it.

        The admission test of QoPS and its variants (every position of every arrival of every
        what-if replay of DVQoPS): the same scan as :meth:`earliest_fit` and the same steps as
        :meth:`reserve`, on lists copied at the first reservation (the last job is not
        reserved: nothing follows it). The step holding ``now`` is found once: a reservation
        starts at or after ``now``, so only one starting at ``now`` can change it.

        >>> p = AvailabilityProfile(4)
        >>> p.reserve(0.0, 10.0, 3)
        >>> p.plan([(2, 5.0, INF), (2, 5.0, INF), (4, 1.0, 12.0)], now=0.0)
        ([10.0, 10.0], 2)
        >>> p
        AvailabilityProfile(0:1, 10:4)
        """
        times, free = self.times, self.free
        copied, nb_hosts, last = False, self.nb_hosts, len(jobs) - 1
        starts: list[float] = []
        at = bisect_right(times, now) - 1  # the step holding now
        if at < 0:
            at = 0
        for index, (n, duration, latest_end) in enumerate(jobs):
            if n > nb_hosts:
                return starts, index
            size = len(times)  # earliest_fit(n, duration, now)
            i = at
            start = now if now > times[0] else times[0]
            while True:
                end = start + duration
                j = i
                while j < size and times[j] < end:
                    if free[j] < n:
                        break
                    j += 1
                else:
                    break  # fits at start
                i = j + 1  # the next step with n hosts free (a start in a short one fails at once)
                while i < size and free[i] < n and duration > 0:
                    i += 1
                if i >= size:
                    return starts, index  # the last step never ends and has too few hosts
                start = times[i]
            if end > latest_end:
                return starts, index
            starts.append(start)
            if index == last or end <= start:
                continue
            if not copied:  # reserve(start, end, n) on copies: step i holds start
                times, free, copied = list(times), list(free), True
            first = _add_steps(times, free, nb_hosts, start, end, -n, i)
            if first < len(times) and times[first] == start:
                if first == at + 1 and start <= now:  # (one starting at now within its step split it)
                    at = first
            elif first <= at:  # (a reservation starting at now merged into the step before)
                at = first - 1
        return starts, None

    # -- updates ----------------------------------------------------------------
    def reserve(self, start: float, end: float, n: int) -> None:
        """Takes ``n`` hosts on [start, end)."""
        if start < end:  # (the hot path of every planner: no call between this one and the steps')
            _add_steps(self.times, self.free, self.nb_hosts, start, end, -n)

    def release(self, start: float, end: float, n: int) -> None:
        """Gives back ``n`` hosts on [start, end) (undoes a ``reserve``)."""
        if start < end:
            _add_steps(self.times, self.free, self.nb_hosts, start, end, n)
            if self.freed is not None:
                self.freed.append((start, end, n))

    def _add(self, start: float, end: float, delta: int) -> None:
        """Adds ``delta`` free hosts on [start, end), keeping equal neighbours merged (so the
        steps depend only on the function) (:func:`_add_steps`)."""
        if start < end:
            _add_steps(self.times, self.free, self.nb_hosts, start, end, delta)

    def advance(self, now: float) -> None:
        """Forgets the steps that ended before ``now``."""
        times, free = self.times, self.free
        i = bisect_right(times, now) - 1
        if i > 0:
            del times[:i]
            del free[:i]
        if times[0] < now:
            times[0] = now


def _add_steps(
    times: list[float], free: list[int], nb_hosts: int, start: float, end: float, delta: int, lo: int = 0
) -> int:
    """Adds ``delta`` free hosts on [start, end) (``start < end``) to the steps ``times``/``free``
    of a profile of ``nb_hosts`` hosts (``lo``: a step at or before the one holding ``start``):
    splits the steps at ``start`` and ``end`` (extending the profile before its start if need
    be), adds, and merges equal neighbours again (so the steps depend only on the function).
    Returns the index of the step that starts at ``start``, or, where that step merged into the
    one before, of the step after it. :meth:`AvailabilityProfile.reserve` and ``release`` (the
    hot path of every planner) and :meth:`AvailabilityProfile.plan` (on its copies) share it."""
    i = bisect_right(times, start, lo) - 1
    if i < 0:  # before the profile's start: extend it
        times.insert(0, start)
        free.insert(0, nb_hosts)
        i = 0
    if times[i] == start:
        first = i
    else:
        first = i + 1
        times.insert(first, start)
        free.insert(first, free[i])
    if end < INF:
        j = bisect_right(times, end, first) - 1
        if times[j] == end:
            last = j
        else:
            last = j + 1
            times.insert(last, end)
            free.insert(last, free[j])
    else:
        last = len(times)
    if last - first <= 16:  # most updates change a few steps (5 % more than 4, 3 % more than 16): no slices
        for k in range(first, last):
            f = free[k] + delta
            free[k] = f
            if f < 0:  # as far as it goes, then says where it went wrong
                raise ValueError(f"over-subscribed profile at t={times[k]:g} ({f} free hosts)")
    else:
        changed = free[first:last]
        if delta < 0 and min(changed) + delta < 0:
            for k in range(first, last):  # as far as it goes, then says where it went wrong
                free[k] += delta
                if free[k] < 0:
                    raise ValueError(f"over-subscribed profile at t={times[k]:g} ({free[k]} free hosts)")
        free[first:last] = [f + delta for f in changed]
    if last < len(times) and free[last] == free[last - 1]:
        del times[last], free[last]
    if first > 0 and free[first] == free[first - 1]:
        del times[first], free[first]
    return first
