"""``adaptsched reproduce scojo-p``: its options, and the one place its plan runs."""

from __future__ import annotations

import time
from pathlib import Path

from adaptsched.errors import positive_int

from .plan import STUDIES

NAME = "scojo-p"
HELP = (
    "Barsanti & Sodan, Adaptive Job Scheduling via Predictive Job Resource Allocation (SCOJO-P vs "
    "Cirne-Berman vs traditional, Figs 5-14), on Lublin-Feitelson workloads"
)


def add_arguments(parser) -> None:
    parser.add_argument("--seeds", type=positive_int, default=4, help="workloads per study (default 4, the paper's)")
    parser.add_argument(
        "--study",
        action="append",
        choices=STUDIES,
        help="main (W1), w2, fraction (80/90 %% moldable), target (ideal load), downey (Fig. 14); "
        "repeatable (default: all)",
    )
    parser.add_argument("--jobs", type=positive_int, default=10000, help="jobs per workload (default 10,000)")
    parser.add_argument(
        "--a-max",
        default="3000",
        help="Fig. 14: A log-uniform on [1, A_MAX] (default 3000: the paper's mean N_opt of 69 needs A "
        "beyond the machine; 'machine' for 128)",
    )


def run(args) -> int:
    reproduce(
        out=args.out,
        seeds=args.seeds,
        studies=tuple(args.study) if args.study else STUDIES,
        jobs=args.jobs,
        a_max=args.a_max,
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
    out="results/scojo-p",
    *,
    seeds: int = 4,
    studies=STUDIES,
    jobs: int = 10000,
    a_max: str = "3000",
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

    from .plan import HOSTS, analyse_run, prepare_runs, runs
    from .report import write_report

    begin = time.perf_counter()
    out, inputs, batsim = prepare(out, engine, batsim)
    platform = write_cluster(HOSTS, inputs / f"cluster{HOSTS}.xml")
    plan = runs(studies, seeds)
    prepared = prepare_runs(plan, inputs, jobs=jobs, a_max=a_max)
    say(f"{len(plan)} runs on {jobs:,}-job workloads, studies {', '.join(studies)} ({engine} engine)")
    batch = [Job(run.name, run.scheduler, options, path) for run, options, path in prepared]
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
        studies=studies,
        seeds=seeds,
        jobs=jobs,
        a_max=a_max,
        engine=engine,
        wall_s=time.perf_counter() - begin,
        command=command,
    )
    say(f"report: {report}")
    return report
