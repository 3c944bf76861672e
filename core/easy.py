"""EASY backfilling (Lifka 1995; as defined by Mu'alem & Feitelson 2001, sec. 2).

Only the first waiting job (the *head*) holds a reservation: the *shadow time*,
the earliest time enough hosts are free for it if every running job runs to its
walltime. Any other job may start now ("backfill") if it fits in the idle hosts
and either ends before the shadow time or uses only the *extra* hosts, those the
head job will not need at the shadow time. The head job is therefore never
delayed past its reservation; the others may be delayed indefinitely.

Hosts are chosen first-fit, lowest ids first, and need not be contiguous
(pybatsim's ``easyBackfill`` allocates contiguous blocks only, which starves wide
jobs).

The promise is the head's, and holds while the job stays the head: its shadow time when it
became the head (later passes may only find it earlier, as running jobs end by their walltimes
and backfilled ones never take hosts it needs then). In arrival order (``fcfs``) the head stays
the head until it starts. In a priority order (``large``, ``sjf``...) a job that arrives ahead of
it in the queue takes its place, and may delay it (started at once, or as the new head): the old
head's reservation was never a promise beyond that moment, and is withdrawn
(:meth:`~adaptsched.core.base.ReservingScheduler.withdraw`); when the job is the head again, its
new shadow time is a new promise. The reservation in force is recorded in the job's metadata
(``reservation_s``), the last withdrawn one apart (``withdrawn_reservation_s``, ``withdrawn_at_s``),
so that ``adaptsched check`` holds every job to the promise EASY made it, and to no other.

The rule is written once, here, and every EASY in the package calls it: :func:`shadow_of`
(the head's shadow time and extra hosts) and :func:`backfill` (the backfilling condition, over
the jobs behind the head, in a :class:`Window`). :class:`EasyBackfilling` uses them,
as do Barsanti & Sodan's common frame and SCOJO-P's Fig. 4 (:mod:`adaptsched.core.scojo`)
and Cirne-Berman's what-if simulation (:mod:`adaptsched.core.cirne_berman`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, TypeVar

from mypy_extensions import mypyc_attr

from adaptsched.core import options as opt
from adaptsched.core.base import Job, ReservingOptions, ReservingScheduler, Running
from adaptsched.core.units import INF

T = TypeVar("T")
_end_s, _res, _walltime = attrgetter("end_s"), attrgetter("res"), attrgetter("walltime_s")


def shadow_of(free: int, ends: Iterable[tuple[float, int]], need: int) -> tuple[float, int]:
    """(shadow time, extra hosts) of a head job of ``need`` hosts that does not fit in the
    ``free`` hosts now: the earliest expected end of the running jobs (``ends``: (expected end,
    hosts) in order of end) after which ``need`` hosts are free, and the hosts free then beyond
    ``need``, which jobs running past the shadow time may use.

    >>> shadow_of(2, [(10.0, 1), (20.0, 3), (20.0, 2), (30.0, 4)], 5)
    (20.0, 3)
    """
    available = free
    pending = iter(ends)
    for end_s, hosts in pending:
        available += hosts
        if available >= need:
            for later_s, more in pending:  # the jobs ending at the same time also free hosts then
                if later_s != end_s:
                    break
                available += more
            return end_s, available - need
    return INF, 0  # cannot happen: the job fits on the empty machine


def expected_ends(by_end: Iterable[Running]) -> Iterator[tuple[float, int]]:
    """(expected end, hosts) of running jobs kept by expected end (``ReservingScheduler.by_end``),
    as :func:`shadow_of` reads them."""
    return zip(map(_end_s, by_end), map(_res, by_end))


@dataclass(slots=True)
class Window:
    """What EASY lets the jobs behind the head use now: the ``free`` hosts, of which only the
    ``extra`` ones may still be held at the head's ``shadow_s``."""

    free: int
    shadow_s: float
    extra: int


def backfill(
    window: Window,
    now: float,
    candidates: Iterable[tuple[T, int]],
    runtime: Callable[[T], float],
    *,
    take: bool = True,
) -> list[T]:
    """EASY's backfilling rule, over ``candidates``: the waiting jobs behind the head in queue
    order, with the hosts each would start on. A job starts now if it fits in the hosts free
    and either ends (now + ``runtime(job)``, asked only of the jobs that fit) by the shadow
    time or uses only extra hosts: the head still starts at its shadow time. Each job started
    takes its hosts from ``window``; the pass stops when none is free. Returns the jobs
    started, in order: the caller starts them (what they start on changes nothing here).

    ``take=False`` asks which candidates the rule admits as things stand, none taking hosts
    (the sizes of one job, each tried on its own)."""
    free, shadow_s, extra = window.free, window.shadow_s, window.extra
    started = []
    for job, n in candidates:
        if n > free:
            continue
        if now + runtime(job) > shadow_s:  # still running at the head's start: on extra hosts only
            if n > extra:
                continue
            if take:
                extra -= n
        if take:
            free -= n
        started.append(job)
        if free == 0:
            break
    window.free, window.extra = free, extra
    return started


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
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

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        super().__init__(nb_hosts, options, **values)
        self.holder: Job | None = None  # the head whose reservation is in force (module doc)

    def queue_order(self) -> str:
        return opt.narrow(self.options, ReservingOptions).order

    def records_reservations(self) -> bool:
        return opt.narrow(self.options, ReservingOptions).record_reservations

    def shadow(self, head: Job, now: float) -> tuple[float, int]:
        """(shadow time, extra hosts) of the head job, which does not fit now."""
        return shadow_of(self.pool.nb_free, expected_ends(self.by_end), head.res)

    def plan(self, now: float) -> None:
        queue = self.queue
        if not len(queue):
            return
        jobs = queue.jobs
        holder = self.holder
        if holder is not None and jobs[0] is not holder:  # a job went ahead of it (a priority order)
            self.withdraw(holder, now)
            holder = None
        free = self.pool.nb_free
        started = []
        for job in jobs:  # start from the head while jobs fit
            if job.res > free:
                break
            self.start(job, now)
            free -= job.res
            started.append(job)
        if len(started) < len(jobs):
            head = jobs[len(started)]
            new_head = head is not holder
            if new_head or free > 0:
                shadow = self.shadow(head, now)
            if new_head:
                self.promise(head, shadow[0])
                self.holder = head
            if free >= queue.min_res:  # else no waiting job fits in the free hosts
                rest = jobs[len(started) + 1 :]
                window = Window(free, *shadow)
                for job in backfill(window, now, zip(rest, map(_res, rest)), _walltime):
                    self.start(job, now)
                    started.append(job)
        else:
            self.holder = None
        if started:
            queue.remove_all(started)
