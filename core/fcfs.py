"""First come, first served without backfilling.

Jobs start in queue order while they fit; the first job that does not fit blocks
every job behind it, even jobs that would fit in the idle hosts.
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from adaptsched.core import options as opt
from adaptsched.core.base import OnlineScheduler, QueueOptions


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class Fcfs(OnlineScheduler):
    name = "fcfs"
    summary = "first come, first served, no backfilling"
    Options = QueueOptions

    def queue_order(self) -> str:
        return opt.narrow(self.options, QueueOptions).order

    def plan(self, now: float) -> None:
        queue = self.queue
        started = []
        for job in queue:
            if job.res > self.pool.nb_free:
                break
            self.start(job, now)
            started.append(job)
        queue.remove_all(started)
