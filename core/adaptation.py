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
- ``widening``: start-time widening, a phase after backfilling and speculation.
  Jobs starting now are widened, in the pass's order, into hosts that would stay
  idle: 4x, else 2x, wider and as many times shorter, when the extra hosts are free
  for the whole (shorter) run. The paper applies it on top of half-size jobs.

A job whose shape is not its submitted one executes as a copy (``kind``
"resized", its delay profile scaled by the shape's factor); the original is
rejected when the copy starts.
"""

from __future__ import annotations

import math

from adaptsched.core.base import INF

ADAPTATIONS = ("none", "half", "quarter", "greedy")


class Adaptation:
    """Mixin for :class:`~adaptsched.core.backfill.Backfill`: job shapes."""

    def init_adaptation(self, *, adaptation: str, greedy_third: str, widening: bool):
        if adaptation not in ADAPTATIONS:
            raise ValueError(f"unknown adaptation {adaptation!r}; choose one of {', '.join(ADAPTATIONS)}")
        if greedy_third not in ("double", "quarter"):
            raise ValueError("greedy_third must be 'double' or 'quarter'")
        self.adaptation = adaptation
        self.greedy_third = greedy_third
        self.widening = widening
        self.submitted = {}  # job id -> (width, walltime) as submitted
        self.scales = {}  # job id -> runtime factor of its current shape (absent: 1)
        self.starting = []  # (job, hosts) started this pass, emitted after widening

    # -- shapes -------------------------------------------------------------------
    def scale_of(self, job) -> float:
        return self.scales.get(job.id, 1.0)

    def narrowed(self, width: int, k: int) -> tuple[int, float]:
        narrow = math.ceil(width / k)
        return narrow, width / narrow

    def fixed_shape(self, width: int) -> tuple[int, float]:
        if width > 4 and self.adaptation == "quarter":
            return self.narrowed(width, 4)
        if width > 1:
            return self.narrowed(width, 2)
        return width, 1.0

    def shapes(self, job) -> list:
        """Greedy's alternatives, (width, factor), regular first."""
        width = self.submitted[job.id][0]
        found = [(width, 1.0)]
        if width > 1:
            found.append(self.narrowed(width, 2))
        if self.greedy_third == "double" and 2 * width <= self.nb_hosts:
            found.append((2 * width, 0.5))
        elif self.greedy_third == "quarter" and width > 4:
            found.append(self.narrowed(width, 4))
        return found

    def reshape(self, job, width: int, scale: float):
        job.res = width
        job.walltime_s = self.submitted[job.id][1] * scale
        if scale == 1.0:
            self.scales.pop(job.id, None)
        else:
            self.scales[job.id] = scale

    def adapt_on_arrival(self, job):
        self.submitted[job.id] = (job.res, job.walltime_s)
        if self.adaptation in ("half", "quarter"):
            self.reshape(job, *self.fixed_shape(job.res))

    def place(self, job, profile, now: float, before: float = INF):
        if self.adaptation != "greedy":
            return super().place(job, profile, now, before)
        best = None
        walltime = self.submitted[job.id][1]
        for width, scale in self.shapes(job):
            start = profile.earliest_fit(width, walltime * scale, now, before=before)
            if start is None:
                continue
            key = (start + walltime * scale, width)  # earliest completion, then fewer hosts
            if best is None or key < best[0]:
                best = (key, width, scale, start)
        self.reshape(job, best[1], best[2])
        return best[3]

    # -- starting and widening ----------------------------------------------------
    def start(self, job, now: float, hosts=None, planned_s=None):
        if self.widening:  # decided at the end of the pass, after widening
            hosts = self.pool.allocate(job.res) if hosts is None else hosts
            self.starting.append((job, hosts, now if planned_s is None else planned_s))
            return None
        return self.begin(job, now, hosts)

    def begin(self, job, now: float, hosts=None):
        """Executes a job in its current shape: itself, or a resized copy that replaces it."""
        if self.scale_of(job) == 1.0:
            return super().start(job, now, hosts)
        running = self.launch(job, now, kind="resized", end_s=now + job.walltime_s, hosts=hosts)
        self.reject(job)
        return running

    def wider_shapes(self, job) -> list:
        """Widening's alternatives wider than the job's current shape, widest first:
        double-size (if the machine allows) and regular."""
        width, _ = self.submitted[job.id]
        found = [(2 * width, 0.5)] if 2 * width <= self.nb_hosts else []
        found.append((width, 1.0))
        return [(w, f) for w, f in found if w > job.res]

    def widen(self, now: float, profile):
        """Start-time widening: widens this pass's starting jobs, in the pass's order, to
        their widest alternative whose extra hosts are idle now and stay free (in
        ``profile``, which holds every reservation) for the whole shorter run."""
        for job, hosts, planned_s in self.starting:
            if self.submitted[job.id][0] == 1:
                continue  # sequential jobs have no alternatives
            walltime = self.submitted[job.id][1]
            for width, scale in self.wider_shapes(job):
                if width - job.res > self.pool.nb_free:
                    continue
                begin_s, end_s = max(planned_s, now), planned_s + job.walltime_s  # its planned interval
                profile.release(begin_s, end_s, job.res)
                if profile.hole(width, now, walltime * scale) >= walltime * scale:
                    profile.reserve(now, now + walltime * scale, width)
                    hosts.extend(self.pool.allocate(width - job.res))
                    hosts.sort()
                    self.reshape(job, width, scale)
                    self.freed_early = True  # its shorter run frees the rest of its old slot
                    break
                profile.reserve(begin_s, end_s, job.res)  # no: as it was

    def emit_starts(self, now: float):
        """Executes the jobs started this pass (after widening)."""
        starting, self.starting = self.starting, []
        for job, hosts, _ in starting:
            self.begin(job, now, hosts)
