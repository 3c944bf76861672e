"""First come, first served: the smallest scheduler (docs/writing-a-scheduler.md, step 1)."""

from adaptsched.api import OnlineScheduler, plugin


class MyFcfs(OnlineScheduler):
    """Starts the waiting jobs in arrival order while they fit: the first one that does not
    fit waits for hosts, and every job behind it waits too."""

    name = "my-fcfs"

    def plan(self, now):
        started = []
        for job in self.queue:  # the waiting jobs, in arrival order
            if job.res > self.pool.nb_free:
                break
            self.start(job, now)  # on job.res free hosts, lowest ids first
            started.append(job)
        self.queue.remove_all(started)


plugin(MyFcfs)  # makes the class pybatsim looks for in this file: My_fcfs
