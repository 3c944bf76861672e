"""A waiting job as a scheduler sees it: its request (hosts, walltime) and its workload fields.

It sits below :mod:`adaptsched.core.queue` and :mod:`adaptsched.core.base`, which both use it
(:mod:`adaptsched.core.base` re-exports it: ``from adaptsched.core.base import Job`` works).
"""

from __future__ import annotations

from typing import Any

from adaptsched.core.units import INF


class Job:
    """What a scheduler knows of a job: its request, not its true runtime. ``fields``: the job's
    description in the workload (its extra keys, e.g. ``moldable``), as Batsim carries them.

    >>> job = Job("w0!7", submit_s=10.0, res=4, walltime_s=-1)  # Batsim's -1: no walltime
    >>> job.walltime_s, job.fields
    (inf, {})
    """

    __slots__ = ("fields", "id", "res", "submit_s", "walltime_s")
    id: str
    submit_s: float
    res: int
    walltime_s: float
    fields: dict[str, Any]

    def __init__(self, id: str, submit_s: float, res: int, walltime_s: float, fields: dict[str, Any] | None = None):
        self.id = id
        self.submit_s = submit_s
        self.res = res
        self.walltime_s = walltime_s if walltime_s > 0 else INF  # Batsim's -1: no walltime
        self.fields = fields or {}

    def __repr__(self) -> str:
        return f"Job({self.id!r}, submit={self.submit_s:g}, res={self.res}, walltime={self.walltime_s:g})"
