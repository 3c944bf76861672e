"""Runs a grid of simulations on Dask distributed: :func:`run_grid`.

Every run of a sweep and of every reproduction goes through here:

* **Where.** By default a ``LocalCluster`` of one single-threaded worker process per CPU; with
  ``scheduler_address`` (``tcp://HOST:PORT``) a running Dask cluster (``dask scheduler`` and
  ``dask worker`` processes, or dask-jobqueue on Slurm/PBS: docs/sweeps.md); :mod:`.cluster`.
* **Data.** Workers need adaptsched installed, nothing else: the client ships each distinct
  input file once per worker (``Client.scatter``, Dask keeps it on the worker) and each run
  returns its outputs as one gzip-compressed tar (``_jobs.csv``, ``_schedule.csv``,
  ``_machine_states.csv``, logs), unpacked under the results folder (:mod:`.worker`). With
  ``shared_fs=True`` (a file system that every worker sees under the same paths), inputs are
  read and outputs written in place and nothing is shipped.
* **Resumable.** A run's key hashes its scheduler, options, the contents of its workload and
  platform, its engine and adaptsched's version (:func:`~.grid.run_key`); a run whose
  ``NAME_result.json`` holds the same key is skipped (:func:`~.grid.resume`). Results are
  written as each run ends (the result file last), so Ctrl-C, a crash or a lost client loses
  no finished run.
* **Failures.** A run that fails (an exception in the run, or its worker lost more often than
  Dask allows) is submitted once more; if it fails again it is reported with its last log
  lines, and the others go on (:meth:`Submissions.failed`). A worker that dies mid-run is
  Dask's business: its runs go to the other workers.
* **Progress.** A bar over runs with an ETA on a terminal (a line per tenth of the runs
  otherwise), and a final line: done, failed, skipped, and the efficiency
  ``sum of run times / (wall time x workers)``, a run's time being its simulation's wall time
  (:attr:`adaptsched.engines.run.RunResult.wall_s`) plus its analysis, and wall time counted
  from the first submission (the cluster's start-up is reported beside it). What is left,
  ``wall time x workers - sum of run times``, is the executor's overhead: Dask's scheduling,
  shipping inputs and outputs, writing them, and workers idle at the end.

Each run's analysis (``analyse(prefix, options, workload) -> dict``, a module-level function
or a ``functools.partial`` of one) runs on the worker, right after the run, on its outputs.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from adaptsched.errors import UsageError

from .cluster import Cluster, start_client
from .grid import Analysis, GridResult, GridRun, Resumed, analysis_id, read_result, resume, run_key, write_result
from .worker import RunTask, Shipped, execute, unpack

__all__ = ["Cluster", "GridResult", "GridRun", "read_result", "run_grid", "run_key", "start_client"]

Say = Callable[..., None]


def run_grid(
    runs: list[GridRun],
    folder: str | Path,
    *,
    analyse: Analysis | None = None,
    scheduler_address: str | None = None,
    workers: int | None = None,
    shared_fs: bool = False,
    pin_cpus: bool = False,
    progress: bool | None = None,
    client: Any = None,
    say: Say = print,
) -> GridResult:
    """Runs the grid's runs not done yet in ``folder`` (module doc) and returns all results.

    Each run's outputs go to ``FOLDER/NAME_*``. ``analyse(prefix, options, workload) -> dict``:
    each run's analysis, on its worker; its dict is the run's result, with the run's own
    fields added. ``client``: an already connected ``distributed.Client`` (then
    ``scheduler_address`` and ``workers`` are unused). ``pin_cpus``: LocalCluster only, bind
    worker i (engine and scheduler) to CPU i.
    """
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    check_grid(runs, workers, scheduler_address)
    resumed = resume(runs, folder, analyse)
    skipped = len(resumed.results)
    if skipped:
        say(f"{skipped} runs already done in {folder}, {len(resumed.todo)} to go")
    if not resumed.todo:
        return GridResult(folder=folder, results=resumed.results, skipped=skipped)
    with Cluster(client, scheduler_address=scheduler_address, workers=workers, say=say) as cluster:
        submissions = Submissions(
            cluster, folder, resumed, analyse, shared_fs=shared_fs, pin_cpus=pin_cpus and cluster.local
        )
        grid = submissions.run(progress, say)
    report_failures(grid, say)
    return grid


def check_grid(runs: list[GridRun], workers: int | None, scheduler_address: str | None) -> None:
    """Run names unique (they name files), and a cluster that can be had."""
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise UsageError(f"two runs of the grid have the same name: {', '.join(twice[:5])}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    if scheduler_address and workers is not None:
        raise UsageError("--workers starts a local cluster: it does not go with --scheduler-address")


def report_failures(grid: GridResult, say: Say) -> None:
    if grid.failed:
        say(f"{len(grid.failed)} runs failed twice:")
        for name, message in grid.failed.items():
            say(f"  {name}: {message}")


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "unknown error"
    return line if len(line) <= 200 else line[:197] + "..."


class Submissions:
    """The runs left to do, submitted to the cluster and collected as they end: each answer's
    outputs are written under the folder as it comes (:meth:`done`); a failed run is submitted
    once more, then reported (:meth:`failed`)."""

    def __init__(
        self,
        cluster: Cluster,
        folder: Path,
        resumed: Resumed,
        analyse: Analysis | None,
        *,
        shared_fs: bool,
        pin_cpus: bool,
    ):
        self.client = cluster.client
        self.folder = folder
        self.resumed = resumed
        self.shared_fs, self.pin_cpus = shared_fs, pin_cpus
        self.analyse, self.analysis_id = analyse, analysis_id(analyse)
        self.grid = GridResult(
            folder=folder,
            results=resumed.results,
            skipped=len(resumed.results),
            workers=cluster.workers,
            startup_s=cluster.startup_s,
        )
        self.shipped: dict[Any, Any] = {}  # input path -> its scattered future; (path, "bytes") -> its size
        self.pending: dict[str, tuple[GridRun, int]] = {}  # future key -> (run, attempt)
        self.futures: Any = None
        self.bar: _Progress | None = None

    def run(self, progress: bool | None, say: Say) -> GridResult:
        """Submits every run left, collects them all; the grid's result (on Ctrl-C too, then
        said and raised again)."""
        from distributed import as_completed

        begin = time.perf_counter()
        try:
            self.futures = as_completed(
                [self.submit(r, 0) for r in self.resumed.todo], loop=self.client.loop, with_results=False
            )
            self.bar = _Progress(len(self.resumed.todo), progress, say)
            for future in self.futures:
                run, attempt = self.pending.pop(future.key)
                self.collect(run, attempt, _answer(future))
                del future
        except KeyboardInterrupt:
            self.grid.interrupted = True
            raise
        finally:
            self.grid.wall_s = time.perf_counter() - begin
            if self.bar is not None:
                self.bar.close()
            if self.grid.interrupted:
                say(self.grid.summary())
        self.grid.input_bytes = sum(v for k, v in self.shipped.items() if isinstance(k, tuple))
        return self.grid

    def submit(self, run: GridRun, attempt: int) -> Any:
        key = self.resumed.keys[run.name]
        task = RunTask(
            name=run.name,
            key=key,
            spec=replace(run.spec, prefix=str(self.folder / run.name)),
            params=dict(run.params),
            shared_fs=self.shared_fs,
            pin_cpus=self.pin_cpus,
            analyse=self.analyse,
            analysis_id=self.analysis_id,
        )
        future = self.client.submit(
            execute,
            task,
            self.ship(run.spec.workload),
            self.ship(run.spec.platform),
            key=f"adaptsched-run-{key}-{run.name[:60]}-try{attempt}",
            pure=False,
        )
        self.pending[future.key] = (run, attempt)
        return future

    def ship(self, path: str | int) -> Shipped | Any:
        """What a task receives for an input file: its path (shared file system) or a future of
        its compressed contents, scattered once; a number of hosts as it is."""
        if isinstance(path, int):
            return ("value", path)
        if self.shared_fs:
            return ("path", str(Path(path).resolve()))
        cache = self.shipped
        if path in cache and cache[path].status != "finished":
            # its workers all died: Dask cannot recompute scattered data, so every task needing it
            # would be cancelled for lost dependencies; scatter it again
            del cache[path]
        if path not in cache:
            import gzip

            from adaptsched.engines.spec import sha256_file

            hashes = self.resumed.hashes
            sha = hashes.get(path) or sha256_file(path)
            hashes[path] = sha
            payload = gzip.compress(Path(path).read_bytes(), compresslevel=6)
            suffix = "".join(Path(path).suffixes[-1:]) or ".dat"
            [cache[path]] = self.client.scatter([("data", sha, payload, suffix)], hash=False)
            cache[(path, "bytes")] = len(payload)
        return cache[path]

    def collect(self, run: GridRun, attempt: int, answer: dict[str, Any]) -> None:
        """One answer: its outputs written, then the run done, retried or failed."""
        handled = time.perf_counter()
        if answer.get("outputs"):
            unpack(answer["outputs"], self.folder, run.name)
        if answer["ok"]:
            self.done(run, answer)
        elif attempt == 0:
            self.retry(run, answer)
        else:
            self.failed(run, answer)
        self.grid.client_s += time.perf_counter() - handled

    def done(self, run: GridRun, answer: dict[str, Any]) -> None:
        result = answer["result"]
        result["output_bytes"] = len(answer["outputs"] or b"")
        write_result(self.folder, run.name, result)
        grid = self.grid
        grid.results[run.name] = result
        grid.run_s += result["wall_s"] + result.get("analysis_s", 0.0)
        grid.output_bytes += result["output_bytes"]
        grid.done += 1
        assert self.bar is not None
        self.bar.update(run.name)

    def retry(self, run: GridRun, answer: dict[str, Any]) -> None:
        self.futures.add(self.submit(run, 1))
        assert self.bar is not None
        self.bar.note(f"  {run.name}: failed ({_first_line(answer['error'])}), trying once more")

    def failed(self, run: GridRun, answer: dict[str, Any]) -> None:
        message = answer["error"]
        if answer.get("log_tail") and "last lines of" not in message:  # not already in the error
            message += f"\n{answer['log_tail']}"
        self.grid.failed[run.name] = message
        assert self.bar is not None
        self.bar.update(run.name, f"FAILED twice: {_first_line(message)}")


def _answer(future: Any) -> dict[str, Any]:
    """A run's answer (:func:`~.worker.execute`'s dict), or a failure when Dask itself failed."""
    try:
        answer: dict[str, Any] = future.result()
    except Exception as error:  # the worker died too often (KilledWorker), or Dask failed
        answer = {"ok": False, "error": f"{type(error).__name__}: {error}", "log_tail": "", "outputs": None}
    return answer


class _Progress:
    def __init__(self, total: int, enabled: bool | None, say: Say):
        self.total, self.say, self.done = total, say, 0
        self.begin = time.perf_counter()
        self.bar: Any = None
        self.step = max(1, total // 10)
        if enabled is None:
            enabled = sys.stderr.isatty()
        if enabled and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="runs", unit="run", file=sys.stderr, smoothing=0.05)

    def update(self, name: str, note: str = "") -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
            if note:
                self.bar.write(f"  {name}: {note}", file=sys.stderr)
            return
        if note:
            self.say(f"  {name}: {note}")
        if self.done % self.step == 0 or self.done == self.total:
            elapsed = time.perf_counter() - self.begin
            left = elapsed / self.done * (self.total - self.done)
            self.say(
                f"  [{self.done}/{self.total}] {elapsed / 60:.1f} min elapsed, about {left / 60:.1f} min to go",
            )

    def note(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            self.say(text)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
