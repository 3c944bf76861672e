"""``adaptsched run``: one scheduler on one workload, through an engine."""

from __future__ import annotations

import argparse
from pathlib import Path

from adaptsched.errors import UsageError, positive_float

from .common import (
    Subparsers,
    add_energy_option,
    add_engine_options,
    add_metric_options,
    add_progress_option,
    output_folder,
    progress_choice,
    say,
)


def register(sub: Subparsers) -> None:
    p = sub.add_parser("run", help="simulate one scheduler on one workload")
    p.add_argument(
        "--scheduler",
        required=True,
        help="adaptsched name (see 'schedulers'), pybatsim built-in "
        "(easyBackfill, fillerSched...) or path of a .py pybatsim plugin",
    )
    p.add_argument("--workload", required=True, help="Batsim JSON, or SWF trace (.swf, .swf.gz) converted on the fly")
    p.add_argument("--platform", required=True, help="SimGrid platform XML, or a number of hosts")
    p.add_argument("--out", required=True, help="output prefix: writes OUT_jobs.csv and OUT_schedule.csv")
    add_engine_options(p, auto=True)
    p.add_argument(
        "--transport",
        choices=("inprocess", "zmq"),
        help="how the engine talks to the pybatsim plugin: inprocess (the embedded engine's default: "
        "the plugin runs in the engine's process) or zmq (a second process over ZeroMQ, as Batsim runs "
        "plugins; real Batsim's only way); docs/engines.md",
    )
    p.add_argument(
        "--scheduler-timeout",
        type=positive_float,
        metavar="SECONDS",
        help="stop the run when the scheduler takes longer than this to answer one message (default: wait)",
    )
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="scheduler option")
    p.add_argument(
        "--report",
        nargs="?",
        const="text",
        choices=("text", "html"),
        help="after the run, print metrics and draw a Gantt chart; '--report html' also writes the run explorer "
        "page OUT_explore.html (adaptsched explore)",
    )
    add_metric_options(p, hosts=False)
    p.add_argument(
        "--dynamic-jobs", action="store_true", help="allow dynamic job registration (Batsim's --enable-dynamic-jobs)"
    )
    p.add_argument("--ack-dynamic-jobs", action="store_true", help="acknowledge registered jobs")
    p.add_argument("--profile-reuse", action="store_true", help="keep profiles after their jobs end")
    add_progress_option(p)
    p.add_argument("--no-pin", action="store_true", help="do not bind the engine and the scheduler to one CPU")
    p.add_argument(
        "--schedule-trace",
        "--paje",
        action="store_true",
        help="real Batsim only: also write its Pajé trace OUT_schedule.trace (off by default: large)",
    )
    add_energy_option(p)
    p.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from adaptsched.engines.run import RunSpec, run

    if args.platform.strip().lstrip("+-").isdigit() and int(args.platform) < 1:
        raise UsageError(f"--platform {args.platform}: a platform needs at least one host")
    output_folder(Path(args.out).parent, "--out", args.out)
    spec = RunSpec.make(
        args.scheduler,
        args.workload,
        args.platform,
        args.out,
        engine=args.engine,
        transport=args.transport,
        scheduler_timeout_s=args.scheduler_timeout,
        options=args.option,
        batsim=args.batsim,
        dynamic_jobs=args.dynamic_jobs,
        ack_dynamic_jobs=args.ack_dynamic_jobs,
        profile_reuse=args.profile_reuse,
        progress=progress_choice(args.progress),
        pin_cpu=not args.no_pin,
        schedule_trace=args.schedule_trace,
        energy=args.energy,
    )
    result = run(spec, say=say)
    rate = result.nb_jobs / result.wall_s if result.wall_s > 0 else float("inf")
    say(
        f"{result.scheduler} on {result.nb_hosts} hosts ({result.engine} engine, {result.transport}): "
        f"{result.nb_jobs} jobs "
        f"in {result.wall_s:.1f} s ({rate:.0f} jobs/s)"
    )
    say(f"outputs: {result.jobs_csv}, {result.schedule_csv}, {result.prefix}_machine_states.csv")
    for note in result.notes:
        say(f"note: {note}")
    if args.report:
        from adaptsched.analysis import report_run

        report = report_run(result.prefix, bound_s=args.bound, gantt_window=args.window)
        say(report["text"])
        say(f"report: {report['markdown']}, {report['gantt']}")
        if args.report == "html":
            from .analysis import explore_beside_run

            explore_beside_run(result.prefix, window=args.window, bound_s=args.bound)
    return 0
