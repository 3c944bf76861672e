"""Speculative backfilling and speculative test runs (Perković & Keleher, sec. 6 and 6.1).

A phase after regular backfilling, over the jobs still waiting, in the same order:

- **Speculative backfilling**: a job that does not fit with its estimate starts
  anyway, as a copy, in a hole where it fits with a *speculated* running time,
  ``speculation`` percent of its estimate. The speculated time grows to fill the
  hole. If the copy runs past it, the scheduler kills it (KILL_JOB) and the job
  goes back to the queue; its next speculation uses the mean of the last
  speculated time and the estimate. With guarantees the job keeps its guaranteed
  start meanwhile (the copy's hole never reaches past it), and the guaranteed job
  is not moved while its copy runs.
- **Speculative test runs**: a job estimated longer than ``test_threshold_s``
  (3 h) that cannot start speculatively runs for a short test when a hole of at
  least ``test_run_s`` (5 min) is free, for at most ``test_run_max_s`` (15 min). If
  it finishes, it is done; if not, it is killed and stays queued. One test per job.

A copy that completes does the job's work: the original is rejected. Copies are
registered dynamically (``ID#N``, metadata ``parent_job``), so the output trace
shows every attempt; ``adaptsched.analysis`` folds them onto the original job.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from adaptsched.core.base import Job, Running
from adaptsched.core.profile import AvailabilityProfile

SUCCESS = "COMPLETED_SUCCESSFULLY"


class Speculation:
    """The speculative copies: which to start (phase 3), which to kill, what each one's end means."""

    def __init__(
        self, *, speculation: float, test_runs: bool, test_threshold_s: float, test_run_s: float, test_run_max_s: float
    ):
        self.fraction = speculation / 100.0  # speculated time, as a fraction of the estimate (0: off)
        self.test_runs = test_runs
        self.test_threshold_s = test_threshold_s
        self.test_run_s = test_run_s
        self.test_run_max_s = test_run_max_s
        self.speculated: dict[str, float] = {}  # job id -> next speculated time, as a fraction of the estimate
        self.tested: set[str] = set()  # jobs that had their test run
        self.copy_of: dict[str, Running] = {}  # job id -> its running copy

    @property
    def enabled(self) -> bool:
        return bool(self.fraction or self.test_runs)

    def choose(
        self,
        now: float,
        order: Iterable[Job],
        profile: AvailabilityProfile,
        free: int,
        limit: Callable[[Job], float] | None = None,
    ) -> list[tuple[Job, str, float]]:
        """Phase 3: the copies to start now, (job, kind, length), in the holes of ``profile``
        (reserved there as they are chosen); ``free`` hosts are idle; ``limit(job)``: the
        latest end of a copy (its guaranteed start), or None."""
        chosen = []
        for job in order:
            if free == 0:
                break
            if job.res > free or job.id in self.copy_of:
                continue
            cap = job.walltime_s if limit is None else min(job.walltime_s, limit(job) - now)
            hole = profile.hole(job.res, now, cap)
            if hole >= job.walltime_s:
                continue  # it fits with its estimate: regular backfilling's business
            if self.fraction and hole >= self.speculated.get(job.id, self.fraction) * job.walltime_s:
                kind, length = "speculative", hole
            elif (
                self.test_runs
                and job.walltime_s > self.test_threshold_s
                and job.id not in self.tested
                and hole >= self.test_run_s
            ):
                kind, length = "test", min(hole, self.test_run_max_s)
                self.tested.add(job.id)
            else:
                continue
            chosen.append((job, kind, length))
            profile.reserve(now, now + length, job.res)
            free -= job.res
        return chosen

    def overdue(self, now: float, eps_s: float, running: Mapping[str, Running]) -> list[Running]:
        """Copies still running at (or a hair before) their speculated end: to kill."""
        return [copy for copy in self.copy_of.values() if copy.end_s <= now + eps_s and copy.exec_id in running]

    def copy_ended(self, copy: Running, state: str) -> bool:
        """Bookkeeping when a copy ends; returns whether it did the job's work."""
        job = copy.job
        del self.copy_of[job.id]
        if state == SUCCESS:
            self.speculated.pop(job.id, None)
            return True
        if copy.kind == "speculative":  # next time, speculate halfway to the estimate
            self.speculated[job.id] = ((copy.end_s - copy.start_s) / job.walltime_s + 1) / 2
        return False
