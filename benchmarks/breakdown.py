"""Where an in-process run's time goes: loading, the engine, pybatsim, the scheduler, per message.

Runs one simulation on the embedded engine with the in-process transport and splits its CPU
time (``time.process_time``: what this process computed, less sensitive than wall time to the
other processes of a busy machine) by clocks around the hand-overs (no profiler, whose per-call
overhead would distort the small functions of the engine):

- *loading*: reading and checking the workload, platform and plugin (before the first message);
- *scheduler*: time inside the plugin's handlers (``onJobSubmission``, ``onNoMoreEvents``...,
  each wrapped in a clock);
- *pybatsim*: time inside pybatsim's ``Batsim._read_bat_msg`` minus the scheduler's;
- *engine*: the rest of the run, split at the end of the last exchange into the *simulation*
  (the kernel, Batsim's actors, decision checks, outputs) and what comes *after the last
  message* (closing the outputs, the physics check of ``_jobs.csv``, the collection after the run).

Each clock read costs about a microsecond on a VM (``CLOCK_PROCESS_CPUTIME_ID`` is a system
call), and a run reads it twice per handler call and per message: that is CPU the run spends
only because it is measured, split between the parts. The right-hand columns subtract it: the
same wrappers timed around calls that do nothing, after the run, give what they add inside and
outside each timed interval, times the number of calls. ``--stock-pybatsim`` runs pybatsim's
own ``_read_bat_msg`` for every message instead of engines/transports/dispatch.py's mirror (an A/B pair).

The clocks around the plugin's handlers are instance attributes that refer to the plugin: the
connection's ``close`` removes them, or the plugin and all it holds (pybatsim's jobs) would be
cyclic garbage for the collection after the run, about 1 s on CTC's year counted as *engine*,
which an untimed run does not pay. The last line is the aim for the engine's share on this run (engine +
pybatsim under 25 % of it), with how long the simulation may take for it to hold given the
other parts, or the share left even by a simulation that took no time.

    .venv/bin/python benchmarks/breakdown.py [--scheduler easy] [--first 20000] [--trace T]
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import adaptsched.engines.transports.dispatch as dispatch
import adaptsched.engines.transports.inprocess as inprocess
from adaptsched.engines.run import RunSpec, run
from adaptsched.platforms.simgrid import write_cluster
from adaptsched.workloads.convert import convert_swf, write_workload
from adaptsched.workloads.traces import shared_trace

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TRACE = shared_trace("CTC-SP2")
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
        help="pybatsim's own _read_bat_msg for every message, not engines/transports/dispatch.py's mirror (for A/B)",
    )
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "breakdown"))
    parser.add_argument("--report", help="also write the table to this Markdown file (docs/results/engines/...)")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    workload, _ = convert_swf(args.trace, hosts=args.hosts, first=args.first)
    workload_path = write_workload(workload, out / "workload.json")
    platform_path = write_cluster(args.hosts, out / f"cluster{args.hosts}.xml")

    clocks = {
        "scheduler": 0.0,
        "exchange": 0.0,
        "exchanges": 0,
        "calls": 0,
        "first_message": None,
        "last_message": None,
    }
    timed, timing = handler_clock(clocks), exchange_clock(clocks)
    dispatch.ENABLED = not args.stock_pybatsim
    start = clock()
    with instrumented(timed, timing):
        run(
            RunSpec.make(args.scheduler, workload_path, platform_path, out / args.scheduler, progress=False),
            say=lambda *a: None,
        )
    finish = clock()
    clocks["end"] = finish
    lines = tell(args, len(workload["jobs"]), clocks, clock_costs(clocks, timed, timing), finish - start)
    if args.report:
        write_report(args, lines)
    return 0


def handler_clock(clocks: dict):
    """A wrapper of a plugin's handler that adds its time to ``clocks["scheduler"]``."""

    def timed(method):
        def wrapper(*a, **k):
            start = clock()
            try:
                return method(*a, **k)
            finally:
                clocks["scheduler"] += clock() - start
                clocks["calls"] += 1

        return wrapper

    return timed


def exchange_clock(clocks: dict):
    """A wrapper of the connection's ``exchange`` that adds its time to ``clocks["exchange"]``
    and notes the first and last messages' times."""

    def timing(exchange):
        def timed_exchange(self, message):
            start = clock()
            if clocks["first_message"] is None:
                clocks["first_message"] = start
            try:
                return exchange(self, message)
            finally:
                end = clock()
                clocks["exchange"] += end - start
                clocks["exchanges"] += 1
                clocks["last_message"] = end

        return timed_exchange

    return timing


@contextmanager
def instrumented(timed, timing):
    """In the block, the in-process plugin's handlers are wrapped in ``timed`` as it is loaded
    and the connection's exchanges in ``timing``; the transport is put back after."""
    load_scheduler = inprocess.load_scheduler
    wrapped = []  # the plugin objects whose handlers are timed

    def loading_and_wrapping(scheduler, options):
        obj = load_scheduler(scheduler, options)
        for name in HANDLERS:
            if hasattr(obj, name):
                setattr(obj, name, timed(getattr(obj, name)))
        wrapped.append(obj)
        return obj

    close = inprocess.InProcessConnection.close

    def closing(self):
        # Each wrapper holds a bound method of the plugin, in the plugin's own __dict__: a cycle
        # through which the whole run (pybatsim's jobs, the scheduler's state) would wait for the
        # full collection after the run, about 1 s on CTC's year, that a run without the wrappers
        # does not pay (close() breaks the run's own cycles: engines/transports/inprocess.py, _release).
        for obj in wrapped:
            for name in HANDLERS:
                vars(obj).pop(name, None)
        wrapped.clear()
        close(self)

    exchange = inprocess.InProcessConnection.exchange
    timed_exchange = timing(exchange)
    inprocess.load_scheduler = loading_and_wrapping
    inprocess.InProcessConnection.exchange = timed_exchange
    inprocess.InProcessConnection.close = closing
    try:
        yield
    finally:
        inprocess.load_scheduler = load_scheduler
        inprocess.InProcessConnection.exchange = exchange
        inprocess.InProcessConnection.close = close


def tell(args: argparse.Namespace, nb_jobs: int, clocks: dict, costs: tuple, wall: float) -> list[str]:
    """Prints the parts of the run (raw, and less the clocks' own cost) and returns the lines."""
    loading = wall - (clocks["end"] - clocks["first_message"])
    scheduler = clocks["scheduler"]
    pybatsim = clocks["exchange"] - scheduler
    engine = wall - loading - clocks["exchange"]
    after = clocks["end"] - clocks["last_message"]  # the engine's part after the last message (no clock inside)
    n = clocks["exchanges"]
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text)
        lines.append(text)

    say(
        f"{args.scheduler}{' (stock pybatsim)' if args.stock_pybatsim else ''}, "
        f"{nb_jobs} jobs, {args.hosts} hosts: {wall:.2f} s of CPU, {n} messages "
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
    say("| part | s | share | us per message | less the clocks: s | share | us per message |")
    say("|---|---:|---:|---:|---:|---:|---:|")
    for name, value in (("loading", loading), ("engine", engine), ("pybatsim", pybatsim), ("scheduler", scheduler)):
        fixed = corrected[name]
        say(
            f"| {name} | {value:.2f} | {100 * value / wall:.0f}% | {1e6 * value / n:.1f} "
            f"| {fixed:.2f} | {100 * fixed / net:.0f}% | {1e6 * fixed / n:.1f} |"
        )
        if name == "engine":  # split at the last message: the simulation, then what ends the run
            for part, raw, net_part in (
                ("simulation", value - after, fixed - after),
                ("after the last message", after, after),
            ):
                say(
                    f"| - {part} | {raw:.2f} | {100 * raw / wall:.0f}% | {1e6 * raw / n:.1f} "
                    f"| {net_part:.2f} | {100 * net_part / net:.0f}% | {1e6 * net_part / n:.1f} |"
                )
    say(
        f"| clocks | | | | {wall - net:.2f} | | {1e6 * (wall - net) / n:.1f} "
        f"({calls} handler calls and {n} exchanges timed; one clock read "
        f"{1e6 * (handler_in + handler_out) / 2:.2f} us) |"
    )
    say("")
    say(engine_share(corrected, after, n))
    return lines


def write_report(args: argparse.Namespace, lines: list[str]) -> None:
    """The printed table as a Markdown report, with the command that rewrites it."""
    command = "benchmarks/breakdown.py"
    command += f" --scheduler {args.scheduler}" if args.scheduler != "easy" else ""
    command += f" --first {args.first}" if args.first else ""
    command += " --stock-pybatsim" if args.stock_pybatsim else ""
    head = "# Where an in-process run's time goes (benchmarks/breakdown.py)"
    body = "\n".join([head, "", lines[0], "", *lines[1:], "", f"Regenerate with `{command} --report {args.report}`."])
    Path(args.report).write_text(body + "\n")


def engine_share(parts: dict[str, float], after: float, n: int) -> str:
    """The engine's share against its aim on this run (engine + pybatsim under 25 % of it, less the clocks), and
    what it leaves the simulation: (E + P) <= (L + E + P + S) / 4 holds when E <= (L + S) / 3 - P,
    so with this run's loading L, pybatsim P, scheduler S and the engine's part after the last
    message A (closing the outputs, the physics check, the collection), the simulation may take
    at most (L + S) / 3 - P - A; when that is negative, even a simulation that took no time
    leaves engine + pybatsim at (A + P) / (L + A + P + S)."""
    loading, pybatsim, scheduler = parts["loading"], parts["pybatsim"], parts["scheduler"]
    simulation = parts["engine"] - after
    share = (parts["engine"] + pybatsim) / sum(parts.values())
    budget = (loading + scheduler) / 3 - pybatsim - after
    if budget > 0:
        room = f"the simulation may take at most {budget:.2f} s ({1e6 * budget / n:.1f} us per message)"
    else:
        floor = (after + pybatsim) / (loading + after + pybatsim + scheduler)
        room = f"even a simulation that took no time would leave engine + pybatsim at {100 * floor:.0f} %"
    return (
        f"The aim for the engine's share: engine + pybatsim {100 * share:.0f} % of the run, less the clocks: "
        f"{'met' if share < 0.25 else 'NOT met'} (under 25 %). With this run's loading, pybatsim, "
        f"scheduler and end of run, {room}; it took {simulation:.2f} s ({1e6 * simulation / n:.1f} us per message)."
    )


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
