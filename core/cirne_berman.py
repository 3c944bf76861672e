"""Cirne & Berman's size choice at submission, in SCOJO-P's common frame.

Barsanti & Sodan, "Adaptive Job Scheduling via Predictive Job Resource Allocation" (JSSPP
2006), sec. 3 and 5.2 (``../shared/seeds/000_29d07e17dbcfb843.txt``): the comparison's
Cirne-Berman scheduler takes, when a moldable job arrives, the size of earliest completion
in a what-if of the current state, in the same frame as the others
(:class:`adaptsched.core.scojo.PriorityEasy`: priorities by class, aging, EASY with exact
runtimes), not the original's conservative backfilling (sec. 5.2 says so). docs/scojo-p.md
gives the checks behind it and why ours does worse than the traditional frame on W1.

* :func:`easy_start_times`: the what-if, on host counts, every size of the job in one
  shared simulation;
* :class:`CirneBerman` (``cirne-berman``): the size choice, then the frame.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adaptsched.core.base import INF, Job
from adaptsched.core.options import option
from adaptsched.core.replay import replay
from adaptsched.core.scojo import PriorityEasy, ScojoOptions, rigid_shape


def shadow_of_pairs(free: int, ends: list[tuple[float, int]], need: int) -> tuple[float, int]:
    """:func:`adaptsched.core.easy.shadow_of` on (expected end, hosts) pairs sorted by end: the
    head's shadow time and the hosts free then beyond its ``need``."""
    available = free
    k = 0
    while k < len(ends):
        available += ends[k][1]
        if available >= need:
            shadow = ends[k][0]
            k += 1
            while k < len(ends) and ends[k][0] == shadow:  # jobs ending then also free hosts
                available += ends[k][1]
                k += 1
            return shadow, available - need
        k += 1
    return INF, 0


def easy_start_times(
    nb_hosts: int,
    now: float,
    ends: list[tuple[float, int]],
    waiting: list[tuple[float, int, float, int, float]],
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

    ``ends``: (expected end, hosts) of the running jobs; ``waiting``: (submission time,
    class, runtime(N_opt), size, runtime at that size) of each waiting job, in arrival order
    (the target's size and runtime are ignored).

    One simulation serves every size until the sizes' runs part: a waiting job changes nothing
    while it does not start and is not the head (its level, hence the order, does not depend on
    its size), so the sizes share the passes in which the target is a backfill candidate
    (each size that may start takes the pass's time) and part only in the pass where the target
    becomes the head: from the start of that pass each size left runs on alone.
    """
    ends = sorted(ends)
    free = nb_hosts - sum(res for _, res in ends)
    # a job's level changes only when it ages: the order is sorted again only then
    keys = [(klass + 1) << 32 | i for i, (_, klass, _, _, _) in enumerate(waiting)]
    aging = sorted(
        (submit + aging_factor * runtime_opt, i)
        for i, (submit, klass, runtime_opt, _, _) in enumerate(waiting)
        if klass > 0
    )

    def sort(order: list[int], t: float, aged: int, keys: list[int]) -> tuple[list[int], int]:
        while aged < len(aging) and aging[aged][0] <= t:
            i = aging[aged][1]
            keys[i] = (waiting[i][1] if aging_one_class else 0) << 32 | i
            aged += 1
        return sorted(order, key=keys.__getitem__), aged

    def simulate(
        t: float,
        free: int,
        ends: list[tuple[float, int]],
        order: list[int],
        aged: int,
        keys: list[int],
        sizes: dict[int, float],
    ) -> dict[int, float]:
        out: dict[int, float] = {}
        while True:
            at_start = (free, ends[:]) if len(sizes) > 1 else (free, ends)  # where sizes may part
            started = set()
            head, at, need = -1, -1, 0
            for k, i in enumerate(order):
                if i == target:
                    for n in [n for n in sizes if n <= free]:
                        out[n] = t
                        del sizes[n]
                    if not sizes:
                        return out
                    if len(sizes) > 1:  # the target is the head: each size runs on alone
                        for n, runtime in sizes.items():
                            out.update(simulate(t, at_start[0], at_start[1][:], order, aged, keys[:], {n: runtime}))
                        return out
                    head, at, need = i, k, next(iter(sizes))
                    break
                size = waiting[i][3]
                if size > free:
                    head, at, need = i, k, size
                    break
                free -= size
                bisect.insort(ends, (t + waiting[i][4], size))
                started.add(i)
            if head >= 0 and free > 0:
                shadow, extra = shadow_of_pairs(free, ends, need)
                for i in order[at + 1 :]:
                    if i == target:
                        for n in [n for n, rt in sizes.items() if n <= free and (t + rt <= shadow or n <= extra)]:
                            out[n] = t
                            del sizes[n]
                        if not sizes:
                            return out
                        continue
                    size = waiting[i][3]
                    if size > free:
                        continue
                    ends_by = t + waiting[i][4] <= shadow
                    if ends_by or size <= extra:
                        free -= size
                        bisect.insort(ends, (t + waiting[i][4], size))
                        started.add(i)
                        if not ends_by:
                            extra -= size
                        if free == 0:
                            break
            if started:
                order = [i for i in order if i not in started]
            if not ends:
                raise RuntimeError("what-if: the job never starts")  # cannot happen: it fits the machine
            t = ends[0][0]
            while ends and ends[0][0] == t:
                free += ends.pop(0)[1]
            if aged < len(aging) and aging[aged][0] <= t:
                order, aged = sort(order, t, aged, keys)

    order, aged = sort(list(range(len(waiting))), now, 0, keys)
    return simulate(now, free, ends, order, aged, keys, dict(runtimes))


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
        "in hosts idle at the decision (idle: ours, not in the paper; issue 24)",
        choices=("literal", "idle"),
    )


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

    ``expand=idle`` (ours, not in the paper; issue 24 sec. 2): a size above N_opt is a candidate
    only when the what-if starts the job on it at once, i.e. its extra hosts are idle at the
    decision and no job ahead needs them; otherwise sizes up to N_opt compete as in the
    paper's rule. The paper's PWS remark (sec. 4.6: "no larger size should be chosen unless
    otherwise resources are idle") motivates it; its Cirne-Berman does not do it.
    """

    name = "cirne-berman"
    Options = CirneBermanOptions
    options: CirneBermanOptions

    def __init__(self, nb_hosts: int, **options: Any):
        super().__init__(nb_hosts, **options)
        self.unsized: list[Job] = []
        self.whatif_runs = 0
        # expansions beyond N_opt, and those whose simulated start is the same as at N_opt
        # (the job gains runtime at no cost in waiting: in a backlog most are of this kind)
        self.expansions = 0
        self.free_expansions = 0

    def on_submit(self, job: Job, now: float) -> None:
        super().on_submit(job, now)
        if not self.shapes[job.id].rigid:
            self.unsized.append(job)

    def what_if_state(
        self, job: Job, now: float
    ) -> tuple[list[tuple[float, int]], list[tuple[float, int, float, int, float]]]:
        """The what-if's start: running jobs' (expected end, hosts) and the waiting jobs' rows of
        :func:`easy_start_times` up to ``job`` (the last row; later arrivals are not sized yet)."""
        waiting = []
        for other in self.queue.jobs:
            if other.id == job.id:
                break
            shape = self.shapes[other.id]
            m = self.size_of(other)
            waiting.append((other.submit_s, shape.klass, shape.runtime_opt_s, m, shape.runtime(m)))
        shape = self.shapes[job.id]
        waiting.append((job.submit_s, shape.klass, shape.runtime_opt_s, shape.n_opt, shape.runtime(shape.n_opt)))
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
        del values["whatif"], values["expand"]
        sim = PriorityEasy(self.nb_hosts, **values)
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
        shape = self.shapes[job.id]
        starts: Mapping[int, float] | None = None

        def start_of(n: int) -> float:
            nonlocal starts
            self.whatif_runs += 1
            if self.options.whatif == "replay":
                return self.what_if_replay(job, n, now)
            if starts is None:
                starts = self.what_if_starts(job, now)
            return starts[n]

        idle_only = self.options.expand == "idle"
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
