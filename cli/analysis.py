"""``adaptsched metrics`` and ``adaptsched compare``: a run's metrics, runs side by side.

(``explore``, issue 28, belongs here too: an HTML view of a run.)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from adaptsched.errors import AdaptschedError, positive_int

from .common import Subparsers, add_metric_options, output_folder, say


def register(sub: Subparsers) -> None:
    p = sub.add_parser("metrics", help="metrics of a run (PREFIX_jobs.csv)")
    p.add_argument("jobs_csv", help="a Batsim _jobs.csv (or its prefix)")
    add_metric_options(p, window=False)
    p.add_argument("--short", type=float, default=3600.0, help="short jobs run less than this (s, default 3600)")
    p.add_argument("--long", type=float, default=36000.0, help="long jobs run at least this (s, default 36000)")
    p.add_argument("--wide", type=positive_int, default=16, help="wide jobs use more hosts than this (default 16)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument(
        "--workload",
        metavar="W.json",
        help="the run's Batsim JSON workload: first check the run's physics against it (every job ran its "
        "profile's or its speedup model's time, or was killed; no early start, no host shared) and refuse "
        "a run that breaks it",
    )
    p.set_defaults(func=cmd_metrics)

    p = sub.add_parser("compare", help="compare runs: tables, charts and Gantt charts")
    p.add_argument("runs", nargs="+", help="run prefixes (or _jobs.csv files)")
    p.add_argument("--out", required=True, help="directory for the comparison")
    add_metric_options(p)
    p.add_argument(
        "--allow-mixed",
        action="store_true",
        help="compare runs of different workloads or machine sizes anyway (refused by default)",
    )
    p.set_defaults(func=cmd_compare)


def cmd_metrics(args: argparse.Namespace) -> int:
    from adaptsched.analysis import compute_metrics, format_metrics
    from adaptsched.analysis.metrics import nothing_ran

    metrics = compute_metrics(
        args.jobs_csv, bound_s=args.bound, hosts=args.hosts, short_s=args.short, long_s=args.long, wide_hosts=args.wide
    )
    unfinished = nothing_ran(metrics)
    if unfinished:
        raise AdaptschedError(f"{metrics['source']}: {unfinished}")
    if args.workload:
        check_against(metrics, args.workload)
    if metrics["hosts_source"].startswith("highest"):  # Batsim writes _schedule.csv at the very end
        print(
            f"adaptsched metrics: note: no _schedule.csv beside {metrics['source']}: if its run stopped early, "
            "these metrics cover only the jobs it finished",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(metrics, indent=2))
    else:
        say(format_metrics(metrics))
    return 0


def check_against(metrics: dict, workload: str) -> None:
    """The run's invariants and physics against its workload, or an error naming the jobs."""
    from adaptsched.analysis.invariants import check_run

    problems = check_run(metrics["source"], workload, int(metrics["hosts"]))
    if problems:
        raise AdaptschedError(
            f"{metrics['source']} breaks the run's physics or invariants against {workload} "
            f"({len(problems)} found): " + "; ".join(problems)
        )
    print(f"adaptsched metrics: {metrics['source']}: physics and invariants hold against {workload}", file=sys.stderr)


def cmd_compare(args: argparse.Namespace) -> int:
    from adaptsched.analysis import compare_runs

    output_folder(args.out)
    written = compare_runs(
        args.runs,
        args.out,
        bound_s=args.bound,
        hosts=args.hosts,
        allow_mixed=args.allow_mixed,
        gantt_window=args.window,
        say=lambda text: print(f"adaptsched compare: {text}", file=sys.stderr),
    )
    say(Path(written["markdown"]).read_text())
    say(
        f"comparison written to {Path(args.out).resolve()}: "
        + ", ".join(Path(p).name for key, p in written.items() if key != "json")
    )
    return 0
