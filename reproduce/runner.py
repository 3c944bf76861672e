"""Runs a reproduction's batch of simulations through :func:`adaptsched.sweep.run_grid`, on Dask.

Each run is one :func:`adaptsched.engines.run.run` call writing ``FOLDER/NAME_jobs.csv``,
``_schedule.csv``...; right after it, on its worker, ``analyse(prefix, options, workload)``
(a module-level function of the paper's ``plan.py``) turns the outputs into a JSON-able dict,
written to ``FOLDER/NAME_result.json``. A run whose result file holds the same key (scheduler,
options, input contents, engine, adaptsched version) is not run again, so an interrupted
reproduction resumes where it stopped.

By default the runs go to a local Dask cluster of one single-threaded worker process per CPU;
``scheduler_address`` sends them to a running Dask cluster instead (docs/sweeps.md). This
replaced the home-made ``ProcessPoolExecutor`` pool of earlier versions (issue 13), kept as
the baseline of ``benchmarks/sweep.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Job:
    """One simulation: ``name`` is unique in the batch and names its files; ``workload`` and
    ``platform``: this run's, if not the batch's."""

    name: str
    scheduler: str
    options: dict = field(hash=False, default_factory=dict)
    workload: str | None = None
    platform: str | None = None


def prepare(out, engine: str, batsim=None) -> tuple[Path, Path, str | None]:
    """(results folder, its ``inputs`` subfolder, Batsim executable or None), checked up front."""
    if engine == "batsim":
        from adaptsched.engines.run import find_batsim_or_fail

        batsim = find_batsim_or_fail(batsim)
    out = Path(out).resolve()
    inputs = out / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    return out, inputs, batsim


def run_batch(
    jobs: list[Job],
    workload,
    platform,
    folder,
    *,
    engine: str,
    batsim=None,
    analyse,
    workers: int | None = None,
    scheduler_address: str | None = None,
    say=print,
) -> dict:
    """Runs the jobs not yet done on Dask; returns {name: result dict} of all done jobs
    (failed runs are reported by :func:`~adaptsched.sweep.run_grid` and left out)."""
    from adaptsched.sweep import Run, run_grid

    runs = [
        Run(
            job.name,
            job.scheduler,
            dict(job.options),
            str(job.workload or workload),
            str(job.platform or platform),
            engine,
            {"scheduler": job.scheduler, **{f"opt.{k}": v for k, v in job.options.items()}},
        )
        for job in jobs
    ]
    grid = run_grid(
        runs,
        folder,
        analyse=analyse,
        batsim=batsim,
        scheduler_address=scheduler_address,
        workers=workers,
        say=say,
    )
    if grid.done or grid.failed:
        say(f"{engine} runs: {grid.summary()}")
    if grid.failed:
        say(f"{len(grid.failed)} runs failed; their logs are in {folder}; run again to retry them")
    return grid.results
