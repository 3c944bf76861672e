"""Which waiting jobs a compression must re-place: the index behind conservative
backfilling's incremental compression (docs/engines.md).

Mu'alem & Feitelson (2001), "Utilization, predictability, workloads, and user runtime
estimates in scheduling the IBM SP2 with backfilling", sec. 2: when a job ends early,
every waiting job is re-placed in queue order at its earliest fit, never later
("compression"). Re-placing all Q waiting jobs costs Q earliest-fit scans per early
completion, quadratic on a deep queue; this index finds the few that can move.

A waiting job J (``n`` hosts, walltime ``w``, reserved at ``r`` > now) is *settled* when
no start s < r fits it, its own slot given back: it was placed at its earliest fit and
capacity has not grown since where it could use it. A start s < r fits J exactly when at
least ``n`` hosts are free on [s, min(s + w, r)) (from r on, J's own slot holds them), so
a settled job stays settled while capacity only shrinks, and capacity grows only where
hosts are given back (:meth:`Candidates.grew`: an early completion, a dropped
reservation, the slot a job leaves when it moves earlier). A region [a, b) that grows
can unsettle J in one of two ways (the proof takes the latest region that grew on J's
new window, at whose time the window was already free):

- *E*, its window reaches r: then at least ``n`` hosts are now free just before r, and
  were not when J was settled, so the region holds the instant just before r
  (a < r <= b): the jobs reserved in (a, b] are looked up by start time and tested
  exactly (``free just before r >= n``);
- *L*, its window ends before r: a run of at least ``n`` free hosts, ``w`` long or more,
  now meets the region (so a < r and n <= the most free hosts in it). Such a run lies
  within [left(n), right(n)), the region widened by the runs of at least ``n`` free
  hosts on either side (:meth:`AvailabilityProfile.widened`); the jobs of each width
  whose walltime is at most that span are looked up by width and walltime, and kept when
  their walltime is also at most r - left(n) (the window starts in the run and ends by r).

Either way the job is marked *dirty* with the region's start. Compression then re-places
the dirty jobs in queue order (a heap by queue rank), each with a scan that starts at
``a - w`` for the earliest ``a`` that marked it (no window ending before the region can
fit now, as it did not then); a job marked through E only (only a window reaching r can fit
it) moves to the start of the run of steps with at least ``n`` free hosts that ends at r, no
earlier than the step holding ``r - w`` (found walking back from r: the first window a forward
scan from there would find); a job marked by a region made during the pass but ranked
before the job being re-placed waits for the next pass, as in the full pass.

Within a pass, a re-placed job also bounds the scans of the jobs of its shape after it
(:class:`Answers`). A job J of ``n`` hosts and walltime ``w`` re-placed at s (s = r if it
stays) was placed at its earliest fit: no start before s has ``n`` hosts free on
[start, min(start + w, r)). For a later job J' of the same shape reserved at r' >= r, every
start before s has a window [start, min(start + w, r')) that holds J's, so none fits J' either
while capacity only shrinks; in a pass it grows only on the slots that moved jobs leave, and
a region growing from a frees only the windows ending after a, which start after a - w. So
J''s scan starts at the latest of s and each a - w (less ``SCAN_SLACK_S``) for the regions
before r that grew since J. On a deep queue of a few shapes (thousands of one-host jobs
marked by the same region, most of which the first ones fill) it cuts the scans of the jobs
that do not move from the whole profile to the stretch between two reservations.
``tests/test_conservative_incremental.py`` checks random deep queues against the full
pass, move for move.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable
from heapq import heapify, heappush
from typing import Any

from adaptsched.core.job import Job
from adaptsched.core.profile import AvailabilityProfile, Widening
from adaptsched.core.queue import ORDERS
from adaptsched.core.units import INF

#: A waiting job's place in queue order: (queue key, arrival number), or the arrival number alone
#: in arrival order (fcfs: every key is 0), which compares faster.
Rank = Any
#: Seconds of slack before ``a - w`` where a dirty job's scan starts (rounding of a + w).
SCAN_SLACK_S = 1.0
#: Seconds added to a run's length before comparing walltimes with it: a window of w fits a run
#: [x, y) when x + w <= y in floating point, which y - x < w does not rule out.
SPAN_SLACK_S = 1e-3
#: Seconds added to the longest walltime where :meth:`AvailabilityProfile.widened` may stop its walks.
HORIZON_SLACK_S = 1.0


class Candidates:
    """The waiting jobs with a reservation, indexed by start time and by width and
    walltime, and which of them are dirty (module doc)."""

    __slots__ = (
        "at",
        "by_rank",
        "by_width",
        "cursor",
        "dirty",
        "fcfs",
        "heap",
        "jobs",
        "key",
        "long",
        "longest",
        "profile",
        "rank",
        "seq",
        "shortest",
        "start",
        "times",
        "walltimes",
        "widths",
    )

    def __init__(self, profile: AvailabilityProfile, key: Callable[[Job], Any]):
        self.profile = profile
        self.key = key  # the queue's order
        self.seq = 0
        self.fcfs = key is ORDERS["fcfs"]
        self.rank: dict[str, Rank] = {}  # job id -> its rank, from its submission
        self.by_rank: dict[Rank, str] = {}  # rank -> job id, of the same jobs
        self.jobs: dict[str, Job] = {}  # indexed (reserved) job id -> job
        self.start: dict[str, float] = {}  # indexed job id -> reserved start
        self.times: list[float] = []  # the distinct reserved starts, sorted
        self.at: dict[float, dict[str, Job]] = {}  # reserved start -> jobs reserved there
        self.widths: list[int] = []  # the distinct widths of indexed jobs, sorted
        self.by_width: dict[int, list[tuple[float, Rank, str]]] = {}  # width -> (walltime, rank, id), sorted
        self.shortest: list[float] = []  # the shortest walltime of each width, in the order of ``widths``
        self.walltimes: dict[float, int] = {}  # walltime -> number of indexed jobs with it
        self.longest = 0.0  # the longest walltime of an indexed job
        self.dirty: dict[str, float] = {}  # job id -> start of the earliest region that marked it
        self.long: set[str] = set()  # dirty jobs marked through the L case
        self.heap: list[Rank] = []  # the ranks of this pass's dirty jobs still to re-place
        self.cursor: Rank | None = None  # rank of the job being re-placed (None: not in a pass)

    # -- membership ---------------------------------------------------------------------
    def submitted(self, job: Job) -> None:
        """Gives a job its rank (call in the order of the queue's pushes)."""
        self.seq += 1
        rank = self.seq if self.fcfs else (self.key(job), self.seq)
        self.rank[job.id] = rank
        self.by_rank[rank] = job.id

    def add(self, job: Job, start: float) -> None:
        """Indexes a job reserved (settled) at ``start``."""
        self.jobs[job.id] = job
        self._at(job, start)
        n, walltime = job.res, job.walltime_s
        walltimes = self.walltimes
        walltimes[walltime] = walltimes.get(walltime, 0) + 1
        if walltime > self.longest:
            self.longest = walltime
        entry = (walltime, self.rank[job.id], job.id)
        bucket = self.by_width.get(n)
        if bucket is None:
            self.by_width[n] = [entry]
            k = bisect_left(self.widths, n)
            self.widths.insert(k, n)
            self.shortest.insert(k, job.walltime_s)
        else:
            insort(bucket, entry)
            if bucket[0] == entry:  # == (not is): mypyc's compiled build boxes a tuple anew at each use
                self.shortest[bisect_left(self.widths, n)] = job.walltime_s

    def remove(self, job_id: str) -> None:
        """Forgets a job (started, dropped or rejected)."""
        self.dirty.pop(job_id, None)
        self.long.discard(job_id)
        job = self.jobs.pop(job_id, None)
        rank = self.rank.pop(job_id, None)
        if rank is not None:
            del self.by_rank[rank]
        if job is None or rank is None:
            return
        self._off(job_id, self.start.pop(job_id))
        n, walltime, walltimes = job.res, job.walltime_s, self.walltimes
        left = walltimes[walltime] - 1
        if left:
            walltimes[walltime] = left
        else:
            del walltimes[walltime]
            if walltime == self.longest:
                self.longest = max(walltimes, default=0.0)
        bucket = self.by_width[n]
        i = bisect_left(bucket, (job.walltime_s, rank, job_id))
        del bucket[i]
        k = bisect_left(self.widths, n)
        if not bucket:
            del self.by_width[n], self.widths[k], self.shortest[k]
        elif i == 0:
            self.shortest[k] = bucket[0][0]

    def moved(self, job: Job, old: float, new: float) -> None:
        """Re-indexes a job moved from ``old`` to ``new`` (_off then _at, inlined: once a move)."""
        job_id, at, times = job.id, self.at, self.times
        there = at[old]
        del there[job_id]
        if not there:
            del at[old]
            del times[bisect_left(times, old)]
        self.start[job_id] = new
        there_new = at.get(new)
        if there_new is None:
            at[new] = {job_id: job}
            insort(times, new)
        else:
            there_new[job_id] = job

    def _at(self, job: Job, start: float) -> None:
        self.start[job.id] = start
        there = self.at.get(start)
        if there is None:
            self.at[start] = {job.id: job}
            insort(self.times, start)
        else:
            there[job.id] = job

    def _off(self, job_id: str, start: float) -> None:
        there = self.at[start]
        del there[job_id]
        if not there:
            del self.at[start]
            del self.times[bisect_left(self.times, start)]

    def first_start(self) -> float:
        return self.times[0] if self.times else INF

    def due(self, until: float) -> list[Job]:
        """The indexed jobs reserved at or before ``until``, in queue order."""
        times = self.times
        found = [job for t in times[: bisect_right(times, until)] for job in self.at[t].values()]
        if len(found) > 1:
            rank = self.rank
            found.sort(key=lambda job: rank[job.id])
        return found

    # -- dirty jobs ----------------------------------------------------------------------
    def mark(self, job_id: str, a: float, long: bool = False) -> None:
        """Marks a job dirty by a region starting at ``a`` (``long``: through the L case)."""
        seen = self.dirty.get(job_id)
        if seen is None:
            self.dirty[job_id] = a
            cursor = self.cursor
            if cursor is not None:  # in a pass: a job ranked after the cursor is re-placed in it
                rank = self.rank[job_id]
                if rank > cursor:
                    heappush(self.heap, rank)
        elif a < seen:
            self.dirty[job_id] = a
        if long:
            self.long.add(job_id)

    def begin_pass(self) -> None:
        """Puts the dirty jobs in the heap of a pass that takes them in queue order (the pass,
        ``ReservationPlanner.compress_incrementally``, pops it itself: the hot loop of a deep queue)."""
        rank = self.rank
        heap = self.heap = [rank[job_id] for job_id in self.dirty]
        heapify(heap)

    def grew(self, a: float, b: float, now: float, hosts: int) -> None:
        """Capacity grew on [a, b) by at most ``hosts``: marks the jobs it may unsettle (module
        doc, E and L)."""
        if a < now:
            a = now
        if b <= a or not self.times or self.times[-1] <= a:
            return  # in the past, or no job reserved after it
        starts = self.times
        first = bisect_right(starts, a)
        last = bisect_right(starts, b, first)
        if last > first:  # E
            times, free = self.profile.times, self.profile.free
            at, dirty, cursor, rank = self.at, self.dirty, self.cursor, self.rank
            k = 0
            for t in starts[first:last]:
                k = bisect_left(times, t, k)
                room = free[k - 1]  # hosts free just before t
                for job_id, job in at[t].items():
                    if job.res <= room:
                        seen = dirty.get(job_id)
                        if seen is None:  # mark(job_id, a), inlined
                            dirty[job_id] = a
                            if cursor is not None and rank[job_id] > cursor:
                                heappush(self.heap, rank[job_id])
                        elif a < seen:  # (else marking it changes nothing)
                            dirty[job_id] = a
        self.grew_long(a, b, first, hosts)

    def grew_long_few(
        self, a: float, b: float, first: int, bounds: tuple[int, int, float, int, int, int], widening: Widening
    ) -> None:
        """:meth:`grew_long` when few jobs are reserved after ``a`` (from index ``first``): each
        tested directly. ``bounds``: its (low, cap, widest, fewest, lo, hi); ``widening``: the
        runs of free hosts around [a, b)."""
        low, cap, widest, fewest, lo, hi = bounds
        left_min, left_at, right_min, right_at = widening
        times, free = self.profile.times, self.profile.free
        for t in self.times[first:]:
            for job_id, job in self.at[t].items():
                n = job.res
                if low < n <= cap and job.walltime_s <= widest:
                    left, right = _widening(n, a, b, left_min, left_at, right_min, right_at)
                    if job.walltime_s <= t - left + SPAN_SLACK_S and job.walltime_s <= _longest(
                        times, free, lo, hi, n, fewest, left, right
                    ):
                        self.mark(job_id, a, True)

    def grew_long(self, a: float, b: float, first: int, hosts: int) -> None:
        """The L case of :meth:`grew`: the jobs reserved after ``a`` whose width has a run of free
        hosts through [a, b) at least as long as their walltime, a width that was not free at
        some instant of it before (more than its fewest free hosts less ``hosts``); ``first``:
        the index of the first reserved start after ``a``."""
        profile, widths = self.profile, self.widths
        times, free = profile.times, profile.free
        lo = bisect_right(times, a) - 1  # the steps that meet [a, b): lo to hi
        hi = bisect_left(times, b, lo) - 1
        if lo == hi:  # most regions (a moved job's slot) lie in one step
            fewest = cap = free[lo]
        else:
            inside = free[lo : hi + 1]
            fewest, cap = min(inside), max(inside)
        low = fewest - hosts  # no width up to low was free on all of it before
        if low < widths[0]:
            low = widths[0] - 1
        if low >= cap:
            return
        i, j = bisect_right(widths, low), bisect_right(widths, cap)
        if i == j:
            return  # no indexed job has a width in (low, cap]
        # only the runs of at least ``floor`` free hosts matter: no indexed width lies between low and
        # floor, and widening down to floor gives every width read the same runs as down to low + 1.
        # widened's first test on either side, before the walk: with fewer than ``floor`` hosts free just
        # before a (or no step there) and at b (or b infinite), both runs are empty, [a, b) is the widening
        floor = widths[i]
        before = lo if times[lo] < a else lo - 1  # the step holding the instant before a
        if (before < 0 or free[before] < floor) and (b == INF or free[bisect_right(times, b, hi) - 1] < floor):
            left_min, left_at, right_min, right_at = _NARROW
            widest = b - a + SPAN_SLACK_S
        else:
            # no walltime of an indexed job is longer than the horizon: a run is compared with those only
            left_min, left_at, right_min, right_at = profile.widened(a, b, floor, self.longest + HORIZON_SLACK_S)
            widest = (right_at[-1] if right_at else b) - (left_at[-1] if left_at else a) + SPAN_SLACK_S
        shortest = self.shortest
        if (shortest[i] if j - i == 1 else min(shortest[i:j])) > widest:
            return  # no indexed job of these widths is that short
        if len(self.times) - first <= 4:  # few jobs reserved after a: test them directly
            self.grew_long_few(
                a, b, first, (low, cap, widest, fewest, lo, hi), (left_min, left_at, right_min, right_at)
            )
            return
        by_width, starts, dirty, marked_long = self.by_width, self.start, self.dirty, self.long
        cursor, rank = self.cursor, self.rank
        li, ri = len(left_min), len(right_min)
        for k in range(i, j):  # widths increasing: the widening shrinks
            n = widths[k]
            while li and left_min[li - 1] < n:
                li -= 1
            while ri and right_min[ri - 1] < n:
                ri -= 1
            left, right = left_at[li - 1] if li else a, right_at[ri - 1] if ri else b
            span = right - left + SPAN_SLACK_S
            if shortest[k] > span:
                continue
            # the longest run of n free hosts: the span if there is one run, else found (by _longest)
            # only for a job that passes every other test and that a mark would change (most are dirty)
            longest, exact = span, n <= fewest
            room = SPAN_SLACK_S - left  # a window in a run from left(n) on, ending by r: w <= r - left(n)
            for walltime, _, job_id in by_width[n]:
                if walltime > longest:
                    break
                r = starts[job_id]
                if r > a and walltime <= r + room:
                    seen = dirty.get(job_id)
                    if seen is not None and a >= seen and job_id in marked_long:
                        continue  # marking it changes nothing
                    if not exact:
                        longest, exact = _longest(times, free, lo, hi, n, fewest, left, right), True
                        if walltime > longest:
                            break
                    if seen is None:  # mark(job_id, a, True), inlined
                        dirty[job_id] = a
                        if cursor is not None and rank[job_id] > cursor:
                            heappush(self.heap, rank[job_id])
                    elif a < seen:
                        dirty[job_id] = a
                    marked_long.add(job_id)


class Answers:
    """The earliest fits found in one compression pass, one per job shape, and the starts of the
    regions that grew since (module doc): where the next job of a shape may start its scan."""

    __slots__ = ("grown", "last")

    def __init__(self) -> None:
        # (n, w) -> (fit, cut, grown): a job of that shape reserved at ``cut`` has its earliest fit at
        # ``fit``, found when ``grown`` regions had grown (the pass writes it: its hot loop)
        self.last: dict[tuple[int, float], tuple[float, float, int]] = {}
        self.grown: list[float] = []  # the start of each region that grew in the pass, in order

    def floor(self, n: int, w: float, r: float) -> float:
        """No start before this fits a job of ``n`` hosts and walltime ``w`` reserved at ``r``
        (-INF: nothing known)."""
        answer = self.last.get((n, w))
        if answer is None:
            return -INF
        fit, cut, seen = answer
        if r < cut:
            return -INF
        grown = self.grown
        for k in range(seen, len(grown)):
            a = grown[k]
            if a < cut and a - w - SCAN_SLACK_S < fit:
                fit = a - w - SCAN_SLACK_S
        return fit


def fit_before_step(times: list[float], free: list[int], i: int, k: int, n: int, w: float, limit: float) -> float:
    """:meth:`AvailabilityProfile.fit_before` on a profile's ``times`` and ``free`` from the step
    ``i`` (a step's start), the steps before ``limit`` being 0 to ``k`` - 1: the earliest step
    start s with ``n`` hosts free on [s, min(s + w, limit)), ``limit`` if none; busy steps are
    skipped one by one."""
    while True:
        while i < k and free[i] < n:
            i += 1  # too busy: the job can only start after it
        if i >= k:
            return limit
        end = times[i] + w
        j = i + 1
        while j < k and times[j] < end and free[j] >= n:
            j += 1
        if j >= k or times[j] >= end:
            return times[i]  # fits at times[i]
        i = j + 1  # step j is too busy


#: The widening of a region with no run of enough free hosts on either side (never changed).
_NARROW: Widening = ([], [], [], [])


def _widening(
    n: int, a: float, b: float, left_min: list[int], left_at: list[float], right_min: list[int], right_at: list[float]
) -> tuple[float, float]:
    """[left(n), right(n)) of a :data:`~adaptsched.core.profile.Widening`."""
    left, right = a, b
    for m, t in zip(left_min, left_at):
        if m < n:
            break
        left = t
    for m, t in zip(right_min, right_at):
        if m < n:
            break
        right = t
    return left, right


def _longest(
    times: list[float], free: list[int], lo: int, hi: int, n: int, fewest: int, left: float, right: float
) -> float:
    """The length of the longest run of at least ``n`` free hosts that meets the steps ``lo`` to
    ``hi`` (``fewest`` free at least on all of them), the first widened to ``left``, the last to
    ``right``; plus a little (``SPAN_SLACK_S``)."""
    if n <= fewest:  # one run
        return right - left + SPAN_SLACK_S
    best, start = 0.0, None
    for i in range(lo, hi + 1):
        if free[i] >= n:
            if start is None:
                start = left if i == lo else times[i]
        elif start is not None:
            if times[i] - start > best:
                best = times[i] - start
            start = None
    if start is not None and right - start > best:
        best = right - start
    return best + SPAN_SLACK_S
