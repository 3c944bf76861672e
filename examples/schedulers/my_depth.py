"""Backfilling with a reservation depth, its constants made options (docs/writing-a-scheduler.md,
step 3): ``adaptsched schedulers --plugin examples/schedulers/my_depth.py`` lists them.

The DEPTH oldest waiting jobs hold a reservation that nothing may delay; the others start as
soon as they fit without delaying any reservation, tried in the ``backfill`` order (the Maui
scheduler's RESERVATIONDEPTH: Jackson, Snell & Clement, "Core algorithms of the Maui
scheduler", JSSPP 2001). ``depth=1`` schedules as ``easy``, a depth above the queue's as
``conservative``.
"""

from dataclasses import dataclass

from adaptsched.api import Options, ReservationPlanner, option, plugin

BACKFILL_ORDERS = {"fcfs": lambda job: 0, "sjf": lambda job: job.walltime_s, "small": lambda job: job.res}


@dataclass(frozen=True)
class DepthOptions(Options):
    depth: int = option(4, "waiting jobs holding a reservation (1: as easy)", low=1)
    backfill: str = option("fcfs", "order in which unreserved jobs try to start", choices=tuple(BACKFILL_ORDERS))
    record_reservations: bool = option(True, "write each job's first reservation in its metadata")


class MyDepth(ReservationPlanner):
    """Backfilling with a reservation depth: the ``depth`` oldest waiting jobs hold a reservation."""

    name = "my-depth"
    Options = DepthOptions

    def records_reservations(self):
        return self.options.record_reservations

    def admit(self, job, now):
        """An arrival gets a reservation only while fewer than ``depth`` jobs hold one."""
        if len(self.reservation) < self.options.depth:
            return super().admit(job, now)
        self.unplaced.append(job)  # it waits without one
        return True

    def reservation_pass(self, now):
        """The template's pass; while reservations are free, the oldest unreserved jobs get them."""
        due = super().reservation_pass(now)
        while self.unplaced and len(self.reservation) < self.options.depth:
            held = len(self.reservation)
            room = self.options.depth - held
            self.arrivals, self.unplaced = self.unplaced[:room], self.unplaced[room:]
            started = super().reservation_pass(now)
            due += started
            if not started and len(self.reservation) == held:
                break  # they fit at no time yet (hosts held by jobs without walltime)
        return due

    def plan(self, now):
        super().plan(now)  # starts the jobs whose reservation is due
        for job in sorted(self.unplaced, key=BACKFILL_ORDERS[self.options.backfill]):  # backfilling
            fits_now = self.profile.earliest_fit(job.res, job.walltime_s, now, before=now) == now
            if fits_now and job.res <= self.pool.nb_free:
                self.profile.reserve(now, now + job.walltime_s, job.res)
                self.unplaced.remove(job)
                self.queue.remove_all([job])
                self.start(job, now)


plugin(MyDepth)
