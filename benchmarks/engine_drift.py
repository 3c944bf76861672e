"""Byte-for-byte comparison of the same runs on the two engines (docs/batsim-numbers.md).

For every ``NAME_jobs.csv`` and ``NAME_machine_states.csv`` present in both folders (as
``adaptsched reproduce ... --engine embedded`` and ``--engine batsim`` write them under
``OUT/embedded`` and ``OUT/batsim``) by a run finished on both, prints one line: identical, or how many rows differ,
the largest difference of a numeric field, and (jobs) how many starts differ by more than
1e-5 s (a different decision rather than a printed digit).

    .venv/bin/python benchmarks/engine_drift.py results/drift/j5000/embedded results/drift/j5000/batsim
"""

from __future__ import annotations

import argparse
import csv
import filecmp
from pathlib import Path


def compare(a: Path, b: Path) -> dict:
    if filecmp.cmp(a, b, shallow=False):
        return {"identical": True}
    with open(a, newline="") as fa, open(b, newline="") as fb:
        ra, rb = list(csv.reader(fa)), list(csv.reader(fb))
    header = ra[0]
    start = header.index("starting_time") if "starting_time" in header else None
    rows = starts = 0
    largest = 0.0
    for x, y in zip(ra[1:], rb[1:]):
        if x == y:
            continue
        rows += 1
        for i, (u, v) in enumerate(zip(x, y)):
            if u != v:
                try:
                    d = abs(float(u) - float(v))
                except ValueError:
                    d = float("inf")
                largest = max(largest, d)
                if i == start and d > 1e-5:
                    starts += 1
    return {
        "identical": False,
        "rows": len(ra) - 1,
        "rows_b": len(rb) - 1,
        "differ": rows + abs(len(ra) - len(rb)),
        "largest": largest,
        "starts": starts,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    args = parser.parse_args(argv)
    for jobs in sorted(args.first.glob("*_jobs.csv")):
        name = jobs.name[: -len("_jobs.csv")]
        if not all((folder / f"{name}_result.json").exists() for folder in (args.first, args.second)):
            continue  # not finished on both engines
        cells = []
        for suffix in ("jobs", "machine_states"):
            a, b = args.first / f"{name}_{suffix}.csv", args.second / f"{name}_{suffix}.csv"
            r = compare(a, b)
            if r["identical"]:
                cells.append(f"{suffix}: identical")
            else:
                cells.append(
                    f"{suffix}: {r['differ']} of {r['rows']} rows differ (largest {r['largest']:.3g}"
                    + (f", {r['starts']} starts > 1e-5 s apart" if suffix == "jobs" else "")
                    + ")"
                )
        print(f"{name}: " + "; ".join(cells), flush=True)


if __name__ == "__main__":
    main()
