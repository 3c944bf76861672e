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

Each job's first reservation is recorded in its metadata (``reservation_s``);
the guarantee ``start <= reservation_s`` holds for every job.
"""

from __future__ import annotations

from adaptsched.core.base import OnlineScheduler
from adaptsched.core.profile import AvailabilityProfile


class ConservativeBackfilling(OnlineScheduler):
    name = "conservative"
    options = {
        "order": ("fcfs", "queue order used for compression (adaptsched.core.queue)"),
        "record_reservations": (True, "write each job's first reservation in its metadata"),
    }

    def __init__(self, nb_hosts: int, *, order: str = "fcfs", record_reservations: bool = True):
        super().__init__(nb_hosts, order=order)
        self.record_reservations = record_reservations
        self.profile = AvailabilityProfile(nb_hosts)
        self.reservation = {}  # waiting job id -> reserved start
        self.first_reservation = {}  # job id -> its first reservation
        self.arrivals = []
        self.freed_early = False
        self.audit = None  # a list to receive (job id, old, new) at each move, for tests

    def on_submit(self, job, now):
        self.arrivals.append(job)

    def on_complete(self, running, now):
        if now < running.end_s:  # early completion: its remaining time is free again
            self.profile.release(now, running.end_s, running.job.res)
            self.freed_early = True

    def compress(self, now: float):
        profile, reservation = self.profile, self.reservation
        for job in self.queue:
            old = reservation.get(job.id)
            if old is None or old <= now:
                continue
            profile.release(old, old + job.walltime_s, job.res)
            new = profile.earliest_fit(job.res, job.walltime_s, now, before=old)
            profile.reserve(new, new + job.walltime_s, job.res)
            if new != old:
                reservation[job.id] = new
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
            start = profile.earliest_fit(job.res, job.walltime_s, now)
            profile.reserve(start, start + job.walltime_s, job.res)
            self.reservation[job.id] = start
            self.first_reservation[job.id] = start
            if self.record_reservations:
                self.record(job, reservation_s=start)
        self.arrivals = []
        started = []
        for job in self.queue:
            if self.reservation[job.id] <= now:
                self.start(job, now)  # its reserved interval stays in the profile
                del self.reservation[job.id]
                started.append(job)
        self.queue.remove_all(started)
