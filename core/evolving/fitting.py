"""Algorithm 3 of Klein & Pérez (sec. 4.3.2): fitting a requested EP into the resource EP,
with the stretch limit l (sec. 4.3.1) and compacting (sec. 4.3.3, "+c").

C. Klein, C. Pérez, "Scheduling Rigid, Evolving Applications on Homogeneous Resources",
INRIA Research Report RR-7205, 2010.

The resource EP ep_r is an :class:`~adaptsched.core.profile.AvailabilityProfile` (busy =
n_max - free), whose ``min_free`` and ``loc`` are n_max - max(ep_r, ...) and loc(ep_r, ...).
Readings of Algorithm 3 and of compacting: :mod:`adaptsched.core.evolving`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from adaptsched.core.evolving.profiles import Stage
from adaptsched.core.profile import AvailabilityProfile
from adaptsched.core.units import INF


def _fit(
    src: Sequence[Stage],
    i: int,
    t0: float,
    dst: AvailabilityProfile,
    l: float,
    clip: bool,
    limit_s: float,
) -> tuple[float, list[float] | None]:
    """Algorithm 3 from stage ``i`` (0-based) at ``t0``: (start, stretched durations of stages
    i...), or (the time to retry the previous stage from, None); (INF, None) past ``limit_s``."""
    if i == len(src):  # l. 1-3
        return t0, []
    d, n = src[i]  # l. 4-5
    t = t0
    while True:
        end = t + d
        if end > limit_s:
            return INF, None
        if dst.min_free(t, end) < n:  # l. 8-11: jump past the busiest step
            t = dst.loc(t, end)
            if clip and t > end:
                t = end
            continue
        if i > 0:  # l. 13-21: the previous stage holds its nodes on [t0, t)
            dp, np_ = src[i - 1]
            t_eas = t - l * dp  # its earliest allowed start
            if t_eas > t0 - dp:
                return t_eas, None
            if dst.min_free(t0, t) < np_:
                back = dst.loc(t0, t)
                return (min(back, t) if clip else back), None
        tail, rest = _fit(src, i + 1, end, dst, l, clip, limit_s)  # l. 24
        if rest is None:  # l. 25-27
            if tail == INF:
                return INF, None
            t = tail
            continue
        if i > 0:  # l. 30-31 (read i > 1, 1-based): stretched up to the next stage
            rest.insert(0, tail - t)
            return t, rest
        rest.insert(0, d)  # l. 33: the first stage is moved, not stretched
        return tail - d, rest


def mirrored(dst: AvailabilityProfile, axis_s: float, origin_s: float) -> AvailabilityProfile:
    """``dst`` reflected about ``axis_s``: mirrored time u is time axis_s - u, for u in
    [0, axis_s - origin_s] (the rest of the mirror is free: fits past it are refused)."""
    times, free = dst.times, dst.free
    out = AvailabilityProfile(dst.nb_hosts, 0.0)
    hi = bisect_left(times, axis_s) - 1  # the last step starting before the axis
    lo = max(bisect_right(times, origin_s) - 1, 0)  # the step holding the origin
    if hi < lo:
        return out
    steps, frees = [], []
    for k in range(hi, lo - 1, -1):
        end = times[k + 1] if k + 1 < len(times) else INF
        steps.append(axis_s - min(end, axis_s))
        frees.append(free[k])
    steps.append(axis_s - origin_s)
    frees.append(dst.nb_hosts)
    out.times, out.free = steps, frees
    return out


@dataclass
class FitStats:
    """Compacting's outcome over the fits made."""

    fits: int = 0
    compactions: int = 0  # compacted fits
    rejected: int = 0  # compacted results refused (the base kept)
    later: int = 0  # compacted results that start later than the base


def fit(
    src: Sequence[Stage],
    dst: AvailabilityProfile,
    stretch_limit: float,
    t0: float = 0.0,
    *,
    compact: bool = False,
    clip_loc: bool = False,
    stats: FitStats | None = None,
) -> tuple[float, tuple[float, ...]]:
    """Algorithm 3 (base fit), then compacting if ``compact``: (start >= t0, stretched
    durations) such that ``dst`` has room for every stage over its stretched span. ``dst``'s
    machine size is n_max; ``stretch_limit`` is l >= 1 (INF: no limit).

    >>> p = AvailabilityProfile(10); p.reserve(10.0, 30.0, 4); p.reserve(40.0, 50.0, 8)
    >>> src = [(10.0, 1), (10.0, 1), (10.0, 10)]
    >>> fit(src, p, 1.0), fit(src, p, 2.0), fit(src, p, 2.0, compact=True)
    ((10.0, (10.0, 10.0, 10.0)), (0.0, (10.0, 20.0, 10.0)), (10.0, (10.0, 10.0, 10.0)))
    """
    if stretch_limit < 1:
        raise ValueError(f"stretch limit {stretch_limit:g}: must be at least 1")
    if any(n > dst.nb_hosts or n < 0 or d < 0 for d, n in src):
        raise ValueError(f"stages {list(src)} do not fit a machine of {dst.nb_hosts} nodes")
    if stats is not None:
        stats.fits += 1
    start, durations = _fit(src, 0, t0, dst, stretch_limit, clip_loc, INF)
    assert durations is not None  # the empty machine after the last step always fits
    if not compact or len(src) < 2:
        return start, tuple(durations)
    end = start + sum(durations)
    mirror = mirrored(dst, end, t0)
    m_start, m_durations = _fit(src[::-1], 0, 0.0, mirror, stretch_limit, clip_loc, end - t0)
    if stats is not None:
        stats.compactions += 1
    if m_durations is None:
        if stats is not None:
            stats.rejected += 1
        return start, tuple(durations)
    c_start = end - m_start - sum(m_durations)
    if end - m_start > end or c_start < start:
        if stats is not None:
            stats.rejected += 1
        return start, tuple(durations)
    if stats is not None and c_start > start:
        stats.later += 1
    return c_start, tuple(m_durations[::-1])
