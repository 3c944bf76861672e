"""Experiment sweeps on Dask distributed (docs/sweeps.md).

``adaptsched sweep SPEC.toml --out DIR``: a grid declared in TOML (:mod:`.spec`), made into
runs (:mod:`.plan`), run on a Dask cluster (:mod:`.run`, whose :func:`~.run.run_grid` also
runs every reproduction's grid) and reported as ``runs.csv`` and one chart per metric
(:mod:`.report`). Layering: above ``analysis``, below ``reproduce`` and ``cli``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .grid import GridResult, GridRun
from .jobqueue import JobQueue

if TYPE_CHECKING:
    from .cluster import Tls, Where
    from .run import run_grid

__all__ = ["GridResult", "GridRun", "JobQueue", "Tls", "Where", "run_grid", "run_sweep"]


def __getattr__(name: str) -> Any:
    """``Where``, ``Tls`` and ``run_grid`` on first use: they import Dask's ``distributed`` (0.6 s),
    which a command that only reads a grid's results (``reproduce --help``, a report) never needs."""
    if name in ("Where", "Tls"):
        from . import cluster

        return getattr(cluster, name)
    if name == "run_grid":
        from .run import run_grid

        return run_grid
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_sweep(
    spec_path: str | Path,
    out: str | Path,
    *,
    where: Where | None = None,
    shared_fs: bool = False,
    batsim: str | None = None,
    progress: bool | None = None,
    energy: bool = False,
    say: Callable[..., None] = print,
) -> tuple[GridResult, dict[str, Any]]:
    """Reads the spec (every mistake found before anything runs), runs what is not done yet
    in ``out``, writes ``out/runs.csv`` and the charts; returns (grid result, written paths)."""
    from .cluster import Where
    from .plan import analysis_of, plan_runs
    from .report import write_report
    from .run import run_grid
    from .spec import read_spec

    where = (where or Where()).check()
    spec = read_spec(spec_path)
    if energy:  # sweep --energy: as the spec's energy = true
        from adaptsched.sweep.spec import with_energy

        spec = with_energy(spec)
    if "batsim" in spec.engines:
        from adaptsched.engines.run import find_batsim_or_fail

        local = not (where.remote or where.jobqueue)  # elsewhere, Batsim is where the workers are
        batsim = find_batsim_or_fail(batsim) if local else batsim
    out = Path(out)
    runs = plan_runs(spec, out, batsim=batsim)
    say(f"{spec.path}: {len(runs)} runs; results in {out.resolve()}")
    try:
        grid = run_grid(
            runs,
            out / "runs",
            analyse=analysis_of(spec),
            scheduler_address=where.scheduler_address,
            scheduler_file=where.scheduler_file,
            jobqueue=where.jobqueue,
            first_worker_timeout_s=where.timeout_s,
            workers=where.workers,
            tls=where.tls,
            shared_fs=shared_fs,
            progress=progress,
            say=say,
        )
    except KeyboardInterrupt:  # the table of what finished, then the interruption (exit 130)
        from .grid import is_done, run_key

        hashes: dict[str, str] = {}
        done = {r.name: res for r in runs if (res := is_done(out / "runs", r.name, run_key(r.spec, hashes)))}
        partial = GridResult(folder=out / "runs", results=done, done=len(done), interrupted=True)
        written = write_report(out, spec.title, runs, partial, spec.metrics.collect)
        say(f"interrupted: {len(done)} of {len(runs)} runs done, in {written['table']}")
        raise
    written = write_report(out, spec.title, runs, grid, spec.metrics.collect, say=say)
    return grid, written
