"""``adaptsched metrics``, ``compare`` and ``explore``: a run's metrics, runs side by side, and
runs in the browser (one self-contained HTML page: :mod:`adaptsched.analysis.explore`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from adaptsched.errors import AdaptschedError, positive_float, positive_int
from adaptsched.formats.files import refuse_overwriting

from .common import Subparsers, add_metric_options, output_folder, say


def register(sub: Subparsers) -> None:
    p = sub.add_parser("metrics", help="metrics of a run (PREFIX_jobs.csv)")
    p.add_argument("jobs_csv", help="a Batsim _jobs.csv (or its prefix)")
    add_metric_options(p, window=False)
    p.add_argument(
        "--short", type=positive_float, default=3600.0, help="short jobs run less than this (s, default 3600)"
    )
    p.add_argument(
        "--long", type=positive_float, default=36000.0, help="long jobs run at least this (s, default 36000)"
    )
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

    p = sub.add_parser(
        "explore",
        help="write the run explorer: one self-contained HTML page of whole runs (Gantt, load, jobs, metrics)",
        description="One HTML page (JavaScript and data inlined: it opens offline) to look at one run, or several "
        "runs on one time axis: a zoomable Gantt chart of every attempt, busy hosts, queued demand and waiting "
        "jobs, a sortable job table and the metrics (docs/analysis.md).",
    )
    p.add_argument("runs", nargs="+", metavar="PREFIX", help="run prefixes (or _jobs.csv files), one Gantt chart each")
    p.add_argument("--out", required=True, metavar="report.html", help="the page to write")
    add_metric_options(p, hosts=False)
    p.add_argument("--label", action="append", metavar="NAME", help="name of each run, in order (default: prefixes)")
    p.add_argument(
        "--max-items",
        type=positive_int,
        help="aggregate runs with more rectangles + attempts + jobs + load events than this "
        "(default 800,000: a page of about 20 MB)",
    )
    p.set_defaults(func=cmd_explore)


#: The files ``compare --out DIR`` writes in DIR whatever the runs (and a Gantt chart per run).
COMPARE_OUTPUTS = (
    "comparison.md",
    "comparison.csv",
    "comparison.json",
    "overall_bars.png",
    "class_bsld.png",
    "wait_cdf.png",
)


def run_inputs(runs: list[str]) -> list[tuple[str, str]]:
    """The files of runs given as prefixes or ``_jobs.csv`` files, as inputs that no output of
    the command may be (by inode: a link counts)."""
    inputs = []
    for run in runs:
        prefix = run.removesuffix("_jobs.csv")
        for suffix in ("_jobs.csv", "_schedule.csv", "_machine_states.csv"):
            inputs.append(("the run's file", f"{prefix}{suffix}"))
    return inputs


def cmd_metrics(args: argparse.Namespace) -> int:
    from adaptsched.analysis import compute_metrics, format_metrics
    from adaptsched.analysis.metrics import nothing_ran
    from adaptsched.engines.partial import PARTIAL

    metrics = compute_metrics(
        args.jobs_csv, bound_s=args.bound, hosts=args.hosts, short_s=args.short, long_s=args.long, wide_hosts=args.wide
    )
    unfinished = nothing_ran(metrics)
    if unfinished:
        raise AdaptschedError(f"{metrics['source']}: {unfinished}")
    partial = str(metrics["source"]).endswith(PARTIAL)
    if partial:
        print(
            f"adaptsched metrics: note: {metrics['source']} is what a run wrote before it failed or was "
            "interrupted: these metrics cover only the jobs it finished",
            file=sys.stderr,
        )
    if args.workload:
        check_against(metrics, args.workload)
    if metrics["hosts_source"].startswith("highest") and not partial:  # _schedule.csv is written at the end
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
    """The run's invariants and physics against its workload (every job of it has a row), or
    an error naming the jobs; what was checked, said."""
    from adaptsched.analysis.invariants import against_workload

    checked = against_workload(metrics["source"], workload, int(metrics["hosts"]))
    if checked.problems:
        raise AdaptschedError(
            f"{metrics['source']} breaks the run's physics or invariants against {workload} "
            f"({len(checked.problems)} found): " + "; ".join(checked.problems)
        )
    print(
        f"adaptsched metrics: {metrics['source']}: physics and invariants hold against {workload}: "
        f"all {checked.jobs:,} of its jobs have a row; {checked.physics.summary()}",
        file=sys.stderr,
    )


def cmd_compare(args: argparse.Namespace) -> int:
    from adaptsched.analysis import compare_runs

    refuse_overwriting([("the output", Path(args.out) / name) for name in COMPARE_OUTPUTS], run_inputs(args.runs))
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


def cmd_explore(args: argparse.Namespace) -> int:
    from adaptsched.analysis.explore import explore_runs

    refuse_overwriting([("the page (--out)", args.out)], run_inputs(args.runs))
    output_folder(Path(args.out).parent, "--out", args.out)
    limit = {} if args.max_items is None else {"max_items": args.max_items}
    written = explore_runs(
        args.runs, args.out, labels=args.label or None, window=args.window, bound_s=args.bound, **limit
    )
    say(explore_summary(written))
    return 0


def explore_summary(written: dict[str, Any]) -> str:
    """One line about an explorer page: what it holds, its size, and whether it is aggregated."""
    what = ", ".join(
        f"{label}: {rects:,} rectangles of {attempts:,} attempts, {jobs:,} jobs"
        for label, rects, attempts, jobs in zip(
            written["runs"], written["rectangles"], written["attempts"], written["jobs"]
        )
    )
    line = f"explorer: {written['path']} ({written['bytes'] / 1e6:.1f} MB; {what})"
    aggregated = written["aggregated"]
    if aggregated:
        line += (
            f"; aggregated: details for {aggregated['attempts_kept']:,} of {aggregated['attempts']:,} attempts, "
            "the whole run as an overview (--window START:END for another period)"
        )
    return line


def explore_beside_run(prefix: str, *, window: str | None, bound_s: float) -> None:
    """``run --report html``: the explorer page of the run, beside its outputs (OUT_explore.html)."""
    from adaptsched.analysis.explore import explore_runs

    written = explore_runs([prefix], f"{prefix}_explore.html", window=window, bound_s=bound_s)
    say(explore_summary(written))
