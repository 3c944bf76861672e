"""Runs a grid of simulations on Dask distributed: :func:`run_grid`.

Every run of a sweep and of every reproduction goes through here:

* **Where.** By default a ``LocalCluster`` of one single-threaded worker process per CPU, on
  127.0.0.1; or a running Dask cluster (``scheduler_address`` ``tcp://HOST:PORT``, or the
  ``scheduler_file`` that ``dask scheduler --scheduler-file`` writes); or a dask-jobqueue
  cluster on Slurm, PBS or SGE started for the grid (:mod:`.jobqueue`); :mod:`.cluster`.
* **Data.** Workers need adaptsched installed, nothing else. Each distinct input file
  (workload, platform) is one pure Dask task keyed by its content's hash, whose result is
  its gzip-compressed contents (:func:`~.worker.input_data`): each worker fetches it once,
  and if the only worker holding it dies, Dask computes it again from the task. Each run
  returns its outputs as one gzip-compressed tar (``_jobs.csv``, ``_schedule.csv``,
  ``_machine_states.csv``, logs), unpacked under the results folder (:mod:`.worker`). With
  ``shared_fs=True`` (a file system that every worker sees under the same paths), inputs are
  read and outputs written in place and nothing is shipped.
* **Resumable.** A run's key hashes its scheduler, options, the contents of its workload and
  platform, its engine and adaptsched's version (:func:`~.grid.run_key`); a run whose
  ``NAME_result.json`` holds the same key and whose ``NAME_jobs.csv`` is there is skipped
  (:func:`~.grid.resume`); if its analysis changed, its metrics are recomputed on the
  workers. Results are written as each run ends (the result file last), so Ctrl-C, a crash
  or a lost client loses no finished run.
* **Failures.** A run that raises is run once more by Dask (``retries=1``), then reported
  with the last lines of its logs; the others go on. A worker that dies costs only the run
  it was running, which Dask gives to another worker, and the sweep says so ("worker
  tcp://... lost; 1 run resubmitted"). A run failed by Dask for lost workers
  (``KilledWorker``; ``allowed-failures`` 1 on the clusters started here) is failed if it
  killed two of them, that is if two of the workers it was running on died alone, their
  nannies starting new ones (:mod:`.blame`), and reported with the logs it left on its last
  worker's host; otherwise (workers lost with their nannies: nodes, batch jobs, workers
  killed from outside) it is submitted again, as a run cancelled by the cluster is.
* **Progress.** A bar over runs with an ETA on a terminal (a line per tenth of the runs
  otherwise), and a final line: done, failed, skipped, the workers (least and most, as
  sampled), lost and joined workers, resubmitted runs, and the efficiency ``sum of run
  times / worker-seconds``, a run's time being its simulation's wall time plus its analysis,
  and worker-seconds the worker threads sampled over the sweep times the time, from the
  first submission on (the cluster's start-up is reported beside it). What is left is the
  executor's overhead: Dask's scheduling, shipping inputs and outputs, writing them, runs
  lost with their workers, and workers idle at the end.

Each run's analysis (``analyse(prefix, options, workload) -> dict``, a module-level function
or a ``functools.partial`` of one) runs on the worker, right after the run, on its outputs.
"""

from __future__ import annotations

import queue
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from adaptsched.errors import UsageError

from .blame import Attempt, Blame
from .cluster import Cluster, Tls, Where
from .grid import Analysis, GridResult, GridRun, Resumed, analysis_id, read_result, resume, run_key, write_result
from .jobqueue import JobQueue
from .watch import Watch
from .worker import (
    AnnounceWorker,
    RunFailed,
    RunTask,
    Shipped,
    execute,
    input_data,
    log_tail,
    pack,
    reanalyse,
    salvage,
    unpack,
)

__all__ = ["Cluster", "GridResult", "GridRun", "Where", "read_result", "run_grid", "run_key"]

Say = Callable[..., None]

#: A run lost more often than this (its worker, its inputs) without being blamed is failed.
MAX_RESUBMISSIONS = 5
#: Metrics recomputed at once per worker thread (each task carries a run's outputs).
REANALYSIS_WINDOW = 4


def run_grid(
    runs: list[GridRun],
    folder: str | Path,
    *,
    analyse: Analysis | None = None,
    scheduler_address: str | None = None,
    scheduler_file: str | None = None,
    jobqueue: JobQueue | None = None,
    first_worker_timeout_s: float | None = None,
    workers: int | None = None,
    tls: Tls | None = None,
    shared_fs: bool = False,
    pin_cpus: bool = False,
    progress: bool | None = None,
    client: Any = None,
    say: Say = print,
) -> GridResult:
    """Runs the grid's runs not done yet in ``folder`` (module doc) and returns all results.

    Each run's outputs go to ``FOLDER/NAME_*``. ``analyse(prefix, options, workload) -> dict``:
    each run's analysis, on its worker; its dict is the run's result, with the run's own
    fields added. Where: ``workers`` (a LocalCluster, the default), ``scheduler_address``,
    ``scheduler_file``, ``jobqueue`` (waiting ``first_worker_timeout_s`` at most for a first
    worker), or ``client`` (an already connected ``distributed.Client``); ``tls``: the certificates of
    a ``tls://`` scheduler, or of ``jobqueue``'s (docs/sweeps.md, section TLS). ``pin_cpus``:
    LocalCluster only, bind worker i (engine and scheduler) to CPU i.
    """
    folder = Path(folder).resolve()
    where = Where(workers, scheduler_address, scheduler_file, jobqueue, first_worker_timeout_s, tls)
    check_grid(runs)
    where = where.check() if client is None else where
    folder.mkdir(parents=True, exist_ok=True)
    resumed = resume(runs, folder, analyse)
    skipped = len(resumed.results)
    if skipped:
        say(f"{skipped} runs already done in {folder}, {len(resumed.todo)} to go")
    if resumed.reanalyse:
        say(f"{len(resumed.reanalyse)} of them with other metrics: recomputed on the workers")
    if not resumed.todo and not resumed.reanalyse:
        return GridResult(folder=folder, results=resumed.results, skipped=skipped)
    with Cluster(client, where=where, say=say) as cluster:
        submissions = Submissions(
            cluster, folder, resumed, analyse, shared_fs=shared_fs, pin_cpus=pin_cpus and cluster.local
        )
        grid = submissions.run(progress, say)
    report_failures(grid, say)
    return grid


def check_grid(runs: list[GridRun]) -> None:
    """Run names unique (they name files)."""
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise UsageError(f"two runs of the grid have the same name: {', '.join(twice[:5])}")


def report_failures(grid: GridResult, say: Say) -> None:
    if grid.failed:
        say(f"{len(grid.failed)} run{'s' if len(grid.failed) != 1 else ''} failed:")
        for name, message in grid.failed.items():
            say(f"  {name}: {message}")


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "unknown error"
    return line if len(line) <= 200 else line[:197] + "..."


@dataclass
class Pending:
    """A task in flight: its run, ``kind`` (``run`` or ``metrics``), and how often it was
    submitted again because the cluster lost it."""

    run: GridRun
    kind: str = "run"
    resubmitted: int = 0
    future: Any = None


class Submissions:
    """The runs left to do (and the metrics to recompute), submitted to the cluster and
    collected as they end: each answer's outputs are written under the folder as it comes
    (:meth:`done`); failures are reported (:meth:`failed`), runs lost with their workers or
    inputs submitted again (:meth:`resubmit`), and what the cluster does is said as it
    happens (:meth:`events`)."""

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
        self.inputs: dict[str | int, Any] = {}  # input path -> the future of its contents
        self.pending: dict[str, Pending] = {}  # future key -> what it is
        self.running: dict[str, Pending] = {}  # run name -> its run task in flight
        self.metrics_in_flight = 0
        self.finished: queue.Queue[Any] = queue.Queue()
        self.reanalyse = list(reversed(resumed.reanalyse))  # popped from the end: in the grid's order
        self.blame = Blame()
        self.failures_seen: dict[str, int] = {}
        self.waiting: list[tuple[Pending, str | None]] = []  # failed by Dask, verdict pending
        self.suspects: set[str] = set()  # runs that were running on a lost worker
        self.watch = Watch(self.client)
        self.bar: _Progress | None = None

    def run(self, progress: bool | None, say: Say) -> GridResult:
        """Submits every run left, collects them all; the grid's result (on Ctrl-C too, then
        said and raised again)."""
        begin = time.perf_counter()
        try:
            self.watch.start()
            self.client.register_plugin(AnnounceWorker())
            self.bar = _Progress(len(self.resumed.todo) + len(self.reanalyse), progress, say)
            for run in self.resumed.todo:
                self.submit(Pending(run))
            self.top_up()
            while self.pending or self.waiting:
                self.step()
        except KeyboardInterrupt:
            self.grid.interrupted = True
            raise
        finally:
            self.watch.close()
            try:
                self.client.unregister_worker_plugin(AnnounceWorker.name)
            except Exception:  # the cluster is gone
                pass
            self.grid.wall_s = time.perf_counter() - begin
            self._cluster_figures()
            if self.bar is not None:
                self.bar.close()
            if self.grid.interrupted:
                say(self.grid.summary())
        return self.grid

    def step(self) -> None:
        """Waits (half a second at most) for a task to end and handles it, then the events."""
        try:
            future = self.finished.get(timeout=0.5)
        except queue.Empty:
            future = None
        self.events()
        if future is not None:
            self.collect(future)
        self.judge()
        self.top_up()
        self.watch.sample()

    def _cluster_figures(self) -> None:
        grid, watch = self.grid, self.watch
        grid.workers_min, grid.workers_max = watch.threads_min, watch.threads_max
        grid.worker_s = watch.worker_s

    # ---------------------------------------------------------------- submitting
    def task(self, run: GridRun) -> RunTask:
        return RunTask(
            name=run.name,
            key=self.resumed.keys[run.name],
            spec=replace(run.spec, prefix=str(self.folder / run.name)),
            params=dict(run.params),
            shared_fs=self.shared_fs,
            pin_cpus=self.pin_cpus,
            analyse=self.analyse,
            analysis_id=self.analysis_id,
        )

    def submit(self, pending: Pending) -> None:
        run = pending.run
        task = self.task(run)
        tag = f"{task.key}-{run.name[:60]}-{pending.resubmitted}"
        if pending.kind == "run":
            inputs = (self.ship(run.spec.workload), self.ship(run.spec.platform))
            future = self.client.submit(execute, task, *inputs, key=f"adaptsched-run-{tag}", pure=False, retries=1)
        else:
            prefix = self.folder / run.name
            outputs = ("path", str(prefix)) if self.shared_fs else ("data", pack(prefix))
            future = self.client.submit(
                reanalyse,
                task,
                outputs,
                self.ship(run.spec.workload),
                key=f"adaptsched-metrics-{tag}",
                pure=False,
                retries=1,
            )
        pending.future = future
        self.pending[future.key] = pending
        if pending.kind == "run":
            self.running[run.name] = pending
        else:
            self.metrics_in_flight += 1
        future.add_done_callback(self.finished.put)

    def top_up(self) -> None:
        """Keeps a few metrics recomputations in flight per worker thread (each carries the
        outputs of its run: not all at once)."""
        window = REANALYSIS_WINDOW * max(1, self.watch.threads)
        while self.reanalyse and self.metrics_in_flight < window:
            self.submit(Pending(self.reanalyse.pop(), kind="metrics"))

    def ship(self, path: str | int) -> Shipped | Any:
        """What a task receives for an input file: its path (shared file system) or the future
        of its compressed contents (a pure task keyed by their hash); a number of hosts as it is."""
        if isinstance(path, int):
            return ("value", path)
        if self.shared_fs:
            return ("path", str(Path(path).resolve()))
        if path not in self.inputs:
            import gzip

            from adaptsched.engines.spec import sha256_file

            hashes = self.resumed.hashes
            sha = hashes.get(path) or sha256_file(path)
            hashes[path] = sha
            payload = gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0)
            suffix = "".join(Path(path).suffixes[-1:]) or ".dat"
            self.inputs[path] = self.client.submit(
                input_data, ("data", sha, payload, suffix), key=f"adaptsched-input-{sha[:40]}", pure=True
            )
            self.grid.input_bytes += len(payload)
        return self.inputs[path]

    # ---------------------------------------------------------------- collecting
    def collect(self, future: Any) -> None:
        """One task ended: its outputs written, then the run done, failed or submitted again."""
        pending = self.pending.pop(future.key, None)
        if pending is None:
            return
        if pending.kind == "run":
            self.running.pop(pending.run.name, None)
        else:
            self.metrics_in_flight -= 1
        handled = time.perf_counter()
        status = future.status
        if status == "finished":
            try:
                answer = future.result()  # if its worker died since, Dask computes it again
            except Exception:
                status = future.status
            else:
                (self.done if pending.kind == "run" else self.reanalysed)(pending.run, answer)
        if status == "cancelled":
            if pending.run.name in self.blame.killers:
                self.failed_killer(pending, None)
            else:
                self.resubmit(pending, "cancelled by the cluster (its inputs or its worker lost)")
        elif status == "error":
            self.errored(pending, future.exception())
        elif status != "finished":  # its result lost with its worker: Dask computes it again
            self.pending[future.key] = pending
            if pending.kind == "run":
                self.running[pending.run.name] = pending
            else:
                self.metrics_in_flight += 1
            future.add_done_callback(self.finished.put)
        self.grid.client_s += time.perf_counter() - handled

    def errored(self, pending: Pending, error: BaseException) -> None:
        from distributed.scheduler import KilledWorker

        if isinstance(error, KilledWorker):  # judged once the lost workers' nannies are heard from
            self.waiting.append((pending, getattr(getattr(error, "last_worker", None), "address", None)))
        elif isinstance(error, RunFailed):
            if error.outputs:
                unpack(error.outputs, self.folder, pending.run.name)
            self.failed(pending, error.message)
        else:
            self.failed(pending, f"{type(error).__name__}: {error}")

    def judge(self) -> None:
        """Runs failed by Dask for lost workers: failed if they killed two (:mod:`.blame`),
        submitted again otherwise; runs still running that killed two workers are stopped (on
        a scheduler that allows more failures than ours)."""
        waiting, self.waiting = self.waiting, []
        for pending, last in waiting:
            verdict = self.blame.verdict(pending.run.name, last)
            if verdict == "wait":
                self.waiting.append((pending, last))
            elif verdict == "killer":
                self.failed_killer(pending, last)
            else:  # lost with workers it did not kill (counted as resubmitted when they were lost)
                counted = len(self.blame.deaths(pending.run.name, last)) < 2
                self.resubmit(pending, "failed by Dask for lost workers it did not kill", counted=counted)
        for name in list(self.suspects):
            verdict = self.blame.verdict(name)
            if verdict != "wait":
                self.suspects.discard(name)
            if verdict == "killer" and name in self.running:
                self.blame.killers.add(name)
                self.client.cancel(self.running[name].future)

    def done(self, run: GridRun, answer: dict[str, Any]) -> None:
        if answer.get("outputs"):
            unpack(answer["outputs"], self.folder, run.name)
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

    def reanalysed(self, run: GridRun, fields: dict[str, Any]) -> None:
        result = self.grid.results[run.name]
        result.update(fields)
        write_result(self.folder, run.name, result)
        self.grid.reanalysed += 1
        assert self.bar is not None
        self.bar.update(run.name)

    def resubmit(self, pending: Pending, why: str, counted: bool = False) -> None:
        """Submits a run lost by the cluster again (``counted``: already counted as resubmitted,
        when its worker was lost)."""
        pending.resubmitted += 1
        if pending.resubmitted > MAX_RESUBMISSIONS:
            self.failed(pending, f"lost by the cluster {MAX_RESUBMISSIONS + 1} times (last: {why})")
            return
        self.grid.resubmitted += 0 if counted else 1
        self.submit(pending)
        assert self.bar is not None
        self.bar.note(f"  {pending.run.name}: {why}; submitted again")

    def failed(self, pending: Pending, message: str) -> None:
        name = pending.run.name
        self.grid.failed[name] = message
        if pending.kind == "metrics":
            self.grid.results.pop(name, None)
        assert self.bar is not None
        self.bar.update(name, f"FAILED: {_first_line(message)}")

    def failed_killer(self, pending: Pending, last: str | None) -> None:
        """A run that was running on two workers when they died: reported with the logs it
        left on its last worker's host."""
        name = pending.run.name
        deaths = self.blame.deaths(name, last)
        message = f"killed its worker twice ({', '.join(deaths)}): failed, the other runs unaffected"
        attempts = self.blame.attempts.get(name, [])
        if attempts:
            message += "\n" + self.salvaged_log(name, attempts[-1])
        self.failed(pending, message)

    def salvaged_log(self, name: str, attempt: Attempt) -> str:
        """The last lines of the logs a run left in its scratch folder on ``attempt.host``:
        read here if that is this host, else by a worker still on that host."""
        try:
            if attempt.host == socket.gethostname() and Path(attempt.scratch).parent.is_dir():
                payload = salvage(attempt.scratch)
            else:
                future = self.client.submit(salvage, attempt.scratch, workers=[attempt.host], pure=False)
                payload = future.result(timeout=30)
        except Exception:
            return f"  its logs were in {attempt.host}:{attempt.scratch}_sched.log (no worker there to read them)"
        if payload:
            unpack(payload, self.folder, name)
        return log_tail(str(self.folder / name)) or "  (it left no log)"

    # ---------------------------------------------------------------- the cluster's events
    def events(self) -> None:
        for kind, message in self.watch.drain():
            if kind == "run":
                self.run_event(message)
            elif message["action"] == "add-worker":
                self.grid.joined_workers += 1
            else:
                self.worker_lost(message)

    def run_event(self, message: dict[str, Any]) -> None:
        name = message.get("name", "")
        if message.get("event") == "started":
            where = (message.get("worker", ""), message.get("host", ""), message.get("scratch", ""))
            self.blame.started(name, Attempt(*where))
        elif message.get("event") == "worker":
            self.blame.worker_seen(message.get("worker", ""), message.get("nanny"))
        elif message.get("event") == "failed":
            seen = self.failures_seen[name] = self.failures_seen.get(name, 0) + 1
            if seen == 1 and self.bar is not None:
                self.bar.note(
                    f"  {name}: failed on {message.get('worker')} ({_first_line(message.get('error', ''))}), "
                    "trying once more"
                )

    def worker_lost(self, message: dict[str, Any]) -> None:
        """A worker left without being asked to: said, with the runs it held (Dask gives them
        to other workers, or fails a run that was on too many lost workers: :meth:`judge`)."""
        address = message.get("worker", "?")
        if message.get("expected"):
            return
        self.blame.worker_lost(address)
        self.grid.lost_workers += 1
        ours = [self.pending[k] for k in message.get("processing-tasks", ()) if k in self.pending]
        again, running = 0, []
        for pending in ours:
            name = pending.run.name
            if self.blame.last_worker(name) == address:
                running.append(name)
                self.suspects.add(name)
            again += len(self.blame.deaths(name)) < 2
        self.grid.resubmitted += again
        text = f"worker {address} lost; {again} run{'s' if again != 1 else ''} resubmitted"
        if running:
            text += f" ({', '.join(running)} was running on it)"
        assert self.bar is not None
        self.bar.note(text)


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
