"""EASY backfilling, widest job first (docs/writing-a-scheduler.md, step 2).

EASY (Lifka 1995; Mu'alem & Feitelson 2001, sec. 2): the first waiting job, the head, holds a
reservation at its shadow time, when enough hosts are free for it if every running job runs to
its walltime; a job behind it starts now if it fits and either ends by then or uses only hosts
the head will not need. Here the queue is kept widest first, so a wider arrival goes ahead of the
head and may delay it: the old head's reservation was a promise only while it was the head. It
is withdrawn then, and the job gets a new one when it is the head again.
"""

from adaptsched.api import ReservingScheduler, plugin


class MyLargestFirst(ReservingScheduler):
    """EASY backfilling with the waiting jobs in order of width, widest first."""

    name = "my-largest-first"
    holder = None  # the head whose reservation is in force

    def queue_order(self):
        return "large"  # most hosts first; ties in arrival order

    def records_reservations(self):
        return True  # reservations in force go into _jobs.csv, for adaptsched check

    def plan(self, now):
        waiting = list(self.queue)
        if self.holder is not None and waiting[0] is not self.holder:
            self.withdraw(self.holder, now)  # a wider job went ahead of it: no longer promised
            self.holder = None
        free = self.pool.nb_free
        while waiting and waiting[0].res <= free:  # start from the head while jobs fit
            job = waiting.pop(0)
            self.start(job, now)
            self.queue.remove_all([job])
            free -= job.res
        if not waiting:
            self.holder = None
            return
        head, behind = waiting[0], waiting[1:]
        shadow_s, extra = self.shadow(head, free)
        if head is not self.holder:
            self.promise(head, shadow_s)
            self.holder = head
        for job in behind:  # backfilling: without delaying the head
            if job.res > free:
                continue
            if now + job.walltime_s > shadow_s:  # still running when the head starts
                if job.res > extra:
                    continue
                extra -= job.res
            self.start(job, now)
            self.queue.remove_all([job])
            free -= job.res

    def shadow(self, head, free):
        """(shadow time, extra hosts): when enough hosts are free for the head if the running jobs
        run to their walltimes, and how many more than it needs are free then."""
        shadow_s = None
        for running in self.by_end:  # the running jobs, by expected end (start + walltime)
            if shadow_s is not None and running.end_s > shadow_s:
                break  # every job ending at the shadow time frees its hosts then
            free += running.res
            if shadow_s is None and free >= head.res:
                shadow_s = running.end_s
        if shadow_s is None:
            return float("inf"), 0  # never: hosts held by jobs without a walltime
        return shadow_s, free - head.res


plugin(MyLargestFirst)
