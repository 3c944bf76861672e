"""``adaptsched reproduce downey``: its options, and the one place its plan runs."""

from __future__ import annotations

import time
from pathlib import Path

from adaptsched.errors import InputError, positive_int

NAME = "downey"
HELP = (
    "Downey, A parallel workload model and its implications for processor allocation "
    "(Table 1, Figures 11-13), on generated workloads"
)


def add_arguments(parser) -> None:
    parser.add_argument("--days", type=positive_int, default=120, help="simulated days per workload (default 120)")
    parser.add_argument("--seeds", type=positive_int, default=3, help="workloads of Table 1 (default 3)")
    parser.add_argument("--hosts", type=positive_int, default=64, help="processors (default 64, the paper's)")


def run(args) -> int:
    reproduce(
        out=args.out,
        days=args.days,
        seeds=args.seeds,
        hosts=args.hosts,
        engine=args.engine,
        batsim=args.batsim,
        workers=args.workers,
        scheduler_address=args.scheduler_address,
        report_dir=args.report_dir,
        command=args.command_line,
        say=args.say,
    )
    return 0


def reproduce(
    out="results/downey",
    *,
    days: int = 120,
    seeds: int = 3,
    hosts: int = 64,
    engine: str = "embedded",
    batsim=None,
    workers=None,
    scheduler_address: str | None = None,
    report_dir=None,
    command: str = "",
    say=print,
) -> Path:
    """Runs every run of the plan (resuming in ``out``) and writes the report into
    ``report_dir`` (default ``out/report-ENGINE``); returns the report's path."""
    from adaptsched.platforms.simgrid import write_cluster
    from adaptsched.reproduce.runner import Job, prepare, run_batch

    from .plan import analyse_run, runs, workloads
    from .report import write_report

    begin = time.perf_counter()
    if days < 1 or seeds < 1:
        raise InputError("--days/--seeds", f"need at least one day and one seed, got {days} and {seeds}")
    out, inputs, batsim = prepare(out, engine, batsim)
    platform = write_cluster(hosts, inputs / f"cluster{hosts}.xml")
    plan = runs(seeds)
    paths = workloads(plan, inputs, days=days, hosts=hosts)
    say(f"{len(paths)} workloads of {days} days on {hosts} processors; {len(plan)} runs ({engine} engine)")
    batch = [Job(name, "downey", options, paths[(load, seed)]) for name, options, load, seed, _ in plan]
    results = run_batch(
        batch,
        None,
        platform,
        out / engine,
        engine=engine,
        batsim=batsim,
        analyse=analyse_run,
        workers=workers,
        scheduler_address=scheduler_address,
        say=say,
    )
    report = write_report(
        Path(report_dir) if report_dir else out / f"report-{engine}",
        plan,
        results,
        days=days,
        seeds=seeds,
        hosts=hosts,
        engine=engine,
        wall_s=time.perf_counter() - begin,
        command=command,
    )
    say(f"report: {report}")
    return report
