"""``adaptsched reproduce downey``: its options, and the one place its plan runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from adaptsched.errors import InputError, positive_int
from adaptsched.reproduce.runner import DEFAULT, Setup, Stopwatch

NAME = "downey"
HELP = (
    "Downey, A parallel workload model and its implications for processor allocation "
    "(Table 1, Figures 11-13 and 15), on generated workloads"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--days", type=positive_int, default=120, help="simulated days per workload (default 120)")
    parser.add_argument(
        "--seeds", type=positive_int, default=3, help="workloads per offered load, each run on each (default 3)"
    )
    parser.add_argument(
        "--fig11-seeds",
        type=positive_int,
        default=10,
        help="workloads per offered load for Figure 11 (default 10: with 120 days, the paper's 1,200 days a point)",
    )
    parser.add_argument("--hosts", type=positive_int, default=64, help="processors (default 64, the paper's)")


def reproduce(
    out: str | Path = "results/downey",
    *,
    days: int = 120,
    seeds: int = 3,
    fig11_seeds: int = 10,
    hosts: int = 64,
    setup: Setup = DEFAULT,
    variants: dict[str, str] | None = None,
    only=None,
) -> Path:
    """Runs every run of the plan (resuming in ``out``) and writes the report
    (:meth:`Setup.report_folder`); returns the report's path. ``variants`` maps ``downey`` to
    a scheduler file run in its place with the same options (another reading of the paper,
    run through the same pipeline and checked by the same claims:
    tests/test_wrong_reading_downey.py). ``only``: just the runs of these studies
    (:func:`.plan.runs`)."""
    from adaptsched.platforms.simgrid import write_cluster

    from .plan import analyse_run, runs, workloads
    from .report import write_report

    clock = Stopwatch()
    if days < 1 or seeds < 1:
        raise InputError("--days/--seeds", f"need at least one day and one seed, got {days} and {seeds}")
    out, inputs, setup = setup.prepare(out)
    platform = write_cluster(hosts, inputs / f"cluster{hosts}.xml")
    plan = runs(seeds, fig11_seeds, only)
    paths = workloads(plan, inputs, days=days, hosts=hosts)
    setup.say(f"{len(paths)} workloads of {days} days on {hosts} processors; {len(plan)} runs ({setup.engine} engine)")
    folder = out / setup.engine
    scheduler = (variants or {}).get("downey", "downey")
    batch = [
        setup.grid_run(folder, name, scheduler, options, workload=paths[(load, seed, how)], platform=platform)
        for name, options, load, seed, _, how in plan
    ]
    results = setup.run_batch(batch, folder, analyse_run)
    report = write_report(
        setup.report_folder(out),
        plan,
        results,
        days=days,
        seeds=seeds,
        fig11_seeds=max(seeds, fig11_seeds),
        hosts=hosts,
        inputs=inputs,
        when=clock.when(),
        engine=setup.engine,
        wall_s=clock.wall_s,
        command=setup.command,
    )
    setup.say(f"report: {report}")
    return report


#: ``adaptsched reproduce downey``: its options (:func:`add_arguments`) are reproduce's own.
main = reproduce
