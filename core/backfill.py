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

from adaptsched.core.conservative import EPS_S, ConservativeBackfilling
from adaptsched.core.priorities import CRITERIA, Criterion
from adaptsched.core.profile import AvailabilityProfile

DAY_S = 86400.0
#: Default anti-starvation weights (score units per second of delay), see the module doc.
DEFAULT_STARVATION_WEIGHT = {"D": 0.0, "P": 1.0 / (10 * DAY_S), "R": 1.0 / (10 * DAY_S),
                             "1/L": 1e-10, "P/L": 1e-10, "R/L": 1e-10}


class Backfill(ConservativeBackfilling):
    name = "backfill"
    options = {
        "order": ("D", f"sorting criterion, descending: {', '.join(CRITERIA)}"),
        "guarantees": (True, "keep start-time guarantees (conservative backfilling); false: the -NG variant"),
        "starvation_weight": (-1.0, "-NG only: score added per second waited (negative: the criterion's default)"),
        "priority_levels": (3, "number of random priority levels (P criteria)"),
        "seed": (0, "seed of the random criteria (P, R)"),
        "record_reservations": (True, "write each job's first guarantee in its metadata"),
    }

    def __init__(self, nb_hosts: int, *, order: str = "D", guarantees: bool = True,
                 starvation_weight: float = -1.0, priority_levels: int = 3, seed: int = 0,
                 record_reservations: bool = True):
        super().__init__(nb_hosts, record_reservations=record_reservations and guarantees)
        if starvation_weight < 0:
            starvation_weight = DEFAULT_STARVATION_WEIGHT.get(order, 0.0)
        self.guarantees = guarantees
        self.criterion = Criterion(order, seed=seed, priority_levels=priority_levels,
                                   starvation_weight=0.0 if guarantees else starvation_weight)

    def on_submit(self, job, now):
        super().on_submit(job, now)
        self.criterion.on_arrival(job)

    def on_complete(self, running, now):
        if self.guarantees:
            super().on_complete(running, now)  # the persistent schedule frees the rest of its slot
        self.criterion.forget(running.job.id)

    def compression_order(self, now: float) -> list:
        return self.criterion.order(self.queue.jobs, now)

    def plan(self, now: float):
        if self.guarantees:
            super().plan(now)
        else:
            self.reschedule(now)

    def reschedule(self, now: float):
        """-NG: rebuild the schedule from the running jobs; start the jobs placed now."""
        self.arrivals = []
        profile = AvailabilityProfile.of_running(self.nb_hosts, now, [(r.end_s, r.job.res) for r in self.by_end])
        started = []
        for job in self.criterion.order(self.queue.jobs, now):
            if profile.free[0] == 0:
                break  # nobody else can start now: the rest of the schedule changes nothing
            start = profile.earliest_fit(job.res, job.walltime_s, now)
            profile.reserve(start, start + job.walltime_s, job.res)
            if start <= now + EPS_S and job.res <= self.pool.nb_free:
                self.start(job, now)
                started.append(job)
        if started:
            self.queue.remove_all(started)
