"""Which lost workers a run killed: :class:`Blame`.

Dask counts, for each task, the workers that died while it was on them, and fails it with
``KilledWorker`` past ``allowed-failures``. That cannot tell a run that kills its worker from
an innocent run whose worker was killed twice under it (a node lost, a batch job ended, a
worker killed from outside): both lose a worker each time they run.

What tells them apart is the worker's nanny. A run that kills its worker (a plugin that
crashes its process, a run that exhausts its memory, a segfault) kills the worker process
only: its nanny, still alive, starts a new worker. When a node, a batch job or the whole
worker (nanny included) is lost, no new worker comes from that nanny. So a death counts
against the run that was running on the worker when its nanny started a new worker after
it (:meth:`Blame.restarted`); for a worker without a nanny (``dask worker --no-nanny``),
every death counts, as Dask counts them. A run is a killer when two deaths count against it.

The client learns each worker's nanny from an event each worker sends when it starts
(:class:`~.worker.AnnounceWorker`), and which run a worker was running from the run's own
``started`` event. A nanny takes a few seconds to start a new worker, so a verdict may have
to wait (:data:`NANNY_WAIT_S` at most): until then it is ``"wait"``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

#: How long after a worker's loss its nanny may take to start a new one.
NANNY_WAIT_S = 30.0


@dataclass
class Attempt:
    """Where a run started (from its ``started`` event): worker, host, scratch prefix."""

    worker: str
    host: str
    scratch: str


@dataclass
class Blame:
    attempts: dict[str, list[Attempt]] = field(default_factory=dict)  # run -> where it started
    nanny_of: dict[str, str | None] = field(default_factory=dict)  # worker -> its nanny (None: none)
    workers_of: dict[str, list[str]] = field(default_factory=dict)  # nanny -> its workers, in order
    lost_at: dict[str, float] = field(default_factory=dict)  # worker -> when its loss was seen
    killers: set[str] = field(default_factory=set)

    def started(self, name: str, attempt: Attempt) -> None:
        self.attempts.setdefault(name, []).append(attempt)

    def worker_seen(self, worker: str, nanny: str | None) -> None:
        self.nanny_of[worker] = nanny
        if nanny is not None and worker not in self.workers_of.setdefault(nanny, []):
            self.workers_of[nanny].append(worker)

    def worker_lost(self, worker: str, now: float | None = None) -> None:
        self.lost_at[worker] = time.monotonic() if now is None else now

    def last_worker(self, name: str) -> str | None:
        attempts = self.attempts.get(name)
        return attempts[-1].worker if attempts else None

    def deaths(self, name: str, also: str | None = None) -> list[str]:
        """The lost workers (and ``also``) on which run ``name`` was running, each once."""
        lost = set(self.lost_at) | ({also} if also else set())
        return list(dict.fromkeys(a.worker for a in self.attempts.get(name, []) if a.worker in lost))

    def restarted(self, worker: str) -> bool:
        """Whether the worker's nanny started another worker after it (so it died alone)."""
        nanny = self.nanny_of.get(worker)
        workers = self.workers_of.get(nanny, []) if nanny is not None else []
        return worker in workers and workers.index(worker) < len(workers) - 1

    def verdict(self, name: str, also: str | None = None, now: float | None = None) -> str:
        """``"killer"`` (two deaths count against the run), ``"innocent"``, or ``"wait"`` (it
        may be a killer once the nannies of the workers it was running on are heard from)."""
        now = time.monotonic() if now is None else now
        counted = waiting = 0
        for worker in self.deaths(name, also):
            if worker not in self.nanny_of or self.nanny_of[worker] is None or self.restarted(worker):
                counted += 1  # no nanny (or never heard of): Dask's rule, every death counts
            elif now - self.lost_at.get(worker, now) < NANNY_WAIT_S:
                waiting += 1
        if counted >= 2:
            return "killer"
        return "wait" if counted + waiting >= 2 else "innocent"
