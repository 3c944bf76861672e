"""Replays jobs through a pure scheduler, in-process: no simulator, no ZeroMQ.

For unit tests and what-if simulations. Each job runs min(runtime, walltime);
at each instant the completions are reported first, then the arrivals, then the
scheduler decides once (Batsim batches simultaneous events the same way in most
cases, but the embedded engine, not this driver, is the reference for
Batsim's exact behaviour).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from adaptsched.core.base import Job, OnlineScheduler


@dataclass
class Outcome:
    job: Job
    start_s: float | None = None  # None: rejected or never started
    end_s: float | None = None
    hosts: tuple = ()
    killed: bool = False  # reached its walltime
    metadata: dict | None = None


def replay(scheduler: OnlineScheduler, jobs: list[tuple[Job, float]]) -> dict[str, Outcome]:
    """``jobs`` are (job, true runtime in seconds); returns the outcome of each job."""
    outcomes = {job.id: Outcome(job) for job, _ in jobs}
    runtime = {job.id: runtime_s for job, runtime_s in jobs}
    events = [(job.submit_s, 1, i, job.id) for i, (job, _) in enumerate(jobs)]  # 0 = end, 1 = arrival
    heapq.heapify(events)
    seq = len(jobs)
    while events:
        now = events[0][0]
        while events and events[0][0] == now:
            _, kind, _, job_id = heapq.heappop(events)
            if kind == 0:
                scheduler.complete(job_id, now)
            elif kind == 1:
                scheduler.submit(outcomes[job_id].job, now)  # kind 2: a requested call
        decisions = scheduler.schedule(now)
        for job_id, meta in decisions.metadata.items():
            outcomes[job_id].metadata = {**(outcomes[job_id].metadata or {}), **meta}
        for job_id, hosts in decisions.starts:
            outcome = outcomes[job_id]
            run = min(runtime[job_id], outcome.job.walltime_s)
            outcome.start_s, outcome.end_s, outcome.hosts = now, now + run, tuple(hosts)
            outcome.killed = runtime[job_id] >= outcome.job.walltime_s
            seq += 1
            heapq.heappush(events, (now + run, 0, seq, job_id))
        if decisions.wake_at is not None:
            seq += 1
            heapq.heappush(events, (decisions.wake_at, 2, seq, ""))
    return outcomes
