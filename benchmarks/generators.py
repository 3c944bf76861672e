"""Speed of the workload generators and of the estimate models (docs/workloads.md, "Speed").

Times, in one run, on this machine:

* ``generate lublin`` (numpy, vectorised draws) for 10,000 and 200,000 jobs: the jobs alone
  (:func:`lublin.draw_jobs`), the workload dict (:func:`lublin.generate`) and the JSON file
  (:func:`convert.write_workload`); targets: 10k < 2 s, 200k < 30 s (generation and writing);
* the baseline: a literal per-job Python port of the C program's loop (``random``, the
  points/reminder walk, one job at a time), on the same job counts;
* ``estimates --model tsafrir`` on 10,000 jobs (target < 2 s), with ``--model exact`` as the
  baseline.

    .venv/bin/python benchmarks/generators.py [--jobs 10000 200000] [--repeat 3]

Each figure is the best of ``--repeat`` runs (the machine is shared).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO.parent))  # the repository root is the adaptsched package

from adaptsched.workloads import estimates, lublin  # noqa: E402
from adaptsched.workloads.convert import write_workload  # noqa: E402


def c_loop(jobs: int, seed: int = 0, p: lublin.TypeParams = lublin.TYPELESS, hosts: int = 128) -> list[tuple]:
    """The reference generator's typeless loop, one job at a time (Ref 1.2-1.4): the baseline."""
    rnd = random.Random(seed)
    w = lublin.bucket_weights(p.anum, p.bnum).tolist()
    bucket, points, reminder, t = 0, 0.0, 0.0, 0
    out = []
    for _ in range(jobs):
        while True:
            g = rnd.gammavariate(p.aarr * p.arar, p.barr)
            if g <= lublin.TOO_MUCH_ARRIVE_TIME:
                break
        points += math.exp(g) / lublin.SECONDS_IN_BUCKET
        add = 0.0
        while points > w[bucket]:
            points -= w[bucket]
            bucket = (bucket + 1) % lublin.BUCKETS
            add += lublin.SECONDS_IN_BUCKET
        new_rem = points / w[bucket]
        add += lublin.SECONDS_IN_BUCKET * (new_rem - reminder)
        reminder = new_rem
        t = int(t + add)
        u = rnd.random()
        if u <= p.serial_prob:
            n = 1
        else:
            par = rnd.uniform(p.ulow, p.umed) if rnd.random() <= p.uprob else rnd.uniform(p.umed, p.uhi)
            if u <= p.serial_prob + p.pow2_prob:
                par = math.floor(par + 0.5)
            n = math.floor(2**par + 0.5)
        mix = min(max(p.pa * n + p.pb, 0.0), 1.0)
        while True:
            x = rnd.gammavariate(p.a1, p.b1) if rnd.random() <= mix else rnd.gammavariate(p.a2, p.b2)
            if x <= lublin.TOO_MUCH_TIME:
                break
        out.append((t, n, int(math.exp(x))))
    return out


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        begin = time.perf_counter()
        fn()
        times.append(time.perf_counter() - begin)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, nargs="+", default=[10000, 200000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)

    print("| what | jobs | seconds |")
    print("|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "w.json"
        for jobs in args.jobs:
            draw = best(lambda jobs=jobs: lublin.draw_jobs(jobs, seed=1), args.repeat)
            gen = best(lambda jobs=jobs: lublin.generate(jobs, seed=1), args.repeat)
            total = best(lambda jobs=jobs: write_workload(lublin.generate(jobs, seed=1), out), args.repeat)
            base = best(lambda jobs=jobs: c_loop(jobs, seed=1), 1)
            print(f"| lublin: jobs as arrays (draw_jobs) | {jobs:,} | {draw:.2f} |")
            print(f"| lublin: workload dict (generate) | {jobs:,} | {gen:.2f} |")
            print(f"| lublin: generate + write JSON | {jobs:,} | {total:.2f} |")
            print(f"| baseline: the C loop in pure Python | {jobs:,} | {base:.2f} |")
        workload = lublin.generate(10000, aarr=10.23, seed=1)
        tsafrir = best(lambda: estimates.annotate(workload, model="tsafrir", seed=1), args.repeat)
        exact = best(lambda: estimates.annotate(workload, model="exact"), args.repeat)
        print(f"| estimates --model tsafrir | 10,000 | {tsafrir:.2f} |")
        print(f"| baseline: estimates --model exact | 10,000 | {exact:.2f} |")


if __name__ == "__main__":
    main()
