"""EASY backfilling (Lifka 1995; as defined by Mu'alem & Feitelson 2001, sec. 2).

Only the first waiting job (the *head*) holds a reservation: the *shadow time*,
the earliest time enough hosts are free for it if every running job runs to its
walltime. Any other job may start now ("backfill") if it fits in the idle hosts
and either ends before the shadow time or uses only the *extra* hosts, those the
head job will not need at the shadow time. The head job is therefore never
delayed past its reservation; the others may be delayed indefinitely.

Hosts are chosen first-fit, lowest ids first, and need not be contiguous
(pybatsim's ``easyBackfill`` allocates contiguous blocks only, which starves wide
jobs). Each job's first reservation is recorded in its metadata
(``reservation_s``) so that the guarantee can be checked on the output trace.
"""

from __future__ import annotations

from collections.abc import Iterable

from adaptsched.core.base import INF, Job, ReservingOptions, ReservingScheduler, Running


def shadow_of(free: int, by_end: Iterable[Running], res: int) -> tuple[float, int]:
    """(shadow time, extra hosts) of a job of ``res`` hosts that does not fit in the ``free``
    hosts now: the earliest expected end of running jobs (``by_end``, in order of expected end)
    after which ``res`` hosts are free, and the hosts free then beyond ``res``."""
    available = free
    ends = iter(by_end)
    for running in ends:
        available += running.res
        if available >= res:
            shadow = running.end_s
            for later in ends:  # jobs ending at the same time also free hosts then
                if later.end_s != shadow:
                    break
                available += later.res
            return shadow, available - res
    return INF, 0  # cannot happen: the job fits on the empty machine


class EasyBackfilling(ReservingScheduler):
    """EASY backfilling (module doc); :meth:`shadow` is the hook a variant changes.

    >>> s = EasyBackfilling(4)
    >>> for i, (res, walltime) in enumerate([(3, 100.0), (4, 50.0), (1, 80.0)]):
    ...     s.submit(Job(f"w0!{i}", 0.0, res, walltime), 0.0)
    >>> [job_id for job_id, _ in s.schedule(0.0).starts]  # w0!2 ends before w0!1's shadow time
    ['w0!0', 'w0!2']
    """

    name = "easy"
    Options = ReservingOptions
    options: ReservingOptions

    def queue_order(self) -> str:
        return self.options.order

    def records_reservations(self) -> bool:
        return self.options.record_reservations

    def shadow(self, head: Job, now: float) -> tuple[float, int]:
        """(shadow time, extra hosts) of the head job, which does not fit now."""
        return shadow_of(self.pool.nb_free, self.by_end, head.res)

    def plan(self, now: float) -> None:
        queue = self.queue
        if not len(queue):
            return
        free = self.pool.nb_free
        started = []
        waiting = iter(queue.jobs)
        head = None
        for job in waiting:  # start from the head while jobs fit
            if job.res > free:
                head = job
                break
            self.start(job, now)
            free -= job.res
            started.append(job)
        if head is not None:
            new_head = head.id not in self.first_reservation
            if new_head or free > 0:
                shadow, extra = self.shadow(head, now)
            if new_head:
                self.promise(head, shadow)
            if free >= queue.min_res:  # else no waiting job fits in the free hosts
                for job in waiting:  # backfilling, in queue order
                    if job.res > free:
                        continue
                    ends_by_shadow = now + job.walltime_s <= shadow
                    if ends_by_shadow or job.res <= extra:
                        self.start(job, now)
                        free -= job.res
                        started.append(job)
                        if not ends_by_shadow:
                            extra -= job.res
                        if free == 0:
                            break
        if started:
            queue.remove_all(started)
