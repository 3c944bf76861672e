"""Conservative backfilling (Mu'alem & Feitelson 2001, sec. 2), and the reservation planner
every guarantee-keeping scheduler of adaptsched is built on.

Every waiting job holds a reservation, made on arrival at the earliest time it
fits in the availability profile without delaying any earlier reservation, and
no later job may ever delay it. A job may therefore start early ("backfill")
only into holes that no reservation needs.

When a job ends before its walltime, the freed capacity is offered to the
waiting jobs in queue order ("compression"): each one is removed from the
profile and re-placed at its earliest fit, never later than its current
reservation (its own old slot is always still free), so reservations only move
earlier. Arrivals of the same instant are placed after the compression, in
arrival order.

A job whose reservation is due starts as soon as its hosts are free: Batsim may
report a completion due at that very instant in a later message of the same
time, so the job then starts at the same simulated time.

A reservation need not coincide with any event: compression is one pass in queue
order, so a job re-placed before a later job moves keeps a start that nothing
triggers (with nothing running, the simulation would stop there). Whenever the
earliest reservation comes before every running job's expected end, the
scheduler asks to be called back then (CALL_ME_LATER).

Each job's first reservation is recorded in its metadata (``reservation_s``);
the guarantee ``start <= reservation_s`` holds for every job.

A job without a walltime (Batsim's -1, e.g. Downey's generated jobs) occupies its hosts
for ever in the profile until it ends. A job that therefore fits at no time gets no
reservation yet: it waits, unplaced, and is placed (then promised) at the first pass after
a job ended early, before that pass's arrivals; jobs behind it may start meanwhile, as no
reservation of theirs can delay a job that has none.

:class:`ReservationPlanner` is this pass as a template (:meth:`~ReservationPlanner.reservation_pass`)
with the hooks its variants change: the order of compression and of starts, how an
arrival is admitted (QoPS may refuse it), how a job is placed (adaptation may reshape
it), and which jobs may move (a job whose speculative copy runs may not).
:class:`ConservativeBackfilling` is the template with no hook changed.

Incremental compression (docs/engines.md). Re-placing every waiting job at every early completion
costs Q earliest-fit scans per event, quadratic on a deep queue (a backlog of a thousand
jobs). With the default hooks, the pass re-places only the jobs that may move, found by
:class:`~adaptsched.core.compression.Candidates` from where capacity grew (its module doc
has the argument), and gives the same reservations, in the same order, as re-placing them
all. ``tests/test_conservative_incremental.py`` checks random deep queues against the full
pass, move for move.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from heapq import heappop
from typing import Any

from mypy_extensions import mypyc_attr

from adaptsched.core import options as opt
from adaptsched.core.base import Job, ReservingOptions, ReservingScheduler, Running
from adaptsched.core.compression import SCAN_SLACK_S, Answers, Candidates, fit_before_step
from adaptsched.core.intervals import IntervalSet
from adaptsched.core.profile import AvailabilityProfile
from adaptsched.core.units import EPS_S, INF


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class ReservationPlanner(ReservingScheduler):
    """Conservative backfilling's pass, with hooks: :meth:`plan` starts the jobs that
    :meth:`reservation_pass` finds due, then asks to be woken up if no event would come
    in time for the earliest reservation.

    >>> class ShortFirst(ReservationPlanner):  # conservative, shortest jobs re-placed first
    ...     def compression_order(self, now):
    ...         return sorted(self.queue.jobs, key=lambda job: job.walltime_s)
    >>> s = ShortFirst(4); s.submit(Job("w0!1", 0.0, 4, 60.0), 0.0); s.submit(Job("w0!2", 0.0, 2, 10.0), 0.0)
    >>> s.schedule(0.0).starts, s.reservation
    ([('w0!1', IntervalSet([(0, 3)]))], {'w0!2': 60.0})
    """

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        super().__init__(nb_hosts, options, **values)
        self.profile = AvailabilityProfile(nb_hosts)
        self.reservation: dict[str, float] = {}  # waiting job id -> reserved start
        self.arrivals: list[Job] = []
        self.unplaced: list[Job] = []  # waiting jobs that fit at no time (behind jobs without walltime)
        self.freed_early = False
        self.next_start = INF  # earliest reservation of a waiting job
        self.wake_requested: float | None = None
        self.audit: list[tuple[str, float, float]] | None = None  # (job id, old, new) at each move, for tests
        # incremental compression (module doc): only with the default placement hooks
        cls = type(self)
        self.incremental = (
            cls.compression_order is ReservationPlanner.compression_order
            and cls.place is ReservationPlanner.place
            and cls.movable is ReservationPlanner.movable
        )
        self.compressible = Candidates(self.profile, self.queue.key)
        if self.incremental:
            self.profile.freed = []  # where capacity grew, for the index of compressible jobs

    # -- hooks --------------------------------------------------------------------
    def compression_order(self, now: float) -> list[Job]:
        """The order in which waiting jobs are re-placed: queue order."""
        return self.queue.jobs

    def start_order(self) -> list[Job]:
        """The order in which due jobs are started: queue order."""
        return self.queue.jobs

    def admit(self, job: Job, now: float) -> bool:
        """Reserves an arrival at its earliest fit (and records the promise); False rejects it.
        A job that fits at no time (hosts held by jobs without walltime) waits unplaced."""
        start = self.place(job, self.profile, now)
        if start is None:
            self.unplaced.append(job)
            return True
        self.reserve(job, start)
        self.promise(job, start)
        return True

    def place(self, job: Job, profile: AvailabilityProfile, now: float, before: float = INF) -> float | None:
        """Earliest start of a waiting job in ``profile``, no later than ``before``."""
        return profile.earliest_fit(job.res, job.walltime_s, now, before=before)

    def movable(self, job: Job) -> bool:
        """Whether a waiting job may be re-placed or started."""
        return True

    def forget_started(self, started: list[Job]) -> None:
        """Removes the jobs starting now from the waiting structures."""
        self.queue.remove_all(started)

    # -- the pass -------------------------------------------------------------------
    def plan(self, now: float) -> None:
        for job, _ in self.reservation_pass(now):
            self.start(job, now)
        self.wake_up_if_needed(now)

    def reservation_pass(self, now: float) -> list[tuple[Job, float]]:
        """One pass: compression if a job ended early, then the arrivals, then the jobs whose
        reservation is due and whose hosts are free; returns those, with their reserved starts
        (their intervals stay in the profile)."""
        self.profile.advance(now)
        if self.freed_early:
            self.compress(now)
            self.freed_early = False
            if self.unplaced:
                unplaced, self.unplaced = self.unplaced, []
                for job in unplaced:
                    self.admit(job, now)
        for job in self.arrivals:
            if job.id in self.reservation or job.id in self.running:
                continue
            if not self.admit(job, now):
                self.queue.remove_all([job])
                self.reject(job)
        self.arrivals = []
        due: list[tuple[Job, float]] = []
        if self.next_start <= now + EPS_S:
            free = self.pool.nb_free
            for job in self.compressible.due(now + EPS_S) if self.incremental else self.start_order():
                # A due job may still lack hosts: Batsim can report the completion that
                # frees them in a later message of the same instant. It starts then.
                start = self.reservation.get(job.id, INF)  # INF: unplaced
                if start <= now + EPS_S and job.res <= free and self.movable(job):
                    due.append((job, start))
                    del self.reservation[job.id]
                    free -= job.res
        if due:
            self.forget_started([job for job, _ in due])
            if self.incremental:
                for job, _ in due:
                    self.compressible.remove(job.id)
                self.next_start = self.compressible.first_start()
            else:
                self.next_start = min(self.reservation.values(), default=INF)
        return due

    def reserve(self, job: Job, start: float) -> None:
        self.profile.reserve(start, start + job.walltime_s, job.res)
        self.reservation[job.id] = start
        if start < self.next_start:
            self.next_start = start
        if self.incremental:
            self.compressible.add(job, start)

    def compress(self, now: float) -> None:
        if self.incremental:
            self.compress_incrementally(now)
            return
        reservation = self.reservation
        for job in self.compression_order(now):
            old = reservation.get(job.id)
            if old is None or old <= now or not self.movable(job):
                continue
            self.re_place(job, old, now)

    def re_place(self, job: Job, old: float, now: float) -> float:
        """Re-places a waiting job reserved at ``old`` at its earliest fit, never later."""
        profile = self.profile
        profile.release(old, old + job.walltime_s, job.res)
        new = self.place(job, profile, now, before=old)
        assert new is not None  # its own old slot is free
        profile.reserve(new, new + job.walltime_s, job.res)
        if new != old:
            self.reservation[job.id] = new
            if new < self.next_start:
                self.next_start = new
            if self.audit is not None:
                self.audit.append((job.id, old, new))
        return new

    def compress_incrementally(self, now: float) -> None:
        """The same pass as the full compression, re-placing only the dirty jobs (in queue order).
        The hot loop of a deep queue: it takes the dirty jobs from the index's heap itself, and
        the profile's scans (``free_before``, ``step_start`` then ``fit_before``) are inlined."""
        profile, reservation, compressible = self.profile, self.reservation, self.compressible
        freed = profile.freed
        assert freed is not None
        released = sum(n for _, _, n in freed)  # (before, at most that many fewer hosts were free anywhere)
        grew = compressible.grew
        for a, b, _ in freed:
            grew(a, b, now, released)
        freed.clear()
        compressible.begin_pass()
        times, free = profile.times, profile.free  # changed in place by shift: the same lists
        jobs, moved, shift = compressible.jobs, compressible.moved, profile.shift
        heap, dirty, starts = compressible.heap, compressible.dirty, compressible.start  # mark() pushes onto heap
        by_rank, marked_long = compressible.by_rank, compressible.long
        answers = Answers()  # each shape's last earliest fit: where the next one's scan may start
        grown, last = answers.grown, answers.last
        while heap:  # the next dirty job in queue order, now clean
            rank = heappop(heap)
            job_id = by_rank.get(rank)
            if job_id is None or job_id not in dirty:
                continue  # clean
            old = starts[job_id]  # its reservation
            if old <= now:
                continue  # due by now (it stays dirty)
            compressible.cursor = rank
            a = dirty.pop(job_id)  # the start of the earliest region that marked it
            long = job_id in marked_long  # whether one marked it through the L case
            if long:
                marked_long.discard(job_id)
            job = jobs[job_id]
            n, w = job.res, job.walltime_s
            k = bisect_left(times, old)  # the steps before old: 0 to k - 1
            new = old
            if not long:
                # only a window reaching its start can fit it (compression's doc): none does unless
                # the step just before it holds n free hosts; then it moves to the start of the run
                # of such steps ending there, no earlier than the step holding old - w (where the
                # scan would start: the earliest start of a window reaching old, less SCAN_SLACK_S)
                k -= 1
                if free[k] >= n:
                    i = bisect_right(times, old - w - SCAN_SLACK_S) - 1
                    if i < 0:
                        i = 0
                    while k > i and free[k - 1] >= n:
                        k -= 1
                    new = times[k]
            else:
                # no window ending before the earliest region that marked it fits it now (ditto), nor
                # one starting before the floor its shape's last fit in this pass gives (Answers)
                after = a - w - SCAN_SLACK_S
                floor = answers.floor(n, w, old)
                i = bisect_right(times, floor if floor > after else after) - 1
                new = fit_before_step(times, free, i if i > 0 else 0, k, n, w, old)
            last[(n, w)] = (new, old, len(grown))  # its earliest fit, cut at its start (Answers)
            if new < old:
                shift(n, old, new, w)
                reservation[job_id] = new
                moved(job, old, new)
                if new < self.next_start:
                    self.next_start = new
                if self.audit is not None:
                    self.audit.append((job_id, old, new))
                end = new + w
                left = end if end > old else old
                grown.append(left)
                grew(left, old + w, now, n)  # the slot it left
        compressible.cursor = None

    # -- a what-if replay's initial state ---------------------------------------------
    def assume_running(self, job: Job, start_s: float, end_s: float, hosts: IntervalSet | list[int]) -> Running:
        running = super().assume_running(job, start_s, end_s, hosts)
        self.profile.reserve(start_s, end_s, job.res)  # occupied until its expected end
        return running

    def assume_waiting(self, job: Job, now: float, reserved_s: float) -> None:
        """Keeps an admitted job's reservation as it was (no admission control, no re-placing)."""
        self.queue.push(job)
        if self.incremental:
            self.compressible.submitted(job)
        self.reserve(job, reserved_s)
        self.promise(job, reserved_s)

    # -- events -----------------------------------------------------------------------
    def on_submit(self, job: Job, now: float) -> None:
        self.arrivals.append(job)
        if self.incremental:
            self.compressible.submitted(job)

    def on_complete(self, running: Running, now: float, state: str = "COMPLETED_SUCCESSFULLY") -> None:
        if now < running.end_s:  # early completion: its remaining time is free again
            self.release_early(running, now)

    def release_early(self, running: Running, now: float) -> None:
        """Frees the rest of the interval of a job (or copy) that ended before its expected end."""
        self.profile.release(now, running.end_s, running.res)
        self.freed_early = True

    def drop(self, job: Job) -> None:
        """Forgets a waiting job (its work done elsewhere) and frees its reservation."""
        self.queue.remove_all([job])
        if job in self.unplaced:
            self.unplaced.remove(job)
        if self.incremental:
            self.compressible.remove(job.id)
        start = self.reservation.pop(job.id, None)
        if start is not None:
            self.profile.release(start, start + job.walltime_s, job.res)
            self.freed_early = True
            if start <= self.next_start:
                self.next_start = min(self.reservation.values(), default=INF)

    def wake_up_if_needed(self, now: float) -> None:
        """CALL_ME_LATER at the earliest reservation if no running job may end before it."""
        first = self.next_start
        if first == INF or first <= now + EPS_S or first == self.wake_requested:
            return
        if self.by_end and self.by_end[0].end_s <= first:
            return  # that job's end (at the latest) is an event at or before the reservation
        self.wake_requested = first
        self.wake_up(first)


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class ConservativeBackfilling(ReservationPlanner):
    name = "conservative"
    summary = "conservative backfilling: every job holds a reservation that is never delayed"
    Options = ReservingOptions

    def queue_order(self) -> str:
        return opt.narrow(self.options, ReservingOptions).order

    def records_reservations(self) -> bool:
        return opt.narrow(self.options, ReservingOptions).record_reservations
