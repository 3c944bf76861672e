"""Evolution profiles (Klein & Pérez, sec. 3.1): :class:`EP` and the scheduled application.

C. Klein, C. Pérez, "Scheduling Rigid, Evolving Applications on Homogeneous Resources",
INRIA Research Report RR-7205, 2010.

An EP is a sequence of stages (d_i, n_i), d_i seconds on n_i nodes, one after the other from
time 0; its helpers ep(t), max, loc, delay, +, chps work on **half-open** intervals [t0, t1)
(the paper's "max = 0 if t0 = t1" needs them). :class:`Scheduled` is an application placed by
the planner: its start, its stretched stages and its request.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from adaptsched.core.units import INF

Stage = tuple[float, int]  # (duration in seconds, nodes)


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
        stretched: float = sum(d for d, _ in self.stages)  # typed: mypyc miscompiles a sum minus a sum
        requested: float = sum(d for d, _ in self.requested)
        return stretched - requested

    def starts(self) -> list[float]:
        """Start time of each scheduled stage."""
        out, t = [], self.start_s
        for d, _ in self.stages:
            out.append(t)
            t += d
        return out
