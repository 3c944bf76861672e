"""Runs a reproduction's batch of simulations through :func:`adaptsched.sweep.run_grid`, on Dask.

Each run (:meth:`Setup.grid_run`: a name and its :class:`~adaptsched.engines.run.spec.RunSpec`)
is one :func:`adaptsched.engines.run.run` call writing ``FOLDER/NAME_jobs.csv``,
``_schedule.csv``...; right after it, on its worker, ``analyse(prefix, options, workload)``
(a module-level function of the paper's ``plan.py``) turns the outputs into a JSON-able dict,
written to ``FOLDER/NAME_result.json``. A run whose result file holds the same key (scheduler,
options, input contents, engine, adaptsched version) is not run again, so an interrupted
reproduction resumes where it stopped.

By default the runs go to a local Dask cluster of one single-threaded worker process per CPU;
``scheduler_address`` or ``scheduler_file`` send them to a running Dask cluster instead, and
``jobqueue`` to a dask-jobqueue cluster started for them (docs/sweeps.md). This
replaced the home-made ``ProcessPoolExecutor`` pool of earlier versions, kept as
the baseline of ``benchmarks/sweep.py``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from adaptsched.engines.run.spec import RunSpec
from adaptsched.sweep import GridRun, JobQueue
from adaptsched.sweep.grid import Analysis


@dataclass(frozen=True)
class Setup:
    """How a reproduction runs and where it reports, the same for every paper: the options
    every ``adaptsched reproduce PAPER`` shares (``--engine``, ``--batsim``, ``--workers``,
    ``--scheduler-address``, ``--scheduler-file``, ``--cluster``..., ``--report-dir``), the
    command line its report quotes, and where progress goes. A paper's
    ``reproduce(out, *, its own options, setup)`` takes one."""

    engine: str = "embedded"
    batsim: str | None = None
    energy: bool = False  # Batsim's energy model on every run (reproduce --energy)
    workers: int | None = None
    scheduler_address: str | None = None
    scheduler_file: str | None = None
    jobqueue: JobQueue | None = None
    first_worker_timeout_s: float | None = None
    tls: Any = None  # the certificates of a tls:// scheduler or of --cluster's (adaptsched.sweep.cluster.Tls)
    report_dir: str | Path | None = None
    command: str = ""
    say: Callable[..., None] = print

    def prepare(self, out: str | Path) -> tuple[Path, Path, Setup]:
        """(results folder, its ``inputs`` subfolder, this setup with Batsim found), checked up front."""
        batsim = self.batsim
        if self.engine == "batsim":
            from adaptsched.engines.run import find_batsim_or_fail

            batsim = find_batsim_or_fail(batsim)
        out = Path(out).resolve()
        inputs = out / "inputs"
        inputs.mkdir(parents=True, exist_ok=True)
        return out, inputs, replace(self, batsim=batsim)

    def grid_run(
        self, folder: Path, name: str, scheduler: str, options: Mapping[str, Any], *, workload: Any, platform: Any
    ) -> GridRun:
        """One run of a batch on this setup's engine, its outputs ``FOLDER/NAME_*``; its options
        are checked here, before anything runs."""
        spec = RunSpec.make(
            scheduler,
            workload,
            platform,
            Path(folder) / name,
            options=options,
            engine=self.engine,
            batsim=self.batsim,
            energy=self.energy,
        )
        return GridRun(name, spec, {"scheduler": scheduler, **{f"opt.{k}": v for k, v in options.items()}})

    def run_batch(self, runs: list[GridRun], folder: Path, analyse: Analysis) -> dict[str, dict[str, Any]]:
        """Runs the runs not yet done on Dask, on this setup's cluster; returns {name: result
        dict} of all done runs (failed runs are reported by :func:`~adaptsched.sweep.run_grid`
        and left out)."""
        from adaptsched.sweep import run_grid

        grid = run_grid(
            runs,
            folder,
            analyse=analyse,
            scheduler_address=self.scheduler_address,
            scheduler_file=self.scheduler_file,
            jobqueue=self.jobqueue,
            first_worker_timeout_s=self.first_worker_timeout_s,
            workers=self.workers,
            tls=self.tls,
            say=self.say,
        )
        if grid.done or grid.failed:
            self.say(f"{self.engine} runs: {grid.summary()}")
        if grid.failed:
            self.say(f"{len(grid.failed)} runs failed; their logs are in {folder}; run again to retry them")
        return grid.results

    def report_folder(self, out: Path) -> Path:
        """``--report-dir``, or ``OUT/report-ENGINE``."""
        return Path(self.report_dir) if self.report_dir else out / f"report-{self.engine}"


#: The defaults: embedded engine, a local Dask cluster, the report in ``OUT/report-embedded``.
DEFAULT = Setup()


class Stopwatch:
    """When a reproduction ran and on how loaded a machine, for its report's first lines."""

    def __init__(self) -> None:
        self.begin = time.perf_counter()
        self.started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        self.load = os.getloadavg()[0]

    @property
    def wall_s(self) -> float:
        return time.perf_counter() - self.begin

    def when(self) -> str:
        return (
            f"{self.started} to {time.strftime('%H:%M UTC', time.gmtime())}, load average {self.load:.1f} at the "
            f"start and {os.getloadavg()[0]:.1f} at the end ({os.cpu_count()} CPUs)"
        )
