"""Where an in-process run's time goes: loading, the engine, pybatsim, the scheduler, per message.

Runs one simulation on the embedded engine with the in-process transport and splits its CPU
time (``time.process_time``: what this process computed, less sensitive than wall time to the
other processes of a busy machine) by clocks around the hand-overs (no profiler, whose per-call
overhead would distort the small functions of the engine):

- *loading*: reading and checking the workload, platform and plugin (before the first message);
- *scheduler*: time inside the plugin's handlers (``onJobSubmission``, ``onNoMoreEvents``...,
  each wrapped in a clock);
- *pybatsim*: time inside pybatsim's ``Batsim._read_bat_msg`` minus the scheduler's;
- *engine*: the rest of the simulation (the kernel, Batsim's actors, decision checks, outputs).

Each clock read costs about a microsecond on a VM (``CLOCK_PROCESS_CPUTIME_ID`` is a system
call), and a run reads it twice per handler call and per message: that is CPU the run spends
only because it is measured, split between the parts. The right-hand columns subtract it: the
same wrappers timed around calls that do nothing, after the run, give what they add inside and
outside each timed interval, times the number of calls. ``--stock-pybatsim`` runs pybatsim's
own ``_read_bat_msg`` for every message instead of engines/dispatch.py's mirror (an A/B pair).

    .venv/bin/python benchmarks/breakdown.py [--scheduler easy] [--first 20000] [--trace T]
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from pathlib import Path

import adaptsched.engines.dispatch as dispatch
import adaptsched.engines.inprocess as inprocess
from adaptsched.engines.run import RunSpec, run
from adaptsched.platforms.simgrid import write_cluster
from adaptsched.workloads.convert import convert_swf, write_workload

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TRACE = REPO.parent / "shared" / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"
clock = time.process_time  # the run is one thread: the plugin shares the engine's process
HANDLERS = (
    "onAfterBatsimInit",
    "onSimulationBegins",
    "onSimulationEnds",
    "onJobSubmission",
    "onJobCompletion",
    "onJobsKilled",
    "onRequestedCall",
    "onNoMoreJobsInWorkloads",
    "onBeforeEvents",
    "onNoMoreEvents",
)


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scheduler", default="easy")
    parser.add_argument("--trace", default=str(DEFAULT_TRACE))
    parser.add_argument("--hosts", type=int, default=338)
    parser.add_argument("--first", type=int, help="only the first N jobs")
    parser.add_argument(
        "--stock-pybatsim",
        action="store_true",
        help="pybatsim's own _read_bat_msg for every message, not engines/dispatch.py's mirror (for A/B)",
    )
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "breakdown"))
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    workload, _ = convert_swf(args.trace, hosts=args.hosts, first=args.first)
    workload_path = write_workload(workload, out / "workload.json")
    platform_path = write_cluster(args.hosts, out / f"cluster{args.hosts}.xml")

    clocks = {"scheduler": 0.0, "exchange": 0.0, "first_message": None, "exchanges": 0, "calls": 0}
    load_scheduler = inprocess.load_scheduler

    def timed(method):
        def wrapper(*a, **k):
            start = clock()
            try:
                return method(*a, **k)
            finally:
                clocks["scheduler"] += clock() - start
                clocks["calls"] += 1

        return wrapper

    def loading_and_wrapping(scheduler, options):
        obj = load_scheduler(scheduler, options)
        for name in HANDLERS:
            if hasattr(obj, name):
                setattr(obj, name, timed(getattr(obj, name)))
        return obj

    def timing(exchange):
        def timed_exchange(self, message):
            start = clock()
            if clocks["first_message"] is None:
                clocks["first_message"] = start
            try:
                return exchange(self, message)
            finally:
                clocks["exchange"] += clock() - start
                clocks["exchanges"] += 1

        return timed_exchange

    exchange = inprocess.InProcessConnection.exchange
    timed_exchange = timing(exchange)

    dispatch.ENABLED = not args.stock_pybatsim
    inprocess.load_scheduler = loading_and_wrapping
    inprocess.InProcessConnection.exchange = timed_exchange
    start = clock()
    try:
        run(
            RunSpec.make(args.scheduler, workload_path, platform_path, out / args.scheduler, progress=False),
            say=lambda *a: None,
        )
    finally:
        inprocess.load_scheduler = load_scheduler
        inprocess.InProcessConnection.exchange = exchange
    wall = clock() - start
    costs = clock_costs(clocks, timed, timing)
    loading = clocks["first_message"] - start
    scheduler = clocks["scheduler"]
    pybatsim = clocks["exchange"] - scheduler
    engine = wall - loading - clocks["exchange"]
    n = clocks["exchanges"]
    print(
        f"{args.scheduler}{' (stock pybatsim)' if args.stock_pybatsim else ''}, "
        f"{len(workload['jobs'])} jobs, {args.hosts} hosts: {wall:.2f} s of CPU, {n} messages "
        f"({datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    calls = clocks["calls"]
    handler_in, handler_out, exchange_in, exchange_out = costs
    corrected = {  # less the clocks' own cost (module doc)
        "loading": loading,
        "engine": engine - n * exchange_out,
        "pybatsim": pybatsim - n * exchange_in - calls * handler_out,
        "scheduler": scheduler - calls * handler_in,
    }
    net = sum(corrected.values())
    print("| part | s | share | us per message | less the clocks: s | share | us per message |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, value in (("loading", loading), ("engine", engine), ("pybatsim", pybatsim), ("scheduler", scheduler)):
        fixed = corrected[name]
        print(
            f"| {name} | {value:.2f} | {100 * value / wall:.0f}% | {1e6 * value / n:.1f} "
            f"| {fixed:.2f} | {100 * fixed / net:.0f}% | {1e6 * fixed / n:.1f} |"
        )
    print(
        f"| clocks | | | | {wall - net:.2f} | | {1e6 * (wall - net) / n:.1f} "
        f"({calls} handler calls and {n} exchanges timed; one clock read "
        f"{1e6 * (handler_in + handler_out) / 2:.2f} us) |"
    )
    return 0


def clock_costs(clocks: dict, timed, timing, n: int = 20_000) -> tuple[float, float, float, float]:
    """CPU seconds per timed call that the clocks themselves add inside the timed interval and
    outside it: (handler inside, handler outside, exchange inside, exchange outside), measured
    on the same wrappers around calls that do nothing."""
    saved = dict(clocks)

    def measure(call, key):
        before = clocks[key]
        start = clock()
        for _ in range(n):
            call()
        total = clock() - start
        inside = clocks[key] - before
        return inside / n, (total - inside) / n

    handler = timed(lambda: None)
    exchange = timing(lambda self, message: None)
    handler_in, handler_out = measure(handler, "scheduler")
    exchange_in, exchange_out = measure(lambda: exchange(None, None), "exchange")
    clocks.update(saved)
    return handler_in, handler_out, exchange_in, exchange_out


if __name__ == "__main__":
    sys.exit(main())
