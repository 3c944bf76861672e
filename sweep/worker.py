"""One run of a grid on a Dask worker: :func:`execute` and what it needs on the worker.

A task (:class:`RunTask`) carries the run's :class:`~adaptsched.engines.spec.RunSpec`, whose
workload and platform are the client's files: the worker receives them shipped (a path on a
shared file system, or their compressed contents as the result of a pure Dask task keyed by
their hash, :func:`input_data`, which Dask recomputes if the only worker holding it dies;
written once per worker) and runs its own copy of the spec, with its local paths and outputs
prefix. The outputs come back as one gzip-compressed tar (:func:`pack`), unpacked by the
client (:func:`unpack`).

A run that fails raises :class:`RunFailed` (its message holds the last lines of its logs, its
``outputs`` the logs themselves), so that Dask's own ``retries=`` runs it again. Each run
announces itself when it starts (:data:`EVENTS`: worker, host and scratch folder) and when it
fails, so that the client can say which run a lost worker was running, blame a run that kills
its worker, and fetch the logs it left on that host (:func:`log_tail`).

Metrics of a run done before, whose analysis changed, are recomputed by :func:`reanalyse`
on a worker, from the outputs the client sends (or in place on a shared file system).
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import tarfile
import tempfile
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from adaptsched import __version__
from adaptsched.engines.partial import PARTIAL
from adaptsched.engines.spec import RunSpec

from .grid import Analysis

RESULTS = ("_jobs.csv", "_schedule.csv", "_machine_states.csv")
#: What a run sends back: its results (a failed run's under their partial names, engines/partial.py) and logs.
OUTPUT_SUFFIXES = (*RESULTS, *(f"{suffix}{PARTIAL}" for suffix in RESULTS), "_sched.log", "_batsim.log")
LOG_LINES = 12

#: An input as a task receives it: ``("path", PATH)`` on a shared file system, otherwise
#: ``("data", SHA256, GZIPPED_CONTENTS, SUFFIX)``; ``("value", HOSTS)`` for a platform given
#: as a number of hosts (the run writes its cluster).
Shipped = tuple[Any, ...]


@dataclass(frozen=True)
class RunTask:
    """What a worker receives for one run of the grid (besides its shipped input files)."""

    name: str
    key: str
    spec: RunSpec  # the client's: its workload, platform and prefix are the client's paths
    params: dict[str, Any] = field(default_factory=dict, hash=False)
    shared_fs: bool = False
    pin_cpus: bool = False
    analyse: Analysis | None = None
    analysis_id: str | None = None


#: The topic of the runs' events (``client.subscribe_topic``): ``{"event": "started", "name",
#: "worker", "host", "scratch"}``, ``{"event": "failed", "name", "worker", "error"}``, and the
#: workers' ``{"event": "worker", "worker", "nanny"}`` (:class:`AnnounceWorker`).
EVENTS = "adaptsched-run"

_INPUTS: dict[str, str] = {}  # sha256 -> local path, per worker process


class RunFailed(Exception):
    """A run that failed on its worker: ``message`` (the error and the last lines of its logs),
    ``outputs`` (what it wrote, logs included, as :func:`pack` makes them)."""

    def __init__(self, message: str, outputs: bytes | None = None):
        super().__init__(message, outputs)
        self.message, self.outputs = message, outputs

    def __str__(self) -> str:
        return self.message


class AnnounceWorker(WorkerPlugin):
    """A worker plugin: each worker, when it starts, says which nanny started it (an event of
    :data:`EVENTS`), so that the client can tell a worker that died alone, restarted by its
    nanny, from one lost with its nanny (:mod:`.blame`)."""

    name = "adaptsched-announce-worker"

    def setup(self, worker: Any) -> None:
        worker.log_event(EVENTS, {"event": "worker", "worker": worker.address, "nanny": worker.nanny})


def input_data(data: Shipped) -> Shipped:
    """An input's compressed contents, as a pure task keyed by their hash: its result lives on a
    worker, and when that worker dies Dask recomputes it from the task (unlike scattered data)."""
    return data


def _worker() -> Any:
    try:
        from distributed import get_worker

        return get_worker()
    except (ImportError, ValueError):
        return None


def _worker_folder() -> Path:
    worker = _worker()
    return Path(worker.local_directory) if worker is not None else Path(tempfile.gettempdir())


def _scratch_root() -> Path:
    """Where runs write before their outputs are packed: beside the worker's own folder, which
    the next worker started in the same place deletes if this one dies; a run's logs stay
    readable here after it killed its worker (:func:`log_tail`)."""
    worker = _worker()
    base = Path(worker.local_directory).parent if worker is not None else Path(tempfile.gettempdir())
    root = base / "adaptsched-runs"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _announce(event: str, name: str, *, wait: bool = False, **fields: Any) -> None:
    """An event of :data:`EVENTS`; ``wait``: sent to the scheduler before going on (a run's
    start, so that the client knows which run a worker was running if the run kills it at
    once), rather than in the worker's next batch of messages."""
    worker = _worker()
    if worker is None:
        return
    message = {"event": event, "name": name, "worker": worker.address, **fields}
    if wait:
        try:
            from distributed import get_client

            get_client().log_event(EVENTS, message)
            return
        except Exception:  # no client to be had: the batched message below
            pass
    worker.log_event(EVENTS, message)


def materialise(data: Shipped) -> Any:
    """An input on the worker: ``("path", PATH)`` and ``("value", HOSTS)`` as they are,
    ``("data", SHA, GZ, SUFFIX)`` written once."""
    if data[0] in ("path", "value"):
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


def pack(prefix: Path) -> bytes:
    """A run's outputs (:data:`OUTPUT_SUFFIXES`) as one gzip-compressed tar."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        for suffix in OUTPUT_SUFFIXES:
            path = Path(f"{prefix}{suffix}")
            if path.is_file():
                tar.add(path, arcname=path.name)
    return buffer.getvalue()


def unpack(payload: bytes, folder: Path, name: str) -> int:
    """Writes a run's outputs under ``folder``; only ``NAME_*`` regular files are accepted."""
    with tarfile.open(fileobj=io.BytesIO(payload), mode="r:gz") as tar:
        for member in tar.getmembers():
            if not member.isfile() or "/" in member.name or not member.name.startswith(f"{name}_"):
                continue
            extracted = tar.extractfile(member)
            if extracted is None:
                continue
            target = folder / member.name
            tmp = target.with_name(target.name + ".part")
            tmp.write_bytes(extracted.read())
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


def execute(task: RunTask, workload: Shipped, platform: Shipped) -> dict[str, Any]:
    """One run on a worker (module-level: Dask pickles it by reference): ``{"result",
    "outputs"}``; raises :class:`RunFailed` for a failed run."""
    begin = time.perf_counter()
    scratch = None
    if task.shared_fs:
        prefix = Path(task.spec.prefix)
    else:
        scratch = Path(tempfile.mkdtemp(prefix=f"{task.key[:12]}-", dir=_scratch_root()))
        prefix = scratch / task.name
    _announce("started", task.name, wait=True, host=socket.gethostname(), scratch=str(prefix))
    try:
        spec = replace(
            task.spec,
            workload=materialise(workload),
            platform=materialise(platform),
            prefix=str(prefix),
            progress=False,
        ).with_plugin_in(_worker_folder() / "adaptsched-plugins")  # a plugin file travels by its contents
        out = _run_and_analyse(task, spec)
        outputs = None if task.shared_fs else pack(prefix)
        out["task_s"] = time.perf_counter() - begin
        return {"result": out, "outputs": outputs}
    except Exception as error:  # reported by the client, with the run's last log lines
        raise _failure(task, prefix, error) from None
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _run_and_analyse(task: RunTask, spec: RunSpec) -> dict[str, Any]:
    """Runs the spec (pinned to this worker's CPU with ``pin_cpus``), then its analysis; the
    run's result dict."""
    from adaptsched.engines.run import run

    cpu = _cpu_of_worker() if task.pin_cpus else None
    cpu_begin = time.process_time()  # the run's CPU time, when its engine runs in this process
    affinity = None
    if cpu is not None:
        affinity = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {cpu})  # run() pins its engine and scheduler to this CPU
    try:
        result = run(replace(spec, pin_cpu=cpu is not None), say=lambda *a: None)
    finally:
        if affinity is not None:
            os.sched_setaffinity(0, affinity)
    options = spec.options.values()
    analysed = time.perf_counter()
    out = task.analyse(spec.prefix, options, spec.workload) if task.analyse is not None else {}
    out.update(
        {
            "name": task.name,
            "key": task.key,
            "scheduler": spec.scheduler,
            "options": options,
            "engine": spec.engine,
            "wall_s": result.wall_s,
            "nb_jobs": result.nb_jobs,
            "nb_hosts": result.nb_hosts,
            "notes": result.notes,
            "host": socket.gethostname(),
            "adaptsched_version": __version__,
            "analysis": task.analysis_id,
            "params": task.params,
            "analysis_s": time.perf_counter() - analysed,
            "cpu_s": time.process_time() - cpu_begin,
        }
    )
    return out


def log_tail(prefix: str) -> str:
    """The last lines of a run's logs (``PREFIX_sched.log``, ``PREFIX_batsim.log``), or ''."""
    from adaptsched.engines.process import tail

    logs = [Path(f"{prefix}{s}") for s in ("_sched.log", "_batsim.log")]
    return "\n".join(f"  {p.name}:\n{tail(p, LOG_LINES)}" for p in logs if p.is_file())


def salvage(prefix: str) -> bytes:
    """On the host where a run killed its worker (the client's, or a worker's there): what the
    run wrote, logs included, as :func:`pack` makes it; then its scratch folder removed (the
    run's own ``finally`` never ran)."""
    payload = pack(Path(prefix))
    folder = Path(prefix).parent
    if folder.parent.name == "adaptsched-runs":
        shutil.rmtree(folder, ignore_errors=True)
    return payload


def _failure(task: RunTask, prefix: Path, error: Exception) -> RunFailed:
    detail = "".join(traceback.format_exception_only(type(error), error)).strip()
    _announce("failed", task.name, error=detail)
    tail_text = log_tail(str(prefix))
    message = detail if not tail_text or "last lines of" in detail else f"{detail}\n{tail_text}"
    outputs = None
    if not task.shared_fs:
        try:
            outputs = pack(prefix)
        except OSError:
            pass
    return RunFailed(message, outputs)


def reanalyse(task: RunTask, outputs: Shipped, workload: Shipped) -> dict[str, Any]:
    """A done run's analysis again, on a worker: ``outputs`` are ``("path", PREFIX)`` on a
    shared file system or ``("data", TAR_GZ)`` as :func:`pack` made them; the fields that
    the analysis gives, with ``analysis`` and ``analysis_s``."""
    assert task.analyse is not None
    begin = time.perf_counter()
    scratch = None
    try:
        if outputs[0] == "path":
            prefix = str(outputs[1])
        else:
            scratch = Path(tempfile.mkdtemp(prefix=f"{task.key[:12]}-m-", dir=_scratch_root()))
            unpack(outputs[1], scratch, task.name)
            prefix = str(scratch / task.name)
        try:
            out = task.analyse(prefix, task.spec.options.values(), materialise(workload))
        except Exception as error:
            detail = "".join(traceback.format_exception_only(type(error), error)).strip()
            raise RunFailed(f"recomputing its metrics: {detail}") from None
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    out.update({"analysis": task.analysis_id, "analysis_s": time.perf_counter() - begin})
    return out
