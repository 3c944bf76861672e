"""Runs a grid of simulations on Dask distributed: :func:`run_grid`.

Every run of a sweep and of every reproduction goes through here:

* **Where.** By default a ``LocalCluster`` of one single-threaded worker process per CPU; with
  ``scheduler_address`` (``tcp://HOST:PORT``) a running Dask cluster (``dask scheduler`` and
  ``dask worker`` processes, or dask-jobqueue on Slurm/PBS: docs/sweeps.md).
* **Data.** Workers need adaptsched installed, nothing else: the client ships each distinct
  input file once per worker (``Client.scatter``, Dask keeps it on the worker) and each run
  returns its outputs as one gzip-compressed tar (``_jobs.csv``, ``_schedule.csv``,
  ``_machine_states.csv``, logs), unpacked under the results folder. With ``shared_fs=True``
  (a file system that every worker sees under the same paths), inputs are read and outputs
  written in place and nothing is shipped.
* **Resumable.** A run's key hashes its scheduler, options, the contents of its workload and
  platform, its engine and adaptsched's version (:func:`run_key`); a run whose
  ``NAME_result.json`` holds the same key is skipped. Results are written as each run ends
  (the result file last), so Ctrl-C, a crash or a lost client loses no finished run.
* **Failures.** A run that fails (an exception in the run, or its worker lost more often than
  Dask allows) is submitted once more; if it fails again it is reported with its last log
  lines, and the others go on. A worker that dies mid-run is Dask's business: its runs go to
  the other workers.
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

import functools
import hashlib
import io
import json
import logging
import os
import socket
import sys
import tarfile
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from distributed.diagnostics.plugin import WorkerPlugin

from adaptsched import __version__
from adaptsched.errors import AdaptschedError, UsageError

OUTPUT_SUFFIXES = ("_jobs.csv", "_schedule.csv", "_machine_states.csv", "_sched.log", "_batsim.log")
LOG_LINES = 12


@dataclass(frozen=True)
class Run:
    """One simulation of a grid. ``name`` is unique in the grid and names its files
    (``FOLDER/NAME_jobs.csv``...); ``workload`` and ``platform`` are files on the client;
    ``params``: what the run stands for, as columns of the sweep's table."""

    name: str
    scheduler: str
    options: dict = field(hash=False, default_factory=dict)
    workload: str = ""
    platform: str = ""
    engine: str = "embedded"
    params: dict = field(hash=False, default_factory=dict, compare=False)


@dataclass
class GridResult:
    """What :func:`run_grid` did: ``results`` of every run done now or before (by name),
    ``failed`` runs (name -> error with the last log lines)."""

    folder: Path
    results: dict
    failed: dict
    done: int
    skipped: int
    workers: int
    wall_s: float
    startup_s: float
    run_s: float
    interrupted: bool = False
    input_bytes: int = 0  # compressed inputs shipped to workers (0 on a shared file system)
    output_bytes: int = 0  # compressed outputs received from workers (0 on a shared file system)
    client_s: float = 0.0  # the client's time handling answers: unpacking and writing outputs

    @property
    def efficiency(self) -> float | None:
        if self.done == 0 or self.wall_s <= 0 or self.workers <= 0:
            return None
        return self.run_s / (self.wall_s * self.workers)

    def summary(self) -> str:
        total = self.done + len(self.failed) + self.skipped
        if self.done + len(self.failed) == 0:
            return f"{total} runs: {self.skipped} skipped (done before), nothing to run"
        line = (
            f"{total} runs: {self.done} done, {len(self.failed)} failed, {self.skipped} skipped "
            f"in {self.wall_s:.1f} s on {self.workers} worker{'s' if self.workers != 1 else ''} "
            f"(+{self.startup_s:.1f} s to start)"
        )
        if self.efficiency is not None:
            line += (
                f"; efficiency {self.efficiency:.2f} (sum of run times {self.run_s:.1f} s / "
                f"({self.wall_s:.1f} s x {self.workers} workers))"
            )
        if self.interrupted:
            line += "; interrupted: finished runs are kept, run again to go on"
        return line


# ------------------------------------------------------------------------------ keys
def sha256_file(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def resolved_options(scheduler: str, options: dict) -> dict:
    """Every option of a built-in scheduler, the defaults included, so that a run made before a
    default changed is not taken for one made after it; the options as given otherwise (a
    plugin file, or options the scheduler will refuse with its own message)."""
    from adaptsched.core.options import OptionError
    from adaptsched.schedulers import SCHEDULERS, core_class

    if scheduler not in SCHEDULERS:
        return options
    try:
        return core_class(scheduler).Options.parse(options).values()
    except OptionError:
        return options


def run_key(run: Run, hashes: dict | None = None) -> str:
    """A run's identity: scheduler (and a plugin file's contents), every option's value
    (:func:`resolved_options`), the contents of its workload and platform, engine and
    adaptsched's version. ``hashes``: a cache {path: sha256} shared over a grid."""
    hashes = {} if hashes is None else hashes

    def content(path):
        path = str(path)
        if path not in hashes:
            hashes[path] = sha256_file(path)
        return hashes[path]

    scheduler = run.scheduler
    ident = {
        "scheduler": scheduler,
        "plugin": content(scheduler) if scheduler.endswith(".py") else None,
        "options": resolved_options(scheduler, run.options),
        "workload": content(run.workload),
        "platform": content(run.platform),
        "engine": run.engine,
        "adaptsched": __version__,
    }
    text = json.dumps(ident, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def analysis_id(analyse) -> str | None:
    """What identifies an analysis function (with a partial's arguments), stored in each result."""
    if analyse is None:
        return None
    if isinstance(analyse, functools.partial):
        inner = analysis_id(analyse.func)
        return f"{inner}({json.dumps(analyse.keywords, sort_keys=True, default=str)})"
    return f"{analyse.__module__}.{analyse.__qualname__}"


# ------------------------------------------------------------------------ on workers
_INPUTS: dict = {}  # sha256 -> local path, per worker process


def _worker_folder() -> Path:
    try:
        from distributed import get_worker

        return Path(get_worker().local_directory)
    except (ImportError, ValueError):
        return Path(tempfile.gettempdir())


def _materialise(data) -> str:
    """An input on the worker: ``("path", PATH)`` as is, ``("data", SHA, GZ)`` written once."""
    if data[0] == "path":
        return data[1]
    _, sha, payload, suffix = data
    path = _INPUTS.get(sha)
    if path is None or not os.path.isfile(path):
        import gzip

        folder = _worker_folder() / "adaptsched-inputs"
        folder.mkdir(parents=True, exist_ok=True)
        path = str(folder / f"{sha[:20]}{suffix}")
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(gzip.decompress(payload))
        os.replace(tmp, path)
        _INPUTS[sha] = path
    return path


def _pack(prefix: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for suffix in OUTPUT_SUFFIXES:
            path = Path(f"{prefix}{suffix}")
            if path.is_file():
                tar.add(path, arcname=path.name)
    return buffer.getvalue()


def _unpack(payload: bytes, folder: Path, name: str) -> int:
    """Writes a run's outputs under ``folder``; only ``NAME_*`` regular files are accepted."""
    with tarfile.open(fileobj=io.BytesIO(payload), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile() or "/" in member.name or not member.name.startswith(f"{name}_"):
                continue
            data = tar.extractfile(member).read()
            target = folder / member.name
            tmp = target.with_name(target.name + ".part")
            tmp.write_bytes(data)
            tmp.replace(target)
    return len(payload)


def _cpu_of_worker() -> int | None:
    """LocalCluster workers are named 0, 1...: worker i runs on the i-th CPU (``pin_cpus``)."""
    try:
        from distributed import get_worker

        index = int(get_worker().name)
        cpus = sorted(os.sched_getaffinity(0))
    except (ImportError, ValueError, TypeError, AttributeError, OSError):
        return None
    return cpus[index % len(cpus)] if cpus else None


def execute(task: dict, workload, platform) -> dict:
    """One run on a worker (module-level: Dask pickles it by reference). Never raises for
    a failed run: returns ``{"ok": False, "error", "log_tail", "outputs"}`` instead."""
    from adaptsched.engines.process import tail
    from adaptsched.engines.run import RunSpec, run

    begin = time.perf_counter()
    name = task["name"]
    scratch = None
    if task["shared_fs"]:
        prefix = Path(task["folder"]) / name
    else:
        scratch = Path(tempfile.mkdtemp(prefix="adaptsched-run-", dir=_worker_folder()))
        prefix = scratch / name
    affinity = None
    try:
        workload_path = _materialise(workload)
        platform_path = _materialise(platform)
        cpu = _cpu_of_worker() if task["pin_cpus"] else None
        if cpu is not None:
            affinity = os.sched_getaffinity(0)
            os.sched_setaffinity(0, {cpu})  # run() pins its engine and scheduler to this CPU
        try:
            spec = RunSpec.make(
                task["scheduler"],
                workload_path,
                platform_path,
                prefix,
                engine=task["engine"],
                options=dict(task["options"]),
                batsim=task["batsim"],
                progress=False,
                pin_cpu=cpu is not None,
            )
            result = run(spec, say=lambda *a: None)
        finally:
            if affinity is not None:
                os.sched_setaffinity(0, affinity)
        analyse = task["analyse"]
        analysed = time.perf_counter()
        out = analyse(str(prefix), dict(task["options"]), workload_path) if analyse is not None else {}
        out.update(
            {
                "name": name,
                "key": task["key"],
                "scheduler": task["scheduler"],
                "options": dict(task["options"]),
                "engine": task["engine"],
                "wall_s": result.wall_s,
                "nb_jobs": result.nb_jobs,
                "nb_hosts": result.nb_hosts,
                "notes": result.notes,
                "host": socket.gethostname(),
                "adaptsched_version": __version__,
                "analysis": task["analysis_id"],
                "params": task["params"],
                "analysis_s": time.perf_counter() - analysed,
            }
        )
        outputs = None if task["shared_fs"] else _pack(prefix)
        out["task_s"] = time.perf_counter() - begin
        return {"ok": True, "result": out, "outputs": outputs}
    except Exception as error:  # reported by the client, with the run's last log lines
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        logs = [Path(f"{prefix}{s}") for s in ("_sched.log", "_batsim.log")]
        log_tail = "\n".join(f"  {p.name}:\n{tail(p, LOG_LINES)}" for p in logs if p.is_file())
        outputs = None
        if not task["shared_fs"]:
            try:
                outputs = _pack(prefix)
            except OSError:
                pass
        return {"ok": False, "error": detail, "log_tail": log_tail, "outputs": outputs, "host": socket.gethostname()}
    finally:
        if scratch is not None:
            import shutil

            shutil.rmtree(scratch, ignore_errors=True)


# ------------------------------------------------------------------------ on the client
def _ship(client, path: str, cache: dict, hashes: dict, shared_fs: bool):
    """What a task receives for an input file: its path (shared file system) or a future of
    its compressed contents, scattered once."""
    if shared_fs:
        return ("path", str(Path(path).resolve()))
    if path in cache and cache[path].status != "finished":
        # its workers all died: Dask cannot recompute scattered data, so every task needing it
        # would be cancelled for lost dependencies; scatter it again
        del cache[path]
    if path not in cache:
        import gzip

        sha = hashes.get(path) or sha256_file(path)
        hashes[path] = sha
        payload = gzip.compress(Path(path).read_bytes(), compresslevel=6)
        suffix = "".join(Path(path).suffixes[-1:]) or ".dat"
        [cache[path]] = client.scatter([("data", sha, payload, suffix)], hash=False)
        cache[(path, "bytes")] = len(payload)
    return cache[path]


def read_result(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _write_result(folder: Path, name: str, result: dict):
    path = folder / f"{name}_result.json"
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(result, indent=1, default=str))
    tmp.replace(path)


def _exit_quietly(signum, frame):  # pragma: no cover - runs in worker processes
    os._exit(128 + signum)


class QuietInterrupt(WorkerPlugin):
    """A worker plugin: on Ctrl-C (SIGINT to the terminal's whole process group), a local
    worker exits at once instead of printing a traceback; the client reports the interruption."""

    name = "adaptsched-quiet-interrupt"

    def setup(self, worker):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, _exit_quietly)


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "unknown error"
    return line if len(line) <= 200 else line[:197] + "..."


def start_client(scheduler_address: str | None, workers: int | None, *, say=print):
    """(client, cluster or None, number of worker threads). ``scheduler_address``: a running
    cluster's scheduler; otherwise a LocalCluster of ``workers`` single-threaded worker
    processes (default: one per CPU)."""
    from distributed import Client, LocalCluster

    if scheduler_address:
        try:
            client = Client(scheduler_address, timeout="30s", set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise AdaptschedError(
                f"--scheduler-address {scheduler_address}: no Dask scheduler answers there ({error}); start one "
                "with 'dask scheduler' and workers with 'dask worker ADDRESS' (docs/sweeps.md)"
            ) from None
        try:
            client.wait_for_workers(1, timeout=120)
        except TimeoutError:
            client.close()
            raise AdaptschedError(
                f"--scheduler-address {scheduler_address}: the scheduler has no worker after 120 s; "
                "start some with 'dask worker ADDRESS'"
            ) from None
        nthreads = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
        return client, None, max(1, nthreads)
    if hasattr(os, "sched_getaffinity"):
        cpus = len(os.sched_getaffinity(0))
    else:  # pragma: no cover
        cpus = os.cpu_count() or 1
    n = workers or cpus
    cluster = LocalCluster(
        n_workers=n,
        threads_per_worker=1,
        processes=True,
        dashboard_address="127.0.0.1:0",  # its HTTP server (health, no bokeh: no dashboard) on loopback
        silence_logs=logging.ERROR,
        host="127.0.0.1",
    )
    client = Client(cluster, set_as_default=False)
    client.register_plugin(QuietInterrupt())
    return client, cluster, n


class _Progress:
    def __init__(self, total: int, enabled: bool | None, say):
        self.total, self.say, self.done = total, say, 0
        self.begin = time.perf_counter()
        self.bar = None
        self.step = max(1, total // 10)
        if enabled is None:
            enabled = sys.stderr.isatty()
        if enabled and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc="runs", unit="run", file=sys.stderr, smoothing=0.05)

    def update(self, name: str, note: str = ""):
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

    def note(self, text: str):
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            self.say(text)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def run_grid(
    runs: list[Run],
    folder,
    *,
    analyse=None,
    batsim: str | None = None,
    scheduler_address: str | None = None,
    workers: int | None = None,
    shared_fs: bool = False,
    pin_cpus: bool = False,
    progress: bool | None = None,
    client=None,
    say=print,
) -> GridResult:
    """Runs the grid's runs not done yet in ``folder`` (module doc) and returns all results.

    ``analyse(prefix, options, workload) -> dict``: each run's analysis, on its worker;
    its dict is the run's result, with the run's own fields added. ``client``: an already
    connected ``distributed.Client`` (then ``scheduler_address`` and ``workers`` are unused).
    ``pin_cpus``: LocalCluster only, bind worker i (engine and scheduler) to CPU i.
    """
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise UsageError(f"two runs of the grid have the same name: {', '.join(twice[:5])}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    if scheduler_address and workers is not None:
        raise UsageError("--workers starts a local cluster: it does not go with --scheduler-address")
    hashes: dict = {}
    ident = analysis_id(analyse)
    results, todo, keys = {}, [], {}
    for r in runs:
        keys[r.name] = run_key(r, hashes)
        old = read_result(folder / f"{r.name}_result.json")
        if old is not None and old.get("key") == keys[r.name]:
            if old.get("analysis") != ident and analyse is not None and Path(folder / f"{r.name}_jobs.csv").is_file():
                old.update(analyse(str(folder / r.name), dict(r.options), r.workload))  # same run, new analysis
                old["analysis"] = ident
                _write_result(folder, r.name, old)
            results[r.name] = old
        else:
            todo.append(r)
    skipped = len(results)
    if skipped:
        say(f"{skipped} runs already done in {folder}, {len(todo)} to go")
    if not todo:
        return GridResult(folder, results, {}, 0, skipped, 0, 0.0, 0.0, 0.0)

    begin = time.perf_counter()
    own = client is None
    cluster = None
    if own:
        client, cluster, nworkers = start_client(scheduler_address, workers, say=say)
    else:
        nworkers = max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))
    pin_cpus = pin_cpus and cluster is not None
    startup = time.perf_counter() - begin
    failed, run_s, done = {}, 0.0, 0
    shipped: dict = {}
    pending: dict = {}
    client_s, output_bytes = 0.0, 0
    bar = None
    interrupted = False
    begin = time.perf_counter()
    try:
        from distributed import as_completed

        def submit(r: Run, attempt: int):
            task = {
                "name": r.name,
                "key": keys[r.name],
                "scheduler": r.scheduler,
                "options": dict(r.options),
                "engine": r.engine,
                "batsim": batsim,
                "folder": str(folder),
                "shared_fs": shared_fs,
                "pin_cpus": pin_cpus,
                "analyse": analyse,
                "analysis_id": ident,
                "params": dict(r.params),
            }
            future = client.submit(
                execute,
                task,
                _ship(client, r.workload, shipped, hashes, shared_fs),
                _ship(client, r.platform, shipped, hashes, shared_fs),
                key=f"adaptsched-run-{keys[r.name]}-{r.name[:60]}-try{attempt}",
                pure=False,
            )
            pending[future.key] = (r, attempt)
            return future

        futures = as_completed([submit(r, 0) for r in todo], loop=client.loop, with_results=False)
        bar = _Progress(len(todo), progress, say)
        for future in futures:
            r, attempt = pending.pop(future.key)
            try:
                answer = future.result()
            except Exception as error:  # the worker died too often (KilledWorker), or Dask failed
                answer = {"ok": False, "error": f"{type(error).__name__}: {error}", "log_tail": "", "outputs": None}
            del future
            handled = time.perf_counter()
            if answer.get("outputs"):
                _unpack(answer["outputs"], folder, r.name)
            if answer["ok"]:
                result = answer["result"]
                result["output_bytes"] = len(answer["outputs"] or b"")
                _write_result(folder, r.name, result)
                results[r.name] = result
                run_s += result["wall_s"] + result.get("analysis_s", 0.0)
                output_bytes += result["output_bytes"]
                done += 1
                bar.update(r.name)
            elif attempt == 0:
                futures.add(submit(r, 1))
                bar.note(f"  {r.name}: failed ({_first_line(answer['error'])}), trying once more")
            else:
                message = answer["error"]
                if answer.get("log_tail") and "last lines of" not in message:  # not already in the error
                    message += f"\n{answer['log_tail']}"
                failed[r.name] = message
                bar.update(r.name, f"FAILED twice: {_first_line(message)}")
            client_s += time.perf_counter() - handled
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        wall = time.perf_counter() - begin
        if bar is not None:
            bar.close()
        grid = GridResult(folder, results, failed, done, skipped, nworkers, wall, startup, run_s, interrupted)
        grid.client_s, grid.output_bytes = client_s, output_bytes
        if interrupted:
            say(grid.summary())
        if own:
            try:
                client.close(timeout=10)
                if cluster is not None:
                    cluster.close(timeout=10)
            except Exception:  # closing a cluster that lost its workers: nothing left to save
                pass
    grid.input_bytes = sum(v for k, v in shipped.items() if isinstance(k, tuple))
    if failed:
        say(f"{len(failed)} runs failed twice:")
        for name, message in failed.items():
            say(f"  {name}: {message}")
    return grid
