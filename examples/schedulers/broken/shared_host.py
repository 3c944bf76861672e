"""Deliberately broken: runs two jobs on one host. ``adaptsched check`` must fail on it.

FCFS that picks the hosts itself, always from host 0, instead of taking free ones from the
pool: the second job to run at once lands on the first one's hosts. Both engines refuse the
allocation (time-sharing is off), and ``adaptsched check`` reports the smallest workload that
shows it (two overlapping jobs). ``tests/test_check.py`` checks that it does.
"""

from adaptsched.api import OnlineScheduler, plugin


class SharedHost(OnlineScheduler):
    name = "shared-host"

    def plan(self, now):
        started = []
        for job in self.queue:
            if job.res > self.pool.nb_free:
                break
            self.pool.allocate(job.res)  # counted as used ...
            self.start(job, now, hosts=list(range(job.res)))  # ... but always hosts 0 to res - 1
            started.append(job)
        self.queue.remove_all(started)


plugin(SharedHost)
