"""``adaptsched run``: one scheduler on one workload, through an engine."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from adaptsched.errors import UsageError, positive_float
from adaptsched.formats.files import refuse_overwriting

from .common import (
    Subparsers,
    add_energy_option,
    add_engine_options,
    add_metric_options,
    add_progress_option,
    checked_platform,
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


#: What ``run --out PREFIX`` may write: PREFIX + each of these.
RUN_OUTPUTS = (
    "_jobs.csv",
    "_schedule.csv",
    "_machine_states.csv",
    "_platform.xml",
    "_workload.json",
    "_sched.log",
    "_batsim.log",
    "_schedule.trace",
    "_metrics.md",
    "_metrics.json",
    "_gantt.png",
    "_explore.html",
)


def checked_prefix(out: str) -> str:
    """``--out``: a prefix (``results/easy`` writes ``results/easy_jobs.csv``...), not a folder."""
    if out.endswith(("/", os.sep)) or not Path(out).name:
        raise UsageError(
            f"--out {out}: a prefix of file names, not a folder: add a name, e.g. --out {out.rstrip('/' + os.sep)}"
            f"/run (writes {out.rstrip('/' + os.sep)}/run_jobs.csv, _schedule.csv...)"
        )
    return out


def cmd_run(args: argparse.Namespace) -> int:
    from adaptsched.engines.run import RunSpec, run

    platform = checked_platform(args.platform)
    out = checked_prefix(args.out)
    inputs = [("the workload (--workload)", args.workload), ("the scheduler (--scheduler)", args.scheduler)]
    if not platform.isdigit():
        inputs.append(("the platform (--platform)", platform))
    outputs = [("the run's output", f"{out}{suffix}") for suffix in RUN_OUTPUTS]
    refuse_overwriting(outputs, inputs, "choose another --out")
    output_folder(Path(args.out).parent, "--out", args.out)
    spec = RunSpec.make(
        args.scheduler,
        args.workload,
        platform,
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
        f"in {result.wall_s:.1f} s ({rate:.0f} jobs/s); {result.physics}"
    )
    energy = f", {result.prefix}_consumed_energy.csv, {result.prefix}_pstate_changes.csv" if args.energy else ""
    say(f"outputs: {result.jobs_csv}, {result.schedule_csv}, {result.prefix}_machine_states.csv{energy}")
    for note in result.notes:
        say(f"note: {note}")
    if args.report:
        from adaptsched.analysis import report_run

        report = report_run(result.prefix, bound_s=args.bound, gantt_window=args.window)
        say(report["text"])
        say(f"report: {report['markdown']}, {report['gantt']}")
        if args.report == "html":
            from .analysis import explore_beside_run

            explore_beside_run(result.prefix, window=args.window, bound_s=args.bound, workload=args.workload)
    return 0
