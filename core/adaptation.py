"""Job adaptation (Perković & Keleher, sec. 7), with constant efficiency.

A job's *shape* is its width and the factor by which its running time (and its
estimate) is multiplied: k times fewer hosts make it k times longer. Widths are
rounded up and the factor is exact, so the work (hosts x time) never changes: a
job of r hosts halved runs on ceil(r/2) hosts for r / ceil(r/2) times as long.

- ``adaptation="half"``: every job but sequential ones runs half-size, always.
- ``adaptation="quarter"``: jobs wider than 4 hosts run quarter-size, the other
  non-sequential jobs half-size, always.
- ``adaptation="greedy"``: at every backfilling attempt (every placement of the
  job), the shape with the earliest expected completion among regular, half-size
  and ``greedy_third``: "double" (twice as wide, if the machine allows) or
  "quarter" (quarter-size, for jobs wider than 4 hosts). With guarantees only
  shapes that start no later than the current guarantee are considered. Ties go
  to the narrower shape.
- ``widening`` (:func:`widen`): start-time widening, a phase after backfilling and
  speculation. Jobs starting now are widened, in the pass's order, into hosts that would
  stay idle: 4x, else 2x, wider and as many times shorter, when the extra hosts are free
  for the whole (shorter) run. The paper applies it on top of half-size jobs.

A job whose shape is not its submitted one executes as a copy (``kind``
"resized", its delay profile scaled by the shape's factor); the original is
rejected when the copy starts.
"""

from __future__ import annotations

import math

from adaptsched.core.base import Job
from adaptsched.core.hosts import HostPool
from adaptsched.core.intervals import IntervalSet
from adaptsched.core.profile import AvailabilityProfile
from adaptsched.core.units import INF

ADAPTATIONS = ("none", "half", "quarter", "greedy")
GREEDY_THIRDS = ("double", "quarter")

#: A job starting this pass: (job, its hosts, where its interval begins in the pass's profile).
Starting = tuple[Job, IntervalSet, float]


def narrowed(width: int, k: int) -> tuple[int, float]:
    """The shape k times narrower: (ceil(width / k), its runtime factor)."""
    narrow = math.ceil(width / k)
    return narrow, width / narrow


class Shapes:
    """Each job's submitted shape and current shape, and how adaptation chooses it."""

    def __init__(self, adaptation: str, greedy_third: str, nb_hosts: int):
        self.adaptation = adaptation
        self.greedy_third = greedy_third
        self.nb_hosts = nb_hosts
        self.submitted: dict[str, tuple[int, float]] = {}  # job id -> (width, walltime) as submitted
        self.scales: dict[str, float] = {}  # job id -> runtime factor of its current shape (absent: 1)

    def scale_of(self, job: Job) -> float:
        return self.scales.get(job.id, 1.0)

    def submitted_walltime(self, job: Job) -> float:
        return self.submitted[job.id][1]

    def on_arrival(self, job: Job) -> None:
        """Records the submitted shape; half and quarter size reshape the job for good."""
        self.submitted[job.id] = (job.res, job.walltime_s)
        if self.adaptation in ("half", "quarter"):
            self.reshape(job, *self.fixed_shape(job.res))

    def fixed_shape(self, width: int) -> tuple[int, float]:
        if width > 4 and self.adaptation == "quarter":
            return narrowed(width, 4)
        if width > 1:
            return narrowed(width, 2)
        return width, 1.0

    def reshape(self, job: Job, width: int, scale: float) -> None:
        job.res = width
        job.walltime_s = self.submitted[job.id][1] * scale
        if scale == 1.0:
            self.scales.pop(job.id, None)
        else:
            self.scales[job.id] = scale

    def greedy_shapes(self, job: Job) -> list[tuple[int, float]]:
        """Greedy's alternatives, (width, factor), regular first."""
        width = self.submitted[job.id][0]
        found = [(width, 1.0)]
        if width > 1:
            found.append(narrowed(width, 2))
        if self.greedy_third == "double" and 2 * width <= self.nb_hosts:
            found.append((2 * width, 0.5))
        elif self.greedy_third == "quarter" and width > 4:
            found.append(narrowed(width, 4))
        return found

    def place(self, job: Job, profile: AvailabilityProfile, now: float, before: float = INF) -> float | None:
        """Earliest start of the job in ``profile``; greedy adaptation first reshapes it to the
        alternative of earliest completion (ties: the narrower)."""
        if self.adaptation != "greedy":
            return profile.earliest_fit(job.res, job.walltime_s, now, before=before)
        best = None
        walltime = self.submitted[job.id][1]
        for width, scale in self.greedy_shapes(job):
            start = profile.earliest_fit(width, walltime * scale, now, before=before)
            if start is None:
                continue
            key = (start + walltime * scale, width)  # earliest completion, then fewer hosts
            if best is None or key < best[0]:
                best = (key, width, scale, start)
        assert best is not None  # the current shape still fits where it was
        self.reshape(job, best[1], best[2])
        return best[3]

    def wider_shapes(self, job: Job) -> list[tuple[int, float]]:
        """Widening's alternatives wider than the job's current shape, widest first:
        double-size (if the machine allows) and regular."""
        width, _ = self.submitted[job.id]
        found = [(2 * width, 0.5)] if 2 * width <= self.nb_hosts else []
        found.append((width, 1.0))
        return [(w, f) for w, f in found if w > job.res]


def widen(starting: list[Starting], now: float, profile: AvailabilityProfile, pool: HostPool, shapes: Shapes) -> bool:
    """Start-time widening: widens each starting job, in the pass's order, to its widest
    alternative whose extra hosts are idle now and stay free (in ``profile``, which holds every
    reservation) for the whole shorter run. Replaces the jobs' hosts in ``starting``; returns
    whether a job was widened (its shorter run frees the rest of its old interval)."""
    widened = False
    for index, (job, hosts, planned_s) in enumerate(starting):
        if shapes.submitted[job.id][0] == 1:
            continue  # sequential jobs have no alternatives
        walltime = shapes.submitted[job.id][1]
        for width, scale in shapes.wider_shapes(job):
            if width - job.res > pool.nb_free:
                continue
            begin_s, end_s = max(planned_s, now), planned_s + job.walltime_s  # its planned interval
            profile.release(begin_s, end_s, job.res)
            if profile.hole(width, now, walltime * scale) >= walltime * scale:
                profile.reserve(now, now + walltime * scale, width)
                starting[index] = (job, hosts | pool.allocate(width - job.res), planned_s)
                shapes.reshape(job, width, scale)
                widened = True
                break
            profile.reserve(begin_s, end_s, job.res)  # no: as it was
    return widened
