"""Speed of Klein & Pérez's Algorithm 2 per test, in-process (docs/evolving.md, "Performance").

For each of ``--tests`` tests (sec. 5.1, n_max 100) and each variant, the wall time of
:func:`adaptsched.core.evolving.schedule` (fits and compacting included), as the paper's
*Time* column measures it; each test's figure is the best of ``--repeat`` runs (the machine
is shared). Beside it, in the same run, the baseline: the paper's loc, clipped to t1
(``clip_loc=True``), which gives the same plans in more tries. Targets: average <= the
paper's average, p99 <= the paper's max (a 2.53 GHz Core 2 Duo).

    .venv/bin/python benchmarks/evolving.py [--tests 300] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO.parent))  # the repository root is the adaptsched package

from adaptsched.core.evolving import schedule  # noqa: E402
from adaptsched.reproduce.klein_perez.findings import paper  # noqa: E402
from adaptsched.reproduce.klein_perez.plan import VARIANTS  # noqa: E402
from adaptsched.workloads.evolving import N_MAX, generate_tests  # noqa: E402


def best_ms(apps, variant: str, clip: bool, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        begin = time.perf_counter()
        schedule(apps, N_MAX, variant, clip_loc=clip)
        best = min(best, time.perf_counter() - begin)
    return 1000.0 * best


def p99(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.99 * len(xs)))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    tests = generate_tests(args.tests, args.seed)
    print(f"{args.tests} tests (seed {args.seed}), n_max {N_MAX}, best of {args.repeat}; ms per test")
    print("| variant | ours avg | p50 | p99 | max | baseline (clipped loc) avg | p99 | paper avg | paper max | ok |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    all_ok = True
    for variant in VARIANTS:
        ours = [best_ms(apps, variant, False, args.repeat) for apps in tests]
        base = [best_ms(apps, variant, True, args.repeat) for apps in tests]
        _, paper_avg, paper_max = paper(variant, "time_ms")
        ok = statistics.mean(ours) <= paper_avg and p99(ours) <= paper_max
        all_ok &= ok
        print(
            f"| {variant} | {statistics.mean(ours):.2f} | {statistics.median(ours):.2f} | {p99(ours):.2f} | "
            f"{max(ours):.2f} | {statistics.mean(base):.2f} | {p99(base):.2f} | {paper_avg:g} | {paper_max:g} | "
            f"{'yes' if ok else 'NO'} |"
        )
    return 0 if all_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
