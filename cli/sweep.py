"""``adaptsched sweep SPEC.toml``: a grid of experiments declared in TOML, on Dask."""

from __future__ import annotations

import argparse
from pathlib import Path

from adaptsched.errors import AdaptschedError
from adaptsched.formats.files import refuse_overwriting

from .common import (
    Subparsers,
    add_cluster_options,
    add_energy_option,
    add_engine_options,
    add_progress_option,
    cluster_choice,
    output_folder,
    progress_choice,
    say,
    show_job_script,
)

#: Files ``sweep --out DIR`` writes in DIR (besides charts and the runs' folder).
SWEEP_OUTPUTS = ("runs.csv", "report.html")


def register(sub: Subparsers) -> None:
    p = sub.add_parser("sweep", help="run a grid of experiments declared in a TOML file, on Dask")
    p.add_argument("spec", help="sweep spec (TOML): schedulers and option grids, workloads, platforms, metrics")
    p.add_argument("--out", required=True, help="results folder: runs.csv, charts, runs/ (a rerun skips done runs)")
    add_cluster_options(p)
    p.add_argument(
        "--shared-fs",
        action="store_true",
        help="workers see --out and the inputs under the same paths: nothing is shipped (default: shipped)",
    )
    add_engine_options(p, engine=False)  # the spec says which engines
    add_energy_option(p)
    add_progress_option(p)
    p.set_defaults(func=cmd_sweep)


def cmd_sweep(args: argparse.Namespace) -> int:
    from adaptsched.sweep import run_sweep
    from adaptsched.sweep.spec import read_spec

    where = cluster_choice(args)
    if args.dry_run:
        spec = read_spec(args.spec)
        say(f"# {spec.path}: {len(spec.points)} runs")
        show_job_script(where)
        return 0
    refuse_overwriting([("the output", Path(args.out) / name) for name in SWEEP_OUTPUTS], [("the spec", args.spec)])
    output_folder(args.out)
    grid, written = run_sweep(
        args.spec,
        args.out,
        where=where,
        shared_fs=args.shared_fs,
        batsim=args.batsim,
        progress=progress_choice(args.progress),
        energy=args.energy,
        say=say,
    )
    say(f"table: {written['table']}; charts: " + (", ".join(p.name for p in written["charts"]) or "none"))
    if written.get("html"):
        say(f"report: {written['html']} (interactive; each run's explorer page in runs/)")
    say(f"sweep: {grid.summary()}")
    if grid.failed:
        raise AdaptschedError(
            f"{len(grid.failed)} of {len(grid.results) + len(grid.failed)} runs failed (their last log lines "
            f"are above, their logs in {grid.folder}); the others are in {written['table']}. Run again to retry them."
        )
    return 0
