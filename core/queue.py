"""Queue orders: which waiting job a scheduler considers first.

An order is a key function of a waiting job (smaller key = considered first);
ties are broken by arrival order, so every order is deterministic. Schedulers
take the order by name (option ``order``), so that adding an order never means
copying a scheduler; a scheduler may also give a key function of its own
(:meth:`~adaptsched.core.base.OnlineScheduler.queue_order`), computed once per job,
when it is queued, so it must depend on the job alone.

======== ===============================================================
fcfs     arrival order (first come, first served)
sjf      shortest requested time (walltime) first
ljf      longest requested time first
small    fewest hosts first
large    most hosts first
saf      smallest area (hosts x requested time) first
======== ===============================================================
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeAlias

from adaptsched.core.job import Job

ORDERS: dict[str, Callable[[Job], Any]] = {
    "fcfs": lambda job: 0,
    "sjf": lambda job: job.walltime_s,
    "ljf": lambda job: -job.walltime_s,
    "small": lambda job: job.res,
    "large": lambda job: -job.res,
    "saf": lambda job: job.res * job.walltime_s,
}


#: What names or makes a queue order: a name of :data:`ORDERS`, or a key function of a job.
Order: TypeAlias = str | Callable[[Job], Any]


class WaitingQueue:
    """Waiting jobs kept sorted by ``(order key, arrival number)``; ``order``: one of the module
    doc's names, or a key function of a job (smaller first), as a scheduler's
    :meth:`~adaptsched.core.base.OnlineScheduler.queue_order` returns it.

    >>> from adaptsched.core.base import Job
    >>> q = WaitingQueue("sjf")
    >>> for name, walltime in (("a", 30.0), ("b", 10.0), ("c", 10.0)):
    ...     q.push(Job(name, 0.0, 1, walltime))
    >>> [job.id for job in q], q.min_res
    (['b', 'c', 'a'], 1)
    """

    __slots__ = ("_arrivals", "_entries", "_min_res", "_where", "jobs", "key", "order")

    def __init__(self, order: Order = "fcfs"):
        self.order = order
        self.key = self.order_key(order)  # the order's key function
        self._entries: list[tuple[Any, int, Job]] = []  # (key, arrival number, job)
        self.jobs: list[Job] = []  # the jobs alone, same order: iterate over this
        self._arrivals = 0
        self._min_res: int | None = None  # smallest request among waiting jobs, None when unknown
        #: id of a waiting job -> its (key, arrival number), where bisection finds it; None once the
        #: same job object was pushed twice (then removals filter the whole queue)
        self._where: dict[int, tuple[Any, int]] | None = {}

    @staticmethod
    def order_key(order: Order) -> Callable[[Job], Any]:
        """The key function of ``order``: a name's from :data:`ORDERS`, or ``order`` itself.

        >>> from adaptsched.core.base import Job
        >>> WaitingQueue.order_key("large")(Job("a", 0.0, 8, 60.0))
        -8
        """
        if callable(order):
            return order
        if order not in ORDERS:
            raise ValueError(f"unknown queue order {order!r}; choose one of {', '.join(ORDERS)}")
        return ORDERS[order]

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Job]:
        return iter(self.jobs)

    def __getitem__(self, index: int) -> Job:
        return self.jobs[index]

    def push(self, job: Job) -> None:
        self._arrivals += 1
        entry = (self.key(job), self._arrivals, job)
        where = self._where
        if where is not None:
            if id(job) in where:
                self._where = None
            else:
                where[id(job)] = entry[:2]
        entries = self._entries
        if not entries or entries[-1][:2] < entry[:2]:  # arrival order: the common case
            entries.append(entry)
            self.jobs.append(job)
        else:
            position = bisect_right(entries, entry[:2], key=lambda e: (e[0], e[1]))
            entries.insert(position, entry)
            self.jobs.insert(position, job)
        if self._min_res is not None and job.res < self._min_res:
            self._min_res = job.res

    @property
    def min_res(self) -> int:
        """Fewest hosts any waiting job needs (0 when the queue is empty)."""
        if self._min_res is None:
            self._min_res = min((job.res for job in self.jobs), default=0)
        return self._min_res

    def remove_all(self, jobs: Iterable[Job]) -> None:
        """Removes the given jobs (job objects; those not waiting are ignored), each found by
        bisection. The lists are replaced, not changed: a caller may be iterating over ``jobs``."""
        where = self._where
        if where is None:
            gone = {id(job) for job in jobs}
            if gone:
                self._entries = [e for e in self._entries if id(e[2]) not in gone]
                self.jobs = [e[2] for e in self._entries]
                self._min_res = None
            return
        entries: list[tuple[Any, int, Job]] | None = None
        queued: list[Job] = self.jobs
        for job in jobs:
            place = where.pop(id(job), None)
            if place is None:
                continue
            if entries is None:
                entries, queued = self._entries[:], self.jobs[:]
            i = bisect_left(entries, place)  # (key, arrival) sorts just before its own entry, after all others
            del entries[i], queued[i]
        if entries is not None:
            self._entries, self.jobs = entries, queued
            self._min_res = None
