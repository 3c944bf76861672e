"""Downey's parallel workload model (``adaptsched generate downey``).

Downey, "A parallel workload model and its implications for processor allocation" (1996),
(UCB/CSD-96-922), sec. 3 and 4 (parameters and our readings: docs/downey.md):

* sequential lifetime L uniform-log on [e^2, e^12] s (median 18 min, mean 271 min:
  E[L] = (e^12 - e^2) / 10 = 16,275 s);
* average parallelism A uniform-log on [1, N]; sigma uniform on [0, 2];
* each simulated day: 12 h of Poisson arrivals at the rate lambda that gives the offered load
  rho = lambda E[L] / N (lambda is the day-time rate: 80 jobs a day at rho = 0.5 on 64
  processors, as the paper counts), then 12 h without arrivals;
* N = 64 processors by default.

Days are *chained* (day k's arrivals start at k days: a day's backlog is still there the next
morning) or *apart* (``apart=True``, Downey's "day-long simulated runs" of sec. 4 and
Figure 11): each day then starts at a whole number of days after the previous one's start,
late enough that the previous day's jobs have all ended whatever the scheduler does, so every
day starts on an empty machine. The gap is a bound, not a guess: under any scheduler that
never idles the whole machine while a job waits (every FIFO strategy here: with no job
running the head job fits), a day's jobs have all ended within its 12-hour arrival phase plus
the sum of their lifetimes L (a job's runtime on any cluster size is at most L, its runtime on
one processor). The same seed draws the same jobs in both: only their days' start times differ,
so the effect of chaining is measured on the same jobs.

Lifetimes, A and sigma are rounded to six decimals, the precision of Batsim's messages, so
that a scheduler reading them back computes the same runtimes.

Each job is a Batsim job annotated as moldable (:mod:`.moldable`: model ``downey`` with A,
sigma and t1_s = L; ``min_res`` 1, ``max_res`` = min(N, the smallest size reaching S = A)).
Its rigid request, for schedulers that ignore the annotation, is the AVG size round(A)
(clipped to [1, N]) with a ``delay`` profile of its runtime there; no walltime (Downey's
schedulers know the exact runtimes). :func:`write_swf` writes the same jobs as SWF.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from adaptsched.core.speedup import Downey
from adaptsched.core.units import DAY_S
from adaptsched.errors import AdaptschedError

ARRIVAL_PHASE_S = 43200.0
L_MIN_S, L_MAX_S = math.exp(2), math.exp(12)
MEAN_L_S = (L_MAX_S - L_MIN_S) / 10.0  # mean of a log-uniform on [e^2, e^12]


def arrival_rate(load: float, hosts: int) -> float:
    """Day-time arrivals per second giving the offered load ``load`` on ``hosts``."""
    return load * hosts / MEAN_L_S


def generate(
    days: int, load: float, *, hosts: int = 64, seed: int = 0, sigma_max: float = 2.0, apart: bool = False
) -> dict:
    """A Batsim JSON workload dict of ``days`` simulated days, chained or ``apart`` (module doc)."""
    if days < 1:
        raise AdaptschedError(f"--days must be >= 1, got {days}")
    if not load > 0:
        raise AdaptschedError(f"--load must be > 0, got {load}")
    if hosts < 1:
        raise AdaptschedError(f"--hosts must be >= 1, got {hosts}")
    rnd = random.Random(seed)
    rate = arrival_rate(load, hosts)
    jobs: list[dict] = []
    profiles: dict[str, dict] = {}
    day_start = 0.0
    starts = []
    for day in range(days):
        t = day_start if apart else day * DAY_S
        starts.append(t)
        end = t + ARRIVAL_PHASE_S
        lifetimes = 0.0
        while True:
            t += rnd.expovariate(rate)
            if t >= end:
                break
            # six decimals: what a scheduler reads back through Batsim's messages
            lifetime = round(math.exp(rnd.uniform(2.0, 12.0)), 6)
            lifetimes += lifetime
            A = round(math.exp(rnd.uniform(0.0, math.log(hosts))), 6) if hosts > 1 else 1.0
            sigma = round(rnd.uniform(0.0, sigma_max), 6)
            model = Downey(A, sigma, lifetime)
            res = min(hosts, max(1, round(A)))
            runtime = model.runtime(res)
            name = f"d{runtime!r}"
            profiles.setdefault(name, {"type": "delay", "delay": runtime})
            jobs.append(
                {
                    "id": str(len(jobs) + 1),
                    "subtime": round(t, 6),
                    "res": res,
                    "profile": name,
                    "moldable": {"model": "downey", "A": A, "sigma": sigma, "t1_s": lifetime},
                    "min_res": 1,
                    "max_res": max(res, min(hosts, model.n_max_useful)),
                }
            )
        # apart: the next day starts once this day's jobs have surely ended (module doc)
        day_start = starts[-1] + DAY_S * max(1, math.ceil((ARRIVAL_PHASE_S + lifetimes) / DAY_S))
    return {
        "description": f"{len(jobs)} moldable jobs of Downey's (1996) model over {days} days"
        + (" run apart" if apart else "")
        + f", offered load {load} on {hosts} processors (seed {seed}; adaptsched.workloads.downey)",
        "nb_res": hosts,
        "adaptsched": {
            "generator": "downey-1996",
            "days": days,
            "load": load,
            "hosts": hosts,
            "seed": seed,
            "days_apart": apart,
            "day_starts_s": starts if apart else None,
            "arrival_rate_per_s": rate,
            "mean_lifetime_s": MEAN_L_S,
            "submit_offset_s": 0,
            "swf_header": {
                "Version": "2",
                "MaxNodes": str(hosts),
                "MaxProcs": str(hosts),
                "Note": f"Downey (1996) parallel workload model by adaptsched: days={days} load={load} seed={seed}; "
                "rigid request round(A)",
            },
        },
        "profiles": profiles,
        "jobs": jobs,
    }


def write_swf(workload: dict, path) -> Path:
    """The jobs as an SWF trace (:func:`adaptsched.workloads.swf.write_swf`): runtime and
    processors (fields 5 and 8) at the rigid request, times exact."""
    from adaptsched.workloads.swf import write_swf as write

    return write(workload, path, requested_procs_from_res=True)
