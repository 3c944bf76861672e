"""Engine throughput: the full CTC-SP2 trace on the embedded engine and on real Batsim.

Runs, in one go and on the same converted workload and platform (338 hosts):
adaptsched's ``easy`` and pybatsim's ``easyBackfill`` on the embedded engine and,
when it is installed, on real Batsim; plus ``conservative`` on the embedded
engine. Prints wall time and jobs/s for each run, the ratios that the project's
targets are about, and whether the two engines' ``_jobs.csv`` agree. Both
engines run with the same CPU pinning (engine and scheduler on one CPU).

    .venv/bin/python benchmarks/engines.py [--trace T] [--hosts 338] [--out DIR] [--no-batsim]

Each run is a fresh ``adaptsched run`` process, timed from start to exit, as a user
runs it. This machine is noisy, so each configuration runs ``--repeat`` times,
interleaved, and the best time is kept.

Targets: embedded >= 1.5x faster than real Batsim with the same scheduler; our
``easy`` at least as fast as ``easyBackfill`` on the same engine; ``conservative``
replays the full trace in under 5 minutes.
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

from adaptsched.engines.real import batsim_version, find_batsim
from adaptsched.platforms.simgrid import write_cluster
from adaptsched.workloads.convert import convert_swf, write_workload

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TRACE = REPO.parent / "shared" / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"
KEYS = (
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "final_state",
    "starting_time",
    "finish_time",
    "allocated_resources",
    "metadata",
)


def same_jobs(a: str, b: str) -> tuple[int, int]:
    """(rows, rows that differ) between two _jobs.csv on the conformance columns."""
    rows = lambda p: {r["job_id"]: tuple(r[k] for k in KEYS) for r in csv.DictReader(open(p))}  # noqa: E731
    first, second = rows(a), rows(b)
    differ = sum(1 for j in first.keys() | second.keys() if first.get(j) != second.get(j))
    return len(first), differ


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", default=str(DEFAULT_TRACE))
    parser.add_argument("--hosts", type=int, default=338)
    parser.add_argument("--first", type=int, help="only the first N jobs (quick check)")
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "engines"))
    parser.add_argument("--no-batsim", action="store_true", help="skip real Batsim even if installed")
    parser.add_argument(
        "--no-pin",
        action="store_true",
        help="do not bind engine and scheduler to one CPU (adaptsched run --no-pin), for both engines",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="rounds; each run's best time is kept "
        "(runs are interleaved so that machine noise hits every configuration alike)",
    )
    args = parser.parse_args(argv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    trace = Path(args.trace)
    if not trace.is_file():
        sys.exit(f"benchmarks/engines.py: no trace {trace} (pass --trace)")
    workload, report = convert_swf(trace, hosts=args.hosts, first=args.first)
    workload_path = write_workload(workload, out / "workload.json")
    platform_path = write_cluster(args.hosts, out / f"cluster{args.hosts}.xml")
    batsim = None if args.no_batsim else find_batsim()
    print(report.summary().splitlines()[0])
    print(f"real Batsim: {batsim + ' (' + batsim_version(batsim) + ')' if batsim else 'not installed'}")

    plan = [("easy", "embedded"), ("easyBackfill", "embedded")]
    if batsim:
        plan += [("easy", "batsim"), ("easyBackfill", "batsim")]
    plan += [("conservative", "embedded")]
    results = {}
    for round_ in range(1, args.repeat + 1):
        for scheduler, engine in plan:
            prefix = out / f"{scheduler}_{engine}"
            command = (
                [
                    sys.executable,
                    "-m",
                    "adaptsched",
                    "run",
                    "--scheduler",
                    scheduler,
                    "--workload",
                    str(workload_path),
                    "--platform",
                    str(platform_path),
                    "--out",
                    str(prefix),
                    "--engine",
                    engine,
                    "--progress",
                    "off",
                ]
                + (["--batsim", batsim] if batsim else [])
                + (["--no-pin"] if args.no_pin else [])
            )
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True)
            wall = time.perf_counter() - start
            if done.returncode != 0:
                sys.exit(f"{' '.join(command)} failed:\n{done.stderr}")
            result = argparse.Namespace(nb_jobs=len(workload["jobs"]))
            entry = results.setdefault(
                (scheduler, engine), {"jobs": result.nb_jobs, "prefix": str(prefix), "times_s": []}
            )
            entry["times_s"].append(wall)
            entry["wall_s"] = min(entry["times_s"])
            entry["jobs_per_s"] = result.nb_jobs / entry["wall_s"]
            print(f"round {round_}: {scheduler:>13} on {engine:>8}: {wall:7.1f} s", flush=True)

    pinning = "engine and scheduler not pinned" if args.no_pin else "engine and scheduler pinned to one CPU"
    lines = [
        f"Best of {args.repeat} interleaved rounds; {trace.name}, {len(workload['jobs'])} jobs, "
        f"{args.hosts} hosts; {pinning}.",
        "",
        "| scheduler | engine | best wall (s) | jobs/s | all runs (s) |",
        "|---|---|---:|---:|---|",
    ]
    lines += [
        f"| {s} | {e} | {r['wall_s']:.1f} | {r['jobs_per_s']:.0f} | "
        + ", ".join(f"{t:.1f}" for t in r["times_s"])
        + " |"
        for (s, e), r in results.items()
    ]
    ratios = {}
    for scheduler in ("easy", "easyBackfill"):
        if (scheduler, "batsim") in results:
            ratios[f"{scheduler}: real Batsim / embedded (wall time)"] = (
                results[(scheduler, "batsim")]["wall_s"] / results[(scheduler, "embedded")]["wall_s"]
            )
            rows, differ = same_jobs(
                results[(scheduler, "batsim")]["prefix"] + "_jobs.csv",
                results[(scheduler, "embedded")]["prefix"] + "_jobs.csv",
            )
            ratios[f"{scheduler}: jobs differing between engines (of {rows})"] = differ
    for engine in ("embedded", "batsim"):
        if ("easy", engine) in results:
            ratios[f"{engine}: easyBackfill / easy (wall time)"] = (
                results[("easyBackfill", engine)]["wall_s"] / results[("easy", engine)]["wall_s"]
            )
    lines += [""] + [f"- {k}: {v:.2f}" if isinstance(v, float) else f"- {k}: {v}" for k, v in ratios.items()]
    text = "\n".join(lines)
    print(text)
    context = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "trace": str(trace),
        "hosts": args.hosts,
        "batsim": batsim,
    }
    (out / "benchmark.md").write_text(text + "\n")
    (out / "benchmark.json").write_text(
        json.dumps(
            {"context": context, "ratios": ratios, "runs": {f"{s}/{e}": r for (s, e), r in results.items()}}, indent=2
        )
    )
    print(f"written: {out / 'benchmark.md'}")


if __name__ == "__main__":
    main()
