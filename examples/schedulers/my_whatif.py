"""EASY backfilling whose queue order is chosen by what-if simulations (docs/writing-a-scheduler.md,
step 5).

At each pass with waiting jobs, ``replay`` simulates the rest of the queue from the machine's
state as it is (the running jobs on their hosts until their expected end, the waiting jobs
running for their walltime: the scheduler knows no more), once per candidate order; the pass
starts what the simulation of the order with the least total wait starts now.
"""

from adaptsched.api import EasyBackfilling, OnlineScheduler, plugin, replay

ORDERS = ("fcfs", "sjf", "saf")  # arrival order, shortest first, smallest area first


class MyWhatIf(OnlineScheduler):
    """EASY backfilling; at each pass, the queue order whose what-if simulation waits least."""

    name = "my-whatif"

    def plan(self, now):
        if not len(self.queue):
            return
        running = [(r.job, r.start_s, r.end_s, r.hosts) for r in self.running.values()]
        waiting = [(job, job.walltime_s) for job in self.queue]  # (job, runtime): its walltime
        best_wait, best = float("inf"), None
        for order in ORDERS:
            simulated = EasyBackfilling(self.nb_hosts, order=order, record_reservations=False)
            outcomes = replay(simulated, [], running=running, waiting=waiting, start_s=now)
            wait = sum(outcomes[job.id].start_s - job.submit_s for job in self.queue)
            if wait < best_wait:
                best_wait, best = wait, outcomes
        if best is None:  # no order finishes them all (a job without walltime): fall back to FCFS
            best = replay(EasyBackfilling(self.nb_hosts), [], running=running, waiting=waiting, start_s=now)
        started = [job for job in self.queue if best[job.id].start_s == now]
        for job in started:
            self.start(job, now)
        self.queue.remove_all(started)


plugin(MyWhatIf)
