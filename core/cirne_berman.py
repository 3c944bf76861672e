"""Cirne & Berman's size choice at submission, in SCOJO-P's common frame.

Barsanti & Sodan, "Adaptive Job Scheduling via Predictive Job Resource Allocation" (JSSPP
2006, LNCS 4376), sec. 3 and 5.2: the comparison's
Cirne-Berman scheduler takes, when a moldable job arrives, the size of earliest completion
in a what-if of the current state, in the same frame as the others
(:class:`adaptsched.core.scojo.PriorityEasy`: priorities by class, aging, EASY with exact
runtimes), not the original's conservative backfilling (sec. 5.2 says so). docs/scojo-p.md
gives the checks behind it and why ours does worse than the traditional frame on W1.

* :func:`easy_start_times`: the what-if, on host counts, every size of the job in one
  shared simulation (:class:`WhatIf`, passes over a :class:`State`, EASY's rule from
  :mod:`adaptsched.core.easy`);
* :class:`CirneBerman` (``cirne-berman``): the size choice, then the frame.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from mypy_extensions import mypyc_attr

from adaptsched.core import options as opt
from adaptsched.core.base import RUNS_SPEEDUP_MODEL, Job, Running
from adaptsched.core.easy import Window, backfill, shadow_of
from adaptsched.core.needs import Need
from adaptsched.core.options import option
from adaptsched.core.replay import replay
from adaptsched.core.scojo import RIGID, RIGID_HELP, PriorityEasy, ScojoOptions, aged_level, moldable_need, rigid_shape
from adaptsched.core.units import INF


class Waiting(NamedTuple):
    """A waiting job as the what-if sees it (:meth:`CirneBerman.what_if_state`)."""

    submit_s: float
    klass: int  # 0 short, 1 medium, 2 long (:func:`adaptsched.core.scojo.job_class`)
    runtime_opt_s: float  # runtime(N_opt), which sets its class and when it ages
    size: int  # the size it starts on
    runtime_s: float  # its runtime at that size


class Levels:
    """The waiting jobs' order in the frame, (level, arrival) as :meth:`PriorityEasy.level`
    gives it: a job's level changes only when it ages, so the order is sorted again only then."""

    __slots__ = ("aged", "aging", "key", "next_s", "one_class", "waiting")

    def __init__(
        self,
        key: list[tuple[int, int]],
        aging: list[tuple[float, int]],
        waiting: list[Waiting],
        one_class: bool,
        aged: int = 0,
    ):
        self.key = key  # job -> (level, arrival)
        self.aging = aging  # (when, job): every medium and long job ages once
        self.aged = aged  # the jobs aged so far: aging[:aged]
        self.next_s = aging[aged][0] if aged < len(aging) else INF  # when the next one ages (INF: none)
        self.waiting = waiting
        self.one_class = one_class

    @classmethod
    def of(cls, waiting: list[Waiting], aging_factor: float, one_class: bool) -> Levels:
        """The order of ``waiting`` before any of them has aged."""
        key = [(w.klass + 1, i) for i, w in enumerate(waiting)]
        aging = sorted((w.submit_s + aging_factor * w.runtime_opt_s, i) for i, w in enumerate(waiting) if w.klass > 0)
        return cls(key, aging, waiting, one_class)

    def sort(self, order: list[int], t: float) -> list[int]:
        """``order`` in the frame's order at ``t``, the jobs aged by then at their new level."""
        while self.aged < len(self.aging) and self.aging[self.aged][0] <= t:
            i = self.aging[self.aged][1]
            self.key[i] = (aged_level(self.waiting[i].klass, self.one_class), i)
            self.aged += 1
            self.next_s = self.aging[self.aged][0] if self.aged < len(self.aging) else INF
        return sorted(order, key=self.key.__getitem__)

    def copy(self) -> Levels:
        return Levels(self.key[:], self.aging, self.waiting, self.one_class, self.aged)


@dataclass(slots=True)
class State:
    """Where a what-if stands at the start of a pass: time, free hosts, the running jobs'
    (expected end, hosts) in order of end, the waiting jobs in the frame's order."""

    t: float
    free: int
    ends: list[tuple[float, int]]
    order: list[int]
    levels: Levels

    def start(self, job: Waiting) -> None:
        self.free -= job.size
        bisect.insort(self.ends, (self.t + job.runtime_s, job.size))

    def next_pass(self, started: set[int]) -> None:
        """To the next expected end: the jobs started leave the queue, the ends then free
        their hosts, the order is sorted again if a job ages by then."""
        if started:
            self.order = [i for i in self.order if i not in started]
        if not self.ends:
            raise RuntimeError("what-if: the job never starts")  # cannot happen: it fits the machine
        t = self.t = self.ends[0][0]
        while self.ends and self.ends[0][0] == t:
            self.free += self.ends.pop(0)[1]
        if self.levels.next_s <= t:
            self.order = self.levels.sort(self.order, t)


class WhatIf:
    """The traditional frame (:class:`PriorityEasy`) on host counts, from a :class:`State` on,
    until the waiting job number ``target`` starts on each of its sizes (size: runtime)."""

    __slots__ = ("runtime", "size", "starts", "target", "waiting")

    def __init__(self, waiting: list[Waiting], target: int):
        self.waiting = waiting
        self.size = [job.size for job in waiting]
        self.runtime = [job.runtime_s for job in waiting]
        self.target = target
        self.starts: dict[int, float] = {}  # size -> its start

    def run(self, state: State, sizes: dict[int, float]) -> dict[int, float]:
        """Passes until every size has started (``sizes`` empties); at the pass where the
        target becomes the head with several sizes left, each goes on alone from that pass."""
        while True:
            at_start = (state.free, state.ends[:]) if len(sizes) > 1 else None  # where sizes may part
            started: set[int] = set()
            head = self.start_in_order(state, sizes, started)
            if not sizes:
                return self.starts
            if head is None:  # the target is the head on several sizes: each runs on alone
                assert at_start is not None
                free, ends = at_start
                for n, runtime in sizes.items():
                    self.run(State(state.t, free, ends[:], state.order, state.levels.copy()), {n: runtime})
                return self.starts
            if state.free > 0:
                self.backfill(state, *head, sizes, started)
                if not sizes:
                    return self.starts
            state.next_pass(started)

    def start_in_order(self, state: State, sizes: dict[int, float], started: set[int]) -> tuple[int, int] | None:
        """Starts the jobs in order while they fit; (position, need) of the head, the first
        that does not (the target on its one size left), or None if the target is reached
        with several sizes left. The sizes of the target that fit start now."""
        target, size = self.target, self.size
        for k, i in enumerate(state.order):
            if i == target:
                self.start_target(state.t, sizes, [n for n in sizes if n <= state.free])
                return (k, next(iter(sizes))) if len(sizes) == 1 else None
            if size[i] > state.free:
                return k, size[i]
            state.start(self.waiting[i])
            started.add(i)
        raise RuntimeError("what-if: the target is not waiting")  # cannot happen: it is in the order

    def start_target(self, t: float, sizes: dict[int, float], chosen: list[int]) -> None:
        """The ``chosen`` sizes of the target start at ``t``: out of the simulation (each
        size's start is all it is run for)."""
        for n in chosen:
            self.starts[n] = t
            del sizes[n]

    def backfill(self, state: State, at: int, need: int, sizes: dict[int, float], started: set[int]) -> None:
        """EASY's backfilling behind the head (position ``at``, ``need`` hosts): the other jobs
        by :func:`adaptsched.core.easy.backfill`, the target's sizes by the same rule at the
        target's place in the order (an admitted size starts now and takes no host from the
        others: it is out of the simulation)."""
        order, t, runtime = state.order, state.t, self.runtime.__getitem__
        window = Window(state.free, *shadow_of(state.free, state.ends, need))
        k = order.index(self.target, at)  # at: the target is the head
        jobs = backfill(window, t, self.candidates(order[at + 1 : k if k > at else None]), runtime)
        if k > at:
            self.start_target(t, sizes, backfill(window, t, zip(sizes, sizes), sizes.__getitem__, take=False))
            if sizes and window.free:
                jobs += backfill(window, t, self.candidates(order[k + 1 :]), runtime)
        for i in jobs:  # the pass's other decisions do not depend on these: applied after
            state.start(self.waiting[i])
        started.update(jobs)

    def candidates(self, jobs: list[int]) -> Iterator[tuple[int, int]]:
        """(job, its size) of each of ``jobs``."""
        return zip(jobs, map(self.size.__getitem__, jobs))


def easy_start_times(
    nb_hosts: int,
    now: float,
    ends: list[tuple[float, int]],
    waiting: list[Waiting],
    target: int,
    runtimes: dict[int, float],
    *,
    aging_factor: float = 5.0,
    aging_one_class: bool = False,
) -> dict[int, float]:
    """When waiting job number ``target`` starts on each size of ``runtimes`` (size: runtime)
    in the traditional frame (:class:`PriorityEasy`) from now on, with no more arrivals: the
    same decisions as replaying the frame once per size, on host counts alone (which hosts a
    job gets changes no start time).

    ``ends``: (expected end, hosts) of the running jobs; ``waiting``: each waiting job, in
    arrival order (the target's size and runtime are ignored).

    One simulation serves every size until the sizes' runs part: a waiting job changes nothing
    while it does not start and is not the head (its level, hence the order, does not depend on
    its size), so the sizes share the passes in which the target is a backfill candidate
    (each size that may start takes the pass's time) and part only in the pass where the target
    becomes the head: from the start of that pass each size left runs on alone.
    """
    ends = sorted(ends)
    levels = Levels.of(waiting, aging_factor, aging_one_class)
    state = State(
        now, nb_hosts - sum(res for _, res in ends), ends, levels.sort(list(range(len(waiting))), now), levels
    )
    return WhatIf(waiting, target).run(state, dict(runtimes))


@dataclass(frozen=True)
class CirneBermanOptions(ScojoOptions):
    whatif: str = option(
        "counts",
        "what-if simulations on host counts (fast), or full replays of the frame (the reference; same sizes)",
        choices=("counts", "replay"),
    )
    expand: str = option(
        "literal",
        "sizes above N_opt: any (literal, the paper's rule) or only when the job starts at once on them, "
        "in hosts idle at the decision (idle: ours, not in the paper)",
        choices=("literal", "idle"),
    )
    rigid: str = option("refuse", RIGID_HELP, choices=RIGID)

    def needs(self) -> tuple[Need, ...]:
        return moldable_need(self.rigid)


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class CirneBerman(PriorityEasy):
    """Cirne & Berman's size choice at submission (sec. 3, 5.2), in the common frame.

    When a moldable job arrives (at the scheduler's next decision, in arrival order, so that
    simultaneous completions are known), for each size n in [N_min, N_max] an in-process
    what-if of the traditional frame runs from the current state: the running jobs until their
    expected ends, the waiting jobs at the sizes chosen for them, the new job at n, no future
    arrivals, until the new job starts. The size of earliest completion (start + rt(n); ties:
    the smaller n) is kept, and the job is rigid at it from then on. The what-ifs run on host
    counts, every size in one shared simulation (:func:`easy_start_times`); ``whatif=replay``
    replays the frame itself once per size (:func:`adaptsched.core.replay.replay`), the
    reference they are tested against.

    ``expand=idle`` (ours, not in the paper; docs/scojo-p.md): a size above N_opt is a candidate
    only when the what-if starts the job on it at once, i.e. its extra hosts are idle at the
    decision and no job ahead needs them; otherwise sizes up to N_opt compete as in the
    paper's rule. The paper's PWS remark (sec. 4.6: "no larger size should be chosen unless
    otherwise resources are idle") motivates it; its Cirne-Berman does not do it.
    """

    name = "cirne-berman"
    summary = "Cirne & Berman: each moldable job's size chosen at submission by what-if simulations"
    copy_kinds = {"molded": RUNS_SPEEDUP_MODEL}
    Options = CirneBermanOptions

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        super().__init__(nb_hosts, options, **values)
        self.unsized: list[Job] = []
        self.whatif_runs = 0
        # expansions beyond N_opt, and those whose simulated start is the same as at N_opt
        # (the job gains runtime at no cost in waiting: in a backlog most are of this kind)
        self.expansions = 0
        self.free_expansions = 0
        self.rows: dict[str, Waiting] = {}  # waiting job id -> its what-if row at its size

    def on_submit(self, job: Job, now: float) -> None:
        super().on_submit(job, now)
        if not self.shapes[job.id].rigid:
            self.unsized.append(job)

    def begin(self, job: Job, now: float, n: int) -> Running:
        self.rows.pop(job.id, None)
        return super().begin(job, now, n)

    def row(self, job: Job) -> Waiting:
        """A waiting job as the what-if sees it, at the size it starts on. Kept while that size
        holds: every what-if until the job starts reads it (its runtime there is a model's)."""
        m = self.size_of(job)
        row = self.rows.get(job.id)
        if row is None or row.size != m:
            shape = self.shapes[job.id]
            row = self.rows[job.id] = Waiting(job.submit_s, shape.klass, shape.runtime_opt_s, m, shape.runtime(m))
        return row

    def what_if_state(self, job: Job, now: float) -> tuple[list[tuple[float, int]], list[Waiting]]:
        """The what-if's start: running jobs' (expected end, hosts) and the waiting jobs of
        :func:`easy_start_times` up to ``job`` (the last one; later arrivals are not sized yet)."""
        waiting = []
        for other in self.queue.jobs:
            if other.id == job.id:
                break
            waiting.append(self.row(other))
        shape = self.shapes[job.id]
        waiting.append(Waiting(job.submit_s, shape.klass, shape.runtime_opt_s, shape.n_opt, shape.runtime(shape.n_opt)))
        return [(r.end_s, r.res) for r in self.by_end], waiting

    def what_if_starts(self, job: Job, now: float) -> Mapping[int, float]:
        """When ``job`` would start on each of its sizes in the traditional frame, from now on
        (one shared simulation, :func:`easy_start_times`)."""
        ends, waiting = self.what_if_state(job, now)
        shape = self.shapes[job.id]
        return easy_start_times(
            self.nb_hosts,
            now,
            ends,
            waiting,
            len(waiting) - 1,
            {n: shape.runtime(n) for n in range(shape.n_min, shape.n_max + 1)},
            aging_factor=self.aging_factor,
            aging_one_class=self.aging_one_class,
        )

    def what_if_replay(self, job: Job, n: int, now: float) -> float:
        """:meth:`what_if_starts` for one size, by replaying the frame itself (:func:`replay`)."""
        values = self.options.values()
        del values["whatif"], values["rigid"], values["expand"]
        sim = PriorityEasy(self.nb_hosts, PriorityEasy.Options.parse(values))
        running = [
            (Job(r.exec_id, r.job.submit_s, r.res, r.end_s - r.start_s), r.start_s, r.end_s, r.hosts)
            for r in self.running.values()
        ]
        waiting = []
        for other in self.queue.jobs:
            if other.id == job.id:
                break  # later arrivals are not sized yet
            shape = self.shapes[other.id]
            m = self.size_of(other)
            runtime = shape.runtime(m)
            sim.shapes[other.id] = rigid_shape(shape.runtime_opt_s, m, runtime)
            waiting.append((Job(other.id, other.submit_s, m, runtime), runtime))
        shape = self.shapes[job.id]
        runtime = shape.runtime(n)
        sim.shapes[job.id] = rigid_shape(shape.runtime_opt_s, n, runtime)
        waiting.append((Job(job.id, job.submit_s, n, runtime), runtime))
        out = replay(sim, [], running=running, waiting=waiting, start_s=now, stop_when_started=job.id)
        start = out[job.id].start_s
        assert start is not None
        return start

    def choose_size(self, job: Job, now: float) -> int:
        """The size of earliest simulated completion (ties: the smaller). Sizes are tried from
        N_max down: runtime(n) does not decrease as n does (both models' speedups rise up to
        N_max), so once now + runtime(n) exceeds the best completion no smaller size can win.
        (With the efficiency interpolated the speedup falls a little near N_max: runtime(n),
        from N_max down, falls then rises, and the first size past the best that ends too late
        still has every smaller one end later.)
        ``whatif_runs`` counts the sizes tried (one replay each with ``whatif=replay``; one
        shared simulation serves them all with ``whatif=counts``). ``expand=idle``: a size above
        N_opt counts only if it starts now (class doc)."""
        o = opt.narrow(self.options, CirneBermanOptions)
        shape = self.shapes[job.id]
        starts: Mapping[int, float] | None = None

        def start_of(n: int) -> float:
            nonlocal starts
            self.whatif_runs += 1
            if o.whatif == "replay":
                return self.what_if_replay(job, n, now)
            if starts is None:
                starts = self.what_if_starts(job, now)
            return starts[n]

        idle_only = o.expand == "idle"
        best_n, best_end, best_start = shape.n_opt, INF, INF
        start_opt: float | None = None  # the simulated start on N_opt, if tried
        for n in range(shape.n_max, shape.n_min - 1, -1):
            runtime = shape.runtime(n)
            if now + runtime > best_end:
                break
            start = start_of(n)
            if n == shape.n_opt:
                start_opt = start
            if n > shape.n_opt and idle_only and start > now:
                continue  # expand=idle: more hosts than N_opt only if idle now
            if start + runtime <= best_end:
                best_n, best_end, best_start = n, start + runtime, start
        if best_n > shape.n_opt:
            self.expansions += 1
            if start_opt is None:  # not tried (it would end too late): a diagnostic, not counted
                start_opt = start_of(shape.n_opt)
                self.whatif_runs -= 1
            if start_opt == best_start:
                self.free_expansions += 1
        return best_n

    def plan(self, now: float) -> None:
        for job in self.unsized:
            self.fixed[job.id] = self.choose_size(job, now)
        self.unsized = []
        super().plan(now)
