"""Perković & Keleher's queue sorting criteria (sec. 3, Table 4), and anti-starvation (sec. 4).

Jobs are considered in *descending* order of their score:

====== ===================================================================
D      delay: time waited so far (arrival order; with guarantees, this is
       conservative backfilling)
P      a random priority drawn once per job, among ``priority_levels``
       levels (the paper uses 3)
R      a random number drawn again at every backfilling pass
1/L    1 / estimated running time: shortest first
P/L    P / estimated running time
R/L    R / estimated running time
====== ===================================================================

Without guarantees (``-NG``), the score gets ``starvation_weight`` x delay added,
so that a job waiting long enough eventually comes first (sec. 4). Ties keep
arrival order. Random numbers come from one seeded generator: runs are
reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from adaptsched.core.job import Job

CRITERIA = ("D", "P", "R", "1/L", "P/L", "R/L")


class Criterion:
    """Scores of waiting jobs for one of the paper's sorting criteria."""

    def __init__(self, name: str, *, seed: int = 0, priority_levels: int = 3, starvation_weight: float = 0.0):
        if name not in CRITERIA:
            raise ValueError(f"unknown sorting criterion {name!r}; choose one of {', '.join(CRITERIA)}")
        if priority_levels < 1:
            raise ValueError("priority_levels must be at least 1")
        self.name = name
        self.rng = random.Random(seed)
        self.priority_levels = priority_levels
        self.starvation_weight = starvation_weight
        self.priority: dict[str, int] = {}  # job id -> its level (P criteria)

    def on_arrival(self, job: Job) -> None:
        if self.name in ("P", "P/L"):
            self.priority[job.id] = self.rng.randint(1, self.priority_levels)

    def forget(self, job_id: str) -> None:
        self.priority.pop(job_id, None)

    def order(
        self, jobs: Iterable[Job], now: float, estimate: Callable[[Job], float] = lambda job: job.walltime_s
    ) -> list[Job]:
        """The jobs (in arrival order) sorted by descending score, ties in arrival order."""
        name, weight = self.name, self.starvation_weight
        if name == "D":
            return list(jobs)  # longest delay first is arrival order, with or without weight
        rng = self.rng
        scored: list[tuple[float, int, Job]] = []
        for position, job in enumerate(jobs):
            score: int | float  # (P: an int level, kept one by a compiled build)
            if name == "P":
                score = self.priority[job.id]
            elif name == "R":
                score = rng.random()
            elif name == "1/L":
                score = 1.0 / estimate(job)
            elif name == "P/L":
                score = self.priority[job.id] / estimate(job)
            else:  # R/L
                score = rng.random() / estimate(job)
            if weight:
                score += weight * (now - job.submit_s)
            scored.append((-score, position, job))
        scored.sort(key=lambda item: (item[0], item[1]))
        return [job for _, _, job in scored]
