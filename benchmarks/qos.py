"""Time per scheduling event of QoPS, VQoPS and DVQoPS, against conservative backfilling.

The issue's setting: the first 10,000 jobs of SDSC-SP2 (128 hosts), exact estimates, 50 %
urgent jobs costing 10x, high load (about 40 % of the jobs duplicated). Each scheduler runs
in-process (:mod:`adaptsched.core.replay`, no simulator and no ZeroMQ, so the figures are the
schedulers' own decision times) and every ``schedule()`` call is timed; conservative
backfilling on the same jobs is the baseline, in the same run.

    .venv/bin/python benchmarks/qos.py [--trace T] [--jobs 10000] [--hosts 128]

Target: DVQoPS under 50 ms per event on average (the paper: 0.9 s on a 2007 machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO.parent))  # the repository root is the adaptsched package

from adaptsched.core.base import Job  # noqa: E402
from adaptsched.core.conservative import ConservativeBackfilling  # noqa: E402
from adaptsched.core.dvqops import Dvqops  # noqa: E402
from adaptsched.core.qops import Qops  # noqa: E402
from adaptsched.core.replay import replay  # noqa: E402
from adaptsched.workloads.convert import convert_swf  # noqa: E402
from adaptsched.workloads.qos import annotate, high_load  # noqa: E402
from adaptsched.workloads.traces import shared_trace  # noqa: E402

TRACE = shared_trace("SDSC-SP2")


def timed(scheduler):
    """Wraps ``scheduler.schedule`` to record each call's duration (s)."""
    times, inner = [], scheduler.schedule

    def schedule(now):
        begin = time.perf_counter()
        out = inner(now)
        times.append(time.perf_counter() - begin)
        return out

    scheduler.schedule = schedule
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default=str(TRACE))
    parser.add_argument("--jobs", type=int, default=10000)
    parser.add_argument("--hosts", type=int, default=128)
    args = parser.parse_args(argv)

    workload, _ = convert_swf(args.trace, hosts=args.hosts, first=args.jobs)
    workload, _ = annotate(workload, urgent_fraction=0.5, urgent_cost=10.0, exact=True, seed=1)
    workload, load = high_load(workload, fraction=0.4, seed=1)
    profiles = workload["profiles"]
    jobs = [
        (str(j["id"]), j["subtime"], j["res"], j["walltime"], j, profiles[j["profile"]]["delay"])
        for j in workload["jobs"]
    ]
    print(
        f"{Path(args.trace).name}: first {args.jobs} jobs, {len(jobs)} after duplication, offered load "
        f"{load['load_before']:.2f} -> {load['load_after']:.2f}, {args.hosts} hosts"
    )
    rows = []
    for name, make in (
        ("conservative (baseline)", lambda: ConservativeBackfilling(args.hosts)),
        ("QoPS", lambda: Qops(args.hosts)),
        ("VQoPS (OC 0.1)", lambda: Qops(args.hosts, value_aware=True, oc_factor=0.1)),
        ("DVQoPS", lambda: Dvqops(args.hosts)),
    ):
        scheduler = make()
        times = timed(scheduler)
        begin = time.perf_counter()
        out = replay(scheduler, [(Job(i, s, r, w, f), rt) for i, s, r, w, f, rt in jobs])
        wall = time.perf_counter() - begin
        accepted = sum(1 for o in out.values() if not o.rejected)
        t = np.array(times) * 1000
        rows.append((name, len(t), t.mean(), np.percentile(t, 99), t.max(), wall, accepted))
        print(
            f"  {name}: {len(t)} events, mean {t.mean():.2f} ms, p99 {np.percentile(t, 99):.2f} ms, "
            f"max {t.max():.0f} ms, total {wall:.1f} s, {accepted} accepted",
            flush=True,
        )
    print("\n| scheduler | events | mean ms | p99 ms | max ms | total s | accepted jobs |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, n, mean, p99, top, wall, accepted in rows:
        print(f"| {name} | {n:,} | {mean:.2f} | {p99:.2f} | {top:.0f} | {wall:.1f} | {accepted:,} |")
    dv = rows[-1]
    print(f"\nDVQoPS mean {dv[2]:.1f} ms per event: target < 50 ms {'met' if dv[2] < 50 else 'NOT met'}")


if __name__ == "__main__":
    main()
