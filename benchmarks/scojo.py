"""Decision times of SCOJO-P and Cirne-Berman, against the traditional frame (docs/scojo-p.md).

A Lublin-Feitelson workload of SCOJO-P's W1 or W2 (128 hosts, exact estimates, every job
moldable) runs in-process (:mod:`adaptsched.core.replay`: no simulator, no ZeroMQ, so the
figures are the schedulers' own times), the traditional frame (``scojo-trad``) as the
baseline in the same run. Measured: the whole run per scheduler; SCOJO-P's Fig. 1 target
computation per call (mean time and mean iterations: the paper says "very few"); Cirne-
Berman's size choice per submission (mean and 99th percentile, and what-ifs per submission),
against its baseline in the same run: one what-if simulation per size tried (``--per-size``
adds it; the shared simulation must give the same sizes, and the script checks it does).

    .venv/bin/python benchmarks/scojo.py [--jobs 10000] [--load W1|W2] [--seed 1] [--per-size]

Targets: trad and scojo-p <= 60 s per 10k-job run, Fig. 1 <= 1 ms per call, Cirne-Berman <= 10
min per W2 run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO.parent))  # the repository root is the adaptsched package

from adaptsched.core.base import Job  # noqa: E402
from adaptsched.core.cirne_berman import CirneBerman, easy_start_times  # noqa: E402
from adaptsched.core.replay import replay  # noqa: E402
from adaptsched.core.scojo import PriorityEasy, ScojoP  # noqa: E402
from adaptsched.workloads.estimates import annotate as estimates  # noqa: E402
from adaptsched.workloads.lublin import generate  # noqa: E402
from adaptsched.workloads.moldable import annotate  # noqa: E402

AARR = {"W1": 10.23, "W2": 9.83}


class PerSizeCirneBerman(CirneBerman):
    """The baseline: each size tried gets its own what-if simulation (how sizes were tried
    before one shared simulation served them all); the same choices."""

    def what_if_starts(self, job, now):
        ends, waiting = self.what_if_state(job, now)
        shape = self.shapes[job.id]
        sched = self

        class PerSize(dict):
            def __missing__(self, n):
                self[n] = easy_start_times(
                    sched.nb_hosts,
                    now,
                    ends,
                    waiting,
                    len(waiting) - 1,
                    {n: shape.runtime(n)},
                    aging_factor=sched.aging_factor,
                    aging_one_class=sched.aging_one_class,
                )[n]
                return self[n]

        return PerSize()


def jobs_of(workload: dict) -> list[tuple[Job, float]]:
    delays = {name: p["delay"] for name, p in workload["profiles"].items()}
    return [
        (Job(str(j["id"]), float(j["subtime"]), int(j["res"]), float(j["walltime"]), j), float(delays[j["profile"]]))
        for j in workload["jobs"]
    ]


def timed_method(obj, name: str, record: dict | None = None) -> list[float]:
    """Times each call of ``obj.name``; ``record``: its results by the first argument's id."""
    times: list[float] = []
    inner = getattr(obj, name)

    def wrapper(*args, **kwargs):
        begin = time.perf_counter()
        out = inner(*args, **kwargs)
        times.append(time.perf_counter() - begin)
        if record is not None:
            record[args[0].id] = out
        return out

    setattr(obj, name, wrapper)
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=10000)
    parser.add_argument("--load", choices=tuple(AARR), default="W1")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-cb", action="store_true", help="only the traditional frame and SCOJO-P")
    parser.add_argument("--per-size", action="store_true", help="also Cirne-Berman with one what-if per size")
    args = parser.parse_args(argv)
    workload = generate(args.jobs, hosts=128, mode="typeless", aarr=AARR[args.load], seed=args.seed)
    workload, _ = annotate(estimates(workload, model="exact")[0], model="scojo-p", fraction=1.0, seed=args.seed)
    jobs = jobs_of(workload)
    print(f"{args.jobs} jobs of {args.load} (seed {args.seed}), 128 hosts, in-process\n")
    print("| scheduler | run (s) | per call |")
    print("|---|---:|---|")
    chosen: list[dict] = []  # the sizes Cirne-Berman chose, shared and per-size what-ifs
    for name, make in (
        ("scojo-trad", lambda: PriorityEasy(128)),
        ("scojo-p (online statistics)", lambda: ScojoP(128)),
        ("scojo-p non-predictive", lambda: ScojoP(128, prediction=False)),
        ("cirne-berman", lambda: CirneBerman(128)),
        ("cirne-berman, one what-if per size (baseline)", lambda: PerSizeCirneBerman(128)),
    ):
        if (args.skip_cb and name.startswith("cirne-berman")) or (not args.per_size and "baseline" in name):
            continue
        sched: Any = make()  # the five schedulers' counters differ; each branch reads its own
        calls = timed_method(sched, "target") if isinstance(sched, ScojoP) else None
        if isinstance(sched, CirneBerman):
            chosen.append({})
        sizes = timed_method(sched, "choose_size", chosen[-1]) if isinstance(sched, CirneBerman) else None
        begin = time.perf_counter()
        replay(sched, [(Job(j.id, j.submit_s, j.res, j.walltime_s, j.fields), rt) for j, rt in jobs])
        wall = time.perf_counter() - begin
        detail = ""
        if calls:
            detail = (
                f"Fig. 1: {len(calls)} calls, {1e3 * np.mean(calls):.3f} ms mean, "
                f"{sched.target_iterations / max(1, sched.target_calls):.2f} iterations mean"
            )
        if sizes:
            detail = (
                f"size choice: {len(sizes)} submissions, {1e3 * np.mean(sizes):.1f} ms mean, "
                f"{1e3 * np.percentile(sizes, 99):.1f} ms p99, {sched.whatif_runs / len(sizes):.1f} what-ifs each; "
                f"{sched.expansions} expanded, {sched.free_expansions} with the start they had on N_opt"
            )
        print(f"| {name} | {wall:.1f} | {detail} |")
    if len(chosen) == 2:
        same = chosen[0] == chosen[1]
        verdict = "the same" if same else "DIFFERENT"
        print(f"\nshared and per-size what-ifs chose {verdict} sizes for {len(chosen[0])} jobs")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
