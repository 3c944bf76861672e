"""Experiment sweeps on Dask distributed (issue 13).

``adaptsched sweep SPEC.toml --out DIR``: a grid declared in TOML (:mod:`.spec`), made into
runs (:mod:`.plan`), run on a Dask cluster (:mod:`.run`, whose :func:`~.run.run_grid` also
runs every reproduction's grid) and reported as ``runs.csv`` and one chart per metric
(:mod:`.report`). Layering: above ``analysis``, below ``reproduce`` and ``cli``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .grid import GridResult, GridRun
from .run import run_grid

__all__ = ["GridResult", "GridRun", "run_grid", "run_sweep"]


def run_sweep(
    spec_path: str | Path,
    out: str | Path,
    *,
    scheduler_address: str | None = None,
    workers: int | None = None,
    shared_fs: bool = False,
    batsim: str | None = None,
    progress: bool | None = None,
    say: Callable[..., None] = print,
) -> tuple[GridResult, dict[str, Any]]:
    """Reads the spec (every mistake found before anything runs), runs what is not done yet
    in ``out``, writes ``out/runs.csv`` and the charts; returns (grid result, written paths)."""
    from .plan import analysis_of, plan_runs
    from .report import write_report
    from .spec import read_spec

    spec = read_spec(spec_path)
    if "batsim" in spec.engines:
        from adaptsched.engines.run import find_batsim_or_fail

        batsim = batsim if scheduler_address else find_batsim_or_fail(batsim)
    out = Path(out)
    runs = plan_runs(spec, out, batsim=batsim)
    say(f"{spec.path}: {len(runs)} runs; results in {out.resolve()}")
    try:
        grid = run_grid(
            runs,
            out / "runs",
            analyse=analysis_of(spec),
            scheduler_address=scheduler_address,
            workers=workers,
            shared_fs=shared_fs,
            progress=progress,
            say=say,
        )
    except KeyboardInterrupt:  # the table of what finished, then the interruption (exit 130)
        from .grid import read_result

        done = {r.name: res for r in runs if (res := read_result(out / "runs" / f"{r.name}_result.json"))}
        partial = GridResult(folder=out / "runs", results=done, done=len(done), interrupted=True)
        written = write_report(out, spec.title, runs, partial, spec.metrics.collect)
        say(f"interrupted: {len(done)} of {len(runs)} runs done, in {written['table']}")
        raise
    written = write_report(out, spec.title, runs, grid, spec.metrics.collect)
    return grid, written
