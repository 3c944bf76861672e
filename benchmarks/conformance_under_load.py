"""The conformance suite, several times in a row, with every core kept busy.

    BATSIM=/opt/batsim/bin/batsim .venv/bin/python benchmarks/conformance_under_load.py [--runs 3]

Starts one busy Python loop per core (``os.cpu_count()``, at normal priority), then runs
``pytest tests/conformance`` ``--runs`` times one after the other, and stops the loops.
Prints, and appends to ``--log`` (default ``docs/results/conformance-under-load.md``),
one line per run: start time (UTC), passed/failed/skipped counts, wall time, the 1-minute
load average at the end, and the failing tests' ids. Exit status 1 when a run is not green.
It made the three green runs under full CPU load that docs/conformance.md cites.
"""

from __future__ import annotations

import argparse
import datetime
import multiprocessing
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def spin():  # pragma: no cover - runs in the load processes
    x = 0
    while True:
        x = (x * 1103515245 + 12345) % 2147483648


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--log", default=str(ROOT / "docs" / "results" / "conformance-under-load.md"))
    parser.add_argument("--loads", type=int, default=os.cpu_count() or 1, help="busy loops (default: one per core)")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments")
    args = parser.parse_args(argv)
    if not os.environ.get("BATSIM"):
        print("set BATSIM=/path/to/batsim: the conformance tests need real Batsim", file=sys.stderr)
        return 2
    loads = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.loads)]
    for process in loads:
        process.start()
    log = Path(args.log)
    log.parent.mkdir(parents=True, exist_ok=True)
    green = True
    try:
        for number in range(1, args.runs + 1):
            started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            t0 = time.perf_counter()
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf"]
            command += ["tests/conformance", *args.pytest_args]
            done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
            wall = time.perf_counter() - t0
            tail = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
            failed = re.findall(r"^FAILED (\S+)", done.stdout, re.M)
            green &= done.returncode == 0
            line = (
                f"- run {number}/{args.runs}, {started}, {args.loads} busy loops: {tail.strip('= ')}; "
                f"{wall:.0f} s wall, load average {os.getloadavg()[0]:.1f} at the end"
                + (f"; FAILED {', '.join(failed)}" if failed else "")
            )
            print(line, flush=True)
            with log.open("a") as handle:
                handle.write(line + "\n")
            if done.returncode != 0:
                (log.parent / f"conformance-under-load-run{number}.txt").write_text(done.stdout + done.stderr)
    finally:
        for process in loads:
            process.terminate()
    return 0 if green else 1


if __name__ == "__main__":
    sys.exit(main())
