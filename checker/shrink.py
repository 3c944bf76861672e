"""The smallest workload that still shows a violation: jobs removed while it persists.

Delta debugging (Zeller & Hildebrandt, "Simplifying and isolating failure-inducing input",
IEEE TSE 28(2), 2002), on the workload's jobs: try without each of ``n`` chunks of jobs;
keep the first smaller workload that still shows the same kind of violation, and go on with
fewer chunks; when none does, split finer; stop at chunks of one job (every job needed) or
when the time is up. A run is deterministic, so the result does too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

Jobs = list[dict[str, Any]]


def shrink(jobs: Jobs, fails: Callable[[Jobs], bool], *, budget_s: float = 120.0) -> tuple[Jobs, bool]:
    """(the smallest list of ``jobs`` found for which ``fails`` holds, whether it is 1-minimal:
    no single job can go). ``fails(jobs)`` must hold at the start."""
    deadline = time.monotonic() + budget_s
    n = 2
    while len(jobs) >= 2:
        if time.monotonic() > deadline:
            return jobs, False
        size = -(-len(jobs) // n)  # ceil
        for start in range(0, len(jobs), size):
            candidate = jobs[:start] + jobs[start + size :]
            if candidate and fails(candidate):
                jobs = candidate
                n = max(n - 1, 2)
                break
            if time.monotonic() > deadline:
                return jobs, False
        else:
            if size == 1:
                return jobs, True
            n = min(2 * n, len(jobs))
    return jobs, True
