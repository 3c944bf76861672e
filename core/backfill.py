"""Perković & Keleher's backfilling family, one scheduler with the paper's techniques as options.

D. Perković, P. J. Keleher, "Randomization, Speculation, and Adaptation in Batch
Schedulers" (SC 2000). Every *pass* (each time Batsim reports events) runs the phases
of the paper's flow chart (Figure 2):

1. **Queue sorting** (sec. 3, Table 4): waiting jobs in descending order of the
   ``order`` criterion, D, P, R, 1/L, P/L or R/L (:mod:`adaptsched.core.priorities`).
2. **Backfilling**.
   *With guarantees* (sec. 2): conservative backfilling. A job gets a reservation
   on arrival and never starts later; when a job ends early, waiting jobs are
   re-placed in the criterion's order, each no later than its reservation. With D,
   this is exactly :class:`~adaptsched.core.conservative.ConservativeBackfilling`.
   *Without guarantees* (``-NG``, sec. 4): full rescheduling at every pass. The
   schedule is rebuilt from the running jobs alone, placing each waiting job at its
   earliest fit in the order of score + ``starvation_weight`` x delay, and the jobs
   placed now start. The weight (score units per second waited) keeps wide jobs from
   starving: a job overtakes the jobs that arrived more than (score gap) / weight
   seconds after it. The paper only calls it "a small constant"; on CTC-SP2 (430
   hosts) its reported gains need a very small one (mean bounded slowdown, measured:
   R/L-NG 4.22 with no weight, 4.76 with 1e-10; 1/L-NG 9.27 with none, 12.35 with
   1e-9; conservative backfilling 13.3). Default
   (ours): 1e-10 for the /L criteria (after a week of waiting a job gains the score
   of a 4.6-hour job), one priority level per ten days for P, the random range per
   ten days for R, none for D (delay already decides).

Our reading of what the paper leaves open: passes run at every batch of events
(arrivals, completions, call-backs), not only at arrivals and early completions;
ties keep arrival order; P's levels are drawn uniformly.
"""

from __future__ import annotations

from adaptsched.core.adaptation import ADAPTATIONS, Adaptation
from adaptsched.core.conservative import EPS_S, ConservativeBackfilling
from adaptsched.core.priorities import CRITERIA, Criterion
from adaptsched.core.profile import AvailabilityProfile
from adaptsched.core.speculation import Speculation

DAY_S = 86400.0
#: Default anti-starvation weights (score units per second of delay), see the module doc.
DEFAULT_STARVATION_WEIGHT = {
    "D": 0.0,
    "P": 1.0 / (10 * DAY_S),
    "R": 1.0 / (10 * DAY_S),
    "1/L": 1e-10,
    "P/L": 1e-10,
    "R/L": 1e-10,
}


class Backfill(Adaptation, Speculation, ConservativeBackfilling):
    name = "backfill"
    options = {
        "order": ("D", f"sorting criterion, descending: {', '.join(CRITERIA)}"),
        "guarantees": (True, "keep start-time guarantees (conservative backfilling); false: the -NG variant"),
        "starvation_weight": (-1.0, "-NG only: score added per second waited (negative: the criterion's default)"),
        "priority_levels": (3, "number of random priority levels (P criteria)"),
        "seed": (0, "seed of the random criteria (P, R)"),
        "record_reservations": (True, "write each job's first guarantee in its metadata"),
        "speculation": (0.0, "speculative backfilling: speculated time in percent of the estimate (0: off)"),
        "test_runs": (False, "speculative test runs of long jobs"),
        "test_threshold_s": (10800.0, "test runs: only jobs estimated longer than this (s)"),
        "test_run_s": (300.0, "test runs: shortest test (s)"),
        "test_run_max_s": (900.0, "test runs: longest test (s)"),
        "adaptation": ("none", f"job shapes: {', '.join(ADAPTATIONS)}"),
        "greedy_third": ("double", "greedy adaptation's third alternative: double or quarter"),
        "widening": (False, "start-time widening of starting jobs into idle hosts"),
    }

    @classmethod
    def needs_dynamic_jobs(cls, options: dict) -> bool:
        return (
            bool(options.get("speculation", 0))
            or bool(options.get("test_runs", False))
            or options.get("adaptation", "none") != "none"
            or bool(options.get("widening", False))
        )

    def __init__(
        self,
        nb_hosts: int,
        *,
        order: str = "D",
        guarantees: bool = True,
        starvation_weight: float = -1.0,
        priority_levels: int = 3,
        seed: int = 0,
        record_reservations: bool = True,
        speculation: float = 0.0,
        test_runs: bool = False,
        test_threshold_s: float = 10800.0,
        test_run_s: float = 300.0,
        test_run_max_s: float = 900.0,
        adaptation: str = "none",
        greedy_third: str = "double",
        widening: bool = False,
    ):
        super().__init__(nb_hosts, record_reservations=record_reservations and guarantees)
        self.init_speculation(
            speculation=speculation,
            test_runs=test_runs,
            test_threshold_s=test_threshold_s,
            test_run_s=test_run_s,
            test_run_max_s=test_run_max_s,
        )
        self.init_adaptation(adaptation=adaptation, greedy_third=greedy_third, widening=widening)
        if starvation_weight < 0:
            starvation_weight = DEFAULT_STARVATION_WEIGHT.get(order, 0.0)
        self.guarantees = guarantees
        self.criterion = Criterion(
            order,
            seed=seed,
            priority_levels=priority_levels,
            starvation_weight=0.0 if guarantees else starvation_weight,
        )
        self.order = []  # the waiting jobs in this pass's order

    def on_submit(self, job, now):
        self.adapt_on_arrival(job)
        super().on_submit(job, now)
        self.criterion.on_arrival(job)

    def on_complete(self, running, now, state="COMPLETED_SUCCESSFULLY"):
        if running.kind in ("regular", "resized"):  # the job's own run (a resized one replaced it)
            if self.guarantees:
                super().on_complete(running, now, state)  # the rest of its slot is free again
            self.criterion.forget(running.job.id)
            return
        if self.guarantees and now < running.end_s:  # a copy ended before its time was up
            self.profile.release(now, running.end_s, running.res)
            self.freed_early = True
        if self.copy_ended(running, now, state):  # the copy did the job: the original is done
            job = running.job
            if self.guarantees:
                self.drop(job)
            else:
                self.queue.remove_all([job])
            self._rejects.append(job.id)
            self.criterion.forget(job.id)

    def movable(self, job) -> bool:
        return job.id not in self.copy_of  # a guaranteed job is suspended while its copy runs

    def compression_order(self, now: float) -> list:
        return self.order  # this pass's order (R draws once per pass)

    def sorted(self, jobs, now: float) -> list:
        """Phase 1: the jobs in the criterion's order (L is the submitted estimate)."""
        return self.criterion.order(jobs, now, estimate=lambda job: self.submitted[job.id][1])

    def plan(self, now: float):
        self.kill_overdue_copies(now, EPS_S)
        if self.guarantees:
            self.order = self.sorted(self.queue.jobs, now)
            super().plan(now)
            waiting = set(map(id, self.queue.jobs))
            profile, order = self.profile, [job for job in self.order if id(job) in waiting]
            limit = self.reservation.__getitem__
        else:
            profile, order = self.reschedule(now)
            limit = None
        if self.speculation or self.test_runs:
            self.speculate(
                now,
                [job for job in order if job.id not in self.running],
                profile,
                None if limit is None else (lambda job: limit(job.id)),
            )
        if self.widening:
            self.widen(now, profile)
        if self.starting:
            self.emit_starts(now)
            if self.guarantees:
                self.wake_up_if_needed(now)

    def wake_up_if_needed(self, now: float):
        if not self.starting:  # else: once they run (their ends may make it needless)
            super().wake_up_if_needed(now)

    def reschedule(self, now: float):
        """-NG: rebuild the schedule from what runs; start the jobs placed now.

        Returns the pass's schedule and order, for the later phases.
        """
        self.arrivals = []
        profile = AvailabilityProfile.of_running(self.nb_hosts, now, [(r.end_s, r.res) for r in self.by_end])
        order = [job for job in self.sorted(self.queue.jobs, now) if job.id not in self.copy_of]
        started = []
        for job in order:
            if profile.free[0] == 0:
                break  # nobody else can start now: the rest of the schedule changes nothing
            start = self.place(job, profile, now)
            profile.reserve(start, start + job.walltime_s, job.res)
            if start <= now + EPS_S and job.res <= self.pool.nb_free:
                self.start(job, now, planned_s=start)
                started.append(job)
        if started:
            self.queue.remove_all(started)
            gone = {job.id for job in started}
            order = [job for job in order if job.id not in gone]
        return profile, order

    def idle(self) -> bool:
        return super().idle() and not self.copy_of
