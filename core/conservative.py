"""Conservative backfilling (Mu'alem & Feitelson 2001, sec. 2).

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
"""

from __future__ import annotations

from adaptsched.core.base import INF, ReservingScheduler
from adaptsched.core.profile import AvailabilityProfile

EPS_S = 1e-6  # Batsim prints times with 6 decimals: a reservation this close is due


class ConservativeBackfilling(ReservingScheduler):
    name = "conservative"

    def __init__(self, nb_hosts: int, *, order: str = "fcfs", record_reservations: bool = True):
        super().__init__(nb_hosts, order=order, record_reservations=record_reservations)
        self.profile = AvailabilityProfile(nb_hosts)
        self.reservation = {}  # waiting job id -> reserved start
        self.arrivals = []
        self.freed_early = False
        self.next_start = INF  # earliest reservation of a waiting job
        self.wake_requested = None
        self.audit = None  # a list to receive (job id, old, new) at each move, for tests

    def on_submit(self, job, now):
        self.arrivals.append(job)

    def on_complete(self, running, now, state="COMPLETED_SUCCESSFULLY"):
        if now < running.end_s:  # early completion: its remaining time is free again
            self.profile.release(now, running.end_s, running.res)
            self.freed_early = True

    def compression_order(self, now: float) -> list:
        """The order in which waiting jobs are re-placed: queue order (here arrival order)."""
        return self.queue.jobs

    def place(self, job, profile, now: float, before: float = INF) -> float | None:
        """Earliest start of a waiting job in ``profile`` (adaptation may reshape it here)."""
        return profile.earliest_fit(job.res, job.walltime_s, now, before=before)

    def movable(self, job) -> bool:
        """Whether a waiting job may be re-placed or started (subclasses may suspend jobs)."""
        return True

    def compress(self, now: float):
        profile, reservation = self.profile, self.reservation
        for job in self.compression_order(now):
            old = reservation.get(job.id)
            if old is None or old <= now or not self.movable(job):
                continue
            profile.release(old, old + job.walltime_s, job.res)
            new = self.place(job, profile, now, before=old)
            profile.reserve(new, new + job.walltime_s, job.res)
            if new != old:
                reservation[job.id] = new
                if new < self.next_start:
                    self.next_start = new
                if self.audit is not None:
                    self.audit.append((job.id, old, new))

    def plan(self, now: float):
        profile = self.profile
        profile.advance(now)
        if self.freed_early:
            self.compress(now)
            self.freed_early = False
        for job in self.arrivals:
            if job.id in self.reservation or job.id in self.running:
                continue
            start = self.place(job, profile, now)
            profile.reserve(start, start + job.walltime_s, job.res)
            self.reservation[job.id] = start
            if start < self.next_start:
                self.next_start = start
            self.promise(job, start)
        self.arrivals = []
        started = []
        if self.next_start <= now + EPS_S:
            for job in self.queue:
                # A due job may still lack hosts: Batsim can report the completion that
                # frees them in a later message of the same instant. It starts then.
                if self.reservation[job.id] <= now + EPS_S and job.res <= self.pool.nb_free and self.movable(job):
                    self.start(job, now, planned_s=self.reservation[job.id])  # its interval stays in the profile
                    del self.reservation[job.id]
                    started.append(job)
        if started:
            self.queue.remove_all(started)
            self.next_start = min(self.reservation.values(), default=INF)
        self.wake_up_if_needed(now)

    def drop(self, job):
        """Forgets a waiting job (its work done elsewhere) and frees its reservation."""
        self.queue.remove_all([job])
        start = self.reservation.pop(job.id, None)
        if start is not None:
            self.profile.release(start, start + job.walltime_s, job.res)
            self.freed_early = True
            if start <= self.next_start:
                self.next_start = min(self.reservation.values(), default=INF)

    def wake_up_if_needed(self, now: float):
        """CALL_ME_LATER at the earliest reservation if no running job may end before it."""
        first = self.next_start
        if first == INF or first <= now + EPS_S or first == self.wake_requested:
            return
        if self.by_end and self.by_end[0].end_s <= first:
            return  # that job's end (at the latest) is an event at or before the reservation
        self.wake_requested = first
        self._decisions.wake_ups.append(first)
