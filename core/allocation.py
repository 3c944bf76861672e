"""Downey's processor allocation strategies for moldable jobs, FIFO queue.

Downey, "A parallel workload model and its implications for processor allocation" (1996),
sec. 5 and 6. Jobs carry a Downey speedup model (``moldable`` field, see
:mod:`adaptsched.workloads.moldable`); the scheduler chooses each job's cluster size when
it starts it. The queue is first-in-first-out: only the head job may start; when it cannot,
everything behind it waits (no backfilling, as in the paper).

Ideal cluster size (``strategy``), an integer in [1, N]:

* ``PWS`` (sec. 5.1): the n maximising the power S(n)^2 / n (searched over the integers);
* ``AVG`` (sec. 5.2): round(A); ``3/2AVG``: round(1.5 A) (sec. 6.5);
* ``MAX`` (sec. 5.2): the smallest n with S(n) = A;
* ``SEV`` (sec. 5.3, Sevcik's A+ with pi = 0, Figure 10): round(A - (A - 1) rho sigma /
  sigma_max), with rho the offered load (``load``, known exactly as in the paper) and
  ``sigma_max`` = 2 (the workload's bound): all jobs get A at rho = 0, and as the load rises
  sizes fall linearly (Figure 9) toward 1 for the highest-variance jobs at rho = 1. This is
  our reading of Figures 7, 9 and 10 (the seed has no formula); ``SSEV``, the simplified SEV
  of sec. 6.5, treats every sigma as 1;
* ``ASP`` (sec. 5.4): at each event, the free processors divided evenly among the queued
  jobs (at least 1 each), capped at MAX; inherently greedy.

A rigid job (no ``moldable`` annotation) keeps its request and its runtime: it starts on
exactly its requested hosts, when they are free, and runs itself. A workload where no job is
moldable is refused before the run (:mod:`adaptsched.core.needs`) unless ``rigid=keep``.

When a job starts (``mode``):

* ``stubborn``: on its ideal size only, else it waits;
* ``greedy``: on min(ideal, free) processors as soon as any is free;
* ``hybrid``: as greedy, but on at least ceil(``min_fraction`` x ideal) processors (sec. 6.4).

A job starts on its chosen size through :meth:`OnlineScheduler.start_sized`: a job of linear
speedup whose profile is ``parallel_homogeneous_total`` runs itself on its chosen n hosts:
Batsim spreads its flops over them (metadata ``molded`` = n). Any other
job whose chosen size n differs from its request runs as a copy ("molded") with a delay
profile of its own, t1 / S(n) seconds, and the original is rejected; the copy's metadata
``scale`` is S(request) / S(n), and the analysis folds it back
(:mod:`adaptsched.analysis.fold`). The model's parameters reach the scheduler through
Batsim, which prints floats with six decimals: workloads should hold them at that precision
(``generate downey`` and ``mold-annotate`` do), so that both sides use the same model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from mypy_extensions import mypyc_attr

from adaptsched.core import options as opt
from adaptsched.core.base import Job, OnlineScheduler, Running
from adaptsched.core.needs import Need
from adaptsched.core.options import Options, option
from adaptsched.core.speedup import Downey

STRATEGIES = ("PWS", "AVG", "3/2AVG", "MAX", "SEV", "SSEV", "ASP")
MODES = ("stubborn", "greedy", "hybrid")


def pws_size(model: Downey, nb_hosts: int) -> int:
    """The n in [1, nb_hosts] of maximum power S(n)^2 / n (the smallest, on ties)."""
    top = min(nb_hosts, model.n_max_useful)
    best, best_n = -1.0, 1
    for n in range(1, top + 1):
        power = model.speedup(n) ** 2 / n
        if power > best * (1 + 1e-12):
            best, best_n = power, n
    return best_n


def ideal_size(strategy: str, model: Downey, nb_hosts: int, *, load: float = 0.75, sigma_max: float = 2.0) -> int:
    """The strategy's ideal cluster size (``ASP``: its cap, MAX)."""
    A = model.A
    if strategy == "PWS":
        n = pws_size(model, nb_hosts)
    elif strategy == "AVG":
        n = round(A)
    elif strategy == "3/2AVG":
        n = round(1.5 * A)
    elif strategy in ("MAX", "ASP"):
        n = model.n_max_useful
    elif strategy in ("SEV", "SSEV"):
        sigma = model.sigma if strategy == "SEV" else 1.0
        fraction = min(1.0, max(0.0, load) * min(sigma, sigma_max) / sigma_max)
        n = round(A - (A - 1) * fraction)
    else:
        raise ValueError(f"unknown strategy {strategy!r}: choose among {', '.join(STRATEGIES)}")
    return min(nb_hosts, max(1, int(n)))


@dataclass(frozen=True)
class DowneyOptions(Options):
    strategy: str = option("AVG", "ideal cluster size", choices=STRATEGIES)
    mode: str = option("greedy", "when to start", choices=MODES)
    min_fraction: float = option(
        0.5, "hybrid mode: start on at least this fraction of the ideal size", low=0.0, high=1.0
    )
    load: float = option(0.75, "SEV/SSEV: the offered load rho, known in advance", low=0.0)
    sigma_max: float = option(2.0, "SEV: the workload's largest sigma", low=0.0, low_open=True)
    rigid: str = option(
        "refuse",
        "a workload without moldable jobs: refuse it (mold-annotate prepares one), or keep: every job runs "
        "rigid, on its request for its runtime",
        choices=("refuse", "keep"),
    )

    def needs_dynamic_jobs(self) -> bool:
        return True  # molded jobs run as copies

    def needs(self) -> tuple[Need, ...]:
        need = Need(
            "moldable jobs",
            "moldable",
            ("downey", "linear"),
            "adaptsched mold-annotate IN.json OUT.json --model downey",
            "rigid=keep",
            "rigid jobs keep their request and their runtime",
            required=self.rigid == "refuse",
        )
        return (need,)


@mypyc_attr(allow_interpreted_subclasses=True)  # a researcher's own scheduler may extend it
class DowneyAllocation(OnlineScheduler):
    name = "downey"
    Options = DowneyOptions

    def __init__(self, nb_hosts: int, options: opt.Options | None = None, **values: Any):
        super().__init__(nb_hosts, options, **values)
        o = opt.narrow(self.options, DowneyOptions)
        self.strategy, self.mode = o.strategy, o.mode
        self.min_fraction, self.load, self.sigma_max = o.min_fraction, o.load, o.sigma_max
        # job id -> (model, requested size, ideal size); model None: a rigid job
        self.models: dict[str, tuple[Downey | None, int, int]] = {}

    def on_submit(self, job: Job, now: float) -> None:
        model = model_of(job, self.nb_hosts)
        if model is None:  # a rigid job keeps its request (and runs itself: its own runtime)
            self.models[job.id] = (None, job.res, job.res)
            return
        ideal = ideal_size(self.strategy, model, self.nb_hosts, load=self.load, sigma_max=self.sigma_max)
        self.models[job.id] = (model, job.res, ideal)  # the ideal size never changes: computed once

    def choose(self, job: Job, free: int, queued: int) -> int | None:
        """Cluster size to start the head job on now, or None to wait."""
        model, requested, ideal = self.models[job.id]
        if model is None:
            return requested if free >= requested else None
        if self.strategy == "ASP":
            return min(ideal, max(1, free // queued)) if free >= 1 else None
        if self.mode == "stubborn":
            return ideal if free >= ideal else None
        least = 1 if self.mode == "greedy" else max(1, math.ceil(self.min_fraction * ideal))
        return min(ideal, free) if free >= least else None

    def plan(self, now: float) -> None:
        queue = self.queue
        started = []
        queued = len(queue)
        share_free = self.pool.nb_free  # ASP divides the free processors seen at the event
        for job in queue:
            free = self.pool.nb_free
            n = self.choose(job, share_free if self.strategy == "ASP" else free, queued)
            if n is None or n > free:
                break
            self.begin(job, now, n)
            started.append(job)
        queue.remove_all(started)

    def begin(self, job: Job, now: float, n: int) -> Running:
        model = self.models[job.id][0]
        if model is None:
            return self.start(job, now)
        return self.start_sized(job, now, n, model)


def model_of(job: Job, nb_hosts: int) -> Downey | None:
    """The speedup model of a job's ``moldable`` annotation (``downey``; ``linear``: S(n) = n up to
    ``max_res``), or None for a rigid job. A model without its sequential time ``t1_s`` is an error:
    a default would set the job's runtime at any size other than its request."""
    spec = job.fields.get("moldable") if job.fields else None
    if not isinstance(spec, dict) or spec.get("model") not in ("downey", "linear"):
        return None
    if "t1_s" not in spec:
        raise ValueError(f"job {job.id}: moldable model {spec.get('model')!r} needs 't1_s' (its sequential time)")
    if spec["model"] == "downey":
        return Downey(spec["A"], spec["sigma"], spec["t1_s"])
    return Downey(job.fields.get("max_res", nb_hosts), 0.0, spec["t1_s"])
