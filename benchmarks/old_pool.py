"""The process pool that ran every reproduction before Dask replaced it (``reproduce/runner.py`` as of
commit d5cf14c, verbatim), kept as the baseline of ``benchmarks/sweep.py``.

Runs a batch of simulations in parallel, resumably, with progress.

Each run is one :func:`adaptsched.engines.run.run` call writing ``PREFIX_jobs.csv`` and
``PREFIX_schedule.csv``; after it, ``analyse(prefix, options, workload)`` (a module-level
function of the caller) turns the
outputs into a JSON-able dict written to ``PREFIX_result.json``. A run whose result file
exists is not run again, so an interrupted reproduction resumes where it stopped and a crash
in one run loses nothing already written. Workers are separate processes, one per CPU
(each pinned to its own CPU with its scheduler process, so that timings stay comparable).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Job:
    """One simulation: ``name`` is unique in the batch and names its files."""

    name: str
    scheduler: str
    options: dict = field(hash=False, default_factory=dict)
    workload: str | None = None  # this run's workload, if not the batch's


_CPU = None


def _init_worker(counter, cpus):
    global _CPU
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    _CPU = cpus[index % len(cpus)]
    try:
        os.sched_setaffinity(0, {_CPU})
    except (AttributeError, OSError):
        pass


def _run_one(job: Job, workload, platform, folder, engine, batsim, analyse):
    from adaptsched.engines.run import RunSpec, run

    prefix = Path(folder) / job.name
    workload = job.workload or workload
    begin = time.perf_counter()
    try:
        result = run(
            RunSpec.make(
                job.scheduler,
                workload,
                platform,
                prefix,
                engine=engine,
                options=dict(job.options),
                batsim=batsim,
                progress=False,
            ),
            say=lambda *a: None,
        )
        wall_s = time.perf_counter() - begin
        out = analyse(str(prefix), dict(job.options), str(workload))
        out.update(
            {
                "name": job.name,
                "engine": engine,
                "wall_s": wall_s,
                "nb_jobs": result.nb_jobs,
                "options": dict(job.options),
                "scheduler": job.scheduler,
            }
        )
        Path(f"{prefix}_result.json").write_text(json.dumps(out, indent=1))
        return job.name, out, None
    except Exception as error:  # reported, the batch goes on
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        return job.name, None, detail


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
    say=print,
) -> dict:
    """Runs the jobs not yet done; returns {name: result dict} of all done jobs."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    results, todo = {}, []
    for job in jobs:
        path = folder / f"{job.name}_result.json"
        if path.is_file():
            results[job.name] = json.loads(path.read_text())
        else:
            todo.append(job)
    if results:
        say(f"{len(results)} runs already done in {folder}, {len(todo)} to go")
    if not todo:
        return results
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    workers = max(1, min(workers or len(cpus), len(todo)))
    counter = multiprocessing.Value("i", 0)
    failures = []
    begin = time.perf_counter()
    bar = None
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=len(todo), desc=f"{engine} runs", unit="run", file=sys.stderr)
    with ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("fork"), initializer=_init_worker, initargs=(counter, cpus)
    ) as pool:
        futures = [pool.submit(_run_one, job, workload, platform, folder, engine, batsim, analyse) for job in todo]
        for done, future in enumerate(as_completed(futures), 1):
            name, out, error = future.result()
            if error:
                failures.append((name, error))
                say(f"  FAILED {name}: {error}")
            else:
                results[name] = out
            if bar is not None:
                bar.update(1)
            else:
                elapsed = time.perf_counter() - begin
                say(
                    f"  [{done}/{len(todo)}] {name}"
                    + (f" ({out['wall_s']:.0f} s)" if out else "")
                    + f", {elapsed / 60:.1f} min elapsed, about "
                    f"{elapsed / done * (len(todo) - done) / 60:.1f} min to go"
                )
    if bar is not None:
        bar.close()
    if failures:
        say(f"{len(failures)} runs failed; their outputs are in {folder}; run again to retry them")
    return results
