"""``adaptsched reproduce scojo-p``: its options, and the one place its plan runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from adaptsched.errors import positive_int
from adaptsched.reproduce.runner import DEFAULT, Setup, Stopwatch

from .plan import STUDIES

NAME = "scojo-p"
HELP = (
    "Barsanti & Sodan, Adaptive Job Scheduling via Predictive Job Resource Allocation (SCOJO-P vs "
    "Cirne-Berman vs traditional, Figs 5-14), on Lublin-Feitelson workloads"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seeds", type=positive_int, default=8, help="workloads of main and idle (default 8; the paper: 4)"
    )
    parser.add_argument(
        "--side-seeds",
        type=positive_int,
        default=4,
        help="workloads of W2, fraction and target (default 4, the paper's; downey and sensitivity at most 2)",
    )
    parser.add_argument(
        "--study",
        action="append",
        choices=STUDIES,
        help="main (W1), w2, fraction (80 %% moldable), downey (Fig. 14), idle (expand=idle, ours), target "
        "(ideal load), sensitivity (E(N_max), interpolation); repeatable (default: all)",
    )
    parser.add_argument("--jobs", type=positive_int, default=10000, help="jobs per workload (default 10,000)")
    parser.add_argument(
        "--a-max",
        default="3000",
        help="Fig. 14: A log-uniform on [1, A_MAX] (default 3000: the paper's mean N_opt of 69 needs A "
        "beyond the machine; 'machine' for 128)",
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="run nothing: write the report from the runs already done in --out (a grid cut short says how "
        "many of its runs it has)",
    )


def main(
    out: str | Path,
    *,
    seeds: int = 8,
    side_seeds: int = 4,
    study: list[str] | None = None,
    jobs: int = 10000,
    a_max: str = "3000",
    report_only: bool = False,
    setup: Setup = DEFAULT,
) -> Path:
    """``adaptsched reproduce scojo-p``: its options as :func:`add_arguments` declares them
    (``study`` repeatable, all studies by default), then :func:`reproduce`."""
    studies = tuple(study) if study else STUDIES
    return reproduce(
        out,
        seeds=seeds,
        side_seeds=side_seeds,
        studies=studies,
        jobs=jobs,
        a_max=a_max,
        report_only=report_only,
        setup=setup,
    )


def reproduce(
    out: str | Path = "results/scojo-p",
    *,
    seeds: int = 8,
    side_seeds: int = 4,
    studies: tuple[str, ...] = STUDIES,
    jobs: int = 10000,
    a_max: str = "3000",
    report_only: bool = False,
    setup: Setup = DEFAULT,
) -> Path:
    """Runs every run of the plan (resuming in ``out``; none with ``report_only``) and writes
    the report (:meth:`Setup.report_folder`) from the runs done; returns the report's path."""
    from adaptsched.platforms.simgrid import write_cluster

    from .plan import HOSTS, analyse_run, prepare_runs, runs, workload_stats
    from .report import write_report

    clock = Stopwatch()
    out, inputs, setup = setup.prepare(out)
    platform = write_cluster(HOSTS, inputs / f"cluster{HOSTS}.xml")
    plan = runs(studies, seeds, side_seeds)
    prepared = prepare_runs(plan, inputs, jobs=jobs, a_max=a_max)
    setup.say(f"{len(plan)} runs on {jobs:,}-job workloads, studies {', '.join(studies)} ({setup.engine} engine)")
    folder = out / setup.engine
    batch = [
        setup.grid_run(folder, run.name, run.scheduler, options, workload=path, platform=platform)
        for run, options, path in prepared
    ]
    if report_only:
        from adaptsched.sweep.grid import resume

        results = resume(batch, folder, analyse_run).results
        setup.say(f"--report-only: {len(results)} of {len(batch)} runs done; the report is written from them")
    else:
        results = setup.run_batch(batch, folder, analyse_run)
    paths = {(run.kind, run.seed): path for run, _, path in prepared}
    workloads = {key: workload_stats(path) for key, path in paths.items()}
    report = write_report(
        setup.report_folder(out),
        plan,
        results,
        studies=studies,
        seeds=seeds,
        side_seeds=side_seeds,
        jobs=jobs,
        a_max=a_max,
        engine=setup.engine,
        workloads=workloads,
        wall_s=clock.wall_s,
        when=clock.when(),
        command=setup.command,
        planned=len(batch),
    )
    setup.say(f"report: {report}")
    return report
