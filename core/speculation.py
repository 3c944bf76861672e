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

SUCCESS = "COMPLETED_SUCCESSFULLY"


class Speculation:
    """Mixin for :class:`~adaptsched.core.backfill.Backfill`: phase 3 and the copies' fate."""

    def init_speculation(
        self, *, speculation: float, test_runs: bool, test_threshold_s: float, test_run_s: float, test_run_max_s: float
    ):
        if not 0 <= speculation < 100:
            raise ValueError("speculation must be a percentage in [0, 100)")
        if not 0 < test_run_s <= test_run_max_s:
            raise ValueError("test runs need 0 < test_run_s <= test_run_max_s")
        self.speculation = speculation / 100.0
        self.test_runs = test_runs
        self.test_threshold_s = test_threshold_s
        self.test_run_s = test_run_s
        self.test_run_max_s = test_run_max_s
        self.speculated = {}  # job id -> next speculated running time, as a fraction of the estimate
        self.tested = set()  # jobs that had their test run
        self.copy_of = {}  # job id -> its running copy (Running)

    def speculate(self, now: float, order, profile, limit=None):
        """Phase 3: starts speculative copies and test runs in the holes of ``profile``.

        ``limit(job)``: latest end of a copy (its guaranteed start), or None.
        """
        for job in order:
            free = self.pool.nb_free
            if free == 0:
                break
            if job.res > free or job.id in self.copy_of or job.id in self.running:
                continue
            cap = job.walltime_s if limit is None else min(job.walltime_s, limit(job) - now)
            hole = profile.hole(job.res, now, cap)
            if hole >= job.walltime_s:
                continue  # it fits with its estimate: regular backfilling's business
            if self.speculation and hole >= self.speculated.get(job.id, self.speculation) * job.walltime_s:
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
            copy = self.launch(job, now, kind=kind, end_s=now + length)
            self.copy_of[job.id] = copy
            profile.reserve(now, now + length, job.res)
            self._decisions.wake_ups.append(now + length)

    def kill_overdue_copies(self, now: float, eps: float):
        for copy in list(self.copy_of.values()):
            if copy.end_s <= now + eps and copy.exec_id in self.running:
                self.kill(copy)

    def copy_ended(self, copy, now: float, state: str) -> bool:
        """Bookkeeping when a copy ends; returns whether it did the job's work."""
        job = copy.job
        del self.copy_of[job.id]
        if state == SUCCESS:
            self.speculated.pop(job.id, None)
            return True
        if copy.kind == "speculative":  # next time, speculate halfway to the estimate
            self.speculated[job.id] = ((copy.end_s - copy.start_s) / job.walltime_s + 1) / 2
        return False
