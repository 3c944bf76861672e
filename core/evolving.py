"""Offline scheduling of rigid, evolving applications (Klein & Pérez, INRIA RR-7205, 2010).

An *evolving* application changes its resource requirements during its execution in a way
known in advance: its requested *evolution profile* (EP, sec. 3.1) is a sequence of stages
(d_i, n_i), d_i seconds on n_i nodes. The scheduler may delay the application and *stretch*
its stages (C1): while it waits for the nodes of its next stage, a stage keeps its own nodes
without computing. The sum of the scheduled EPs never exceeds the machine's n_max nodes.

* :class:`EP` and its helpers (sec. 3.1): ep(t), max, loc, delay, +, chps, on **half-open**
  intervals [t0, t1) (the paper's "max = 0 if t0 = t1" needs them). The resource EP ep_r of
  Algorithm 2 is an :class:`~adaptsched.core.profile.AvailabilityProfile` (busy = n_max -
  free), whose ``min_free`` and ``loc`` are n_max - max(ep_r, ...) and loc(ep_r, ...).
* :func:`fit` (Algorithm 3, sec. 4.3.2, with the stretch limit l of sec. 4.3.1; nos l = 1,
  mic l = 2, inf l = inf) and compacting (sec. 4.3.3, "+c").
* :class:`Planner` / :func:`schedule` (Algorithm 2, sec. 4.2): applications in order, each
  fitted into ep_r and reserved there, never revisited. ``cbf`` sees each application as one
  rigid stage (sum of d, max n): Algorithm 2 then is conservative backfilling (sec. 5.1).
* :class:`NodeMapper` / :func:`map_nodes` (Algorithm 1, sec. 4.1): node ids in time order.
* :class:`EvolvingScheduler`: the online scheduler behind the ``evolving`` plugin.

Readings where the paper's text is garbled or silent (issue 12):

* Algorithm 3's header says l > 1: it must read l >= 1 (nos is l = 1). Its line 30 reads
  ``if i > 0``, always true (i starts at 1): it must be ``i > 1``, line 33 being the first
  stage, which is moved to end where the second starts, never stretched. The last stage is
  never stretched either (the recursion's end returns the time it was given).
* loc returns the end of the last step attaining the maximum even when that step reaches
  past t1 (the paper restricts it to [t0, t1]): both give the same fits, this one in fewer
  tries (``clip_loc=True`` is the paper's, kept for the tests).
* Compacting is the same fit on the mirrored problem: stages reversed, ep_r reflected about
  the base completion C, times before the fit's origin forbidden, from t0 = 0; the result,
  mapped back, is kept if it ends by C and starts no earlier than the base, else the base
  is kept ("in the worst case no compacting occurs").
* A stretched stage computes first, then holds its nodes until the next stage starts.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from adaptsched.core.base import Job, OnlineScheduler, Running
from adaptsched.core.needs import Need
from adaptsched.core.options import OptionError, Options, option
from adaptsched.core.profile import AvailabilityProfile

INF = math.inf
EPS_S = 1e-6  # Batsim prints times with 6 decimals: events this close are simultaneous

Stage = tuple[float, int]  # (duration in seconds, nodes)

#: variant -> (stretch limit l, compacting); cbf: one rigid stage, no stretch.
VARIANTS: dict[str, tuple[float, bool]] = {
    "cbf": (1.0, False),
    "nos": (1.0, False),
    "mic": (2.0, False),
    "mic+c": (2.0, True),
    "inf": (INF, False),
    "inf+c": (INF, True),
}
MAPPINGS = ("random", "lowest")


# -- evolution profiles (sec. 3.1) ------------------------------------------------------------
@dataclass(frozen=True)
class EP:
    """An evolution profile: stages (d, n) one after the other from time 0.

    A requested EP is what an application needs; a scheduled EP (a delayed, stretched
    requested EP) what it is given; a resource EP what a machine has busy. A delay is a
    first stage of 0 nodes.

    >>> ep = EP.of([(500, 5), (3600, 10)])
    >>> ep(0), ep(499.5), ep(500), ep(4100)
    (5, 5, 10, 0)
    >>> ep.max(0, 500), ep.max(0, 501), ep.max(200, 200)
    (5, 10, 0)
    >>> ep.delay(3600).chps()
    (3600.0, 4100.0, 7700.0)
    """

    stages: tuple[Stage, ...]

    @classmethod
    def of(cls, stages: Iterable[Sequence[float]]) -> EP:
        return cls(tuple((float(d), int(n)) for d, n in stages))

    def __call__(self, t: float) -> int:
        """ep(t): the nodes at time t (stage i covers [c_{i-1}, c_i)); 0 outside."""
        if t < 0:
            return 0
        end = 0.0
        for d, n in self.stages:
            end += d
            if t < end:
                return n
        return 0

    @property
    def duration_s(self) -> float:
        return sum(d for d, _ in self.stages)

    def _spans(self) -> Iterable[tuple[float, float, int]]:
        begin = 0.0
        for d, n in self.stages:
            yield begin, begin + d, n
            begin += d

    def max(self, t0: float, t1: float) -> int:
        """max(ep, t0, t1): the most nodes on [t0, t1); 0 if t0 = t1."""
        best = 0
        if t1 <= t0:
            return 0
        for begin, end, n in self._spans():
            if begin < t1 and end > t0 and n > best:
                best = n
        return best

    def loc(self, t0: float, t1: float, clip: bool = False) -> float:
        """loc(ep, t0, t1): the end of the last stage attaining max(ep, t0, t1) on [t0, t1)
        (``clip``: at most t1, as the paper restricts it). Past the last stage ep is 0."""
        if t1 <= t0:
            return t0
        top = self.max(t0, t1)
        where = t0
        for begin, end, n in self._spans():
            if begin < t1 and end > t0 and n == top:
                where = end
        if top == 0 and (not self.stages or t1 > self.duration_s):
            where = INF  # the empty tail, which never ends
        return min(where, t1) if clip else where

    def delay(self, t0: float) -> EP:
        """delay(ep, t0): ep starting t0 later (a first stage of 0 nodes)."""
        if t0 <= 0:
            return self
        return EP(((float(t0), 0), *self.stages))

    def chps(self) -> tuple[float, ...]:
        """chps(ep): the time coordinates between stages (and the end)."""
        out, t = [], 0.0
        for d, _ in self.stages:
            t += d
            out.append(t)
        return tuple(out)

    def __add__(self, other: EP) -> EP:
        """(ep1 + ep2)(t) = ep1(t) + ep2(t)."""
        cuts = sorted({0.0, *self.chps(), *other.chps()})
        stages: list[Stage] = []
        for begin, end in pairwise(cuts):
            n = self(begin) + other(begin)
            if stages and stages[-1][1] == n:
                stages[-1] = (stages[-1][0] + end - begin, n)
            else:
                stages.append((end - begin, n))
        return EP(tuple(stages))

    def is_delayed_stretched_of(self, requested: EP) -> bool:
        """C1: this EP is a delayed (first stage of 0 nodes, optional) and stretched (every
        d'_i >= d_i, same n_i) version of ``requested``."""
        stages = self.stages
        if stages and stages[0][1] == 0 and len(stages) == len(requested.stages) + 1:
            stages = stages[1:]
        if len(stages) != len(requested.stages):
            return False
        return all(n == rn and d >= rd for (d, n), (rd, rn) in zip(stages, requested.stages))


@dataclass(frozen=True)
class Scheduled:
    """A scheduled application: its start, its stretched stages (d'_i, n_i) and its request.

    Under ``cbf`` the application runs as one rigid stage (sum of d_i, max n_i)."""

    start_s: float
    stages: tuple[Stage, ...]
    requested: tuple[Stage, ...]

    @property
    def end_s(self) -> float:
        return self.start_s + sum(d for d, _ in self.stages)

    @property
    def ep(self) -> EP:
        """The scheduled EP: delay(stretched EP, start)."""
        return EP(self.stages).delay(self.start_s)

    @property
    def used_node_s(self) -> float:
        """U_i: node-seconds of computation, sum of d_i n_i."""
        return sum(d * n for d, n in self.requested)

    @property
    def allocated_node_s(self) -> float:
        """A_i: node-seconds allocated, sum of d'_i n_i."""
        return sum(d * n for d, n in self.stages)

    @property
    def stretch_s(self) -> float:
        """Sum of (d'_i - d_i); 0 under cbf."""
        return sum(d for d, _ in self.stages) - sum(d for d, _ in self.requested)

    def starts(self) -> list[float]:
        """Start time of each scheduled stage."""
        out, t = [], self.start_s
        for d, _ in self.stages:
            out.append(t)
            t += d
        return out


# -- Algorithm 3: base fit, and compacting ----------------------------------------------------
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


# -- Algorithm 2 -----------------------------------------------------------------------------
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


# -- Algorithm 1: node ids -------------------------------------------------------------------
class NodeMapper:
    """Node ids of running applications (Algorithm 1's S_j^(i)), changed one application at
    a time: a shrinking application frees the nodes it acquired last, so its first ("driver")
    node stays (C4); a growing one takes free nodes at random (seeded) or the lowest ids."""

    def __init__(self, nb_hosts: int, mapping: str = "random", seed: int = 0):
        if mapping not in MAPPINGS:
            raise ValueError(f"unknown mapping {mapping!r}: choose one of {', '.join(MAPPINGS)}")
        self.nb_hosts = nb_hosts
        self.mapping = mapping
        self.rng = random.Random(seed)
        self.free: list[int] = list(range(nb_hosts))  # sorted
        self.held: dict[str, list[int]] = {}  # application -> its nodes, in acquisition order

    def hosts(self, app: str) -> list[int]:
        return self.held.get(app, [])

    def resize(self, app: str, n: int) -> list[int]:
        """Gives ``app`` exactly ``n`` nodes (shrinking or growing); returns its nodes."""
        held = self.held.setdefault(app, [])
        if n < len(held):
            freed = held[n:]
            del held[n:]
            self.free.extend(freed)
            self.free.sort()
        elif n > len(held):
            k = n - len(held)
            if k > len(self.free):
                raise ValueError(f"application {app}: needs {k} more nodes, only {len(self.free)} are free")
            if self.mapping == "lowest":
                taken = self.free[:k]
            else:
                taken = self.rng.sample(self.free, k)
            chosen = set(taken)
            self.free = [h for h in self.free if h not in chosen]
            held.extend(taken)
        if not held:
            del self.held[app]
        return list(held)


def map_nodes(
    scheduled: Sequence[Scheduled], nb_hosts: int, mapping: str = "random", seed: int = 0
) -> list[list[tuple[int, ...]]]:
    """Algorithm 1: the node ids of each stage of each application. Change points in time
    order; at each, shrinking applications (ends included) first, then growing ones (starts
    included), each in application order."""
    events: list[tuple[float, int, int, int, int]] = []  # (time, 0 shrink / 1 grow, app, stage, n)
    for a, s in enumerate(scheduled):
        previous = 0
        for k, (t, (_, n)) in enumerate(zip(s.starts(), s.stages)):
            events.append((t, 0 if n < previous else 1, a, k, n))
            previous = n
        events.append((s.end_s, 0, a, len(s.stages), 0))
    events.sort()
    mapper = NodeMapper(nb_hosts, mapping, seed)
    out: list[list[tuple[int, ...]]] = [[] for _ in scheduled]
    for _, _, a, k, n in events:
        hosts = mapper.resize(str(a), n)
        if k < len(scheduled[a].stages):
            out[a].append(tuple(hosts))
    return out


def mapping_problems(scheduled: Sequence[Scheduled], hosts: Sequence[Sequence[Sequence[int]]]) -> list[str]:
    """C2-C4 of a node mapping: each stage has exactly its n nodes (C2), no node serves two
    applications at once (C3), a shrink keeps a subset and a growth a superset of the
    previous stage's nodes, so the first node stays throughout (C4)."""
    problems = []
    spans: list[tuple[float, float, int, int]] = []
    for a, (s, stage_hosts) in enumerate(zip(scheduled, hosts)):
        previous: set[int] | None = None
        for k, (t, (d, n), nodes) in enumerate(zip(s.starts(), s.stages, stage_hosts)):
            now = set(nodes)
            if len(now) != n or len(nodes) != n:
                problems.append(f"application {a} stage {k}: {len(nodes)} nodes, not {n} (C2)")
            if previous is not None and not (now <= previous or now >= previous):
                problems.append(f"application {a} stage {k}: nodes neither a subset nor a superset (C4)")
            previous = now
            spans.extend((t, t + d, h, a) for h in nodes)
    spans.sort(key=lambda x: (x[2], x[0]))
    for (_, e0, h0, a0), (b1, _, h1, a1) in pairwise(spans):
        if h0 == h1 and a0 != a1 and b1 < e0:
            problems.append(f"node {h0} serves applications {a0} and {a1} at once at {b1:g} (C3)")
    return problems


def evolving(job: Job) -> bool:
    """Whether the job describes an evolving application (``evolving`` stages); a job without
    them is one stage of its walltime, and runs itself (its own runtime, killed at its walltime)."""
    spec = job.fields.get("evolving") if job.fields else None
    return isinstance(spec, dict) and isinstance(spec.get("stages"), list) and bool(spec["stages"])


def stages_of(job: Job) -> tuple[Stage, ...]:
    """An application's requested EP from its job's ``evolving`` field (``{"stages": [[d, n],
    ...]}``); a job without it is one stage of its walltime on its hosts."""
    spec = job.fields.get("evolving") if job.fields else None
    if isinstance(spec, dict) and isinstance(spec.get("stages"), list) and spec["stages"]:
        try:
            return tuple((float(d), int(n)) for d, n in spec["stages"])
        except (TypeError, ValueError):
            raise ValueError(f"job {job.id}: 'evolving' stages must be [[seconds, nodes], ...]") from None
    if math.isfinite(job.walltime_s):
        return ((job.walltime_s, job.res),)
    raise ValueError(f"job {job.id}: neither 'evolving' stages nor a walltime")


# -- the online scheduler behind the ``evolving`` plugin --------------------------------------
@dataclass(frozen=True)
class EvolvingOptions(Options):
    variant: str = option(
        "nos", "fit (Klein & Pérez sec. 5.1): cbf, nos, mic, mic+c, inf, inf+c", choices=tuple(VARIANTS)
    )
    stretch_limit: float = option(
        0.0, "stretch limit l >= 1 (inf: none), overriding the variant's; 0: the variant's", low=0.0, infinite=True
    )
    compact: str = option(
        "variant", "compacting (sec. 4.3.3), overriding the variant's", choices=("variant", "yes", "no")
    )
    mapping: str = option(
        "random", "node ids of growing applications: random (seeded) or lowest free", choices=MAPPINGS
    )
    seed: int = option(0, "seed of the random node mapping")
    rigid: str = option(
        "refuse",
        "a workload without evolving applications: refuse it (generate evolving makes one), or keep: jobs "
        "without stages run rigid, themselves, for their own runtime (cbf needs no stages)",
        choices=("refuse", "keep"),
    )

    def needs(self) -> tuple[Need, ...]:
        """Evolving stages (or a walltime: a job without stages is one stage of its walltime);
        ``cbf`` sees every application as one rigid stage, and needs no stages."""
        cbf = self.variant == "cbf"
        need = Need(
            "evolving applications",
            "evolving",
            (),
            "adaptsched generate evolving OUT.json",
            "rigid=keep",
            "" if cbf else "jobs without stages run rigid, themselves, until they end or reach their walltime",
            required=self.rigid == "refuse" and not cbf,
        )
        return (need,)

    def check(self) -> None:
        if 0 < self.stretch_limit < 1:
            raise OptionError(
                f"option stretch_limit={self.stretch_limit:g}: must be 0 (the variant's) or at least 1",
                option="stretch_limit",
            )
        if self.variant == "cbf" and (self.stretch_limit or self.compact != "variant"):
            raise OptionError("options stretch_limit and compact do not apply to variant=cbf (rigid jobs)")

    def needs_dynamic_jobs(self) -> bool:
        return self.variant != "cbf"  # stages run as copies

    def planner(self, nb_hosts: int) -> Planner:
        return Planner(
            nb_hosts,
            self.variant,
            stretch_limit=self.stretch_limit or None,
            compact=None if self.compact == "variant" else self.compact == "yes",
        )


def arrival_key(job_id: str) -> tuple[str, int, str]:
    """Sort key of a job id ``WORKLOAD!ID``: by workload, then numerically if ID is a number."""
    workload, _, name = job_id.rpartition("!")
    return (workload, int(name), "") if name.isdigit() else (workload, -1, name)


@dataclass
class _App:
    job: Job
    plan: Scheduled
    nodes: list[tuple[int, ...]] = field(default_factory=list)
    step: int = 0  # next transition: 2k starts stage k, 2k+1 its hold (stretched stages), or the end
    copy: str | None = None  # the running copy (or the job itself under cbf)
    actions: list[tuple[float, str, int]] = field(default_factory=list)  # (time, "stage"/"hold"/"end", k)


class EvolvingScheduler(OnlineScheduler):
    """Klein & Pérez's Algorithm 2 online: each arrival is fitted from now into the plan of
    the applications before it (= Algorithm 2 when all arrive at 0), never revisited.

    At run time each stage k runs as a registered copy (kind ``stage``, runtime d_k, no
    walltime) on the nodes Algorithm 1 gives it; a stretched stage is followed by a copy of
    kind ``hold`` of d'_k - d_k seconds on the same nodes, which hold them without computing.
    The copies' metadata: parent_job, kind, stage (from 0), planned_s (the planned start). The
    original is rejected with its last launch. Under ``cbf`` the job runs itself.

    The transitions due at t wait for the completions due at t (that free their nodes), then
    are done all at once, ends and shrinks first; CALL_ME_LATER at the planned times that are
    no completion. An application that still cannot move after every event at t is an error.
    """

    name = "evolving"
    Options = EvolvingOptions
    options: EvolvingOptions

    def __init__(self, nb_hosts: int, **options: Any):
        super().__init__(nb_hosts, **options)
        self.planner = self.options.planner(nb_hosts)
        self.mapper = NodeMapper(nb_hosts, self.options.mapping, self.options.seed)
        self.apps: dict[str, _App] = {}
        self.due_ends: dict[str, float] = {}  # running copy -> its planned end
        self.wake_requested: set[float] = set()
        self.arrivals: list[Job] = []

    def on_submit(self, job: Job, now: float) -> None:
        self.queue.remove_all([job])
        self.arrivals.append(job)

    def admit(self, job: Job, now: float) -> None:
        """Fits an arrival from now into ep_r (Algorithm 2's step) and lists its transitions."""
        plan = self.planner.place(stages_of(job), now)
        app = self.apps[job.id] = _App(job, plan)
        for k, (t, (d, _)) in enumerate(zip(plan.starts(), plan.stages)):
            app.actions.append((t, "stage", k))
            requested = plan.stages[k][0] if self.options.variant == "cbf" else plan.requested[k][0]
            if d > requested:
                app.actions.append((t + requested, "hold", k))
        app.actions.append((plan.end_s, "end", len(plan.stages)))

    def idle(self) -> bool:
        return not self.apps and not self.running and not self.arrivals

    def complete(self, job_id: str, now: float, state: str = "COMPLETED_SUCCESSFULLY") -> None:
        """A copy (or, under cbf, a job) ended: its nodes stay with the application until
        Algorithm 1 moves them (no pool: :class:`NodeMapper` owns the nodes)."""
        running = self.running.pop(job_id, None)
        if running is not None:
            self.on_complete(running, now, state)

    def on_complete(self, running: Running, now: float, state: str) -> None:
        self.due_ends.pop(running.exec_id, None)
        app = self.apps.get(running.job.id)
        if app is not None and app.copy == running.exec_id:
            app.copy = None

    def _next(self, app: _App) -> tuple[float, str, int] | None:
        return app.actions[app.step] if app.step < len(app.actions) else None

    def plan(self, now: float) -> None:
        # Simultaneous arrivals in a fixed order (Batsim's messages may list them in any):
        # by submission time, then by id (numerically when numbers), as a workload lists them.
        self.arrivals.sort(key=lambda job: (job.submit_s, arrival_key(job.id)))
        for job in self.arrivals:
            self.admit(job, now)
        self.arrivals = []
        horizon = now + EPS_S
        # Wait while a copy due by now has not reported its completion (it frees nodes).
        if any(end <= horizon for end in self.due_ends.values()):
            return
        due: list[tuple[int, str, _App, float, str, int]] = []
        for app_id, app in self.apps.items():
            action = self._next(app)
            if action is not None and action[0] <= horizon:
                t, what, k = action
                shrink = what == "end" or (
                    what == "stage" and k > 0 and app.plan.stages[k][1] < app.plan.stages[k - 1][1]
                )
                due.append((0 if shrink or what == "hold" else 1, app_id, app, t, what, k))
        order = {app_id: i for i, app_id in enumerate(self.apps)}
        due.sort(key=lambda x: (x[0], order[x[1]]))
        for _, app_id, app, _t, what, k in due:
            self._transition(app_id, app, what, k, now)
        self._wake(now)

    def _transition(self, app_id: str, app: _App, what: str, k: int, now: float) -> None:
        job, plan = app.job, app.plan
        app.step += 1
        if what == "end":
            self.mapper.resize(app_id, 0)
            del self.apps[app_id]
            return
        n = plan.stages[k][1]
        last = k == len(plan.stages) - 1 and what == "stage"
        if what == "stage":
            hosts = self.mapper.resize(app_id, n)
            app.nodes.append(tuple(hosts))
            if self.options.variant == "cbf" or not evolving(job):  # one rigid stage: the job itself
                running = self.start(job, now, sorted(hosts))
                running.end_s = now + plan.stages[0][0]
                app.copy = job.id
                self.due_ends[job.id] = running.end_s
                return
            runtime_s = plan.requested[k][0]
            planned = plan.starts()[k]
        else:
            hosts = self.mapper.hosts(app_id)
            runtime_s = plan.stages[k][0] - plan.requested[k][0]
            planned = plan.starts()[k] + plan.requested[k][0]
        job.res, job.walltime_s = n, INF
        running = self.launch(
            job,
            now,
            kind=what,
            end_s=now + runtime_s,
            hosts=sorted(hosts),
            runtime_s=runtime_s,
            metadata={"stage": k, "planned_s": planned},
        )
        app.copy = running.exec_id
        self.due_ends[running.exec_id] = running.end_s
        if last:
            self.reject(job)

    def _wake(self, now: float) -> None:
        """CALL_ME_LATER at the next planned transition if no completion is due by then."""
        upcoming = [a[0] for app in self.apps.values() if (a := self._next(app)) is not None]
        if not upcoming:
            return
        first = min(upcoming)
        if first <= now + EPS_S:
            return  # due now: a completion at this instant is still to come
        if any(end <= first + EPS_S for end in self.due_ends.values()):
            return
        if first not in self.wake_requested:
            self.wake_requested.add(first)
            self.wake_up(first)
