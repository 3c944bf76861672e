"""What the end-of-run physics check costs (engines/checks/physics.py), against the run it checks.

Every run ends with :func:`adaptsched.engines.run.check_run`; it must stay cheap (under
5 % of a run). This script runs one trace (default: the full CTC-SP2 log, 77,205 jobs, under
``easy``, in-process) twice in this process, alternately with and without the check, and times
the check alone on the outputs, all in CPU time (``time.process_time``: what this process
computed, less sensitive than wall time to the other processes of a busy machine):

    .venv/bin/python benchmarks/physics.py [--scheduler easy] [--trace T] [--hosts 338] [--rounds 2]
        [--moldable downey]

``--moldable MODEL`` annotates every job with a speedup model first (``mold-annotate``), for
the moldable schedulers (``--scheduler downey``): their molded copies are the check's slow
path, timed one by one. It prints each round and the median share of the check in a run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import adaptsched.engines.run.simulation as engine_run
from adaptsched.engines.checks.physics import Physics, check_physics
from adaptsched.engines.run import RunSpec, run
from adaptsched.workloads import moldable
from adaptsched.workloads.batsim_json import load_workload
from adaptsched.workloads.convert import convert_swf, write_workload
from adaptsched.workloads.traces import shared_trace

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TRACE = shared_trace("CTC-SP2")
clock = time.process_time


def timed_run(spec: RunSpec, *, check: bool) -> float:
    """CPU seconds of one run, with or without its end-of-run check."""
    saved = engine_run.check_run
    if not check:
        engine_run.check_run = lambda *args, **kwargs: Physics()  # type: ignore[assignment]
    try:
        start = clock()
        run(spec, say=lambda *a: None)
        return clock() - start
    finally:
        engine_run.check_run = saved


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scheduler", default="easy")
    parser.add_argument("--trace", default=str(DEFAULT_TRACE))
    parser.add_argument("--hosts", type=int, default=338)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--moldable", choices=moldable.MODELS, help="annotate every job with this speedup model")
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "physics"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    workload, _ = convert_swf(args.trace, hosts=args.hosts)
    if args.moldable:
        workload, _ = moldable.annotate(workload, model=args.moldable)
    path = write_workload(workload, out / f"workload{'-' + args.moldable if args.moldable else ''}.json")
    spec = RunSpec.make(args.scheduler, path, args.hosts, out / args.scheduler, progress=False)
    loaded = load_workload(path)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {os.getloadavg()[0]:.1f}, "
          f"{loaded.nb_jobs:,} jobs{', moldable (' + args.moldable + ')' if args.moldable else ''}, "
          f"{args.scheduler}, in-process")  # fmt: skip
    shares = []
    for k in range(args.rounds):
        without = timed_run(spec, check=False)
        with_check = timed_run(spec, check=True)
        start = clock()
        physics = check_physics(f"{spec.prefix}_jobs.csv", loaded, args.hosts, speeds=[1e9] * args.hosts)
        alone = clock() - start
        shares.append(alone / without)
        print(
            f"round {k + 1}: run {without:.2f} s CPU without the check, {with_check:.2f} s with it; "
            f"the check alone {alone:.3f} s ({alone / without:.1%} of the run; {physics.timed:,} attempts timed, "
            f"{physics.untimed:,} not timed, {physics.count} violations)"
        )
    print(f"median share of the check: {statistics.median(shares):.1%}")


if __name__ == "__main__":
    main()
