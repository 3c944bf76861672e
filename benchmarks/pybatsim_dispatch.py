"""pybatsim's own cost per message: its ``Batsim._read_bat_msg`` against engines/transports/dispatch.py's mirror.

``benchmarks/breakdown.py`` times pybatsim as the exchange's time minus the plugin's handlers',
with two CPU clock reads around every handler call; on a VM where one read costs about a
microsecond, that instrumentation weighs as much as what it measures. This script measures
pybatsim alone, without the engine, the scheduler or per-call clocks:

1. one in-process run of the scheduler on the trace records every message the engine sends
   and every reply (Python structures, as the in-process transport passes them);
2. the messages are replayed through ``InProcessConnection.exchange`` (as in a run) to a fresh
   pybatsim ``Batsim`` whose plugin does no scheduling: its handlers are empty but
   ``onNoMoreEvents``, which hands back the recorded reply's events; once with pybatsim's own
   ``_read_bat_msg`` for every message, once with the mirror, alternately ``--repeat`` times;
   the CPU time (``time.process_time``) of each whole replay, per message;
   the garbage collector set as the engine sets it for a run;
3. every replayed reply must equal the recorded one (else the script fails).

    .venv/bin/python benchmarks/pybatsim_dispatch.py [--scheduler easy] [--first 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import pickle
import sys
import time
from pathlib import Path

import adaptsched.engines.transports.dispatch as dispatch
import adaptsched.engines.transports.inprocess as inprocess
from adaptsched.engines.run import RunSpec, run
from adaptsched.platforms.simgrid import write_cluster
from adaptsched.workloads.convert import convert_swf, write_workload
from adaptsched.workloads.traces import shared_trace

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TRACE = shared_trace("CTC-SP2")

REPLAYER = '''
import pickle
from batsim.batsim import BatsimScheduler


class Replayer(BatsimScheduler):
    """Answers the n-th message with the n-th recorded reply's events; schedules nothing."""

    def __init__(self, options):
        super().__init__(options)
        with open(options["replies"], "rb") as handle:
            self.replies = iter(pickle.load(handle))

    def onJobSubmission(self, job):
        pass

    def onJobCompletion(self, job):
        pass

    def onJobsKilled(self, jobs):
        pass

    def onRequestedCall(self):
        pass

    def onNoMoreEvents(self):
        self.bs._events_to_send.extend(next(self.replies))
'''


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scheduler", default="easy")
    parser.add_argument("--trace", default=str(DEFAULT_TRACE))
    parser.add_argument("--hosts", type=int, default=338)
    parser.add_argument("--first", type=int, help="only the first N jobs")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(REPO / "results" / "benchmarks" / "pybatsim_dispatch"))
    return parser.parse_args(argv)


def record(args, out: Path) -> list:
    """[(message, reply)] of one in-process run."""
    workload, _ = convert_swf(args.trace, hosts=args.hosts, first=args.first)
    workload_path = write_workload(workload, out / "workload.json")
    platform_path = write_cluster(args.hosts, out / f"cluster{args.hosts}.xml")
    exchange = inprocess.InProcessConnection.exchange
    exchanges = []

    def recording(self, message):
        reply = exchange(self, message)
        exchanges.append((message, reply))
        return reply

    inprocess.InProcessConnection.exchange = recording  # type: ignore[method-assign]
    try:
        run(
            RunSpec.make(args.scheduler, workload_path, platform_path, out / args.scheduler, progress=False),
            say=lambda *a: None,
        )
    finally:
        inprocess.InProcessConnection.exchange = exchange  # type: ignore[method-assign]
    return exchanges


def replay(exchanges: list, plugin: Path, replies: Path, mirror: bool, log: Path) -> float:
    """CPU seconds to pass every recorded message through pybatsim; checks each reply."""
    dispatch.ENABLED = mirror
    connection = inprocess.InProcessConnection(str(plugin), {"replies": str(replies)}, log)
    gc.collect()
    gc.freeze()  # as the engine does during a run (engines/embedded/batsim.py): the recorded
    threshold = gc.get_threshold()  # messages are not scanned, the youngest generation rarely
    gc.set_threshold(max(threshold[0], 100_000), *threshold[1:])
    try:
        got = []
        exchange = connection.exchange
        start = time.process_time()
        for message, _ in exchanges:
            got.append(exchange(message))
        spent = time.process_time() - start
        if (connection.dispatcher is not None) != mirror:
            raise SystemExit(f"the mirror was {'not ' if mirror else ''}used; see {log}")
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()
        connection.close()
        dispatch.ENABLED = True
    for number, ((_, expected), reply) in enumerate(zip(exchanges, got)):
        if reply != expected:
            raise SystemExit(f"reply {number} differs ({'mirror' if mirror else 'stock'}): {reply} != {expected}")
    return spent


def main(argv=None):
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    exchanges = record(args, out)
    plugin = out / "replayer.py"
    plugin.write_text(REPLAYER)
    replies = out / "replies.pickle"
    with open(replies, "wb") as handle:
        pickle.dump([reply["events"] for _, reply in exchanges], handle)
    n = len(exchanges)
    times: dict[str, list[float]] = {"stock": [], "mirror": []}
    for _ in range(args.repeat):
        for name in times:
            times[name].append(replay(exchanges, plugin, replies, name == "mirror", out / f"{name}_sched.log"))
    print(
        f"{args.scheduler}, {args.first or 'all'} jobs of {Path(args.trace).name}: {n} messages replayed, "
        f"replies identical to the run's ({datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    print("| pybatsim's `_read_bat_msg` | CPU s per replay | us per message (best) |")
    print("|---|---:|---:|")
    for name, label in (("stock", "pybatsim's own"), ("mirror", "engines/transports/dispatch.py")):
        print(f"| {label} | {' / '.join(f'{t:.2f}' for t in times[name])} | {1e6 * min(times[name]) / n:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
