"""Replays jobs through a pure scheduler, in-process: no simulator, no ZeroMQ.

For unit tests and what-if simulations. A job (or a copy) runs for its true
runtime (times the copy's ``scale``) unless it reaches its walltime first
(Batsim's rule: a runtime equal to the walltime reaches it) or is killed. At
each instant the completions are reported first, then the arrivals, then the
scheduler decides once; the completions of jobs killed by a decision are
reported in a second pass at the same instant, as Batsim reports them in a later
message. (The embedded engine, not this driver, is the reference for Batsim's
exact batching.)

A what-if simulation starts from a live scheduler's state: ``running`` jobs (each with its
start, its expected end and its hosts, which the fresh scheduler takes as running, see
:meth:`OnlineScheduler.assume_running`) and ``waiting`` jobs, submitted at ``start_s`` in the
given order (each keeps its own submission time, which queue orders and aging read), before
any of ``jobs`` (future arrivals). A running job ends at its expected end unless ``actual_end_s``
gives another time (a what-if replay that knows how the job really ended). Waiting jobs listed
in ``reserved`` (job id -> reserved start) were already admitted: they are handed over with
:meth:`OnlineScheduler.assume_waiting` before any event, in the given order, instead of being
submitted (a scheduler with admission control keeps them, with their guarantees), and the
scheduler is called at ``start_s``. ``stop_when_started`` ends the replay as soon as the
decisions start that job (or a copy of it): its outcome then has its start and planned end.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

from adaptsched.core.base import Decisions, Job, OnlineScheduler
from adaptsched.core.intervals import IntervalSet

SUCCESS, WALLTIME, KILLED = "COMPLETED_SUCCESSFULLY", "COMPLETED_WALLTIME_REACHED", "COMPLETED_KILLED"


@dataclass
class Attempt:
    exec_id: str  # the job's id, or its copy's
    kind: str  # "regular", "speculative", "test", "resized"
    start_s: float
    end_s: float
    hosts: tuple[int, ...]
    state: str = ""  # Batsim's final state, once ended
    scale: float = 1.0  # its runtime relative to the job's submitted shape


@dataclass
class Outcome:
    """What became of one job in a :func:`replay`: the attempt that did it (start, end, hosts),
    whether it reached its walltime or was rejected, its metadata and every attempt.

    >>> from adaptsched.core.fcfs import Fcfs
    >>> outcome = replay(Fcfs(2), [(Job("a", 0.0, 2, 60.0), 90.0)])["a"]  # runs past its walltime
    >>> outcome.start_s, outcome.end_s, outcome.killed
    (0.0, 60.0, True)
    """

    job: Job
    start_s: float | None = None  # of the attempt that did the job (None: never done)
    end_s: float | None = None
    hosts: tuple[int, ...] = ()
    killed: bool = False  # the job's own run reached its walltime
    rejected: bool = False  # the original was rejected (a copy may have done its work)
    scale: float = 1.0  # of the attempt that did the job: its runtime / the job's true runtime
    metadata: dict[str, Any] | None = None
    attempts: list[Attempt] = field(default_factory=list)


#: A running job a what-if simulation starts from: (job, start, expected end, hosts).
RunningState = tuple[Job, float, float, IntervalSet | list[int]]


def replay(
    scheduler: OnlineScheduler,
    jobs: list[tuple[Job, float]],
    *,
    running: Sequence[RunningState] | None = None,
    waiting: list[tuple[Job, float]] | None = None,
    start_s: float | None = None,
    stop_when_started: str | None = None,
    actual_end_s: dict[str, float] | None = None,
    reserved: dict[str, float] | None = None,
) -> dict[str, Outcome]:
    """``jobs`` are (job, true runtime in seconds); returns the outcome of each job (module
    doc for ``running``, ``waiting``, ``start_s``, ``stop_when_started``, ``actual_end_s`` and
    ``reserved``).

    >>> from adaptsched.core.easy import EasyBackfilling
    >>> jobs = [(Job("a", 0.0, 4, 100.0), 50.0), (Job("b", 0.0, 2, 100.0), 80.0)]  # (job, true runtime)
    >>> outcomes = replay(EasyBackfilling(4), jobs)
    >>> [(o.start_s, o.end_s) for o in outcomes.values()]
    [(0.0, 50.0), (50.0, 130.0)]
    """
    run = _Replay(scheduler, waiting or [], jobs, start_s)
    run.take_over(running or [], actual_end_s or {}, reserved or {})
    heapq.heapify(run.events)
    while run.events:
        now = run.events[0][0]
        run.deliver(now)
        decisions = scheduler.schedule(now)
        run.start(decisions, now)
        if stop_when_started is not None and run.started(stop_when_started, now):
            return run.outcomes
        run.finish(decisions, now)
    return run.outcomes


def host_tuple(hosts: IntervalSet | list[int]) -> tuple[int, ...]:
    """``tuple(hosts)``, an interval set's runs expanded at C speed (every attempt of a replay
    holds its hosts so: DVQoPS replays thousands).

    >>> host_tuple(IntervalSet([(0, 2), (5, 5)])), host_tuple([3, 1])
    ((0, 1, 2, 5), (3, 1))
    """
    if isinstance(hosts, IntervalSet):
        return tuple(chain.from_iterable([range(a, b + 1) for a, b in hosts.runs]))
    return tuple(hosts)


class _Replay:
    """A replay's state: each job's outcome and true runtime, the running attempts, and the
    events to come, a heap of (time, kind, number, name) where kind 0 is an end, 1 an arrival
    and 2 a call-back; the number orders events of a kind at the same time."""

    def __init__(
        self,
        scheduler: OnlineScheduler,
        waiting: list[tuple[Job, float]],
        jobs: list[tuple[Job, float]],
        start_s: float | None,
    ):
        self.scheduler = scheduler
        self.waiting = waiting
        arrivals = waiting + jobs
        self.outcomes = {job.id: Outcome(job) for job, _ in arrivals}
        self.runtime = {job.id: runtime_s for job, runtime_s in arrivals}
        self.running: dict[str, tuple[str, Attempt, int]] = {}  # exec id -> (job id, Attempt, seq of its end)
        self.start_s = min((job.submit_s for job, _ in arrivals), default=0.0) if start_s is None else start_s
        self.events: list[tuple[float, int, int, str]] = []
        self.seq = len(waiting) + len(jobs)
        self.cancelled: set[int] = set()  # seqs of end events superseded by kills
        self.arrivals = [(job.submit_s, 1, len(waiting) + i, job.id) for i, (job, _) in enumerate(jobs)]

    def take_over(
        self, running: Sequence[RunningState], actual_end_s: dict[str, float], reserved: dict[str, float]
    ) -> None:
        """The state the replay starts from: the running jobs, the waiting ones submitted at
        the start (or handed over with their reservations), then the future arrivals."""
        start_s = self.start_s
        self.events = [(start_s, 1, i, job.id) for i, (job, _) in enumerate(self.waiting) if job.id not in reserved]
        self.events += self.arrivals
        for job, started_s, expected_end_s, hosts in running:
            self.scheduler.assume_running(job, started_s, expected_end_s, hosts)
            end_s = actual_end_s.get(job.id, expected_end_s)
            held = host_tuple(hosts)
            self.outcomes[job.id] = Outcome(job, started_s, end_s, held)
            attempt = Attempt(job.id, "regular", started_s, end_s, held, SUCCESS)
            self.seq += 1
            self.running[job.id] = (job.id, attempt, self.seq)
            self.events.append((end_s, 0, self.seq, job.id))
            self.runtime[job.id] = end_s - started_s
        for job, _ in self.waiting:
            if job.id in reserved:
                copy = Job(job.id, job.submit_s, job.res, job.walltime_s, job.fields)
                self.scheduler.assume_waiting(copy, start_s, reserved[job.id])
        if reserved:
            self.seq += 1
            self.events.append((start_s, 2, self.seq, ""))

    def deliver(self, now: float) -> None:
        """Reports the events due at ``now`` to the scheduler: ends first, then arrivals."""
        events, outcomes = self.events, self.outcomes
        while events and events[0][0] == now:
            _, kind, number, name = heapq.heappop(events)
            if kind == 0:
                if number in self.cancelled:
                    continue
                job_id, attempt, _ = self.running.pop(name)
                self.scheduler.complete(name, now, attempt.state)
                outcome = outcomes[job_id]
                if attempt.state == SUCCESS or attempt.kind in ("regular", "resized", "molded"):
                    outcome.start_s, outcome.end_s, outcome.hosts = attempt.start_s, attempt.end_s, attempt.hosts
                    outcome.scale = attempt.scale
                    outcome.killed = attempt.state != SUCCESS
            elif kind == 1:
                job = outcomes[name].job  # a copy: schedulers may reshape what they are given
                self.scheduler.submit(Job(job.id, job.submit_s, job.res, job.walltime_s, job.fields), now)

    def begin(
        self,
        exec_id: str,
        job_id: str,
        kind: str,
        hosts: IntervalSet | list[int],
        now: float,
        scale: float,
        walltime_s: float,
    ) -> None:
        """An attempt starts: it ends after the job's true runtime times ``scale``, or at its
        walltime."""
        run = self.runtime[job_id] * scale
        state = SUCCESS if run < walltime_s else WALLTIME
        attempt = Attempt(exec_id, kind, now, now + min(run, walltime_s), host_tuple(hosts), state, scale)
        self.seq += 1
        self.running[exec_id] = (job_id, attempt, self.seq)
        heapq.heappush(self.events, (attempt.end_s, 0, self.seq, exec_id))
        self.outcomes[job_id].attempts.append(attempt)

    def start(self, decisions: Decisions, now: float) -> None:
        """The decisions' metadata, starts and launches."""
        outcomes = self.outcomes
        for job_id, meta in decisions.metadata.items():
            outcomes[job_id].metadata = {**(outcomes[job_id].metadata or {}), **meta}
        for job_id, hosts in decisions.starts:
            self.begin(job_id, job_id, "regular", hosts, now, 1.0, outcomes[job_id].job.walltime_s)
        for launch in decisions.launches:
            scale = launch.scale if launch.runtime_s is None else launch.runtime_s / self.runtime[launch.parent_id]
            self.begin(launch.copy_id, launch.parent_id, launch.kind, launch.hosts, now, scale, launch.walltime_s)

    def started(self, job_id: str, now: float) -> bool:
        """Whether ``job_id`` (or a copy) started now; if so its outcome is that attempt."""
        outcome = self.outcomes[job_id]
        if outcome.attempts and outcome.attempts[-1].start_s == now:
            attempt = outcome.attempts[-1]
            outcome.start_s, outcome.end_s, outcome.hosts = attempt.start_s, attempt.end_s, attempt.hosts
            outcome.scale = attempt.scale
            return True
        return False

    def finish(self, decisions: Decisions, now: float) -> None:
        """The decisions' kills (their ends are reported at once, in a second pass), rejects
        and call-backs."""
        for exec_id in decisions.kills:
            if exec_id in self.running:
                _, attempt, number = self.running[exec_id]
                self.cancelled.add(number)
                attempt.end_s, attempt.state = now, KILLED
                self.seq += 1
                heapq.heappush(self.events, (now, 0, self.seq, exec_id))
        for job_id in decisions.rejects:
            self.outcomes[job_id].rejected = True
        for wake_at in decisions.wake_ups:
            self.seq += 1
            heapq.heappush(self.events, (wake_at, 2, self.seq, ""))
