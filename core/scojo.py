"""SCOJO-P, Cirne-Berman and traditional scheduling under one frame.

Barsanti & Sodan, "Adaptive Job Scheduling via Predictive Job Resource Allocation" (JSSPP
2006), LNCS 4376; docs/scojo-p.md gives the readings taken where
the paper is vague or garbled (each is marked "reading" below, most are options).

Common frame (:class:`PriorityEasy`, sec. 4.1 and 5.2; the ``scojo-trad`` scheduler):

* a job's class is set by its runtime at its optimum size N_opt: short < 60 s <= medium
  < 3600 s <= long;
* queue order: aged jobs, then short, medium, long, first come first served within each;
* aging: a medium or long job that has waited 5 runtime(N_opt) (``aging_factor``) goes to the
  top level (``aging=top``; reading: "their priority is increased" is vague, and only the top
  level prevents starvation by a stream of short jobs) or up one class (``aging=one-class``);
* EASY backfilling with the runtimes known exactly (sec. 5.2): the first job in priority
  order that does not fit holds a reservation (its shadow time), the others may start if they
  fit and end by then or use only the hosts it will not need. Priorities move reservations
  (a short arrival overtakes the head), so reservations are not recorded.

Jobs: a ``moldable`` job of model ``scojo-p`` has N_opt = ``n_opt``, sizes N_min to N_max and
runtime(n) from :class:`adaptsched.core.speedup.ScojoP`; one of model ``downey`` (Fig. 14) has
N_opt = its processor working set (:func:`adaptsched.core.allocation.pws_size`), N_min = 1,
N_max = min(machine, the smallest size reaching S = A). The scheduler knows a moldable job's
runtime at every size exactly (the model's, sec. 5.2 assumes exact runtimes); a rigid job's
runtime is its ``estimate_s`` (``adaptsched estimates``) if it has one, else its walltime. A
job started on another size than its request runs as a molded copy
(:meth:`OnlineScheduler.start_sized`).

Schedulers:

* :class:`PriorityEasy` (``scojo-trad``): every job rigid at N_opt;
* :class:`ScojoP` (``scojo-p``, sec. 4.2-4.4): Fig. 1's target size from the load over the
  job's runtime, Fig. 3's choice between starting smaller now and waiting, Fig. 4's uniform
  resizing of the backfilled jobs (:meth:`ScojoP.plan` says how each figure is read);
* Cirne-Berman (``cirne-berman``, sec. 3 and 5.2) is in :mod:`adaptsched.core.cirne_berman`:
  each moldable job's size chosen at its arrival by what-if simulations of this frame.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from mypy_extensions import mypyc_attr

from adaptsched.core import options as opt
from adaptsched.core.allocation import pws_size
from adaptsched.core.base import RUNS_SPEEDUP_MODEL, Job, ReservingScheduler, Running
from adaptsched.core.easy import Window, backfill, expected_ends, shadow_of
from adaptsched.core.needs import Need, walltimes
from adaptsched.core.options import OptionError, Options, option
from adaptsched.core.speedup import Downey, SpeedupModel
from adaptsched.core.speedup import ScojoP as ScojoPModel
from adaptsched.core.units import DAY_S, INF

SHORT_S, LONG_S = 60.0, 3600.0
CLASSES = ("short", "medium", "long")
BUCKET_S = 1800.0
NB_BUCKETS = 48
AGINGS = ("top", "one-class")


def job_class(runtime_opt_s: float) -> int:
    """0 short (< 60 s), 1 medium (< 1 h), 2 long, by the runtime at N_opt (Table 1)."""
    return 0 if runtime_opt_s < SHORT_S else 1 if runtime_opt_s < LONG_S else 2


def aged_level(klass: int, one_class: bool) -> int:
    """The priority level of an aged medium or long job (``klass`` 1 or 2): the top level 0, or
    one up from its class's level klass + 1 (``aging=one-class``)."""
    return klass if one_class else 0


def half_up(x: float) -> int:
    """x rounded half up (Python's round() rounds halves to even)."""
    return math.floor(x + 0.5)


@dataclass
class Shape:
    """What the scheduler knows of a job's sizes: N_opt, [N_min, N_max], runtime(n)."""

    n_opt: int
    n_min: int
    n_max: int
    runtime_opt_s: float
    model: SpeedupModel | None = None  # None: rigid, runtime_opt_s at n_opt (or run_s)
    run_s: float | None = None  # a rigid job's runtime when not runtime_opt_s (fixed elsewhere)
    klass: int = 0

    def __post_init__(self) -> None:
        self.klass = job_class(self.runtime_opt_s)

    @property
    def rigid(self) -> bool:
        return self.model is None or self.n_min == self.n_max

    def runtime(self, n: float) -> float:
        """Seconds on ``n`` hosts (a rigid job: its runtime, whatever n). A moldable job's is
        rounded to the microsecond, Batsim's precision: then molded runs keep both engines'
        clocks together (unrounded, they drift a microsecond apart within a day)."""
        if self.model is None:
            return self.runtime_opt_s if self.run_s is None else self.run_s
        return round(self.model.runtime(n), 6)


def shape_of(job: Job, nb_hosts: int) -> Shape:
    """The job's shape from its ``moldable`` annotation (module doc); rigid otherwise."""
    spec = job.fields.get("moldable") if job.fields else None
    if isinstance(spec, dict) and spec.get("model") == "scojo-p":
        model = ScojoPModel.from_spec(spec, nb_hosts)
        return Shape(model.n_opt, model.n_min, model.n_max, model.runtime(model.n_opt), model)
    if isinstance(spec, dict) and spec.get("model") == "downey":
        downey = Downey(spec["A"], spec["sigma"], spec.get("t1_s", 1.0))
        n_opt = pws_size(downey, nb_hosts)
        n_max = max(n_opt, min(nb_hosts, downey.n_max_useful))
        return Shape(n_opt, 1, n_max, downey.runtime(n_opt), downey)
    estimate = job.fields.get("estimate_s") if job.fields else None
    if isinstance(estimate, (int, float)) and estimate > 0:  # ``adaptsched estimates``
        return Shape(job.res, job.res, job.res, float(estimate))
    return Shape(job.res, job.res, job.res, job.walltime_s)


#: A workload without moldable jobs: refused, or kept (every job rigid).
RIGID = ("refuse", "keep")
RIGID_HELP = (
    "a workload without moldable jobs: refuse it (mold-annotate prepares one), or keep: every job runs rigid, "
    "on its request for its runtime"
)


def moldable_need(rigid: str) -> tuple[Need, ...]:
    """What SCOJO-P and Cirne-Berman need: moldable jobs of a model the frame reads (module doc),
    and a walltime on every job (the frame plans a rigid job with it)."""
    need = Need(
        "moldable jobs",
        "moldable",
        ("scojo-p", "downey"),
        "adaptsched mold-annotate IN.json OUT.json --model scojo-p",
        "rigid=keep",
        "rigid jobs keep their request and their runtime",
        required=rigid == "refuse",
    )
    return need, walltimes("Barsanti & Sodan's frame")


def rigid_shape(runtime_opt_s: float, n: int, runtime_s: float) -> Shape:
    """A job fixed at ``n`` hosts for ``runtime_s``, of the class of ``runtime_opt_s``."""
    return Shape(n, n, n, runtime_opt_s, run_s=runtime_s)


@dataclass(frozen=True)
class ScojoOptions(Options):
    """Options of the common frame (every scheduler of this module)."""

    aging: str = option("top", "aged medium/long jobs go to the top level, or up one class", choices=AGINGS)
    aging_factor: float = option(5.0, "a job is aged after waiting this many times its runtime(N_opt)", low=0.0)

    def needs_dynamic_jobs(self) -> bool:
        return True  # jobs started on another size than their request run as copies

    def needs(self) -> tuple[Need, ...]:
        return (walltimes("Barsanti & Sodan's frame"),)


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class PriorityEasy(ReservingScheduler):
    """The common frame (module doc); as a scheduler, traditional: rigid at N_opt."""

    name = "scojo-trad"
    summary = "Barsanti & Sodan's traditional scheduler: short/medium/long priorities, aging, EASY, rigid at N_opt"
    copy_kinds = {"molded": RUNS_SPEEDUP_MODEL}
    Options = ScojoOptions

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        super().__init__(nb_hosts, options, **values)
        o = opt.narrow(self.options, ScojoOptions)
        self.aging_factor = o.aging_factor
        self.aging_one_class = o.aging == "one-class"
        self.shapes: dict[str, Shape] = {}  # waiting job id -> its shape (preset by what-ifs)
        self.fixed: dict[str, int] = {}  # job id -> the size it is rigid at, when not N_opt
        self.arrival: dict[str, int] = {}  # job id -> arrival number
        self._arrivals = 0
        self.resized = {"shrunk": [0, 0, 0], "expanded": [0, 0, 0], "kept": [0, 0, 0]}  # by class

    # -- jobs ---------------------------------------------------------------------------
    def on_submit(self, job: Job, now: float) -> None:
        if job.id not in self.shapes:
            self.shapes[job.id] = shape_of(job, self.nb_hosts)
        self._arrivals += 1
        self.arrival[job.id] = self._arrivals

    def size_of(self, job: Job) -> int:
        """The size a rigid-at-its-size job starts on."""
        return self.fixed.get(job.id, self.shapes[job.id].n_opt)

    def level(self, job: Job, now: float) -> int:
        """0 aged, 1 short, 2 medium, 3 long (``aging=one-class``: an aged job one up)."""
        shape = self.shapes[job.id]
        level = shape.klass + 1
        if level > 1 and now - job.submit_s >= self.aging_factor * shape.runtime_opt_s:
            return aged_level(shape.klass, self.aging_one_class)
        return level

    def priority_order(self, now: float) -> list[Job]:
        return sorted(self.queue.jobs, key=lambda j: (self.level(j, now), self.arrival[j.id]))

    def runtime_of(self, job: Job) -> float:
        """A rigid-at-its-size job's runtime at that size."""
        return self.shapes[job.id].runtime(self.size_of(job))

    def begin(self, job: Job, now: float, n: int) -> Running:
        """Starts ``job`` on ``n`` hosts, expected to end after its runtime there."""
        shape = self.shapes.pop(job.id)
        self.fixed.pop(job.id, None)
        if n == job.res or shape.model is None:
            running = self.start(job, now)
        else:
            running = self.start_sized(job, now, n, shape.model, runtime_s=shape.runtime(n))
        end_s = now + shape.runtime(n)
        if running.end_s != end_s:
            self.by_end.remove(running)
            running.end_s = end_s
            self.by_end.add(running)
        if not shape.rigid:
            key = "shrunk" if n < shape.n_opt else "expanded" if n > shape.n_opt else "kept"
            self.resized[key][shape.klass] += 1
        return running

    # -- planning -----------------------------------------------------------------------
    def plan(self, now: float) -> None:
        """Priority order; jobs start while they fit; the first that does not holds the
        shadow reservation and the others are backfilled by EASY's rule."""
        if not len(self.queue):
            return
        order = self.priority_order(now)
        started = []
        head = None
        for job in order:
            n = self.size_of(job)
            if n > self.pool.nb_free:
                head = job
                break
            self.begin(job, now, n)
            started.append(job)
        free = self.pool.nb_free
        if head is not None and free > 0:
            window = Window(free, *shadow_of(free, expected_ends(self.by_end), self.size_of(head)))
            rest = order[len(started) + 1 :]
            for job in backfill(window, now, zip(rest, map(self.size_of, rest)), self.runtime_of):
                self.begin(job, now, self.size_of(job))
                started.append(job)
        self.queue.remove_all(started)


# -- SCOJO-P's prediction of future arrivals (sec. 4.2, 5.2) ------------------------------
class ArrivalModel:
    """Expected arrivals per class and half hour of the day, mean N_opt and runtime(N_opt)
    per class, and the runtime ratio of a job resized by s (``adaptsched scojo-stats``).

    ``arrivals(c, now, T)`` is the expected number of class-c arrivals in [now, now + T]: each
    bucket's daily mean spread evenly over its half hour, cyclic over days (``whole``: every
    bucket that [now, now + T] touches counts whole, the literal reading of Fig. 1's "for all
    time_intervals that current_target_runtime_Js spans"). Built from a stats file, or learnt
    online from the arrivals seen so far (counts / elapsed days, at least one day).
    """

    def __init__(
        self,
        per_bucket: list[list[float]] | None = None,
        mean_n_opt: list[float] | None = None,
        mean_runtime_opt_s: list[float] | None = None,
        *,
        ratio_model: SpeedupModel | None = None,
        ratio_n: float = 64.0,
        moldable_fraction: float = 1.0,
        whole_buckets: bool = False,
    ):
        self.online = per_bucket is None
        self.per_bucket = per_bucket or [[0.0] * NB_BUCKETS for _ in CLASSES]
        self.mean_n_opt = mean_n_opt or [0.0] * len(CLASSES)
        self.mean_runtime_opt_s = mean_runtime_opt_s or [0.0] * len(CLASSES)
        self.ratio_model: SpeedupModel = ratio_model or ScojoPModel(1.0, 64, 128)
        self.ratio_n = ratio_n
        self.moldable_fraction = moldable_fraction
        self.whole_buckets = whole_buckets
        self._cumulative: list[list[float]] | None = None
        # online learning
        self._first_s: float | None = None
        self._last_s = 0.0
        self._counts = [[0] * NB_BUCKETS for _ in CLASSES]
        self._sums = [[0, 0.0, 0.0] for _ in CLASSES]  # count, sum N_opt, sum runtime(N_opt)

    @classmethod
    def from_json(
        cls, stats: dict[str, Any], nb_hosts: int, moldable_fraction: float | None = None, whole_buckets: bool = False
    ) -> ArrivalModel:
        """The model of a stats file (``moldable_fraction``: the file's, or 1, unless given)."""
        try:
            per_bucket = [[float(x) for x in stats["arrivals_per_day"][c]] for c in CLASSES]
            mean_n = [float(stats["mean_n_opt"][c]) for c in CLASSES]
            mean_rt = [float(stats["mean_runtime_opt_s"][c]) for c in CLASSES]
        except (KeyError, TypeError, ValueError) as bad:
            raise ValueError(f"not a scojo-stats file: {bad!r}") from None
        if any(len(row) != NB_BUCKETS for row in per_bucket):
            raise ValueError(f"arrivals_per_day needs {NB_BUCKETS} buckets per class")
        ratio = stats.get("ratio_model") or {"model": "scojo-p"}
        model: SpeedupModel
        ratio_n = 64.0
        if ratio.get("model") == "downey":
            model = Downey(float(ratio["A"]), float(ratio["sigma"]))
            ratio_n = float(pws_size(model, nb_hosts))
        else:
            model = ScojoPModel.from_spec({**ratio, "runtime_opt_s": 1.0, "n_opt": 64}, 128)
        if moldable_fraction is None:
            moldable_fraction = float(stats.get("moldable_fraction", 1.0))
        # each argument by name, not **kwargs: a compiled build (benchmarks/compiled.py) would hand
        # the dict itself to the first defaulted one (mypyc/mypyc#1162)
        return cls(
            per_bucket,
            mean_n,
            mean_rt,
            ratio_model=model,
            ratio_n=ratio_n,
            moldable_fraction=moldable_fraction,
            whole_buckets=whole_buckets,
        )

    def runtime_ratio(self, s: float) -> float:
        """runtime(s N_opt) / runtime(N_opt) of the class's representative job."""
        model = self.ratio_model
        if isinstance(model, ScojoPModel):
            return model.runtime_ratio(s)
        n = max(1.0, s * self.ratio_n)
        return model.runtime(n) / model.runtime(self.ratio_n)

    def observe(self, shape: Shape, submit_s: float) -> None:
        """Learns from an arrival (online mode only)."""
        if not self.online:
            return
        if self._first_s is None:
            self._first_s = submit_s
        self._last_s = max(self._last_s, submit_s)
        c = shape.klass
        self._counts[c][int((submit_s % DAY_S) // BUCKET_S) % NB_BUCKETS] += 1
        sums = self._sums[c]
        sums[0] += 1
        sums[1] += shape.n_opt
        sums[2] += shape.runtime_opt_s
        days = max((self._last_s - self._first_s) / DAY_S, 1.0)
        self.per_bucket = [[k / days for k in row] for row in self._counts]
        self.mean_n_opt = [s[1] / s[0] if s[0] else 0.0 for s in self._sums]
        self.mean_runtime_opt_s = [s[2] / s[0] if s[0] else 0.0 for s in self._sums]
        self._cumulative = None

    def _integral(self, c: int, t: float) -> float:
        """Expected class-c arrivals in [0, t]."""
        if self._cumulative is None:
            self._cumulative = []
            for row in self.per_bucket:
                cum = [0.0]
                for x in row:
                    cum.append(cum[-1] + x)
                self._cumulative.append(cum)
        cum = self._cumulative[c]
        days, rest = divmod(t, DAY_S)
        b = min(int(rest // BUCKET_S), NB_BUCKETS - 1)
        return days * cum[-1] + cum[b] + self.per_bucket[c][b] * (rest - b * BUCKET_S) / BUCKET_S

    def arrivals(self, c: int, now: float, span_s: float) -> float:
        if self.whole_buckets:
            first = math.floor(now / BUCKET_S) * BUCKET_S
            last = (math.floor((now + span_s) / BUCKET_S) + 1) * BUCKET_S
            return self._integral(c, last) - self._integral(c, first)
        return self._integral(c, now + span_s) - self._integral(c, now)

    def work(self, now: float, span_s: float, s: float) -> float:
        """Host-seconds the future arrivals add within [now, now + span_s], resized by s
        (clamped to [1/2, 2]); the share 1 - moldable_fraction stays at s = 1."""
        total = 0.0
        sc = min(max(s, 0.5), 2.0)
        ratio = self.runtime_ratio(sc)
        f = self.moldable_fraction
        for c in range(len(CLASSES)):
            count = self.arrivals(c, now, span_s)
            if count <= 0:
                continue
            n, rt = self.mean_n_opt[c], self.mean_runtime_opt_s[c]
            molded = n * sc * min(rt * ratio, span_s)
            total += count * (f * molded + (1 - f) * n * min(rt, span_s))
        return total


@dataclass(frozen=True)
class ScojoPOptions(ScojoOptions):
    ideal_load: float = option(0.9, "Fig. 1: the load per host aimed at (sec. 5.2)", low=0.0, low_open=True)
    tolerance: float = option(0.05, "Fig. 1: a load within this of the ideal is ok (deltaS; ours)", low=0.0)
    max_bad: int = option(2, "Fig. 1: stop after this many modifiers without a better load (ours)", low=1)
    max_iterations: int = option(20, "Fig. 1: at most this many load estimates per target", low=1)
    prediction: bool = option(True, "count the expected future arrivals (false: non-predictive SCOJO-P)")
    stats: str = option("", "scojo-stats JSON file of arrivals per half hour ('': learnt online)", file="json")
    buckets: str = option(
        "prorated",
        "future arrivals: half-hour rates prorated over [now, now+T], or whole buckets",
        choices=("prorated", "whole"),
    )
    moldable_fraction: float = option(
        -1.0, "share of future jobs predicted moldable (-1: the stats file's, else 1)", low=-1.0, high=1.0
    )
    bf_ratio: str = option(
        "available",
        "Fig. 4: s_bf = available / work (fits the candidates into the hole) or the figure's literal work / available",
        choices=("available", "literal"),
    )
    rigid: str = option("refuse", RIGID_HELP, choices=RIGID)

    def needs(self) -> tuple[Need, ...]:
        return moldable_need(self.rigid)

    def check(self) -> None:
        if self.moldable_fraction < 0 and self.moldable_fraction != -1.0:
            raise OptionError(
                f"option moldable_fraction={self.moldable_fraction!r}: in [0, 1], or -1", option="moldable_fraction"
            )


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class ScojoP(PriorityEasy):
    """SCOJO-P (sec. 4.2-4.4), at each event in priority order (readings: docs/scojo-p.md):

    (a) :meth:`target` (Fig. 1) of a moldable job J: the load W / (MN T) over J's runtime T
        at size n = clamp(round(s N_opt), lo_J, N_max), W counting J (n T), the running jobs
        (n_r min(end_r - now, T)), the other waiting jobs at m_j = clamp(s N_opt_j, N_min_j,
        N_max_j) (rigid ones at their size) for min(rt_j(m_j), T), and with ``prediction`` the
        expected arrivals (:class:`ArrivalModel`); s' = clamp(s ideal / load, 1/2, 2) until
        the load is within ``tolerance`` of ``ideal_load``, the rounded size stops changing,
        ``max_bad`` modifiers bring no better load, or ``max_iterations``. The target is the
        size of the best load seen (the s that produced each load is kept: Fig. 1's
        ``best_sMod = prev_sMod`` is undefined when the first load is within tolerance).
    (b) :meth:`start_or_wait` (Fig. 3): a rigid job starts if it fits, else it is the head
        (plain EASY). A moldable one starts on its target if it fits; else the candidates are
        (now, free hosts) and, at each expected end of running jobs (equal ends together), the
        target or the hosts free then if fewer, sizes below lo_J skipped, up to the first
        time the target fits; the least response t - now + rt(size) wins (strict <). Now:
        it starts. Later: lo_J := that size (the guaranteed minimum) and J is the head,
        holding that size at that time. (Reading: the figure's loop never updates freeProcs.)
    (c) :meth:`backfill` (Fig. 4), while the head waits: H = head's start - now, F = free
        hosts; s_bf = F H / sum N_opt rt(N_opt) over the waiting jobs with N_opt <= F and
        rt(N_opt) <= H (1 if none; ``bf_ratio=literal``: the figure's inverse); each other
        waiting job, in priority order, on n = clamp(round(N_opt s_bf), lo, N_max) (rigid: its
        size) starts if n fits and it ends by the head's start or n fits in the hosts the
        head leaves free then (EASY's full condition, sec. 4.4).
    """

    name = "scojo-p"
    summary = "SCOJO-P: moldable sizes from the predicted load over each job's runtime (Barsanti & Sodan)"
    copy_kinds = {"molded": RUNS_SPEEDUP_MODEL}
    Options = ScojoPOptions

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        super().__init__(nb_hosts, options, **values)
        o = opt.narrow(self.options, ScojoPOptions)
        self.floor: dict[str, int] = {}  # job id -> lo_J, its guaranteed minimum size
        self.future: ArrivalModel | None = None
        if o.prediction:
            whole = o.buckets == "whole"
            if o.stats:
                try:
                    with open(o.stats) as handle:
                        stats = json.load(handle)
                    fraction = o.moldable_fraction if o.moldable_fraction >= 0 else None  # None: the file's
                    self.future = ArrivalModel.from_json(stats, nb_hosts, fraction, whole_buckets=whole)
                except (OSError, ValueError) as bad:
                    raise OptionError(f"option stats={o.stats!r}: {bad}", option="stats") from None
            else:
                fraction = o.moldable_fraction if o.moldable_fraction >= 0 else 1.0
                self.future = ArrivalModel(moldable_fraction=fraction, whole_buckets=whole)
        self.target_calls = 0
        self.target_iterations = 0

    def on_submit(self, job: Job, now: float) -> None:
        super().on_submit(job, now)
        if self.future is not None:
            self.future.observe(self.shapes[job.id], job.submit_s)

    def begin(self, job: Job, now: float, n: int) -> Running:
        self.floor.pop(job.id, None)
        return super().begin(job, now, n)

    def lo(self, job: Job) -> int:
        return self.floor.get(job.id, self.shapes[job.id].n_min)

    # -- (a) Fig. 1 ---------------------------------------------------------------------
    def load(self, job: Job, n: int, s: float, now: float, others: list[Job]) -> tuple[float, float]:
        """(load, T): the average load per host over J's runtime T on n hosts, the others
        resized by s."""
        shape = self.shapes[job.id]
        span = shape.runtime(n)
        work = n * span
        for running in self.by_end:
            left = running.end_s - now
            work += running.res * (left if left < span else span)
        shapes = self.shapes
        for other in others:
            o = shapes[other.id]
            model = o.model
            if model is None or o.n_min == o.n_max:
                m: int | float = self.size_of(other)  # (an int here: a compiled build keeps it one)
                work += m * min(o.runtime(m), span)
            else:  # the model's runtime, unrounded: an estimate of load needs no microsecond
                m = min(max(s * o.n_opt, o.n_min), o.n_max)
                work += m * min(model.runtime(m), span)
        if self.future is not None:
            work += self.future.work(now, span, s)
        return work / (self.nb_hosts * span), span

    def target(self, job: Job, now: float, others: list[Job]) -> int:
        """Fig. 1: the target size of moldable ``job`` (class doc, (a))."""
        o = opt.narrow(self.options, ScojoPOptions)
        shape = self.shapes[job.id]
        lo, hi = self.lo(job), shape.n_max
        ideal = o.ideal_load

        def size(s: float) -> int:
            return min(max(half_up(s * shape.n_opt), lo), hi)

        s, best, best_error, bad = 1.0, -1, INF, 0
        self.target_calls += 1
        for _ in range(o.max_iterations):
            self.target_iterations += 1
            n = size(s)
            load, _ = self.load(job, n, s, now, others)
            error = abs(load - ideal)
            if error < best_error:
                best, best_error, bad = n, error, 0
            else:
                bad += 1
                if bad >= o.max_bad:
                    break
            if error <= o.tolerance or load <= 0:
                break
            s_next = min(max(s * ideal / load, 0.5), 2.0)
            if size(s_next) == n:
                break
            s = s_next
        return best

    # -- (b) Fig. 3 ---------------------------------------------------------------------
    def start_or_wait(self, job: Job, target: int, now: float) -> tuple[float, int, int]:
        """Fig. 3: (start time, size, hosts free then beyond the size) of the least response.
        The start time is now with a size above the free hosts when a running job is past its
        expected end: the job then waits for that end."""
        shape = self.shapes[job.id]
        free = self.pool.nb_free
        if free >= target:
            return now, target, free - target
        lo = self.lo(job)
        best: tuple[float, int, int] | None = None
        best_response = INF
        if free >= lo:
            best, best_response = (now, free, 0), shape.runtime(free)
        available = free
        ends = list(self.by_end)
        i = 0
        while i < len(ends) and available < target:
            end = ends[i].end_s
            while i < len(ends) and ends[i].end_s == end:
                available += ends[i].res
                i += 1
            # a job past its expected end (an engine's clock a microsecond behind ours) frees
            # its hosts at the earliest now, but they are not free yet: plan() waits for them
            t = max(end, now)
            n = min(target, available)
            if n < lo:
                continue
            response = t - now + shape.runtime(n)
            if response < best_response:
                best, best_response = (t, n, available - n), response
        assert best is not None  # the target fits once every running job has ended
        return best

    # -- (c) Fig. 4 ---------------------------------------------------------------------
    def backfill(self, now: float, head_start_s: float, extra: int, rest: list[Job], started: list[Job]) -> None:
        free = self.pool.nb_free
        if free == 0:
            return
        s_bf = self.backfill_modifier(now, head_start_s, free, rest)

        def size(job: Job) -> int:
            shape = self.shapes[job.id]
            if shape.rigid:
                return self.size_of(job)
            return min(max(half_up(shape.n_opt * s_bf), self.lo(job)), shape.n_max)

        shapes = self.shapes
        window = Window(free, head_start_s, extra)
        for job in backfill(window, now, zip(rest, map(size, rest)), lambda job: shapes[job.id].runtime(size(job))):
            self.begin(job, now, size(job))
            started.append(job)

    def backfill_modifier(self, now: float, head_start_s: float, free: int, rest: list[Job]) -> float:
        """Fig. 4's s_bf: the free host-seconds until the head's start over the work of the
        waiting jobs that fit in them at N_opt (the figure's inverse with ``bf_ratio=literal``);
        1 if there is none."""
        hole = head_start_s - now
        work = 0.0
        for job in rest:
            shape = self.shapes[job.id]
            n_opt = self.size_of(job) if shape.rigid else shape.n_opt
            if n_opt <= free and shape.runtime_opt_s <= hole:
                work += n_opt * shape.runtime_opt_s
        available = free * hole
        if work <= 0 or available <= 0:
            return 1.0
        return available / work if opt.narrow(self.options, ScojoPOptions).bf_ratio == "available" else work / available

    def plan(self, now: float) -> None:
        if not len(self.queue):
            return
        order = self.priority_order(now)
        started: list[Job] = []
        pending = list(order)  # not started yet, in priority order
        for position, job in enumerate(order):
            shape = self.shapes[job.id]
            free = self.pool.nb_free
            pending.remove(job)
            if shape.rigid:
                n = self.size_of(job)
                if n <= free:
                    self.begin(job, now, n)
                    started.append(job)
                    continue
                head_start, extra = shadow_of(free, expected_ends(self.by_end), n)
            else:
                target = self.target(job, now, pending)
                head_start, n, extra = self.start_or_wait(job, target, now)
                if head_start == now and n <= free:
                    self.begin(job, now, n)
                    started.append(job)
                    continue
                self.floor[job.id] = n
            self.backfill(now, head_start, extra, order[position + 1 :], started)
            break
        self.queue.remove_all(started)
