"""A scheduler that records reservations it does not keep (``adaptsched check`` must catch it).

FCFS (no backfilling) that writes, for every job, a reservation at its submission time: a job
that has to wait starts after the start it recorded.
"""

from adaptsched.api import OnlineScheduler, plugin


class Promiser(OnlineScheduler):
    name = "broken-promise"

    def on_submit(self, job, now):
        self.record(job, reservation_s=now)

    def plan(self, now):
        started = []
        for job in self.queue:
            if job.res > self.pool.nb_free:
                break
            self.start(job, now)
            started.append(job)
        self.queue.remove_all(started)


plugin(Promiser)
