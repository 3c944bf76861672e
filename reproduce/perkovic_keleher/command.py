"""``adaptsched reproduce perkovic-keleher``: its options, and the one place its plan runs."""

from __future__ import annotations

import argparse
from pathlib import Path

from adaptsched.errors import InputError, UsageError, positive_int
from adaptsched.reproduce.runner import DEFAULT, Setup, Stopwatch

from .plan import DEFAULT_STUDIES, PAPER_HOSTS, STUDIES, TRACE, WINDOWS

NAME = "perkovic-keleher"
HELP = (
    "Perković & Keleher, Randomization, Speculation, and Adaptation in Batch Schedulers, "
    "on CTC-SP2 (orders, speculation, adaptation, combined techniques)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trace",
        action="append",
        metavar="FILE",
        help="SWF trace to replay instead of ../shared/traces' CTC-SP2-1996-3.1-cln.swf.gz "
        "(docs/getting-started.md says where it comes from)",
    )
    parser.add_argument("--hosts", type=positive_int, help=f"machine size (default {PAPER_HOSTS}, the paper's)")
    parser.add_argument("--jobs", type=positive_int, help="only the first N jobs (default: the whole trace)")
    parser.add_argument("--seeds", type=positive_int, default=5, help="seeds of the randomized orders (default 5)")
    parser.add_argument(
        "--study",
        action="append",
        choices=STUDIES,
        help=f"run only this study (repeatable; default: {', '.join(DEFAULT_STUDIES)}; readings: our alternative "
        "readings of the paper's text, beside the default)",
    )
    parser.add_argument(
        "--flurry-seeds",
        type=int,
        metavar="N",
        help="draws of the reconstructed CTC flurry for the paper's workload (default: one per seed, "
        "seed k on draw k; 0: the cleaned log only)",
    )
    parser.add_argument(
        "--windows",
        type=int,
        default=WINDOWS,
        metavar="K",
        help=f"consecutive parts of the trace each deterministic mix also runs on, so that its claims "
        f"rest on more than one run (default {WINDOWS}; 0: none)",
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="run nothing: write the report from the runs already done in --out (a grid cut short "
        "says how many of its runs it has)",
    )


def main(
    out: str | Path,
    *,
    trace: list[str] | None = None,
    hosts: int | None = None,
    jobs: int | None = None,
    seeds: int = 5,
    study: list[str] | None = None,
    flurry_seeds: int | None = None,
    windows: int = WINDOWS,
    report_only: bool = False,
    setup: Setup = DEFAULT,
) -> Path:
    """``adaptsched reproduce perkovic-keleher``: its options as :func:`add_arguments` declares
    them (``trace`` and ``study`` repeatable), checked, then :func:`reproduce`."""
    if trace and len(trace) > 1:
        raise UsageError(f"--trace: {NAME} replays one trace, {len(trace)} given")
    return reproduce(
        out,
        trace=trace[0] if trace else None,
        hosts=hosts or PAPER_HOSTS,
        jobs=jobs,
        seeds=seeds,
        studies=tuple(study) if study else DEFAULT_STUDIES,
        flurry_seeds=flurry_seeds,
        windows=windows,
        report_only=report_only,
        setup=setup,
    )


def reproduce(
    out: str | Path = "results/perkovic-keleher",
    *,
    trace: str | Path | None = None,
    hosts: int = PAPER_HOSTS,
    jobs: int | None = None,
    seeds: int = 5,
    studies: tuple[str, ...] = DEFAULT_STUDIES,
    flurry_seeds: int | None = None,
    windows: int = WINDOWS,
    report_only: bool = False,
    setup: Setup = DEFAULT,
) -> Path:
    """Runs every mix (resuming a previous run in ``out``) and writes the report
    (:meth:`Setup.report_folder`); returns the report's path."""
    from adaptsched.platforms.simgrid import write_cluster
    from adaptsched.workloads.convert import convert_swf, write_workload
    from adaptsched.workloads.traces import find_trace

    from .plan import analyse_run, mixes, paper_runs, runs, seed_of, split_windows, window_name, window_runs
    from .report import write_report
    from .workloads import workload_stats

    clock = Stopwatch()
    trace = find_trace(TRACE, trace)
    draws = _checked(seeds, studies, windows, flurry_seeds)
    out, inputs, setup = setup.prepare(out)
    workload, conversion = convert_swf(trace, hosts=hosts, first=jobs)
    workload_path = write_workload(workload, inputs / "workload.json")
    platform = write_cluster(hosts, inputs / f"cluster{hosts}.xml")
    setup.say(f"trace: {trace}\n{conversion.summary()}")

    chosen = mixes(studies)
    folder = out / setup.engine
    named = [(name, options, workload_path) for name, options in runs(chosen, seeds)]
    papers = _paper_workloads(trace, hosts, jobs, draws, seeds, inputs, setup)
    named += [(name, options, papers[draw][0]) for draw, name, options in paper_runs(chosen, seeds, draws)]
    parts = window_runs(chosen, windows)
    if parts:
        paths = {
            k: write_workload(part, inputs / f"{window_name(k, windows)}.json")
            for k, part in enumerate(split_windows(workload, windows), start=1)
        }
        named += [(name, options, paths[k]) for k, name, options in parts]
    # the paper's claims first, seed by seed (an early stop leaves whole seeds), our readings last
    named.sort(key=lambda run: ("_readings_" in f"_{run[0]}", seed_of(run[0])))
    batch = [
        setup.grid_run(folder, name, "backfill", options, workload=path, platform=platform)
        for name, options, path in named
    ]
    setup.say(f"{len(chosen)} mixes, {len(batch)} runs on {hosts} hosts ({setup.engine} engine)")
    if report_only:
        from adaptsched.sweep.grid import resume

        results = resume(batch, folder, analyse_run).results
        setup.say(f"--report-only: {len(results)} of {len(batch)} runs done; the report is written from them")
    else:
        results = setup.run_batch(batch, folder, analyse_run)
    report = write_report(
        setup.report_folder(out),
        setup.engine,
        chosen,
        results,
        seeds=seeds,
        hosts=hosts,
        trace=trace,
        conversion=conversion,
        papers={draw: stats for draw, (_, stats) in papers.items()},
        clean_stats=workload_stats(workload),
        windows=windows if parts else 0,
        planned=len(batch),
        wall_s=clock.wall_s,
        command=setup.command,
        when=clock.when(),
    )
    setup.say(f"report: {report} (tables, PNG charts in {report.parent})")
    return report


def _checked(seeds: int, studies: tuple[str, ...], windows: int, flurry_seeds: int | None) -> int:
    """The options checked before any work; returns the flurry's draws (``seeds`` by default)."""
    if seeds < 1:
        raise InputError("--seeds", f"need at least one seed, got {seeds}")
    unknown = set(studies) - set(STUDIES)
    if unknown:
        raise InputError("--study", f"unknown {sorted(unknown)}: choose among {', '.join(STUDIES)}")
    if windows < 0 or windows == 1:
        raise InputError("--windows", f"need 0 (none) or at least 2 windows, got {windows}")
    draws = seeds if flurry_seeds is None else flurry_seeds
    if draws < 0:
        raise InputError("--flurry-seeds", f"need 0 or more draws, got {draws}")
    return draws


def _paper_workloads(
    trace: str | Path, hosts: int, jobs: int | None, draws: int, seeds: int, inputs: Path, setup: Setup
) -> dict[int, tuple[Path, dict]]:
    """{flurry draw: (workload file, its statistics)} of the paper's workload, one per draw a
    seed uses (:mod:`.workloads`)."""
    from adaptsched.workloads.convert import write_workload

    from .workloads import draw_of, make_paper_workload, paper_name, workload_stats

    out = {}
    for draw in sorted({draw_of(seed, draws) for seed in range(1, seeds + 1)} if draws else ()):
        workload, _ = make_paper_workload(trace, hosts, jobs, draw)
        flurry = workload["adaptsched"]["flurry"]
        setup.say(
            f"paper's workload, flurry draw {draw}: {flurry['inserted']} jobs inserted "
            f"({flurry['outside_workload']} outside the trace's part), {flurry['spec']}"
        )
        out[draw] = (write_workload(workload, inputs / f"{paper_name(draw)}.json"), workload_stats(workload))
    return out
