"""Backfilling with a reservation depth: only the DEPTH oldest waiting jobs hold a reservation
(docs/writing-a-scheduler.md, step 2).

EASY backfilling reserves hosts for one waiting job, conservative backfilling for every one;
here the DEPTH oldest hold a reservation that nothing may delay, and the others start as
soon as they fit without delaying any reservation (the Maui scheduler's RESERVATIONDEPTH:
Jackson, Snell & Clement, "Core algorithms of the Maui scheduler", JSSPP 2001). Built on
ReservationPlanner, conservative backfilling's pass, through its hooks.
"""

from adaptsched.api import ReservationPlanner, plugin

DEPTH = 4  # waiting jobs holding a reservation


class MyDepth(ReservationPlanner):
    """Backfilling with a reservation depth: the DEPTH oldest waiting jobs hold a reservation."""

    name = "my-depth"

    def records_reservations(self):
        return True  # each job's first reservation goes into _jobs.csv, for adaptsched check

    def admit(self, job, now):
        """An arrival gets a reservation only while fewer than DEPTH jobs hold one."""
        if len(self.reservation) < DEPTH:
            return super().admit(job, now)
        self.unplaced.append(job)  # it waits without one
        return True

    def reservation_pass(self, now):
        """The template's pass; while reservations are free, the oldest unreserved jobs get them."""
        due = super().reservation_pass(now)
        while self.unplaced and len(self.reservation) < DEPTH:
            held = len(self.reservation)
            room = DEPTH - held
            self.arrivals, self.unplaced = self.unplaced[:room], self.unplaced[room:]
            started = super().reservation_pass(now)
            due += started
            if not started and len(self.reservation) == held:
                break  # they fit at no time yet (hosts held by jobs without walltime)
        return due

    def plan(self, now):
        super().plan(now)  # starts the jobs whose reservation is due
        for job in list(self.unplaced):  # backfilling: unreserved jobs that delay no reservation
            fits_now = self.profile.earliest_fit(job.res, job.walltime_s, now, before=now) == now
            if fits_now and job.res <= self.pool.nb_free:
                self.profile.reserve(now, now + job.walltime_s, job.res)
                self.unplaced.remove(job)
                self.queue.remove_all([job])
                self.start(job, now)


plugin(MyDepth)
