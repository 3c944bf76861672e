"""Algorithm 2 of Klein & Pérez (sec. 4.2): applications in order, each fitted into ep_r
(:func:`~adaptsched.core.evolving.fitting.fit`) and reserved there, never revisited.

C. Klein, C. Pérez, "Scheduling Rigid, Evolving Applications on Homogeneous Resources",
INRIA Research Report RR-7205, 2010.

The variants of sec. 5.1 (:data:`VARIANTS`): ``nos`` (l = 1), ``mic`` (l = 2), ``inf`` (no
limit), each with compacting ("+c"); ``cbf`` sees each application as one rigid stage (sum of
d, max n): Algorithm 2 then is conservative backfilling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from adaptsched.core.evolving.fitting import FitStats, fit
from adaptsched.core.evolving.profiles import Scheduled, Stage
from adaptsched.core.profile import AvailabilityProfile
from adaptsched.core.units import INF

#: variant -> (stretch limit l, compacting); cbf: one rigid stage, no stretch.
VARIANTS: dict[str, tuple[float, bool]] = {
    "cbf": (1.0, False),
    "nos": (1.0, False),
    "mic": (2.0, False),
    "mic+c": (2.0, True),
    "inf": (INF, False),
    "inf+c": (INF, True),
}


def rigid(stages: Sequence[Stage]) -> tuple[Stage]:
    """How cbf sees an application: one stage of the total duration on the most nodes."""
    return ((sum(d for d, _ in stages), max((n for _, n in stages), default=0)),)


@dataclass
class Planner:
    """Algorithm 2's state: ep_r, and the fit of a variant (:data:`VARIANTS`). Each
    :meth:`place` fits one application from ``now`` and reserves it in ep_r for good."""

    nb_hosts: int
    variant: str = "nos"
    stretch_limit: float | None = None  # overrides the variant's
    compact: bool | None = None  # overrides the variant's
    clip_loc: bool = False
    profile: AvailabilityProfile = field(init=False)
    stats: FitStats = field(init=False, default_factory=FitStats)

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}: choose one of {', '.join(VARIANTS)}")
        limit, compact = VARIANTS[self.variant]
        self.limit = limit if self.stretch_limit is None else self.stretch_limit
        self.compacting = compact if self.compact is None else self.compact
        self.profile = AvailabilityProfile(self.nb_hosts, 0.0)

    def place(self, stages: Sequence[Stage], now: float = 0.0) -> Scheduled:
        requested = tuple((float(d), int(n)) for d, n in stages)
        src = rigid(requested) if self.variant == "cbf" else requested
        start, durations = fit(
            src, self.profile, self.limit, now, compact=self.compacting, clip_loc=self.clip_loc, stats=self.stats
        )
        scheduled = Scheduled(start, tuple((d, n) for d, (_, n) in zip(durations, src)), requested)
        t = start
        for d, n in scheduled.stages:
            self.profile.reserve(t, t + d, n)
            t += d
        return scheduled


def schedule(
    applications: Sequence[Sequence[Stage]],
    nb_hosts: int,
    variant: str = "nos",
    *,
    clip_loc: bool = False,
    stats: FitStats | None = None,
) -> list[Scheduled]:
    """Algorithm 2: every application (all at time 0, in order) fitted into ep_r, reserved there.

    >>> [(s.start_s, s.stages) for s in schedule([[(10, 2)], [(5, 1), (5, 3)]], 4)]
    [(0.0, ((10.0, 2),)), (5.0, ((5.0, 1), (5.0, 3)))]
    >>> [(s.start_s, s.stages) for s in schedule([[(10, 2)], [(5, 1), (5, 3)]], 4, "cbf")]
    [(0.0, ((10.0, 2),)), (10.0, ((10.0, 3),))]
    """
    planner = Planner(nb_hosts, variant, clip_loc=clip_loc)
    out = [planner.place(stages) for stages in applications]
    if stats is not None:
        for name in ("fits", "compactions", "rejected", "later"):
            setattr(stats, name, getattr(stats, name) + getattr(planner.stats, name))
    return out
