"""Perković & Keleher's backfilling family, one scheduler with the paper's techniques as options.

D. Perković, P. J. Keleher, "Randomization, Speculation, and Adaptation in Batch
Schedulers" (SC 2000). Every *pass* (each time Batsim reports events) runs the phases
of the paper's flow chart (Figure 2), in :meth:`Backfill.plan`, top to bottom:

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

3. **Speculation** (sec. 6): speculative copies and test runs in the holes left
   (:class:`~adaptsched.core.speculation.Speculation`).
4. **Adaptation** (sec. 7): a job's shape (half, quarter size, greedy) is chosen as it is
   placed in phase 2 (:class:`~adaptsched.core.adaptation.Shapes`).
5. **Widening** (sec. 7): the jobs starting now widen into idle hosts
   (:func:`~adaptsched.core.adaptation.widen`); they then begin, as themselves or as
   resized copies.

Our reading of what the paper leaves open: passes run at every batch of events
(arrivals, completions, call-backs), not only at arrivals and early completions;
ties keep arrival order; P's levels are drawn uniformly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mypy_extensions import mypyc_attr

from adaptsched.core import options as opt
from adaptsched.core.adaptation import ADAPTATIONS, GREEDY_THIRDS, Shapes, Starting, widen
from adaptsched.core.base import RUNS_SCALED_PROFILE, Job, Running
from adaptsched.core.conservative import ReservationPlanner
from adaptsched.core.needs import Need, walltimes
from adaptsched.core.options import OptionError, Options, option
from adaptsched.core.priorities import CRITERIA, Criterion
from adaptsched.core.profile import AvailabilityProfile
from adaptsched.core.speculation import Speculation
from adaptsched.core.units import DAY_S, EPS_S, INF

#: Default anti-starvation weights (score units per second of delay), see the module doc.
DEFAULT_STARVATION_WEIGHT = {
    "D": 0.0,
    "P": 1.0 / (10 * DAY_S),
    "R": 1.0 / (10 * DAY_S),
    "1/L": 1e-10,
    "P/L": 1e-10,
    "R/L": 1e-10,
}


@dataclass(frozen=True)
class BackfillOptions(Options):
    order: str = option("D", "sorting criterion, descending", choices=CRITERIA)
    guarantees: bool = option(True, "keep start-time guarantees (conservative backfilling); false: the -NG variant")
    starvation_weight: float = option(
        -1.0, "-NG only: score added per second waited (negative: the criterion's default)"
    )
    priority_levels: int = option(3, "number of random priority levels (P criteria)", low=1)
    seed: int = option(0, "seed of the random criteria (P, R)")
    record_reservations: bool = option(True, "write each job's first guarantee in its metadata")
    speculation: float = option(
        0.0,
        "speculative backfilling: speculated time in percent of the estimate (0: off)",
        low=0.0,
        high=100.0,
        high_open=True,
    )
    test_runs: bool = option(False, "speculative test runs of long jobs")
    test_threshold_s: float = option(10800.0, "test runs: only jobs estimated longer than this (s)", low=0.0)
    test_run_s: float = option(300.0, "test runs: shortest test (s)", low=0.0, low_open=True)
    test_run_max_s: float = option(900.0, "test runs: longest test (s)", low=0.0, low_open=True)
    adaptation: str = option("none", "job shapes", choices=ADAPTATIONS)
    greedy_third: str = option("double", "greedy adaptation's third alternative", choices=GREEDY_THIRDS)
    widening: bool = option(False, "start-time widening of starting jobs into idle hosts")
    ng_passes: str = option(
        "every",
        "-NG only: when the schedule is rebuilt (and R redrawn): at every batch of events, or only at arrivals "
        "and early completions as the paper's Figure 2 ('paper'; in between, the jobs the last schedule "
        "planned for now start)",
        choices=("every", "paper"),
    )

    def needs(self) -> tuple[Need, ...]:
        return (walltimes("the backfilling family"),)

    def check(self) -> None:
        if self.test_run_s > self.test_run_max_s:
            raise OptionError(
                f"options test_run_s={self.test_run_s:g} and test_run_max_s={self.test_run_max_s:g}: "
                "test runs need test_run_s <= test_run_max_s"
            )

    def needs_dynamic_jobs(self) -> bool:
        return bool(self.speculation or self.test_runs or self.adaptation != "none" or self.widening)


#: A pass's plan after phase 2: (jobs due now with their planned starts, the pass's profile, the
#: waiting jobs in the pass's order, the latest end of a speculative copy of a job or None).
Phase2 = tuple[list[tuple[Job, float]], AvailabilityProfile, list[Job], Callable[[Job], float] | None]


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class Backfill(ReservationPlanner):
    name = "backfill"
    summary = (
        "Perkovic & Keleher's backfilling family: sorting criteria D/P/R/1/L/P/L/R/L, with or without guarantees (-NG)"
    )
    copy_kinds = {"speculative": RUNS_SCALED_PROFILE, "test": RUNS_SCALED_PROFILE, "resized": RUNS_SCALED_PROFILE}
    Options = BackfillOptions

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        super().__init__(nb_hosts, options, **values)
        o = opt.narrow(self.options, BackfillOptions)
        weight = o.starvation_weight if o.starvation_weight >= 0 else DEFAULT_STARVATION_WEIGHT[o.order]
        self.guarantees = o.guarantees
        self.criterion = Criterion(  # phase 1
            o.order, seed=o.seed, priority_levels=o.priority_levels, starvation_weight=0.0 if o.guarantees else weight
        )
        self.speculation = Speculation(  # phase 3
            speculation=o.speculation,
            test_runs=o.test_runs,
            test_threshold_s=o.test_threshold_s,
            test_run_s=o.test_run_s,
            test_run_max_s=o.test_run_max_s,
        )
        self.shapes = Shapes(o.adaptation, o.greedy_third, nb_hosts)  # phase 4
        self.widening = o.widening  # phase 5
        self.pass_order: list[Job] = []  # the waiting jobs in this pass's order (phase 1)
        self.every_pass = o.ng_passes == "every"
        self.triggered = True  # an arrival or an early end since the last -NG rebuild
        self.last_plan: list[tuple[Job, float]] = []  # the last -NG schedule: (job, planned start), in order
        self.last_profile: AvailabilityProfile | None = None

    def records_reservations(self) -> bool:
        o = opt.narrow(self.options, BackfillOptions)
        return o.record_reservations and o.guarantees

    # -- one pass -------------------------------------------------------------------------
    def plan(self, now: float) -> None:
        for copy in self.speculation.overdue(now, EPS_S, self.running):
            self.kill(copy)
        # 1. sort and 2. backfill: the jobs due now, and what the later phases need
        due, profile, order, limit = self.plan_guaranteed(now) if self.guarantees else self.reschedule(now)
        starting: list[Starting] = [(job, self.pool.allocate(job.res), planned_s) for job, planned_s in due]
        widen_later = bool(self.widening and starting)  # 5. needs them before they begin
        if not widen_later:
            self.begin(starting, now)
            if self.guarantees:  # once the jobs starting now run: their ends may make it needless
                self.wake_up_if_needed(now)
        # 3. speculate, in the holes of the pass's profile
        if self.speculation.enabled:
            waiting = [job for job in order if job.id not in self.running]
            for job, kind, length in self.speculation.choose(now, waiting, profile, self.pool.nb_free, limit):
                copy = self.launch(job, now, kind=kind, end_s=now + length, scale=self.shapes.scale_of(job))
                self.speculation.copy_of[job.id] = copy
                self.wake_up(now + length)
        # 4. adaptation chose the shapes as phase 2 placed the jobs (self.place)
        # 5. widen the jobs starting now, then begin them
        if widen_later:
            if widen(starting, now, profile, self.pool, self.shapes):
                self.freed_early = True  # a widened job's shorter run frees the rest of its old slot
            self.begin(starting, now)
            if self.guarantees:
                self.wake_up_if_needed(now)

    def plan_guaranteed(self, now: float) -> Phase2:
        """Phases 1 and 2 with guarantees: conservative backfilling, compressing in the criterion's order."""
        self.pass_order = self.criterion.order(self.queue.jobs, now, estimate=self.shapes.submitted_walltime)
        due = self.reservation_pass(now)
        waiting = set(map(id, self.queue.jobs))
        order = [job for job in self.pass_order if id(job) in waiting]
        return due, self.profile, order, lambda job: self.reservation[job.id]

    def reschedule(self, now: float) -> Phase2:
        """Phases 1 and 2 without guarantees (-NG): the schedule rebuilt from what runs, in the
        criterion's order (score + starvation weight x delay); the jobs placed now are due."""
        if self.arrivals:
            self.triggered = True
        self.arrivals = []
        if not self.every_pass and not self.triggered and self.last_profile is not None:
            return self.follow_last_plan(now)
        self.triggered = False
        profile = AvailabilityProfile.of_running(self.nb_hosts, now, [(r.end_s, r.res) for r in self.by_end])
        order = [
            job
            for job in self.criterion.order(self.queue.jobs, now, estimate=self.shapes.submitted_walltime)
            if job.id not in self.speculation.copy_of
        ]
        due, free = [], self.pool.nb_free
        self.last_plan = []
        for job in order:
            if profile.free[0] == 0 and self.every_pass:
                break  # nobody else can start now: the rest of the schedule changes nothing
            start = self.place(job, profile, now)
            assert start is not None
            profile.reserve(start, start + job.walltime_s, job.res)
            if start <= now + EPS_S and job.res <= free:
                due.append((job, start))
                free -= job.res
            else:
                self.last_plan.append((job, start))
        self.last_profile = profile
        if due:
            self.queue.remove_all([job for job, _ in due])
            gone = {job.id for job, _ in due}
            order = [job for job in order if job.id not in gone]
        return due, profile, order, None

    def follow_last_plan(self, now: float) -> Phase2:
        """``ng_passes`` = ``paper``, at an event that is neither an arrival nor an early end:
        no rebuild; the jobs the last schedule planned by now start (in its order)."""
        profile = self.last_profile
        assert profile is not None
        profile.advance(now)
        waiting = {job.id for job in self.queue.jobs}
        due, rest, free = [], [], self.pool.nb_free
        for job, start in self.last_plan:
            if job.id not in waiting:
                continue
            if start <= now + EPS_S and job.res <= free:
                due.append((job, start))
                free -= job.res
            else:
                rest.append((job, start))
        self.last_plan = rest
        if due:
            self.queue.remove_all([job for job, _ in due])
        return due, profile, [job for job, _ in rest], None

    def begin(self, starting: list[Starting], now: float) -> None:
        """Executes the jobs starting now in their current shape: each itself, or a resized
        copy that replaces it (the original is rejected)."""
        for job, hosts, _ in starting:
            scale = self.shapes.scale_of(job)
            if scale == 1.0:
                self.start(job, now, hosts)
            else:
                self.launch(job, now, kind="resized", end_s=now + job.walltime_s, hosts=hosts, scale=scale)
                self.reject(job)

    # -- the planner's hooks --------------------------------------------------------------
    def compression_order(self, now: float) -> list[Job]:
        return self.pass_order  # this pass's order (R draws once per pass)

    def place(self, job: Job, profile: AvailabilityProfile, now: float, before: float = INF) -> float | None:
        return self.shapes.place(job, profile, now, before)

    def movable(self, job: Job) -> bool:
        return job.id not in self.speculation.copy_of  # a guaranteed job is suspended while its copy runs

    # -- events ------------------------------------------------------------------------------
    def on_submit(self, job: Job, now: float) -> None:
        self.shapes.on_arrival(job)
        super().on_submit(job, now)
        self.criterion.on_arrival(job)

    def on_complete(self, running: Running, now: float, state: str = "COMPLETED_SUCCESSFULLY") -> None:
        early = now < running.end_s
        if early or running.kind not in ("regular", "resized"):
            self.triggered = True  # -NG with ng_passes=paper: the schedule is rebuilt
        if running.kind in ("regular", "resized"):  # the job's own run (a resized one replaced it)
            if self.guarantees and early:
                self.release_early(running, now)  # the rest of its slot is free again
            self.criterion.forget(running.job.id)
            return
        if self.guarantees and early:  # a copy ended before its time was up
            self.release_early(running, now)
        if self.speculation.copy_ended(running, state):  # the copy did the job: the original is done
            job = running.job
            if self.guarantees:
                self.drop(job)
            else:
                self.queue.remove_all([job])
            self._rejects.append(job.id)
            self.criterion.forget(job.id)

    def idle(self) -> bool:
        return super().idle() and not self.speculation.copy_of
