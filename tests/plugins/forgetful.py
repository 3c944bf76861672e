"""A scheduler that never starts a job asking for more than half the machine: such a job never
ends, and the simulation deadlocks (``adaptsched check`` must catch it, even by fuzzing)."""

from adaptsched.api import OnlineScheduler, plugin


class NeverWide(OnlineScheduler):
    name = "forgetful"

    def plan(self, now):
        started = []
        for job in self.queue:
            if 2 * job.res <= self.nb_hosts and job.res <= self.pool.nb_free:
                self.start(job, now)
                started.append(job)
        self.queue.remove_all(started)


plugin(NeverWide)
