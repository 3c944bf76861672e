"""Perković & Keleher's orders under alternative readings of the paper, in-process.

Replays the first ``--jobs`` jobs of CTC-SP2 (users' estimates as walltimes, ``--hosts`` 430 as
the paper) through the ``backfill`` scheduler (:mod:`adaptsched.core.replay`, no simulator) for
BF (order D with guarantees), P/L-NG and R/L-NG (``--seeds`` seeds each), with the extra
``--option key=value`` of a reading, and prints one JSON line per run (mean bounded slowdown
with a ``--bound-s`` bound, as the paper's formula and clamped at 1 as
:func:`adaptsched.analysis.metrics.bounded_slowdown_of`, mean delay, mean response) and the
gains of P/L-NG and R/L-NG over BF (mean over seeds), as ``adaptsched reproduce perkovic-keleher`` reports them.

    .venv/bin/python benchmarks/pk_readings.py --jobs 20000 --seeds 2 --label default
    .venv/bin/python benchmarks/pk_readings.py --jobs 20000 --seeds 2 --label w0 --option starvation_weight=0
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO.parent))  # the repository root is the adaptsched package

from adaptsched.core.backfill import Backfill  # noqa: E402
from adaptsched.core.base import Job  # noqa: E402
from adaptsched.core.replay import replay  # noqa: E402
from adaptsched.workloads.convert import convert_swf  # noqa: E402
from adaptsched.workloads.traces import find_trace  # noqa: E402


def metrics(out, bound_s: float) -> dict:
    done = [o for o in out.values() if o.start_s is not None and o.end_s is not None]
    bsld = [(o.end_s - o.job.submit_s) / max(o.end_s - o.start_s, bound_s) for o in done]
    return {
        "jobs": len(done),
        "bsld": statistics.fmean(bsld),  # the paper's formula
        "bsld_clamped": statistics.fmean(max(1.0, b) for b in bsld),  # analysis/metrics.py's: at least 1
        "delay_s": statistics.fmean(o.start_s - o.job.submit_s for o in done),
        "response_s": statistics.fmean(o.end_s - o.job.submit_s for o in done),
    }


def parse_value(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return {"true": True, "false": False}.get(text.lower(), text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--trace", default=None, help="SWF file (default: the CTC-SP2 trace, found as docs/getting-started.md says)"
    )
    parser.add_argument("--jobs", type=int, default=20000)
    parser.add_argument("--hosts", type=int, default=430)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--bound-s", type=float, default=10.0)
    parser.add_argument("--label", default="default")
    parser.add_argument("--option", action="append", default=[], help="key=value for every run (a reading)")
    parser.add_argument("--bf-option", action="append", default=[], help="key=value for BF only")
    parser.add_argument("--ng-option", action="append", default=[], help="key=value for the -NG runs only")
    parser.add_argument("--skip-bf", action="store_true")
    parser.add_argument("--orders", default="P/L,R/L", help="the -NG orders to run (comma-separated)")
    args = parser.parse_args(argv)
    common = dict(o.split("=", 1) for o in args.option)
    common = {k: parse_value(v) for k, v in common.items()}
    bf_extra = {k: parse_value(v) for k, v in (o.split("=", 1) for o in args.bf_option)}
    ng_extra = {k: parse_value(v) for k, v in (o.split("=", 1) for o in args.ng_option)}
    workload, _ = convert_swf(find_trace("CTC-SP2", args.trace), hosts=args.hosts, first=args.jobs)
    profiles = workload["profiles"]
    jobs = [
        (str(j["id"]), j["subtime"], j["res"], j["walltime"], profiles[j["profile"]]["delay"]) for j in workload["jobs"]
    ]
    runs = [] if args.skip_bf else [("BF", {"order": "D", "guarantees": True, **bf_extra})]
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        for order in args.orders.split(","):
            runs.append((f"{order}-NG", {"order": order, "guarantees": False, "seed": seed, **ng_extra}))
    results: dict[str, list[dict]] = {}
    for label, options in runs:
        begin = time.perf_counter()
        scheduler = Backfill(args.hosts, **{**options, **common})
        out = replay(scheduler, [(Job(i, s, r, w), rt) for i, s, r, w, rt in jobs])
        m = metrics(out, args.bound_s)
        results.setdefault(label, []).append(m)
        row = {"reading": args.label, "run": label, "options": {**options, **common}, **m}
        print(json.dumps({**row, "wall_s": round(time.perf_counter() - begin)}), flush=True)
    if "BF" in results:
        bf = results["BF"][0]
        summary = {"reading": args.label, "jobs": args.jobs, "hosts": args.hosts, "BF_bsld": bf["bsld"]}
        for label in [f"{order}-NG" for order in args.orders.split(",")]:
            bsld = statistics.fmean(m["bsld"] for m in results[label])
            delay = statistics.fmean(m["delay_s"] for m in results[label])
            summary[label] = {
                "bsld": bsld,
                "bsld_gain_pct": 100 * (bsld / bf["bsld"] - 1),
                "delay_gain_pct": 100 * (delay / bf["delay_s"] - 1),
            }
        print(json.dumps({"summary": summary}), flush=True)


if __name__ == "__main__":
    main()
